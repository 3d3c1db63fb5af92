/**
 * Messages between the page (main thread) and the engine worker.
 *
 * Every request carries a numeric `id`; the worker answers each request with exactly one
 * response carrying the same `id`: either the matching success type or `error`.
 * The worker is stateless apart from the loaded wasm module: requests carry the model bytes,
 * so a restarted worker can serve the next request without replaying history.
 */
import type { CalibrationConfig, CalibrationStats } from '../calibration/types';
import type { Progress } from '../calibration/progress';
import type { ModelSummary, MultiplierSteps, QuantSteps } from './types';

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
}

export type WorkerRequest =
  | { type: 'init'; id: number; prefer: EnginePreference }
  | { type: 'inspect'; id: number; name: string; bytes: Uint8Array }
  | { type: 'rewrite'; id: number; bytes: Uint8Array; externalBuffers: boolean }
  /**
   * Calibrate the model sample by sample; `progress` messages with this id follow until the one
   * `calibrated` (or `error`) response. The worker keeps the last finished calibrator for
   * `calibration-stats` requests (a failed or cancelled run leaves it in place).
   */
  | { type: 'calibrate'; id: number; bytes: Uint8Array; config: CalibrationConfig }
  /** Stop the calibration started by request `target` between two samples. */
  | { type: 'cancel'; id: number; target: number }
  /** The last finished calibration's statistics with another range-selection method. */
  | { type: 'calibration-stats'; id: number; method: string }
  /** The steps from a range to scale and zero point, as the quantizer computes them. */
  | { type: 'quant-params'; id: number; min: number; max: number; dtype: 'int8' | 'int16' }
  /** Requantization multipliers `s_in · s_w[c] / s_out`, split into Q31 mantissa and shift. */
  | { type: 'requant'; id: number; inputScale: number; weightScales: number[]; outputScale: number }
  /** Per-channel int8 scales the quantizer would give a float weight tensor of `bytes`. */
  | { type: 'weight-scales'; id: number; bytes: Uint8Array; tensor: number; axis: number }
  /** Test hook: make the worker die with an uncaught error, to exercise the restart path. */
  | { type: 'crash'; id: number };

export type WorkerResponse =
  | { type: 'ready'; id: number; engine: EngineInfo }
  | { type: 'summary'; id: number; name: string; size: number; summary: ModelSummary }
  | { type: 'rewritten'; id: number; bytes: Uint8Array }
  /** Not a final answer: zero or more precede the `calibrated` response to a `calibrate`. */
  | ({ type: 'progress'; id: number } & Progress)
  | {
      type: 'calibrated';
      id: number;
      status: 'done' | 'cancelled';
      samples: number;
      elapsedMs: number;
      /** Only when status is `done`. */
      stats: CalibrationStats | undefined;
    }
  | { type: 'cancel-ack'; id: number; found: boolean }
  | { type: 'calibration-stats'; id: number; stats: CalibrationStats }
  | { type: 'quant-params'; id: number; steps: QuantSteps }
  | { type: 'requant'; id: number; steps: MultiplierSteps[] }
  | { type: 'weight-scales'; id: number; scales: number[] }
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
  inspect: Extract<WorkerResponse, { type: 'summary' }>;
  rewrite: Extract<WorkerResponse, { type: 'rewritten' }>;
  calibrate: Extract<WorkerResponse, { type: 'calibrated' }>;
  cancel: Extract<WorkerResponse, { type: 'cancel-ack' }>;
  'calibration-stats': Extract<WorkerResponse, { type: 'calibration-stats' }>;
  'quant-params': Extract<WorkerResponse, { type: 'quant-params' }>;
  requant: Extract<WorkerResponse, { type: 'requant' }>;
  'weight-scales': Extract<WorkerResponse, { type: 'weight-scales' }>;
  crash: never;
}

export type RequestType = WorkerRequest['type'];

/** A request without its id (the client assigns ids). */
export type RequestBody<T extends RequestType> = Omit<Extract<WorkerRequest, { type: T }>, 'id'>;

const RESPONSE_TYPES: ReadonlySet<string> = new Set([
  'ready',
  'summary',
  'rewritten',
  'progress',
  'calibrated',
  'cancel-ack',
  'calibration-stats',
  'quant-params',
  'requant',
  'weight-scales',
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
