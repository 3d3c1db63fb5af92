import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { halfToFloat, NpyError, parseHeader, parseNpy, writeNpy } from './npy';
import { npy } from './npy.test-util';

function bytesOf(values: number[], size: number, write: (v: DataView, o: number, x: number) => void): Uint8Array {
  const out = new Uint8Array(values.length * size);
  const view = new DataView(out.buffer);
  values.forEach((x, i) => { write(view, i * size, x); });
  return out;
}

describe('parseNpy', () => {
  it('round-trips float32 written by writeNpy', () => {
    const data = new Float32Array([1.5, -2, 3.25, 0, 1e-7, 65504]);
    const parsed = parseNpy(writeNpy([2, 3], data));
    expect(parsed.dtype).toBe('<f4');
    expect(parsed.shape).toEqual([2, 3]);
    expect([...parsed.data]).toEqual([...data]);
  });

  it('keeps a 64-byte aligned header (as numpy writes it)', () => {
    const bytes = writeNpy([4], new Float32Array(4));
    const headerLen = new DataView(bytes.buffer).getUint16(8, true);
    expect((10 + headerLen) % 64).toBe(0);
    expect(parseNpy(bytes).shape).toEqual([4]);
  });

  it('reads float64, float16, integers and big-endian, converting to float32', () => {
    const f8 = npy('<f8', '(3,)', bytesOf([0.1, -1, 2.5], 8, (v, o, x) => { v.setFloat64(o, x, true); }));
    expect([...parseNpy(f8).data]).toEqual([Math.fround(0.1), -1, 2.5]);
    const f2 = npy('<f2', '(3,)', bytesOf([0x3c00, 0xc000, 0x3555], 2, (v, o, x) => { v.setUint16(o, x, true); }));
    expect([...parseNpy(f2).data]).toEqual([1, -2, Math.fround(0.333251953125)]);
    const u1 = npy('|u1', '(2, 2)', new Uint8Array([0, 127, 128, 255]));
    expect(parseNpy(u1)).toMatchObject({ dtype: '|u1', shape: [2, 2] });
    expect([...parseNpy(u1).data]).toEqual([0, 127, 128, 255]);
    const i1 = npy('|i1', '(2,)', new Uint8Array([0xff, 0x80]));
    expect([...parseNpy(i1).data]).toEqual([-1, -128]);
    const i4be = npy('>i4', '(2,)', bytesOf([-7, 70000], 4, (v, o, x) => { v.setInt32(o, x, false); }));
    expect([...parseNpy(i4be).data]).toEqual([-7, 70000]);
    const i8 = npy('<i8', '(1,)', bytesOf([-3], 8, (v, o, x) => { v.setBigInt64(o, BigInt(x), true); }));
    expect([...parseNpy(i8).data]).toEqual([-3]);
  });

  it('reads format versions 2.0 and 3.0 and scalars', () => {
    const v2 = npy('<f4', '(1, 2)', bytesOf([1, 2], 4, (v, o, x) => { v.setFloat32(o, x, true); }), { version: 2 });
    expect(parseNpy(v2).shape).toEqual([1, 2]);
    const v3 = npy('<f4', '()', bytesOf([5], 4, (v, o, x) => { v.setFloat32(o, x, true); }), { version: 3 });
    expect(parseNpy(v3)).toMatchObject({ shape: [] });
    expect([...parseNpy(v3).data]).toEqual([5]);
  });

  it('names what is wrong', () => {
    const ok = writeNpy([2, 2], new Float32Array(4));
    expect(() => parseNpy(new Uint8Array([1, 2, 3]))).toThrow(/not a \.npy file/);
    expect(() => parseNpy(ok.slice(0, ok.length - 3))).toThrow(/truncated data: shape \(2, 2\) of <f4 needs 16 bytes, the file has 13/);
    expect(() => parseNpy(ok.slice(0, 20))).toThrow(/truncated header/);
    expect(() => parseNpy(npy('<c8', '(1,)', new Uint8Array(8)))).toThrow(/dtype <c8 is not supported/);
    expect(() => parseNpy(npy('<U3', '(1,)', new Uint8Array(12)))).toThrow(NpyError);
    expect(() => parseNpy(npy('|O', '(1,)', new Uint8Array(8)))).toThrow(/dtype \|O is not supported/);
    expect(() => parseNpy(npy('<f4', '(2, 2)', new Uint8Array(16), { fortran: true }))).toThrow(/Fortran-order/);
    const bad = ok.slice();
    bad[6] = 9;
    expect(() => parseNpy(bad)).toThrow(/unsupported \.npy format version 9\.0/);
  });

  it('a 1-D Fortran-order array is the same as C order', () => {
    const bytes = npy('<f4', '(2,)', bytesOf([1, 2], 4, (v, o, x) => { v.setFloat32(o, x, true); }), { fortran: true });
    expect([...parseNpy(bytes).data]).toEqual([1, 2]);
  });

  it('copes with data at an unaligned offset', () => {
    const inner = writeNpy([3], new Float32Array([1, 2, 3]));
    const padded = new Uint8Array(inner.length + 1);
    padded.set(inner, 1);
    expect([...parseNpy(padded.subarray(1)).data]).toEqual([1, 2, 3]);
  });
});

describe('parseHeader', () => {
  it('parses shapes with trailing commas and spaces', () => {
    expect(parseHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (16, 1, 32, 32, 3), }")).toEqual({
      descr: '<f4',
      fortranOrder: false,
      shape: [16, 1, 32, 32, 3],
    });
    expect(parseHeader("{'descr':'<f8','fortran_order':True,'shape':(7,)}").shape).toEqual([7]);
  });
  it('rejects structured dtypes and missing keys', () => {
    expect(() => parseHeader("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }")).toThrow(/structured dtypes/);
    expect(() => parseHeader("{'descr': '<f4', 'shape': (1,), }")).toThrow(/fortran_order/);
    expect(() => parseHeader("{'descr': '<f4', 'fortran_order': False}")).toThrow(/no shape/);
    expect(() => parseHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (-1,)}")).toThrow(/bad dimension/);
  });
});

describe('halfToFloat', () => {
  it('decodes normals, subnormals, infinities and NaN', () => {
    expect(halfToFloat(0x3c00)).toBe(1);
    expect(halfToFloat(0x7bff)).toBe(65504);
    expect(halfToFloat(0x0001)).toBe(2 ** -24);
    expect(halfToFloat(0x8000)).toBe(-0);
    expect(halfToFloat(0x7c00)).toBe(Infinity);
    expect(halfToFloat(0xfc00)).toBe(-Infinity);
    expect(halfToFloat(0x7e00)).toBeNaN();
  });
});

/**
 * Files written by the crate's `.npy` writer (`zeropoint::npy`, the one the CLI uses); a Rust test
 * (`npy::tests::writer_output_is_the_committed_fixtures`) fails if the writer's bytes change.
 * The values are the ones that test writes, as float32.
 */
describe('parseNpy on the crate writer\'s files (tests/fixtures/npy)', () => {
  const FIXTURES = 'tests/fixtures/npy';
  const read = (file: string) => parseNpy(new Uint8Array(readFileSync(`${FIXTURES}/${file}`)));
  const cases: [file: string, descr: string, shape: number[], values: number[]][] = [
    ['f32.npy', '<f4', [2, 4], [1.5, -2, 0, -0, 3.4028234663852886e38, Math.fround(1e-45), Infinity, NaN]],
    ['f64.npy', '<f8', [3], [Math.fround(0.1), -Infinity, 2.5]],
    ['i8.npy', '|i1', [4], [-128, -1, 0, 127]],
    ['u8.npy', '|u1', [2, 2], [0, 1, 128, 255]],
    ['i16.npy', '<i2', [3], [-32768, 0, 32767]],
    ['i32.npy', '<i4', [1, 2, 2], [-2147483648, -1, 0, Math.fround(2147483647)]],
    ['i64.npy', '<i8', [3], [-(2 ** 40), 0, Math.fround(123456789)]],
    ['bool.npy', '|b1', [2, 2], [1, 0, 0, 1]],
    ['f32_scalar.npy', '<f4', [], [7.25]],
    ['f32_empty.npy', '<f4', [0, 3], []],
  ];
  it.each(cases)('%s', (file, descr, shape, values) => {
    const a = read(file);
    expect(a.dtype).toBe(descr);
    expect(a.shape).toEqual(shape);
    expect(a.data.length).toBe(values.length);
    // Object.is: -0 is not 0, NaN is NaN.
    values.forEach((v, i) => {
      expect(Object.is(a.data[i], v), `${file}[${String(i)}] = ${String(a.data[i])}, expected ${String(v)}`).toBe(true);
    });
  });
});
