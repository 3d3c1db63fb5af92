// Browser end-to-end test of the built page (dist/, from `vite build`).
//
// Starts `vite preview` on a free 127.0.0.1 port, drives Debian's Chromium through playwright-core,
// prints one line per check and finishes with "N passed, M failed". Screenshots go to
// artifacts/e2e/. Expected values come from the real wasm package loaded here in Node, so the
// page is compared with the engine, not with hard-coded numbers.
//
//   node tests/e2e/run.mjs            (CHROMIUM_PATH overrides /usr/bin/chromium)
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const ARTIFACTS = join(ROOT, 'artifacts', 'e2e');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
/** The whole run is abandoned (and fails) after this long, whatever is hanging. */
const OVERALL_TIMEOUT_MS = 300_000;
/** Waiting for one thing on the page. */
const STEP_TIMEOUT_MS = 20_000;
const SERVER_START_TIMEOUT_MS = 30_000;

const results = [];
let server;
let browser;
let finished = false;

function log(line) {
  process.stdout.write(`${line}\n`);
}

async function check(name, fn) {
  const started = Date.now();
  try {
    await fn();
    results.push({ name, ok: true });
    log(`ok   ${name} (${String(Date.now() - started)} ms)`);
  } catch (error) {
    results.push({ name, ok: false });
    const message = error instanceof Error ? error.message.split('\n').slice(0, 6).join('\n     ') : String(error);
    log(`FAIL ${name}: ${message}`);
  }
}

function assert(condition, message) {
  if (!condition) throw new Error(message);
}

function withTimeout(promise, ms, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: timed out after ${String(ms)} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

async function cleanup() {
  if (browser) {
    const b = browser;
    browser = undefined;
    await withTimeout(b.close(), 10_000, 'closing the browser').catch((error) => {
      log(`warning: ${error.message}`);
      b.process?.()?.kill('SIGKILL');
    });
  }
  if (server) {
    const child = server;
    server = undefined;
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      try {
        process.kill(-child.pid, 'SIGTERM'); // the whole process group (detached)
      } catch {
        child.kill('SIGTERM');
      }
      await withTimeout(exited, 5_000, 'stopping vite preview').catch(() => {
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {
          child.kill('SIGKILL');
        }
      });
    }
  }
}

async function finish(extraFailure) {
  if (finished) return;
  finished = true;
  if (extraFailure) {
    results.push({ name: extraFailure, ok: false });
    log(`FAIL ${extraFailure}`);
  }
  await cleanup();
  const passed = results.filter((r) => r.ok).length;
  const failed = results.length - passed;
  log(`${String(passed)} passed, ${String(failed)} failed`);
  process.exit(failed > 0 || passed === 0 ? 1 : 0);
}

const watchdog = setTimeout(() => {
  void finish(`whole run: timed out after ${String(OVERALL_TIMEOUT_MS)} ms`);
}, OVERALL_TIMEOUT_MS);
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => void finish(`interrupted by ${signal}`));
}

function freePort() {
  return new Promise((resolvePort, reject) => {
    const probe = createServer();
    probe.unref();
    probe.on('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolvePort(port));
    });
  });
}

async function startServer() {
  const port = await freePort();
  const vite = join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js');
  const child = spawn(process.execPath, [vite, 'preview', '--host', '127.0.0.1', '--port', String(port), '--strictPort'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true, // own process group, so cleanup can stop everything it started
  });
  server = child;
  let output = '';
  child.stdout.on('data', (d) => (output += String(d)));
  child.stderr.on('data', (d) => (output += String(d)));
  const base = `http://127.0.0.1:${String(port)}/`;
  const deadline = Date.now() + SERVER_START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`vite preview exited (${String(child.exitCode)}):\n${output}`);
    try {
      const response = await fetch(base, { signal: AbortSignal.timeout(2_000) });
      if (response.ok) return base;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`vite preview did not answer on ${base} within ${String(SERVER_START_TIMEOUT_MS)} ms:\n${output}`);
}

/** The engine in Node: the page must show what it says. */
async function loadNodeEngine() {
  const js = join(ROOT, 'www/pkg/simd/zeropoint.js');
  const wasm = join(ROOT, 'www/pkg/simd/zeropoint_bg.wasm');
  if (!existsSync(js) || !existsSync(wasm)) {
    throw new Error('www/pkg/simd is missing: run `bash scripts/build-wasm.sh` (then `npx vite build`)');
  }
  const api = await import(pathToFileURL(js).href);
  api.initSync({ module: readFileSync(wasm) });
  return api;
}

function engineError(api, bytes) {
  try {
    api.inspectModel(bytes);
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
  throw new Error('the engine accepted bytes that were meant to be malformed');
}

function shapeText(tensor) {
  if (tensor.shape.length === 0) return 'scalar';
  const sig = tensor.shape_signature;
  return tensor.shape
    .map((d, i) => (sig && sig.length === tensor.shape.length && sig[i] < 0 ? '?' : String(d)))
    .join('\u00d7');
}

function pseudoRandomBytes(n, seed) {
  let s = seed >>> 0;
  return new Uint8Array(n).map(() => {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    return s >>> 24;
  });
}

/** Listen to a page: console errors, uncaught exceptions, and requests that leave the machine. */
function watch(page) {
  const record = { consoleErrors: [], pageErrors: [], foreignRequests: [] };
  page.on('console', (msg) => {
    if (msg.type() === 'error') record.consoleErrors.push(msg.text());
  });
  page.on('pageerror', (error) => record.pageErrors.push(error.message));
  return record;
}

function isLocal(url) {
  const u = new URL(url);
  if (u.protocol === 'data:' || u.protocol === 'blob:') return true;
  return ['127.0.0.1', 'localhost', '[::1]'].includes(u.hostname);
}

const testId = (id) => `[data-testid="${id}"]`;

async function waitForState(page, state) {
  await page.waitForFunction((s) => document.body.dataset.state === s, state, { timeout: STEP_TIMEOUT_MS });
}

async function waitForModel(page, name) {
  await page.waitForFunction(
    (n) => document.body.dataset.state === 'ready' && document.querySelector('[data-testid="model-name"]')?.textContent === n,
    name,
    { timeout: STEP_TIMEOUT_MS },
  );
}

async function text(page, id) {
  return (await page.locator(testId(id)).first().textContent({ timeout: STEP_TIMEOUT_MS })) ?? '';
}

/** A real `drop` (with dragenter/dragover first) carrying a File built in the page. */
async function dropFile(page, name, bytes) {
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

async function screenshot(page, name) {
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true, timeout: STEP_TIMEOUT_MS });
}

async function main() {
  mkdirSync(ARTIFACTS, { recursive: true });
  if (!existsSync(join(ROOT, 'dist', 'index.html'))) {
    throw new Error('dist/index.html is missing: run `npx vite build` first');
  }
  const exampleFile = join(ROOT, 'www/assets/example.tflite');
  if (!existsSync(exampleFile)) throw new Error('www/assets/example.tflite is missing');
  const api = await loadNodeEngine();
  const example = new Uint8Array(readFileSync(exampleFile));
  const expected = api.inspectModel(example);
  const mainGraph = expected.subgraphs[0];
  assert(mainGraph, 'example model has no subgraph');
  const inputTensor = mainGraph.tensors.find((t) => t.index === mainGraph.inputs[0]);
  assert(inputTensor, 'example model has no input tensor');
  const rewritten = api.rewriteModel(example, false);
  const truncated = example.slice(0, Math.floor(example.length / 2));
  const noise = pseudoRandomBytes(4096, 7);

  const base = await startServer();
  log(`# serving dist/ at ${base}`);
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, timeout: 30_000 });
  const context = await browser.newContext({ acceptDownloads: true, viewport: { width: 1200, height: 900 } });
  const foreignRequests = [];
  context.on('request', (request) => {
    if (!isLocal(request.url())) foreignRequests.push(request.url());
  });

  // --- the main page: example, file input, drops, download ---
  const page = await context.newPage();
  const record = watch(page);

  await check('page loads and summarises example.tflite', async () => {
    await page.goto(base, { timeout: STEP_TIMEOUT_MS });
    await waitForModel(page, 'example.tflite');
    const ops = await text(page, 'op-counts');
    for (const { op } of expected.operator_counts) assert(ops.includes(op), `op counts table lacks ${op}: ${ops}`);
    assert(ops.includes('CONV_2D'), 'op counts table lacks CONV_2D');
    const io = await text(page, 'io-table');
    assert(io.includes(inputTensor.name), `inputs table lacks input tensor ${inputTensor.name}`);
    assert(io.includes(shapeText(inputTensor)), `inputs table lacks input shape ${shapeText(inputTensor)}: ${io}`);
    assert(io.includes('float32'), 'inputs table lacks dtype float32');
    await screenshot(page, '01-example');
  });

  await check('engine badge says SIMD and the engine version', async () => {
    const badge = page.locator(testId('engine-badge'));
    await page.waitForFunction(() => document.querySelector('[data-testid="engine-badge"]')?.getAttribute('data-engine') !== 'loading', null, { timeout: STEP_TIMEOUT_MS });
    const label = (await badge.textContent()) ?? '';
    assert((await badge.getAttribute('data-engine')) === 'simd', `badge data-engine is not simd: ${label}`);
    assert(/\bSIMD\b/.test(label) && !label.includes('no SIMD'), `badge does not say SIMD: ${label}`);
    assert(label.includes(api.version()), `badge lacks version ${api.version()}: ${label}`);
  });

  await check('tensor table lists the tensors of subgraph 0', async () => {
    const rows = await page.locator(`${testId('tensor-table')} tbody tr`).count();
    const want = Math.min(500, mainGraph.tensors.length);
    assert(rows === want, `tensor table has ${String(rows)} rows, expected ${String(want)}`);
  });

  await check('choosing a valid .tflite with the file input shows it', async () => {
    await page.locator(testId('file-input')).setInputFiles({
      name: 'picked.tflite',
      mimeType: 'application/octet-stream',
      buffer: Buffer.from(rewritten),
    });
    await waitForModel(page, 'picked.tflite');
    const stats = await text(page, 'model-stats');
    assert(stats.includes(rewritten.length.toLocaleString('en-US')) || rewritten.length < 1024, `size not shown: ${stats}`);
    await screenshot(page, '02-file-input');
  });

  await check('dropping a truncated file shows the engine error and keeps the model', async () => {
    const message = engineError(api, truncated);
    await dropFile(page, 'truncated.tflite', truncated);
    await waitForState(page, 'error');
    const banner = page.locator(testId('error-banner'));
    assert(await banner.isVisible(), 'error banner is not visible');
    const shown = (await banner.textContent()) ?? '';
    assert(shown.includes('truncated.tflite'), `banner lacks the file name: ${shown}`);
    assert(shown.includes(message), `banner lacks the engine message "${message}": ${shown}`);
    assert((await text(page, 'model-name')) === 'picked.tflite', 'the previous model is no longer shown');
    assert(await page.locator(testId('summary')).isVisible(), 'summary hidden after the error');
    await screenshot(page, '03-error-truncated');
  });

  await check('dropping random bytes shows an error', async () => {
    const message = engineError(api, noise);
    await dropFile(page, 'noise.tflite', noise);
    await page.waitForFunction(
      () => document.querySelector('[data-testid="error-banner"]')?.textContent?.includes('noise.tflite'),
      null,
      { timeout: STEP_TIMEOUT_MS },
    );
    await waitForState(page, 'error');
    const shown = await text(page, 'error-banner');
    assert(shown.includes(message), `banner lacks the engine message "${message}": ${shown}`);
  });

  await check('a valid drop after errors works and clears the error', async () => {
    await dropFile(page, 'dropped.tflite', example);
    await waitForModel(page, 'dropped.tflite');
    assert(!(await page.locator(testId('error-banner')).isVisible()), 'error banner still visible');
  });

  await check('download button produces the rewritten model', async () => {
    const downloadEvent = page.waitForEvent('download', { timeout: STEP_TIMEOUT_MS });
    await page.locator(testId('download-button')).click({ timeout: STEP_TIMEOUT_MS });
    const download = await downloadEvent;
    assert(download.suggestedFilename() === 'dropped.rewritten.tflite', `file name ${download.suggestedFilename()}`);
    const path = await withTimeout(download.path(), STEP_TIMEOUT_MS, 'download');
    const bytes = new Uint8Array(readFileSync(path));
    assert(bytes.length > 0, 'downloaded no bytes');
    assert(Buffer.from(bytes.slice(4, 8)).toString('latin1') === 'TFL3', 'download lacks the TFL3 identifier');
    assert(Buffer.compare(Buffer.from(bytes), Buffer.from(rewritten)) === 0, 'download differs from rewriteModel() in Node');
    await page.waitForFunction(() => /\d/.test(document.querySelector('[data-testid="download-info"]')?.textContent ?? ''), null, { timeout: STEP_TIMEOUT_MS });
    const info = await text(page, 'download-info');
    const size = bytes.length < 1024 ? `${String(bytes.length)} B` : `${bytes.length.toLocaleString('en-US')} bytes`;
    assert(info.includes(size), `download info lacks the size ${size}: ${info}`);
    await screenshot(page, '04-download');
  });

  await check('the scalar build loads with ?engine=nosimd and gives the same summary', async () => {
    const other = await context.newPage();
    const otherRecord = watch(other);
    try {
      await other.goto(`${base}?engine=nosimd`, { timeout: STEP_TIMEOUT_MS });
      await waitForModel(other, 'example.tflite');
      await other.waitForFunction(() => document.querySelector('[data-testid="engine-badge"]')?.getAttribute('data-engine') === 'nosimd', null, { timeout: STEP_TIMEOUT_MS });
      const label = await text(other, 'engine-badge');
      assert(label.includes('no SIMD'), `badge does not say no SIMD: ${label}`);
      assert((await text(other, 'op-counts')) === (await text(page, 'op-counts')), 'op counts differ between builds');
      await screenshot(other, '05-nosimd');
      const errors = [...otherRecord.consoleErrors, ...otherRecord.pageErrors];
      assert(errors.length === 0, `errors on the nosimd page: ${errors.join(' | ')}`);
    } finally {
      await other.close();
    }
  });

  await check('no console errors or uncaught exceptions', async () => {
    const errors = [...record.consoleErrors, ...record.pageErrors];
    assert(errors.length === 0, errors.join(' | '));
  });

  await check('a crashed worker is restarted and the page keeps working', async () => {
    const other = await context.newPage();
    try {
      await other.goto(base, { timeout: STEP_TIMEOUT_MS });
      await waitForModel(other, 'example.tflite');
      await other.evaluate(() => window.zeropoint?.crashWorker());
      await other.waitForFunction(() => !document.querySelector('[data-testid="notice-banner"]')?.hidden, null, { timeout: STEP_TIMEOUT_MS });
      const notice = await text(other, 'notice-banner');
      assert(/restart/i.test(notice), `notice does not mention the restart: ${notice}`);
      assert((await other.evaluate(() => window.zeropoint?.workerRestarts)) === 1, 'restart count is not 1');
      await dropFile(other, 'after-crash.tflite', example);
      await waitForModel(other, 'after-crash.tflite');
      await other.waitForFunction(() => document.querySelector('[data-testid="engine-badge"]')?.getAttribute('data-engine') === 'simd', null, { timeout: STEP_TIMEOUT_MS });
      await screenshot(other, '06-restarted');
    } finally {
      await other.close();
    }
  });

  await check('no request left 127.0.0.1', async () => {
    assert(foreignRequests.length === 0, foreignRequests.join(' | '));
  });

  await page.close();
}

main()
  .then(() => {
    clearTimeout(watchdog);
    return finish();
  })
  .catch((error) => {
    clearTimeout(watchdog);
    return finish(`setup: ${error instanceof Error ? error.message : String(error)}`);
  });
