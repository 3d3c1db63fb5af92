/**
 * Main-thread side of the engine worker: typed request/response with ids, and restart on crash.
 *
 * If the worker dies (uncaught error, failed load) or reports a fatal error (a wasm trap),
 * every pending request is rejected, a fresh worker is started and initialised with the
 * same preference, and `onRestart` tells the page.
 */
import {
  errorMessage,
  isWorkerResponse,
  type EngineInfo,
  type EnginePreference,
  type QuantizeResult,
  type AutoRequest,
  type LayerRanking,
  type RequestBody,
  type RequestType,
  type ResponseFor,
  type RunResult,
  type StreamResult,
  type StreamStart,
  type SampleSpec,
  type WorkerRequest,
  type WorkerResponse,
} from './protocol';
import type { CalibrationConfig, CalibrationStats, SignatureCalibration } from '../calibration/types';
import { DEFAULT_LIMITS, workerLimits, type WorkerLimits } from '../limits';
import type { Progress } from '../calibration/progress';
import type { Arithmetic, InputShapes, ModelSummary, MultiplierSteps, QuantSteps, QuantizeSettings, TensorComparison, UnrunnableOp } from './types';

/** An error reported by the engine (e.g. a malformed model), as opposed to a dead worker. */
export class EngineError extends Error {
  override name = 'EngineError';
}

/** The worker died while a request was pending. */
export class WorkerCrashedError extends Error {
  override name = 'WorkerCrashedError';
}

/** A request the user stopped: the worker was replaced by a fresh one ([`EngineClient.interrupt`]). */
export class InterruptedError extends Error {
  override name = 'InterruptedError';
}

/** A worker that dies more often than this within the window is not restarted again. */
const MAX_RESTARTS_IN_WINDOW = 3;
const RESTART_WINDOW_MS = 10_000;

interface Pending {
  type: RequestType;
  resolve: (response: WorkerResponse) => void;
  reject: (error: Error) => void;
  /** For `calibrate`: called with each `progress` message. */
  onProgress?: (progress: Progress) => void;
}

/** The outcome of a calibration run. */
export interface CalibrationResult {
  status: 'done' | 'cancelled';
  samples: number;
  elapsedMs: number;
  stats: CalibrationStats | undefined;
  /** Each signature's statistics, for a calibration by signature that finished. */
  signatures?: SignatureCalibration[] | undefined;
}

/** A finished calibration's statistics with another method (and each signature's, if by signature). */
export interface RestatsResult {
  stats: CalibrationStats;
  signatures?: SignatureCalibration[] | undefined;
}

/** A running calibration: its result, and a way to stop it between two samples. */
export interface CalibrationRun {
  result: Promise<CalibrationResult>;
  cancel: () => void;
}

export interface EngineClientOptions {
  prefer: EnginePreference;
  /** Called after a crashed worker has been replaced (before it is initialised). */
  onRestart?: (reason: string) => void;
  /** Makes the worker; injectable for tests. */
  createWorker?: () => Worker;
}

function defaultWorker(): Worker {
  return new Worker(new URL('../worker.ts', import.meta.url), { type: 'module', name: 'zeropoint-engine' });
}

export class EngineClient {
  private worker: Worker;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly createWorker: () => Worker;
  private ready: Promise<EngineInfo> | undefined;
  private restarts = 0;
  private recentRestarts: number[] = [];
  /** Set when the worker crashed too often in a row: no more restarts, every request fails. */
  private gaveUp: string | undefined;
  /** The user's limits, sent with every request that reads or prepares a model. */
  private limits: WorkerLimits = workerLimits(DEFAULT_LIMITS);

  constructor(private readonly options: EngineClientOptions) {
    this.createWorker = options.createWorker ?? defaultWorker;
    this.worker = this.spawn();
  }

  /** How many times the worker has been restarted. */
  get restartCount(): number {
    return this.restarts;
  }

  /** Load the wasm engine (once per worker); resolves with the engine build's details. */
  init(): Promise<EngineInfo> {
    if (this.ready) return this.ready;
    const ready = this.request('init', { type: 'init', prefer: this.options.prefer }).then((r) => r.engine);
    this.ready = ready;
    // A failed init may be retried on the next call.
    ready.catch(() => {
      if (this.ready === ready) this.ready = undefined;
    });
    return ready;
  }

  /** Use these limits from the next request on. */
  setLimits(limits: WorkerLimits): void {
    this.limits = limits;
  }

  /** Rejects (with the library's message) a model file larger than the model-size limit. */
  async checkModelSize(name: string, size: number): Promise<void> {
    await this.init();
    await this.request('check-size', { type: 'check-size', name, size, limits: this.limits });
  }

  /**
   * Read and summarise a model, and try to prepare the engine for it: `cannotRun` is the
   * engine's reason when the model reads but cannot run (unsupported or invalid operators, a
   * tensor read before it is computed, a tensor over the limits), and `cannotRunOps` every
   * operator at fault.
   */
  async inspect(
    name: string,
    bytes: Uint8Array,
  ): Promise<{ summary: ModelSummary; size: number; cannotRun: string | undefined; cannotRunOps: UnrunnableOp[]; stateful: boolean }> {
    await this.init();
    const response = await this.request('inspect', { type: 'inspect', name, bytes, limits: this.limits });
    return { summary: response.summary, size: response.size, cannotRun: response.cannotRun, cannotRunOps: response.cannotRunOps, stateful: response.stateful };
  }

  async rewrite(bytes: Uint8Array, externalBuffers: boolean): Promise<Uint8Array> {
    await this.init();
    const response = await this.request('rewrite', { type: 'rewrite', bytes, externalBuffers });
    return response.bytes;
  }

  /**
   * Calibrate `bytes` in the worker (at `shapes`, for a model with dynamic dims); `onProgress`
   * sees samples done / total as they run.
   */
  calibrate(bytes: Uint8Array, config: CalibrationConfig, onProgress: (progress: Progress) => void, shapes?: InputShapes): CalibrationRun {
    let id: number | undefined;
    let cancelRequested = false;
    const sendCancel = (target: number): void => {
      this.request('cancel', { type: 'cancel', target }).catch(() => undefined);
    };
    const result = this.init().then(() => {
      const request = this.request('calibrate', { type: 'calibrate', bytes, config, limits: this.limits, shapes }, onProgress);
      id = this.nextId - 1; // request() took this id synchronously
      if (cancelRequested) sendCancel(id);
      return request;
    });
    return {
      result: result.then(({ status, samples, elapsedMs, stats, signatures }) => ({ status, samples, elapsedMs, stats, signatures })),
      cancel: () => {
        if (cancelRequested) return;
        cancelRequested = true;
        if (id !== undefined) sendCancel(id);
      },
    };
  }

  /** The last calibration's statistics with another method (no new samples are run). */
  async calibrationStats(method: string): Promise<RestatsResult> {
    await this.init();
    const { stats, signatures } = await this.request('calibration-stats', { type: 'calibration-stats', method });
    return { stats, signatures };
  }

  /** The steps from `[min, max]` to scale and zero point, from the engine's quantizer. */
  async quantParams(min: number, max: number, dtype: 'int8' | 'int16'): Promise<QuantSteps> {
    await this.init();
    return (await this.request('quant-params', { type: 'quant-params', min, max, dtype })).steps;
  }

  /** Requantization multipliers `s_in · s_w[c] / s_out` with their Q31 mantissa and shift. */
  async requant(inputScale: number, weightScales: number[], outputScale: number): Promise<MultiplierSteps[]> {
    await this.init();
    return (await this.request('requant', { type: 'requant', inputScale, weightScales, outputScale })).steps;
  }

  /** Per-channel int8 scales the quantizer would give a float weight tensor. */
  async weightScales(bytes: Uint8Array, tensor: number, axis: number): Promise<number[]> {
    await this.init();
    return (await this.request('weight-scales', { type: 'weight-scales', bytes, tensor, axis })).scales;
  }

  /**
   * Quantize `bytes` from `stats` with the CLI's options (`zeropoint quantize --stats`); the
   * statistics and settings travel with the request, so a restarted worker needs nothing else.
   * A model with several signatures is quantized from `signatures` (each signature's statistics).
   * With `auto`, `zeropoint quantize --auto` on its calibration (`onProgress` per sample of it).
   */
  async quantize(bytes: Uint8Array, stats: CalibrationStats | undefined, settings: QuantizeSettings, signatures?: SignatureCalibration[], auto?: Omit<AutoRequest, 'limits'>, onProgress?: (progress: Progress) => void): Promise<QuantizeResult> {
    await this.init();
    const { bytes: out, summary, report, reportJson, statsJson, warnings, elapsedMs } = await this.request('quantize', {
      type: 'quantize',
      bytes,
      stats,
      signatures,
      settings,
      auto: auto ? { ...auto, limits: this.limits } : undefined,
    }, onProgress);
    return { bytes: out, summary, report, reportJson, statsJson, warnings, elapsedMs };
  }

  /**
   * Ranks the operators of `bytes` by the output SQNR each reaches alone moved to int16 (or
   * float), on the first samples of the last calibration in the worker; `onProgress` counts the
   * operators scored.
   */
  async rankLayers(bytes: Uint8Array, stats: CalibrationStats, settings: QuantizeSettings, onProgress?: (progress: Progress) => void): Promise<LayerRanking> {
    await this.init();
    return (await this.request('rank-layers', { type: 'rank-layers', bytes, stats, settings }, onProgress)).ranking;
  }

  /** The statistics as `zeropoint calibrate` writes them. */
  async statsJson(stats: CalibrationStats): Promise<string> {
    await this.init();
    return (await this.request('stats-json', { type: 'stats-json', stats })).json;
  }

  /**
   * Run a model on one sample `runs` times (each invoke timed in the worker), at `shapes`, or
   * its signature `signature`, with integer arithmetic `arithmetic` (`reference` when absent).
   */
  async run(bytes: Uint8Array, sample: SampleSpec, runs: number, shapes?: InputShapes, signature?: string, arithmetic?: Arithmetic): Promise<RunResult> {
    await this.init();
    const { inputs, outputs, timesMs, firstMs, batch } = await this.request('run', { type: 'run', bytes, sample, runs, limits: this.limits, shapes, signature, arithmetic });
    return { inputs, outputs, timesMs, firstMs, batch };
  }

  /**
   * One frame of a stream on the runner the worker keeps for `key` (state carried from the last
   * frame unless `start` resets it or loads the model anew), at `shapes`, or its signature
   * `signature`, with integer arithmetic `arithmetic` (a kept runner of another arithmetic is
   * loaded anew).
   */
  async stream(key: string, bytes: Uint8Array, sample: SampleSpec, start: StreamStart, shapes?: InputShapes, signature?: string, arithmetic?: Arithmetic): Promise<StreamResult> {
    await this.init();
    const { outputs, frame } = await this.request('stream', { type: 'stream', key, bytes, sample, start, limits: this.limits, shapes, signature, arithmetic });
    return { outputs, frame };
  }

  /**
   * Float vs quantized on one sample: every tensor present in both, as `zeropoint compare` (of
   * signature `signature` of both, when given), the quantized model with `arithmetic`.
   */
  async compare(float: Uint8Array, quant: Uint8Array, sample: SampleSpec, shapes?: InputShapes, signature?: string, arithmetic?: Arithmetic): Promise<TensorComparison[]> {
    await this.init();
    return (await this.request('compare', { type: 'compare', float, quant, sample, limits: this.limits, shapes, signature, arithmetic })).tensors;
  }

  /**
   * Test hook: make the engine panic. Rejects with the panic's message; the worker is then
   * restarted (as after any trap).
   */
  async debugPanic(message: string): Promise<never> {
    await this.init();
    return this.request('debug-panic', { type: 'debug-panic', message });
  }

  /** Test hook: kill the worker with an uncaught error to exercise the restart path. */
  crash(): void {
    const id = this.nextId++;
    this.worker.postMessage({ type: 'crash', id } satisfies WorkerRequest);
  }

  private request<T extends Exclude<RequestType, 'crash'>>(
    type: T,
    body: RequestBody<T>,
    onProgress?: (progress: Progress) => void,
  ): Promise<ResponseFor[T]> {
    if (this.gaveUp) return Promise.reject(new WorkerCrashedError(this.gaveUp));
    const id = this.nextId++;
    const message = { ...body, id } as WorkerRequest;
    return new Promise<ResponseFor[T]>((resolve, reject) => {
      this.pending.set(id, {
        type,
        resolve: resolve as (response: WorkerResponse) => void,
        reject,
        ...(onProgress ? { onProgress } : {}),
      });
      // Bytes are copied (not transferred): the page keeps the model for later requests.
      this.worker.postMessage(message);
    });
  }

  private spawn(): Worker {
    const worker = this.createWorker();
    worker.addEventListener('message', (event: MessageEvent<unknown>) => {
      if (worker === this.worker) this.onMessage(event.data);
    });
    worker.addEventListener('error', (event: ErrorEvent) => {
      event.preventDefault();
      if (worker === this.worker) this.restart(`engine worker crashed: ${event.message || 'unknown error'}`);
    });
    worker.addEventListener('messageerror', () => {
      if (worker === this.worker) this.restart('engine worker sent an unreadable message');
    });
    return worker;
  }

  private onMessage(data: unknown): void {
    if (!isWorkerResponse(data)) return;
    const pending = this.pending.get(data.id);
    if (!pending) return;
    if (data.type === 'progress') {
      pending.onProgress?.({ done: data.done, total: data.total, elapsedMs: data.elapsedMs });
      return;
    }
    this.pending.delete(data.id);
    if (data.type === 'error') {
      pending.reject(new EngineError(data.message));
      if (data.fatal) this.restart(`engine failed: ${data.message}`);
    } else if (data.type !== expectedResponse(pending.type)) {
      pending.reject(new EngineError(`unexpected response ${data.type} to ${pending.type}`));
    } else {
      pending.resolve(data);
    }
  }

  /**
   * Stops whatever the worker is doing (a long `--auto` search is one wasm call: only ending the
   * worker stops it): every pending request rejects with an `InterruptedError`, and a fresh
   * worker serves the next request. Not a crash: no restart is counted or reported. What the
   * worker kept (the last calibrators, streams) is gone with it.
   */
  interrupt(): void {
    if (this.gaveUp) return;
    this.worker.terminate();
    this.ready = undefined;
    const stopped = [...this.pending.values()];
    this.pending.clear();
    this.worker = this.spawn();
    for (const p of stopped) p.reject(new InterruptedError('stopped'));
  }

  private restart(reason: string): void {
    this.worker.terminate();
    this.ready = undefined;
    const failed = [...this.pending.values()];
    this.pending.clear();
    const now = Date.now();
    this.recentRestarts = [...this.recentRestarts.filter((t) => now - t < RESTART_WINDOW_MS), now];
    if (this.recentRestarts.length > MAX_RESTARTS_IN_WINDOW) {
      this.gaveUp = `${reason} (it crashed ${String(this.recentRestarts.length)} times in a row; reload the page)`;
    } else {
      this.restarts += 1;
      this.worker = this.spawn();
    }
    for (const p of failed) p.reject(new WorkerCrashedError(this.gaveUp ?? reason));
    if (!this.gaveUp) this.options.onRestart?.(reason);
  }
}

function expectedResponse(type: RequestType): WorkerResponse['type'] {
  switch (type) {
    case 'init':
      return 'ready';
    case 'check-size':
      return 'size-ok';
    case 'inspect':
      return 'summary';
    case 'rewrite':
      return 'rewritten';
    case 'calibrate':
      return 'calibrated';
    case 'cancel':
      return 'cancel-ack';
    case 'calibration-stats':
      return 'calibration-stats';
    case 'quant-params':
      return 'quant-params';
    case 'requant':
      return 'requant';
    case 'weight-scales':
      return 'weight-scales';
    case 'quantize':
      return 'quantized';
    case 'rank-layers':
      return 'ranked';
    case 'stats-json':
      return 'stats-json';
    case 'run':
      return 'ran';
    case 'stream':
      return 'streamed';
    case 'compare':
      return 'compared';
    case 'crash':
    case 'debug-panic':
      return 'error';
  }
}

export { errorMessage };
