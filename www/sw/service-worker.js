// Zeropoint's service worker: the page works offline after its first load.
//
// `vite build` fills in PRECACHE (every file of dist/, relative to this script) and VERSION (a
// hash of them); see the `offlineServiceWorker` plugin in vite.config.ts. On install every file
// is cached; afterwards built assets (hashed names) are served cache-first, and the page itself
// network-first, falling back to the cache, so a new build shows on the next load while an
// offline load still works. Nothing but this origin is ever fetched.
const VERSION = '__ZEROPOINT_VERSION__';
const PRECACHE = /* __ZEROPOINT_PRECACHE__ */ [];
const CACHE = `zeropoint-${VERSION}`;
const PAGE = new URL('./', self.location.href).href;

self.addEventListener('install', (event) => {
  event.waitUntil(
    caches
      .open(CACHE)
      .then((cache) => cache.addAll(PRECACHE.map((file) => new URL(file, self.location.href).href)))
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((keys) => Promise.all(keys.filter((k) => k.startsWith('zeropoint-') && k !== CACHE).map((k) => caches.delete(k))))
      .then(() => self.clients.claim()),
  );
});

async function pageFirst(request) {
  const cache = await caches.open(CACHE);
  try {
    const response = await fetch(request);
    if (response.ok) await cache.put(PAGE, response.clone());
    return response;
  } catch (error) {
    const cached = (await cache.match(PAGE, { ignoreVary: true })) ?? (await cache.match(request, { ignoreSearch: true, ignoreVary: true }));
    if (cached) return cached;
    throw error;
  }
}

async function assetFirst(request) {
  const cache = await caches.open(CACHE);
  // ignoreVary: the dev/preview server answers with `Vary: Origin`, and module scripts are
  // requested with an Origin header that the precache requests did not carry.
  const cached = await cache.match(request, { ignoreVary: true });
  if (cached) return cached;
  const response = await fetch(request);
  if (response.ok && response.type === 'basic') await cache.put(request, response.clone());
  return response;
}

self.addEventListener('fetch', (event) => {
  const { request } = event;
  if (request.method !== 'GET' || new URL(request.url).origin !== self.location.origin) return;
  event.respondWith(request.mode === 'navigate' ? pageFirst(request) : assetFirst(request));
});
