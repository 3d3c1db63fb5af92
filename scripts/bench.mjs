// `npm run bench`: Zeropoint against LiteRT.js and tfjs-tflite, in headless Debian Chromium.
//
// Release build (scripts/build-wasm.sh, then the bench page with bench/vite.config.ts) → serve
// target/bench/dist/ with `vite preview` on 127.0.0.1 → for every model and runtime, a fresh
// browser context loads bench/index.html?runtime=…, which times wasm init, model load + prepare,
// the first inference and a warm-up (≥ 5 inferences, ≥ 2 s), single-threaded; then the driver
// takes the 50 timed samples in rounds, a few from each runtime's page in turn. Every runtime gets
// the same input bytes; outputs are compared with Zeropoint's reference kernels (Zeropoint fast
// must be bit-identical: the run fails otherwise) and, through bench/check_outputs.py, with
// LiteRT's Python interpreter (Zeropoint fast and reference must equal BUILTIN_REF, Zeropoint
// XNNPACK-exact LiteRT's XNNPACK path; a full run fails when that check cannot run). Writes
// bench/results.md (the committed table) and target/bench/results.json (every sample).
//
//   npm run bench                      full run (all models, all runtimes, calibration row)
//   npm run bench -- --quick           self-check: one model, few iterations (→ target/bench/results-quick.md)
//   npm run bench -- --no-build        reuse www/pkg/ and target/bench/dist/ as built
//   options: --iters N --rounds N --warmup N --warmup-ms MS --models a,b --out FILE      (CHROMIUM_PATH overrides /usr/bin/chromium)
//            --runtimes a,b (a subset; zp-reference always runs)  --no-calibration (skip the calibration rows)
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';
import { startVitePreview } from './lib/vite-preview.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const DIST = join(ROOT, 'target', 'bench', 'dist');
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
const SERVER_START_TIMEOUT_MS = 30_000;
/** One page (one runtime on one model) may take this long at most. */
const PAGE_TIMEOUT_MS = 15 * 60_000;
/** Seed of the benchmark input (uniform [-1, 1), quantized for integer inputs). */
const INPUT_SEED = 42;

/** The benchmark models: id, file, what it is. */
const MODELS = [
  {
    id: 'example',
    file: 'www/assets/example.tflite',
    title: 'Example CNN (the page\u2019s bundled model), float32',
  },
  {
    id: 'mnv2-035-int8',
    file: 'tests/golden/mobilenet_v2/model_int8.tflite',
    int8: true,
    title: 'MobileNetV2-style \u03b1 0.35 96\u00d796 (golden, cut after block 12), int8 with int8 I/O',
  },
  {
    id: 'mnv2-035-int8-floatio',
    file: 'tests/golden/mobilenet_v2/model_int8_floatio.tflite',
    int8: true,
    title: 'MobileNetV2-style \u03b1 0.35 96\u00d796 (golden, cut after block 12), int8 with float I/O',
  },
  {
    id: 'mnv2-100-224-int8-floatio',
    file: 'bench/models/mobilenet_v2_1.0_224_int8_floatio.tflite',
    int8: true,
    title: 'MobileNetV2 \u03b1 1.0 224\u00d7224 (bench/models, untrained), int8 with float I/O',
    /** Keras' own count (bench/models/README.md): the engine's count must agree. */
    expectedMacs: 300_774_272,
  },
];
const CALIBRATION_MODEL = 'tests/golden/mobilenet_v2/model_float.tflite';
/**
 * `int8Only`: runs on the int8 models only (XNNPACK-exact covers int8 arithmetic; a float model
 * runs the same float kernels as Zeropoint fast, whose sums are not XNNPACK's).
 */
const ALL_RUNTIMES = [
  { id: 'zp-fast', name: 'Zeropoint fast', anchor: false },
  { id: 'zp-xnnpack', name: 'Zeropoint XNNPACK-exact', anchor: false, int8Only: true },
  { id: 'zp-reference', name: 'Zeropoint reference', anchor: false },
  { id: 'litert', name: 'LiteRT.js 2.5.3 (wasm, XNNPACK)', anchor: true },
  { id: 'tflite', name: 'tfjs-tflite 0.0.1-alpha.10', anchor: true },
];

const { values: opts } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    'no-build': { type: 'boolean', default: false },
    iters: { type: 'string' },
    rounds: { type: 'string' },
    warmup: { type: 'string' },
    'warmup-ms': { type: 'string' },
    models: { type: 'string' },
    out: { type: 'string' },
    'calibration-samples': { type: 'string' },
    runtimes: { type: 'string' },
    'no-calibration': { type: 'boolean', default: false },
  },
});
const quick = opts.quick;
const iters = Number(opts.iters ?? (quick ? 10 : 50));
/** The timed samples are taken in this many rounds, interleaved across the runtimes. */
const rounds = Math.max(1, Math.min(iters, Number(opts.rounds ?? (quick ? 2 : 10))));
const warmup = Number(opts.warmup ?? (quick ? 2 : 5));
/** Warm-up lasts at least this long too (V8 tiers hot wasm functions up to TurboFan in the background). */
const warmupMs = Number(opts['warmup-ms'] ?? (quick ? 200 : 2000));
const calibrationSamples = Number(opts['calibration-samples'] ?? (quick ? 10 : 100));
const modelIds = opts.models ? opts.models.split(',') : quick ? ['mnv2-035-int8-floatio'] : MODELS.map((m) => m.id);
const outFile = resolve(ROOT, opts.out ?? (quick ? 'target/bench/results-quick.md' : 'bench/results.md'));
const runtimeIds = opts.runtimes ? new Set([...opts.runtimes.split(','), 'zp-reference']) : undefined;
for (const id of runtimeIds ?? []) {
  if (!ALL_RUNTIMES.some((r) => r.id === id)) throw new Error(`unknown runtime '${id}' (${ALL_RUNTIMES.map((r) => r.id).join(', ')})`);
}
const RUNTIMES = ALL_RUNTIMES.filter((r) => runtimeIds?.has(r.id) ?? true);
/** A filtered run (a subset of runtimes or no calibration) checks the rows work; it writes no committed table. */
const partial = runtimeIds !== undefined || opts['no-calibration'];
if (partial && !opts.out && !quick) throw new Error('--runtimes / --no-calibration: give --out (bench/results.md is the full run)');
/** Whether runtime `rt` runs on model `m`. */
const runsOn = (rt, m) => !rt.int8Only || m.int8 === true;

let server;
let browser;

function log(line) {
  process.stdout.write(`${line}\n`);
}

async function cleanup() {
  if (browser) {
    const b = browser;
    browser = undefined;
    await b.close().catch(() => b.process?.()?.kill('SIGKILL'));
  }
  if (server) {
    const child = server;
    server = undefined;
    if (child.exitCode === null && child.signalCode === null) {
      try {
        process.kill(-child.pid, 'SIGTERM'); // its own process group (detached)
      } catch {
        child.kill('SIGTERM');
      }
    }
  }
}

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    void cleanup().then(() => process.exit(130));
  });
}

function run(cmd, args) {
  log(`$ ${[cmd, ...args].join(' ')}`);
  execFileSync(cmd, args, { cwd: ROOT, stdio: 'inherit' });
}

async function startServer() {
  return startVitePreview({
    root: ROOT, config: 'bench/vite.config.ts',
    timeoutMs: SERVER_START_TIMEOUT_MS,
    onSpawn: (child) => {
      server = child;
    },
  });
}

async function loadEngine() {
  const js = join(ROOT, 'www/pkg/simd/zeropoint.js');
  const api = await import(pathToFileURL(js).href);
  api.initSync({ module: readFileSync(join(ROOT, 'www/pkg/simd/zeropoint_bg.wasm')) });
  return api;
}

/** The same input bytes for every runtime: uniform [-1, 1) floats, quantized for an int8 input. */
function makeInput(api, desc) {
  const n = desc.shape.reduce((a, b) => a * b, 1);
  const x = api.randomData(n, -1, 1, INPUT_SEED);
  switch (desc.dtype) {
    case 'FLOAT32':
      return new Uint8Array(x.buffer.slice(0));
    case 'INT8': {
      const q = new Int8Array(n);
      for (let i = 0; i < n; i++) q[i] = Math.max(-128, Math.min(127, Math.round(x[i] / desc.scale) + desc.zero_point));
      return new Uint8Array(q.buffer);
    }
    default:
      throw new Error(`input type ${desc.dtype} is not handled by the benchmark`);
  }
}

function decode(output) {
  const bytes = Buffer.from(output.base64, 'base64');
  const buf = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  switch (output.dtype) {
    case 'float32':
      return { bytes, values: new Float32Array(buf), unit: '' };
    case 'int8':
      return { bytes, values: new Int8Array(buf), unit: ' LSB' };
    case 'uint8':
      return { bytes, values: new Uint8Array(buf), unit: ' LSB' };
    case 'int32':
      return { bytes, values: new Int32Array(buf), unit: '' };
    default:
      throw new Error(`output type ${output.dtype} is not handled`);
  }
}

/** Compares the outputs of `got` with those of `want`: max |diff| and whether bytes are equal. */
function compareOutputs(want, got) {
  if (want.length !== got.length) return { identical: false, maxAbs: Infinity, note: `${String(got.length)} outputs, want ${String(want.length)}` };
  let identical = true;
  let maxAbs = 0;
  let unit = '';
  for (let k = 0; k < want.length; k++) {
    const a = decode(want[k]);
    const b = decode(got[k]);
    if (want[k].dtype !== got[k].dtype || a.values.length !== b.values.length) {
      return { identical: false, maxAbs: Infinity, note: `output ${String(k)}: ${got[k].dtype}[${String(b.values.length)}] vs ${want[k].dtype}[${String(a.values.length)}]` };
    }
    identical &&= a.bytes.equals(b.bytes);
    unit = a.unit;
    for (let i = 0; i < a.values.length; i++) maxAbs = Math.max(maxAbs, Math.abs(Number(a.values[i]) - Number(b.values[i])));
  }
  return { identical, maxAbs, unit };
}

function quantile(sorted, q) {
  if (sorted.length === 0) return NaN;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}

function summarize(samples) {
  const s = [...samples].sort((a, b) => a - b);
  return { median: quantile(s, 0.5), p10: quantile(s, 0.1), p90: quantile(s, 0.9), n: s.length };
}

/**
 * A fresh browser context and page, recording requests that leave 127.0.0.1 (context-wide: also
 * those of workers) and console errors, failed page scripts and HTTP errors.
 */
async function newPage() {
  const context = await browser.newContext();
  const page = await context.newPage();
  const foreign = [];
  const consoleErrors = [];
  context.on('request', (r) => {
    const u = new URL(r.url());
    if (!['127.0.0.1', 'localhost'].includes(u.hostname) && !['data:', 'blob:'].includes(u.protocol)) foreign.push(r.url());
  });
  page.on('console', (m) => {
    if (m.type() === 'error') consoleErrors.push(m.text());
  });
  page.on('pageerror', (e) => consoleErrors.push(e.message));
  context.on('response', (r) => {
    if (r.status() >= 400) consoleErrors.push(`HTTP ${String(r.status())} for ${new URL(r.url()).pathname}`);
  });
  return { context, page, foreign, consoleErrors };
}

async function runPage(base, query) {
  const { context, page, foreign, consoleErrors } = await newPage();
  try {
    await page.goto(`${base}index.html?${new URLSearchParams(query).toString()}`);
    await page.waitForFunction(() => globalThis.benchResult !== undefined, null, { timeout: PAGE_TIMEOUT_MS, polling: 500 });
    const result = await page.evaluate(() => globalThis.benchResult);
    if (foreign.length > 0) throw new Error(`requests left 127.0.0.1: ${foreign.join(', ')}`);
    result.console = consoleErrors;
    return result;
  } finally {
    await context.close();
  }
}

/**
 * Opens `query`'s page in interleaved mode and waits until it is warm (its `benchControl` is up)
 * or has failed (its `benchResult` says why). The caller takes the samples (`sampleRound`) and the
 * result (`closePage`).
 */
async function openPage(base, query) {
  const open = { ...(await newPage()), failed: undefined };
  const { page } = open;
  try {
    await page.goto(`${base}index.html?${new URLSearchParams({ ...query, interleave: '1' }).toString()}`);
    await page.waitForFunction(() => globalThis.benchControl !== undefined || globalThis.benchResult !== undefined, null, { timeout: PAGE_TIMEOUT_MS, polling: 100 });
    open.failed = await page.evaluate(() => globalThis.benchResult);
  } catch (error) {
    open.failed = { ok: false, error: error instanceof Error ? error.message : String(error), samplesMs: [], outputs: [] };
  }
  return open;
}

/** Takes `count` more samples on an open, warm page. */
async function sampleRound(open, count) {
  if (open.failed) return;
  await open.page.evaluate((n) => globalThis.benchControl.sample(n), count);
}

/** The page's result (or why it failed), then closes it. */
async function closePage(open) {
  try {
    if (open.failed) return open.failed;
    const result = await open.page.evaluate(() => globalThis.benchControl.finish());
    if (open.foreign.length > 0) throw new Error(`requests left 127.0.0.1: ${open.foreign.join(', ')}`);
    result.console = open.consoleErrors;
    return result;
  } finally {
    await open.context.close();
  }
}

function fileSize(path) {
  const bytes = readFileSync(path);
  return { raw: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length };
}

function pkgVersion(name) {
  return JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')).version;
}

function cpuModel() {
  try {
    const line = readFileSync('/proc/cpuinfo', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('model name'));
    return line ? line.split(':')[1].trim() : cpus()[0]?.model ?? 'unknown';
  } catch {
    return cpus()[0]?.model ?? 'unknown';
  }
}

const diffText = (v) => (v === 0 || v >= 0.01 || !Number.isFinite(v) ? String(v) : v.toExponential(2));
const fmt = (v, digits = 2) => (v === null || v === undefined || Number.isNaN(v) ? '—' : v.toFixed(digits));
const ms = (v) => (v === null || v === undefined ? '—' : v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2));

async function main() {
  const started = Date.now();
  const loadStart = loadavg().map((v) => v.toFixed(2)).join(' ');
  if (!opts['no-build']) {
    run('bash', ['scripts/build-wasm.sh']);
    run(process.execPath, [join(ROOT, 'node_modules/vite/bin/vite.js'), 'build', '--config', 'bench/vite.config.ts', '--logLevel', 'warn']);
  }
  if (!existsSync(join(DIST, 'index.html'))) throw new Error('target/bench/dist is missing: run without --no-build');

  // Models and inputs next to the page (before vite preview starts: it indexes files at start).
  const api = await loadEngine();
  const models = [];
  mkdirSync(join(DIST, 'models'), { recursive: true });
  mkdirSync(join(DIST, 'inputs'), { recursive: true });
  for (const id of [...modelIds]) {
    const m = MODELS.find((x) => x.id === id);
    if (!m) throw new Error(`unknown model '${id}' (${MODELS.map((x) => x.id).join(', ')})`);
    const bytes = readFileSync(join(ROOT, m.file));
    const session = new api.BenchSession(bytes, 'reference');
    const [inDesc] = session.inputs();
    const input = makeInput(api, inDesc);
    copyFileSync(join(ROOT, m.file), join(DIST, 'models', `${m.id}.tflite`));
    writeFileSync(join(DIST, 'inputs', `${m.id}.bin`), input);
    models.push({ ...m, macs: session.macs(), input: inDesc, outputs: session.outputs(), size: bytes.length });
    session.free();
  }
  copyFileSync(join(ROOT, CALIBRATION_MODEL), join(DIST, 'models', 'calibration.tflite'));

  const base = await startServer();
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  const chromiumVersion = browser.version();
  log(`serving ${relative(ROOT, DIST)} on ${base}; Chromium ${chromiumVersion}; ${String(iters)} iterations after ≥ ${String(warmup)} warm-ups and ≥ ${String(warmupMs)} ms`);

  const results = [];
  let failures = 0;
  for (const m of models) {
    // Every runtime's page is opened and warmed up one after the other, then the samples are
    // taken in rounds: a few from each page in turn (each round starting one page later).
    const t0 = Date.now();
    const runtimesHere = RUNTIMES.filter((r) => runsOn(r, m));
    const pages = [];
    for (const rt of runtimesHere) {
      pages.push(await openPage(base, { runtime: rt.id, model: m.id, warmup: String(warmup), warmupMs: String(warmupMs), iters: String(iters) }));
    }
    for (let round = 0; round < rounds; round++) {
      const count = Math.floor(((round + 1) * iters) / rounds) - Math.floor((round * iters) / rounds);
      for (let k = 0; k < pages.length; k++) await sampleRound(pages[(k + round) % pages.length], count);
    }
    for (const [k, rt] of runtimesHere.entries()) {
      const r = await closePage(pages[k]);
      const stats = summarize(r.samplesMs);
      results.push({ model: m.id, runtime: rt.id, result: r, stats });
      log(
        r.ok
          ? `${m.id.padEnd(26)} ${rt.id.padEnd(13)} median ${ms(stats.median)} ms (p10 ${ms(stats.p10)}, p90 ${ms(stats.p90)}, ${String(stats.n)}×${String(r.reps)}), init ${ms(r.initMs)}, load ${ms(r.loadMs)}, first ${ms(r.firstMs)} ms, warm-up ${ms(r.warmupMeanMs)} ms × ${String(r.warmupRuns)}`
          : `${m.id.padEnd(26)} ${rt.id.padEnd(13)} refused/failed: ${r.error}`,
      );
    }
    log(`${m.id}: ${String(rounds)} interleaved rounds [${String(Math.round((Date.now() - t0) / 1000))} s]`);
    // Outputs against Zeropoint's reference kernels; fast must be bit-identical.
    const ref = results.find((x) => x.model === m.id && x.runtime === 'zp-reference');
    for (const x of results.filter((y) => y.model === m.id)) {
      if (!ref?.result.ok || !x.result.ok) continue;
      x.compare = compareOutputs(ref.result.outputs, x.result.outputs);
      if (x.runtime === 'zp-fast' && !x.compare.identical) {
        failures++;
        log(`FAIL ${m.id}: Zeropoint fast differs from reference (max |diff| ${String(x.compare.maxAbs)}${x.compare.unit ?? ''})`);
      }
      if (x.runtime !== 'zp-reference') log(`  ${x.runtime}: max |diff| vs Zeropoint reference ${String(x.compare.maxAbs)}${x.compare.unit ?? ''}${x.compare.identical ? ' (bit-identical)' : ''}`);
    }
    // XNNPACK-exact against the browser anchors, which run XNNPACK too (for the log; the check
    // that fails the run is against LiteRT's own interpreter, below).
    const xnn = results.find((y) => y.model === m.id && y.runtime === 'zp-xnnpack');
    for (const anchor of ['litert', 'tflite']) {
      const a = results.find((y) => y.model === m.id && y.runtime === anchor);
      if (!xnn?.result.ok || !a?.result.ok) continue;
      const c = compareOutputs(a.result.outputs, xnn.result.outputs);
      log(`  zp-xnnpack: max |diff| vs ${anchor} ${String(c.maxAbs)}${c.unit ?? ''}${c.identical ? ' (bit-identical)' : ''}`);
    }
    for (const rt of RUNTIMES.filter((r) => r.id.startsWith('zp-') && runsOn(r, m)).map((r) => r.id)) {
      const x = results.find((y) => y.model === m.id && y.runtime === rt);
      if (!x?.result.ok) {
        failures++;
        log(`FAIL ${m.id}: ${rt} did not run: ${x?.result.error ?? 'no result'}`);
      } else if (x.result.macs !== m.macs || (m.expectedMacs !== undefined && m.macs !== m.expectedMacs)) {
        failures++;
        log(`FAIL ${m.id}: the page counted ${String(x.result.macs)} MACs, Node ${String(m.macs)}, Keras ${String(m.expectedMacs)}`);
      }
    }
  }

  const calibration = opts['no-calibration']
    ? { ok: false, skipped: true, error: 'skipped (--no-calibration)' }
    : await runPage(base, { runtime: 'calibrate', model: 'calibration', samples: String(calibrationSamples) });
  if (calibration.skipped) {
    log('calibration: skipped (--no-calibration)');
  } else if (calibration.ok) {
    log(`calibration: ${String(calibrationSamples)} samples in ${ms(calibration.detail.calibrateMs)} ms (load ${ms(calibration.loadMs)} ms); quantize ${ms(calibration.detail.quantizeMs)} ms; total ${ms(calibration.detail.totalMs)} ms`);
  } else {
    failures++;
    log(`FAIL calibration: ${calibration.error}`);
  }

  // The page's calibration path (calibrateParallel) on 1 and 2 Web Workers, same samples.
  const workerRuns = [];
  for (const workers of calibration.skipped ? [] : [1, 2]) {
    const r = await runPage(base, { runtime: 'calibrate-workers', model: 'calibration', samples: String(calibrationSamples), workers: String(workers) });
    if (r.ok) {
      log(`calibration on ${String(workers)} worker(s): ${ms(r.detail.calibrateMs)} ms + quantize ${ms(r.detail.quantizeMs)} ms = ${ms(r.detail.totalMs)} ms; again ${ms(r.detail.warmTotalMs)} ms`);
    } else {
      failures++;
      log(`FAIL calibration on ${String(workers)} worker(s): ${r.error}`);
    }
    workerRuns.push({ workers, result: r });
  }
  calibration.workerRuns = workerRuns;

  // Sizes of what each runtime loads.
  const sizes = [];
  for (const [name, file] of [
    ['Zeropoint www/pkg/simd', 'www/pkg/simd/zeropoint_bg.wasm'],
    ['Zeropoint www/pkg/nosimd', 'www/pkg/nosimd/zeropoint_bg.wasm'],
    ['Zeropoint www/pkg/relaxed', 'www/pkg/relaxed/zeropoint_bg.wasm'],
    ['Zeropoint glue (simd)', 'www/pkg/simd/zeropoint.js'],
    ['LiteRT.js litert_wasm_internal (relaxed SIMD)', 'node_modules/@litertjs/core/wasm/litert_wasm_internal.wasm'],
    ['LiteRT.js litert_wasm_compat_internal (SIMD128)', 'node_modules/@litertjs/core/wasm/litert_wasm_compat_internal.wasm'],
    ['LiteRT.js glue litert_wasm_internal.js', 'node_modules/@litertjs/core/wasm/litert_wasm_internal.js'],
    ['tfjs-tflite tflite_web_api_cc_simd', 'node_modules/@tensorflow/tfjs-tflite/wasm/tflite_web_api_cc_simd.wasm'],
    ['tfjs-tflite glue tflite_web_api_cc_simd.js', 'node_modules/@tensorflow/tfjs-tflite/wasm/tflite_web_api_cc_simd.js'],
  ]) {
    if (existsSync(join(ROOT, file))) sizes.push({ name, file, ...fileSize(join(ROOT, file)) });
  }

  const machine = {
    cpu: cpuModel(),
    cores: cpus().length,
    loadStart,
    memGiB: (totalmem() / 2 ** 30).toFixed(1),
    chromium: chromiumVersion,
    node: process.version,
    date: new Date().toISOString().slice(0, 16).replace('T', ' ') + ' UTC',
    git: (() => {
      try {
        return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT }).toString().trim();
      } catch {
        return 'unknown';
      }
    })(),
  };
  const versions = {
    '@litertjs/core': pkgVersion('@litertjs/core'),
    '@tensorflow/tfjs-tflite': pkgVersion('@tensorflow/tfjs-tflite'),
    '@tensorflow/tfjs-core': pkgVersion('@tensorflow/tfjs-core'),
    'playwright-core': pkgVersion('playwright-core'),
    vite: pkgVersion('vite'),
  };
  mkdirSync(join(ROOT, 'target', 'bench'), { recursive: true });
  const jsonFile = join(ROOT, 'target', 'bench', quick ? 'results-quick.json' : 'results.json');
  writeFileSync(jsonFile, JSON.stringify({ machine, versions, iters, warmup, models, results, calibration, sizes }, null, 1));
  const litertCheck = crossCheck(jsonFile);
  if (litertCheck.ok) {
    for (const [id, rows] of Object.entries(litertCheck.report)) {
      // Each Zeropoint row against the LiteRT path it reproduces: 0, or the run fails.
      for (const [rt, want] of [['zp-fast', 'litert_ref'], ['zp-reference', 'litert_ref'], ['zp-xnnpack', 'litert_xnnpack']]) {
        if (rows[rt] && rows[rt][want] !== 0) {
          failures++;
          const what = want === 'litert_ref' ? 'LiteRT BUILTIN_REF' : 'LiteRT XNNPACK';
          log(`FAIL ${id}: ${rt} differs from ${what} by ${String(rows[rt][want] ?? 'an output of another shape')}`);
        }
      }
    }
  } else if (!quick && !partial) {
    failures++;
    log(`FAIL the LiteRT Python cross-check did not run (${litertCheck.why}): Zeropoint's exactness, XNNPACK-exact's included, is unchecked`);
  } else {
    log(`WARNING the LiteRT Python cross-check did not run (${litertCheck.why}): Zeropoint's exactness is unchecked in this run`);
  }
  writeFileSync(outFile, report({ machine, versions, models, results, calibration, sizes, litertCheck, seconds: (Date.now() - started) / 1000 }));
  log(`wrote ${relative(ROOT, outFile)} (${String(Math.round((Date.now() - started) / 1000))} s)`);
  if (failures > 0) throw new Error(`${String(failures)} check(s) failed`);
}

/**
 * Runs bench/check_outputs.py with a Python that has ai-edge-litert (BENCH_PYTHON, else the venv
 * `npm test` sets up, target/py-check): every runtime's output against LiteRT 2.3's reference
 * kernels and its XNNPACK delegate on the same input bytes. Skipped (and said so) without one.
 */
function crossCheck(jsonFile) {
  const python = process.env.BENCH_PYTHON ?? join(ROOT, 'target', 'py-check', 'bin', 'python');
  if (!existsSync(python)) return { ok: false, why: `no Python with ai-edge-litert at ${relative(ROOT, python)} (set BENCH_PYTHON)` };
  try {
    const out = execFileSync(python, [join(ROOT, 'bench', 'check_outputs.py'), jsonFile], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    const report = JSON.parse(out.toString());
    for (const [id, rows] of Object.entries(report)) {
      log(`LiteRT Python cross-check ${id}: ${Object.entries(rows).map(([rt, d]) => `${rt} ref ${String(d.litert_ref)} xnnpack ${String(d.litert_xnnpack)}`).join('; ')}`);
    }
    return { ok: true, report };
  } catch (error) {
    return { ok: false, why: `bench/check_outputs.py failed: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}` };
  }
}

function report({ machine, versions, models, results, calibration, sizes, litertCheck, seconds }) {
  const L = [];
  L.push('# Benchmark: Zeropoint vs LiteRT.js and tfjs-tflite, in the browser');
  L.push('');
  L.push(`Generated by \`npm run bench${quick ? ' -- --quick' : ''}\` (\`scripts/bench.mjs\`, page \`bench/\`) at ${machine.date}, commit \`${machine.git}\`, in ${String(Math.round(seconds))} s. Do not edit by hand: rerun.`);
  L.push('');
  L.push('## Summary');
  L.push('');
  L.push('Median single-threaded inference (input in, run, outputs out); ratio = Zeropoint / the best anchor (< 1: Zeropoint faster).');
  L.push('');
  L.push('| model | M MACs | Zeropoint fast ms | Zeropoint XNNPACK-exact ms | Zeropoint reference ms | best anchor | anchor ms | fast / anchor | XNNPACK-exact / anchor |');
  L.push('|---|---:|---:|---:|---:|---|---:|---:|---:|');
  for (const m of models) {
    const rows = results.filter((x) => x.model === m.id && x.result.ok);
    const get = (id) => rows.find((x) => x.runtime === id);
    const anchors = rows.filter((x) => RUNTIMES.find((r) => r.id === x.runtime)?.anchor).sort((a, b) => a.stats.median - b.stats.median);
    const best = anchors[0];
    const fast = get('zp-fast');
    const xnn = get('zp-xnnpack');
    const ratio = (x) => (x && best ? fmt(x.stats.median / best.stats.median, 2) : '—');
    L.push(`| ${m.id} | ${(m.macs / 1e6).toFixed(1)} | ${ms(fast?.stats.median)} | ${ms(xnn?.stats.median)} | ${ms(get('zp-reference')?.stats.median)} | ${best ? RUNTIMES.find((r) => r.id === best.runtime)?.name ?? '' : '—'} | ${ms(best?.stats.median)} | ${ratio(fast)} | ${ratio(xnn)} |`);
  }
  L.push('');
  L.push('## Machine and conditions');
  L.push('');
  L.push(`- CPU: ${machine.cpu}, ${String(machine.cores)} cores visible, ${machine.memGiB} GiB RAM; load average (1/5/15 min) ${machine.loadStart} before the build, ${loadavg().map((v) => v.toFixed(2)).join(' ')} at the end`);
  L.push(`- Browser: Debian Chromium ${machine.chromium}, headless (playwright-core ${versions['playwright-core']}), one fresh browser context per runtime × model; Node ${machine.node}`);
  L.push(`- **Interleaved**: for each model, every runtime\u2019s page is loaded and warmed up, then the ${String(iters)} timed samples are taken in ${String(rounds)} rounds, each round a few samples from every page in turn (rotating which goes first), so that a slow spell of the shared machine falls on every runtime alike.`);
  L.push(`- Packages: @litertjs/core ${versions['@litertjs/core']}, @tensorflow/tfjs-tflite ${versions['@tensorflow/tfjs-tflite']} (tfjs-core ${versions['@tensorflow/tfjs-core']}), vite ${versions.vite}`);
  L.push(`- Every runtime single-threaded; ${String(iters)} timed inferences after a warm-up of at least ${String(warmup)} inferences and ${String(warmupMs)} ms (the same rule for every runtime), plus the first inference, reported apart. V8 runs wasm first as its baseline compiler (Liftoff) makes it and recompiles a function with TurboFan in the background once it has run a while, so the first inferences are slower; column **warm-up** gives the mean time of the warm-up inferences (and their number), the speed a page sees in its first ${String(warmupMs / 1000)} s.`);
  L.push('- **The machine is shared**: 2 cores, with other jobs (compilers of other work in progress) running during the measurement, so absolute times are noisy; ratios between runtimes measured minutes apart are indicative only. Rerun on a quiet machine for publishable numbers.');
  L.push('');
  L.push('## How it is measured');
  L.push('');
  L.push('- **init**: wasm download from 127.0.0.1 + compile + instantiate (Zeropoint: `import()` of the wasm-bindgen glue + `init()`; LiteRT.js: `loadLiteRt()`; tfjs-tflite loads its wasm inside the first model load, so its init is part of **load**).');
  L.push('- **load**: model load + prepare from bytes already in memory (Zeropoint: `new BenchSession(bytes, kernels)` = read + `Interpreter::with_options`; LiteRT.js: `loadAndCompile(bytes, {accelerator: "wasm"})`; tfjs-tflite: `loadTFLiteModel(buffer, {numThreads: 1})`).');
  L.push('- **inference** = what an application does per call: copy the input in, run, copy every output out (Zeropoint: `setInputBytes` + `invoke` + `outputBytes`; LiteRT.js: `new Tensor` + `await run()` + `toTypedArray()` + `delete()`; tfjs-tflite: its `TFLiteWebModelRunner` — the object `TFLiteModel.predict` drives — `data().set()` + `infer()` + copy of `data()`, without predict\u2019s conversion to tfjs tensors). Without cross-origin isolation `performance.now()` is coarsened to 0.1 ms, so each sample times enough back-to-back inferences to last ≥ 5 ms (column ×, counted after the warm-ups) and reports the mean.');
  L.push('- **Zeropoint fast** = `KernelSet::Fast` (`Interpreter::with_options`): the SIMD128 kernels where an operator has one, the reference kernels elsewhere; **Zeropoint reference** = `KernelSet::Reference`, the scalar kernels that reproduce LiteRT\u2019s `BUILTIN_REF` bit for bit. **Zeropoint XNNPACK-exact** = `KernelSet::Fast` with `Arithmetic::Xnnpack` (`BenchSession(bytes, "fast", "xnnpack")`, the engine the page runs with arithmetic `xnnpack` and the CLI with `--arithmetic xnnpack`): the same SIMD128 kernels requantizing in `f32` as XNNPACK does, so its outputs are LiteRT\u2019s default XNNPACK path\u2019s bit for bit (int8 models only: a float model would run the fast float kernels, whose sums are not XNNPACK\u2019s). All three from the build the page loads in this browser (`loadEngine(\'auto\')`, named under each table): the relaxed-SIMD build (`www/pkg/relaxed`) where the engine\u2019s `i32x4.relaxed_dot_i8x16_i7x16_add` is exact with full-range bytes (x86-64 AVX-VNNI, arm64 `sdot`; the convolutions then take one dot product per 16 products), else the SIMD128 build (`www/pkg/simd`).');
  L.push('- **GMAC/s** = MACs / median; MACs of CONV_2D, DEPTHWISE_CONV_2D, TRANSPOSE_CONV and FULLY_CONNECTED as the engine counts them (`crate/src/engine/macs.rs`).');
  L.push('- **vs best anchor** = median / the better median of LiteRT.js and tfjs-tflite on that model (< 1: faster than the best anchor).');
  L.push('- **max |diff|**: largest element difference of the outputs against Zeropoint reference on the same input bytes (uniform [−1, 1), seed 42, quantized with the input\u2019s scale and zero point for int8 inputs); float outputs in float units, int8 outputs in LSB. XNNPACK requantizes in fp32 and may differ by ±1 LSB from the reference kernels in int8 intermediates. Zeropoint fast must be bit-identical to reference, or the run fails.');
  L.push('');
  for (const m of models) {
    const rows = results.filter((x) => x.model === m.id);
    const anchors = rows.filter((x) => RUNTIMES.find((r) => r.id === x.runtime)?.anchor && x.result.ok).map((x) => x.stats.median);
    const best = anchors.length > 0 ? Math.min(...anchors) : NaN;
    L.push(`## ${m.title}`);
    L.push('');
    L.push(`\`${m.file}\`: ${(m.size / 1024).toFixed(0)} KiB, ${(m.macs / 1e6).toFixed(1)} M MACs, input ${m.input.dtype} ${m.input.shape.join('×')}, output ${m.outputs.map((o) => `${o.dtype} ${o.shape.join('×')}`).join(', ')}.`);
    L.push('');
    L.push('| runtime | init ms | load ms | first ms | warm-up ms (n) | median ms | p10 ms | p90 ms | n × reps | GMAC/s | vs best anchor | max \\|diff\\| vs ZP ref |');
    L.push('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|');
    for (const x of rows) {
      const name = RUNTIMES.find((r) => r.id === x.runtime)?.name ?? x.runtime;
      const r = x.result;
      if (!r.ok) {
        const error = r.error.replaceAll('|', '\\|');
        L.push(`| ${name} | refused: \`${error}\` | | | | | | | | | | |`);
        continue;
      }
      const gmacs = m.macs / (x.stats.median / 1000) / 1e9;
      const cmp = x.runtime === 'zp-reference' ? '(reference)' : x.compare ? (x.compare.identical ? '0 (bit-identical)' : `${diffText(x.compare.maxAbs)}${x.compare.unit}`) : '—';
      L.push(`| ${name} | ${ms(r.initMs)} | ${ms(r.loadMs)} | ${ms(r.firstMs)} | ${ms(r.warmupMeanMs)} (${String(r.warmupRuns)}) | ${ms(x.stats.median)} | ${ms(x.stats.p10)} | ${ms(x.stats.p90)} | ${String(x.stats.n)} × ${String(r.reps)} | ${fmt(gmacs, 2)} | ${fmt(x.stats.median / best, 2)} | ${cmp} |`);
    }
    L.push('');
    const notes = rows.filter((x) => x.result.ok).map((x) => `${RUNTIMES.find((r) => r.id === x.runtime)?.name ?? x.runtime}: ${Object.entries(x.result.detail).map(([k, v]) => `${k} ${String(v)}`).join(', ')}`);
    L.push(...notes.map((n) => `- ${n}`));
    L.push('');
    if (rows.some((x) => x.runtime === 'litert' && !x.result.ok && /INT8/.test(x.result.error ?? ''))) {
      L.push('LiteRT.js 2.5.3 refuses this int8-I/O model: its `Tensor` takes float32, int32 and uint8 only (`Element type INT8 is not supported.`), so for LiteRT.js the int8 net is benchmarked with float I/O (the next model: the same net with QUANTIZE / DEQUANTIZE at the edges).');
      L.push('');
    }
  }
  L.push('## Outputs against LiteRT\u2019s own interpreter');
  L.push('');
  if (litertCheck.ok) {
    L.push('The same input bytes through LiteRT 2.3\u2019s Python interpreter (`bench/check_outputs.py`), single-threaded, with the reference kernels (`BUILTIN_REF`, the target Zeropoint reproduces) and with the default XNNPACK delegate: largest element difference of each browser runtime\u2019s output (float units / LSB). The run fails if Zeropoint fast or reference differs from `BUILTIN_REF`, or Zeropoint XNNPACK-exact from XNNPACK. LiteRT.js and tfjs-tflite give exactly LiteRT\u2019s XNNPACK outputs; XNNPACK requantizes in fp32, so intermediates differ from the reference kernels by ±1 LSB here and there, and on the untrained 224×224 net those differences compound through 17 blocks (0.129 = 33 LSB of the softmax output\u2019s 1/256 scale).');
    L.push('');
    L.push('| model | runtime | vs LiteRT BUILTIN_REF | vs LiteRT XNNPACK |');
    L.push('|---|---|---:|---:|');
    for (const [id, rows] of Object.entries(litertCheck.report)) {
      for (const [rt, d] of Object.entries(rows)) {
        L.push(`| ${id} | ${RUNTIMES.find((r) => r.id === rt)?.name ?? rt} | ${d.litert_ref === null ? '—' : diffText(d.litert_ref)} | ${d.litert_xnnpack === null ? '—' : diffText(d.litert_xnnpack)} |`);
      }
    }
  } else {
    L.push(`Skipped: ${litertCheck.why}.`);
  }
  L.push('');
  L.push('## Calibration and quantization in the page');
  L.push('');
  if (calibration.ok) {
    const s = summarize(calibration.samplesMs);
    L.push(`Model \`${CALIBRATION_MODEL}\` (the float MobileNetV2-style golden, α 0.35 96×96), ${String(calibration.detail.samples)} seeded random samples (uniform [−1, 1), \`randomData\`) through the page\u2019s wasm \`Calibrator\` (float engine with the kernel set \`Calibrator::new\` picks, min/max observers on every tensor), SIMD build:`);
    L.push('');
    L.push('| step | ms |');
    L.push('|---|---:|');
    L.push(`| wasm init | ${ms(calibration.initMs)} |`);
    L.push(`| \`new Calibrator\` (read + prepare) | ${ms(calibration.loadMs)} |`);
    L.push(`| calibrate ${String(calibration.detail.samples)} samples (\`setInput\` + \`addSample\` each) + \`stats("minmax")\` | ${ms(calibration.detail.calibrateMs)} |`);
    L.push(`| per sample: median / p10 / p90 | ${ms(s.median)} / ${ms(s.p10)} / ${ms(s.p90)} |`);
    L.push(`| quantize from the statistics (\`statsJson\` + \`quantizeModel\`, int8, int8 I/O; ${String(calibration.detail.quantizedBytes)} bytes out) | ${ms(calibration.detail.quantizeMs)} |`);
    L.push(`| **calibrate + quantize, ${String(calibration.detail.samples)} samples** (target ≤ 300 ms) | **${ms(calibration.detail.totalMs)}** |`);
    L.push(`| then, for the report: SQNR of every tensor on the first ${String(calibration.detail.errorSamples)} samples (\`Calibrator.measureErrors\`: float + int8 runs; the page does this after quantizing, not counted above) | ${ms(calibration.detail.errorsMs)} |`);
  } else {
    L.push(`Calibration failed: ${calibration.error}`);
  }
  if (calibration.workerRuns) {
    L.push('');
    L.push(`The page\u2019s own path (\`calibrateParallel\`: the first slice in the page, the others in Web Workers with their own wasm instances, statistics merged exactly), same model, ${String(calibrationSamples)} seeded random samples, twice in one fresh page: **first** is the page\u2019s first calibration, after the warm-ups its engine worker and helpers run when a model is loaded (a few random samples calibrated on each instance and quantized in the page, discarded: \`www/src/calibration/warm.ts\`), on code V8 may still be tiering up (baseline code, TurboFan compiling in the background on the same 2 cores); **again** is a second calibration in the same page (the helpers get the compiled module, whose optimized code V8 shares between workers):`);
    L.push('');
    L.push('| workers | first: calibrate ms | quantize ms | **calibrate + quantize ms** | again: calibrate ms | quantize ms | **calibrate + quantize ms** (target ≤ 300 with 2) |');
    L.push('|---:|---:|---:|---:|---:|---:|---:|');
    for (const { workers, result: r } of calibration.workerRuns) {
      L.push(
        r.ok
          ? `| ${String(workers)} | ${ms(r.detail.calibrateMs)} | ${ms(r.detail.quantizeMs)} | **${ms(r.detail.totalMs)}** | ${ms(r.detail.warmCalibrateMs)} | ${ms(r.detail.warmQuantizeMs)} | **${ms(r.detail.warmTotalMs)}** |`
          : `| ${String(workers)} | failed: ${r.error} | | | | | |`,
      );
    }
  }
  L.push('');
  L.push('## Wasm sizes');
  L.push('');
  L.push('What each runtime downloads for its engine (Zeropoint: after wasm-opt -O; the page downloads one of its three builds).');
  L.push('');
  L.push('| file | raw bytes | gzip -9 bytes |');
  L.push('|---|---:|---:|');
  for (const s of sizes) L.push(`| ${s.name} (\`${s.file}\`) | ${s.raw.toLocaleString('en-US')} | ${s.gzip.toLocaleString('en-US')} |`);
  L.push('');
  return `${L.join('\n')}\n`;
}

main()
  .catch((error) => {
    log(`FAIL ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  })
  .finally(() => cleanup());
