// Vite + Vitest configuration for the Zeropoint page.
//
// The repo root is the Vite root (index.html lives there); page sources are under www/src/,
// the wasm-bindgen output under www/pkg/{simd,nosimd}/ (built by scripts/build-wasm.sh),
// and `vite build` writes dist/.
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { defineConfig, type Plugin } from 'vitest/config';

/**
 * The page promises that nothing leaves the browser. In the production build that promise is
 * enforced by a Content-Security-Policy: only the page's own origin (plus blob:/data: for the
 * download link and images). The dev server is left without it because Vite injects inline styles.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "worker-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data: blob:",
  "style-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

function contentSecurityPolicy(): Plugin {
  return {
    name: 'zeropoint-csp',
    apply: 'build',
    transformIndexHtml: () => [
      {
        tag: 'meta',
        attrs: { 'http-equiv': 'Content-Security-Policy', content: CONTENT_SECURITY_POLICY },
        injectTo: 'head-prepend',
      },
    ],
  };
}

/** Every file under `dir`, as paths relative to it with `/` separators, sorted. */
function filesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const path = join(d, entry.name);
      if (entry.isDirectory()) walk(path);
      else out.push(relative(dir, path).split(sep).join('/'));
    }
  };
  walk(dir);
  return out.sort();
}

/**
 * Offline support: after `vite build` has written dist/, writes dist/sw.js from
 * www/sw/service-worker.js with the list of every built file (precached on the first visit) and
 * a version hash of their contents (a new build replaces the old cache).
 */
function offlineServiceWorker(): Plugin {
  let outDir = 'dist';
  return {
    name: 'zeropoint-offline-service-worker',
    apply: 'build',
    configResolved(config) {
      outDir = config.build.outDir;
    },
    closeBundle() {
      const files = filesUnder(outDir).filter((f) => f !== 'sw.js');
      const hash = createHash('sha256');
      for (const f of files) hash.update(f).update(readFileSync(join(outDir, f)));
      const precache = ['./', ...files.filter((f) => f !== 'index.html')].map((f) => (f.startsWith('.') ? f : `./${f}`));
      const template = readFileSync('www/sw/service-worker.js', 'utf8');
      const source = template
        .replace("'__ZEROPOINT_VERSION__'", JSON.stringify(hash.digest('hex').slice(0, 16)))
        .replace('/* __ZEROPOINT_PRECACHE__ */ []', JSON.stringify(precache));
      if (source.includes('__ZEROPOINT_')) throw new Error('www/sw/service-worker.js: a placeholder was not filled in');
      writeFileSync(join(outDir, 'sw.js'), source);
    },
  };
}

export default defineConfig({
  root: '.',
  publicDir: 'www/public',
  plugins: [contentSecurityPolicy(), offlineServiceWorker()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // Keep models as real files (never base64 inlined), whatever their size.
    assetsInlineLimit: (filePath: string) => (filePath.endsWith('.tflite') ? false : undefined),
  },
  // The worker loads one of two wasm builds with dynamic import(): that needs ES module workers.
  worker: { format: 'es' },
  server: { host: '127.0.0.1', port: 8787, strictPort: true },
  preview: { host: '127.0.0.1', port: 8787, strictPort: true },
  test: {
    include: ['www/src/**/*.test.ts'],
    environment: 'node',
    testTimeout: 20_000,
  },
});
