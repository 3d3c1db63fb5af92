// Driving and reading the page through playwright-core: waits on the page's data-state / data-*
// attributes, drops and downloads, tabs, screenshots, and the request watch (nothing may leave
// 127.0.0.1).
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ARTIFACTS, ROOT, STEP_TIMEOUT_MS, TARGET_SHOTS, assert, withTimeout } from './harness.mjs';

/** README screenshots (1280×800), rewritten only when asked. */
const DOCS_SHOTS = process.env.ZEROPOINT_DOCS_SCREENSHOTS === '1' ? join(ROOT, 'docs', 'screenshots') : undefined;

/** Listen to a page: console errors, uncaught exceptions, and requests that leave the machine. */
export function watch(page) {
  const record = { consoleErrors: [], pageErrors: [], foreignRequests: [] };
  page.on('console', (msg) => {
    if (msg.type() === 'error') record.consoleErrors.push(msg.text());
  });
  page.on('pageerror', (error) => record.pageErrors.push(error.message));
  return record;
}

export function isLocal(url) {
  const u = new URL(url);
  if (u.protocol === 'data:' || u.protocol === 'blob:') return true;
  return ['127.0.0.1', 'localhost', '[::1]'].includes(u.hostname);
}

export const testId = (id) => `[data-testid="${id}"]`;

export async function waitForState(page, state) {
  await page.waitForFunction((s) => document.body.dataset.state === s, state, { timeout: STEP_TIMEOUT_MS });
}

export async function waitForModel(page, name) {
  await page.waitForFunction(
    (n) => document.body.dataset.state === 'ready' && document.querySelector('[data-testid="model-name"]')?.textContent === n,
    name,
    { timeout: STEP_TIMEOUT_MS },
  );
}

/**
 * Waits until the engine badge names a SIMD build: `relaxed` (where Chromium's int8 relaxed dot
 * product is exact with full-range bytes: x86-64 AVX-VNNI, arm64 sdot) or `simd`, as the page's
 * `auto` choice gives; returns the badge's build and dot scheme.
 */
export async function waitForSimdEngine(page) {
  await page.waitForFunction(
    () => ['simd', 'relaxed'].includes(document.querySelector('[data-testid="engine-badge"]')?.getAttribute('data-engine') ?? ''),
    null,
    { timeout: STEP_TIMEOUT_MS },
  );
  const badge = page.locator('[data-testid="engine-badge"]');
  return { build: await badge.getAttribute('data-engine'), dot: await badge.getAttribute('data-dot') };
}

export async function text(page, id) {
  return (await page.locator(testId(id)).first().textContent({ timeout: STEP_TIMEOUT_MS })) ?? '';
}

/** A real `drop` (with dragenter/dragover first) carrying a File built in the page. */
export async function dropFile(page, name, bytes) {
  await page.evaluate(
    ({ name: fileName, base64 }) => {
      const raw = atob(base64);
      const data = new Uint8Array(raw.length);
      for (let i = 0; i < raw.length; i++) data[i] = raw.charCodeAt(i);
      const transfer = new DataTransfer();
      transfer.items.add(new File([data], fileName, { type: 'application/octet-stream' }));
      const zone = document.querySelector('[data-testid="drop-zone"]');
      if (!zone) throw new Error('no drop zone');
      for (const type of ['dragenter', 'dragover', 'drop']) {
        zone.dispatchEvent(new DragEvent(type, { bubbles: true, cancelable: true, dataTransfer: transfer }));
      }
    },
    { name, base64: Buffer.from(bytes).toString('base64') },
  );
}

export async function waitForCalibration(page, state) {
  await page.waitForFunction(
    (s) => document.querySelector('[data-testid="calibration"]')?.getAttribute('data-state') === s,
    state,
    { timeout: STEP_TIMEOUT_MS },
  );
}

export async function fillRandom(page, { count, lo, hi, seed }) {
  await showTab(page, 'calibrate');
  await page.locator(testId('source-random')).check({ timeout: STEP_TIMEOUT_MS });
  await page.locator(testId('random-count')).fill(String(count));
  await page.locator(testId('random-lo')).fill(String(lo));
  await page.locator(testId('random-hi')).fill(String(hi));
  await page.locator(testId('random-seed')).fill(String(seed));
}

/** Calibrates on `count` random samples in [lo, hi] (min/max ranges) and waits until it is done. */
export async function calibrateRandom(page, range) {
  await fillRandom(page, range);
  await page.locator(testId('calibrate-method')).selectOption('minmax');
  await page.locator(testId('calibrate-start')).click({ timeout: STEP_TIMEOUT_MS });
  await waitForCalibration(page, 'done');
}

export async function screenshot(page, name, { target = false } = {}) {
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true, timeout: STEP_TIMEOUT_MS });
  if (target) await page.screenshot({ path: join(TARGET_SHOTS, `${name}.png`), fullPage: true, timeout: STEP_TIMEOUT_MS });
}

export async function showTab(page, name) {
  await page.locator(testId(`tab-${name}`)).click({ timeout: STEP_TIMEOUT_MS });
  await page.waitForFunction((n) => document.body.dataset.tab === n, name, { timeout: STEP_TIMEOUT_MS });
}

/** Numbers the Ranges view shows, read from data attributes (full precision). */
export async function rangesNumbers(page) {
  return page.evaluate(() => {
    const q = (id) => document.querySelector(`[data-testid="${id}"]`);
    const n = (id, attr) => Number(q(id)?.getAttribute(attr));
    return {
      tensor: Number(document.querySelector('[data-testid="ranges-tensor"]')?.value),
      observedMin: n('ranges-observed', 'data-min'),
      observedMax: n('ranges-observed', 'data-max'),
      chosenMin: n('ranges-chosen', 'data-min'),
      chosenMax: n('ranges-chosen', 'data-max'),
      scale: n('ranges-scale', 'data-value'),
      zeroPoint: n('ranges-zero-point', 'data-value'),
      clipped: n('ranges-clipped', 'data-value'),
      nudgedMin: n('ranges-row-nudged', 'data-min'),
      nudgedMax: n('ranges-row-nudged', 'data-max'),
      bars: document.querySelectorAll('[data-testid="ranges-hist"] rect').length,
      stride: Number(q('ranges-grid')?.getAttribute('data-stride')),
      gridTicks: document.querySelectorAll('[data-testid="ranges-grid"] line').length,
      zeroMarker: q('ranges-zero-marker') !== null,
      summary: q('ranges-summary')?.textContent ?? '',
    };
  });
}

/** Clicks a download button and returns the file's name and bytes. */
export async function downloadOf(page, id) {
  const [download] = await Promise.all([
    page.waitForEvent('download', { timeout: STEP_TIMEOUT_MS }),
    page.locator(testId(id)).click({ timeout: STEP_TIMEOUT_MS }),
  ]);
  const path = await withTimeout(download.path(), STEP_TIMEOUT_MS, 'download');
  return { name: download.suggestedFilename(), bytes: readFileSync(path) };
}

export async function waitForPanel(page, id, states) {
  await page.waitForFunction(
    ({ panel, want }) => want.includes(document.querySelector(`[data-testid="${panel}"]`)?.getAttribute('data-state') ?? ''),
    { panel: id, want: states },
    { timeout: 60_000 },
  );
}

/** Quantize with the page's current settings; fails with the page's error banner if it fails. */
export async function quantizeOnPage(page) {
  await showTab(page, 'quantize');
  await page.locator(testId('quant-start')).click({ timeout: STEP_TIMEOUT_MS });
  await waitForPanel(page, 'quantize', ['done', 'error']);
  const state = await page.locator(testId('quantize')).getAttribute('data-state');
  assert(state === 'done', `quantize ended in ${String(state)}: ${await text(page, 'error-banner')}`);
}

/** A 1280×800 viewport shot for the README, with element `id` scrolled to the top. */
export async function docsShot(page, name, id) {
  if (!DOCS_SHOTS) return;
  mkdirSync(DOCS_SHOTS, { recursive: true });
  await page.evaluate((target) => {
    const el = document.querySelector(`[data-testid="${target}"]`);
    window.scrollTo(0, el ? el.getBoundingClientRect().top + window.scrollY - 8 : 0);
  }, id);
  await page.screenshot({ path: join(DOCS_SHOTS, `${name}.png`), timeout: STEP_TIMEOUT_MS });
  await page.evaluate(() => window.scrollTo(0, 0));
}

/**
 * The operator boxes of graph `prefix` (`graph`, `quant-graph`, `compare-graph`) seen on screen:
 * the centre of the box inside the graph's svg box and across the window (a sliver at an edge does
 * not count). A graph follows a resize a frame or more later (longer on a loaded machine): polled
 * for up to 5 s while none is seen. Returns how many are seen, with where the view put the first.
 */
export async function graphOpsInView(page, prefix) {
  const look = () => page.evaluate((p) => {
    const svg = document.querySelector(`[data-testid="${p}-svg"]`)?.getBoundingClientRect();
    const ops = [...document.querySelectorAll(`[data-testid="${p}-op"]`)];
    if (!svg || svg.width === 0) return { seen: 0, ops: ops.length, svg: 'not shown' };
    const seen = ops.filter((g) => {
      const r = g.getBoundingClientRect();
      const [x, y] = [r.left + r.width / 2, r.top + r.height / 2];
      return x >= svg.left && x <= svg.right && y >= svg.top && y <= svg.bottom && x >= 0 && x <= window.innerWidth;
    }).length;
    const first = ops[0]?.getBoundingClientRect();
    const at = (r) => `x ${Math.round(r.left)}..${Math.round(r.right)}, y ${Math.round(r.top)}..${Math.round(r.bottom)}`;
    return { seen, ops: ops.length, svg: at(svg), first: first ? at(first) : 'none', transform: document.querySelector(`[data-testid="${p}-svg"] .graph-viewport`)?.getAttribute('transform') };
  }, prefix);
  let found = await look();
  for (let i = 0; i < 50 && found.seen === 0; i++) {
    await page.waitForTimeout(100);
    found = await look();
  }
  return found;
}

/**
 * The text of element `id` wraps between words: every word (split at spaces) narrower than the
 * element's box is drawn on one line. Fails when a line breaks inside a file name that would fit
 * on the next line ("face_landmark_int8_floatio.tflit" / "e").
 */
export async function wrapsAtSpaces(page, id) {
  const split = await page.evaluate((tid) => {
    const el = document.querySelector(`[data-testid="${tid}"]`);
    if (!el) return null;
    const box = el.getBoundingClientRect().width - 24;
    const broken = [];
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const textNode = node;
      for (const m of (textNode.textContent ?? '').matchAll(/\S+/g)) {
        const range = document.createRange();
        range.setStart(textNode, m.index);
        range.setEnd(textNode, m.index + m[0].length);
        const rects = [...range.getClientRects()].filter((r) => r.width > 0);
        const tops = new Set(rects.map((r) => Math.round(r.top)));
        const width = rects.reduce((w, r) => w + r.width, 0);
        if (tops.size > 1 && width < box) broken.push(m[0]);
      }
    }
    return broken;
  }, id);
  assert(split !== null, `no element ${id}`);
  assert(split.length === 0, `${id}: words broken across lines though they fit on one: ${split.slice(0, 3).join(', ')}`);
}
