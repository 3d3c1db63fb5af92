"""Mutants of a .tflite model, deterministic from a seed: byte-level (bit flips, smashed words,
truncation, inserted and deleted bytes) and structure-aware (the model decoded with the schema's
object API, one field changed to a hostile value, packed again).

Each mutator takes the model bytes (and the decoded model for the structure-aware ones) and a
`random.Random`, and returns `(description, bytes)` or `None` when it does not apply to this
model. `mutate` picks one at random; the mutator's name is the mutant's class in the report.
"""

from __future__ import annotations

import copy
import random
import struct
from collections.abc import Callable

import flatbuffers
from ai_edge_litert import schema_py_generated as tfl

# Values that break assumptions: zero, one, negatives, type limits, powers of two around them.
INTERESTING_I32 = [0, 1, -1, 2, -2, 3, 7, 8, 255, 256, 65535, 65536, 2**31 - 1, -(2**31), 2**30, 1 << 24, 100_000]
INTERESTING_F32 = [0.0, -0.0, 1e-45, 1e-38, 1e-30, 1e12, 1e30, 3.4e38, -1.0, float("inf"), float("-inf"), float("nan")]


# --- byte level -------------------------------------------------------------------------------


def flip_bits(data: bytes, rng: random.Random) -> tuple[str, bytes]:
    b = bytearray(data)
    n = rng.choice([1, 1, 2, 4, 16])
    for _ in range(n):
        i = rng.randrange(len(b))
        b[i] ^= 1 << rng.randrange(8)
    return f"{n} bit(s) flipped", bytes(b)


def smash_word(data: bytes, rng: random.Random) -> tuple[str, bytes]:
    b = bytearray(data)
    i = rng.randrange(0, max(1, len(b) - 4)) & ~3
    v = rng.choice(INTERESTING_I32 + [len(data), len(data) - 4, len(data) + 4])
    b[i : i + 4] = struct.pack("<i", max(-(2**31), min(2**31 - 1, v)))
    return f"word at {i} set to {v}", bytes(b)


def truncate(data: bytes, rng: random.Random) -> tuple[str, bytes]:
    n = rng.randrange(0, len(data))
    return f"truncated to {n} bytes", data[:n]


def insert_bytes(data: bytes, rng: random.Random) -> tuple[str, bytes]:
    i = rng.randrange(len(data))
    k = rng.choice([1, 2, 3, 4, 8, 64])
    return f"{k} byte(s) inserted at {i}", data[:i] + bytes(rng.randrange(256) for _ in range(k)) + data[i:]


def delete_bytes(data: bytes, rng: random.Random) -> tuple[str, bytes]:
    i = rng.randrange(len(data))
    k = rng.choice([1, 2, 4, 8, 64])
    return f"{k} byte(s) deleted at {i}", data[:i] + data[i + k :]


def append_bytes(data: bytes, rng: random.Random) -> tuple[str, bytes]:
    k = rng.choice([1, 3, 7, 1024])
    return f"{k} byte(s) appended", data + bytes(rng.randrange(256) for _ in range(k))


BYTE_MUTATORS: dict[str, Callable[[bytes, random.Random], tuple[str, bytes]]] = {
    "bits": flip_bits,
    "word": smash_word,
    "truncate": truncate,
    "insert": insert_bytes,
    "delete": delete_bytes,
    "append": append_bytes,
}


# --- structure aware --------------------------------------------------------------------------


def pack(model: tfl.ModelT) -> bytes:
    builder = flatbuffers.Builder(4096)
    builder.Finish(model.Pack(builder), file_identifier=b"TFL3")
    return bytes(builder.Output())


def _name(t: tfl.TensorT) -> str:
    return t.name.decode("utf-8", "replace") if isinstance(t.name, bytes) else str(t.name)


def _subgraph(m: tfl.ModelT, rng: random.Random) -> tfl.SubGraphT | None:
    sgs = [sg for sg in (m.subgraphs or []) if sg.tensors]
    return rng.choice(sgs) if sgs else None


def tensor_shape(m: tfl.ModelT, rng: random.Random) -> str | None:
    sg = _subgraph(m, rng)
    if sg is None:
        return None
    t = rng.choice(sg.tensors)
    shape = list(t.shape if t.shape is not None else [])
    how = rng.randrange(5)
    if how == 0 and shape:
        shape[rng.randrange(len(shape))] = rng.choice([0, -1, -7, 2, 3, 1 << 20, 2**31 - 1, 100_000])
    elif how == 1:
        shape.append(rng.choice([1, 2, 0]))
    elif how == 2 and shape:
        shape.pop(rng.randrange(len(shape)))
    elif how == 3:
        shape = [rng.choice([1, 2, 3]) for _ in range(rng.choice([0, 1, 5, 7, 9]))]
    else:
        t.shapeSignature = [rng.choice([-1, -5, 0, 1, 3]) for _ in shape] or None
        return f"tensor '{_name(t)}' shape_signature {t.shapeSignature}"
    t.shape = shape
    return f"tensor '{_name(t)}' shape {shape}"


def tensor_type(m: tfl.ModelT, rng: random.Random) -> str | None:
    sg = _subgraph(m, rng)
    if sg is None:
        return None
    t = rng.choice(sg.tensors)
    t.type = rng.choice([0, 1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 15, 16, 17, 18, 19, 20, 21, 23, 99, 127])
    return f"tensor '{_name(t)}' type {t.type}"


def tensor_buffer(m: tfl.ModelT, rng: random.Random) -> str | None:
    sg = _subgraph(m, rng)
    if sg is None:
        return None
    t = rng.choice(sg.tensors)
    n = len(m.buffers or [])
    t.buffer = rng.choice([0, n, n + 5, 2**31 - 1, rng.randrange(max(1, n))])
    return f"tensor '{_name(t)}' buffer {t.buffer} of {n}"


def buffer_data(m: tfl.ModelT, rng: random.Random) -> str | None:
    full = [i for i, b in enumerate(m.buffers or []) if b.data is not None and len(b.data) > 0]
    if not full:
        return None
    i = rng.choice(full)
    data = bytes(bytearray(m.buffers[i].data))
    how = rng.randrange(4)
    if how == 0:
        data = data[: rng.randrange(len(data))]
        what = f"cut to {len(data)} bytes"
    elif how == 1:
        k = rng.choice([1, 2, 3, 4, 5, 8])
        data = data + bytes(k)
        what = f"{k} byte(s) longer"
    elif how == 2:
        floats = [rng.choice(INTERESTING_F32) for _ in range(len(data) // 4)]
        data = struct.pack(f"<{len(floats)}f", *floats)
        what = "filled with extreme floats"
    else:
        data = bytes(rng.choice([0x00, 0x7F, 0x80, 0xFF]) for _ in data)
        what = "filled with one byte"
    m.buffers[i].data = list(data)
    return f"buffer {i} {what}"


def op_io(m: tfl.ModelT, rng: random.Random) -> str | None:
    sg = _subgraph(m, rng)
    if sg is None or not sg.operators:
        return None
    k = rng.randrange(len(sg.operators))
    op = sg.operators[k]
    field = rng.choice(["inputs", "outputs", "intermediates"])
    ids = list(getattr(op, field) if getattr(op, field) is not None else [])
    n = len(sg.tensors)
    v = rng.choice([-1, -2, n, n + 10, 2**31 - 1, rng.randrange(n)])
    how = rng.randrange(3)
    if how == 0 and ids:
        ids[rng.randrange(len(ids))] = v
    elif how == 1:
        ids.append(v)
    elif ids:
        ids.pop(rng.randrange(len(ids)))
    setattr(op, field, ids)
    return f"operator {k} {field} {ids}"


def opcode(m: tfl.ModelT, rng: random.Random) -> str | None:
    if not m.operatorCodes:
        return None
    c = rng.choice(m.operatorCodes)
    how = rng.randrange(3)
    if how == 0:
        c.builtinCode = rng.choice([0, 3, 4, 9, 17, 22, 25, 32, 40, 127, 150, 160, 200, 1000])
        c.deprecatedBuiltinCode = min(c.builtinCode, 127)
        return f"opcode builtin {c.builtinCode}"
    if how == 1:
        c.version = rng.choice([0, -1, 2**31 - 1, 1, 7])
        return f"opcode version {c.version}"
    sg = _subgraph(m, rng)
    if sg is None or not sg.operators:
        return None
    op = rng.choice(sg.operators)
    op.opcodeIndex = rng.choice([len(m.operatorCodes), 2**31 - 1, 0])
    return f"operator opcode index {op.opcodeIndex}"


def options(m: tfl.ModelT, rng: random.Random) -> str | None:
    sg = _subgraph(m, rng)
    ops = [op for op in (sg.operators if sg else []) or [] if op.builtinOptions is not None]
    if not ops:
        return None
    op = rng.choice(ops)
    opts = op.builtinOptions
    fields = [f for f, v in vars(opts).items() if isinstance(v, (int, float, bool))]
    if not fields or rng.randrange(6) == 0:
        op.builtinOptionsType = rng.choice([0, 1, 2, 5, 200])
        return f"builtin options type {op.builtinOptionsType}"
    f = rng.choice(fields)
    old = getattr(opts, f)
    if isinstance(old, float):
        setattr(opts, f, rng.choice(INTERESTING_F32))
    elif isinstance(old, bool):
        setattr(opts, f, not old)
    else:
        setattr(opts, f, rng.choice([0, -1, 2, 5, 6, 7, 100, 2**31 - 1, -(2**31)]))
    return f"{type(opts).__name__}.{f} = {getattr(opts, f)}"


def quantization(m: tfl.ModelT, rng: random.Random) -> str | None:
    sg = _subgraph(m, rng)
    if sg is None:
        return None
    quantized = [t for t in sg.tensors if t.quantization is not None and t.quantization.scale is not None]
    t = rng.choice(quantized or sg.tensors)
    q = t.quantization or tfl.QuantizationParametersT()
    t.quantization = q
    how = rng.randrange(4)
    if how == 0:
        s = rng.choice(INTERESTING_F32)
        q.scale = [s] * max(1, len(q.scale if q.scale is not None else []))
        what = f"scale {s}"
    elif how == 1:
        z = rng.choice([-129, 128, 256, -32769, 70000, 2**40])
        q.zeroPoint = [z] * max(1, len(q.zeroPoint if q.zeroPoint is not None else []))
        what = f"zero point {z}"
    elif how == 2:
        q.quantizedDimension = rng.choice([-1, 1, 3, 4, 7, 2**31 - 1])
        what = f"quantized dimension {q.quantizedDimension}"
    else:
        n = rng.choice([0, 2, 3])
        q.scale = [0.5] * n
        q.zeroPoint = [0] * (n + rng.choice([0, 1]))
        what = f"{n} scales"
    return f"tensor '{_name(t)}' {what}"


def graph(m: tfl.ModelT, rng: random.Random) -> str | None:
    sg = _subgraph(m, rng)
    if sg is None:
        return None
    how = rng.randrange(5)
    if how == 0 and sg.operators and len(sg.operators) > 1:
        rng.shuffle(sg.operators)
        return "operators shuffled"
    if how == 1 and sg.operators:
        k = rng.randrange(len(sg.operators))
        sg.operators.insert(k, copy.deepcopy(sg.operators[k]))
        return f"operator {k} duplicated"
    if how == 2 and sg.operators:
        k = rng.randrange(len(sg.operators))
        del sg.operators[k]
        return f"operator {k} removed"
    field = rng.choice(["inputs", "outputs"])
    ids = list(getattr(sg, field) if getattr(sg, field) is not None else [])
    n = len(sg.tensors)
    if ids and rng.randrange(2):
        ids[rng.randrange(len(ids))] = rng.choice([-1, n, rng.randrange(n)])
    else:
        ids.append(rng.randrange(n))
    setattr(sg, field, ids)
    return f"graph {field} {ids}"


def metadata(m: tfl.ModelT, rng: random.Random) -> str | None:
    n = len(m.buffers or [])
    how = rng.randrange(3)
    if how == 0:
        md = tfl.MetadataT()
        md.name = "zp_mutant"
        md.buffer = rng.choice([n, n + 63, 2**31 - 1])
        m.metadata = list(m.metadata or []) + [md]
        return f"metadata pointing at buffer {md.buffer} of {n}"
    if how == 1:
        m.metadataBuffer = list(m.metadataBuffer or []) + [rng.choice([n, n + 10, -1])]
        return f"metadata_buffer {m.metadataBuffer}"
    if m.signatureDefs:
        sig = rng.choice(m.signatureDefs)
        sig.subgraphIndex = rng.choice([1, 7, 2**31 - 1])
        return f"signature subgraph {sig.subgraphIndex}"
    return None


STRUCT_MUTATORS: dict[str, Callable[[tfl.ModelT, random.Random], str | None]] = {
    "shape": tensor_shape,
    "dtype": tensor_type,
    "tensor-buffer": tensor_buffer,
    "buffer-data": buffer_data,
    "op-io": op_io,
    "opcode": opcode,
    "options": options,
    "quantization": quantization,
    "graph": graph,
    "metadata": metadata,
}


def mutate(data: bytes, rng: random.Random) -> tuple[str, str, bytes]:
    """One mutant of `data`: `(class, description, bytes)`. About half are structure-aware."""
    for _ in range(20):
        if rng.randrange(2) == 0:
            name = rng.choice(sorted(BYTE_MUTATORS))
            what, out = BYTE_MUTATORS[name](data, rng)
            return f"byte/{name}", what, out
        name = rng.choice(sorted(STRUCT_MUTATORS))
        model = tfl.ModelT.InitFromPackedBuf(data, 0)
        what = STRUCT_MUTATORS[name](model, rng)
        if what is None:
            continue
        try:
            return f"struct/{name}", what, pack(model)
        except (struct.error, OverflowError, TypeError, ValueError):
            continue  # a value the builder cannot encode (e.g. out of int32): try another
    return "byte/bits", "fallback", flip_bits(data, rng)[1]


__all__ = ["BYTE_MUTATORS", "STRUCT_MUTATORS", "mutate"]
