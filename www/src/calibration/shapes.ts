/**
 * Shapes of calibration data versus the model's inputs: how many samples a `.npy` holds for an
 * input, and the image layout (H, W, C) of an image-like input.
 */

import type { InputDesc } from '../../pkg/simd/zeropoint.js';

/** What the engine says about one model input (the Calibrator's `inputs()`). */
export type { InputDesc };

export function elementCount(shape: readonly number[]): number {
  return shape.reduce((a, b) => a * b, 1);
}

export function shapeText(shape: readonly (number | string)[]): string {
  return `(${shape.join(', ')})`;
}

/**
 * The number of samples in an array whose first axis is samples, for the given model input.
 * Each sample is either exactly the input's shape (batch 1 included, as the goldens store
 * them) or the input's shape without its leading batch dimension of 1.
 * Throws an Error naming expected vs got otherwise.
 */
export function samplesInArray(arrayShape: readonly number[], input: InputDesc, fileName: string): number {
  const rest = arrayShape.slice(1);
  const want = input.shape;
  const same = (a: readonly number[], b: readonly number[]): boolean =>
    a.length === b.length && a.every((d, i) => d === b[i]);
  const ok = arrayShape.length > 0 && (same(rest, want) || (want[0] === 1 && same(rest, want.slice(1))));
  if (!ok) {
    const dropped = want[0] === 1 && want.length > 1 ? ` or ${shapeText(['N', ...want.slice(1)])}` : '';
    throw new Error(
      `${fileName}: shape ${shapeText(arrayShape)} does not fit input "${input.name}": expected ${shapeText(['N', ...want])}${dropped} (first axis = samples), got ${shapeText(arrayShape)}`,
    );
  }
  return arrayShape[0] ?? 0;
}

/** Height, width and channels of an image-like input (NHWC with batch 1, or HWC). */
export interface ImageLayout {
  height: number;
  width: number;
  channels: number;
}

/** The image layout of an input, or an Error saying why images cannot feed it. */
export function imageLayout(input: InputDesc): ImageLayout {
  let dims = input.shape;
  if (dims.length === 4) {
    if (dims[0] !== 1) throw new Error(`input "${input.name}" ${shapeText(dims)} has batch ${String(dims[0])}; images need batch 1`);
    dims = dims.slice(1);
  }
  const [height, width, channels] = dims;
  if (dims.length !== 3 || height === undefined || width === undefined || channels === undefined) {
    throw new Error(`input "${input.name}" ${shapeText(input.shape)} is not an image (expected 1×H×W×C or H×W×C)`);
  }
  if (![1, 3, 4].includes(channels)) {
    throw new Error(`input "${input.name}" has ${String(channels)} channels; images need 1 (gray), 3 (RGB) or 4 (RGBA)`);
  }
  if (height < 1 || width < 1) throw new Error(`input "${input.name}" has an empty image shape ${shapeText(input.shape)}`);
  return { height, width, channels };
}
