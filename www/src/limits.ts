/**
 * The page's limits: largest model file, largest tensor, largest activation arena (the CLI's
 * `--max-model-mb`, `--max-tensor-mb`, `--max-arena-mb`, in MB of 2^20 bytes) and the most
 * calibration samples the worker holds decoded in memory (a `.npy` is decoded whole).
 *
 * They live on the main thread (persisted in localStorage) and travel with every request that
 * reads or prepares a model, so a restarted worker uses them too.
 */
import type { EngineLimits } from './engine/types';

/** What the user sets in the Limits panel. */
export interface PageLimits {
  maxModelMb: number;
  maxTensorMb: number;
  maxArenaMb: number;
  maxCalibrationSamples: number;
}

/** What the worker needs, in bytes (see `workerLimits`). */
export interface WorkerLimits {
  maxModelBytes: number;
  engine: EngineLimits;
  maxCalibrationSamples: number;
}

/** One MB as the limits count it (the CLI's too). */
export const MB = 1_048_576;

/**
 * The library's defaults (`zeropoint::limits`, `engine::Limits::default()`: 2 GiB each; a vitest
 * checks them against the wasm `defaultLimits()`), and the page's own sample limit.
 */
export const DEFAULT_LIMITS: Readonly<PageLimits> = {
  maxModelMb: 2048,
  maxTensorMb: 2048,
  maxArenaMb: 2048,
  maxCalibrationSamples: 10_000,
};

/** The engine's constant-store limit, not editable on the page (the CLI's default too). */
export const DEFAULT_MAX_CONSTANT_BYTES = 2048 * MB;

/**
 * Most iterations one WHILE runs per invocation before the run stops with an error naming it,
 * not editable on the page (the CLI's `--max-while-iterations` default too).
 */
export const DEFAULT_MAX_WHILE_ITERATIONS = 1_000_000;

/** wasm32 sizes are 32-bit: a limit must stay below 4 GiB. */
export const MAX_LIMIT_MB = 4095;
export const MAX_CALIBRATION_SAMPLES = 1_000_000;

export const STORAGE_KEY = 'zeropoint.limits';

/** Labels of the fields, for messages and the panel. */
export const LIMIT_LABELS: Readonly<Record<keyof PageLimits, string>> = {
  maxModelMb: 'largest model file (MB)',
  maxTensorMb: 'largest tensor (MB)',
  maxArenaMb: 'largest activation arena (MB)',
  maxCalibrationSamples: 'calibration samples held in memory',
};

/** `mb` megabytes as whole bytes, rounded down (as `zeropoint::limits::mb_to_bytes`). */
export function mbToBytes(mb: number): number {
  return Math.floor(mb * MB);
}

/** Why a value cannot be used for `key`, or undefined if it can. */
export function limitProblem(key: keyof PageLimits, value: number): string | undefined {
  const label = LIMIT_LABELS[key];
  if (key === 'maxCalibrationSamples') {
    if (!Number.isInteger(value) || value < 1 || value > MAX_CALIBRATION_SAMPLES) {
      return `${label} must be a whole number from 1 to ${MAX_CALIBRATION_SAMPLES.toLocaleString('en-US')}`;
    }
    return undefined;
  }
  if (!Number.isFinite(value) || value <= 0 || value > MAX_LIMIT_MB || mbToBytes(value) < 1) {
    return `${label} must be a number of MB above 0 and at most ${String(MAX_LIMIT_MB)}`;
  }
  return undefined;
}

/** The limits in bytes, as the worker and the engine take them. */
export function workerLimits(limits: PageLimits): WorkerLimits {
  return {
    maxModelBytes: mbToBytes(limits.maxModelMb),
    engine: {
      max_tensor_bytes: mbToBytes(limits.maxTensorMb),
      max_arena_bytes: mbToBytes(limits.maxArenaMb),
      max_constant_bytes: DEFAULT_MAX_CONSTANT_BYTES,
      max_while_iterations: DEFAULT_MAX_WHILE_ITERATIONS,
    },
    maxCalibrationSamples: limits.maxCalibrationSamples,
  };
}

/** The saved limits; a missing, unreadable or unusable value falls back to its default. */
export function loadLimits(storage: Pick<Storage, 'getItem'> | undefined): PageLimits {
  const limits = { ...DEFAULT_LIMITS };
  let saved: unknown;
  try {
    saved = JSON.parse(storage?.getItem(STORAGE_KEY) ?? 'null');
  } catch {
    return limits;
  }
  if (typeof saved !== 'object' || saved === null) return limits;
  for (const key of Object.keys(DEFAULT_LIMITS) as (keyof PageLimits)[]) {
    const value = (saved as Record<string, unknown>)[key];
    if (typeof value === 'number' && limitProblem(key, value) === undefined) limits[key] = value;
  }
  return limits;
}

/** Saves the limits (storage may be unavailable or full: then they last for this visit only). */
export function saveLimits(storage: Pick<Storage, 'setItem'> | undefined, limits: PageLimits): void {
  try {
    storage?.setItem(STORAGE_KEY, JSON.stringify(limits));
  } catch {
    // private mode or quota: keep them in memory only
  }
}

/** The sample-count check of a decoded-in-memory source (a `.npy`), before it is decoded. */
export function checkSampleCount(name: string, samples: number, max: number): void {
  if (samples > max) {
    throw new Error(
      `${name} holds ${samples.toLocaleString('en-US')} samples, more than the limit of ${max.toLocaleString('en-US')} calibration samples held in memory (change it under Limits)`,
    );
  }
}
