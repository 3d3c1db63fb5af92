import { describe, expect, it } from 'vitest';
import type { TensorComparison } from '../engine/types';
import { diffStats, formatDb, median, speedRatio, sqnrByOp, sqnrColor, topK, worstFirst } from './outputs';

function row(name: string, floatTensor: number, sqnr: number): TensorComparison {
  return {
    name,
    float_tensor: floatTensor,
    quant_tensor: floatTensor + 100,
    dtype: 'INT8',
    scale: 0.5,
    zero_point: 0,
    elements: 4,
    sqnr_db: sqnr,
    max_abs_error: 0.25,
    max_abs_error_lsb: 0.5,
  };
}

describe('outputs', () => {
  it('ranks the top k, ties by index, NaN last', () => {
    expect(topK([0.1, 0.7, 0.2, 0.7, NaN], 3)).toEqual([
      { index: 1, value: 0.7 },
      { index: 3, value: 0.7 },
      { index: 2, value: 0.2 },
    ]);
    expect(topK([NaN, 1], 2).map((r) => r.index)).toEqual([1, 0]);
    expect(topK([1, 2], 5)).toHaveLength(2);
    expect(topK([1, 2], 0)).toEqual([]);
  });

  it('measures differences', () => {
    expect(diffStats([1, 2, 3], [1, 2.5, 2])).toEqual({ maxAbs: 1, at: 2, meanAbs: 0.5 });
    expect(diffStats([], [])).toEqual({ maxAbs: 0, at: -1, meanAbs: 0 });
  });

  it('summarises run times', () => {
    expect(median([5, 1, 3])).toBe(3);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeNaN();
    expect(speedRatio([3], [1])).toBe('×3.00 faster');
    expect(speedRatio([1], [1.3])).toBe('×1.30 slower');
    // Medians of the runs; runs apart give the plain ratio.
    expect(speedRatio([2.9, 3.1, 3, 9], [1, 1.2, 0.9])).toBe('×3.05 faster');
    // Overlapping runs do not settle the ratio (face_landmark: 23.4 / 23.0 ms; a loaded machine).
    expect(speedRatio([23.4, 23.9, 23.1], [23.0, 23.5, 22.8])).toBe('×1.02 faster (uncertain: the runs overlap)');
    expect(speedRatio([1, 1.5], [1.4, 2])).toBe('×1.36 slower (uncertain: the runs overlap)');
    expect(speedRatio([2, 2], [2])).toBe('as fast');
    // Zeros (a timer that did not move) or missing times give no ratio, never "×3.00" from zeros.
    expect(speedRatio([0], [0])).toBeUndefined();
    expect(speedRatio([0.3], [0])).toBeUndefined();
    expect(speedRatio([NaN], [1])).toBeUndefined();
    expect(speedRatio([], [1])).toBeUndefined();
    expect(formatDb(Infinity)).toBe('∞');
    expect(formatDb(23.456)).toBe('23.5 dB');
  });
});

describe('SQNR heat map and table', () => {
  it('colours red to green', () => {
    expect(sqnrColor(0)).toBe('hsl(0, 75%, 78%)');
    expect(sqnrColor(25)).toBe('hsl(60, 75%, 78%)');
    expect(sqnrColor(80)).toBe('hsl(120, 75%, 78%)');
    expect(sqnrColor(Infinity)).toBe('hsl(120, 75%, 78%)');
    expect(sqnrColor(NaN)).toBe('hsl(0, 75%, 78%)');
  });

  it('lists worst first, identical last, ties in execution order', () => {
    const rows = [row('a', 1, 30), row('b', 2, Infinity), row('c', 3, 12), row('d', 4, 30)];
    expect(worstFirst(rows).map((r) => r.name)).toEqual(['c', 'a', 'd', 'b']);
  });

  it('maps each float operator to its output tensor row', () => {
    const ops = [
      { index: 0, outputs: [1] },
      { index: 1, outputs: [9] },
      { index: 2, outputs: [3] },
    ];
    const m = sqnrByOp(ops, [row('a', 1, 30), row('c', 3, 12)]);
    expect([...m.keys()]).toEqual([0, 2]);
    expect(m.get(2)?.name).toBe('c');
  });
});
