// Test data made here, byte by byte: .npy and PNG files, noise, and the shape text the page shows.
import { readFileSync } from 'node:fs';
import { deflateSync } from 'node:zlib';

export function shapeText(tensor) {
  if (tensor.shape.length === 0) return 'scalar';
  const sig = tensor.shape_signature;
  return tensor.shape
    .map((d, i) => (sig && sig.length === tensor.shape.length && sig[i] < 0 ? '?' : String(d)))
    .join('\u00d7');
}

export function pseudoRandomBytes(n, seed) {
  let s = seed >>> 0;
  return new Uint8Array(n).map(() => {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    return s >>> 24;
  });
}

/** Rows (first axis) of a float32 .npy, each as a plain array. */
export function npyRows(path) {
  const all = readFileSync(path);
  const headerLen = all.readUInt16LE(8);
  const header = all.subarray(10, 10 + headerLen).toString('latin1');
  if (!header.includes("'<f4'")) throw new Error(`${path}: not float32`);
  const shape = /'shape': \(([^)]*)\)/.exec(header)?.[1].split(',').map((s) => s.trim()).filter((s) => s !== '').map(Number) ?? [];
  const data = new Float32Array(all.buffer.slice(all.byteOffset + 10 + headerLen, all.byteOffset + all.length));
  const per = shape.slice(1).reduce((a, b) => a * b, 1);
  return Array.from({ length: shape[0] ?? 0 }, (_, r) => Array.from(data.subarray(r * per, (r + 1) * per)));
}

/** A little-endian .npy (version 1.0) of `data` (float32 unless `descr` says), as numpy.save writes it. */
export function npyBytes(shape, data, descr = '<f4') {
  const dims = shape.length === 1 ? `${String(shape[0])},` : shape.join(', ');
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': (${dims}), }`;
  header += ' '.repeat((64 - ((10 + header.length + 1) % 64)) % 64) + '\n';
  const out = Buffer.alloc(10 + header.length + data.byteLength);
  Buffer.from([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0]).copy(out, 0);
  out.writeUInt16LE(header.length, 8);
  out.write(header, 10, 'latin1');
  Buffer.from(data.buffer, data.byteOffset, data.byteLength).copy(out, 10 + header.length);
  return out;
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes) {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** An RGB PNG of width × height with pixel (x, y) = rgb(x, y). */
export function pngBytes(width, height, rgb) {
  const chunk = (type, data) => {
    const head = Buffer.alloc(8);
    head.writeUInt32BE(data.length, 0);
    head.write(type, 4, 'latin1');
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
    return Buffer.concat([head, data, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8); // 8-bit RGB
  const raw = Buffer.alloc(height * (1 + width * 3));
  for (let y = 0; y < height; y++) {
    raw[y * (1 + width * 3)] = 0; // filter: none
    for (let x = 0; x < width; x++) raw.set(rgb(x, y), y * (1 + width * 3) + 1 + x * 3);
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
