/**
 * A small reader for NumPy `.npy` files (format versions 1.0, 2.0 and 3.0), enough for
 * calibration data: C-order arrays of float or integer dtypes, converted to Float32Array.
 *
 * Why not an npm parser: the format is a dozen lines of header handling, and we want errors
 * that name the file and say what is wrong (dtype, Fortran order, truncated data) rather than
 * a generic exception. Spec: numpy.lib.format (NEP 1).
 */

/** What a `.npy` file holds, with the data widened or narrowed to float32. */
export interface NpyArray {
  /** The descr string as written, e.g. `<f4`. */
  dtype: string;
  shape: number[];
  data: Float32Array;
}

export class NpyError extends Error {
  override name = 'NpyError';
}

const MAGIC = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59]; // \x93NUMPY

interface DtypeInfo {
  size: number;
  read: (view: DataView, offset: number, little: boolean) => number;
}

const DTYPES: Record<string, DtypeInfo> = {
  f4: { size: 4, read: (v, o, le) => v.getFloat32(o, le) },
  f8: { size: 8, read: (v, o, le) => v.getFloat64(o, le) },
  f2: { size: 2, read: (v, o, le) => halfToFloat(v.getUint16(o, le)) },
  i1: { size: 1, read: (v, o) => v.getInt8(o) },
  u1: { size: 1, read: (v, o) => v.getUint8(o) },
  i2: { size: 2, read: (v, o, le) => v.getInt16(o, le) },
  u2: { size: 2, read: (v, o, le) => v.getUint16(o, le) },
  i4: { size: 4, read: (v, o, le) => v.getInt32(o, le) },
  u4: { size: 4, read: (v, o, le) => v.getUint32(o, le) },
  i8: { size: 8, read: (v, o, le) => Number(v.getBigInt64(o, le)) },
  u8: { size: 8, read: (v, o, le) => Number(v.getBigUint64(o, le)) },
  b1: { size: 1, read: (v, o) => (v.getUint8(o) === 0 ? 0 : 1) },
};

/** IEEE 754 binary16 → number. */
export function halfToFloat(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const exp = (bits >> 10) & 0x1f;
  const frac = bits & 0x3ff;
  if (exp === 0) return sign * frac * 2 ** -24;
  if (exp === 0x1f) return frac === 0 ? sign * Infinity : NaN;
  return sign * (1 + frac / 1024) * 2 ** (exp - 15);
}

/** Parse the Python-literal header dict: `{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }`. */
export function parseHeader(text: string): { descr: string; fortranOrder: boolean; shape: number[] } {
  const descr = /['"]descr['"]\s*:\s*['"]([^'"]+)['"]/.exec(text)?.[1];
  const fortran = /['"]fortran_order['"]\s*:\s*(True|False)/.exec(text)?.[1];
  const shapeText = /['"]shape['"]\s*:\s*\(([^)]*)\)/.exec(text)?.[1];
  if (descr === undefined) {
    if (/['"]descr['"]\s*:\s*\[/.test(text)) throw new NpyError('structured dtypes are not supported; save a plain numeric array');
    throw new NpyError('header has no descr (dtype)');
  }
  if (fortran === undefined) throw new NpyError('header has no fortran_order');
  if (shapeText === undefined) throw new NpyError('header has no shape');
  const shape = shapeText
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0)
    .map((s) => {
      const n = Number(s.replace(/L$/, ''));
      if (!Number.isSafeInteger(n) || n < 0) throw new NpyError(`bad dimension "${s}" in shape (${shapeText})`);
      return n;
    });
  return { descr, fortranOrder: fortran === 'True', shape };
}

/** The header of a `.npy` file (dtype, order, shape) and where its data starts. */
export interface NpyHeader {
  descr: string;
  fortranOrder: boolean;
  shape: number[];
  dataStart: number;
}

/** Parse only the header of a `.npy` file (no data is decoded). Throws NpyError. */
export function parseNpyHeader(bytes: Uint8Array): NpyHeader {
  if (bytes.length < 10 || MAGIC.some((b, i) => bytes[i] !== b)) {
    throw new NpyError('not a .npy file (the \\x93NUMPY magic is missing)');
  }
  const major = bytes[6] ?? 0;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let headerLen: number;
  let headerStart: number;
  if (major === 1) {
    headerLen = view.getUint16(8, true);
    headerStart = 10;
  } else if (major === 2 || major === 3) {
    if (bytes.length < 12) throw new NpyError('truncated header');
    headerLen = view.getUint32(8, true);
    headerStart = 12;
  } else {
    throw new NpyError(`unsupported .npy format version ${String(major)}.${String(bytes[7] ?? 0)}`);
  }
  const dataStart = headerStart + headerLen;
  if (dataStart > bytes.length) throw new NpyError('truncated header');
  const headerBytes = bytes.subarray(headerStart, dataStart);
  const header = major === 3 ? new TextDecoder('utf-8').decode(headerBytes) : latin1(headerBytes);
  return { ...parseHeader(header), dataStart };
}

/** Parse a whole `.npy` file. Throws NpyError with a readable message. */
export function parseNpy(bytes: Uint8Array): NpyArray {
  const { descr, fortranOrder, shape, dataStart } = parseNpyHeader(bytes);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const order = descr[0] ?? '';
  const code = ['<', '>', '|', '='].includes(order) ? descr.slice(1) : descr;
  const info = DTYPES[code];
  if (!info) {
    throw new NpyError(`dtype ${descr} is not supported (use float32, float64, float16 or an integer type)`);
  }
  if (fortranOrder && shape.length > 1) {
    throw new NpyError('Fortran-order arrays are not supported; save with np.ascontiguousarray(x)');
  }
  const count = shape.reduce((a, b) => a * b, 1);
  const needed = count * info.size;
  const available = bytes.length - dataStart;
  if (available < needed) {
    throw new NpyError(
      `truncated data: shape (${shape.join(', ')}) of ${descr} needs ${String(needed)} bytes, the file has ${String(available)}`,
    );
  }
  const little = order !== '>';
  let data: Float32Array;
  if (code === 'f4' && little && (bytes.byteOffset + dataStart) % 4 === 0) {
    data = new Float32Array(bytes.buffer.slice(bytes.byteOffset + dataStart, bytes.byteOffset + dataStart + needed));
  } else {
    data = new Float32Array(count);
    for (let i = 0; i < count; i++) data[i] = info.read(view, dataStart + i * info.size, little);
  }
  return { dtype: descr, shape, data };
}

function latin1(bytes: Uint8Array): string {
  let s = '';
  for (const b of bytes) s += String.fromCharCode(b);
  return s;
}

/** Write a little-endian float32 `.npy` (version 1.0): for tests and for exporting samples. */
export function writeNpy(shape: readonly number[], data: Float32Array): Uint8Array<ArrayBuffer> {
  const dims = shape.length === 1 ? `${String(shape[0])},` : shape.join(', ');
  let header = `{'descr': '<f4', 'fortran_order': False, 'shape': (${dims}), }`;
  const unpadded = 10 + header.length + 1;
  header += ' '.repeat((64 - (unpadded % 64)) % 64) + '\n';
  const out = new Uint8Array(10 + header.length + data.byteLength);
  out.set(MAGIC, 0);
  out[6] = 1;
  out[7] = 0;
  new DataView(out.buffer).setUint16(8, header.length, true);
  for (let i = 0; i < header.length; i++) out[10 + i] = header.charCodeAt(i);
  out.set(new Uint8Array(data.buffer, data.byteOffset, data.byteLength), 10 + header.length);
  return out;
}
