"""More single-operator cases (issues 17 and 18): CEIL, ROUND and ELU, registered in this order on
import. See goldens.single_op for In and op_case.

LiteRT 2.3's BUILTIN_REF resolver registers none of CEIL, ROUND and ELU ("Didn't find op for
builtin opcode"), so their cases load in BUILTIN_WITHOUT_DEFAULT_DELEGATES (`resolver="optimized"`,
written to case.toml as expected_resolver) and their expected outputs are the models run op by op
(litert.run_per_op): the op on that resolver, DEQUANTIZE / QUANTIZE on BUILTIN_REF, whose float
arithmetic the optimized ones do not share (1 ulp, then 1 LSB after ROUND). What LiteRT has: CEIL and
ROUND float32 only, ELU float32 and int8 (a 256-entry table). TF 2.21 keeps all three float in
its int8 models (DEQUANTIZE, op, QUANTIZE) and refuses them in 16x8 ("Quantization to 16x8-bit
not yet supported"). The int8 ELU kernel is reached through `int8_elu`: TF's int8 model with its
DEQUANTIZE -> ELU -> QUANTIZE made one int8 ELU, TF's own input and output parameters kept.

The `_edges` cases are float only: their inputs (ties, -0.0, NaN, inf, subnormals) are chosen
values, which an int8 input could not carry.
"""

from __future__ import annotations

import flatbuffers
import numpy as np

from .frameworks import keras, tf, tfl_schema
from .single_op import In, op_case
from .variants import ALL_VARIANTS

K = keras.ops
BOP = tfl_schema.BuiltinOperator


def _code(m, op_index: int) -> int:
    oc = m.operatorCodes[m.subgraphs[0].operators[op_index].opcodeIndex]
    return max(oc.builtinCode, oc.deprecatedBuiltinCode)


def fuse_float_island(op: int):
    """A variant rewrite: every `DEQUANTIZE -> op -> QUANTIZE` of subgraph 0 (the op kept float by
    TF between integer tensors) becomes the op reading the DEQUANTIZE's integer input and writing
    the QUANTIZE's integer output, so the op runs its integer kernel with the parameters TF chose.
    Fails when the model has no such island (nothing would be tested)."""

    def rewrite(model: bytes) -> bytes:
        m = tfl_schema.ModelT.InitFromPackedBuf(model, 0)
        sg = m.subgraphs[0]
        ops = sg.operators
        producer = {int(t): i for i, o in enumerate(ops) for t in o.outputs}
        readers: dict[int, list[int]] = {}
        for i, o in enumerate(ops):
            for t in o.inputs:
                readers.setdefault(int(t), []).append(i)
        drop: set[int] = set()
        for i, o in enumerate(ops):
            if _code(m, i) != op:
                continue
            src, dst = int(o.inputs[0]), int(o.outputs[0])
            deq = producer.get(src)
            q = readers.get(dst, [])
            if deq is None or _code(m, deq) != BOP.DEQUANTIZE or len(q) != 1 or _code(m, q[0]) != BOP.QUANTIZE:
                continue
            if len(readers.get(src, [])) != 1 or dst in [int(x) for x in sg.outputs]:
                continue
            o.inputs = np.array([int(ops[deq].inputs[0])], dtype=np.int32)
            o.outputs = np.array([int(ops[q[0]].outputs[0])], dtype=np.int32)
            drop |= {deq, q[0]}
        assert drop, "no DEQUANTIZE -> op -> QUANTIZE island to fuse"
        sg.operators = [o for i, o in enumerate(ops) if i not in drop]
        b = flatbuffers.Builder(0)
        b.Finish(m.Pack(b), file_identifier=b"TFL3")
        return bytes(b.Output())

    return rewrite


OPT = "optimized"
# Float-only edge cases: every other variant is skipped with this reason.
FLOAT_EDGES = {
    v: "not produced: the edge inputs (ties, -0.0, NaN, inf, subnormals) are float values an "
    "integer input cannot carry; the op's main case has TF's other variants"
    for v in ALL_VARIANTS if v != "float"
}
# The int8 ELU cases: only the float model and the edited int8 one.
INT8_KERNEL = {
    v: "not produced: this case checks LiteRT's int8 ELU table on TF's edited int8 model; op_elu "
    "has TF's own variants"
    for v in ALL_VARIANTS if v not in ("float", "int8")
}
ROUND_EDGES = (
    0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.49999997, -0.49999997, 0.50000006, -0.3, -0.0, 0.0,
    1e-40, -1e-40, 8388607.5, -8388607.5, 8388609.0, 3e9, -3e9, 3.4e38, -3.4e38,
    float("inf"), float("-inf"), float("nan"), 2.4999998, -2.5000002, 1e-7, -0.99999994,
)
ELU_EDGES = (
    -0.0, 0.0, -1e-8, -1e-30, -1e-40, -1e-3, -0.5, -1.0, -17.0, -88.0, -88.8, -104.0, -200.0,
    -3.4e38, float("-inf"), float("inf"), float("nan"), 1e-40, 1e30, 3.4e38, -0.35, -2.25,
    -5.0, -9.5, -15.9, -16.0, 0.75, 2.0,
)

op_case(
    "op_ceil", "CEIL", 6201,
    [In("x", (4, 4, 5), -3.0, 3.0)],
    lambda x: K.ceil(x),
    "CEIL on [-3, 3] (tf.math.ceil). CEIL from LiteRT's BUILTIN_WITHOUT_DEFAULT_DELEGATES "
    "(BUILTIN_REF has no CEIL), other ops from BUILTIN_REF. TF keeps it float in int8 (DEQUANTIZE, CEIL, QUANTIZE).",
    resolver=OPT,
)
op_case(
    "op_ceil_edges", "CEIL", 6202,
    [In("x", (1, 28), -3.0, 3.0, dist="values", values=ROUND_EDGES)],
    lambda x: K.ceil(x),
    "CEIL, float, on edge values (halves, -0.0 and small negatives giving -0.0, subnormals, "
    "beyond 2^23, +-inf, NaN). Expected outputs from BUILTIN_WITHOUT_DEFAULT_DELEGATES (BUILTIN_REF "
    "has no CEIL).",
    skip=FLOAT_EDGES,
    resolver=OPT,
)
op_case(
    "op_round", "ROUND", 6203,
    [In("x", (4, 4, 5), -3.0, 3.0)],
    lambda x: K.round(x),
    "ROUND on [-3, 3] (tf.math.round). ROUND from BUILTIN_WITHOUT_DEFAULT_DELEGATES "
    "(BUILTIN_REF has no ROUND), other ops from BUILTIN_REF. TF keeps it float in int8.",
    resolver=OPT,
)
op_case(
    "op_round_edges", "ROUND", 6204,
    [In("x", (1, 28), -3.0, 3.0, dist="values", values=ROUND_EDGES)],
    lambda x: K.round(x),
    "ROUND, float, on edge values: ties (half to even), -0.5 / -0.3 / a negative subnormal "
    "(LiteRT's RoundToNearest gives +0.0), -0.0, values near and beyond 2^23, +-inf, NaN. Expected "
    "outputs from BUILTIN_WITHOUT_DEFAULT_DELEGATES (BUILTIN_REF has no ROUND).",
    skip=FLOAT_EDGES,
    resolver=OPT,
)
op_case(
    "op_elu", "ELU", 6205,
    [In("x", (4, 8, 8), -6.0, 2.0, dist="grid")],
    lambda x: keras.layers.ELU()(x),
    "ELU (keras.layers.ELU, alpha 1 -> tf.nn.elu) on an even grid over [-6, 2]. ELU from "
    "BUILTIN_WITHOUT_DEFAULT_DELEGATES (BUILTIN_REF has no ELU), other ops from BUILTIN_REF. TF keeps ELU float in int8 "
    "(DEQUANTIZE, ELU, QUANTIZE), though LiteRT has an int8 ELU (see op_elu_int8).",
    resolver=OPT,
)
op_case(
    "op_elu_edges", "ELU", 6206,
    [In("x", (1, 28), -3.0, 3.0, dist="values", values=ELU_EDGES)],
    lambda x: keras.layers.ELU()(x),
    "ELU, float, on edge values: -0.0, tiny negatives (expm1 keeps them), subnormals, the "
    "saturation towards -1, -inf, +inf, huge values, NaN. Expected outputs from "
    "BUILTIN_WITHOUT_DEFAULT_DELEGATES (BUILTIN_REF has no ELU).",
    skip=FLOAT_EDGES,
    resolver=OPT,
)
_ELU_INT8 = {
    v: (fuse_float_island(BOP.ELU), "DEQUANTIZE -> ELU -> QUANTIZE fused into one int8 ELU "
        "(fuse_float_island in goldens/op_cases_more.py): TF's input and output parameters kept")
    for v in ("int8",)
}
op_case(
    "op_elu_int8", "ELU", 6207,
    [In("x", (4, 8, 8), -4.0, 2.0, dist="grid")],
    lambda x: keras.layers.ELU()(x),
    "int8 ELU (LiteRT's 256-entry table) on an even grid over [-4, 2], every int8 input level: TF "
    "keeps ELU float, so its int8 model (int8 I/O; with float I/O TF writes a float ELU alone) is edited to run ELU in int8 with TF's parameters. Expected "
    "outputs from BUILTIN_WITHOUT_DEFAULT_DELEGATES (BUILTIN_REF has no ELU).",
    skip=INT8_KERNEL,
    resolver=OPT,
    rewrite=_ELU_INT8,
)
op_case(
    "op_elu_int8_neg", "ELU", 6208,
    [In("x", (4, 8, 8), -6.0, 0.0, dist="grid")],
    lambda x: keras.layers.ELU()(x),
    "int8 ELU as op_elu_int8 on [-6, 0]: input and output zero points 127.",
    skip=INT8_KERNEL,
    resolver=OPT,
    rewrite=_ELU_INT8,
)

# CAST next to quantizable ops (TF keeps CAST float: DEQUANTIZE, CAST, QUANTIZE around it in
# int8; 16x8 refused), and its edge values in float.
CAST_EDGES = (
    -1.7, -0.5, -0.0, 2.9, 127.6, 128.4, -128.9, 255.9, 256.0, 300.0, -300.0, 32767.9, 65537.0,
    -32769.5, 2147483520.0, 3e9, -3e9, -2147483648.0, 1e20, -1e20, 1e-40, float("nan"),
    float("inf"), float("-inf"),
)
op_case(
    "op_cast", "CAST", 6211,
    [In("x", (4, 4, 5), -4.0, 4.0)],
    lambda x: x + K.cast(K.cast(x, "int32"), "float32"),
    "x + float(int32(x)) on [-4, 4]: CAST float -> int32 (truncation toward zero, negative "
    "fractions too) and int32 -> float next to a quantizable ADD.",
)
op_case(
    "op_cast_index", "CAST", 6212,
    [In("x", (4, 6), -2.0, 2.0)],
    # tf.math.argmax (keras.ops.argmax adds a -0.0 fix-up TFLite needs Flex ops for).
    lambda x: x * K.expand_dims(K.cast(keras.layers.Lambda(lambda t: tf.math.argmax(t, axis=-1, output_type=tf.int32))(x), "float32"), -1),
    "x * float(argmax(x, -1)): an integer index tensor (ARG_MAX) cast to float and multiplied back "
    "(CAST from an index type inside int8 models).",
)
op_case(
    "op_cast_edges", "CAST", 6213,
    [In("x", (1, 24), -3.0, 3.0, dist="values", values=CAST_EDGES)],
    lambda x: [
        K.cast(x, "int32"),
        K.cast(x, "int8"),
        K.cast(x, "uint8"),
        K.cast(x, "int16"),
        K.cast(x, "int64"),
        K.cast(K.cast(x, "bool"), "float32"),
        K.cast(K.cast(x, "int32"), "float32"),
    ],
    "CAST float -> int32 / int8 / uint8 / int16 / int64 / bool (-> float) and int32 -> float on edge "
    "values: negative fractions, just above each type's range, beyond int32, 1e20, subnormals, "
    "+-inf, NaN (LiteRT 2.3 saturates floats to the target range, NaN to its largest value; "
    "integers wrap).",
    skip={
        v: "not produced: the edge inputs (NaN, inf, beyond int32) are float values an integer "
        "input cannot carry; op_cast and op_cast_index have TF's quantized variants"
        for v in ALL_VARIANTS if v != "float"
    },
)


# EMBEDDING_LOOKUP (issue 18). TF 2.21 writes GATHER for keras.layers.Embedding, so the float
# model's GATHER(table, ids) is edited into EMBEDDING_LOOKUP(ids, table) (float_rewrite); TF's
# quantizer then runs on the edited file. The hybrid forms LiteRT runs (8-bit table, float
# output), which no TF 2.21 tool writes for this op, are the edited float model with its table
# quantized here (the `float` variant of the _hybrid cases is that model).
EMB_ROWS, EMB_DIM, EMB_IDS = 12, 6, 10


def _embedding_model(x):
    ids = K.cast(K.reshape(x, (-1,)), "int32")  # 1-D INT32 ids, as EMBEDDING_LOOKUP needs
    return keras.layers.Embedding(EMB_ROWS, EMB_DIM, name="emb")(ids)


def _to_embedding_lookup(m) -> int:
    """GATHER(params, indices) -> EMBEDDING_LOOKUP(ids, table) in place; returns the table's
    tensor index."""
    sg = m.subgraphs[0]
    for op in sg.operators:
        oc = m.operatorCodes[op.opcodeIndex]
        if max(oc.builtinCode, oc.deprecatedBuiltinCode) == BOP.GATHER:
            oc.builtinCode = oc.deprecatedBuiltinCode = BOP.EMBEDDING_LOOKUP
            oc.version = 1
            op.inputs = np.array([op.inputs[1], op.inputs[0]], dtype=np.int32)
            op.builtinOptionsType = 0
            op.builtinOptions = None
            return int(op.inputs[1])
    raise AssertionError("no GATHER to edit")


def _pack(m) -> bytes:
    b = flatbuffers.Builder(0)
    b.Finish(m.Pack(b), file_identifier=b"TFL3")
    return bytes(b.Output())


def embedding_lookup_rewrite(model: bytes) -> bytes:
    m = tfl_schema.ModelT.InitFromPackedBuf(model, 0)
    _to_embedding_lookup(m)
    return _pack(m)


def hybrid_table(dtype: str, per_row: bool):
    """A float_rewrite: EMBEDDING_LOOKUP, its float table quantized symmetric (zero point 0),
    scale max|w|/127 per tensor or per row, values round(w / scale); a uint8 table holds the
    same bytes (LiteRT reads any 8-bit table through int8_t*)."""

    def rewrite(model: bytes) -> bytes:
        m = tfl_schema.ModelT.InitFromPackedBuf(model, 0)
        t = m.subgraphs[0].tensors[_to_embedding_lookup(m)]
        buf = m.buffers[t.buffer]
        w = np.frombuffer(bytes(buf.data), np.float32).reshape(tuple(t.shape)).astype(np.float64)
        amax = np.abs(w).max(axis=1, keepdims=True) if per_row else np.abs(w).max(keepdims=True)
        scale = (amax / 127.0).astype(np.float32)
        q = np.clip(np.round(w / scale), -127, 127).astype(np.int8)
        buf.data = np.frombuffer(q.tobytes(), np.uint8).copy()
        t.type = tfl_schema.TensorType.INT8 if dtype == "int8" else tfl_schema.TensorType.UINT8
        qp = tfl_schema.QuantizationParametersT()
        qp.scale = scale.ravel().astype(np.float32)
        qp.zeroPoint = np.zeros(scale.size, np.int64)
        qp.quantizedDimension = 0
        t.quantization = qp
        return _pack(m)

    return rewrite


_IDS = In("x", (EMB_IDS,), 0.0, EMB_ROWS - 0.01)
op_case(
    "op_embedding_lookup", "EMBEDDING_LOOKUP", 6221,
    [_IDS],
    _embedding_model,
    f"EMBEDDING_LOOKUP of a float [{EMB_ROWS}, {EMB_DIM}] table (Keras Embedding, seeded) by {EMB_IDS} INT32 ids "
    "(float input truncated by CAST; Keras' negative-id wrap LESS/ADD/SELECT in front), the model's GATHER "
    "edited into EMBEDDING_LOOKUP; TF's int8 quantizes the table (output sharing its parameters).",
    float_rewrite=embedding_lookup_rewrite,
    variants=("float", "int8", "int8_floatio", "16x8", "calibrated"),
)
_HYBRID_SKIP = {
    v: "not produced: the float variant is the hand-built hybrid model (8-bit table, float output), "
    "which no TF 2.21 converter writes for EMBEDDING_LOOKUP"
    for v in ALL_VARIANTS if v != "float"
}
for _name, _seed, _dtype, _per_row, _what in (
    ("op_embedding_lookup_hybrid", 6222, "int8", False, "int8 table, one scale"),
    ("op_embedding_lookup_hybrid_rows", 6223, "int8", True, "int8 table, one scale per row"),
    ("op_embedding_lookup_hybrid_uint8", 6224, "uint8", False, "uint8 table holding the int8 bytes (LiteRT reads it as int8)"),
):
    op_case(
        _name, "EMBEDDING_LOOKUP", _seed,
        [_IDS],
        _embedding_model,
        f"Hybrid EMBEDDING_LOOKUP: {_what}, zero point 0, float output (q * scale in double); the "
        "Keras Embedding table quantized symmetric (max|w|/127) by hybrid_table in goldens/op_cases_more.py.",
        float_rewrite=hybrid_table(_dtype, _per_row),
        variants=("float",) + tuple(v for v in ALL_VARIANTS if v != "float"),
        skip={k: v for k, v in _HYBRID_SKIP.items()},
    )


# UNIDIRECTIONAL_SEQUENCE_RNN (issue 18), float. TF 2.21 writes a WHILE loop for Keras'
# SimpleRNN, so the model is built here (rnn_model): input [1, T*B, I] -> RESHAPE to the
# sequence ([B, T, I], or [T, B, I] time-major) -> RNN with seeded weights and a variable hidden
# state. The case's Keras model (x * 2) only fixes the input; float_rewrite replaces the file.
# The samples run one after the other on one interpreter, so the hidden state carries over.


def rnn_model(t: int, b: int, i: int, u: int, time_major: bool, act: str, seed: int, hybrid: str = ""):
    """hybrid "sym" / "asym": both weight matrices int8, symmetric per tensor (max|w|/127,
    round(w / scale)), asymmetric_quantize_inputs off / on."""

    def rewrite(_: bytes) -> bytes:
        rng = np.random.default_rng(seed)
        m = tfl_schema.ModelT()
        m.version = 3
        m.buffers = [tfl_schema.BufferT()]
        m.operatorCodes = []
        tensors = []

        def code(c: int) -> int:
            oc = tfl_schema.OperatorCodeT()
            oc.builtinCode, oc.deprecatedBuiltinCode, oc.version = c, min(c, 127), 1
            m.operatorCodes.append(oc)
            return len(m.operatorCodes) - 1

        def tensor(name, shape, data=None, dtype=tfl_schema.TensorType.FLOAT32, variable=False, scale=None):
            x = tfl_schema.TensorT()
            if scale is not None:
                x.quantization = tfl_schema.QuantizationParametersT()
                x.quantization.scale = np.array([scale], np.float32)
                x.quantization.zeroPoint = np.array([0], np.int64)
            x.shape, x.type, x.name, x.buffer, x.isVariable = np.array(shape, np.int32), dtype, name.encode(), 0, variable
            if data is not None:
                buf = tfl_schema.BufferT()
                buf.data = np.frombuffer(data.tobytes(), np.uint8).copy()
                m.buffers.append(buf)
                x.buffer = len(m.buffers) - 1
            tensors.append(x)
            return len(tensors) - 1

        seq = [t, b, i] if time_major else [b, t, i]
        x = tensor("x", [1, t * b, i])
        shape = tensor("sequence_shape", [3], np.array(seq, np.int32), tfl_schema.TensorType.INT32)
        xs = tensor("sequence", seq)
        def weights(name, shape):
            v = rng.uniform(-0.6, 0.6, shape).astype(np.float32)
            if not hybrid:
                return tensor(name, list(shape), v)
            scale = np.float32(np.abs(v).max() / np.float32(127.0))
            q = np.clip(np.round(v / scale), -127, 127).astype(np.int8)
            return tensor(name, list(shape), q, tfl_schema.TensorType.INT8, scale=scale)

        w = weights("input_weights", (u, i))
        r = weights("recurrent_weights", (u, u))
        bias = tensor("bias", [u], rng.uniform(-0.3, 0.3, u).astype(np.float32))
        h = tensor("hidden_state", [b, u], variable=True)
        out = tensor("rnn_output", [t, b, u] if time_major else [b, t, u])
        reshape = tfl_schema.OperatorT()
        reshape.opcodeIndex, reshape.inputs, reshape.outputs = code(BOP.RESHAPE), np.array([x, shape], np.int32), np.array([xs], np.int32)
        rnn = tfl_schema.OperatorT()
        rnn.opcodeIndex = code(BOP.UNIDIRECTIONAL_SEQUENCE_RNN)
        rnn.inputs, rnn.outputs = np.array([xs, w, r, bias, h], np.int32), np.array([out], np.int32)
        opt = tfl_schema.SequenceRNNOptionsT()
        opt.timeMajor = time_major
        opt.fusedActivationFunction = getattr(tfl_schema.ActivationFunctionType, act)
        opt.asymmetricQuantizeInputs = hybrid == "asym"
        rnn.builtinOptionsType, rnn.builtinOptions = tfl_schema.BuiltinOptions.SequenceRNNOptions, opt
        sg = tfl_schema.SubGraphT()
        sg.tensors, sg.operators = tensors, [reshape, rnn]
        sg.inputs, sg.outputs = np.array([x], np.int32), np.array([out], np.int32)
        m.subgraphs = [sg]
        return _pack(m)

    return rewrite


_RNN_SKIP = {
    v: "not produced: the float variant is the hand-built RNN model (TF 2.21 writes a WHILE loop for "
    "Keras' SimpleRNN; the _hybrid cases' float variant is the hand-built hybrid model); the "
    "integer RNN is not supported yet"
    for v in ALL_VARIANTS if v != "float"
}
for _name, _seed, (_t, _b, _i, _u), _tm, _act, _hy in (
    ("op_rnn_tanh", 6231, (5, 2, 3, 4), False, "TANH", ""),
    ("op_rnn_time_major_relu", 6232, (4, 2, 5, 3), True, "RELU", ""),
    ("op_rnn_none", 6233, (6, 1, 7, 9), False, "NONE", ""),
    ("op_rnn_relu6", 6234, (3, 3, 2, 5), True, "RELU6", ""),
    ("op_rnn_hybrid", 6235, (5, 2, 6, 5), False, "TANH", "sym"),
    ("op_rnn_hybrid_asym_time_major", 6236, (4, 2, 9, 6), True, "RELU", "asym"),
):
    op_case(
        _name, "UNIDIRECTIONAL_SEQUENCE_RNN", _seed,
        [In("x", (_t * _b, _i), -1.5, 1.5)],
        lambda x: x * 2.0,
        f"UNIDIRECTIONAL_SEQUENCE_RNN, float, {_t} steps x batch {_b} x {_i} inputs -> {_u} units, "
        f"{'time-major' if _tm else 'batch-major'}, fused {_act}; weights U[-0.6, 0.6]"
        + (f" quantized to int8 (hybrid, {_hy}metric inputs)" if _hy else "")
        + ", bias U[-0.3, 0.3] "
        "(rnn_model in goldens/op_cases_more.py); the hidden state carries over from sample 0 to sample 1.",
        float_rewrite=rnn_model(_t, _b, _i, _u, _tm, _act, _seed, _hy),
        variants=ALL_VARIANTS,
        skip=dict(_RNN_SKIP),
    )


# Hybrid FULLY_CONNECTED on non-finite rows: each of the 8 rows (4 per sample) is quantized on
# its own at run time, so a row holding inf (scale inf), a row of huge values (products overflow
# to +-inf), rows with a NaN first, last, twice in the middle and before negatives only (LiteRT's
# x86 min/max skips NaN), a row of -inf and a plain row with -0.0, zeros and a subnormal each
# take another path through the quantization and the activation (LiteRT's
# ApplyActivationToVector: no clamp without an activation, std::max(0.0f, x) for RELU).
_N, _I = float("nan"), float("inf")
FC_HYBRID_EDGES = (
    _I, 1.0, 2.0, -1.0, 0.5, 0.0, -0.0, 3.0,
    3.4e38, -3.4e38, 1e38, 2e38, -1e30, 5.0, 0.0, 1.0,
    _N, 0.25, 1.0, -2.0, 3.0, -4.0, 0.5, 6.0,
    -0.0, 0.0, -0.0, 1e-40, -1e-3, 0.75, -0.5, 2.0,
    0.25, 1.0, -2.0, 3.0, -4.0, 0.5, 6.0, _N,
    _N, -1.0, -2.0, -3.0, -4.0, -5.0, -6.0, -7.0,
    2.0, _N, -3.0, 1.0, _N, 4.0, 0.0, -1.0,
    -_I, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0,
)
FC_HYBRID_SKIP = {
    v: "not produced: the edge inputs (NaN, inf, 3.4e38) are float values an integer input cannot "
    "carry; op_fc_bias_relu has TF's other variants"
    for v in ALL_VARIANTS if v not in ("float", "dynamic")
}
for _name, _seed, _act in (("op_fc_hybrid_edges_relu", 6241, "relu"), ("op_fc_hybrid_edges_none", 6242, None)):
    op_case(
        _name, "FULLY_CONNECTED", _seed,
        [In("x", (4, 8), -1.0, 1.0, dist="values", values=FC_HYBRID_EDGES)],
        lambda x, _act=_act: keras.layers.Dense(128, activation=_act, name="fc")(x),
        f"FULLY_CONNECTED 8 -> 128 on 4 rows per sample, fused {'RELU' if _act else 'NONE'}, float and TF's "
        "dynamic-range model (hybrid kernel): rows with inf, with values near 3.4e38 (products "
        "overflow to +-inf), with a NaN first / last / twice / before negatives only, with -inf, and "
        "with -0.0 / zeros / a subnormal.",
        skip=dict(FC_HYBRID_SKIP),
    )


# SUM (tf.reduce_sum): TF 2.21 writes it for Keras ops.sum; int8 / 16x8 take their own output
# range, so the kernel rescales (input scale != output scale), negative inputs included. Expected
# outputs from the optimized resolver: LiteRT 2.3's BUILTIN_REF SUM with rescaling accumulates the
# int8 / int16 input as unsigned and clamps (every negative sum comes out -1 in int8: measured on
# these cases, e.g. [-1, -1, -25, -1] where the sum is [-53, -33, -2, -65]), a defect of the
# reference build the engine does not copy; the optimized kernels compute the sum.
op_case(
    "op_sum_last_axis", "SUM", 6251,
    [In("x", (3, 4, 9), -1.0, 1.0)],
    lambda x: K.sum(x, axis=-1),
    "SUM over the last axis of a [1, 3, 4, 9] input in [-1, 1] (negative and positive values; "
    "output range its own, so int8 / 16x8 rescale). Expected outputs from "
    "BUILTIN_WITHOUT_DEFAULT_DELEGATES (BUILTIN_REF's rescaling SUM reads the input as unsigned).",
    resolver=OPT,
)
op_case(
    "op_sum_spatial_keepdims", "SUM", 6252,
    [In("x", (5, 6, 4), -2.0, 0.5)],
    lambda x: K.sum(x, axis=[1, 2], keepdims=True),
    "SUM over the two spatial axes with keep_dims of a [1, 5, 6, 4] input in [-2, 0.5] (mostly "
    "negative). Expected outputs from BUILTIN_WITHOUT_DEFAULT_DELEGATES (BUILTIN_REF's rescaling "
    "SUM reads the input as unsigned).",
    resolver=OPT,
)
