import { describe, expect, it } from 'vitest';
import { describeNormalization, isImageFile, parseNumberList, rgbaToInput, validateNormalization } from './preprocess';
import { elementCount, imageLayout, samplesInArray } from './shapes';

describe('rgbaToInput', () => {
  const layout = { height: 1, width: 2, channels: 3 };
  const rgba = new Uint8Array([0, 51, 255, 255, 255, 0, 102, 128]);

  it('maps 0…255 linearly to [min, max], dropping alpha', () => {
    const out = rgbaToInput(rgba, layout, { kind: 'range', min: 0, max: 1 });
    expect([...out]).toEqual([0, 0.2, 1, 1, 0, 0.4].map(Math.fround));
    const signed = rgbaToInput(rgba, layout, { kind: 'range', min: -1, max: 1 });
    expect(signed[0]).toBe(-1);
    expect(signed[2]).toBe(1);
  });

  it('applies per-channel mean/std, or one value for all channels', () => {
    const out = rgbaToInput(rgba, layout, { kind: 'meanstd', mean: [127.5], std: [127.5] });
    expect(out[0]).toBeCloseTo(-1, 6);
    expect(out[2]).toBeCloseTo(1, 6);
    const per = rgbaToInput(rgba, layout, { kind: 'meanstd', mean: [0, 51, 100], std: [1, 2, 5] });
    expect([...per]).toEqual([0, 0, 31, 255, -25.5, 0.4].map(Math.fround));
  });

  it('takes BT.601 luma for one channel and keeps alpha for four', () => {
    const gray = rgbaToInput(new Uint8Array([255, 0, 0, 255, 0, 0, 255, 255]), { height: 2, width: 1, channels: 1 }, { kind: 'range', min: 0, max: 255 });
    expect(gray[0]).toBeCloseTo(0.299 * 255, 4);
    expect(gray[1]).toBeCloseTo(0.114 * 255, 4);
    const four = rgbaToInput(rgba, { height: 1, width: 2, channels: 4 }, { kind: 'range', min: 0, max: 255 });
    expect([...four]).toEqual([...rgba]);
  });

  it('checks the pixel count', () => {
    expect(() => rgbaToInput(new Uint8Array(4), layout, { kind: 'range', min: 0, max: 1 })).toThrow(/expected 8 RGBA bytes for 2×1, got 4/);
  });
});

describe('normalization settings', () => {
  it('validates', () => {
    expect(() => { validateNormalization({ kind: 'range', min: 0, max: 1 }, 3); }).not.toThrow();
    expect(() => { validateNormalization({ kind: 'range', min: 1, max: 1 }, 3); }).toThrow(/differ/);
    expect(() => { validateNormalization({ kind: 'range', min: NaN, max: 1 }, 3); }).toThrow(/numbers/);
    expect(() => { validateNormalization({ kind: 'meanstd', mean: [1, 2], std: [1] }, 3); }).toThrow(/mean needs 1 or 3 values, got 2/);
    expect(() => { validateNormalization({ kind: 'meanstd', mean: [1], std: [0] }, 3); }).toThrow(/std must not be 0/);
    expect(() => { validateNormalization({ kind: 'meanstd', mean: parseNumberList('1, x'), std: [1] }, 3); }).toThrow(/mean needs/);
  });
  it('parses lists and describes itself', () => {
    expect(parseNumberList(' 123.7, 116.3 ;103.5 ')).toEqual([123.7, 116.3, 103.5]);
    expect(describeNormalization({ kind: 'range', min: -1, max: 1 })).toBe('pixel 0…255 → [-1, 1]');
    expect(describeNormalization({ kind: 'meanstd', mean: [127.5], std: [127.5] })).toBe('(pixel − [127.5]) / [127.5]');
  });
  it('recognises image files', () => {
    expect(isImageFile('a.PNG', '')).toBe(true);
    expect(isImageFile('b', 'image/jpeg')).toBe(true);
    expect(isImageFile('notes.txt', 'text/plain')).toBe(false);
    expect(isImageFile('.DS_Store', '')).toBe(false);
  });
});

describe('shapes', () => {
  const image = { name: 'image', shape: [1, 32, 32, 3], dtype: 'FLOAT32' };

  it('counts samples with or without the batch dimension', () => {
    expect(samplesInArray([16, 1, 32, 32, 3], image, 'x.npy')).toBe(16);
    expect(samplesInArray([5, 32, 32, 3], image, 'x.npy')).toBe(5);
    expect(samplesInArray([3, 4], { name: 'v', shape: [4], dtype: 'FLOAT32' }, 'v.npy')).toBe(3);
  });

  it('names expected vs got on a mismatch', () => {
    expect(() => samplesInArray([16, 32, 32, 1], image, 'gray.npy')).toThrow(
      'gray.npy: shape (16, 32, 32, 1) does not fit input "image": expected (N, 1, 32, 32, 3) or (N, 32, 32, 3) (first axis = samples), got (16, 32, 32, 1)',
    );
    expect(() => samplesInArray([], image, 's.npy')).toThrow(/got \(\)/);
  });

  it('finds the image layout of NHWC and HWC inputs', () => {
    expect(imageLayout(image)).toEqual({ height: 32, width: 32, channels: 3 });
    expect(imageLayout({ name: 'g', shape: [28, 28, 1], dtype: 'FLOAT32' })).toEqual({ height: 28, width: 28, channels: 1 });
    expect(() => imageLayout({ name: 'v', shape: [1, 16], dtype: 'FLOAT32' })).toThrow(/is not an image/);
    expect(() => imageLayout({ name: 'b', shape: [8, 32, 32, 3], dtype: 'FLOAT32' })).toThrow(/batch 8/);
    expect(() => imageLayout({ name: 'c', shape: [1, 4, 4, 2], dtype: 'FLOAT32' })).toThrow(/2 channels/);
    expect(elementCount([1, 32, 32, 3])).toBe(3072);
    expect(elementCount([])).toBe(1);
  });
});
