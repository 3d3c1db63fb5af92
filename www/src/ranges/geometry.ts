/**
 * Pure geometry and arithmetic of the "ranges and zero points" view: which quantization levels
 * to draw, how to thin a 2048-bin histogram to what fits on screen, how much of the calibration
 * data falls outside the represented range (clipped), and the x axis. No DOM, no engine: the
 * numbers being visualised (scale, zero point, nudged range) come from the Rust core; this only
 * places them. Unit-tested in geometry.test.ts.
 */
import type { Histogram } from '../calibration/types';

/**
 * The smallest power of two `s` such that drawing every `s`-th of `levels` quantization levels
 * across `widthPx` pixels leaves at least `minGapPx` between two ticks. 256 int8 levels over
 * 800 px are 3.1 px apart: every 2nd level is drawn (6.3 px).
 */
export function gridStride(levels: number, widthPx: number, minGapPx = 5): number {
  if (levels < 2 || widthPx <= 0) return 1;
  const gap = widthPx / (levels - 1);
  let stride = 1;
  while (gap * stride < minGapPx && stride < levels) stride *= 2;
  return stride;
}

/**
 * The levels to draw: every `stride`-th level counted from the zero point (so the level that
 * represents 0.0 is always drawn), plus both ends of the range.
 */
export function gridLevels(qmin: number, qmax: number, zeroPoint: number, stride: number): number[] {
  const s = Math.max(1, Math.trunc(stride));
  const levels = new Set<number>([qmin, qmax]);
  const first = zeroPoint - Math.floor((zeroPoint - qmin) / s) * s;
  for (let q = first; q <= qmax; q += s) levels.add(q);
  if (zeroPoint >= qmin && zeroPoint <= qmax) levels.add(zeroPoint);
  return [...levels].sort((a, b) => a - b);
}

/** A histogram thinned to at most `maxBars` bars by summing neighbours. */
export interface Bars {
  lo: number;
  /** Width of one bar in real units. */
  width: number;
  counts: number[];
}

export function rebin(hist: Pick<Histogram, 'lo' | 'hi' | 'counts'>, maxBars: number): Bars {
  const n = hist.counts.length;
  if (n === 0) return { lo: hist.lo, width: 0, counts: [] };
  const factor = Math.max(1, Math.ceil(n / Math.max(1, maxBars)));
  const binWidth = (hist.hi - hist.lo) / n;
  const counts: number[] = [];
  for (let i = 0; i < n; i += factor) {
    let sum = 0;
    for (let j = i; j < Math.min(n, i + factor); j++) sum += hist.counts[j] ?? 0;
    counts.push(sum);
  }
  return { lo: hist.lo, width: binWidth * factor, counts };
}

/**
 * How many values lie below `lo` and above `hi`. A bin cut by an edge counts in proportion; bins
 * are first trimmed to the data's true extent `[dataLo, dataHi]` when given (the histogram's last
 * bin reaches past the max, whose values cannot lie beyond it).
 */
export interface Mass {
  below: number;
  above: number;
  total: number;
}

export function massOutside(
  hist: Pick<Histogram, 'lo' | 'hi' | 'counts'>,
  lo: number,
  hi: number,
  dataLo = -Infinity,
  dataHi = Infinity,
): Mass {
  const n = hist.counts.length;
  let below = 0;
  let above = 0;
  let total = 0;
  if (n === 0) return { below, above, total };
  const w = (hist.hi - hist.lo) / n;
  for (let i = 0; i < n; i++) {
    const c = hist.counts[i] ?? 0;
    if (c === 0) continue;
    total += c;
    const a = Math.max(hist.lo + i * w, dataLo);
    const b = Math.min(hist.lo + (i + 1) * w, dataHi);
    const width = b - a;
    if (width <= 0) {
      // A bin squeezed to a point by the data bounds: all its values sit at that point.
      if (a < lo) below += c;
      else if (a > hi) above += c;
      continue;
    }
    if (a < lo) below += (c * (Math.min(b, lo) - a)) / width;
    if (b > hi) above += (c * (b - Math.max(a, hi))) / width;
  }
  return { below, above, total };
}

/** The span covering all `values` (finite ones), widened by `pad` of its width on each side. */
export function domainOf(values: readonly number[], pad = 0.04): [number, number] {
  const finite = values.filter(Number.isFinite);
  if (finite.length === 0) return [-1, 1];
  let lo = Math.min(...finite);
  let hi = Math.max(...finite);
  if (hi - lo <= 0) {
    const half = Math.max(Math.abs(lo) * 0.1, 1e-6);
    lo -= half;
    hi += half;
  }
  const extra = (hi - lo) * pad;
  return [lo - extra, hi + extra];
}

/** A linear map from `[d0, d1]` onto `[r0, r1]`. */
export function linear(d0: number, d1: number, r0: number, r1: number): (x: number) => number {
  const k = d1 === d0 ? 0 : (r1 - r0) / (d1 - d0);
  return (x) => r0 + (x - d0) * k;
}

/** The real value a quantized level stands for: `scale · (q − zero_point)`. */
export function dequantize(q: number, scale: number, zeroPoint: number): number {
  return scale * (q - zeroPoint);
}

/** "0.25 %", "< 0.01 %", "0 %": a share of the calibration values. */
export function formatShare(part: number, total: number): string {
  if (total <= 0 || part <= 0) return '0 %';
  const pct = (100 * part) / total;
  if (pct < 0.01) return '< 0.01 %';
  return `${pct < 10 ? pct.toFixed(2) : pct.toFixed(1)} %`;
}
