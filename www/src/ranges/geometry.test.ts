import { describe, expect, it } from 'vitest';
import { dequantize, domainOf, formatShare, gridLevels, gridStride, linear, massOutside, rebin } from './geometry';

describe('gridStride', () => {
  it('draws every level when they are far enough apart', () => {
    expect(gridStride(256, 2550)).toBe(1); // 10 px apart
  });
  it('takes every 2^k-th level when 256 levels are too dense', () => {
    expect(gridStride(256, 800)).toBe(2); // 3.1 px → 6.3 px
    expect(gridStride(256, 300)).toBe(8); // 1.18 px → 9.4 px
    expect(gridStride(65536, 800)).toBe(512);
  });
  it('is 1 for degenerate input', () => {
    expect(gridStride(1, 800)).toBe(1);
    expect(gridStride(256, 0)).toBe(1);
  });
});

describe('gridLevels', () => {
  it('counts from the zero point and keeps both ends', () => {
    expect(gridLevels(-128, 127, -64, 64)).toEqual([-128, -64, 0, 64, 127]);
    expect(gridLevels(-128, 127, 5, 100)).toEqual([-128, -95, 5, 105, 127]);
  });
  it('includes zero points at the ends of the range', () => {
    expect(gridLevels(-128, 127, -128, 128)).toEqual([-128, 0, 127]);
    expect(gridLevels(-128, 127, 127, 128)).toEqual([-128, -1, 127]);
  });
  it('gives every level with stride 1', () => {
    expect(gridLevels(-2, 2, 0, 1)).toEqual([-2, -1, 0, 1, 2]);
  });
});

describe('rebin', () => {
  it('sums neighbours to at most maxBars bars', () => {
    const bars = rebin({ lo: 0, hi: 10, counts: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] }, 4);
    expect(bars.counts).toEqual([1 + 2 + 3, 4 + 5 + 6, 7 + 8 + 9, 10]);
    expect(bars.width).toBe(3);
    expect(rebin({ lo: 0, hi: 1, counts: [] }, 4).counts).toEqual([]);
  });
});

describe('massOutside', () => {
  const hist = { lo: 0, hi: 4, counts: [10, 20, 30, 40] };
  it('is zero inside the range', () => {
    expect(massOutside(hist, 0, 4)).toEqual({ below: 0, above: 0, total: 100 });
  });
  it('counts whole bins and cut bins in proportion', () => {
    const m = massOutside(hist, 1.5, 3);
    expect(m.below).toBeCloseTo(10 + 10);
    expect(m.above).toBeCloseTo(40);
  });
  it('trims bins to the data extent first (nothing lies past the max)', () => {
    // The last bin is [3, 4) but the data ends at 3.5: cutting at 3.25 leaves half of it above.
    expect(massOutside(hist, 0, 3.25, 0, 3.5).above).toBeCloseTo(20);
    expect(massOutside(hist, 0, 3.5, 0, 3.5).above).toBe(0);
  });
});

describe('scales and formats', () => {
  it('domain covers the values with padding, and a point gets a width', () => {
    expect(domainOf([0, 10], 0.1)).toEqual([-1, 11]);
    const [a, b] = domainOf([2, 2]);
    expect(a).toBeLessThan(2);
    expect(b).toBeGreaterThan(2);
    expect(domainOf([NaN])).toEqual([-1, 1]);
  });
  it('maps linearly', () => {
    const f = linear(-1, 1, 0, 200);
    expect(f(0)).toBe(100);
    expect(f(1)).toBe(200);
  });
  it('dequantizes with scale and zero point', () => {
    expect(dequantize(-64, 0.5, -64)).toBe(0);
    expect(dequantize(127, 0.5, -64)).toBe(95.5);
  });
  it('formats shares', () => {
    expect(formatShare(0, 100)).toBe('0 %');
    expect(formatShare(1, 400)).toBe('0.25 %');
    expect(formatShare(1, 1e6)).toBe('< 0.01 %');
    expect(formatShare(25, 100)).toBe('25.0 %');
  });
});
