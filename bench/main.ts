/**
 * The benchmark page: one runtime, one model per page load (a fresh page, so nothing is shared
 * between runtimes), single-threaded, driven by scripts/bench.mjs through the query string:
 *
 *   ?runtime=zp-fast|zp-xnnpack|zp-reference|litert|tflite|calibrate&model=ID&warmup=5&warmupMs=2000&iters=50
 *   ?runtime=calibrate-workers&model=ID&samples=100&workers=2   (the page's split calibration;
 *                                                               &pool=0: helpers not kept)
 *
 * which runs models/ID.tflite on inputs/ID.bin (the query holds no '/': tfjs-tflite builds the URL
 * of its wasm glue by cutting `location.href` at its last '/').
 *
 * It measures wasm init, model load + prepare (from bytes already in memory), the first inference
 * and `iters` timed inferences after `warmup` untimed ones, and publishes a {@link BenchResult} on
 * `window.benchResult` (with the outputs of the last inference, for the cross-runtime check).
 * With `&interleave=1` it stops after the warm-up and publishes a {@link BenchControl} instead,
 * through which the driver takes the samples in rounds across the pages of every runtime.
 *
 * One "inference" is what an application does per call, for every runtime: copy the input in, run,
 * copy the outputs out. Without cross-origin isolation `performance.now()` is coarsened to 0.1 ms,
 * so a sample times `reps` back-to-back inferences (counted after the warm-ups so that a sample
 * lasts at least {@link MIN_SAMPLE_MS}) and reports their mean.
 */
// Types only: each runtime's code is imported dynamically by its own page, so a page loads (and
// starts) nothing of the other runtimes.
import type { CompiledModel, TypedArray } from '@litertjs/core';
import type { TFLiteWebModelRunner } from '@tensorflow/tfjs-tflite';

/** A sample lasts at least this long (50× the coarsened timer resolution of 0.1 ms). */
const MIN_SAMPLE_MS = 5;
/** The number of inferences per sample is counted over this long after the warm-ups. */
const PROBE_MS = 20;

/** An output of the last inference. */
export interface BenchOutput {
  dtype: string;
  shape: number[];
  /** Raw little-endian bytes, base64. */
  base64: string;
}

/** What the page publishes on `window.benchResult`. */
export interface BenchResult {
  ok: boolean;
  error?: string;
  runtime: string;
  /** Free-form facts about the runtime as run: build, accelerator, SIMD flavour, threads. */
  detail: Record<string, string | number | boolean>;
  /** Wasm download + compile + instantiate, ms (null: the runtime does it inside model load). */
  initMs: number | null;
  /** Model load + prepare from bytes in memory, ms. */
  loadMs: number;
  /** First inference after load, ms. */
  firstMs: number;
  /** Per-inference times of the timed samples, ms. */
  samplesMs: number[];
  /** Back-to-back inferences per sample. */
  reps: number;
  /** Warm-up inferences run (after the first, before the timed samples). */
  warmupRuns?: number;
  /** Mean time of those warm-up inferences, ms: the speed before the engine's code has tiered up. */
  warmupMeanMs?: number;
  outputs: BenchOutput[];
  /** Zeropoint only: MACs of one inference as the engine counts them. */
  macs?: number;
}

/**
 * What an interleaved page (`&interleave=1`) publishes on `window.benchControl` once it is warm:
 * scripts/bench.mjs asks every runtime's page in turn for a few samples, round after round, so
 * that a slow spell of a shared machine falls on every runtime alike, then asks for the result.
 */
export interface BenchControl {
  /** Times `count` more samples. */
  sample: (count: number) => Promise<void>;
  /** The result with every sample taken. */
  finish: () => Promise<BenchResult>;
}

declare global {
  interface Window {
    benchResult?: BenchResult;
    benchControl?: BenchControl;
  }
}

interface Runner {
  detail: Record<string, string | number | boolean>;
  initMs: number | null;
  loadMs: number;
  /** One inference: input in, run, outputs out. */
  infer: () => unknown;
  outputs: () => BenchOutput[];
  macs?: number;
  /** Facts gathered after the timed runs (they may cost time), merged into `detail`. */
  afterTiming?: () => Promise<Record<string, string | number | boolean>>;
}

const params = new URLSearchParams(location.search);
const status = document.getElementById('status');

function param(name: string): string {
  const v = params.get(name);
  if (v === null || v === '') throw new Error(`missing query parameter '${name}'`);
  return v;
}

function intParam(name: string, fallback: number): number {
  const v = params.get(name);
  const n = v === null ? fallback : Number.parseInt(v, 10);
  if (!Number.isFinite(n) || n < 0) throw new Error(`bad query parameter '${name}': ${String(v)}`);
  return n;
}

async function fetchBytes(path: string): Promise<Uint8Array> {
  const response = await fetch(path);
  if (!response.ok) throw new Error(`${path}: HTTP ${String(response.status)}`);
  return new Uint8Array(await response.arrayBuffer());
}

function toBase64(bytes: Uint8Array): string {
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) {
    s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(s);
}

function bytesOf(view: ArrayBufferView): Uint8Array {
  return new Uint8Array(view.buffer.slice(view.byteOffset, view.byteOffset + view.byteLength));
}

async function once(fn: () => unknown): Promise<void> {
  const r = fn();
  if (r instanceof Promise) await r;
}

async function time(fn: () => unknown): Promise<number> {
  const t0 = performance.now();
  await once(fn);
  return performance.now() - t0;
}

// --- Zeropoint -----------------------------------------------------------------------------------

/**
 * Zeropoint's build the page loads here (`loadEngine('auto')`: the relaxed-SIMD build where the
 * browser's int8 dot product is exact with full-range bytes, else SIMD128) with `kernels` in
 * `arithmetic`: `reference` reproduces LiteRT's `BUILTIN_REF`, `xnnpack` LiteRT's default
 * XNNPACK path (the page's `--arithmetic` choice).
 */
async function zeropoint(
  kernels: 'fast' | 'reference',
  arithmetic: 'reference' | 'xnnpack',
  model: Uint8Array,
  input: Uint8Array,
): Promise<Runner> {
  const t0 = performance.now();
  const { loadEngine } = await import('../www/src/engine/loader');
  const { api: zp, info } = await loadEngine('auto');
  const initMs = performance.now() - t0;
  const t1 = performance.now();
  const session = new zp.BenchSession(model, kernels, arithmetic);
  const loadMs = performance.now() - t1;
  const inputs = session.inputs();
  const outputs = session.outputs();
  if (inputs.length !== 1 || inputs[0]?.byte_len !== input.length) {
    throw new Error(`Zeropoint: expected one input of ${String(input.length)} bytes`);
  }
  const n = outputs.length;
  const last: Uint8Array[] = [];
  return {
    detail: {
      build:
        info.build === 'relaxed'
          ? `www/pkg/relaxed (relaxed SIMD, int8 dot ${info.dotScheme})`
          : `www/pkg/${info.build} (${info.simd ? 'SIMD128' : 'scalar'})`,
      simd: zp.simdEnabled(),
      kernels: session.kernels(),
      arithmetic: session.arithmetic(),
      threads: 1,
      kernelsPerInference: session.numKernels(),
    },
    initMs,
    loadMs,
    macs: session.macs(),
    infer: () => {
      session.setInputBytes(0, input);
      session.invoke();
      for (let i = 0; i < n; i++) last[i] = session.outputBytes(i);
    },
    outputs: () =>
      outputs.map((o, i) => ({ dtype: o.dtype.toLowerCase(), shape: o.shape, base64: toBase64(last[i] ?? new Uint8Array()) })),
  };
}

// --- LiteRT.js -----------------------------------------------------------------------------------

async function litert(model: Uint8Array, input: Uint8Array): Promise<Runner> {
  const t0 = performance.now();
  const { loadAndCompile, loadLiteRt, supportsFeature, Tensor } = await import('@litertjs/core');
  await loadLiteRt('./litert/', { threads: false, jspi: false });
  const initMs = performance.now() - t0;
  const relaxedSimd = await supportsFeature('relaxedSimd');
  const threads = await supportsFeature('threads');
  const t1 = performance.now();
  const compiled: CompiledModel = await loadAndCompile(model, { accelerator: 'wasm', cpuOptions: { numThreads: 1 } });
  const loadMs = performance.now() - t1;
  const [inDetails] = compiled.getInputDetails();
  if (!inDetails || compiled.getInputDetails().length !== 1) throw new Error('LiteRT.js: expected one input');
  const shape = Array.from(inDetails.shape);
  const data = typedInput(inDetails.dtype, input);
  let last: { dtype: string; shape: number[]; bytes: Uint8Array }[] = [];
  return {
    detail: {
      build: relaxedSimd ? 'litert_wasm_internal (relaxed SIMD)' : 'litert_wasm_compat_internal (SIMD128)',
      accelerator: 'wasm (XNNPACK)',
      relaxedSimd,
      threadsSupportedByBrowser: threads,
      threads: 1,
      jspi: false,
    },
    initMs,
    loadMs,
    infer: async () => {
      const tensor = new Tensor(data, shape);
      const results = await compiled.run([tensor]);
      tensor.delete();
      last = results.map((r) => {
        const out = r.toTypedArray();
        const item = { dtype: r.type.dtype, shape: Array.from(r.type.layout.dimensions), bytes: bytesOf(out) };
        r.delete();
        return item;
      });
    },
    outputs: () => last.map((o) => ({ dtype: o.dtype, shape: o.shape, base64: toBase64(o.bytes) })),
  };
}

/**
 * The input bytes as the typed array of the model's input type. LiteRT.js 2.5.3 tensors take
 * float32 / int32 / uint8 only; an int8 input is still handed over, so that the refusal recorded is
 * LiteRT.js's own.
 */
function typedInput(dtype: string, bytes: Uint8Array): TypedArray {
  const buffer = new ArrayBuffer(bytes.length);
  new Uint8Array(buffer).set(bytes);
  const views: Record<string, () => ArrayBufferView> = {
    float32: () => new Float32Array(buffer),
    int32: () => new Int32Array(buffer),
    uint8: () => new Uint8Array(buffer),
    int8: () => new Int8Array(buffer),
  };
  const make = views[dtype];
  if (!make) throw new Error(`LiteRT.js: input dtype ${dtype} is not handled by this benchmark`);
  return make() as unknown as TypedArray;
}

// --- tfjs-tflite ---------------------------------------------------------------------------------

async function tflite(model: Uint8Array, input: Uint8Array): Promise<Runner> {
  const { getWasmFeatures, loadTFLiteModel, setWasmPath } = await import('@tensorflow/tfjs-tflite');
  setWasmPath('./tflite/');
  const features = await getWasmFeatures();
  // tfjs-tflite loads its wasm inside the first model load: init is part of loadMs.
  const t1 = performance.now();
  const wrapped = await loadTFLiteModel(model.slice().buffer, { numThreads: 1 });
  const loadMs = performance.now() - t1;
  // Timed through the model's TFLiteWebModelRunner (what TFLiteModel.predict calls), without
  // predict()'s conversion to and from tfjs tensors, so the runtime itself is measured.
  const runner = (wrapped as unknown as { modelRunner: TFLiteWebModelRunner }).modelRunner;
  const ins = runner.getInputs();
  const outs = runner.getOutputs();
  const first = ins[0];
  if (!first || ins.length !== 1 || first.data().byteLength !== input.length) {
    throw new Error(`tfjs-tflite: expected one input of ${String(input.length)} bytes`);
  }
  const target = new Uint8Array(first.data().buffer, first.data().byteOffset, input.length);
  let last: Uint8Array[] = [];
  return {
    detail: {
      build: features.simd ? 'tflite_web_api_cc_simd (SIMD128)' : 'tflite_web_api_cc',
      simd: features.simd,
      multiThreadingSupported: features.multiThreading,
      threads: 1,
    },
    initMs: null,
    loadMs,
    infer: () => {
      target.set(input);
      if (!runner.infer()) throw new Error('tfjs-tflite: infer() failed');
      last = outs.map((o) => bytesOf(o.data()));
    },
    // Which kernels ran: the node types of one profiled invocation of a second instance (a
    // delegated graph shows up as one delegate node), after the timing so it cannot disturb it.
    afterTiming: async () => {
      const profiled = await loadTFLiteModel(model.slice().buffer, { numThreads: 1, enableProfiling: true });
      const r = (profiled as unknown as { modelRunner: TFLiteWebModelRunner }).modelRunner;
      const pin = r.getInputs()[0];
      if (pin) new Uint8Array(pin.data().buffer, pin.data().byteOffset, input.length).set(input);
      r.infer();
      const counts = new Map<string, number>();
      for (const item of r.getProfilingResults()) counts.set(item.nodeType, (counts.get(item.nodeType) ?? 0) + 1);
      r.cleanUp();
      return { profiledNodeTypes: [...counts].map(([t, n]) => `${t}×${String(n)}`).join(' ') };
    },
    outputs: () =>
      outs.map((o, i) => ({
        dtype: o.dataType,
        shape: o.shape.split(',').map(Number),
        base64: toBase64(last[i] ?? new Uint8Array()),
      })),
  };
}

// --- calibration ---------------------------------------------------------------------------------

/** Calibration of `samples` seeded random samples through the page's `Calibrator` (float engine, its own kernel set). */
async function calibrate(model: Uint8Array, samples: number): Promise<BenchResult> {
  const t0 = performance.now();
  const zp = await import('../www/pkg/simd/zeropoint.js');
  await zp.default();
  const initMs = performance.now() - t0;
  const t1 = performance.now();
  const cal = new zp.Calibrator(model);
  const loadMs = performance.now() - t1;
  const input = cal.inputs()[0];
  if (!input) throw new Error('calibrate: the model has no input');
  const n = input.shape.reduce((a, b) => a * b, 1);
  const data = Array.from({ length: samples }, (_, i) => zp.randomData(n, -1, 1, 1000 + i));
  const perSample: number[] = [];
  const t2 = performance.now();
  for (const x of data) {
    const s = performance.now();
    cal.setInput(0, x);
    cal.addSample();
    perSample.push(performance.now() - s);
  }
  const stats = cal.stats('minmax');
  const calibrateMs = performance.now() - t2;
  // Quantize as the page does: the statistics JSON (what the worker keeps and re-sends) → int8.
  const t3 = performance.now();
  const q = zp.quantizeModel(model, zp.statsJson(stats), { mode: 'int8', io: 'int8', per_tensor: false, float_ops: [] });
  const quantizeMs = performance.now() - t3;
  const quantizedBytes = q.size();
  const totalMs = performance.now() - t2;
  // What the page's worker does next for the report: the errors on the first calibration samples.
  const t4 = performance.now();
  const measured = cal.measureErrors(model, q);
  const errorsMs = performance.now() - t4;
  const errorSamples = q.report().error_samples ?? 0;
  q.free();
  if (!measured) throw new Error('measureErrors did not recognise the calibrated model');
  return {
    ok: true,
    runtime: 'calibrate',
    detail: {
      build: 'www/pkg/simd (SIMD128)',
      samples,
      method: 'minmax',
      calibrateMs,
      quantizeMs,
      quantizedBytes,
      errorsMs,
      errorSamples,
      totalMs,
      statsTensors: stats.tensors.length,
    },
    initMs,
    loadMs,
    firstMs: perSample[0] ?? 0,
    samplesMs: perSample,
    reps: 1,
    outputs: [],
  };
}

/**
 * Calibrate + quantize `samples` seeded random samples the way the page's engine worker does it,
 * on `workers` workers: `calibrateParallel`, this page recording the first slice and `workers − 1`
 * Web Workers (each its own wasm instance) the others, merged exactly; then quantize. With one
 * worker it is the page's single-worker path on the same samples, for the 1-vs-2 comparison.
 */
async function calibrateWorkers(model: Uint8Array, samples: number, workers: number, pool: boolean): Promise<BenchResult> {
  const { calibrateParallel } = await import('../www/src/calibration/parallel');
  const { SliceWorkers } = await import('../www/src/calibration/slice-client');
  const { loadEngine } = await import('../www/src/engine/loader');
  const { warmSlice, warmUp } = await import('../www/src/calibration/warm');
  const t0 = performance.now();
  // As the page's engine worker loads it: the SIMD128 build, compiled once and sent to the helpers.
  const { api: zp, module } = await loadEngine('simd');
  const initMs = performance.now() - t0;
  const helpers = new SliceWorkers('simd', module);
  // As the page's engine worker does when a model is loaded (before Calibrate is pressed): the
  // helpers start and load their wasm; the timed runs below take them from the pool.
  // The page has them loaded by the time a person presses Calibrate. `pool=0`: the helpers
  // before the pool, started by each calibration and ended after it.
  if (pool && workers > 1) await helpers.prewarm(workers - 1, warmSlice(model));
  // ... and its own instance calibrates and quantizes the same few samples (calibration/warm.ts).
  if (pool) await warmUp(zp, model);
  // Twice in the same page: the first run is the page's first calibration (after the warm-ups a
  // model load starts; code V8 may still be tiering up), the second is a user calibrating again
  // (helpers get the compiled module, whose optimized code V8 shares between workers).
  const runs = [];
  for (let round = 0; round < 2; round++) {
    const t2 = performance.now();
    const outcome = await calibrateParallel(
      model,
      { source: { kind: 'random', count: samples, lo: -1, hi: 1, seed: 1000 }, method: { kind: 'minmax' } },
      {
        engine: zp,
        decodeImage: () => Promise.reject(new Error('no images in the bench')),
        onProgress: () => undefined,
        isCancelled: () => false,
        workers,
        runSlice: (slice, onProgress) => helpers.run(slice, onProgress),
        stop: () => {
          helpers.stop();
        },
      },
    );
    const calibrateMs = performance.now() - t2;
    if (!pool) helpers.close();
    const { stats, calibrator } = outcome;
    if (!stats || !calibrator) throw new Error('calibrate-workers: the calibration did not finish');
    const t3 = performance.now();
    const q = zp.quantizeModel(model, zp.statsJson(stats), { mode: 'int8', io: 'int8', per_tensor: false, float_ops: [] });
    const quantizeMs = performance.now() - t3;
    const totalMs = performance.now() - t2;
    const quantizedBytes = q.size();
    q.free();
    calibrator.free();
    runs.push({ calibrateMs, quantizeMs, totalMs, quantizedBytes });
  }
  helpers.close();
  const [cold, warm] = runs;
  if (!cold || !warm) throw new Error('calibrate-workers: missing run');
  return {
    ok: true,
    runtime: 'calibrate-workers',
    detail: {
      build: 'www/pkg/simd (SIMD128)',
      samples,
      workers,
      pool,
      method: 'minmax',
      calibrateMs: cold.calibrateMs,
      quantizeMs: cold.quantizeMs,
      quantizedBytes: cold.quantizedBytes,
      totalMs: cold.totalMs,
      warmCalibrateMs: warm.calibrateMs,
      warmQuantizeMs: warm.quantizeMs,
      warmTotalMs: warm.totalMs,
    },
    initMs,
    loadMs: 0,
    firstMs: 0,
    samplesMs: [cold.totalMs],
    reps: 1,
    outputs: [],
  };
}

// --- driver --------------------------------------------------------------------------------------

async function run(): Promise<BenchResult | undefined> {
  const runtime = param('runtime');
  const id = param('model');
  if (!/^[\w.-]+$/.test(id)) throw new Error(`bad model id '${id}'`);
  const model = await fetchBytes(`models/${id}.tflite`);
  if (runtime === 'calibrate') return calibrate(model, intParam('samples', 100));
  if (runtime === 'calibrate-workers') return calibrateWorkers(model, intParam('samples', 100), intParam('workers', 1), intParam('pool', 1) !== 0);
  const input = await fetchBytes(`inputs/${id}.bin`);
  const warmup = intParam('warmup', 5);
  const warmupMs = intParam('warmupMs', 2000);
  const iters = intParam('iters', 50);
  let runner: Runner;
  switch (runtime) {
    case 'zp-fast':
      runner = await zeropoint('fast', 'reference', model, input);
      break;
    case 'zp-xnnpack':
      runner = await zeropoint('fast', 'xnnpack', model, input);
      break;
    case 'zp-reference':
      runner = await zeropoint('reference', 'reference', model, input);
      break;
    case 'litert':
      runner = await litert(model, input);
      break;
    case 'tflite':
      runner = await tflite(model, input);
      break;
    default:
      throw new Error(`unknown runtime '${runtime}'`);
  }
  const firstMs = await time(runner.infer);
  // Warm up for at least `warmup` inferences and `warmupMs`: V8 first runs wasm in its baseline
  // compiler and recompiles a function with TurboFan (in the background) once it has run a while,
  // so a few inferences do not reach the steady speed; the same rule for every runtime.
  let warmupRuns = 0;
  const w0 = performance.now();
  while (warmupRuns < warmup || performance.now() - w0 < warmupMs) {
    await once(runner.infer);
    warmupRuns++;
  }
  const warmupMeanMs = (performance.now() - w0) / Math.max(1, warmupRuns);
  // How many back-to-back inferences last MIN_SAMPLE_MS (counted over PROBE_MS, not derived from
  // one coarse reading).
  let probeRuns = 0;
  const p0 = performance.now();
  while (performance.now() - p0 < PROBE_MS) {
    await once(runner.infer);
    probeRuns++;
  }
  const perRun = (performance.now() - p0) / probeRuns;
  const reps = Math.max(1, Math.ceil(MIN_SAMPLE_MS / perRun));
  const samplesMs: number[] = [];
  const sample = async (count: number): Promise<void> => {
    for (let i = 0; i < count; i++) {
      const t0 = performance.now();
      for (let r = 0; r < reps; r++) await once(runner.infer);
      samplesMs.push((performance.now() - t0) / reps);
    }
  };
  const finish = async (): Promise<BenchResult> => {
    const after = runner.afterTiming ? await runner.afterTiming() : {};
    const result: BenchResult = {
      ok: true,
      runtime,
      detail: { ...runner.detail, ...after },
      initMs: runner.initMs,
      loadMs: runner.loadMs,
      firstMs,
      samplesMs,
      reps,
      warmupRuns,
      warmupMeanMs,
      outputs: runner.outputs(),
    };
    if (runner.macs !== undefined) result.macs = runner.macs;
    return result;
  };
  if (params.get('interleave') === '1') {
    window.benchControl = { sample, finish };
    return undefined;
  }
  await sample(iters);
  return finish();
}

run()
  .catch((error: unknown): BenchResult => ({
    ok: false,
    error: error instanceof Error ? error.message : String(error),
    runtime: params.get('runtime') ?? '',
    detail: {},
    initMs: null,
    loadMs: 0,
    firstMs: 0,
    samplesMs: [],
    reps: 0,
    outputs: [],
  }))
  .then((result) => {
    if (!result) {
      if (status) status.textContent = 'warm: waiting for the driver (interleaved)';
      return;
    }
    window.benchResult = result;
    if (status) status.textContent = JSON.stringify({ ...result, outputs: `${String(result.outputs.length)} outputs` }, null, 2);
  })
  .catch(() => undefined);
