/**
 * Beyond TF, in the engine worker: `--auto` (the model calibrated again on one calibrator that
 * keeps every sample, as `zeropoint quantize --auto --data` has them, then the engine's search)
 * and the sensitivity ranking of operators a person accepts step by step ("fix the worst
 * layers"). The engine is injected, so both run in Node with fakes.
 */
import { macrotask } from '../calibration/loop';
import type { Progress } from '../calibration/progress';
import { calibrate, type CalibrationEngine, type RunEnv } from '../calibration/run';
import type { CalibratorLike, QuantizedModel } from '../calibration/types';
import type { AutoRequest, LayerRanking, RankedLayer } from '../engine/protocol';
import { errorMessage } from '../engine/protocol';
import type { AutoSettings, QuantizeSettings } from '../engine/types';

/** What `--auto` needs of the engine's Calibrator beyond the calibration loop. */
export interface AutoCalibrator extends CalibratorLike {
  keepSamples(): void;
  autoQuantize(model: Uint8Array, settings: QuantizeSettings, auto: AutoSettings, onScored?: (scored: number) => void): QuantizedModel;
}

/** The engine for `--auto`: a calibration engine whose Calibrator can keep its samples. */
export interface AutoEngine {
  Calibrator: new (...args: ConstructorParameters<CalibrationEngine['Calibrator']>) => AutoCalibrator;
  randomData: CalibrationEngine['randomData'];
}

/**
 * `zeropoint quantize --auto` on `model`: calibrated on `auto.config`'s samples by one
 * calibrator keeping every sample (progress per sample), then searched (`onScored` with the
 * count of candidate models scored, as they are); the report's errors
 * are measured on the same samples. The calibrator is freed before this returns.
 */
export async function autoQuantize(
  engine: AutoEngine,
  model: Uint8Array,
  settings: QuantizeSettings,
  auto: AutoRequest,
  env: Pick<RunEnv, 'decodeImage'> & { onProgress: (progress: Progress) => void; onScored: (scored: number) => void },
): Promise<QuantizedModel> {
  let made: AutoCalibrator | undefined;
  const keeping = function (this: unknown, ...args: ConstructorParameters<CalibrationEngine['Calibrator']>): AutoCalibrator {
    const c = new engine.Calibrator(...args);
    made = c;
    c.keepSamples();
    return c;
  } as unknown as CalibrationEngine['Calibrator'];
  // `--auto` chooses ranges itself from the histograms and TF's min/max.
  const outcome = await calibrate(model, { ...auto.config, method: { kind: 'minmax' } }, {
    engine: { Calibrator: keeping, randomData: engine.randomData },
    decodeImage: env.decodeImage,
    onProgress: env.onProgress,
    isCancelled: () => false,
    limits: auto.limits.engine,
    shapes: auto.shapes,
    maxSamples: auto.limits.maxCalibrationSamples,
  });
  const calibrator = made;
  if (!calibrator || outcome.status !== 'done') throw new Error('--auto: the calibration did not finish');
  try {
    const { targetSqnrDb, targetAccuracyDrop, labels, labelOutput, budget, timeLimit } = auto;
    const q = calibrator.autoQuantize(model, settings, { targetSqnrDb, targetAccuracyDrop, labels, labelOutput, budget, timeLimit }, env.onScored);
    calibrator.measureErrors?.(model, q);
    return q;
  } finally {
    calibrator.free();
  }
}

/** What the ranking needs of the engine's LayerRanker. */
export interface Ranker {
  candidates(): { index: number; label: string; fix: 'int16' | 'float' }[];
  samples(): number;
  base(): number;
  score(index: number, fix: string): number;
  free(): void;
}

/**
 * Scores every candidate of `ranker` (yielding between operators, `onProgress` after each) and
 * ranks them by output SQNR, best first; a move the quantizer refuses is listed with its
 * reason. Frees the ranker.
 */
export async function rankLayers(ranker: Ranker, onProgress: (progress: Progress) => void, now: () => number = () => performance.now()): Promise<LayerRanking> {
  const started = now();
  try {
    const candidates = ranker.candidates();
    const baseSqnrDb = ranker.base();
    const layers: RankedLayer[] = [];
    const refused: LayerRanking['refused'] = [];
    for (const [k, c] of candidates.entries()) {
      try {
        layers.push({ index: c.index, label: c.label, fix: c.fix, sqnrDb: ranker.score(c.index, c.fix) });
      } catch (error) {
        if (error instanceof WebAssembly.RuntimeError) throw error; // a trap: fatal
        refused.push({ label: c.label, reason: errorMessage(error) });
      }
      onProgress({ done: k + 1, total: candidates.length, elapsedMs: now() - started });
      await macrotask();
    }
    layers.sort((a, b) => b.sqnrDb - a.sqnrDb || a.index - b.index);
    return { baseSqnrDb, samples: ranker.samples(), layers, refused };
  } finally {
    ranker.free();
  }
}

/** A ranking for the worker: the last calibration's calibrator must be this model's, alone. */
export function rankerCalibrator<C>(kept: readonly { key: string | undefined; calibrator: C }[]): C {
  const [only, ...others] = kept;
  if (!only || others.length > 0 || only.key !== undefined) {
    throw new Error('ranking layers measures the output error on the calibration samples: calibrate this model in the page first (not by signature)');
  }
  return only.calibrator;
}
