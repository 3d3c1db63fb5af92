// Browser end-to-end test of the built page (dist/, from `vite build`).
//
// Starts `vite preview` on a free 127.0.0.1 port, drives Debian's Chromium through playwright-core,
// prints one line per check and finishes with "N passed, M failed". Screenshots go to
// artifacts/e2e/ (and those of the model graph and the Ranges view also to target/e2e/). Expected values come from the real wasm package loaded here in Node, so the
// page is compared with the engine, not with hard-coded numbers; the quantize / compare steps
// are compared with the CLI (target/debug/zeropoint) run on the same golden files.
//
//   node tests/e2e/run.mjs            (CHROMIUM_PATH overrides /usr/bin/chromium)
//   ZEROPOINT_DOCS_SCREENSHOTS=1 node tests/e2e/run.mjs   also rewrites docs/screenshots/*.png
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer as createHttpServer } from 'node:http';
import { deflateSync } from 'node:zlib';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { startVitePreview } from '../../scripts/lib/vite-preview.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const ARTIFACTS = join(ROOT, 'artifacts', 'e2e');
/** Screenshots of the model view and the Ranges view are kept here too (build artifacts). */
const TARGET_SHOTS = join(ROOT, 'target', 'e2e');
const INT8_MODEL = join(ROOT, 'tests/golden/example_cnn/model_int8.tflite');
/** The golden case of the quantize / compare steps: a float model and TF's calibration samples. */
const GOLDEN = join(ROOT, 'tests/golden/mobilenet_block');
const CLI = join(ROOT, 'target', 'debug', 'zeropoint');
/** Written by crate/tests/malformed.rs: the malformed models and the CLI's error for each. */
const CORPUS = join(ROOT, 'target', 'malformed-corpus');
/** README screenshots (1280×800), rewritten only when asked. */
const DOCS_SHOTS = process.env.ZEROPOINT_DOCS_SCREENSHOTS === '1' ? join(ROOT, 'docs', 'screenshots') : undefined;
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
const OVERALL_TIMEOUT_MS = 480_000;
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

async function startServer() {
  return startVitePreview({
    root: ROOT,
    timeoutMs: SERVER_START_TIMEOUT_MS,
    onSpawn: (child) => {
      server = child;
    },
  });
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

/** A little-endian float32 .npy (version 1.0), as numpy.save writes it. */
function npyBytes(shape, data) {
  const dims = shape.length === 1 ? `${String(shape[0])},` : shape.join(', ');
  let header = `{'descr': '<f4', 'fortran_order': False, 'shape': (${dims}), }`;
  header += ' '.repeat((64 - ((10 + header.length + 1) % 64)) % 64) + '\n';
  const out = Buffer.alloc(10 + header.length + data.byteLength);
  Buffer.from([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0]).copy(out, 0);
  out.writeUInt16LE(header.length, 8);
  out.write(header, 10, 'latin1');
  Buffer.from(data.buffer, data.byteOffset, data.byteLength).copy(out, 10 + header.length);
  return out;
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes) {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** An RGB PNG of width × height with pixel (x, y) = rgb(x, y). */
function pngBytes(width, height, rgb) {
  const chunk = (type, data) => {
    const head = Buffer.alloc(8);
    head.writeUInt32BE(data.length, 0);
    head.write(type, 4, 'latin1');
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
    return Buffer.concat([head, data, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8); // 8-bit RGB
  const raw = Buffer.alloc(height * (1 + width * 3));
  for (let y = 0; y < height; y++) {
    raw[y * (1 + width * 3)] = 0; // filter: none
    for (let x = 0; x < width; x++) raw.set(rgb(x, y), y * (1 + width * 3) + 1 + x * 3);
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** The seed of calibration sample i, input k: the same mixing as www/src/calibration/sources.ts. */
function sampleSeed(seed, sample, input) {
  return (seed + Math.imul(sample, 0x9e3779b1) + Math.imul(input + 1, 0x85ebca77)) >>> 0;
}

/** Calibrate in Node with the page's random source: what the page must show. */
function nodeCalibration(api, model, { count, lo, hi, seed }, method) {
  const calibrator = new api.Calibrator(model);
  try {
    const inputs = calibrator.inputs();
    for (let i = 0; i < count; i++) {
      inputs.forEach((input, k) => {
        const n = input.shape.reduce((a, b) => a * b, 1);
        calibrator.setInput(k, api.randomData(n, lo, hi, sampleSeed(seed, i, k)));
      });
      calibrator.addSample();
    }
    return calibrator.stats(method);
  } finally {
    calibrator.free();
  }
}

async function waitForCalibration(page, state) {
  await page.waitForFunction(
    (s) => document.querySelector('[data-testid="calibration"]')?.getAttribute('data-state') === s,
    state,
    { timeout: STEP_TIMEOUT_MS },
  );
}

async function fillRandom(page, { count, lo, hi, seed }) {
  await showTab(page, 'calibrate');
  await page.locator(testId('source-random')).check({ timeout: STEP_TIMEOUT_MS });
  await page.locator(testId('random-count')).fill(String(count));
  await page.locator(testId('random-lo')).fill(String(lo));
  await page.locator(testId('random-hi')).fill(String(hi));
  await page.locator(testId('random-seed')).fill(String(seed));
}

async function screenshot(page, name, { target = false } = {}) {
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true, timeout: STEP_TIMEOUT_MS });
  if (target) await page.screenshot({ path: join(TARGET_SHOTS, `${name}.png`), fullPage: true, timeout: STEP_TIMEOUT_MS });
}

async function showTab(page, name) {
  await page.locator(testId(`tab-${name}`)).click({ timeout: STEP_TIMEOUT_MS });
  await page.waitForFunction((n) => document.body.dataset.tab === n, name, { timeout: STEP_TIMEOUT_MS });
}

/** TF's rounding of a zero point: half away from zero. */
function roundHalfAway(x) {
  return Math.sign(x) * Math.round(Math.abs(x));
}

/** Numbers the Ranges view shows, read from data attributes (full precision). */
async function rangesNumbers(page) {
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

/**
 * The int8 scale and zero point derived here from a range, independently of the engine: widen
 * to include 0, scale = (f32(rmax) − f32(rmin)) / 255 in float32, zero point from the min side
 * rounded half away from zero and clamped, so that q = zero point stands for 0.0.
 */
function expectedInt8(min, max) {
  const rmin = Math.min(min, 0);
  const rmax = Math.max(max, 0);
  const scale = Math.fround(Math.fround(Math.fround(rmax) - Math.fround(rmin)) / 255);
  const zpReal = Math.fround(-128 - rmin / scale);
  const zeroPoint = Math.min(127, Math.max(-128, roundHalfAway(zpReal)));
  return { rmin, rmax, scale, zeroPoint };
}

/**
 * `zeropoint calibrate` (the CLI, built by scripts/test.sh before this runs) on the same samples
 * the page's seeded random source makes, written to a .npy: its statistics JSON.
 */
function cliCalibration(api, modelPath, input, { count, lo, hi, seed }, method) {
  const cli = join(ROOT, 'target', 'debug', 'zeropoint');
  assert(existsSync(cli), `${cli} is missing: run \`cargo build -p zeropoint --bin zeropoint\``);
  const n = input.shape.reduce((a, b) => a * b, 1);
  const data = new Float32Array(count * n);
  for (let i = 0; i < count; i++) data.set(api.randomData(n, lo, hi, sampleSeed(seed, i, 0)), i * n);
  const dir = mkdtempSync(join(tmpdir(), 'zeropoint-e2e-'));
  try {
    const npy = join(dir, 'samples.npy');
    const out = join(dir, 'stats.json');
    writeFileSync(npy, npyBytes([count, ...input.shape], data));
    execFileSync(cli, ['calibrate', modelPath, '--data', npy, '--method', method, '-o', out], { timeout: 60_000, stdio: ['ignore', 'ignore', 'pipe'] });
    return JSON.parse(readFileSync(out, 'utf8'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Checks the Ranges view against the independent derivation and against the engine in Node. */
function checkRanges(api, shown, wantStats) {
  const want = wantStats.tensors.find((t) => t.index === shown.tensor);
  assert(want, `the engine has no statistics for tensor ${String(shown.tensor)}`);
  assert(shown.observedMin === want.min && shown.observedMax === want.max, `observed [${String(shown.observedMin)}, ${String(shown.observedMax)}], engine [${String(want.min)}, ${String(want.max)}]`);
  assert(shown.chosenMin === want.chosen_min && shown.chosenMax === want.chosen_max, `chosen [${String(shown.chosenMin)}, ${String(shown.chosenMax)}], engine [${String(want.chosen_min)}, ${String(want.chosen_max)}]`);
  const mine = expectedInt8(shown.chosenMin, shown.chosenMax);
  assert(shown.scale === mine.scale, `scale ${String(shown.scale)}, (max − min)/255 in float32 gives ${String(mine.scale)}`);
  assert(shown.zeroPoint === mine.zeroPoint, `zero point ${String(shown.zeroPoint)}, derived ${String(mine.zeroPoint)}`);
  assert(Number.isInteger(shown.zeroPoint) && shown.zeroPoint >= -128 && shown.zeroPoint <= 127, `zero point ${String(shown.zeroPoint)} is not an int8`);
  // 0.0 is exact: the grid scale · (q − zp) has q = zp at 0, and it lies inside the represented range.
  assert(shown.nudgedMin <= 0 && shown.nudgedMax >= 0, `represented range [${String(shown.nudgedMin)}, ${String(shown.nudgedMax)}] lacks 0`);
  assert(Math.abs(shown.nudgedMin - shown.scale * (-128 - shown.zeroPoint)) <= 1e-12 * Math.max(1, Math.abs(shown.nudgedMin)), 'represented min is not scale · (−128 − zp)');
  // The represented range covers the widened range to within half a step at each end.
  assert(shown.nudgedMin <= mine.rmin + shown.scale / 2 + 1e-12 && shown.nudgedMax >= mine.rmax - shown.scale / 2 - 1e-12, 'represented range is not the nudged widened range');
  const engine = api.quantParams(shown.chosenMin, shown.chosenMax, 'int8');
  assert(engine.scale === shown.scale && engine.zero_point === shown.zeroPoint, `engine in Node: scale ${String(engine.scale)} zp ${String(engine.zero_point)}`);
}

/** Runs the CLI (built by scripts/test.sh before this runs); throws with its stderr on failure. */
function cli(args) {
  assert(existsSync(CLI), `${CLI} is missing: run \`cargo build -p zeropoint --bin zeropoint\``);
  try {
    return execFileSync(CLI, args, { timeout: 120_000, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
  } catch (error) {
    throw new Error(`zeropoint ${args.join(' ')}: ${String(error.stderr ?? error.message)}`, { cause: error });
  }
}

/** Runs the CLI expecting it to fail; returns its one error line (as printed). */
function cliError(args) {
  assert(existsSync(CLI), `${CLI} is missing: run \`cargo build -p zeropoint --bin zeropoint\``);
  try {
    execFileSync(CLI, args, { timeout: 120_000, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
  } catch (error) {
    const lines = String(error.stderr ?? '').trimEnd().split('\n');
    assert(lines.length === 1 && lines[0].startsWith('error: '), `zeropoint ${args.join(' ')}: not one error line: ${String(error.stderr)}`);
    return lines[0];
  }
  throw new Error(`zeropoint ${args.join(' ')} succeeded`);
}

/** The CLI's message without "error: " and without the path it was given (the page has a file name). */
function withoutPath(line, path) {
  return line.replace(/^error: /, '').replace(`${path}: `, '').replace(` (in ${path})`, '');
}

/**
 * The malformed-model corpus and its manifest (file, stage, cli_path, cli_error), built by the
 * Rust test if it is not there yet.
 */
function malformedCorpus() {
  const manifest = join(CORPUS, 'manifest.json');
  if (!existsSync(manifest)) {
    log('# building the malformed corpus: cargo test -p zeropoint --test malformed');
    execFileSync('cargo', ['test', '-p', 'zeropoint', '--test', 'malformed'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'], timeout: 600_000 });
  }
  const entries = JSON.parse(readFileSync(manifest, 'utf8'));
  assert(Array.isArray(entries) && entries.length > 0, `${manifest} lists no files`);
  return entries;
}

/** Clicks a download button and returns the file's name and bytes. */
async function downloadOf(page, id) {
  const [download] = await Promise.all([
    page.waitForEvent('download', { timeout: STEP_TIMEOUT_MS }),
    page.locator(testId(id)).click({ timeout: STEP_TIMEOUT_MS }),
  ]);
  const path = await withTimeout(download.path(), STEP_TIMEOUT_MS, 'download');
  return { name: download.suggestedFilename(), bytes: readFileSync(path) };
}

async function waitForPanel(page, id, states) {
  await page.waitForFunction(
    ({ panel, want }) => want.includes(document.querySelector(`[data-testid="${panel}"]`)?.getAttribute('data-state') ?? ''),
    { panel: id, want: states },
    { timeout: 60_000 },
  );
}

/** Quantize with the page's current settings; fails with the page's error banner if it fails. */
async function quantizeOnPage(page) {
  await showTab(page, 'quantize');
  await page.locator(testId('quant-start')).click({ timeout: STEP_TIMEOUT_MS });
  await waitForPanel(page, 'quantize', ['done', 'error']);
  const state = await page.locator(testId('quantize')).getAttribute('data-state');
  assert(state === 'done', `quantize ended in ${String(state)}: ${await text(page, 'error-banner')}`);
}

/** A 1280×800 viewport shot for the README, with element `id` scrolled to the top. */
async function docsShot(page, name, id) {
  if (!DOCS_SHOTS) return;
  mkdirSync(DOCS_SHOTS, { recursive: true });
  await page.evaluate((target) => {
    const el = document.querySelector(`[data-testid="${target}"]`);
    window.scrollTo(0, el ? el.getBoundingClientRect().top + window.scrollY - 8 : 0);
  }, id);
  await page.screenshot({ path: join(DOCS_SHOTS, `${name}.png`), timeout: STEP_TIMEOUT_MS });
  await page.evaluate(() => window.scrollTo(0, 0));
}

/** A minimal static file server for dist/ (no Vite): what any plain host would do. */
function staticServer(dir) {
  const types = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.wasm': 'application/wasm', '.json': 'application/json' };
  const server = createHttpServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    const file = resolve(dir, `.${path.endsWith('/') ? `${path}index.html` : path}`);
    if (!file.startsWith(resolve(dir)) || !existsSync(file)) {
      res.writeHead(404).end();
      return;
    }
    const ext = file.slice(file.lastIndexOf('.'));
    res.writeHead(200, { 'content-type': types[ext] ?? 'application/octet-stream' }).end(readFileSync(file));
  });
  return new Promise((r) => server.listen(0, '127.0.0.1', () => r(server)));
}

/**
 * The quantize / compare / download / offline / crash-recovery steps, in their own browser
 * context where every request that would leave 127.0.0.1 is aborted (page.route): a golden float
 * model is dropped, calibrated with its .npy samples, quantized, compared, downloaded; each result
 * is checked against the CLI run on the same files.
 */
async function quantizeChecks(api, base, foreignRequests) {
  const work = mkdtempSync(join(tmpdir(), 'zeropoint-e2e-quant-'));
  const floatPath = join(GOLDEN, 'model_float.tflite');
  const calibPath = join(GOLDEN, 'calib.npy');
  const floatBytes = new Uint8Array(readFileSync(floatPath));
  const floatGraph = api.inspectModel(floatBytes).subgraphs[0];
  const blocked = [];
  const context = await browser.newContext({ acceptDownloads: true, viewport: { width: 1280, height: 800 } });
  context.on('request', (request) => {
    if (!isLocal(request.url())) foreignRequests.push(request.url());
  });
  await context.route(
    (url) => !isLocal(url.href),
    (route) => {
      blocked.push(route.request().url());
      return route.abort();
    },
  );
  const page = await context.newPage();
  const record = watch(page);
  // The CLI on the same files: the expected values.
  const want = {};
  const keepOp = floatGraph.operators.find((o) => o.op === 'DEPTHWISE_CONV_2D');
  const int16Op = floatGraph.operators.find((o) => o.op === 'CONV_2D' && !floatGraph.outputs.includes(o.outputs[0]));
  try {
    await check('quantize: the CLI quantizes the golden model (the expected files)', async () => {
      assert(keepOp, 'the golden model has no DEPTHWISE_CONV_2D');
      const out = (name) => join(work, name);
      cli(['calibrate', floatPath, '--data', calibPath, '-o', out('cli.stats.json')]);
      cli(['quantize', floatPath, '--data', calibPath, '--mode', 'int8', '--io', 'int8', '-o', out('cli.tflite'), '--report', out('cli.report.json')]);
      cli(['quantize', floatPath, '--stats', out('cli.stats.json'), '--mode', 'int8', '--io', 'int8', '-o', out('cli-stats.tflite')]);
      cli(['quantize', floatPath, '--data', calibPath, '--mode', 'int8', '--io', 'int8', '--float-ops', String(keepOp.index), '-o', out('cli-float.tflite')]);
      want.stats = readFileSync(out('cli.stats.json'));
      want.model = readFileSync(out('cli.tflite'));
      want.reportText = readFileSync(out('cli.report.json'));
      want.report = JSON.parse(want.reportText.toString('utf8'));
      want.floatOp = readFileSync(out('cli-float.tflite'));
      assert(int16Op, 'the golden model has no inner CONV_2D');
      cli(['quantize', floatPath, '--data', calibPath, '--mode', 'int8', '--io', 'int8', '--int16-ops', String(int16Op.index), '-o', out('cli-int16.tflite')]);
      want.int16Op = readFileSync(out('cli-int16.tflite'));
      assert(Buffer.compare(want.model, readFileSync(out('cli-stats.tflite'))) === 0, 'the CLI gives different models from --data and from its own --stats');
    });

    await check('quantize: drop the golden float model and calibrate with its .npy samples', async () => {
      await page.goto(base, { timeout: STEP_TIMEOUT_MS });
      await waitForModel(page, 'example.tflite');
      await dropFile(page, 'mobilenet_block.tflite', floatBytes);
      await waitForModel(page, 'mobilenet_block.tflite');
      await showTab(page, 'calibrate');
      await page.locator(testId('source-npy')).check({ timeout: STEP_TIMEOUT_MS });
      await page.locator(testId('npy-input-0')).setInputFiles(calibPath);
      await page.locator(testId('calibrate-method')).selectOption('minmax');
      await page.locator(testId('calibrate-start')).click({ timeout: STEP_TIMEOUT_MS });
      await waitForCalibration(page, 'done');
      assert((await text(page, 'calibration-summary')).includes('32 samples'), `summary: ${await text(page, 'calibration-summary')}`);
      await screenshot(page, '20-golden-calibrated');
      await docsShot(page, 'calibrate', 'tabs');
    });

    await check('quantize: int8 on the page; the shown scale and zero point of a named tensor equal the CLI report', async () => {
      await showTab(page, 'quantize');
      await page.locator(testId('quant-mode')).selectOption('int8');
      await page.locator(testId('quant-io')).selectOption('int8');
      await page.locator(testId('quant-weights')).selectOption('per-channel');
      assert((await page.locator(testId('quant-calibration')).getAttribute('data-calibrated')) === 'true', 'the Quantize tab does not see the calibration');
      await quantizeOnPage(page);
      const size = page.locator(testId('quant-size'));
      assert(Number(await size.getAttribute('data-quantized')) === want.model.length, `shown size ${String(await size.getAttribute('data-quantized'))}, the CLI wrote ${String(want.model.length)} bytes`);
      assert(Number(await size.getAttribute('data-original')) === floatBytes.length, 'original size');
      const command = await text(page, 'quant-cli');
      assert(command.includes('zeropoint quantize mobilenet_block.tflite --stats mobilenet_block.stats.json --mode int8 --io int8'), `CLI line: ${command}`);
      await screenshot(page, '21-quantized');
      // A named activation tensor and a per-channel weight tensor, as the CLI's report has them.
      const act = want.report.tensors.find((t) => t.role === 'activation' && t.source === 'calibrated' && t.dtype === 'INT8');
      const weight = want.report.tensors.find((t) => t.role === 'weight' && t.scales.length > 1);
      assert(act && weight, 'the CLI report lacks a calibrated activation or a per-channel weight');
      await page.locator(testId('quant-show-model')).click({ timeout: STEP_TIMEOUT_MS });
      await waitForModel(page, 'mobilenet_block_int8.tflite');
      assert(await page.evaluate(() => document.body.dataset.shown === 'quantized'), 'the Model tab does not show the quantized model');
      await page.locator(`${testId('tensor-table')} tbody tr[data-tensor="${String(act.index)}"]`).click({ timeout: STEP_TIMEOUT_MS });
      await page.waitForFunction((t) => document.querySelector('[data-testid="details-title"]')?.textContent === t, `Tensor #${String(act.index)}`, { timeout: STEP_TIMEOUT_MS });
      assert((await page.locator('[data-testid="details"] code.name').textContent()) === act.name, `tensor #${String(act.index)} is not '${act.name}'`);
      const scale = Number(await page.locator(testId('details-scale')).getAttribute('data-value'));
      const zp = Number(await page.locator(testId('details-zero-point')).getAttribute('data-value'));
      assert(Math.fround(scale) === Math.fround(act.scales[0]), `'${act.name}': page scale ${String(scale)}, CLI report ${String(act.scales[0])}`);
      assert(zp === act.zero_points[0], `'${act.name}': page zero point ${String(zp)}, CLI report ${String(act.zero_points[0])}`);
      await page.locator(`${testId('tensor-table')} tbody tr[data-tensor="${String(weight.index)}"]`).click({ timeout: STEP_TIMEOUT_MS });
      await page.locator(testId('details-scale-chart')).waitFor({ timeout: STEP_TIMEOUT_MS });
      const head = await text(page, 'details-quant');
      assert(head.includes(`per-channel \u00d7${String(weight.scales.length)}`), `weights of '${weight.name}': ${head}`);
      await screenshot(page, '22-quantized-model-view');
      await docsShot(page, 'model-quantized', 'tabs');
    });

    await check('quantize: the downloaded .tflite, report and statistics equal the CLI\'s files byte for byte', async () => {
      await showTab(page, 'quantize');
      const model = await downloadOf(page, 'quant-download-model');
      assert(model.name === 'mobilenet_block_int8.tflite', `file name ${model.name}`);
      const summary = api.inspectModel(new Uint8Array(model.bytes));
      assert(summary.subgraphs[0].tensors.some((t) => t.dtype === 'INT8'), 'the downloaded model has no int8 tensor');
      assert(Buffer.compare(model.bytes, want.model) === 0, `the page's model (${String(model.bytes.length)} bytes) differs from zeropoint quantize's (${String(want.model.length)} bytes)`);
      const report = await downloadOf(page, 'quant-download-report');
      assert(report.name === 'mobilenet_block_int8.report.json', `file name ${report.name}`);
      assert(Buffer.compare(report.bytes, want.reportText) === 0, 'the report differs from zeropoint quantize --report');
      // The report's errors (first calibration samples), summed up on the page from the same numbers.
      const ops = want.report.op_errors ?? [];
      assert(want.report.error_samples === 16 && ops.length > 0, `CLI report errors: ${String(want.report.error_samples)} samples, ${String(ops.length)} ops`);
      const worst = ops.reduce((w, o) => ((o.sqnr_db ?? Infinity) < (w.sqnr_db ?? Infinity) ? o : w));
      const shown = await text(page, 'quant-errors');
      assert(shown.includes(`worst operator output ${worst.sqnr_db.toFixed(1)} dB (${worst.op} #${String(worst.index)})`), `page: ${shown}`);
      const stats = await downloadOf(page, 'quant-download-stats');
      assert(stats.name === 'mobilenet_block.stats.json', `file name ${stats.name}`);
      assert(Buffer.compare(stats.bytes, want.stats) === 0, 'the statistics differ from zeropoint calibrate -o');
    });

    await check('compare: a calibration sample through both models gives the CLI\'s per-layer SQNR, top-k, latency and a heat map', async () => {
      const sampleNpy = join(work, 'sample0.npy');
      const n = 48 * 48 * 3;
      const all = readFileSync(calibPath);
      const headerLen = all.readUInt16LE(8);
      const first = new Float32Array(all.buffer.slice(all.byteOffset + 10 + headerLen, all.byteOffset + 10 + headerLen + n * 4));
      writeFileSync(sampleNpy, npyBytes([1, 1, 48, 48, 3], first));
      cli(['compare', floatPath, join(work, 'cli.tflite'), '--input', sampleNpy, '--json', join(work, 'compare.json')]);
      const rows = JSON.parse(readFileSync(join(work, 'compare.json'), 'utf8'));
      await showTab(page, 'compare');
      await page.locator(testId('compare-sample-calibration')).check({ timeout: STEP_TIMEOUT_MS });
      await page.locator(testId('compare-index')).fill('0');
      await page.locator(testId('compare-start')).click({ timeout: STEP_TIMEOUT_MS });
      await waitForPanel(page, 'compare', ['done', 'error']);
      assert((await page.locator(testId('compare')).getAttribute('data-state')) === 'done', `compare failed: ${await text(page, 'error-banner')}`);
      const shown = await page.locator(`${testId('compare-table')} tbody tr`).count();
      assert(shown === rows.length && shown > 5, `the page lists ${String(shown)} tensors, zeropoint compare ${String(rows.length)}`);
      const pageSqnr = await page.locator(testId('compare-sqnr')).evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-value'))));
      const pageNames = await page.locator(`${testId('compare-table')} tbody tr code.name`).allTextContents();
      // SQNR = 10·log10(Σf²/Σ(f−q̂)²) in f64 over the same values: equal up to the last bits of
      // the float reference (wasm's libm `exp` in SOFTMAX may differ from glibc's by an ulp).
      const SQNR_DB_TOL = 1e-6;
      for (const r of rows) {
        const i = pageNames.indexOf(r.name);
        assert(i >= 0, `the page lacks '${r.name}'`);
        const cliDb = r.sqnr_db === null ? Infinity : r.sqnr_db;
        assert(cliDb === pageSqnr[i] || Math.abs(cliDb - pageSqnr[i]) <= SQNR_DB_TOL, `'${r.name}': page ${String(pageSqnr[i])} dB, CLI ${String(cliDb)} dB`);
      }
      for (let i = 1; i < pageSqnr.length; i++) assert(pageSqnr[i - 1] <= pageSqnr[i], 'the table is not worst first');
      const painted = await page.locator(`${testId('compare-graph-op')}[data-heat]`).count();
      const outputsCompared = floatGraph.operators.filter((o) => rows.some((r) => r.float_tensor === o.outputs[0])).length;
      assert(painted === outputsCompared && painted > 0, `${String(painted)} ops painted, ${String(outputsCompared)} have a compared output`);
      assert((await page.locator(`${testId('compare-topk-float')} li`).count()) === 5, 'float top-5');
      assert((await page.locator(`${testId('compare-topk-quant')} li`).count()) === 5, 'quantized top-5');
      const latency = page.locator(testId('compare-latency'));
      const [fMs, qMs] = [Number(await latency.getAttribute('data-float-ms')), Number(await latency.getAttribute('data-quant-ms'))];
      assert(fMs > 0 && qMs > 0, `latency float ${String(fMs)} ms, quantized ${String(qMs)} ms`);
      await screenshot(page, '23-compare');
      await docsShot(page, 'compare', 'compare-latency');
    });

    await check('quantize: one op kept float (clicked in the graph) stays float, and the file equals the CLI\'s --float-ops', async () => {
      await showTab(page, 'quantize');
      await page.locator(`${testId('quant-graph-op')}[data-op="${String(keepOp.index)}"]`).click({ timeout: STEP_TIMEOUT_MS });
      await page.locator(`${testId('quant-float-op')}[data-op="${String(keepOp.index)}"]`).waitFor({ timeout: STEP_TIMEOUT_MS });
      assert(await page.locator(`${testId('quant-graph-op')}[data-op="${String(keepOp.index)}"].keep-float`).isVisible(), 'the op box is not marked');
      await quantizeOnPage(page);
      const warnings = await text(page, 'quant-warnings');
      assert(warnings.includes(`operator ${String(keepOp.index)}`), `warnings: ${warnings}`);
      await screenshot(page, '24-keep-float');
      await docsShot(page, 'quantize', 'quant-graph');
      const model = await downloadOf(page, 'quant-download-model');
      const out = api.inspectModel(new Uint8Array(model.bytes)).subgraphs[0];
      const name = floatGraph.tensors.find((t) => t.index === keepOp.outputs[0]).name;
      const t = out.tensors.find((x) => x.name === name);
      assert(t && t.dtype === 'FLOAT32', `'${name}' is ${String(t?.dtype)} in the result`);
      assert(Buffer.compare(model.bytes, want.floatOp) === 0, 'the model differs from zeropoint quantize --float-ops');
      // The list undoes: removing the op quantizes it again.
      await page.locator(`${testId('quant-float-remove')}[data-op="${String(keepOp.index)}"]`).click({ timeout: STEP_TIMEOUT_MS });
      assert((await page.locator(testId('quant-float-op')).count()) === 0, 'the op is still listed');
      assert((await page.locator(`${testId('quant-graph-op')}.keep-float`).count()) === 0, 'an op box is still marked');
    });

    await check('quantize: one op made int16 (clicked in the graph) has int16 activations, and the file equals the CLI\'s --int16-ops', async () => {
      await showTab(page, 'quantize');
      await page.locator(testId('quant-click')).selectOption('int16');
      const box = `${testId('quant-graph-op')}[data-op="${String(int16Op.index)}"]`;
      await page.locator(box).click({ timeout: STEP_TIMEOUT_MS });
      await page.locator(`${testId('quant-int16-op')}[data-op="${String(int16Op.index)}"]`).waitFor({ timeout: STEP_TIMEOUT_MS });
      assert(await page.locator(`${box}.keep-int16`).isVisible(), 'the op box is not marked int16');
      await quantizeOnPage(page);
      await screenshot(page, '25-int16-op');
      const model = await downloadOf(page, 'quant-download-model');
      const out = api.inspectModel(new Uint8Array(model.bytes)).subgraphs[0];
      const name = floatGraph.tensors.find((t) => t.index === int16Op.outputs[0]).name;
      const t = out.tensors.find((x) => x.name === name);
      assert(t && t.dtype === 'INT16', `'${name}' is ${String(t?.dtype)} in the result`);
      assert(out.tensors.some((x) => x.dtype === 'INT8'), 'no int8 tensor left');
      assert(Buffer.compare(model.bytes, want.int16Op) === 0, 'the model differs from zeropoint quantize --int16-ops');
      assert((await text(page, 'quant-cli')).includes(`--int16-ops ${String(int16Op.index)}`), 'the CLI line lacks --int16-ops');
      await page.locator(`${testId('quant-int16-remove')}[data-op="${String(int16Op.index)}"]`).click({ timeout: STEP_TIMEOUT_MS });
      assert((await page.locator(testId('quant-int16-op')).count()) === 0, 'the op is still listed');
      assert((await page.locator(`${testId('quant-graph-op')}.keep-int16`).count()) === 0, 'an op box is still marked');
      await page.locator(testId('quant-click')).selectOption('float');
    });

    await check('quantize and compare are keyboard reachable and fit a tablet width (768 px)', async () => {
      await showTab(page, 'quantize');
      // Keyboard: focus an op box, Enter keeps it float, Enter again quantizes it again.
      const box = page.locator(`${testId('quant-graph-op')}[data-op="${String(keepOp.index)}"]`);
      await box.focus();
      await page.keyboard.press('Enter');
      await page.locator(`${testId('quant-float-op')}[data-op="${String(keepOp.index)}"]`).waitFor({ timeout: STEP_TIMEOUT_MS });
      await box.focus();
      await page.keyboard.press('Enter');
      assert((await page.locator(testId('quant-float-op')).count()) === 0, 'Enter did not toggle the op back');
      for (const id of ['quant-mode', 'quant-io', 'quant-weights', 'quant-start', 'quant-download-model']) {
        assert(await page.locator(testId(id)).evaluate((el) => el.tabIndex >= 0 && !el.disabled), `${id} is not keyboard reachable`);
      }
      await page.setViewportSize({ width: 768, height: 1024 });
      try {
        for (const tab of ['quantize', 'compare']) {
          await showTab(page, tab);
          const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
          assert(overflow <= 0, `the ${tab} tab is ${String(overflow)} px wider than a 768 px window`);
          await screenshot(page, `27-tablet-${tab}`);
        }
      } finally {
        await page.setViewportSize({ width: 1280, height: 800 });
      }
    });

    await check('no console errors on the quantize page; nothing left 127.0.0.1 (all such requests are blocked)', async () => {
      const errors = [...record.consoleErrors, ...record.pageErrors];
      assert(errors.length === 0, errors.join(' | '));
      assert(blocked.length === 0, `blocked: ${blocked.join(' | ')}`);
    });

    await check('offline: after the first visit the page, its engine and the quantizer work with no network', async () => {
      await page.waitForFunction(() => navigator.serviceWorker?.controller !== null, null, { timeout: STEP_TIMEOUT_MS });
      await context.setOffline(true);
      try {
        await page.reload({ timeout: STEP_TIMEOUT_MS });
        await waitForModel(page, 'example.tflite');
        await page.waitForFunction(() => document.querySelector('[data-testid="engine-badge"]')?.getAttribute('data-engine') === 'simd', null, { timeout: STEP_TIMEOUT_MS });
        await fillRandom(page, { count: 4, lo: 0, hi: 1, seed: 5 });
        await page.locator(testId('calibrate-start')).click({ timeout: STEP_TIMEOUT_MS });
        await waitForCalibration(page, 'done');
        await quantizeOnPage(page);
        await screenshot(page, '25-offline');
      } finally {
        await context.setOffline(false);
      }
    });

    await check('the build works from a plain static file server (no Vite)', async () => {
      const server = await staticServer(join(ROOT, 'dist'));
      const other = await context.newPage();
      try {
        await other.goto(`http://127.0.0.1:${String(server.address().port)}/`, { timeout: STEP_TIMEOUT_MS });
        await waitForModel(other, 'example.tflite');
        await other.waitForFunction(() => document.querySelector('[data-testid="engine-badge"]')?.getAttribute('data-engine') === 'simd', null, { timeout: STEP_TIMEOUT_MS });
      } finally {
        await other.close();
        server.close();
      }
    });

    await check('a panic in the engine restarts the worker, says what failed, keeps the model and statistics', async () => {
      await dropFile(page, 'mobilenet_block.tflite', floatBytes);
      await waitForModel(page, 'mobilenet_block.tflite');
      await showTab(page, 'calibrate');
      await page.locator(testId('source-npy')).check({ timeout: STEP_TIMEOUT_MS });
      await page.locator(testId('npy-input-0')).setInputFiles(calibPath);
      await page.locator(testId('calibrate-start')).click({ timeout: STEP_TIMEOUT_MS });
      await waitForCalibration(page, 'done');
      const before = await page.evaluate(() => window.zeropoint?.workerRestarts);
      const message = await page.evaluate(() => window.zeropoint?.panicWorker('e2e'));
      assert(message.includes('the engine panicked: debugPanic (test hook): e2e'), `rejected with: ${message}`);
      await page.waitForFunction(() => !document.querySelector('[data-testid="notice-banner"]')?.hidden, null, { timeout: STEP_TIMEOUT_MS });
      const notice = await text(page, 'notice-banner');
      assert(notice.includes('debugPanic (test hook): e2e') && /restarted/.test(notice), `notice: ${notice}`);
      assert((await page.evaluate(() => window.zeropoint?.workerRestarts)) === before + 1, 'the worker was not restarted');
      assert((await text(page, 'model-name')) === 'mobilenet_block.tflite', 'the model is gone');
      await screenshot(page, '26-panic-restarted');
      // The restarted worker gets the model and the statistics again with the next request.
      await quantizeOnPage(page);
      const model = await downloadOf(page, 'quant-download-model');
      assert(Buffer.compare(model.bytes, want.model) === 0, 'after the restart the model differs from the CLI\'s');
    });
  } finally {
    await context.close();
    rmSync(work, { recursive: true, force: true });
  }
}

async function main() {
  mkdirSync(ARTIFACTS, { recursive: true });
  mkdirSync(TARGET_SHOTS, { recursive: true });
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

  await check('the graph shows one box per operator, the inputs and outputs, and shape/dtype edge labels', async () => {
    await page.waitForFunction((n) => document.querySelectorAll('[data-testid="graph-op"]').length === n, mainGraph.operators.length, { timeout: STEP_TIMEOUT_MS });
    const boxes = await page.locator(testId('graph-op')).count();
    assert(boxes === mainGraph.operators.length, `graph has ${String(boxes)} op boxes, the model ${String(mainGraph.operators.length)} operators`);
    const labels = await page.locator(`${testId('graph-op')} .graph-node-label`).allTextContents();
    assert(JSON.stringify(labels) === JSON.stringify(mainGraph.operators.map((o) => o.op)), `op boxes ${labels.join(',')}`);
    assert((await page.locator(testId('graph-input')).count()) === mainGraph.inputs.length, 'input nodes');
    assert((await page.locator(testId('graph-output')).count()) === mainGraph.outputs.length, 'output nodes');
    const edgeText = (await page.locator(`${testId('graph')} .graph-edge-label`).allTextContents()).join(' | ');
    assert(edgeText.includes(`${shapeText(inputTensor)} float32`), `edge labels lack the input's shape and dtype: ${edgeText}`);
    // Zoom and pan change the view transform.
    const scaleOf = () => page.locator(`${testId('graph')} .graph-viewport`).evaluate((g) => Number(/scale\(([\d.]+)\)/.exec(g.getAttribute('transform') ?? '')?.[1] ?? NaN));
    const before = await scaleOf();
    await page.locator(testId('graph-zoom-in')).click();
    const after = await scaleOf();
    assert(after > before, `zoom in: scale ${String(before)} → ${String(after)}`);
    const box = await page.locator(testId('graph-svg')).boundingBox();
    const translateOf = () => page.locator(`${testId('graph')} .graph-viewport`).evaluate((g) => g.getAttribute('transform') ?? '');
    const t0 = await translateOf();
    await page.mouse.move(box.x + 20, box.y + 20);
    await page.mouse.down();
    await page.mouse.move(box.x + 80, box.y + 60, { steps: 4 });
    await page.mouse.up();
    assert((await translateOf()) !== t0, 'dragging did not pan');
    await page.locator(testId('graph-fit')).click();
  });

  await check('clicking an op box shows the op in the side panel; clicking a tensor row shows the tensor', async () => {
    const conv = mainGraph.operators.find((o) => o.op === 'CONV_2D');
    assert(conv, 'example has no CONV_2D');
    await page.locator(`${testId('graph-op')}[data-op="${String(conv.index)}"]`).click({ timeout: STEP_TIMEOUT_MS });
    await page.waitForFunction((t) => document.querySelector('[data-testid="details-title"]')?.textContent === t, `CONV_2D #${String(conv.index)}`, { timeout: STEP_TIMEOUT_MS });
    const inputs = await text(page, 'details-inputs');
    const weights = mainGraph.tensors.find((t) => t.index === conv.inputs[1]);
    assert(inputs.includes('weights') && inputs.includes(weights.name), `inputs list lacks the weights ${weights.name}: ${inputs}`);
    assert(await page.locator(`${testId('graph-op')}[data-op="${String(conv.index)}"].selected`).isVisible(), 'the op box is not highlighted');
    await screenshot(page, '12-graph-op', { target: true });
    await page.locator(`${testId('tensor-table')} tbody tr[data-tensor="${String(inputTensor.index)}"]`).click({ timeout: STEP_TIMEOUT_MS });
    await page.waitForFunction((t) => document.querySelector('[data-testid="details-title"]')?.textContent === t, `Tensor #${String(inputTensor.index)}`, { timeout: STEP_TIMEOUT_MS });
    const quant = await text(page, 'details-quant');
    assert(quant.includes('float32'), `a float tensor's quantization: ${quant}`);
  });

  await check('an int8 model shows scale/zero point, per-channel scales as a chart, and the multipliers M0/shift', async () => {
    const bytes = new Uint8Array(readFileSync(INT8_MODEL));
    const want = api.inspectModel(bytes).subgraphs[0];
    await page.locator(testId('file-input')).setInputFiles({ name: 'model_int8.tflite', mimeType: 'application/octet-stream', buffer: Buffer.from(bytes) });
    await waitForModel(page, 'model_int8.tflite');
    assert((await page.locator(testId('graph-op')).count()) === want.operators.length, 'op boxes of the int8 model');
    const tableText = await text(page, 'tensor-table');
    assert(/per-channel ×\d+/.test(tableText), 'tensor table lacks "per-channel ×N"');
    const conv = want.operators.find((o) => o.op === 'CONV_2D');
    const byIndex = (i) => want.tensors.find((t) => t.index === i);
    const [x, w, y] = [byIndex(conv.inputs[0]), byIndex(conv.inputs[1]), byIndex(conv.outputs[0])];
    await page.locator(`${testId('graph-op')}[data-op="${String(conv.index)}"]`).click({ timeout: STEP_TIMEOUT_MS });
    const panel = testId('op-requant');
    await page.locator(`${panel} ${testId('requant-table')}`).waitFor({ timeout: STEP_TIMEOUT_MS });
    const m0 = await page.locator(`${panel} ${testId('requant-m0')}`).allTextContents();
    const shifts = await page.locator(`${panel} ${testId('requant-shift')}`).allTextContents();
    const expected = api.requantMultipliers(x.quantization.scale[0], Float32Array.from(w.quantization.scale), y.quantization.scale[0]);
    assert(m0.length === Math.min(12, expected.length) && m0.length > 0, `${String(m0.length)} multiplier rows`);
    m0.forEach((v, c) => {
      assert(Number(v) === expected[c].m0, `channel ${String(c)}: M0 ${v}, engine ${String(expected[c].m0)}`);
      assert(Number(shifts[c].replace('\u2212', '-')) === expected[c].shift, `channel ${String(c)}: shift ${shifts[c]}, engine ${String(expected[c].shift)}`);
      // Independent check: M0 · 2^(shift − 31) is S_x · S_w / S_y to within the Q31 rounding.
      const m = (x.quantization.scale[0] * w.quantization.scale[c]) / y.quantization.scale[0];
      assert(Math.abs(expected[c].m0 * 2 ** (expected[c].shift - 31) - m) <= m * 2 ** -30, `channel ${String(c)}: M0/shift do not give M`);
    });
    assert(((await page.locator(`${panel} ${testId('requant-formula')}`).textContent()) ?? '').includes('M = S_x · S_w / S_y'), 'formula missing');
    // The weights: per-channel scales as a bar chart.
    await page.locator(`${testId('details-inputs')} button[data-tensor="${String(w.index)}"]`).click({ timeout: STEP_TIMEOUT_MS });
    await page.locator(testId('details-scale-chart')).waitFor({ timeout: STEP_TIMEOUT_MS });
    const head = await text(page, 'details-quant');
    assert(head.includes(`per-channel ×${String(w.quantization.scale.length)}`), `weights details: ${head}`);
    await screenshot(page, '13-int8-weights', { target: true });
    // A per-tensor activation: scale and zero point as stored.
    await page.locator(`${testId('tensor-table')} tbody tr[data-tensor="${String(x.index)}"]`).click({ timeout: STEP_TIMEOUT_MS });
    await page.locator(testId('details-scale')).waitFor({ timeout: STEP_TIMEOUT_MS });
    const scale = Number(await page.locator(testId('details-scale')).getAttribute('data-value'));
    const zp = Number(await page.locator(testId('details-zero-point')).getAttribute('data-value'));
    assert(scale === x.quantization.scale[0] && zp === x.quantization.zero_point[0], `input scale ${String(scale)} zp ${String(zp)}`);
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
    assert((await page.locator(testId('graph-op')).count()) === mainGraph.operators.length, 'the previous model\'s graph is gone');
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

  // --- malformed files: the CLI's message for each, on the page; the loaded model stays ---
  const corpus = malformedCorpus();
  for (const stage of ['read', 'prepare']) {
    const entries = corpus.filter((e) => e.stage === stage);
    await check(`${String(entries.length)} malformed files (${stage} stage) each show the CLI's message, naming the file; the loaded model stays`, async () => {
      assert(entries.length >= (stage === 'read' ? 20 : 4), `only ${String(entries.length)} ${stage}-stage files in the corpus`);
      for (const entry of entries) {
        const bytes = readFileSync(join(CORPUS, entry.file));
        const message = withoutPath(entry.cli_error, entry.cli_path);
        await dropFile(page, entry.file, bytes);
        await page.waitForFunction(
          (n) => document.body.dataset.state === 'error' && document.querySelector('[data-testid="error-banner"]')?.textContent?.includes(n),
          entry.file,
          { timeout: STEP_TIMEOUT_MS },
        );
        const shown = await text(page, 'error-banner');
        assert(shown.includes(message), `${entry.file}: banner lacks the CLI's message "${message}": ${shown}`);
        if (stage === 'prepare') {
          assert(shown.includes(`${entry.file}: this model cannot run: ${message}`), `${entry.file}: not said at load time: ${shown}`);
          // The graph of a model that reads is shown for inspection.
          assert((await text(page, 'model-name')) === entry.file, `${entry.file}: not shown for inspection`);
          assert((await page.locator(testId('show-inspected')).textContent())?.includes(entry.file), 'the model switch lacks it');
        } else {
          const banner = (await page.locator(`${testId('error-banner')} .banner-text`).textContent()) ?? '';
          assert(banner.startsWith(`Could not load ${entry.file}: `), `${entry.file}: ${banner}`);
        }
      }
      await screenshot(page, `07-malformed-${stage}`);
      // Nothing the user loaded is lost: the last good model is one click away and is the one
      // the other tabs use (the calibration below runs on it).
      if (stage === 'prepare') await page.locator(testId('show-float')).click({ timeout: STEP_TIMEOUT_MS });
      await page.waitForFunction(() => document.querySelector('[data-testid="model-name"]')?.textContent === 'dropped.tflite', null, { timeout: STEP_TIMEOUT_MS });
      assert((await page.locator(testId('graph-op')).count()) === mainGraph.operators.length, 'the loaded model\'s graph is gone');
    });
  }

  // --- limits: a tiny tensor limit names the tensor, as the CLI does; then restored ---
  await check('Limits: a tiny tensor limit refuses the example naming its input, with the CLI\'s message; a model over the size limit is refused before reading; restore', async () => {
    const panel = page.locator(testId('limits'));
    await panel.locator('summary').click({ timeout: STEP_TIMEOUT_MS });
    const tensorField = page.locator(testId('limit-tensor-mb'));
    assert((await tensorField.inputValue()) === '2048', `default tensor limit shown: ${await tensorField.inputValue()}`);
    await tensorField.fill('0.001');
    await tensorField.dispatchEvent('change');
    const stored = await page.evaluate(() => localStorage.getItem('zeropoint.limits') ?? '');
    assert(JSON.parse(stored).maxTensorMb === 0.001, `not persisted: ${stored}`);
    const want = withoutPath(
      cliError(['--max-tensor-mb', '0.001', 'run', exampleFile, '--input', join(CORPUS, 'unused.npy'), '--out-dir', join(ARTIFACTS, 'unused')]),
      exampleFile,
    );
    assert(want.includes(`'${inputTensor.name}'`), `the CLI's message does not name the input: ${want}`);
    await dropFile(page, 'tiny-limit.tflite', example);
    await page.waitForFunction(() => document.querySelector('[data-testid="error-banner"]')?.textContent?.includes('tiny-limit.tflite'), null, { timeout: STEP_TIMEOUT_MS });
    let shown = await text(page, 'error-banner');
    assert(shown.includes(`tiny-limit.tflite: this model cannot run: ${want}`), `banner lacks the CLI's message "${want}": ${shown}`);
    await screenshot(page, '08-limit-tensor');
    // The model-size limit, checked before the file is read.
    const modelField = page.locator(testId('limit-model-mb'));
    await modelField.fill('0.01');
    await modelField.dispatchEvent('change');
    const sizeWant = cliError(['--max-model-mb', '0.01', 'inspect', exampleFile]).replace(/^error: /, '').replace(exampleFile, 'big.tflite');
    await dropFile(page, 'big.tflite', example);
    await page.waitForFunction(() => document.querySelector('[data-testid="error-banner"]')?.textContent?.includes('big.tflite'), null, { timeout: STEP_TIMEOUT_MS });
    shown = await text(page, 'error-banner');
    assert(shown.includes(sizeWant), `banner lacks the CLI's message "${sizeWant}": ${shown}`);
    // An unusable value is named and not applied.
    await tensorField.fill('-1');
    await tensorField.dispatchEvent('change');
    assert((await text(page, 'limits-error')).includes('largest tensor'), 'no message for a negative limit');
    // Restore: the defaults are back and the example loads again.
    await page.locator(testId('limits-reset')).click({ timeout: STEP_TIMEOUT_MS });
    assert((await tensorField.inputValue()) === '2048' && (await modelField.inputValue()) === '2048', 'defaults not restored');
    await dropFile(page, 'dropped.tflite', example);
    await waitForModel(page, 'dropped.tflite');
    await panel.locator('summary').click({ timeout: STEP_TIMEOUT_MS });
  });

  // --- calibration ---
  const random16 = { count: 16, lo: 0, hi: 1, seed: 42 };
  await check('calibrating with 16 seeded random samples shows progress 16/16 and the engine\'s ranges', async () => {
    await fillRandom(page, random16);
    await page.locator(testId('calibrate-method')).selectOption('minmax');
    await page.locator(testId('calibrate-start')).click({ timeout: STEP_TIMEOUT_MS });
    await waitForCalibration(page, 'done');
    const status = await text(page, 'calibrate-status');
    assert(status.includes('16 / 16 samples'), `status does not say 16 / 16: ${status}`);
    assert(/samples\/s/.test(status), `status lacks the rate: ${status}`);
    const [value, max] = await page.locator(testId('calibrate-progress')).evaluate((el) => [el.value, el.max]);
    assert(value === max && max > 0, `progress bar at ${String(value)} of ${String(max)}`);
    const want = nodeCalibration(api, example, random16, 'minmax');
    const rows = await page.locator(`${testId('stats-table')} tbody tr`).count();
    assert(rows === want.tensors.length && rows > 0, `stats table has ${String(rows)} rows, the engine records ${String(want.tensors.length)} tensors`);
    const table = await text(page, 'stats-table');
    for (const t of want.tensors) assert(table.includes(t.name), `stats table lacks tensor ${t.name}`);
    const summaryLine = await text(page, 'calibration-summary');
    assert(summaryLine.includes('16 samples') && summaryLine.includes('minmax'), `result header: ${summaryLine}`);
    await screenshot(page, '07-calibrated');
  });

  await check('the stats JSON download equals the engine\'s statistics in Node', async () => {
    const [download] = await Promise.all([
      page.waitForEvent('download', { timeout: STEP_TIMEOUT_MS }),
      page.locator(testId('stats-download')).click({ timeout: STEP_TIMEOUT_MS }),
    ]);
    assert(download.suggestedFilename() === 'dropped.calibration.json', `file name ${download.suggestedFilename()}`);
    const json = JSON.parse(readFileSync(await withTimeout(download.path(), STEP_TIMEOUT_MS, 'download'), 'utf8'));
    const want = nodeCalibration(api, example, random16, 'minmax');
    assert(json.samples === 16 && json.method === 'minmax' && json.model === 'dropped.tflite', `header: ${JSON.stringify({ ...json, tensors: undefined })}`);
    assert(json.tensors.length === want.tensors.length, `${String(json.tensors.length)} tensors, want ${String(want.tensors.length)}`);
    json.tensors.forEach((t, i) => {
      const w = want.tensors[i];
      for (const key of ['index', 'name', 'min', 'max', 'chosen_min', 'chosen_max']) {
        assert(t[key] === w[key], `tensor ${String(i)} ${key}: page ${String(t[key])}, Node ${String(w[key])}`);
      }
      assert(JSON.stringify(t.histogram.counts) === JSON.stringify(w.histogram.counts), `tensor ${String(i)} histogram differs`);
    });
  });

  await check('changing the method recomputes the chosen ranges without a new run', async () => {
    await page.locator(testId('calibrate-method')).selectOption('percentile');
    await page.locator(testId('calibrate-percentile')).fill('99');
    await page.locator(testId('calibrate-percentile')).dispatchEvent('change');
    await page.waitForFunction(() => document.querySelector('[data-testid="calibration-summary"]')?.textContent?.includes('percentile:99 '), null, { timeout: STEP_TIMEOUT_MS });
    const want = nodeCalibration(api, example, random16, 'percentile:99');
    assert(want.tensors.some((t) => t.chosen_max !== t.max), 'percentile:99 clipped nothing in Node');
    const [download] = await Promise.all([
      page.waitForEvent('download', { timeout: STEP_TIMEOUT_MS }),
      page.locator(testId('stats-download')).click({ timeout: STEP_TIMEOUT_MS }),
    ]);
    const json = JSON.parse(readFileSync(await withTimeout(download.path(), STEP_TIMEOUT_MS, 'download'), 'utf8'));
    assert(json.method === 'percentile:99', `method in JSON: ${json.method}`);
    json.tensors.forEach((t, i) => {
      const w = want.tensors[i];
      assert(t.chosen_min === w.chosen_min && t.chosen_max === w.chosen_max, `tensor ${String(i)} chosen range: page [${String(t.chosen_min)}, ${String(t.chosen_max)}], Node [${String(w.chosen_min)}, ${String(w.chosen_max)}]`);
    });
    assert((await page.locator(`${testId('stats-table')} .clipped`).count()) > 0, 'no clipped range is highlighted');
    await page.locator(testId('calibrate-method')).selectOption('minmax');
    await page.waitForFunction(() => document.querySelector('[data-testid="calibration-summary"]')?.textContent?.includes('minmax'), null, { timeout: STEP_TIMEOUT_MS });
  });

  await check('after calibration the Model tab links a tensor and a CONV_2D to the Ranges view', async () => {
    const conv = mainGraph.operators.find((o) => o.op === 'CONV_2D');
    await showTab(page, 'model');
    await page.locator(`${testId('graph-op')}[data-op="${String(conv.index)}"]`).click({ timeout: STEP_TIMEOUT_MS });
    await page.locator(testId('details-open-requant')).click({ timeout: STEP_TIMEOUT_MS });
    await page.waitForFunction(() => document.body.dataset.tab === 'ranges', null, { timeout: STEP_TIMEOUT_MS });
    assert((await page.locator(testId('ranges-op')).inputValue()) === String(conv.index), 'the Ranges view does not show the clicked op');
    await showTab(page, 'model');
    const tensor = conv.outputs[0];
    await page.locator(`${testId('tensor-table')} tbody tr[data-tensor="${String(tensor)}"]`).click({ timeout: STEP_TIMEOUT_MS });
    await page.locator(testId('details-open-ranges')).click({ timeout: STEP_TIMEOUT_MS });
    await page.waitForFunction(() => document.body.dataset.tab === 'ranges', null, { timeout: STEP_TIMEOUT_MS });
    assert((await page.locator(testId('ranges-tensor')).inputValue()) === String(tensor), 'the Ranges view does not show the clicked tensor');
  });

  await check('the Ranges view shows the scale and zero point of the calibrated range, with 0.0 exact', async () => {
    await showTab(page, 'ranges');
    await page.waitForFunction(() => document.querySelector('[data-testid="ranges"]')?.getAttribute('data-state') === 'ready', null, { timeout: STEP_TIMEOUT_MS });
    const want = nodeCalibration(api, example, random16, 'minmax');
    // The output of the first CONV_2D (a ReLU6: observed min 0).
    const conv = mainGraph.operators.find((o) => o.op === 'CONV_2D');
    await page.locator(testId('ranges-tensor')).selectOption(String(conv.outputs[0]));
    await page.waitForFunction((i) => document.querySelector('[data-testid="ranges"]')?.getAttribute('data-state') === 'ready' && document.querySelector('[data-testid="ranges-chosen"]') && Number(document.querySelector('[data-testid="ranges-tensor"]')?.value) === i, conv.outputs[0], { timeout: STEP_TIMEOUT_MS });
    const shown = await rangesNumbers(page);
    checkRanges(api, shown, want);
    // The CLI on the same samples: its range (JSON numbers are float32, shortest form) gives the
    // same scale and zero point by the float32 re-derivation.
    const cli = cliCalibration(api, exampleFile, inputTensor, random16, 'minmax');
    const fromCli = cli.tensors.find((t) => t.index === shown.tensor);
    assert(fromCli, `zeropoint calibrate has no tensor ${String(shown.tensor)}`);
    const [cliMin, cliMax] = [Math.fround(fromCli.chosen_min), Math.fround(fromCli.chosen_max)];
    assert(cliMin === shown.chosenMin && cliMax === shown.chosenMax, `zeropoint calibrate chose [${String(cliMin)}, ${String(cliMax)}], the page [${String(shown.chosenMin)}, ${String(shown.chosenMax)}]`);
    const cliParams = expectedInt8(cliMin, cliMax);
    assert(cliParams.scale === shown.scale && cliParams.zeroPoint === shown.zeroPoint, `from the CLI's range: scale ${String(cliParams.scale)} zp ${String(cliParams.zeroPoint)}`);
    assert(shown.summary.includes('minmax'), `summary: ${shown.summary}`);
    assert(shown.bars > 0 && shown.gridTicks > 2 && shown.zeroMarker, `plot: ${String(shown.bars)} bars, ${String(shown.gridTicks)} grid ticks`);
    assert(shown.stride >= 2 && Number.isInteger(Math.log2(shown.stride)), `grid stride ${String(shown.stride)} is not a power of two ≥ 2`);
    assert(shown.clipped === 0, `min/max clips ${String(shown.clipped)}`);
    const steps = await text(page, 'ranges-steps');
    for (const part of ['Include 0', 'Scale', 'Zero point', 'Represented', '0.0 is exact']) assert(steps.includes(part), `steps lack "${part}"`);
    // The requantization of the first CONV_2D from the calibrated ranges and the float weights.
    await page.locator(testId('ranges-op')).selectOption(String(conv.index));
    await page.locator(`${testId('ranges-op-result')} ${testId('requant-table')}`).waitFor({ timeout: STEP_TIMEOUT_MS });
    const sx = api.quantParams(want.tensors.find((t) => t.index === conv.inputs[0]).chosen_min, want.tensors.find((t) => t.index === conv.inputs[0]).chosen_max, 'int8').scale;
    const sy = api.quantParams(want.tensors.find((t) => t.index === conv.outputs[0]).chosen_min, want.tensors.find((t) => t.index === conv.outputs[0]).chosen_max, 'int8').scale;
    const sw = api.weightScales(example, conv.inputs[1], 0);
    const multipliers = api.requantMultipliers(sx, sw, sy);
    const m0 = await page.locator(`${testId('ranges-op-result')} ${testId('requant-m0')}`).allTextContents();
    assert(m0.length > 0 && m0.every((v, c) => Number(v) === multipliers[c].m0), `M0 ${m0.join(',')}, engine ${multipliers.map((m) => m.m0).join(',')}`);
    await screenshot(page, '14-ranges-minmax', { target: true });
  });

  await check('switching the method in the Ranges view updates the picture (percentile clips, MSE too)', async () => {
    await page.locator(testId('ranges-method')).selectOption('percentile');
    await page.locator(testId('ranges-percentile')).fill('99');
    await page.locator(testId('ranges-percentile')).dispatchEvent('change');
    await page.waitForFunction(() => document.querySelector('[data-testid="ranges-summary"]')?.textContent?.includes('percentile:99 ') && document.querySelector('[data-testid="ranges"]')?.getAttribute('data-state') === 'ready', null, { timeout: STEP_TIMEOUT_MS });
    let shown = await rangesNumbers(page);
    checkRanges(api, shown, nodeCalibration(api, example, random16, 'percentile:99'));
    assert(shown.chosenMax < shown.observedMax, `percentile:99 did not clip the max of tensor ${String(shown.tensor)}`);
    assert(shown.clipped > 0, 'no clipped share shown');
    assert((await page.locator(testId('calibrate-method')).inputValue()) === 'percentile', 'the Calibrate tab did not follow the method');
    await screenshot(page, '15-ranges-percentile', { target: true });
    await page.locator(testId('ranges-method')).selectOption('mse');
    await page.waitForFunction(() => document.querySelector('[data-testid="ranges-summary"]')?.textContent?.includes('mse') && document.querySelector('[data-testid="ranges"]')?.getAttribute('data-state') === 'ready', null, { timeout: STEP_TIMEOUT_MS });
    shown = await rangesNumbers(page);
    checkRanges(api, shown, nodeCalibration(api, example, random16, 'mse'));
    await page.locator(testId('ranges-method')).selectOption('minmax');
    await page.waitForFunction(() => document.querySelector('[data-testid="ranges-summary"]')?.textContent?.includes('minmax'), null, { timeout: STEP_TIMEOUT_MS });
    // int16 (16x8): symmetric, zero point 0, scale = max(|min|, |max|) / 32767 in float32.
    await page.locator(testId('ranges-dtype')).selectOption('int16');
    await page.waitForFunction(() => document.querySelector('[data-testid="ranges-summary"]')?.textContent?.includes('int16') && document.querySelector('[data-testid="ranges"]')?.getAttribute('data-state') === 'ready', null, { timeout: STEP_TIMEOUT_MS });
    shown = await rangesNumbers(page);
    const half = Math.max(Math.abs(Math.min(shown.chosenMin, 0)), Math.abs(Math.max(shown.chosenMax, 0)));
    assert(shown.zeroPoint === 0 && shown.scale === Math.fround(Math.fround(half) / 32767), `int16: scale ${String(shown.scale)} zp ${String(shown.zeroPoint)}`);
    await page.locator(testId('ranges-dtype')).selectOption('int8');
    await page.waitForFunction(() => document.querySelector('[data-testid="ranges-summary"]')?.textContent?.includes('int8') && document.querySelector('[data-testid="ranges"]')?.getAttribute('data-state') === 'ready', null, { timeout: STEP_TIMEOUT_MS });
  });

  await check('a long run can be cancelled, the page stays responsive and usable', async () => {
    await fillRandom(page, { count: 1_000_000, lo: -1, hi: 1, seed: 3 });
    await page.locator(testId('calibrate-start')).click({ timeout: STEP_TIMEOUT_MS });
    await waitForCalibration(page, 'running');
    await page.waitForFunction(() => /^[1-9][\d,]* \/ 1,000,000 samples/.test(document.querySelector('[data-testid="calibrate-status"]')?.textContent ?? ''), null, { timeout: STEP_TIMEOUT_MS });
    // The UI thread answers while the worker calibrates: a frame comes within a few hundred ms.
    const frameMs = await page.evaluate(() => {
      const t0 = performance.now();
      return new Promise((r) => requestAnimationFrame(() => r(performance.now() - t0)));
    });
    assert(frameMs < 500, `a frame took ${String(frameMs)} ms during calibration`);
    const status = await text(page, 'calibrate-status');
    assert(/left/.test(status), `running status lacks the time left: ${status}`);
    await screenshot(page, '08-running');
    await page.locator(testId('calibrate-cancel')).click({ timeout: STEP_TIMEOUT_MS });
    await waitForCalibration(page, 'cancelled');
    const after = await text(page, 'calibrate-status');
    assert(/^Cancelled after [\d,]+ samples/.test(after), `status after cancel: ${after}`);
    assert(!(await page.locator(testId('error-banner')).isVisible()), 'error banner after cancel');
    assert(!(await page.locator(testId('calibrate-start')).isDisabled()), 'Start stays disabled after cancel');
    await screenshot(page, '09-cancelled');
    await fillRandom(page, { count: 8, lo: 0, hi: 1, seed: 1 });
    await page.locator(testId('calibrate-start')).click({ timeout: STEP_TIMEOUT_MS });
    await waitForCalibration(page, 'done');
    assert((await text(page, 'calibrate-status')).includes('8 / 8 samples'), 'a run after cancel did not finish');
  });

  await check('a .npy of the wrong shape gives a readable error and keeps the model', async () => {
    await page.locator(testId('source-npy')).check({ timeout: STEP_TIMEOUT_MS });
    await page.locator(testId('npy-input-0')).setInputFiles({ name: 'gray.npy', mimeType: 'application/octet-stream', buffer: npyBytes([4, 32, 32, 1], new Float32Array(4 * 32 * 32)) });
    await page.locator(testId('calibrate-start')).click({ timeout: STEP_TIMEOUT_MS });
    await waitForCalibration(page, 'error');
    const banner = await text(page, 'error-banner');
    for (const part of ['gray.npy', 'does not fit input', inputTensor.name, 'expected (N, 1, 32, 32, 3)', 'got (4, 32, 32, 1)']) {
      assert(banner.includes(part), `banner lacks "${part}": ${banner}`);
    }
    assert((await text(page, 'model-name')) === 'dropped.tflite', 'the model is no longer shown');
    assert(await page.evaluate(() => document.body.dataset.state === 'ready'), 'page state is not ready');
    assert((await page.locator(testId('npy-input-0')).evaluate((el) => el.files?.[0]?.name)) === 'gray.npy', 'the chosen file was dropped');
    assert(await page.locator(testId('stats-table')).isVisible(), 'the previous calibration result is hidden after the error');
    await screenshot(page, '10-npy-error');
  });

  await check('a .npy with a NaN names the sample and input; a good .npy calibrates', async () => {
    const n = 6;
    const size = 32 * 32 * 3;
    const data = new Float32Array(n * size).map((_, i) => (i % 97) / 97);
    data[2 * size + 5] = NaN;
    await page.locator(testId('npy-input-0')).setInputFiles({ name: 'nan.npy', mimeType: 'application/octet-stream', buffer: npyBytes([n, 1, 32, 32, 3], data) });
    await page.locator(testId('calibrate-start')).click({ timeout: STEP_TIMEOUT_MS });
    await page.waitForFunction(() => document.querySelector('[data-testid="error-banner"]')?.textContent?.includes('NaN'), null, { timeout: STEP_TIMEOUT_MS });
    const banner = await text(page, 'error-banner');
    assert(/sample 2\b/.test(banner) && banner.includes(inputTensor.name), `banner does not name sample 2 and the input: ${banner}`);
    data[2 * size + 5] = 0.5;
    await page.locator(testId('npy-input-0')).setInputFiles({ name: 'good.npy', mimeType: 'application/octet-stream', buffer: npyBytes([n, 32, 32, 3], data) });
    await page.locator(testId('calibrate-start')).click({ timeout: STEP_TIMEOUT_MS });
    await waitForCalibration(page, 'done');
    assert((await text(page, 'calibration-summary')).includes(`${String(n)} samples`), 'npy run did not record 6 samples');
    assert(!(await page.locator(testId('error-banner')).isVisible()), 'error banner still visible after a good run');
  });

  await check('images (picked, then dropped) are resized and calibrate; a broken image is named', async () => {
    await page.locator(testId('source-images')).check({ timeout: STEP_TIMEOUT_MS });
    const images = [0, 1, 2].map((k) => ({
      name: `img${String(k)}.png`,
      mimeType: 'image/png',
      buffer: pngBytes(40 + k * 10, 30, (x, y) => [(x * 5 + k * 40) & 255, (y * 7) & 255, 128]),
    }));
    await page.locator(testId('image-input')).setInputFiles(images);
    assert((await text(page, 'image-count')).startsWith('3 images'), `image count: ${await text(page, 'image-count')}`);
    assert((await text(page, 'image-layout')).includes('32×32'), `layout: ${await text(page, 'image-layout')}`);
    await page.locator(testId('calibrate-start')).click({ timeout: STEP_TIMEOUT_MS });
    await waitForCalibration(page, 'done');
    assert((await text(page, 'calibration-summary')).includes('3 samples'), 'image run did not record 3 samples');
    await screenshot(page, '11-images');
    // A drop onto the image area feeds calibration, not the model loader.
    await page.evaluate(
      ({ good }) => {
        const transfer = new DataTransfer();
        transfer.items.add(new File([Uint8Array.from(atob(good), (c) => c.charCodeAt(0))], 'ok.png', { type: 'image/png' }));
        transfer.items.add(new File([new Uint8Array([1, 2, 3, 4])], 'broken.png', { type: 'image/png' }));
        transfer.items.add(new File(['notes'], 'notes.txt', { type: 'text/plain' }));
        const zone = document.querySelector('[data-testid="image-drop"]');
        for (const type of ['dragenter', 'dragover', 'drop']) {
          zone.dispatchEvent(new DragEvent(type, { bubbles: true, cancelable: true, dataTransfer: transfer }));
        }
      },
      { good: images[0].buffer.toString('base64') },
    );
    await page.waitForFunction(() => document.querySelector('[data-testid="image-count"]')?.textContent?.startsWith('2 images'), null, { timeout: STEP_TIMEOUT_MS });
    assert((await text(page, 'image-count')).includes('1 other file skipped'), `image count: ${await text(page, 'image-count')}`);
    assert((await text(page, 'model-name')) === 'dropped.tflite', 'dropping images replaced the model');
    await page.locator(testId('calibrate-start')).click({ timeout: STEP_TIMEOUT_MS });
    await waitForCalibration(page, 'error');
    const banner = await text(page, 'error-banner');
    assert(banner.includes('broken.png') && banner.includes('could not be decoded'), `banner: ${banner}`);
    await page.locator(testId('source-random')).check();
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

  await quantizeChecks(api, base, foreignRequests);

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
