/** `.npy` files built by hand for tests: any descr, any header version, raw data bytes. */
export function npy(descr: string, shape: string, data: Uint8Array, opts: { version?: 1 | 2 | 3; fortran?: boolean } = {}): Uint8Array {
  const version = opts.version ?? 1;
  const pre = version === 1 ? 10 : 12;
  let header = `{'descr': '${descr}', 'fortran_order': ${opts.fortran ? 'True' : 'False'}, 'shape': ${shape}, }`;
  header += ' '.repeat((64 - ((pre + header.length + 1) % 64)) % 64) + '\n';
  const out = new Uint8Array(pre + header.length + data.length);
  out.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, version, 0]);
  const view = new DataView(out.buffer);
  if (version === 1) view.setUint16(8, header.length, true);
  else view.setUint32(8, header.length, true);
  out.set(new TextEncoder().encode(header), pre);
  out.set(data, pre + header.length);
  return out;
}
