/**
 * The engine worker: all model work runs here, off the page's UI thread.
 *
 * It loads the wasm engine on `init`, then answers `check-size` / `inspect` / `rewrite` /
 * `calibrate` / `quantize` (also `--auto`) / `rank-layers` / `run` / `stream` / `compare` requests (see engine/protocol.ts); those that read
 * or prepare a model carry the user's limits, and `inspect` also prepares the model to say at
 * once whether it can run. A calibration yields to the
 * message loop between samples, so a `cancel` (or any other request) is handled while it runs.
 * Errors thrown by the engine become `error` responses with the engine's message; a wasm trap (a
 * Rust panic) is reported as fatal, with the panic's message, so the page restarts us.
 */
import { decodeImage } from './calibration/decode';
import { calibrateParallel, workerCount, type SliceEngine } from './calibration/parallel';
import type { Progress } from './calibration/progress';
import { calibrate, sampleSource, type CalibrationEngine } from './calibration/run';
import { SliceWorkers } from './calibration/slice-client';
import { type CalibrationConfig, type CalibrationStats, type CalibratorLike } from './calibration/types';
import { WARM_MODEL_BYTES, warmSlice, warmUp } from './calibration/warm';
import { timeInvokes } from './compare/timing';
import { autoQuantize, rankerCalibrator, rankLayers } from './quantize/beyond';
import { loadEngine, type EngineModule, type LoadedEngine } from './engine/loader';
import type { Arithmetic, InputShapes } from './engine/types';
import type { WorkerLimits } from './limits';
import type { UnrunnableOp } from './engine/types';
import {
  errorMessage,
  panicMessage,
  type RunOutput,
  type RunResult,
  type SampleSpec,
  type WorkerRequest,
  type WorkerResponse,
} from './engine/protocol';

/** The slice of DedicatedWorkerGlobalScope we use (the page's tsconfig has the DOM lib only). */
interface WorkerScope {
  postMessage(message: WorkerResponse, transfer: Transferable[]): void;
  addEventListener(type: 'message', listener: (event: MessageEvent<WorkerRequest>) => void): void;
}
const scope = self as unknown as WorkerScope;

let engine: Promise<LoadedEngine> | undefined;
/** Ids of calibrate requests in progress, and those asked to stop. */
const calibrating = new Set<number>();
const cancelled = new Set<number>();
/**
 * The last finished calibration, for `calibration-stats` (replaced when the next one finishes):
 * one calibrator, or one per signature (`key`) of a model calibrated by signature.
 */
let lastCalibrators: { key: string | undefined; calibrator: CalibratorLike }[] = [];

/** Frees the kept calibrators and keeps `next` instead. */
function keepCalibrators(next: { key: string | undefined; calibrator: CalibratorLike }[]): void {
  for (const c of lastCalibrators) c.calibrator.free();
  lastCalibrators = next;
}

/** The last Rust panic console_error_panic_hook reported (its message names what failed). */
let lastPanic: string | undefined;
const consoleError = console.error.bind(console);
console.error = (...args: unknown[]): void => {
  const found = panicMessage(args.map((a) => (typeof a === 'string' ? a : errorMessage(a))).join(' '));
  if (found) lastPanic = found;
  consoleError(...args);
};

/**
 * The runners `stream` requests keep, one per page key (the float and the quantized model), each
 * with the frames it ran since its state was fresh: a model with resource variables carries its
 * state from one frame to the next.
 */
const streams = new Map<string, { runner: InstanceType<EngineModule['Runner']>; frames: number; arithmetic: Arithmetic | undefined }>();

/** Longest series of timed runs one request may ask for. */
const MAX_RUNS = 100;

/** Float values of one sample, one array per input of `inputs`. */
async function resolveSample(
  api: EngineModule,
  inputs: { name: string; shape: number[]; dtype: string }[],
  sample: SampleSpec,
  limits: WorkerLimits,
): Promise<Float32Array[]> {
  const source = await sampleSource(inputs, sample.source, api.randomData, decodeImage, limits.maxCalibrationSamples);
  if (!Number.isInteger(sample.index) || sample.index < 0 || sample.index >= source.total) {
    throw new Error(`sample ${String(sample.index)} does not exist: the source has ${source.total.toLocaleString('en-US')} (0 to ${String(source.total - 1)})`);
  }
  return source.sample(sample.index);
}

async function runModel(
  api: EngineModule,
  bytes: Uint8Array,
  sample: SampleSpec,
  runs: number,
  limits: WorkerLimits,
  shapes: InputShapes | undefined,
  signature: string | undefined,
  arithmetic: Arithmetic | undefined,
): Promise<RunResult> {
  if (!Number.isInteger(runs) || runs < 1 || runs > MAX_RUNS) throw new Error(`runs must be a whole number from 1 to ${String(MAX_RUNS)}`);
  // The fast kernel set where an op has one (same bits as the reference kernels in either arithmetic).
  const runner = new api.Runner(bytes, 'fast', limits.engine, shapes, signature, arithmetic);
  try {
    const inputs = runner.inputs();
    const data = await resolveSample(api, inputs, sample, limits);
    data.forEach((values, k) => {
      runner.setInput(k, values);
    });
    const { firstMs, timesMs, batch } = timeInvokes(
      () => {
        runner.invoke();
      },
      () => performance.now(),
      runs,
    );
    const outputs: RunOutput[] = runner.outputs().map((o, k) => ({ name: o.name, shape: o.shape, dtype: o.dtype, values: runner.outputFloat(k) }));
    return { inputs, outputs, timesMs, firstMs, batch };
  } finally {
    runner.free();
  }
}

function requireEngine(): Promise<LoadedEngine> {
  if (!engine) throw new Error('engine not initialised (no init request yet)');
  return engine;
}

/** Workers a calibration uses here, this one included (1 where workers cannot be started). */
function calibrationWorkers(): number {
  return typeof Worker === 'undefined' ? 1 : workerCount(navigator.hardwareConcurrency, Number.POSITIVE_INFINITY);
}

/** The calibration helpers, kept between calibrations (slice-client.ts), for the loaded engine. */
let helperPool: SliceWorkers | undefined;
function helpers({ info, module }: LoadedEngine): SliceWorkers {
  helperPool ??= new SliceWorkers(info.build, module);
  return helperPool;
}

/** A trap of a warm-up (`warmUp`): the instance is dead, and the next request says so, fatally. */
let warmTrap: WebAssembly.RuntimeError | undefined;

async function handle(request: WorkerRequest): Promise<[WorkerResponse, Transferable[]]> {
  if (warmTrap) throw warmTrap;
  switch (request.type) {
    case 'init': {
      engine ??= loadEngine(request.prefer);
      const { info } = await engine;
      return [{ type: 'ready', id: request.id, engine: info }, []];
    }
    case 'check-size': {
      const { api } = await requireEngine();
      api.checkModelSize(request.name, request.size, request.limits.maxModelBytes);
      return [{ type: 'size-ok', id: request.id }, []];
    }
    case 'inspect': {
      const loaded = await requireEngine();
      const { api } = loaded;
      // A model to calibrate soon: its helpers start loading now, not when Calibrate is pressed.
      if (calibrationWorkers() > 1) void helpers(loaded).prewarm(calibrationWorkers() - 1, warmSlice(request.bytes, request.limits.engine));
      api.checkModelSize(request.name, request.bytes.byteLength, request.limits.maxModelBytes);
      const summary = api.inspectModel(request.bytes);
      // Prepare it as every run would: a model that reads but cannot run is said so now.
      let cannotRun: string | undefined;
      let cannotRunOps: UnrunnableOp[] = [];
      let stateful = false;
      try {
        const check = api.checkModel(request.bytes, request.limits.engine);
        cannotRun = check.cannot_run;
        cannotRunOps = check.ops;
        if (cannotRun === undefined) {
          const runner = new api.Runner(request.bytes, undefined, request.limits.engine);
          try {
            stateful = runner.isStateful;
          } finally {
            runner.free();
          }
        }
      } catch (error) {
        if (error instanceof WebAssembly.RuntimeError) throw error; // a trap: fatal
        cannotRun = errorMessage(error);
      }
      // Once the summary is out: this instance calibrates and quantizes a few random samples of
      // a model that runs, discarded, so the person's first calibration runs optimized code
      // (warm.ts). An error here is met again, and reported, by their own calibration; a trap
      // (the instance is dead) is the next request's fatal error.
      if (cannotRun === undefined && request.bytes.byteLength <= WARM_MODEL_BYTES) {
        const { bytes, limits } = request;
        setTimeout(() => {
          warmUp(api, bytes, limits.engine).catch((error: unknown) => {
            if (error instanceof WebAssembly.RuntimeError) warmTrap = error;
          });
        }, 0);
      }
      return [
        { type: 'summary', id: request.id, name: request.name, size: request.bytes.byteLength, summary, cannotRun, cannotRunOps, stateful },
        [],
      ];
    }
    case 'rewrite': {
      const { api } = await requireEngine();
      const bytes = api.rewriteModel(request.bytes, request.externalBuffers);
      return [{ type: 'rewritten', id: request.id, bytes }, [bytes.buffer]];
    }
    case 'calibrate': {
      const loaded = await requireEngine();
      const { api } = loaded;
      calibrating.add(request.id);
      // Split across Web Workers (each its own wasm instance) where workers can be started here;
      // one worker otherwise (calibrateParallel also falls back to it for stateful models).
      const workers = calibrationWorkers();
      const pool = helpers(loaded);
      // One calibration, or one per signature in turn (each on its own samples), as
      // `zeropoint calibrate --signature-data` does; all are kept only if every one finishes.
      const parts: { key: string | undefined; config: CalibrationConfig }[] = request.config.signatures
        ? request.config.signatures.map((s) => ({ key: s.key, config: { source: s.source, method: request.config.method, tfCaches: request.config.tfCaches } }))
        : [{ key: undefined, config: request.config }];
      const done: { key: string | undefined; calibrator: CalibratorLike; stats: CalibrationStats }[] = [];
      try {
        let samples = 0;
        let elapsedMs = 0;
        for (const part of parts) {
          const env = {
            engine: api satisfies CalibrationEngine,
            decodeImage,
            onProgress: (progress: Progress) => {
              scope.postMessage({ type: 'progress', id: request.id, ...progress }, []);
            },
            isCancelled: () => cancelled.has(request.id),
            limits: request.limits.engine,
            shapes: request.shapes,
            signature: part.key,
            maxSamples: request.limits.maxCalibrationSamples,
          };
          const run =
            workers > 1
              ? calibrateParallel(request.bytes, part.config, {
                  ...env,
                  engine: api satisfies SliceEngine,
                  workers,
                  runSlice: (slice, onProgress) => pool.run(slice, onProgress),
                  stop: () => {
                    pool.stop();
                  },
                })
              : calibrate(request.bytes, part.config, env);
          // A signature's error names it (a trap stays a trap: fatal).
          const outcome = await run.catch((error: unknown) => {
            if (part.key === undefined || error instanceof WebAssembly.RuntimeError) throw error;
            throw new Error(`signature '${part.key}': ${errorMessage(error)}`, { cause: error });
          });
          samples += outcome.samples;
          elapsedMs += outcome.elapsedMs;
          if (outcome.status === 'cancelled' || !outcome.calibrator || !outcome.stats) {
            return [{ type: 'calibrated', id: request.id, status: 'cancelled', samples, elapsedMs, stats: undefined }, []];
          }
          done.push({ key: part.key, calibrator: outcome.calibrator, stats: outcome.stats });
        }
        const results = done.map(({ key, stats }) => ({ key, stats }));
        keepCalibrators(done.map(({ key, calibrator }) => ({ key, calibrator })));
        done.length = 0; // kept: not freed below
        const signatures = request.config.signatures ? results.flatMap(({ key, stats }) => (key === undefined ? [] : [{ key, stats }])) : undefined;
        return [{ type: 'calibrated', id: request.id, status: 'done', samples, elapsedMs, stats: results[0]?.stats, signatures }, []];
      } finally {
        for (const d of done) d.calibrator.free();
        pool.stop(); // helpers still running (cancel, error); finished ones wait for the next run
        calibrating.delete(request.id);
        cancelled.delete(request.id);
      }
    }
    case 'cancel': {
      const found = calibrating.has(request.target);
      if (found) cancelled.add(request.target);
      return [{ type: 'cancel-ack', id: request.id, found }, []];
    }
    case 'calibration-stats': {
      const all = lastCalibrators.map(({ key, calibrator }) => ({ key, stats: calibrator.stats(request.method) }));
      const first = all[0];
      if (!first) throw new Error('no finished calibration in this engine: run Calibrate again');
      const signatures = first.key === undefined ? undefined : all.flatMap(({ key, stats }) => (key === undefined ? [] : [{ key, stats }]));
      return [{ type: 'calibration-stats', id: request.id, stats: first.stats, signatures }, []];
    }
    case 'quant-params': {
      const { api } = await requireEngine();
      return [{ type: 'quant-params', id: request.id, steps: api.quantParams(request.min, request.max, request.dtype) }, []];
    }
    case 'requant': {
      const { api } = await requireEngine();
      const steps = api.requantMultipliers(request.inputScale, Float32Array.from(request.weightScales), request.outputScale);
      return [{ type: 'requant', id: request.id, steps }, []];
    }
    case 'weight-scales': {
      const { api } = await requireEngine();
      const scales = Array.from(api.weightScales(request.bytes, request.tensor, request.axis));
      return [{ type: 'weight-scales', id: request.id, scales }, []];
    }
    case 'quantize': {
      const { api } = await requireEngine();
      const started = performance.now();
      // Several signatures: each signature's statistics (the statistics download is the
      // per-signature file `zeropoint calibrate --signature-data` writes).
      const statsJson = request.signatures ? api.signatureStatsJson(request.signatures) : request.stats ? api.statsJson(request.stats) : undefined;
      const q = request.auto
        ? await autoQuantize(api, request.bytes, request.settings, request.auto, {
            decodeImage,
            onProgress: (progress) => {
              scope.postMessage({ type: 'progress', id: request.id, ...progress }, []);
            },
            // The search has no fixed end: its progress is the count scored, `total` 0.
            onScored: (scored) => {
              scope.postMessage({ type: 'progress', id: request.id, done: scored, total: 0, elapsedMs: performance.now() - started }, []);
            },
          })
        : request.signatures
          ? api.quantizeSignatures(request.bytes, request.signatures, request.settings)
          : api.quantizeModel(request.bytes, statsJson, request.settings);
      try {
        // The report's errors on the first calibration samples, as `zeropoint quantize --data
        // … --report` adds them (when the last calibration in this engine ran this model; a
        // calibration by signature measures none, as the CLI's --report refuses several;
        // --auto measured them on its own calibration).
        const [only, ...others] = lastCalibrators;
        if (!request.auto && only && others.length === 0) only.calibrator.measureErrors?.(request.bytes, q);
        const bytes = q.bytes();
        const response: WorkerResponse = {
          type: 'quantized',
          id: request.id,
          bytes,
          report: q.report(),
          reportJson: q.reportJson(),
          statsJson,
          warnings: q.warnings(),
          summary: api.inspectModel(bytes),
          elapsedMs: performance.now() - started,
        };
        return [response, [bytes.buffer]];
      } finally {
        q.free();
      }
    }
    case 'rank-layers': {
      const { api } = await requireEngine();
      // The last calibration's first samples (the report's errors are measured on the same).
      const calibrator = rankerCalibrator(lastCalibrators);
      if (!(calibrator instanceof api.Calibrator)) throw new Error('ranking layers: the last calibration was not made by this engine: calibrate again');
      const ranker = new api.LayerRanker(calibrator, request.bytes, api.statsJson(request.stats), request.settings);
      const ranking = await rankLayers(ranker, (progress) => {
        scope.postMessage({ type: 'progress', id: request.id, ...progress }, []);
      });
      return [{ type: 'ranked', id: request.id, ranking }, []];
    }
    case 'stats-json': {
      const { api } = await requireEngine();
      return [{ type: 'stats-json', id: request.id, json: api.statsJson(request.stats) }, []];
    }
    case 'run': {
      const { api } = await requireEngine();
      const result = await runModel(api, request.bytes, request.sample, request.runs, request.limits, request.shapes, request.signature, request.arithmetic);
      return [{ type: 'ran', id: request.id, ...result }, result.outputs.map((o) => o.values.buffer)];
    }
    case 'stream': {
      const { api } = await requireEngine();
      let kept = streams.get(request.key);
      // A runner of another arithmetic cannot go on: the stream starts again with a fresh state.
      if (!kept || request.start === 'load' || kept.arithmetic !== request.arithmetic) {
        kept?.runner.free();
        streams.delete(request.key);
        kept = { runner: new api.Runner(request.bytes, 'fast', request.limits.engine, request.shapes, request.signature, request.arithmetic), frames: 0, arithmetic: request.arithmetic };
        streams.set(request.key, kept);
      } else if (request.start === 'reset') {
        kept.runner.resetState();
        kept.frames = 0;
      }
      const { runner } = kept;
      const data = await resolveSample(api, runner.inputs(), request.sample, request.limits);
      data.forEach((values, k) => {
        runner.setInput(k, values);
      });
      runner.invoke();
      kept.frames += 1;
      const outputs: RunOutput[] = runner.outputs().map((o, k) => ({ name: o.name, shape: o.shape, dtype: o.dtype, values: runner.outputFloat(k) }));
      return [{ type: 'streamed', id: request.id, outputs, frame: kept.frames }, outputs.map((o) => o.values.buffer)];
    }
    case 'compare': {
      const { api } = await requireEngine();
      const runner = new api.Runner(request.float, undefined, request.limits.engine, request.shapes, request.signature);
      let inputs;
      try {
        inputs = runner.inputs();
      } finally {
        runner.free();
      }
      const data = await resolveSample(api, inputs, request.sample, request.limits);
      const joined = new Float32Array(data.reduce((n, a) => n + a.length, 0));
      let at = 0;
      for (const a of data) {
        joined.set(a, at);
        at += a.length;
      }
      return [{ type: 'compared', id: request.id, tensors: api.compareModels(request.float, request.quant, joined, request.limits.engine, request.shapes, request.signature, request.arithmetic) }, []];
    }
    case 'debug-panic': {
      const { api } = await requireEngine();
      api.debugPanic(request.message);
      throw new Error('debugPanic returned without panicking');
    }
    case 'crash': {
      setTimeout(() => {
        throw new Error('worker crash requested (test hook)');
      });
      return new Promise(() => undefined); // never answers: the worker dies first
    }
  }
}

scope.addEventListener('message', (event) => {
  const request = event.data;
  handle(request).then(
    ([response, transfer]) => {
      scope.postMessage(response, transfer);
    },
    (error: unknown) => {
      // A trap (RuntimeError: unreachable, out of bounds…) means Rust panicked or memory is
      // corrupt: the instance must not be reused.
      const fatal = error instanceof WebAssembly.RuntimeError;
      if (request.type === 'init') engine = undefined; // allow a retry
      const panic = fatal ? lastPanic : undefined;
      lastPanic = undefined;
      const message = panic ? `the engine panicked: ${panic}` : errorMessage(error);
      scope.postMessage({ type: 'error', id: request.id, message, fatal }, []);
    },
  );
});
