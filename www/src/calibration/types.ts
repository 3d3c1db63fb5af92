/**
 * Calibration types shared by the page, the worker and the protocol. The engine-side shapes
 * (CalibrationStats, TensorStats, Histogram, InputDesc) are the wasm package's generated types;
 * `CalibratorLike` is the slice of its Calibrator class the loop needs, so the loop can be driven
 * by a fake in tests (worker.ts checks that the real class fits it).
 */
import type { CalibrationStats, Histogram, InputDesc, QuantizedModel, TensorStats } from '../../pkg/simd/zeropoint.js';
import type { Normalization } from './preprocess';

export type { CalibrationStats, Histogram, InputDesc, QuantizedModel, TensorStats };

/** What the calibration loop calls on the engine's Calibrator. */
export interface CalibratorLike {
  inputs(): InputDesc[];
  setInput(index: number, data: Float32Array): void;
  addSample(): void;
  samples(): number;
  stats(method: string): CalibrationStats;
  /** Adds the errors on the first calibration samples to a quantized model's report (false: another model). */
  measureErrors?(model: Uint8Array, quantized: QuantizedModel): boolean;
  free(): void;
}

/** Range-selection methods; `percentile` carries P (e.g. 99.99). */
export type CalibrationMethod =
  | { kind: 'minmax' }
  | { kind: 'percentile'; percentile: number }
  | { kind: 'mse' }
  | { kind: 'moving-average' };

/** The method string the engine takes: "minmax" | "percentile:99.99" | "mse" | "moving-average". */
export function methodString(method: CalibrationMethod): string {
  return method.kind === 'percentile' ? `percentile:${String(method.percentile)}` : method.kind;
}

export function validateMethod(method: CalibrationMethod): void {
  if (method.kind === 'percentile' && !(method.percentile > 0 && method.percentile <= 100)) {
    throw new Error(`percentile must be in (0, 100], got ${String(method.percentile)}`);
  }
}

/** Where samples come from. Everything here can be posted to the worker (Files are cloneable). */
export type CalibrationSource =
  | { kind: 'random'; count: number; lo: number; hi: number; seed: number }
  /** One `.npy` per model input, in input order; first axis = samples. */
  | { kind: 'npy'; files: File[] }
  | { kind: 'images'; files: File[]; normalization: Normalization };

export interface CalibrationConfig {
  source: CalibrationSource;
  method: CalibrationMethod;
  /**
   * A model with several signatures: the samples of each, in the model's signature order, each
   * signature calibrated on its own (as `zeropoint calibrate --signature-data`); `source` is then
   * the first one's. Absent for a model with at most one signature.
   */
  signatures?: SignatureSource[] | undefined;
  /**
   * The CPU whose TF calibration to reproduce, as `zeropoint calibrate --tf-caches`: its data
   * caches `L1,L2,L3` in KiB (what `zeropoint tf-caches` prints there) or `golden` (the
   * engine's default when absent: the machine the test goldens were made on). TF's float sums
   * of convolutions with long reductions are cut by them, so the last bits of those ranges are
   * the CPU's.
   */
  tfCaches?: string | undefined;
}

/** The samples of one signature of a model with several (its inputs in its subgraph's order). */
export interface SignatureSource {
  key: string;
  source: CalibrationSource;
}

/** The statistics of one signature, recorded on its own samples (tensor indices of its subgraph). */
export interface SignatureCalibration {
  key: string;
  stats: CalibrationStats;
}

/** Limits on what the page accepts, so a typo cannot start a run of a billion samples. */
export const MAX_RANDOM_SAMPLES = 1_000_000;

/** The largest finite float32. */
const FLOAT32_MAX = 3.4028234663852886e38;

/**
 * Throws a readable Error if a random-data config is unusable: a count or seed out of range, an
 * end that is not a number or not a float32 (1e40 would fill the inputs with ±3.4e38 or ∞), or
 * an empty range or one wider than float32 holds.
 */
export function validateRandom(source: { count: number; lo: number; hi: number; seed: number }): void {
  if (!Number.isInteger(source.count) || source.count < 1 || source.count > MAX_RANDOM_SAMPLES) {
    throw new Error(`sample count must be a whole number from 1 to ${MAX_RANDOM_SAMPLES.toLocaleString('en-US')}`);
  }
  for (const [end, v] of [['lo', source.lo], ['hi', source.hi]] as const) {
    if (!Number.isFinite(v)) throw new Error(`random range ${end} must be a number, got ${String(v)}`);
    if (!Number.isFinite(Math.fround(v))) {
      throw new Error(`random range ${end} = ${String(v)} is beyond float32 (the inputs are float32: at most ±${String(FLOAT32_MAX)})`);
    }
  }
  const [lo, hi] = [Math.fround(source.lo), Math.fround(source.hi)];
  if (!(lo < hi)) throw new Error(`random range needs lo < hi (as float32), got [${String(source.lo)}, ${String(source.hi)}]`);
  // The generator computes lo + (hi − lo)·u in float32: the width must be a float32 too.
  if (!Number.isFinite(Math.fround(hi - lo))) {
    throw new Error(`random range [${String(source.lo)}, ${String(source.hi)}] is wider than float32 can hold (hi − lo > ${String(FLOAT32_MAX)})`);
  }
  if (!Number.isInteger(source.seed) || source.seed < 0 || source.seed > 0xffffffff) {
    throw new Error('seed must be a whole number from 0 to 4294967295');
  }
}

/** A short description of the source, for the result header and the JSON. */
export function describeSource(source: CalibrationSource): string {
  switch (source.kind) {
    case 'random':
      return `seeded random data in [${String(source.lo)}, ${String(source.hi)}], seed ${String(source.seed)}`;
    case 'npy':
      return `.npy: ${source.files.map((f) => f.name).join(', ')}`;
    case 'images':
      return `${source.files.length.toLocaleString('en-US')} image${source.files.length === 1 ? '' : 's'}`;
  }
}
