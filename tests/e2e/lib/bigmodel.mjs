// A 300+ operator fp16 model written here byte by byte (a minimal FlatBuffers writer for the
// TFLite schema), so the big-graph checks need no committed multi-MB file: `blocks` residual
// blocks of DEQUANTIZE(fp16 bias) → ADD → RELU / LOGISTIC → MUL → ADD(skip) → LOGISTIC, on
// 1×4×4×8 float32 (values stay in (0, 1)). Seven operators per block, one of them a
// constant-weight DEQUANTIZE (folded by the page). LiteRT 2.3 loads and runs the file. Block
// `deep` (near the end) has bias −100: its gate LOGISTIC gives ~1e-44, which int8 holds as 0, so
// that op is the worst of a float-vs-int8 comparison, far from the top of the graph.

/** Builtin operator codes and enum values of the TFLite schema (schema.fbs). */
const OP = { ADD: 0, DEQUANTIZE: 6, LOGISTIC: 14, MUL: 18, RELU: 19 };
const TENSOR_TYPE = { FLOAT32: 0, FLOAT16: 1 };
const BUILTIN_OPTIONS = { AddOptions: 11, MulOptions: 21 };

// Values to write: a table lists its fields by id; a field is [kind, value], kind one of
// u8 / i32 / u32 (inline scalars) or off (a table, vector or string, written after its parent).
const table = (fields) => ({ t: 'table', fields });
const vec = (kind, items) => ({ t: 'vec', kind, items });
const str = (s) => ({ t: 'str', s });

/** Serializes `root` front to back (children after parents, so every uoffset is positive), with file identifier `ident`. */
function serialize(root, ident) {
  let buf = new Uint8Array(1 << 16);
  let view = new DataView(buf.buffer);
  let end = 0;
  const reserve = (n, align) => {
    end = Math.ceil(end / align) * align;
    while (end + n > buf.length) {
      const bigger = new Uint8Array(buf.length * 2);
      bigger.set(buf);
      buf = bigger;
      view = new DataView(buf.buffer);
    }
    const at = end;
    end += n;
    return at;
  };
  const queue = [];
  const ref = (slot, value) => queue.push({ slot, value });
  reserve(8, 4);
  ref(0, root);
  for (let i = 0; i < 4; i++) view.setUint8(4 + i, ident.charCodeAt(i));
  while (queue.length > 0) {
    const { slot, value } = queue.shift();
    let at;
    if (value.t === 'table') {
      const n = value.fields.length;
      const vtable = reserve(4 + 2 * n, 2);
      at = reserve(4 + 4 * n, 4);
      view.setUint16(vtable, 4 + 2 * n, true);
      view.setUint16(vtable + 2, 4 + 4 * n, true);
      view.setInt32(at, at - vtable, true);
      value.fields.forEach((field, i) => {
        const fieldAt = at + 4 + 4 * i;
        view.setUint16(vtable + 4 + 2 * i, field === undefined ? 0 : 4 + 4 * i, true);
        if (field === undefined) return;
        const [kind, v] = field;
        if (kind === 'u8') view.setUint8(fieldAt, v);
        else if (kind === 'i32') view.setInt32(fieldAt, v, true);
        else if (kind === 'u32') view.setUint32(fieldAt, v, true);
        else ref(fieldAt, v);
      });
    } else if (value.t === 'str') {
      const bytes = new TextEncoder().encode(value.s);
      at = reserve(4 + bytes.length + 1, 4);
      view.setUint32(at, bytes.length, true);
      buf.set(bytes, at + 4);
    } else {
      const size = value.kind === 'u8' ? 1 : 4;
      at = reserve(4 + size * value.items.length, value.kind === 'u8' ? 16 : 4);
      view.setUint32(at, value.items.length, true);
      value.items.forEach((item, i) => {
        const itemAt = at + 4 + size * i;
        if (value.kind === 'u8') view.setUint8(itemAt, item);
        else if (value.kind === 'i32') view.setInt32(itemAt, item, true);
        else ref(itemAt, item);
      });
    }
    view.setUint32(slot, at - slot, true);
  }
  return buf.slice(0, Math.ceil(end / 4) * 4);
}

/** IEEE half-precision bits of a small float (normal range, rounded to nearest). */
function f16(x) {
  const f = new Float32Array([x]);
  const u = new Uint32Array(f.buffer)[0];
  const sign = (u >>> 16) & 0x8000;
  const exp = ((u >>> 23) & 0xff) - 127 + 15;
  const mant = (u >>> 13) & 0x3ff;
  if (x === 0) return sign;
  return sign | (exp << 10) | mant;
}

/**
 * The model's bytes and what it holds: `ops` operators, `dequantize` of them constant-weight
 * DEQUANTIZE, the index of the `deep` block (bias −100); tensors are named `block_<i>/…`.
 */
export function bigFp16Model(blocks = 50) {
  const deep = blocks - 5;
  const shape = [1, 4, 4, 8];
  const tensors = [];
  const buffers = [table([])]; // buffer 0: empty, for tensors without data
  const operators = [];
  const tensor = (name, dims, type, data) => {
    let buffer = 0;
    if (data) {
      buffers.push(table([['off', vec('u8', [...data])]]));
      buffer = buffers.length - 1;
    }
    tensors.push(table([['off', vec('i32', dims)], ['u8', type], ['u32', buffer], ['off', str(name)]]));
    return tensors.length - 1;
  };
  const opcodes = [OP.DEQUANTIZE, OP.ADD, OP.RELU, OP.LOGISTIC, OP.MUL];
  const op = (code, inputs, outputs) => {
    const options = code === OP.ADD ? BUILTIN_OPTIONS.AddOptions : code === OP.MUL ? BUILTIN_OPTIONS.MulOptions : 0;
    const fields = [['u32', opcodes.indexOf(code)], ['off', vec('i32', inputs)], ['off', vec('i32', outputs)]];
    if (options !== 0) fields.push(['u8', options], ['off', table([['u8', 0]])]);
    operators.push(table(fields));
  };
  const input = tensor('input', shape, TENSOR_TYPE.FLOAT32);
  let x = input;
  for (let b = 0; b < blocks; b++) {
    const bias = new Uint8Array(16);
    const dv = new DataView(bias.buffer);
    for (let c = 0; c < 8; c++) dv.setUint16(2 * c, f16(b === deep ? -100 : ((b * 8 + c) % 17) / 16 - 0.5), true);
    const w16 = tensor(`block_${b}/bias_fp16`, [8], TENSOR_TYPE.FLOAT16, bias);
    const w = tensor(`block_${b}/bias`, [8], TENSOR_TYPE.FLOAT32);
    const a = tensor(`block_${b}/add`, shape, TENSOR_TYPE.FLOAT32);
    const r = tensor(`block_${b}/relu`, shape, TENSOR_TYPE.FLOAT32);
    const l = tensor(`block_${b}/gate`, shape, TENSOR_TYPE.FLOAT32);
    const m = tensor(`block_${b}/mul`, shape, TENSOR_TYPE.FLOAT32);
    const sum = tensor(`block_${b}/residual`, shape, TENSOR_TYPE.FLOAT32);
    const y = tensor(b === blocks - 1 ? 'output' : `block_${b}/out`, shape, TENSOR_TYPE.FLOAT32);
    op(OP.DEQUANTIZE, [w16], [w]);
    op(OP.ADD, [x, w], [a]);
    op(OP.RELU, [a], [r]);
    op(OP.LOGISTIC, [a], [l]);
    op(OP.MUL, [r, l], [m]);
    op(OP.ADD, [m, x], [sum]);
    op(OP.LOGISTIC, [sum], [y]);
    x = y;
  }
  const model = table([
    ['u32', 3],
    ['off', vec('off', opcodes.map((code) => table([['u8', code], undefined, ['i32', 1], ['i32', code]])))],
    ['off', vec('off', [table([['off', vec('off', tensors)], ['off', vec('i32', [input])], ['off', vec('i32', [x])], ['off', vec('off', operators)], ['off', str('main')]])])],
    ['off', str('zeropoint e2e big graph')],
    ['off', vec('off', buffers)],
  ]);
  return { bytes: serialize(model, 'TFL3'), ops: blocks * 7, dequantize: blocks, blocks, deep };
}
