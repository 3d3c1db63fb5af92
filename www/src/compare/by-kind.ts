/**
 * Float vs quantized, measured the way each kind of output is judged: top-1 / top-5 agreement
 * for class scores (row by row), IoU for boxes, per-point error for landmarks, pixel error and a
 * normalized image for masks and heat maps, cosine similarity for embeddings. Pure; the Compare
 * view (ui/compare-outputs.ts) shows the numbers. Unit-tested in Node.
 */
import { topK } from './outputs';

/** Class scores in rows of `classes` (the last axis): how often the two models agree. */
export interface ClassAgreement {
  rows: number;
  /** Rows whose top-1 class is the same in both. */
  top1Same: number;
  /** Mean over rows of |float top-k ∩ quantized top-k| / k. */
  topKOverlap: number;
  /** Mean over rows of: float's top-1 is among the quantized top-k. */
  top1InTopK: number;
  k: number;
}

export function classAgreement(f: ArrayLike<number>, q: ArrayLike<number>, classes: number, k: number): ClassAgreement {
  const width = Math.max(1, classes);
  const rowCount = Math.floor(Math.min(f.length, q.length) / width);
  const kk = Math.min(k, width);
  let top1Same = 0;
  let overlap = 0;
  let inTop = 0;
  for (let r = 0; r < rowCount; r++) {
    const fr = Array.prototype.slice.call(f, r * width, (r + 1) * width) as number[];
    const qr = Array.prototype.slice.call(q, r * width, (r + 1) * width) as number[];
    const ft = topK(fr, kk).map((x) => x.index);
    const qt = topK(qr, kk).map((x) => x.index);
    if (ft[0] === qt[0]) top1Same++;
    overlap += ft.filter((i) => qt.includes(i)).length / Math.max(1, kk);
    if (ft[0] !== undefined && qt.includes(ft[0])) inTop++;
  }
  const mean = (x: number): number => (rowCount > 0 ? x / rowCount : NaN);
  return { rows: rowCount, top1Same, topKOverlap: mean(overlap), top1InTopK: mean(inTop), k: kk };
}

/** How box coordinates are read. */
export type BoxFormat = 'corners' | 'center';

export const BOX_FORMAT_LABELS: Readonly<Record<BoxFormat, string>> = {
  corners: '[ymin, xmin, ymax, xmax] (corners)',
  center: '[y, x, h, w] (centre, size)',
};

/** [ymin, xmin, ymax, xmax] of a box read in `format` (sizes taken as their absolute value). */
export function toCorners(c: readonly [number, number, number, number], format: BoxFormat): [number, number, number, number] {
  if (format === 'corners') {
    const [a, b, c2, d] = c;
    return [Math.min(a, c2), Math.min(b, d), Math.max(a, c2), Math.max(b, d)];
  }
  const [y, x, hh, ww] = c;
  const h2 = Math.abs(hh) / 2;
  const w2 = Math.abs(ww) / 2;
  return [y - h2, x - w2, y + h2, x + w2];
}

/**
 * Intersection over union of two boxes in `format`; 1 when both are the same empty box (a
 * zero-filled slot in both), 0 when only their union is empty; NaN when a coordinate is not finite.
 */
export function iou(a: readonly [number, number, number, number], b: readonly [number, number, number, number], format: BoxFormat): number {
  if (![...a, ...b].every(Number.isFinite)) return NaN;
  const [ay0, ax0, ay1, ax1] = toCorners(a, format);
  const [by0, bx0, by1, bx1] = toCorners(b, format);
  const ih = Math.max(0, Math.min(ay1, by1) - Math.max(ay0, by0));
  const iw = Math.max(0, Math.min(ax1, bx1) - Math.max(ax0, bx0));
  const inter = ih * iw;
  const union = (ay1 - ay0) * (ax1 - ax0) + (by1 - by0) * (bx1 - bx0) - inter;
  if (union <= 0) return a.every((v, i) => v === b[i]) ? 1 : 0;
  return inter / union;
}

export interface BoxAgreement {
  /** Rows compared (rows empty in both models left out). */
  boxes: number;
  /** Rows whose 4 coordinates are all 0 in both models (unused detection slots), left out. */
  emptyInBoth: number;
  meanIou: number;
  minIou: number;
  /** The box (row) with the lowest IoU. */
  worst: number;
  /** Boxes with IoU below 0.5. */
  below50: number;
}

/** A box's 4 coordinates: the first 4 values of row `r` of rows of `w`. */
export function boxAt(v: ArrayLike<number>, r: number, w: number): [number, number, number, number] {
  return [v[r * w] ?? NaN, v[r * w + 1] ?? NaN, v[r * w + 2] ?? NaN, v[r * w + 3] ?? NaN];
}

/**
 * IoU of corresponding boxes: row i of both, its first 4 values read in `format`. Rows that are
 * all zeros in both (the unused slots a detection post-process leaves) are counted apart, not
 * averaged in as perfect matches.
 */
export function boxAgreement(f: ArrayLike<number>, q: ArrayLike<number>, width: number, format: BoxFormat): BoxAgreement {
  const w = Math.max(4, width);
  const rows = Math.floor(Math.min(f.length, q.length) / w);
  let boxes = 0;
  let emptyInBoth = 0;
  let sum = 0;
  let minIou = NaN;
  let minKey = Infinity;
  let worst = -1;
  let below50 = 0;
  for (let r = 0; r < rows; r++) {
    const a = boxAt(f, r, w);
    const b = boxAt(q, r, w);
    if (a.every((v) => v === 0) && b.every((v) => v === 0)) {
      emptyInBoth++;
      continue;
    }
    const x = iou(a, b, format);
    boxes++;
    sum += x;
    // NaN (a coordinate that is not a number) counts as the worst.
    const key = Number.isNaN(x) ? -Infinity : x;
    if (worst < 0 || key < minKey) {
      minKey = key;
      minIou = x;
      worst = r;
    }
    if (!(x >= 0.5)) below50++;
  }
  return { boxes, emptyInBoth, meanIou: boxes > 0 ? sum / boxes : NaN, minIou, worst, below50 };
}

export interface Point {
  x: number;
  y: number;
}

/** Points of a flat vector with `stride` values each, (x, y) the first two of each. */
export function points(values: ArrayLike<number>, stride: number): Point[] {
  const s = Math.max(2, Math.floor(stride));
  const n = Math.floor(values.length / s);
  return Array.from({ length: n }, (_, i) => ({ x: values[i * s] ?? NaN, y: values[i * s + 1] ?? NaN }));
}

export interface PointError {
  points: number;
  /** Largest and mean Euclidean (x, y) distance between the float and the quantized point. */
  maxDistance: number;
  meanDistance: number;
  /** The point with the largest distance. */
  worst: number;
}

export function pointError(f: readonly Point[], q: readonly Point[]): PointError {
  const n = Math.min(f.length, q.length);
  let max = NaN;
  let maxKey = -Infinity;
  let worst = -1;
  let sum = 0;
  for (let i = 0; i < n; i++) {
    const a = f[i];
    const b = q[i];
    const d = a && b ? Math.hypot(a.x - b.x, a.y - b.y) : NaN;
    sum += d;
    // NaN (a coordinate that is not a number) counts as the worst.
    const key = Number.isNaN(d) ? Infinity : d;
    if (worst < 0 || key > maxKey) {
      maxKey = key;
      max = d;
      worst = i;
    }
  }
  return { points: n, maxDistance: max, meanDistance: n > 0 ? sum / n : NaN, worst };
}

/** The box both point sets fit in, with a margin of 5 % (a degenerate extent gets width 1). */
export function pointBounds(sets: readonly (readonly Point[])[]): { x0: number; y0: number; x1: number; y1: number } {
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -Infinity;
  let y1 = -Infinity;
  for (const set of sets) {
    for (const p of set) {
      if (!Number.isFinite(p.x) || !Number.isFinite(p.y)) continue;
      x0 = Math.min(x0, p.x);
      x1 = Math.max(x1, p.x);
      y0 = Math.min(y0, p.y);
      y1 = Math.max(y1, p.y);
    }
  }
  if (x0 > x1) return { x0: 0, y0: 0, x1: 1, y1: 1 };
  const pad = (lo: number, hi: number): [number, number] => {
    const span = hi - lo || 1;
    return [lo - span * 0.05, hi + span * 0.05];
  };
  const [px0, px1] = pad(x0, x1);
  const [py0, py1] = pad(y0, y1);
  return { x0: px0, y0: py0, x1: px1, y1: py1 };
}

/** Cosine similarity of two vectors over their common length (NaN when either is all zeros). */
export function cosineSimilarity(a: ArrayLike<number>, b: ArrayLike<number>): number {
  const n = Math.min(a.length, b.length);
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < n; i++) {
    const x = a[i] ?? 0;
    const y = b[i] ?? 0;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return na > 0 && nb > 0 ? dot / Math.sqrt(na * nb) : NaN;
}

/** One channel of an [1, H, W, C] (or [H, W, C]) tensor. */
export interface Plane {
  height: number;
  width: number;
  channels: number;
}

/**
 * The image layout of a shape: [.., H, W, C] for rank ≥ 4, [1, H, W] (one channel) or [H, W, C]
 * for rank 3, [H, W] for rank 2, one row for rank ≤ 1.
 */
export function planeOf(shape: readonly number[]): Plane {
  const [a = 1, b = 1, c = 1] = shape.slice(-3);
  if (shape.length >= 4 || (shape.length === 3 && a !== 1)) return { height: a, width: b, channels: c };
  if (shape.length === 3) return { height: b, width: c, channels: 1 };
  if (shape.length === 2) return { height: a, width: b, channels: 1 };
  return { height: 1, width: a, channels: 1 };
}

/** The values of channel `c` of the first image, row-major. */
export function channel(values: ArrayLike<number>, plane: Plane, c: number): Float32Array {
  const out = new Float32Array(plane.height * plane.width);
  for (let i = 0; i < out.length; i++) out[i] = values[i * plane.channels + c] ?? NaN;
  return out;
}

/** The finite minimum and maximum of the arrays (0, 1 when none is finite). */
export function valueRange(...arrays: Iterable<number>[]): [number, number] {
  let lo = Infinity;
  let hi = -Infinity;
  for (const a of arrays) {
    for (const v of a) {
      if (!Number.isFinite(v)) continue;
      lo = Math.min(lo, v);
      hi = Math.max(hi, v);
    }
  }
  return lo > hi ? [0, 1] : [lo, hi];
}

/**
 * Grey RGBA pixels of `plane` values mapped linearly from [lo, hi] to 0…255 (a flat range gives
 * mid grey; NaN is shown magenta so it cannot pass for a value).
 */
export function greyPixels(values: ArrayLike<number>, lo: number, hi: number): Uint8ClampedArray {
  const out = new Uint8ClampedArray(values.length * 4);
  const span = hi - lo;
  for (let i = 0; i < values.length; i++) {
    const v = values[i] ?? NaN;
    const o = i * 4;
    if (Number.isNaN(v)) {
      out[o] = 255;
      out[o + 1] = 0;
      out[o + 2] = 255;
    } else {
      const g = span > 0 ? Math.round((255 * (v - lo)) / span) : 128;
      out[o] = g;
      out[o + 1] = g;
      out[o + 2] = g;
    }
    out[o + 3] = 255;
  }
  return out;
}
