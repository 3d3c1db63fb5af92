/**
 * Sample sources for the calibration loop: seeded random data, `.npy` arrays and images.
 * Engine and browser pieces (randomData, image decoding) are passed in, so all of this runs in
 * Node tests; the worker wires in the wasm `randomData` and an OffscreenCanvas decoder.
 */
import type { SampleSource } from './loop';
import type { NpyArray } from './npy';
import { rgbaToInput, type Normalization } from './preprocess';
import { elementCount, imageLayout, samplesInArray, type InputDesc } from './shapes';

export type RandomData = (n: number, lo: number, hi: number, seed: number) => Float32Array;

/** The seed of sample `i`, input `k`: distinct streams, reproducible from the user's seed. */
export function sampleSeed(seed: number, sample: number, input: number): number {
  return (seed + Math.imul(sample, 0x9e3779b1) + Math.imul(input + 1, 0x85ebca77)) >>> 0;
}

export function randomSource(
  inputs: readonly InputDesc[],
  config: { count: number; lo: number; hi: number; seed: number },
  randomData: RandomData,
): SampleSource {
  return {
    total: config.count,
    sample: (i) => inputs.map((input, k) => randomData(elementCount(input.shape), config.lo, config.hi, sampleSeed(config.seed, i, k))),
  };
}

/** Check one array per input (shapes, equal sample counts); slices each sample without copying. */
export function npySource(inputs: readonly InputDesc[], arrays: readonly { name: string; array: NpyArray }[]): SampleSource {
  if (arrays.length !== inputs.length) {
    throw new Error(`the model has ${String(inputs.length)} input${inputs.length === 1 ? '' : 's'}; give one .npy per input (got ${String(arrays.length)})`);
  }
  const counts = inputs.map((input, k) => {
    const file = arrays[k];
    if (!file) throw new Error(`no .npy for input "${input.name}"`);
    return samplesInArray(file.array.shape, input, file.name);
  });
  const total = counts[0] ?? 0;
  counts.forEach((n, k) => {
    if (n !== total) {
      throw new Error(`${arrays[k]?.name ?? ''} has ${String(n)} samples but ${arrays[0]?.name ?? ''} has ${String(total)}: every input needs the same number`);
    }
  });
  if (total === 0) throw new Error(`${arrays[0]?.name ?? '.npy'} holds no samples (first axis is 0)`);
  const sizes = inputs.map((input) => elementCount(input.shape));
  return {
    total,
    sample: (i) => arrays.map((file, k) => {
      const size = sizes[k] ?? 0;
      return file.array.data.subarray(i * size, (i + 1) * size);
    }),
  };
}

/** Decodes an image file into RGBA bytes of exactly width × height (stretched, no cropping). */
export type DecodeImage = (file: Blob, width: number, height: number) => Promise<Uint8ClampedArray>;

export function imageSource(
  inputs: readonly InputDesc[],
  files: readonly File[],
  normalization: Normalization,
  decode: DecodeImage,
): SampleSource {
  const input = inputs[0];
  if (inputs.length !== 1 || !input) {
    throw new Error(`images can feed a model with one input; this one has ${String(inputs.length)} (use .npy files)`);
  }
  const layout = imageLayout(input);
  if (files.length === 0) throw new Error('no image files to calibrate with');
  return {
    total: files.length,
    sample: async (i) => {
      const file = files[i];
      if (!file) throw new Error(`image ${String(i)} is missing`);
      let rgba: Uint8ClampedArray;
      try {
        rgba = await decode(file, layout.width, layout.height);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        throw new Error(`image ${file.name} (sample ${String(i)}) could not be decoded: ${message}`, { cause: error });
      }
      return [rgbaToInput(rgba, layout, normalization)];
    },
  };
}
