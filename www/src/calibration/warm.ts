/**
 * The engine worker's warm-up of a newly loaded model: a few seeded random samples calibrated and
 * quantized (int8) on its own wasm instance, all discarded. The person's first calibration and
 * quantization then run on code V8 has already optimized (it starts every wasm function in its
 * baseline tier) in memory the instance has already grown; the helpers warm up the same way on
 * theirs (`slice-worker.ts`). `npm run bench` times the page's first calibration after it
 * ("first") and a second one ("again").
 */
import type { EngineLimits, QuantizeSettings } from '../engine/types';
import type { SliceRequest } from './parallel';
import { calibrate, type CalibrationEngine } from './run';
import type { CalibrationConfig, CalibrationStats } from './types';

/** What the warm-up calls: the calibration engine, and the quantizer the Quantize tab uses. */
export interface WarmEngine extends CalibrationEngine {
  statsJson(stats: CalibrationStats): string;
  quantizeModel(model: Uint8Array, statsJson: string, settings: QuantizeSettings): { free(): void };
}

/** Samples of a warm-up (as the helpers' warm-up slice). */
export const WARM_SAMPLES = 4;

/** Models up to this size are warmed up when loaded (bigger ones would keep a worker busy for long). */
export const WARM_MODEL_BYTES = 16 << 20;

/** What a warm-up calibrates: {@link WARM_SAMPLES} seeded random samples in [0, 1), min/max. */
const WARM_CONFIG: CalibrationConfig = { source: { kind: 'random', count: WARM_SAMPLES, lo: 0, hi: 1, seed: 0 }, method: { kind: 'minmax' } };

/** A helper's warm-up (a slice of {@link WARM_CONFIG}), for models up to {@link WARM_MODEL_BYTES}. */
export function warmSlice(model: Uint8Array, limits?: EngineLimits): SliceRequest | undefined {
  if (model.byteLength > WARM_MODEL_BYTES) return undefined;
  return { model, config: WARM_CONFIG, start: 0, end: WARM_SAMPLES, limits };
}

const INT8: QuantizeSettings = { mode: 'int8', io: 'int8', per_tensor: false, float_ops: [], int16_ops: [] };

/**
 * Calibrates `model` on {@link WARM_CONFIG}'s samples and quantizes it,
 * freeing all. Throws what the engine throws (the caller drops it: the person's own calibration
 * meets the same error and reports it).
 */
export async function warmUp(engine: WarmEngine, model: Uint8Array, limits?: EngineLimits): Promise<void> {
  const outcome = await calibrate(model, WARM_CONFIG, {
    engine,
    decodeImage: () => Promise.reject(new Error('a warm-up decodes no images')),
    onProgress: () => undefined,
    isCancelled: () => false,
    ...(limits ? { limits } : {}),
  });
  try {
    if (outcome.stats) engine.quantizeModel(model, engine.statsJson(outcome.stats), INT8).free();
  } finally {
    outcome.calibrator?.free();
  }
}
