/**
 * Image preprocessing for calibration: RGBA pixels (already resized to the input's H×W by the
 * worker's canvas) → the model's float input, channel-last, with either
 *   - mean/std:   x = (pixel − mean[c]) / std[c]     (pixel in 0…255), or
 *   - range:      x = min + pixel / 255 · (max − min)
 * Gray inputs (C = 1) take the luma of RGB (ITU-R BT.601 weights, as PIL's "L" mode).
 */
import type { ImageLayout } from './shapes';

export type Normalization =
  | { kind: 'range'; min: number; max: number }
  | { kind: 'meanstd'; mean: number[]; std: number[] };

/** The default matches the example model, trained on pixels scaled to [0, 1]. */
export const DEFAULT_NORMALIZATION: Normalization = { kind: 'range', min: 0, max: 1 };

/** A one-line description shown next to the controls and stored in the stats JSON. */
export function describeNormalization(norm: Normalization): string {
  if (norm.kind === 'range') return `pixel 0…255 → [${String(norm.min)}, ${String(norm.max)}]`;
  return `(pixel − [${norm.mean.join(', ')}]) / [${norm.std.join(', ')}]`;
}

/** Throws if the numbers cannot work (std 0, NaN, wrong number of per-channel values). */
export function validateNormalization(norm: Normalization, channels: number): void {
  if (norm.kind === 'range') {
    if (!Number.isFinite(norm.min) || !Number.isFinite(norm.max)) throw new Error('range min and max must be numbers');
    if (norm.min === norm.max) throw new Error('range min and max must differ');
    return;
  }
  for (const [label, values] of [
    ['mean', norm.mean],
    ['std', norm.std],
  ] as const) {
    if (values.length !== 1 && values.length !== channels) {
      throw new Error(`${label} needs 1 or ${String(channels)} values, got ${String(values.length)}`);
    }
    if (values.some((v) => !Number.isFinite(v))) throw new Error(`${label} must be numbers`);
  }
  if (norm.std.some((s) => s === 0)) throw new Error('std must not be 0');
}

/** Parse "127.5" or "123.7, 116.3, 103.5" into numbers (NaN for junk, caught by validation). */
export function parseNumberList(text: string): number[] {
  return text
    .split(/[\s,;]+/)
    .filter((s) => s.length > 0)
    .map(Number);
}

/** RGBA bytes of exactly layout.height × layout.width pixels → float input of H×W×C. */
export function rgbaToInput(rgba: Uint8ClampedArray | Uint8Array, layout: ImageLayout, norm: Normalization): Float32Array {
  const pixels = layout.height * layout.width;
  if (rgba.length !== pixels * 4) {
    throw new Error(`expected ${String(pixels * 4)} RGBA bytes for ${String(layout.width)}×${String(layout.height)}, got ${String(rgba.length)}`);
  }
  const c = layout.channels;
  const out = new Float32Array(pixels * c);
  // value = (pixel − sub[k]) / div[k]; the range mapping is min + pixel · (max − min) / 255.
  const map: ((p: number) => number)[] = [];
  for (let k = 0; k < c; k++) {
    if (norm.kind === 'range') {
      const step = (norm.max - norm.min) / 255;
      const min = norm.min;
      map.push((p) => min + p * step);
    } else {
      const mean = (norm.mean.length === 1 ? norm.mean[0] : norm.mean[k]) ?? 0;
      const std = (norm.std.length === 1 ? norm.std[0] : norm.std[k]) ?? 1;
      map.push((p) => (p - mean) / std);
    }
  }
  const first = map[0] ?? ((p: number) => p);
  for (let p = 0; p < pixels; p++) {
    if (c === 1) {
      const luma = 0.299 * (rgba[p * 4] ?? 0) + 0.587 * (rgba[p * 4 + 1] ?? 0) + 0.114 * (rgba[p * 4 + 2] ?? 0);
      out[p] = first(luma);
    } else {
      for (let k = 0; k < c; k++) out[p * c + k] = (map[k] ?? first)(rgba[p * 4 + k] ?? 0);
    }
  }
  return out;
}

/** Names the browser can decode as images (by MIME type, else by extension). */
export function isImageFile(name: string, type: string): boolean {
  if (type.startsWith('image/')) return true;
  return /\.(png|jpe?g|webp|bmp|gif|avif)$/i.test(name);
}
