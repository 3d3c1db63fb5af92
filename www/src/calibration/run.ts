/**
 * One calibration request inside the worker: build the Calibrator, turn the configured source
 * into samples, run the loop, and hand back the statistics. Engine and browser pieces are
 * injected (see worker.ts), so this is exercised in Node with fakes.
 */
import type { EngineLimits, InputShapes } from '../engine/types';
import { checkSampleCount } from '../limits';
import { macrotask, runCalibration, type LoopResult, type SampleSource } from './loop';
import { parseNpy, parseNpyHeader } from './npy';
import { validateNormalization } from './preprocess';
import type { Progress } from './progress';
import { imageLayout, type InputDesc } from './shapes';
import { imageSource, npySource, randomSource, type DecodeImage, type RandomData } from './sources';
import {
  methodString,
  validateMethod,
  validateRandom,
  type CalibrationConfig,
  type CalibrationSource,
  type CalibrationStats,
  type CalibratorLike,
} from './types';

/** The arguments of the engine's `Calibrator` constructor (`CalibrationConfig.tfCaches` last). */
export type CalibratorArgs = [model: Uint8Array, limits?: EngineLimits, shapes?: InputShapes, signature?: string, tfCaches?: string];

/** The wasm API slice calibration needs (Calibrator class + randomData). */
export interface CalibrationEngine {
  Calibrator: new (...args: CalibratorArgs) => CalibratorLike;
  randomData: RandomData;
}

export interface RunEnv {
  engine: CalibrationEngine;
  decodeImage: DecodeImage;
  onProgress: (progress: Progress) => void;
  isCancelled: () => boolean;
  yieldToEventLoop?: () => Promise<void>;
  now?: () => number;
  /** The engine's size limits (the user's); the engine's defaults when absent. */
  limits?: EngineLimits;
  /** The input shapes of a model with dynamic dims; the stored shapes when absent. */
  shapes?: InputShapes | undefined;
  /** The signature to calibrate, of a model with several (its subgraph as a model of its own). */
  signature?: string | undefined;
  /** Most samples a source decoded whole in memory (a `.npy`) may hold; no limit when absent. */
  maxSamples?: number;
}

export interface RunOutcome extends LoopResult {
  stats: CalibrationStats | undefined;
  /** The calibrator, kept by the worker for later `calibration-stats` requests (done runs only). */
  calibrator: CalibratorLike | undefined;
}

async function readNpy(file: File, maxSamples: number): Promise<{ name: string; array: ReturnType<typeof parseNpy> }> {
  const bytes = new Uint8Array(await file.arrayBuffer());
  let samples: number;
  try {
    samples = parseNpyHeader(bytes).shape[0] ?? 0;
  } catch (error) {
    throw new Error(`${file.name}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  // Before decoding: the decoded samples would stay in memory for the whole run.
  checkSampleCount(file.name, samples, maxSamples);
  try {
    return { name: file.name, array: parseNpy(bytes) };
  } catch (error) {
    throw new Error(`${file.name}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}

/**
 * The samples of a configured source for a model with `inputs` (also used by the Compare view to
 * pick one sample of the calibration set, a .npy or an image). A `.npy` holding more than
 * `maxSamples` samples is refused before it is decoded (it would be held whole in memory).
 */
export async function sampleSource(
  inputs: readonly InputDesc[],
  source: CalibrationSource,
  randomData: RandomData,
  decodeImage: DecodeImage,
  maxSamples = Number.POSITIVE_INFINITY,
): Promise<SampleSource> {
  switch (source.kind) {
    case 'random':
      validateRandom(source);
      return randomSource(inputs, source, randomData);
    case 'npy':
      return npySource(inputs, await Promise.all(source.files.map((file) => readNpy(file, maxSamples))));
    case 'images': {
      const first = inputs[0];
      if (first) validateNormalization(source.normalization, imageLayout(first).channels);
      return imageSource(inputs, source.files, source.normalization, decodeImage);
    }
  }
}

export async function calibrate(model: Uint8Array, config: CalibrationConfig, env: RunEnv): Promise<RunOutcome> {
  validateMethod(config.method);
  const method = methodString(config.method);
  const calibrator = new env.engine.Calibrator(model, env.limits, env.shapes, env.signature, config.tfCaches);
  let keep = false;
  try {
    const samples = await sampleSource(calibrator.inputs(), config.source, env.engine.randomData, env.decodeImage, env.maxSamples);
    const result = await runCalibration(calibrator, samples, {
      onProgress: env.onProgress,
      isCancelled: env.isCancelled,
      yieldToEventLoop: env.yieldToEventLoop ?? macrotask,
      now: env.now ?? (() => performance.now()),
    });
    if (result.status === 'cancelled') return { ...result, stats: undefined, calibrator: undefined };
    const stats = calibrator.stats(method);
    keep = true;
    return { ...result, stats, calibrator };
  } finally {
    if (!keep) {
      try {
        calibrator.free();
      } catch {
        // after a wasm trap the instance is dead anyway; the worker reports the trap
      }
    }
  }
}
