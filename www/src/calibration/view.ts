/**
 * What the calibration result shows, as pure data: per-tensor rows with the geometry of the
 * range bar, and the JSON the page offers for download.
 */
import type { CalibrationStats, TensorStats } from './types';

/** Positions in percent of the bar's width. */
export interface RangeBar {
  observed: { left: number; width: number };
  chosen: { left: number; width: number };
  /** Where 0.0 falls, if inside the shown span. */
  zero: number | undefined;
}

/**
 * The bar spans the union of the observed range, the chosen range and 0 (quantized ranges always
 * include 0), so every tensor's bar is on its own scale and both ranges are visible.
 */
export function rangeBar(t: Pick<TensorStats, 'min' | 'max' | 'chosen_min' | 'chosen_max'>): RangeBar {
  const values = [t.min, t.max, t.chosen_min, t.chosen_max, 0].filter(Number.isFinite);
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  const span = hi - lo;
  const pos = (x: number): number => (span > 0 ? ((x - lo) / span) * 100 : 50);
  const seg = (a: number, b: number): { left: number; width: number } => {
    const left = pos(Math.min(a, b));
    return { left, width: Math.max(0, pos(Math.max(a, b)) - left) };
  };
  return {
    observed: seg(t.min, t.max),
    chosen: seg(t.chosen_min, t.chosen_max),
    zero: span > 0 ? pos(0) : undefined,
  };
}

/** Whether the method clipped the observed range (the chosen range is narrower). */
export function isClipped(t: Pick<TensorStats, 'min' | 'max' | 'chosen_min' | 'chosen_max'>): boolean {
  return t.chosen_min > t.min || t.chosen_max < t.max;
}

export interface StatsExport {
  format: 'zeropoint-calibration-stats';
  version: 1;
  model: string;
  method: string;
  source: string;
  /** Whose CPU's TF calibration the float sums reproduced (`L1,L2,L3` KiB or `golden`). */
  tfCaches: string;
  samples: number;
  tensors: TensorStats[];
}

export function statsExport(model: string, method: string, source: string, stats: CalibrationStats, tfCaches = 'golden'): StatsExport {
  return {
    format: 'zeropoint-calibration-stats',
    version: 1,
    model,
    method,
    source,
    tfCaches,
    samples: stats.samples,
    tensors: stats.tensors,
  };
}

/** "model.tflite" → "model.calibration.json". */
export function statsFileName(model: string): string {
  return `${model.replace(/\.tflite$/i, '') || 'model'}.calibration.json`;
}

/**
 * The download of a calibration by signature: the per-signature file `zeropoint calibrate
 * --signature-data` writes (format and version, each signature's key and statistics, which
 * `zeropoint quantize --stats` reads), plus what the page adds for people (the model, the method,
 * each signature's source; the CLI ignores them).
 */
export interface SignatureStatsExport {
  format: 'zeropoint-signature-stats';
  version: 1;
  model: string;
  method: string;
  /** As in [`StatsExport`]. */
  tfCaches: string;
  signatures: { key: string; source: string; stats: CalibrationStats }[];
}

export function signatureStatsExport(model: string, method: string, signatures: { key: string; source: string; stats: CalibrationStats }[], tfCaches = 'golden'): SignatureStatsExport {
  return { format: 'zeropoint-signature-stats', version: 1, model, method, tfCaches, signatures: signatures.map(({ key, source, stats }) => ({ key, source, stats })) };
}
