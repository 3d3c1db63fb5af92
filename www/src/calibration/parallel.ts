/**
 * Calibration split across Web Workers: the samples are cut into contiguous slices, the engine
 * worker records the first slice on its own Calibrator while helper workers (each with its own
 * wasm instance, `slice-worker.ts`) record the others, and their statistics are merged into the
 * first in sample order (`mergeState`): exactly the statistics of one Calibrator over every
 * sample (the engine's CalibrationState::merge). A model that carries state from one sample to
 * the next (LSTM, RNN, variables) is calibrated on one Calibrator, as are runs of one sample or
 * when no helper can be had. Engine and worker pieces are injected, so this runs in Node.
 */
import type { EngineLimits, InputShapes } from '../engine/types';
import { macrotask, runCalibration, type SampleSource } from './loop';
import { calibrate, sampleSource, type CalibrationEngine, type CalibratorArgs, type RunEnv, type RunOutcome } from './run';
import { methodString, validateMethod, type CalibrationConfig, type CalibratorLike } from './types';

/** Most Web Workers one calibration uses by default (the engine worker included). */
export const MAX_CALIBRATION_WORKERS = 4;

/** The Calibrator methods a split calibration needs beyond the loop's. */
export interface SliceCalibrator extends CalibratorLike {
  forSlice(firstSample: number): void;
  exportState(): Uint8Array;
  mergeState(state: Uint8Array): void;
  carriesState(): string | undefined;
}

/** The wasm API slice a split calibration needs. */
export interface SliceEngine extends CalibrationEngine {
  Calibrator: new (...args: CalibratorArgs) => SliceCalibrator;
}

/** What a helper is asked: record samples `start` to `end` (exclusive) of `config`'s source. */
export interface SliceRequest {
  model: Uint8Array;
  config: CalibrationConfig;
  start: number;
  end: number;
  limits?: EngineLimits | undefined;
  shapes?: InputShapes | undefined;
  /** The signature calibrated, of a model with several. */
  signature?: string | undefined;
  maxSamples?: number | undefined;
}

/** How many workers to use: `hardwareConcurrency` capped at `cap`, never more than samples. */
export function workerCount(hardwareConcurrency: number | undefined, samples: number, cap = MAX_CALIBRATION_WORKERS): number {
  const cores = Number.isFinite(hardwareConcurrency) && (hardwareConcurrency ?? 0) > 0 ? Math.floor(hardwareConcurrency ?? 1) : 1;
  return Math.max(1, Math.min(cores, cap, samples));
}

/** `[start, end)` of each of `parts` contiguous slices of `total` samples (sizes differ by ≤ 1). */
export function splitSamples(total: number, parts: number): [number, number][] {
  const n = Math.max(1, Math.min(parts, total));
  return Array.from({ length: n }, (_, k): [number, number] => [Math.floor((k * total) / n), Math.floor(((k + 1) * total) / n)]);
}

/** Samples `start` to `end` of `source`, numbered from 0. */
export function sliceSource(source: SampleSource, start: number, end: number): SampleSource {
  return { total: end - start, sample: (i) => source.sample(start + i) };
}

/** Hooks of one slice's run (a helper's own loop). */
export interface SliceEnv {
  engine: SliceEngine;
  decodeImage: RunEnv['decodeImage'];
  /** Samples of this slice recorded so far. */
  onProgress: (done: number) => void;
  isCancelled: () => boolean;
  yieldToEventLoop: () => Promise<void>;
  now: () => number;
}

/**
 * Records one slice on a fresh Calibrator (`forSlice(start)`) and returns its statistics as
 * bytes for `mergeState`; `undefined` when cancelled.
 */
export async function calibrateSlice(request: SliceRequest, env: SliceEnv): Promise<Uint8Array | undefined> {
  const calibrator = new env.engine.Calibrator(request.model, request.limits, request.shapes, request.signature, request.config.tfCaches);
  try {
    calibrator.forSlice(request.start);
    const source = await sampleSource(calibrator.inputs(), request.config.source, env.engine.randomData, env.decodeImage, request.maxSamples);
    const result = await runCalibration(calibrator, sliceSource(source, request.start, Math.min(request.end, source.total)), {
      onProgress: (p) => {
        env.onProgress(p.done);
      },
      isCancelled: env.isCancelled,
      yieldToEventLoop: env.yieldToEventLoop,
      now: env.now,
    });
    return result.status === 'done' ? calibrator.exportState() : undefined;
  } finally {
    calibrator.free();
  }
}

/** Environment of a split calibration: the single-run environment and the helpers. */
export interface ParallelEnv extends RunEnv {
  engine: SliceEngine;
  /** Workers to use in all, the engine worker included (see `workerCount`). */
  workers: number;
  /**
   * Runs one slice in a helper and resolves to its statistics' bytes (`undefined`: cancelled);
   * `onProgress` gets the samples it recorded so far. `stop` ends every helper (cancel, error).
   */
  runSlice: (request: SliceRequest, onProgress: (done: number) => void) => Promise<Uint8Array | undefined>;
  stop: () => void;
}

/**
 * A calibration on `env.workers` workers (see the module docs); the statistics and the kept
 * Calibrator are those one worker would give. Falls back to `calibrate` (one worker).
 */
export async function calibrateParallel(model: Uint8Array, config: CalibrationConfig, env: ParallelEnv): Promise<RunOutcome> {
  validateMethod(config.method);
  const method = methodString(config.method);
  const calibrator = new env.engine.Calibrator(model, env.limits, env.shapes, env.signature, config.tfCaches);
  let keep = false;
  try {
    const source = await sampleSource(calibrator.inputs(), config.source, env.engine.randomData, env.decodeImage, env.maxSamples);
    const slices = splitSamples(source.total, env.workers);
    if (slices.length < 2 || calibrator.carriesState() !== undefined) {
      calibrator.free();
      keep = true; // freed here; `calibrate` makes its own
      return await calibrate(model, config, env);
    }
    const now = env.now ?? (() => performance.now());
    const start = now();
    const done = slices.map(() => 0);
    const total = source.total;
    const report = (): void => {
      env.onProgress({ done: done.reduce((a, b) => a + b, 0), total, elapsedMs: now() - start });
    };
    const request = ([from, to]: [number, number]): SliceRequest => ({
      model,
      config,
      start: from,
      end: to,
      limits: env.limits,
      shapes: env.shapes,
      signature: env.signature,
      maxSamples: env.maxSamples,
    });
    const helpers = slices.slice(1).map((slice, k) =>
      env.runSlice(request(slice), (n) => {
        done[k + 1] = n;
        report();
      }),
    );
    // A helper that fails stops the others and this slice (its error is the run's).
    const helperFailed = { value: false };
    helpers.forEach((p) => {
      p.catch(() => {
        helperFailed.value = true;
        env.stop();
      });
    });
    const [from, to] = slices[0] ?? [0, 0];
    const first = await runCalibration(calibrator, sliceSource(source, from, to), {
      onProgress: (p) => {
        done[0] = p.done;
        report();
      },
      isCancelled: () => helperFailed.value || env.isCancelled(),
      yieldToEventLoop: env.yieldToEventLoop ?? macrotask,
      now,
    }).catch((error: unknown) => {
      env.stop();
      throw error;
    });
    if (first.status === 'cancelled') {
      env.stop();
      // A helper's error is the reason this slice stopped.
      if (helperFailed.value) await Promise.all(helpers);
      await Promise.allSettled(helpers);
      return { status: 'cancelled', samples: calibrator.samples(), elapsedMs: now() - start, stats: undefined, calibrator: undefined };
    }
    const states = await Promise.all(helpers);
    if (states.some((s) => s === undefined) || env.isCancelled()) {
      return { status: 'cancelled', samples: calibrator.samples(), elapsedMs: now() - start, stats: undefined, calibrator: undefined };
    }
    for (const state of states) if (state) calibrator.mergeState(state);
    const stats = calibrator.stats(method);
    keep = true;
    return { status: 'done', samples: calibrator.samples(), elapsedMs: now() - start, stats, calibrator };
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
