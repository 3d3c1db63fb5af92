import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { npy } from '../calibration/npy.test-util';
import { parseLabels } from './labels';

const fixture = (file: string) => new Uint8Array(readFileSync(`tests/fixtures/npy/${file}`));
const int64 = (values: number[]) => new Uint8Array(new BigInt64Array(values.map(BigInt)).buffer);

describe('parseLabels', () => {
  it('reads one class per sample from [N] and [N, 1] integer arrays', () => {
    expect(parseLabels('l.npy', npy('<i8', '(4,)', int64([0, 3, 1, 2])))).toEqual({ name: 'l.npy', classes: [0, 3, 1, 2] });
    expect(parseLabels('l.npy', npy('<i8', '(2, 1)', int64([5, 0]))).classes).toEqual([5, 0]);
    expect(parseLabels('l.npy', npy('|u1', '(3,)', new Uint8Array([0, 255, 7]))).classes).toEqual([0, 255, 7]);
  });

  it('refuses what the CLI refuses, naming the file', () => {
    // The crate writer's files: float, bool, a [2, 2] array, negative classes.
    expect(() => parseLabels('f.npy', fixture('f32.npy'))).toThrow('f.npy: labels are <f4: an integer type');
    expect(() => parseLabels('b.npy', fixture('bool.npy'))).toThrow('labels are |b1');
    expect(() => parseLabels('u.npy', fixture('u8.npy'))).toThrow('labels have shape (2, 2): one class per sample');
    expect(() => parseLabels('i.npy', fixture('i8.npy'))).toThrow('i.npy: label 0 is -128: classes count from 0');
    expect(() => parseLabels('big.npy', npy('<i8', '(1,)', int64([2 ** 40])))).toThrow('label 0 is too large');
    expect(() => parseLabels('t.npy', new Uint8Array([0x93, 0x4e]))).toThrow(/^t\.npy: /);
  });
});
