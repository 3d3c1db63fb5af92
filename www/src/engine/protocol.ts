/**
 * Messages between the page (main thread) and the engine worker.
 *
 * Every request carries a numeric `id`; the worker answers each request with exactly one
 * response carrying the same `id`: either the matching success type or `error`.
 * The worker is stateless apart from the loaded wasm module (and the last calibrator, for
 * method changes): requests carry the model bytes, calibration statistics and settings, so a
 * restarted worker can serve the next request without replaying history.
 */
import type { CalibrationConfig, CalibrationSource, CalibrationStats, SignatureCalibration } from '../calibration/types';
import type { Progress } from '../calibration/progress';
import type { WorkerLimits } from '../limits';
import type { Arithmetic, InputShapes, IoInfo, ModelSummary, MultiplierSteps, QuantSteps, QuantizeSettings, Report, TensorComparison, UnrunnableOp } from './types';

/** One input sample for a run or a comparison: sample `index` of a calibration-style source. */
export interface SampleSpec {
  source: CalibrationSource;
  index: number;
}

/** One output of a run, as real numbers (integer outputs dequantized). */
export interface RunOutput {
  name: string;
  shape: number[];
  /** The model's element type (`FLOAT32`, `INT8`, …). */
  dtype: string;
  values: Float32Array;
}

/** What one model did on one sample. */
export interface RunResult {
  inputs: IoInfo[];
  outputs: RunOutput[];
  /**
   * Milliseconds per `invoke()` of each timed run (performance.now() in the worker; a run is a
   * batch of `batch` calls when one call is too short for the timer: compare/timing.ts).
   */
  timesMs: number[];
  /** The first call alone. */
  firstMs: number;
  /** Calls per timed run. */
  batch: number;
}

/**
 * Where a `stream` frame starts from: the state the model's kept runner has (`continue`), that
 * state reset to a fresh model's (`reset`, Runner.resetState), or the model loaded anew (`load`:
 * another model, or the first frame).
 */
export type StreamStart = 'continue' | 'reset' | 'load';

/** What one frame of a stream gave. */
export interface StreamResult {
  outputs: RunOutput[];
  /** Frames run since the state was fresh (1 for the first). */
  frame: number;
}

/** A quantized model and everything the page offers for download. */
export interface QuantizeResult {
  bytes: Uint8Array;
  summary: ModelSummary;
  report: Report;
  /** The report as `zeropoint quantize --report` writes it. */
  reportJson: string;
  /** The statistics the model was quantized from, as `zeropoint calibrate` writes them. */
  statsJson: string | undefined;
  warnings: string[];
  elapsedMs: number;
}

/**
 * `zeropoint quantize --auto` in the page: the float model calibrated again on `config`'s
 * samples (one calibrator keeping every sample, as the CLI's `--data`), then the search.
 */
export interface AutoRequest {
  // Progress messages: the calibration's (`done` of `total` samples), then one per candidate
  // model scored, `done` counting them with `total` 0 (the search has no fixed end).
  config: CalibrationConfig;
  /** Move operators to int16 until the output SQNR reaches this (`--target-sqnr`). */
  targetSqnrDb?: number | undefined;
  /** Move operators until the top-1 accuracy is at most this many points below float's (`--target-accuracy-drop`). */
  targetAccuracyDrop?: number | undefined;
  /** One class per calibration sample (`--labels`), with `targetAccuracyDrop`. */
  labels?: number[] | undefined;
  /** The output whose largest element is the class (`--label-output`; 0 when absent). */
  labelOutput?: number | undefined;
  /** Most candidate models scored (the CLI's default when absent). */
  budget?: number | undefined;
  /** Stop searching after about this many seconds (`--auto-time-limit`; none when absent). */
  timeLimit?: number | undefined;
  limits: WorkerLimits;
  shapes?: InputShapes | undefined;
}

/** One operator of a sensitivity ranking: the output SQNR with it alone moved by `fix`. */
export interface RankedLayer {
  index: number;
  /** `OP #i (output name)`. */
  label: string;
  fix: 'int16' | 'float';
  /** Output SQNR in dB over the scored samples (`Infinity` when exact). */
  sqnrDb: number;
}

/** Every candidate operator of a model ranked by the output SQNR it reaches alone, best first. */
export interface LayerRanking {
  /** Output SQNR in dB of the settings as given. */
  baseSqnrDb: number;
  /** Calibration samples scored on (the first ones). */
  samples: number;
  layers: RankedLayer[];
  /** Operators the quantizer would not move (e.g. no 16x8 kernel on its neighbours), and why. */
  refused: { label: string; reason: string }[];
}

/** Which wasm build the worker should load. */
export type EnginePreference = 'auto' | 'relaxed' | 'simd' | 'nosimd';

/** What the worker reports once the wasm module is instantiated. */
export interface EngineInfo {
  version: string;
  simd: boolean;
  /** The build that was loaded: `relaxed`, `simd` or `nosimd` (directory under www/pkg). */
  build: 'relaxed' | 'simd' | 'nosimd';
  /** Whether this browser validated the SIMD probe module. */
  simdSupported: boolean;
  /**
   * How the loaded build's int8 convolutions use the relaxed dot product (the engine's
   * `relaxedDotScheme()`): `unsigned` / `signed` (one dot product per 16 products), `split`
   * (two, exact everywhere), `none` (not a relaxed build).
   */
  dotScheme: string;
}

export type WorkerRequest =
  | { type: 'init'; id: number; prefer: EnginePreference }
  /** The model-size limit, checked before a file is read. */
  | { type: 'check-size'; id: number; name: string; size: number; limits: WorkerLimits }
  /**
   * Read the model and summarise it, then prepare the engine for it with `limits`: the summary
   * says `cannotRun` (the engine's message) when it reads but cannot run.
   */
  | { type: 'inspect'; id: number; name: string; bytes: Uint8Array; limits: WorkerLimits }
  | { type: 'rewrite'; id: number; bytes: Uint8Array; externalBuffers: boolean }
  /**
   * Calibrate the model sample by sample; `progress` messages with this id follow until the one
   * `calibrated` (or `error`) response. The worker keeps the last finished calibrator (one per
   * signature, for `config.signatures`: each signature calibrated in turn on its own samples)
   * for `calibration-stats` requests (a failed or cancelled run leaves them in place).
   */
  | { type: 'calibrate'; id: number; bytes: Uint8Array; config: CalibrationConfig; limits: WorkerLimits; shapes?: InputShapes | undefined }
  /** Stop the calibration started by request `target` between two samples. */
  | { type: 'cancel'; id: number; target: number }
  /** The last finished calibration's statistics (each signature's) with another range-selection method. */
  | { type: 'calibration-stats'; id: number; method: string }
  /** The steps from a range to scale and zero point, as the quantizer computes them. */
  | { type: 'quant-params'; id: number; min: number; max: number; dtype: 'int8' | 'int16' }
  /** Requantization multipliers `s_in · s_w[c] / s_out`, split into Q31 mantissa and shift. */
  | { type: 'requant'; id: number; inputScale: number; weightScales: number[]; outputScale: number }
  /** Per-channel int8 scales the quantizer would give a float weight tensor of `bytes`. */
  | { type: 'weight-scales'; id: number; bytes: Uint8Array; tensor: number; axis: number }
  /**
   * Quantize the float model `bytes` from `stats` (absent for dynamic / float16) with the CLI's
   * options: the same library call as `zeropoint quantize --stats`. A model with several
   * signatures is quantized from `signatures` instead (each signature's statistics, as the file
   * `zeropoint calibrate --signature-data` writes).
   */
  | { type: 'quantize'; id: number; bytes: Uint8Array; stats: CalibrationStats | undefined; signatures?: SignatureCalibration[] | undefined; settings: QuantizeSettings; auto?: AutoRequest | undefined }
  /**
   * Each operator's output SQNR with it alone moved to int16 (float where it has no 16x8
   * kernel), quantized from `stats` and `settings` otherwise, measured on the first samples of
   * the last calibration in this worker (which must be of this model); `progress` messages with
   * this id (`done` of `total` operators) precede the `ranked` response.
   */
  | { type: 'rank-layers'; id: number; bytes: Uint8Array; stats: CalibrationStats; settings: QuantizeSettings }
  /** The statistics as `zeropoint calibrate` writes them (the JSON `--stats` reads). */
  | { type: 'stats-json'; id: number; stats: CalibrationStats }
  /** Run a model on one sample `runs` times; outputs of the last run. `shapes` (here, in
   * `calibrate` and in `compare`): the input shapes of a model with dynamic dims. `signature`
   * (here, in `stream` and in `compare`): the signature key to run instead of subgraph 0 (its
   * inputs and outputs, in its order, named by its keys). `arithmetic` (here and in `stream`: of
   * the model run; in `compare`: of the quantized model): the integer arithmetic whose bits the
   * run reproduces, `reference` when absent. */
  | { type: 'run'; id: number; bytes: Uint8Array; sample: SampleSpec; runs: number; limits: WorkerLimits; shapes?: InputShapes | undefined; signature?: string | undefined; arithmetic?: Arithmetic | undefined }
  /**
   * One frame of a stream: sample `sample` through the runner the worker keeps for `key` (the
   * page's float or quantized model), so a model with resource variables carries its state from
   * one frame to the next, as `zeropoint run` does over the samples of a file.
   */
  | { type: 'stream'; id: number; key: string; bytes: Uint8Array; sample: SampleSpec; start: StreamStart; limits: WorkerLimits; shapes?: InputShapes | undefined; signature?: string | undefined; arithmetic?: Arithmetic | undefined }
  /** Float vs quantized on one sample, per tensor (as `zeropoint compare`). */
  | { type: 'compare'; id: number; float: Uint8Array; quant: Uint8Array; sample: SampleSpec; limits: WorkerLimits; shapes?: InputShapes | undefined; signature?: string | undefined; arithmetic?: Arithmetic | undefined }
  /** Test hook: make the worker die with an uncaught error, to exercise the restart path. */
  | { type: 'crash'; id: number }
  /** Test hook: make the engine panic (a wasm trap), to exercise crash recovery. */
  | { type: 'debug-panic'; id: number; message: string };

export type WorkerResponse =
  | { type: 'ready'; id: number; engine: EngineInfo }
  | { type: 'size-ok'; id: number }
  | {
      type: 'summary';
      id: number;
      name: string;
      size: number;
      summary: ModelSummary;
      /** Why the engine cannot run this model (it can still be inspected); absent if it can. */
      cannotRun: string | undefined;
      /** The operators the engine cannot run, all of them (marked on the graph). */
      cannotRunOps: UnrunnableOp[];
      /** Whether the model keeps state between calls (resource variables: Runner.isStateful). */
      stateful: boolean;
    }
  | { type: 'rewritten'; id: number; bytes: Uint8Array }
  /** Not a final answer: zero or more precede the `calibrated` response to a `calibrate`. */
  | ({ type: 'progress'; id: number } & Progress)
  | {
      type: 'calibrated';
      id: number;
      status: 'done' | 'cancelled';
      samples: number;
      elapsedMs: number;
      /** Only when status is `done` (the first signature's, for a calibration by signature). */
      stats: CalibrationStats | undefined;
      /** Each signature's statistics, for a calibration by signature that is `done`. */
      signatures?: SignatureCalibration[] | undefined;
    }
  | { type: 'cancel-ack'; id: number; found: boolean }
  | { type: 'calibration-stats'; id: number; stats: CalibrationStats; signatures?: SignatureCalibration[] | undefined }
  | { type: 'quant-params'; id: number; steps: QuantSteps }
  | { type: 'requant'; id: number; steps: MultiplierSteps[] }
  | { type: 'weight-scales'; id: number; scales: number[] }
  | ({ type: 'quantized'; id: number } & QuantizeResult)
  | { type: 'ranked'; id: number; ranking: LayerRanking }
  | { type: 'stats-json'; id: number; json: string }
  | ({ type: 'ran'; id: number } & RunResult)
  | ({ type: 'streamed'; id: number } & StreamResult)
  | { type: 'compared'; id: number; tensors: TensorComparison[] }
  | {
      type: 'error';
      id: number;
      message: string;
      /** The wasm instance may be unusable (trap/panic): the page should restart the worker. */
      fatal: boolean;
    };

/** Request types, and the success response each one expects. */
export interface ResponseFor {
  init: Extract<WorkerResponse, { type: 'ready' }>;
  'check-size': Extract<WorkerResponse, { type: 'size-ok' }>;
  inspect: Extract<WorkerResponse, { type: 'summary' }>;
  rewrite: Extract<WorkerResponse, { type: 'rewritten' }>;
  calibrate: Extract<WorkerResponse, { type: 'calibrated' }>;
  cancel: Extract<WorkerResponse, { type: 'cancel-ack' }>;
  'calibration-stats': Extract<WorkerResponse, { type: 'calibration-stats' }>;
  'quant-params': Extract<WorkerResponse, { type: 'quant-params' }>;
  requant: Extract<WorkerResponse, { type: 'requant' }>;
  'weight-scales': Extract<WorkerResponse, { type: 'weight-scales' }>;
  quantize: Extract<WorkerResponse, { type: 'quantized' }>;
  'rank-layers': Extract<WorkerResponse, { type: 'ranked' }>;
  'stats-json': Extract<WorkerResponse, { type: 'stats-json' }>;
  run: Extract<WorkerResponse, { type: 'ran' }>;
  stream: Extract<WorkerResponse, { type: 'streamed' }>;
  compare: Extract<WorkerResponse, { type: 'compared' }>;
  crash: never;
  'debug-panic': never;
}

export type RequestType = WorkerRequest['type'];

/** A request without its id (the client assigns ids). */
export type RequestBody<T extends RequestType> = Omit<Extract<WorkerRequest, { type: T }>, 'id'>;

const RESPONSE_TYPES: ReadonlySet<string> = new Set([
  'ready',
  'size-ok',
  'summary',
  'rewritten',
  'progress',
  'calibrated',
  'cancel-ack',
  'calibration-stats',
  'quant-params',
  'requant',
  'weight-scales',
  'quantized',
  'ranked',
  'stats-json',
  'ran',
  'streamed',
  'compared',
  'error',
]);

/** Structural check of a message coming from the worker (it crosses a trust boundary of sorts). */
export function isWorkerResponse(value: unknown): value is WorkerResponse {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as { type?: unknown; id?: unknown };
  return typeof v.type === 'string' && RESPONSE_TYPES.has(v.type) && typeof v.id === 'number';
}

/** Turn anything thrown into a readable message (wasm-bindgen throws `Error`s; be lenient). */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  if (typeof error === 'string') return error;
  try {
    // JSON.stringify gives undefined (despite its declared type) for undefined and functions.
    const json = JSON.stringify(error) as string | undefined;
    return json ?? String(error);
  } catch {
    return String(error);
  }
}

/**
 * The message of a Rust panic from what console_error_panic_hook logged (`panicked at
 * FILE:LINE:COL:\nMESSAGE\n\nStack: …`): `MESSAGE (at FILE:LINE:COL)`, or undefined if the text
 * is not a panic report.
 */
export function panicMessage(logged: string): string | undefined {
  const lines = logged.split('\n');
  const head = lines.findIndex((line) => line.startsWith('panicked at '));
  if (head < 0) return undefined;
  const at = lines[head]?.slice('panicked at '.length).replace(/:$/, '') ?? '';
  const body: string[] = [];
  for (const line of lines.slice(head + 1)) {
    if (line.trim() === '' || line.startsWith('Stack:')) break;
    body.push(line.trim());
  }
  const message = body.join(' ');
  return message ? `${message} (at ${at})` : `panic at ${at}`;
}
