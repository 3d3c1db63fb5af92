/**
 * The worker-side calibration loop, as a pure function of a calibrator, a sample source and a
 * few hooks (clock, yield, cancel flag, progress sink), so it is tested with fakes.
 *
 * Samples run one at a time. Between samples the loop checks the cancel flag and, once it has
 * worked for `yieldEveryMs` without a break, awaits a macrotask so that the worker's message
 * loop can deliver a cancel request. Progress is reported at most every `progressEveryMs`, plus
 * at the start and at the end.
 */
import type { Progress } from './progress';
import type { CalibratorLike } from './types';

/** Samples on demand: sample(i) gives one Float32Array per model input, in input order. */
export interface SampleSource {
  readonly total: number;
  sample(index: number): Float32Array[] | Promise<Float32Array[]>;
}

export interface LoopHooks {
  onProgress: (progress: Progress) => void;
  isCancelled: () => boolean;
  /** Resolve on a later macrotask (the worker uses setTimeout 0). */
  yieldToEventLoop: () => Promise<void>;
  now: () => number;
  yieldEveryMs?: number;
  progressEveryMs?: number;
}

export interface LoopResult {
  status: 'done' | 'cancelled';
  /** Samples recorded by the calibrator. */
  samples: number;
  elapsedMs: number;
}

export const YIELD_EVERY_MS = 25;

/**
 * Resolves on a later macrotask: a message to itself, which (unlike a chain of `setTimeout(0)`,
 * clamped to 4 ms from the fifth nested timer on) costs no idle time.
 */
export function macrotask(): Promise<void> {
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      channel.port1.close();
      resolve();
    };
    channel.port2.postMessage(null);
  });
}
export const PROGRESS_EVERY_MS = 100;

export async function runCalibration(
  calibrator: CalibratorLike,
  source: SampleSource,
  hooks: LoopHooks,
): Promise<LoopResult> {
  const yieldEvery = hooks.yieldEveryMs ?? YIELD_EVERY_MS;
  const progressEvery = hooks.progressEveryMs ?? PROGRESS_EVERY_MS;
  const inputs = calibrator.inputs();
  const start = hooks.now();
  let lastYield = start;
  let lastProgress = start;
  const total = source.total;
  hooks.onProgress({ done: 0, total, elapsedMs: 0 });
  // Let a cancel that raced with the start arrive before the first sample.
  await hooks.yieldToEventLoop();

  for (let i = 0; i < total; i++) {
    if (hooks.isCancelled()) {
      return { status: 'cancelled', samples: calibrator.samples(), elapsedMs: hooks.now() - start };
    }
    const data = await source.sample(i);
    if (data.length !== inputs.length) {
      throw new Error(`sample ${String(i)} has ${String(data.length)} arrays for ${String(inputs.length)} model inputs`);
    }
    data.forEach((array, k) => {
      try {
        calibrator.setInput(k, array);
      } catch (error) {
        // The engine's message names the input ("input 0 'x': expected 1×4 FLOAT32 …, got …").
        const message = error instanceof Error ? error.message : String(error);
        throw new Error(`sample ${String(i)}: ${message}`, { cause: error });
      }
    });
    calibrator.addSample(); // its errors already name the sample and the input
    const now = hooks.now();
    const done = i + 1;
    if (done === total || now - lastProgress >= progressEvery) {
      lastProgress = now;
      hooks.onProgress({ done, total, elapsedMs: now - start });
    }
    if (done < total && now - lastYield >= yieldEvery) {
      await hooks.yieldToEventLoop();
      lastYield = hooks.now();
    }
  }
  return { status: 'done', samples: calibrator.samples(), elapsedMs: hooks.now() - start };
}
