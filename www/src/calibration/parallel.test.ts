/**
 * Calibration split across workers: the slicing helpers, and with the real wasm engine in Node
 * (each slice on its own Calibrator, merged through bytes as between Web Workers) the merged
 * statistics equal one Calibrator's for every method. Needs `bash scripts/build-wasm.sh`
 * (www/pkg) like wasm.test.ts.
 */
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import type { EngineModule } from '../engine/loader';
import { writeNpy } from './npy';
import { calibrateParallel, calibrateSlice, splitSamples, workerCount, type ParallelEnv } from './parallel';
import { calibrate } from './run';
import type { CalibrationSource } from './types';
import { loadTestEngine } from '../engine/testing';

describe('slicing', () => {
  it('splits samples into contiguous slices of nearly equal size', () => {
    expect(splitSamples(7, 3)).toEqual([
      [0, 2],
      [2, 4],
      [4, 7],
    ]);
    expect(splitSamples(2, 4)).toEqual([
      [0, 1],
      [1, 2],
    ]);
    expect(splitSamples(0, 4)).toEqual([[0, 0]]);
  });

  it('uses hardwareConcurrency capped at 4 and at the sample count', () => {
    expect(workerCount(8, 100)).toBe(4);
    expect(workerCount(2, 100)).toBe(2);
    expect(workerCount(8, 3)).toBe(3);
    expect(workerCount(undefined, 100)).toBe(1);
    expect(workerCount(0, 100)).toBe(1);
    expect(workerCount(16, 100, 8)).toBe(8);
  });
});

let api: EngineModule;
let model: Uint8Array;

beforeAll(async () => {
  api = await loadTestEngine();
  model = new Uint8Array(readFileSync('www/assets/example.tflite'));
});

/** A split run whose helpers are in-process slices on their own Calibrators (bytes between them). */
function env(workers: number, failSlice?: number): ParallelEnv & { started: number[] } {
  const started: number[] = [];
  const base = {
    engine: api,
    decodeImage: () => Promise.reject(new Error('no images in Node')),
    onProgress: () => undefined,
    isCancelled: () => false,
    yieldToEventLoop: () => Promise.resolve(),
    now: () => performance.now(),
  };
  return {
    ...base,
    workers,
    started,
    runSlice: async (request, onProgress) => {
      started.push(request.start);
      if (request.start === failSlice) throw new Error(`slice at ${String(request.start)} failed`);
      const bytes = await calibrateSlice(request, { ...base, onProgress });
      // A copy, as postMessage would give.
      return bytes ? new Uint8Array(bytes) : undefined;
    },
    stop: () => undefined,
  };
}

describe('split calibration with the real engine', () => {
  it('merged slices equal one calibrator, for every method', async () => {
    const data = Float32Array.from({ length: 9 * 3072 }, (_, i) => Math.sin(i * 0.37) * (1 + (i % 97)) - (i % 5 === 0 ? 3 : 0));
    const sources: CalibrationSource[] = [
      { kind: 'random', count: 7, lo: -1.5, hi: 2, seed: 11 },
      { kind: 'npy', files: [new File([writeNpy([9, 1, 32, 32, 3], data)], 'x.npy')] },
    ];
    for (const source of sources) {
      const one = await calibrate(model, { source, method: { kind: 'minmax' } }, env(1));
      for (const workers of [2, 3, 4]) {
        const run = env(workers);
        const split = await calibrateParallel(model, { source, method: { kind: 'minmax' } }, run);
        expect(run.started.length).toBe(workers - 1);
        expect(split.status).toBe('done');
        expect(split.samples).toBe(one.samples);
        for (const method of ['minmax', 'percentile:99.9', 'mse', 'moving-average']) {
          expect(split.calibrator?.stats(method), `${source.kind}, ${String(workers)} workers, ${method}`).toStrictEqual(one.calibrator?.stats(method));
        }
        split.calibrator?.free();
      }
      one.calibrator?.free();
    }
  });

  it("a helper's error is the run's; one sample runs on one worker", async () => {
    const source = { kind: 'random', count: 6, lo: 0, hi: 1, seed: 2 } as const;
    await expect(calibrateParallel(model, { source, method: { kind: 'minmax' } }, env(3, 2))).rejects.toThrow(/slice at 2 failed/);
    const run = env(4);
    const single = await calibrateParallel(model, { source: { ...source, count: 1 }, method: { kind: 'minmax' } }, run);
    expect(run.started).toEqual([]);
    expect(single.samples).toBe(1);
    single.calibrator?.free();
  });
});
