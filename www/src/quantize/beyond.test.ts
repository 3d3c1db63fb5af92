import { describe, expect, it } from 'vitest';
import { FakeCalibrator } from '../calibration/fake.test-util';
import type { QuantizedModel } from '../calibration/types';
import type { AutoSettings, QuantizeSettings } from '../engine/types';
import { DEFAULT_LIMITS, workerLimits } from '../limits';
import { autoQuantize, rankerCalibrator, rankLayers, type Ranker } from './beyond';

const SETTINGS: QuantizeSettings = { mode: 'int8', io: 'int8', per_tensor: false, float_ops: [], int16_ops: [] };

/** A fake ranker: each candidate's score from `scores`; a missing one is refused. */
function fakeRanker(scores: Record<number, number>, candidates = [0, 1, 2, 3]): Ranker & { freed: boolean } {
  return {
    freed: false,
    candidates: () => candidates.map((index) => ({ index, label: `OP #${String(index)}`, fix: index === 3 ? 'float' : 'int16' })),
    samples: () => 16,
    base: () => 30,
    score: (index) => {
      const s = scores[index];
      if (s === undefined) throw new Error(`operator ${String(index)}: no 16x8 kernel for its neighbour`);
      return s;
    },
    free() {
      this.freed = true;
    },
  };
}

describe('rankLayers', () => {
  it('ranks by measured SQNR, best first (exact first), lists refusals with their reason, reports progress, frees the ranker', async () => {
    const ranker = fakeRanker({ 0: 31.5, 1: Infinity, 3: 35 });
    const progress: [number, number][] = [];
    const ranking = await rankLayers(ranker, (p) => progress.push([p.done, p.total]), () => 0);
    expect(ranking.layers.map((l) => [l.index, l.fix])).toEqual([
      [1, 'int16'],
      [3, 'float'],
      [0, 'int16'],
    ]);
    expect(ranking.baseSqnrDb).toBe(30);
    expect(ranking.samples).toBe(16);
    expect(ranking.refused).toEqual([{ label: 'OP #2', reason: 'operator 2: no 16x8 kernel for its neighbour' }]);
    expect(progress).toEqual([
      [1, 4],
      [2, 4],
      [3, 4],
      [4, 4],
    ]);
    expect(ranker.freed).toBe(true);
  });

  it('a trap is not a refusal: it propagates, and the ranker is still freed', async () => {
    const ranker = fakeRanker({});
    ranker.score = () => {
      throw new WebAssembly.RuntimeError('unreachable');
    };
    await expect(rankLayers(ranker, () => undefined)).rejects.toThrow('unreachable');
    expect(ranker.freed).toBe(true);
  });

  it('needs the last calibration to be one model, not by signature', () => {
    expect(rankerCalibrator([{ key: undefined, calibrator: 7 }])).toBe(7);
    expect(() => rankerCalibrator([])).toThrow('calibrate this model in the page first');
    expect(() => rankerCalibrator([{ key: 'a', calibrator: 1 }])).toThrow('not by signature');
  });
});

describe('autoQuantize', () => {
  it('calibrates again on one calibrator that keeps every sample (before the first), searches, measures errors, frees it', async () => {
    const calls: string[] = [];
    const quantized = { tag: 'q' } as unknown as QuantizedModel;
    class Keeping extends FakeCalibrator {
      keepSamples(): void {
        calls.push(`keep after ${String(this.samples())}`);
      }
      autoQuantize(_model: Uint8Array, settings: QuantizeSettings, auto: AutoSettings, onScored?: (n: number) => void): QuantizedModel {
        calls.push(`auto ${settings.mode} ${JSON.stringify(auto)} after ${String(this.samples())}`);
        onScored?.(1);
        onScored?.(2);
        return quantized;
      }
      measureErrors(): boolean {
        calls.push('errors');
        return true;
      }
    }
    const made: Keeping[] = [];
    const engine = {
      Calibrator: class extends Keeping {
        constructor() {
          super();
          made.push(this);
        }
      },
      randomData: (n: number) => new Float32Array(n).fill(0.5),
    };
    const progress: number[] = [];
    const scored: number[] = [];
    const q = await autoQuantize(
      engine,
      new Uint8Array(8),
      SETTINGS,
      { config: { source: { kind: 'random', count: 5, lo: 0, hi: 1, seed: 3 }, method: { kind: 'mse' } }, targetSqnrDb: 45, targetAccuracyDrop: 2, labels: [1, 0, 2, 1, 0], labelOutput: 1, budget: 12, timeLimit: 30, limits: workerLimits(DEFAULT_LIMITS) },
      { decodeImage: () => Promise.reject(new Error('no images')), onProgress: (p) => progress.push(p.done), onScored: (n) => scored.push(n) },
    );
    expect(q).toBe(quantized);
    // The engine is given the --auto options only (not the calibration's config or limits).
    expect(calls).toEqual(['keep after 0', 'auto int8 {"targetSqnrDb":45,"targetAccuracyDrop":2,"labels":[1,0,2,1,0],"labelOutput":1,"budget":12,"timeLimit":30} after 5', 'errors']);
    expect(made).toHaveLength(1);
    expect(made[0]?.freed).toBe(true);
    expect(progress.at(-1)).toBe(5);
    expect(scored).toEqual([1, 2]);
  });
});
