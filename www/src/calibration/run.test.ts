import { describe, expect, it } from 'vitest';
import { FakeCalibrator } from './fake.test-util';
import { writeNpy } from './npy';
import { calibrate, type CalibrationEngine, type RunEnv } from './run';
import { imageSource, npySource, randomSource, sampleSeed } from './sources';
import type { CalibrationConfig, InputDesc } from './types';
import { describeSource, methodString, validateMethod, validateRandom } from './types';
import { isClipped, rangeBar, signatureStatsExport, statsExport, statsFileName } from './view';

const X: InputDesc = { name: 'x', shape: [1, 4], dtype: 'FLOAT32' };

/** The fake engine's randomData: a deterministic ramp that shows its arguments. */
const randomData = (n: number, lo: number, hi: number, seed: number): Float32Array =>
  Float32Array.from({ length: n }, (_, i) => lo + ((seed + i) % 7) / 7 * (hi - lo));

function env(overrides: Partial<RunEnv> = {}): RunEnv & { progress: number[] } {
  const progress: number[] = [];
  const engine: CalibrationEngine = {
    // The real constructor takes the model bytes; the fake has one input "x" of 1×4.
    Calibrator: class extends FakeCalibrator {
      constructor(model: Uint8Array) {
        super();
        if (model.length === 0) throw new Error('empty model');
      }
    },
    randomData,
  };
  return {
    engine,
    decodeImage: () => Promise.resolve(new Uint8ClampedArray(0)),
    onProgress: (p) => progress.push(p.done),
    isCancelled: () => false,
    yieldToEventLoop: () => Promise.resolve(),
    progress,
    ...overrides,
  };
}

describe('calibrate one signature', () => {
  it('makes the Calibrator for the signature asked for', async () => {
    const made: (string | undefined)[] = [];
    const e = env({ signature: 'encode' });
    e.engine = {
      ...e.engine,
      Calibrator: class extends FakeCalibrator {
        constructor(_model: Uint8Array, _limits?: unknown, _shapes?: unknown, signature?: string) {
          super();
          made.push(signature);
        }
      },
    };
    const out = await calibrate(new Uint8Array([1]), { source: { kind: 'random', count: 2, lo: 0, hi: 1, seed: 0 }, method: { kind: 'minmax' } }, e);
    expect(out.status).toBe('done');
    expect(made).toEqual(['encode']);
    const plain = await calibrate(new Uint8Array([1]), { source: { kind: 'random', count: 1, lo: 0, hi: 1, seed: 0 }, method: { kind: 'minmax' } }, { ...e, signature: undefined });
    expect(plain.status).toBe('done');
    expect(made).toEqual(['encode', undefined]);
  });
});

const npyFile = (name: string, shape: number[], data?: Float32Array): File =>
  new File([writeNpy(shape, data ?? new Float32Array(shape.reduce((a, b) => a * b, 1)))], name);

describe('calibrate (worker side, fake engine)', () => {
  it('runs seeded random samples and returns stats, keeping the calibrator', async () => {
    const e = env();
    const config: CalibrationConfig = { source: { kind: 'random', count: 16, lo: -2, hi: 3, seed: 7 }, method: { kind: 'percentile', percentile: 99.9 } };
    const out = await calibrate(new Uint8Array(8), config, e);
    expect(out.status).toBe('done');
    expect(out.samples).toBe(16);
    expect(out.stats?.tensors[0]?.method).toBe('percentile:99.9');
    expect(out.stats?.tensors[0]?.min).toBeGreaterThanOrEqual(-2);
    expect(out.calibrator).toBeDefined();
    expect((out.calibrator as FakeCalibrator).freed).toBe(false);
    expect(e.progress.at(-1)).toBe(16);
  });

  it('reads one .npy per input and rejects a wrong shape with expected vs got, freeing the calibrator', async () => {
    const data = Float32Array.from({ length: 12 }, (_, i) => i - 3);
    const ok = await calibrate(new Uint8Array(8), { source: { kind: 'npy', files: [npyFile('x.npy', [3, 1, 4], data)] }, method: { kind: 'minmax' } }, env());
    expect(ok.samples).toBe(3);
    expect(ok.stats?.tensors[0]).toMatchObject({ min: -3, max: 8 });

    const before = FakeCalibrator.instances.length;
    await expect(
      calibrate(new Uint8Array(8), { source: { kind: 'npy', files: [npyFile('bad.npy', [3, 5])] }, method: { kind: 'minmax' } }, env()),
    ).rejects.toThrow('bad.npy: shape (3, 5) does not fit input "x": expected (N, 1, 4) or (N, 4) (first axis = samples), got (3, 5)');
    expect(FakeCalibrator.instances[before]?.freed).toBe(true);

    await expect(
      calibrate(new Uint8Array(8), { source: { kind: 'npy', files: [new File([new Uint8Array([1, 2, 3])], 'junk.npy')] }, method: { kind: 'minmax' } }, env()),
    ).rejects.toThrow(/^junk\.npy: not a \.npy file/);
  });

  it('refuses a .npy over the sample limit before decoding it, and passes the engine limits on', async () => {
    const seen: unknown[] = [];
    const e = env({ maxSamples: 2, limits: { max_tensor_bytes: 7, max_arena_bytes: 8, max_constant_bytes: 9 } });
    e.engine = {
      ...e.engine,
      Calibrator: class extends FakeCalibrator {
        constructor(_model: Uint8Array, limits?: unknown) {
          super();
          seen.push(limits);
        }
      },
    };
    await expect(
      calibrate(new Uint8Array(8), { source: { kind: 'npy', files: [npyFile('x.npy', [3, 1, 4])] }, method: { kind: 'minmax' } }, e),
    ).rejects.toThrow(/^x\.npy holds 3 samples, more than the limit of 2 calibration samples/);
    const ok = await calibrate(new Uint8Array(8), { source: { kind: 'npy', files: [npyFile('x.npy', [2, 1, 4])] }, method: { kind: 'minmax' } }, e);
    expect(ok.samples).toBe(2);
    expect(seen).toEqual([
      { max_tensor_bytes: 7, max_arena_bytes: 8, max_constant_bytes: 9 },
      { max_tensor_bytes: 7, max_arena_bytes: 8, max_constant_bytes: 9 },
    ]);
  });

  it('a cancelled run returns no stats and frees the calibrator', async () => {
    let n = 0;
    const out = await calibrate(
      new Uint8Array(8),
      { source: { kind: 'random', count: 2000, lo: 0, hi: 1, seed: 1 }, method: { kind: 'mse' } },
      env({ isCancelled: () => ++n > 5 }),
    );
    expect(out).toMatchObject({ status: 'cancelled', stats: undefined, calibrator: undefined });
    expect(FakeCalibrator.instances.at(-1)?.freed).toBe(true);
  });

  it('validates settings before running', async () => {
    await expect(
      calibrate(new Uint8Array(8), { source: { kind: 'random', count: 0, lo: 0, hi: 1, seed: 1 }, method: { kind: 'minmax' } }, env()),
    ).rejects.toThrow(/sample count/);
    await expect(
      calibrate(new Uint8Array(8), { source: { kind: 'random', count: 1, lo: 0, hi: 1, seed: 1 }, method: { kind: 'percentile', percentile: 0 } }, env()),
    ).rejects.toThrow(/percentile must be in/);
    await expect(
      calibrate(new Uint8Array(8), { source: { kind: 'images', files: [new File([], 'a.png')], normalization: { kind: 'range', min: 0, max: 1 } }, method: { kind: 'minmax' } }, env()),
    ).rejects.toThrow(/is not an image/);
  });
});

describe('sources', () => {
  it('random: distinct reproducible seeds per sample and input', () => {
    const src = randomSource([X, { name: 'y', shape: [2], dtype: 'FLOAT32' }], { count: 3, lo: 0, hi: 1, seed: 5 }, randomData);
    expect(src.total).toBe(3);
    const a = src.sample(1) as Float32Array[];
    expect(a.map((x) => x.length)).toEqual([4, 2]);
    expect(a).toEqual(src.sample(1));
    const seeds = new Set([0, 1, 2].flatMap((i) => [0, 1].map((k) => sampleSeed(5, i, k))));
    expect(seeds.size).toBe(6);
    expect(sampleSeed(5, 1, 0)).not.toBe(sampleSeed(6, 1, 0));
  });

  it('npy: equal sample counts across inputs, zero-copy slices', () => {
    const y: InputDesc = { name: 'y', shape: [2], dtype: 'FLOAT32' };
    const xs = { name: 'x.npy', array: { dtype: '<f4', shape: [2, 4], data: Float32Array.from({ length: 8 }, (_, i) => i) } };
    const ys = { name: 'y.npy', array: { dtype: '<f4', shape: [2, 2], data: new Float32Array(4) } };
    const src = npySource([X, y], [xs, ys]);
    const s1 = src.sample(1) as Float32Array[];
    expect([...(s1[0] ?? [])]).toEqual([4, 5, 6, 7]);
    expect(s1[0]?.buffer).toBe(xs.array.data.buffer);
    expect(() => npySource([X, y], [xs])).toThrow('the model has 2 inputs; give one .npy per input (got 1)');
    const short = { name: 'y3.npy', array: { dtype: '<f4', shape: [3, 2], data: new Float32Array(6) } };
    expect(() => npySource([X, y], [xs, short])).toThrow('y3.npy has 3 samples but x.npy has 2: every input needs the same number');
    expect(() => npySource([X], [{ name: 'e.npy', array: { dtype: '<f4', shape: [0, 4], data: new Float32Array(0) } }])).toThrow(/holds no samples/);
  });

  it('images: decode to the input size, normalise, name undecodable files', async () => {
    const img: InputDesc = { name: 'image', shape: [1, 2, 2, 3], dtype: 'FLOAT32' };
    const sizes: string[] = [];
    const src = imageSource([img], [new File([], 'a.png'), new File([], 'b.png')], { kind: 'range', min: 0, max: 1 }, (file, w, h) => {
      sizes.push(`${String(w)}x${String(h)}`);
      if ((file as File).name === 'b.png') return Promise.reject(new Error('The source image could not be decoded.'));
      return Promise.resolve(new Uint8ClampedArray(16).fill(255));
    });
    const [a] = await src.sample(0);
    expect([...(a ?? [])]).toEqual(new Array(12).fill(1));
    expect(sizes).toEqual(['2x2']);
    await expect(src.sample(1)).rejects.toThrow('image b.png (sample 1) could not be decoded: The source image could not be decoded.');
    expect(() => imageSource([img, X], [], { kind: 'range', min: 0, max: 1 }, () => Promise.reject(new Error()))).toThrow(/one input/);
    expect(() => imageSource([img], [], { kind: 'range', min: 0, max: 1 }, () => Promise.reject(new Error()))).toThrow(/no image files/);
  });
});

describe('settings and view helpers', () => {
  it('method strings and validation', () => {
    expect(methodString({ kind: 'minmax' })).toBe('minmax');
    expect(methodString({ kind: 'percentile', percentile: 99.99 })).toBe('percentile:99.99');
    expect(methodString({ kind: 'moving-average' })).toBe('moving-average');
    expect(() => { validateMethod({ kind: 'percentile', percentile: 101 }); }).toThrow();
    expect(() => { validateMethod({ kind: 'percentile', percentile: NaN }); }).toThrow();
    expect(() => { validateRandom({ count: 1.5, lo: 0, hi: 1, seed: 0 }); }).toThrow(/whole number/);
    expect(() => { validateRandom({ count: 2, lo: 1, hi: 1, seed: 0 }); }).toThrow('random range needs lo < hi (as float32), got [1, 1]');
    expect(() => { validateRandom({ count: 2, lo: 2, hi: 1, seed: 0 }); }).toThrow(/lo < hi/);
    // 1 + 1e-9 is 1 in float32: an empty range.
    expect(() => { validateRandom({ count: 2, lo: 1, hi: 1 + 1e-9, seed: 0 }); }).toThrow(/lo < hi \(as float32\)/);
    expect(() => { validateRandom({ count: 2, lo: 0, hi: 1e40, seed: 0 }); }).toThrow('random range hi = 1e+40 is beyond float32');
    expect(() => { validateRandom({ count: 2, lo: -1e39, hi: 0, seed: 0 }); }).toThrow(/random range lo = -1e\+39 is beyond float32/);
    expect(() => { validateRandom({ count: 2, lo: 0, hi: Infinity, seed: 0 }); }).toThrow('random range hi must be a number, got Infinity');
    expect(() => { validateRandom({ count: 2, lo: NaN, hi: 1, seed: 0 }); }).toThrow('random range lo must be a number, got NaN');
    expect(() => { validateRandom({ count: 2, lo: -3e38, hi: 3e38, seed: 0 }); }).toThrow(/wider than float32/);
    expect(() => { validateRandom({ count: 2, lo: -1e38, hi: 2e38, seed: 0 }); }).not.toThrow();
    expect(() => { validateRandom({ count: 2, lo: 0, hi: 1, seed: -1 }); }).toThrow(/seed/);
    expect(describeSource({ kind: 'random', count: 2, lo: -1, hi: 1, seed: 3 })).toBe('seeded random data in [-1, 1], seed 3');
    expect(describeSource({ kind: 'images', files: [new File([], 'a.png')], normalization: { kind: 'range', min: 0, max: 1 } })).toBe('1 image');
  });

  it('range bar covers observed, chosen and zero', () => {
    const bar = rangeBar({ min: 1, max: 5, chosen_min: 0, chosen_max: 4 });
    expect(bar.observed).toEqual({ left: 20, width: 80 });
    expect(bar.chosen).toEqual({ left: 0, width: 80 });
    expect(bar.zero).toBe(0);
    const neg = rangeBar({ min: -3, max: 1, chosen_min: -3, chosen_max: 1 });
    expect(neg.zero).toBe(75);
    expect(rangeBar({ min: 0, max: 0, chosen_min: 0, chosen_max: 0 })).toEqual({
      observed: { left: 50, width: 0 },
      chosen: { left: 50, width: 0 },
      zero: undefined,
    });
    expect(isClipped({ min: -3, max: 1, chosen_min: -2, chosen_max: 1 })).toBe(true);
    expect(isClipped({ min: -3, max: 1, chosen_min: -3, chosen_max: 1 })).toBe(false);
  });

  it('export JSON and file name', () => {
    const stats = { samples: 2, tensors: [] };
    expect(statsExport('m.tflite', 'mse', 'src', stats)).toEqual({
      format: 'zeropoint-calibration-stats',
      version: 1,
      model: 'm.tflite',
      method: 'mse',
      source: 'src',
      tfCaches: 'golden',
      samples: 2,
      tensors: [],
    });
    expect(statsExport('m.tflite', 'minmax', 'src', stats, '32,1024,327680').tfCaches).toBe('32,1024,327680');
    // A calibration by signature: the CLI's per-signature format, each signature's stats whole.
    const other = { samples: 3, tensors: [], nested: [] };
    expect(signatureStatsExport('m.tflite', 'minmax', [{ key: 'a', source: 'sa', stats }, { key: 'b', source: 'sb', stats: other }])).toEqual({
      format: 'zeropoint-signature-stats',
      version: 1,
      model: 'm.tflite',
      method: 'minmax',
      tfCaches: 'golden',
      signatures: [
        { key: 'a', source: 'sa', stats },
        { key: 'b', source: 'sb', stats: other },
      ],
    });
    expect(statsFileName('example.tflite')).toBe('example.calibration.json');
    expect(statsFileName('.tflite')).toBe('model.calibration.json');
    expect(statsFileName('weights.bin')).toBe('weights.bin.calibration.json');
  });
});
