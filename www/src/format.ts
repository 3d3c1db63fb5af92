/**
 * Pure formatting helpers for the page: bytes, counts, shapes, dtypes, quantization parameters.
 * No DOM here, so everything is unit-tested in Node (format.test.ts).
 */
import type { QuantSummary, TensorSummary } from './engine/types';

const MINUS = '\u2212';
const TIMES = '\u00d7';
const EM_DASH = '\u2014';

/** 1234567 → "1,234,567" (fixed locale so that tests and screenshots are stable). */
export function formatCount(n: number): string {
  return Math.trunc(n).toLocaleString('en-US');
}

/** Human-readable byte size in binary units: "512 B", "2.34 KiB", "13.5 MiB", "1.20 GiB". */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return `${String(bytes)} B`;
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  if (unit === 0) return `${String(Math.trunc(value))} B`;
  // Three significant digits; from 999.5 up, whole numbers (never "1.00e+3" nor "1024 KiB").
  if (value >= 999.5) {
    const whole = Math.round(value);
    if (whole >= 1024 && unit < units.length - 1) return `1.00 ${units[unit + 1] ?? ''}`;
    return `${String(whole)} ${units[unit] ?? ''}`;
  }
  const text = value.toPrecision(3);
  return `${text} ${units[unit] ?? ''}`;
}

/** Byte size with the exact count when it is abbreviated: "2.34 KiB (2,400 bytes)". */
export function formatBytesExact(bytes: number): string {
  const short = formatBytes(bytes);
  return bytes < 1024 ? short : `${short} (${formatCount(bytes)} bytes)`;
}

/**
 * A tensor shape: [1, 224, 224, 3] → "1×224×224×3"; [] → "scalar".
 * With a shape signature, dynamic dimensions (-1) are shown as "?": the batch of a model
 * saved with a free batch size reads "?×224×224×3".
 */
export function formatShape(shape: readonly number[], signature?: readonly number[] | null): string {
  if (shape.length === 0) return 'scalar';
  const dims = shape.map((dim, i) => {
    const sig = signature?.length === shape.length ? signature[i] : undefined;
    return sig !== undefined && sig < 0 ? '?' : String(dim);
  });
  return dims.join(TIMES);
}

/** Engine dtype names are the schema's enum names ("FLOAT32", "INT8"): show them lower-case. */
export function formatDtype(dtype: string): string {
  return dtype.toLowerCase();
}

/** A float for a table cell: 4 significant digits, exponent form when very small or large. */
export function formatFloat(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (!Number.isFinite(x)) return x > 0 ? '\u221e' : `${MINUS}\u221e`;
  if (x === 0) return '0';
  const abs = Math.abs(x);
  const text = abs >= 1e-3 && abs < 1e5 ? String(Number(abs.toPrecision(4))) : abs.toExponential(3).replace('e+', 'e');
  return x < 0 ? `${MINUS}${text}` : text;
}

/** An integer with a real minus sign (zero points are often negative). */
export function formatInt(n: number): string {
  return n < 0 ? `${MINUS}${String(-n)}` : String(n);
}

function range(values: readonly number[], format: (x: number) => string): string {
  let lo = Infinity;
  let hi = -Infinity;
  for (const v of values) {
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  return lo === hi ? format(lo) : `${format(lo)}\u2026${format(hi)}`;
}

/** Whether a tensor carries any quantization parameters worth showing. */
export function hasQuantParams(q: QuantSummary | null | undefined): q is QuantSummary {
  return !!q && (q.scale.length > 0 || q.zero_point.length > 0 || q.min.length > 0 || q.max.length > 0);
}

/**
 * Quantization parameters in one line:
 *  - none: "—"
 *  - per-tensor: "scale 0.003922, zp −128"
 *  - per-channel: "per-channel ×32 (axis 0): scale 1.2e-4…3.4e-3, zp 0"
 * Recorded float ranges (min/max), when present, are appended: "range [−1, 1]"
 * (per-channel: "range [lowest min…highest min, lowest max…highest max]").
 */
export function formatQuant(q: QuantSummary | null | undefined): string {
  if (!hasQuantParams(q)) return EM_DASH;
  const fields: string[] = [];
  if (q.scale.length > 0) fields.push(`scale ${range(q.scale, formatFloat)}`);
  if (q.zero_point.length > 0) fields.push(`zp ${range(q.zero_point, formatInt)}`);
  if (q.min.length > 0 && q.max.length > 0) {
    fields.push(`range [${range(q.min, formatFloat)}, ${range(q.max, formatFloat)}]`);
  }
  const channels = Math.max(q.scale.length, q.zero_point.length);
  const head = channels > 1 ? `per-channel ${TIMES}${String(channels)} (axis ${String(q.quantized_dimension)}): ` : '';
  return head + fields.join(', ');
}

/** One-line tensor description: "float32 1×28×28×1". */
export function formatTensorType(t: Pick<TensorSummary, 'dtype' | 'shape' | 'shape_signature'>): string {
  return `${formatDtype(t.dtype)} ${formatShape(t.shape, t.shape_signature)}`;
}

/**
 * A time: below 1 ms in µs ("420 µs", "4.2 µs"), then "1.23 ms", "12.3 ms", "1,234 ms";
 * 0 (under the timer's resolution) is "< 1 µs", never "0.00 ms"; not a time → "—".
 */
export function formatMs(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return EM_DASH;
  if (ms < 1) {
    const us = ms * 1000;
    if (us < 1) return '< 1 \u00b5s';
    return `${us < 10 ? us.toFixed(1) : String(Math.round(us))} \u00b5s`;
  }
  if (ms < 10) return `${ms.toFixed(2)} ms`;
  if (ms < 100) return `${ms.toFixed(1)} ms`;
  return `${Math.round(ms).toLocaleString('en-US')} ms`;
}

/** Strip the extension: "mobilenet.tflite" → "mobilenet". */
export function baseName(fileName: string): string {
  const dot = fileName.lastIndexOf('.');
  return dot > 0 ? fileName.slice(0, dot) : fileName;
}

/** Name of the rewritten model's download: "mobilenet.tflite" → "mobilenet.rewritten.tflite". */
export function rewrittenFileName(fileName: string): string {
  return `${baseName(fileName)}.rewritten.tflite`;
}

/** Whether a dropped file looks like a model by its name (we still let the engine decide). */
export function looksLikeTflite(fileName: string): boolean {
  return /\.tflite$/i.test(fileName);
}
