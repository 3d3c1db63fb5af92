/**
 * What the Compare view shows, as pure functions: top-k of class scores, element-wise
 * differences of outputs, latency summaries, the SQNR heat colour of a layer, and the
 * per-tensor table worst first. Unit-tested in Node.
 */
import type { TensorComparison } from '../engine/types';

export interface Ranked {
  index: number;
  value: number;
}

/** The `k` largest values, largest first; ties keep the lower index first. NaN ranks last. */
export function topK(values: ArrayLike<number>, k: number): Ranked[] {
  const all: Ranked[] = Array.from({ length: values.length }, (_, index) => ({ index, value: values[index] ?? NaN }));
  all.sort((a, b) => {
    const an = Number.isNaN(a.value);
    const bn = Number.isNaN(b.value);
    if (an !== bn) return an ? 1 : -1;
    return b.value - a.value || a.index - b.index;
  });
  return all.slice(0, Math.max(0, k));
}

export interface Diff {
  /** Largest |a − b| and where. */
  maxAbs: number;
  at: number;
  meanAbs: number;
}

/** Element-wise |a − b| over the common length. */
export function diffStats(a: ArrayLike<number>, b: ArrayLike<number>): Diff {
  const n = Math.min(a.length, b.length);
  let maxAbs = 0;
  let at = -1;
  let sum = 0;
  for (let i = 0; i < n; i++) {
    const d = Math.abs((a[i] ?? 0) - (b[i] ?? 0));
    sum += d;
    if (d > maxAbs || at < 0) {
      maxAbs = d;
      at = i;
    }
  }
  return { maxAbs, at, meanAbs: n > 0 ? sum / n : 0 };
}

/** Median of run times (the first run included: it is one of the runs). */
export function median(values: readonly number[]): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? (sorted[mid] ?? NaN) : ((sorted[mid - 1] ?? NaN) + (sorted[mid] ?? NaN)) / 2;
}

/**
 * The quantized model's speed against the float one from their timed runs (medians): "×2.41
 * faster" / "×1.30 slower"; when the two sets of runs overlap (the slowest run of the faster
 * model is slower than the fastest run of the other) the ratio is not settled by them: "×1.02
 * faster (uncertain: the runs overlap)"; equal medians: "as fast". Undefined when a median is
 * not a positive finite time (a ratio of zeros or of unmeasured times says nothing).
 */
export function speedRatio(floatTimes: readonly number[], quantTimes: readonly number[]): string | undefined {
  const [f, q] = [median(floatTimes), median(quantTimes)];
  if (!(f > 0 && q > 0 && Number.isFinite(f) && Number.isFinite(q))) return undefined;
  const ratio = f >= q ? `\u00d7${(f / q).toFixed(2)} faster` : `\u00d7${(q / f).toFixed(2)} slower`;
  const overlap = Math.max(...floatTimes) >= Math.min(...quantTimes) && Math.max(...quantTimes) >= Math.min(...floatTimes);
  if (f === q) return 'as fast';
  return overlap ? `${ratio} (uncertain: the runs overlap)` : ratio;
}

/** SQNR in dB as text: "inf" when the tensors are identical. */
export function formatDb(db: number): string {
  return db === Infinity ? '∞' : Number.isFinite(db) ? `${db.toFixed(1)} dB` : String(db);
}

/** Heat scale ends: at or below LOW_DB a layer is red, at or above HIGH_DB green. */
export const LOW_DB = 10;
export const HIGH_DB = 40;

/** The heat colour of an SQNR: hue 0 (red, ≤ LOW_DB) … 120 (green, ≥ HIGH_DB), light fill. */
export function sqnrColor(db: number): string {
  const t = db === Infinity ? 1 : Number.isFinite(db) ? Math.min(1, Math.max(0, (db - LOW_DB) / (HIGH_DB - LOW_DB))) : 0;
  return `hsl(${String(Math.round(120 * t))}, 75%, 78%)`;
}

/** The rows worst SQNR first (identical tensors last), ties by quantized execution order. */
export function worstFirst(rows: readonly TensorComparison[]): TensorComparison[] {
  return rows
    .map((row, order) => ({ row, order }))
    .sort((a, b) => (a.row.sqnr_db === b.row.sqnr_db ? a.order - b.order : a.row.sqnr_db < b.row.sqnr_db ? -1 : 1))
    .map(({ row }) => row);
}

/**
 * Per operator of the float model: the SQNR of its first output tensor, when the comparison has
 * it (operators whose output the quantized model does not keep get none).
 */
export function sqnrByOp(operators: readonly { index: number; outputs: number[] }[], rows: readonly TensorComparison[]): Map<number, TensorComparison> {
  const byTensor = new Map(rows.map((r) => [r.float_tensor, r]));
  const out = new Map<number, TensorComparison>();
  for (const op of operators) {
    const first = op.outputs[0];
    const row = first === undefined ? undefined : byTensor.get(first);
    if (row) out.set(op.index, row);
  }
  return out;
}
