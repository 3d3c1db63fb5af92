"""INT4 weights (two to a byte) as AI Edge Quantizer writes them: FULLY_CONNECTED, CONV_2D and
DEPTHWISE_CONV_2D with int8 or int16 activations and INT4 weights, hybrid (float activations,
INT4 weights), INT4 weights behind DEQUANTIZE (weight-only), INT4 EMBEDDING_LOOKUP tables (hybrid),
and operators LiteRT refuses INT4 weights in.

Each variant starts from TF 2.21's conversion of a one-layer Keras model (float, or full integer
with float I/O for the integer variants) and replaces the weight tensor, with TF's flatbuffer
object API, by an INT4 constant quantized as AI Edge Quantizer 0.10 does it (symmetric,
zero point 0, scale = max|w| / 7 per output channel or per tensor, values round(w / scale)
clipped to [-8, 7]); the bias of an integer variant is requantized to scale s_in * s_w. The first
weight is then set to -8 and the last to 7, so every file holds both ends of the range, and
every weight count is odd, so the last byte's high nibble is unused. Packing is LiteRT's
(`UnpackDenseInt4IntoInt8` reads it): element 2i in the low nibble of byte i, 2i + 1 in the high
nibble.

Written into tests/realworld/int4_weights/: model_<variant>.tflite, input_<variant>_0.npy (two
samples stacked on a leading axis) and LiteRT 2.3 BUILTIN_REF outputs
expected_<variant>_output_0.npy, or the error LiteRT gives, or why its result is undefined
(manifest `int4_variants`); and AI Edge Quantizer 0.10's dynamic INT4 quantization of a float
conv / depthwise / dense model (`aeq_dynamic_int4`, needs `ai-edge-quantizer` from
requirements.txt). What was found running LiteRT 2.3 (BUILTIN_REF and the default
resolver alike): FULLY_CONNECTED and CONV_2D take INT4 weights with int8 and int16 activations and
in their hybrid kernels; DEPTHWISE_CONV_2D with int8 activations only (int16: see UNDEFINED;
hybrid: refused at invoke); TRANSPOSE_CONV and ADD refuse them at prepare; DEQUANTIZE and the hybrid
EMBEDDING_LOOKUP (float output) take them.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import tensorflow as tf
import keras
from tensorflow.lite.python import schema_py_generated as schema
from tensorflow.lite.tools import flatbuffer_utils

from .common import convert_keras, litert_outputs, seed

SAMPLES = 2
T = schema.TensorType
OPS = schema.BuiltinOperator
OP_NAMES = {v: k for k, v in vars(OPS).items() if not k.startswith("_")}


def _layer(kind: str) -> keras.Model:
    """One layer; every weight count is odd (35, 81, 27, 63, 55)."""
    seed(41)
    if kind == "fc":
        inp = keras.Input((7,), batch_size=1, name="x")
        out = keras.layers.Dense(5, bias_initializer="random_uniform", name="fc")(inp)
    elif kind == "conv":
        inp = keras.Input((6, 5, 3), batch_size=1, name="x")
        out = keras.layers.Conv2D(3, 3, bias_initializer="random_uniform", name="conv")(inp)
    elif kind == "dw":
        inp = keras.Input((6, 5, 3), batch_size=1, name="x")
        out = keras.layers.DepthwiseConv2D(3, bias_initializer="random_uniform", name="dw")(inp)
    elif kind == "tconv":
        inp = keras.Input((3, 3, 7), batch_size=1, name="x")
        out = keras.layers.Conv2DTranspose(1, 3, strides=2, bias_initializer="random_uniform", name="tconv")(inp)
    elif kind == "emb":
        inp = keras.Input((9,), batch_size=1, dtype="int32", name="ids")
        ids = keras.ops.reshape(inp, (-1,))  # 1-D INT32 ids, as EMBEDDING_LOOKUP needs
        out = keras.layers.Embedding(11, 5, name="emb")(ids)
    else:
        raise ValueError(kind)
    return keras.Model(inp, out)


def _embedding_lookup(model: bytes) -> bytes:
    """TF 2.21 writes GATHER(table, ids) for a Keras Embedding: edited into
    EMBEDDING_LOOKUP(ids, table), the operator LiteRT's hybrid lookup with INT4 tables is."""
    m = flatbuffer_utils.convert_bytearray_to_object(bytearray(model))
    op = next(o for o in m.subgraphs[0].operators if m.operatorCodes[o.opcodeIndex].builtinCode == OPS.GATHER)
    code = m.operatorCodes[op.opcodeIndex]
    code.builtinCode = code.deprecatedBuiltinCode = OPS.EMBEDDING_LOOKUP
    code.version = 1
    op.inputs = np.array([op.inputs[1], op.inputs[0]], np.int32)
    op.builtinOptionsType = 0
    op.builtinOptions = None
    return bytes(flatbuffer_utils.convert_object_to_bytearray(m))


def _samples(shape, n: int, s: int) -> np.ndarray:
    return np.random.default_rng(s).uniform(-1.5, 1.5, size=(n, *shape)).astype(np.float32)


def _convert(kind: str, scheme: str) -> bytes:
    model = _layer(kind)
    if scheme == "float":
        return convert_keras(model)
    shape = tuple(model.inputs[0].shape)

    def rep():
        for x in _samples(shape, 8, 7):
            yield [x]

    ops = (
        [tf.lite.OpsSet.EXPERIMENTAL_TFLITE_BUILTINS_ACTIVATIONS_INT16_WEIGHTS_INT8]
        if scheme == "16x8"
        else [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
    )
    return convert_keras(
        model,
        optimizations=[tf.lite.Optimize.DEFAULT],
        representative_dataset=rep,
        target_spec=tf.lite.TargetSpec(supported_ops=ops),
    )


def _pack(q: np.ndarray) -> np.ndarray:
    flat = q.astype(np.int8).ravel()
    if flat.size % 2:
        flat = np.append(flat, np.int8(0))
    lo = flat[0::2].view(np.uint8) & 0x0F
    hi = (flat[1::2].view(np.uint8) & 0x0F) << 4
    return (lo | hi).astype(np.uint8)


def _weights_real(m, t) -> np.ndarray:
    """The real-valued weights of tensor `t` (float32, or int8 times its scales)."""
    shape = tuple(t.shape)
    raw = bytes(m.buffers[t.buffer].data)
    if t.type == T.FLOAT32:
        return np.frombuffer(raw, np.float32).reshape(shape).astype(np.float64)
    q = np.frombuffer(raw, np.int8).reshape(shape).astype(np.float64)
    scales = np.asarray(t.quantization.scale, np.float64)
    axis = t.quantization.quantizedDimension
    bshape = [1] * len(shape)
    bshape[axis] = -1
    return q * (scales.reshape(bshape) if scales.size > 1 else scales[0])


def _int4(w: np.ndarray, axis: int, per_channel: bool) -> tuple[np.ndarray, np.ndarray]:
    """AI Edge Quantizer's symmetric INT4 quantization, then -8 first and 7 last."""
    if per_channel:
        other = tuple(a for a in range(w.ndim) if a != axis)
        bound = np.max(np.abs(w), axis=other)
    else:
        bound = np.array([np.max(np.abs(w))])
    scale = (np.maximum(bound, 1e-9) / 7.0).astype(np.float32)
    bshape = [1] * w.ndim
    bshape[axis] = -1
    s = scale.astype(np.float64).reshape(bshape) if per_channel else np.float64(scale[0])
    q = np.clip(np.rint(w / s), -8, 7).astype(np.int8)
    flat = q.reshape(-1)
    flat[0], flat[-1] = -8, 7
    return flat.reshape(w.shape), scale


def _to_int4(model: bytes, op_code: int, weight_input: int, axis: int, per_channel: bool, bias_input: int | None) -> bytes:
    """Replaces the weights of the first `op_code` operator with INT4 and requantizes its bias."""
    m = flatbuffer_utils.convert_bytearray_to_object(bytearray(model))
    sg = m.subgraphs[0]
    op = next(o for o in sg.operators if m.operatorCodes[o.opcodeIndex].builtinCode == op_code)
    t = sg.tensors[op.inputs[weight_input]]
    q, scale = _int4(_weights_real(m, t), axis, per_channel)
    m.buffers[t.buffer].data = _pack(q)
    t.type = T.INT4
    qp = schema.QuantizationParametersT()
    qp.scale = scale
    qp.zeroPoint = np.zeros(scale.size, np.int64)
    qp.quantizedDimension = axis if per_channel else 0
    t.quantization = qp
    if bias_input is not None and op.inputs[bias_input] >= 0:
        b = sg.tensors[op.inputs[bias_input]]
        if b.type in (T.INT32, T.INT64):
            s_in = float(sg.tensors[op.inputs[0 if op_code != OPS.TRANSPOSE_CONV else 2]].quantization.scale[0])
            real = _weights_bias(m, b)
            bs = (np.float64(s_in) * scale.astype(np.float64)).astype(np.float32)
            bq = np.rint(real / np.broadcast_to(bs.astype(np.float64), real.shape))
            dt = np.int32 if b.type == T.INT32 else np.int64
            m.buffers[b.buffer].data = np.frombuffer(bq.astype(dt).tobytes(), np.uint8)
            bqp = schema.QuantizationParametersT()
            bqp.scale = np.broadcast_to(bs, real.shape).astype(np.float32) if per_channel else bs
            bqp.zeroPoint = np.zeros(bqp.scale.size, np.int64)
            b.quantization = bqp
    return bytes(flatbuffer_utils.convert_object_to_bytearray(m))


def _weights_bias(m, b) -> np.ndarray:
    dt = np.int32 if b.type == T.INT32 else np.int64
    q = np.frombuffer(bytes(m.buffers[b.buffer].data), dt).astype(np.float64)
    return q * np.asarray(b.quantization.scale, np.float64)


def _weight_only(model: bytes, per_channel: bool) -> bytes:
    """The float FULLY_CONNECTED's weights as an INT4 constant behind a DEQUANTIZE (what AI Edge
    Quantizer's weight-only recipe writes)."""
    m = flatbuffer_utils.convert_bytearray_to_object(bytearray(model))
    sg = m.subgraphs[0]
    fc = next(o for o in sg.operators if m.operatorCodes[o.opcodeIndex].builtinCode == OPS.FULLY_CONNECTED)
    wt = sg.tensors[fc.inputs[1]]
    q, scale = _int4(_weights_real(m, wt), 0, per_channel)
    buf = schema.BufferT()
    buf.data = _pack(q)
    m.buffers.append(buf)
    t4 = schema.TensorT()
    t4.name = (wt.name.decode() if isinstance(wt.name, bytes) else wt.name) + "_int4"
    t4.shape = np.array(wt.shape, np.int32)
    t4.type = T.INT4
    t4.buffer = len(m.buffers) - 1
    qp = schema.QuantizationParametersT()
    qp.scale = scale
    qp.zeroPoint = np.zeros(scale.size, np.int64)
    qp.quantizedDimension = 0
    t4.quantization = qp
    sg.tensors.append(t4)
    # The float weight tensor becomes the DEQUANTIZE output (its buffer emptied).
    m.buffers[wt.buffer].data = None
    wt.buffer = 0
    code = schema.OperatorCodeT()
    code.builtinCode = OPS.DEQUANTIZE
    code.deprecatedBuiltinCode = OPS.DEQUANTIZE
    code.version = 1
    m.operatorCodes.append(code)
    deq = schema.OperatorT()
    deq.opcodeIndex = len(m.operatorCodes) - 1
    deq.inputs = np.array([len(sg.tensors) - 1], np.int32)
    deq.outputs = np.array([fc.inputs[1]], np.int32)
    sg.operators.insert(0, deq)
    return bytes(flatbuffer_utils.convert_object_to_bytearray(m))


# variant -> (layer, conversion, operator, weight input, channel axis, per channel)
VARIANTS = {
    "fc_int8_pc": ("fc", "int8", OPS.FULLY_CONNECTED, 1, 0, True),
    "fc_int8_pt": ("fc", "int8", OPS.FULLY_CONNECTED, 1, 0, False),
    "fc_16x8_pc": ("fc", "16x8", OPS.FULLY_CONNECTED, 1, 0, True),
    "fc_hybrid_pc": ("fc", "float", OPS.FULLY_CONNECTED, 1, 0, True),
    "fc_hybrid_pt": ("fc", "float", OPS.FULLY_CONNECTED, 1, 0, False),
    "conv_int8_pc": ("conv", "int8", OPS.CONV_2D, 1, 0, True),
    "conv_int8_pt": ("conv", "int8", OPS.CONV_2D, 1, 0, False),
    "conv_16x8_pc": ("conv", "16x8", OPS.CONV_2D, 1, 0, True),
    "conv_hybrid_pc": ("conv", "float", OPS.CONV_2D, 1, 0, True),
    "conv_hybrid_pt": ("conv", "float", OPS.CONV_2D, 1, 0, False),
    "dw_int8_pc": ("dw", "int8", OPS.DEPTHWISE_CONV_2D, 1, 3, True),
    # LiteRT runs it without unpacking (its 16x8 kernel reads the packed bytes as int8 weights,
    # and as many bytes again past their end): no defined result, none saved (UNDEFINED).
    "dw_16x8_pc": ("dw", "16x8", OPS.DEPTHWISE_CONV_2D, 1, 3, True),
    # LiteRT refuses these: hybrid DEPTHWISE_CONV_2D ("Type FLOAT32 with filter type INT4 not
    # currently supported", at invoke) and integer TRANSPOSE_CONV (weights must be INT8).
    "dw_hybrid_pc": ("dw", "float", OPS.DEPTHWISE_CONV_2D, 1, 3, True),
    "tconv_int8_pc": ("tconv", "int8", OPS.TRANSPOSE_CONV, 1, 0, True),
    # The hybrid lookup (float output) of an INT4 table, one scale or one per row.
    "emb_hybrid_pt": ("emb", "float", OPS.EMBEDDING_LOOKUP, 1, 0, False),
    "emb_hybrid_pc": ("emb", "float", OPS.EMBEDDING_LOOKUP, 1, 0, True),
    # INT4 weights behind DEQUANTIZE, the float FULLY_CONNECTED reading its output.
    "fc_weight_only_pc": ("fc", "weight_only", OPS.FULLY_CONNECTED, 1, 0, True),
    "fc_weight_only_pt": ("fc", "weight_only", OPS.FULLY_CONNECTED, 1, 0, False),
}


# Variants LiteRT runs without a defined result: no outputs saved, the reason in the manifest.
UNDEFINED = {
    "dw_16x8_pc": "LiteRT 2.3's EvalQuantizedPerChannel16x8 passes the packed INT4 buffer to the int8-weight "
    "kernel unpacked: it reads the bytes as int8 weights and past the buffer's end",
}


def int4_model() -> bytes:
    """model.tflite of the folder: the per-channel int8 FULLY_CONNECTED."""
    return _variant("fc_int8_pc")


def _variant(name: str) -> bytes:
    kind, scheme, code, w, axis, pc = VARIANTS[name]
    if scheme == "weight_only":
        return _weight_only(_convert(kind, "float"), pc)
    bias = {OPS.TRANSPOSE_CONV: 3}.get(code, 2)
    model = _convert(kind, scheme)
    if kind == "emb":
        model = _embedding_lookup(model)
    return _to_int4(model, code, w, axis, pc, None if scheme == "float" else bias)


# AI Edge Quantizer's dynamic INT4 recipe (dynamic_wi4: INT4 weights, float activations) on one
# float model, per channel and per tensor: what `zeropoint quantize --mode dynamic-int4` must equal.
AEQ_SAMPLES = 2


def _aeq_model() -> keras.Model:
    seed(43)
    inp = keras.Input((8, 8, 3), batch_size=1, name="x")
    x = keras.layers.Conv2D(4, 3, activation="relu", bias_initializer="random_uniform", name="conv")(inp)
    x = keras.layers.DepthwiseConv2D(3, name="dw")(x)
    x = keras.layers.Flatten()(x)
    out = keras.layers.Dense(5, bias_initializer="random_uniform", name="fc")(x)
    return keras.Model(inp, out)


def aeq_dynamic_int4(d: Path) -> dict:
    """model_aeq_float.tflite and AI Edge Quantizer 0.10's dynamic INT4 quantization of it
    (model_aeq_dynamic_int4_{pc,pt}.tflite), with LiteRT BUILTIN_REF outputs of each on
    input_aeq_0.npy; returns the manifest's `aeq_dynamic_int4`."""
    from importlib.metadata import version

    from ai_edge_quantizer import qtyping, quantizer

    float_model = convert_keras(_aeq_model())
    (d / "model_aeq_float.tflite").write_bytes(float_model)
    x = _samples((1, 8, 8, 3), AEQ_SAMPLES, 143)
    np.save(d / "input_aeq_0.npy", x)
    out = {"ai_edge_quantizer": version("ai-edge-quantizer"), "models": {}}
    for suffix, gran in (("pc", qtyping.QuantGranularity.CHANNELWISE), ("pt", qtyping.QuantGranularity.TENSORWISE)):
        q = quantizer.Quantizer(float_model)
        q.add_dynamic_config(".*", "*", 4, gran)
        data = bytes(q.quantize(enable_progress_report=False).quantized_model)
        name = f"aeq_dynamic_int4_{suffix}"
        path = d / f"model_{name}.tflite"
        path.write_bytes(data)
        runs = [litert_outputs(path, [s]) for s in x]
        err = next((e for o, e in runs if o is None), None)
        assert err is None, err
        np.save(d / f"expected_{name}_output_0.npy", np.stack([o[0] for o, _ in runs]))
        out["models"][name] = {"per_channel": suffix == "pc"}
    return out


def int4_variants(d: Path) -> dict:
    """Writes every variant with its inputs and LiteRT BUILTIN_REF outputs; returns the
    manifest's `int4_variants` (op, LiteRT's outcome)."""
    out = {}
    for k, name in enumerate(VARIANTS):
        data = _variant(name)
        path = d / f"model_{name}.tflite"
        path.write_bytes(data)
        kind = VARIANTS[name][0]
        shape = {"fc": (1, 7), "conv": (1, 6, 5, 3), "dw": (1, 6, 5, 3), "tconv": (1, 3, 3, 7), "emb": (1, 9)}[kind]
        if kind == "emb":
            x = np.random.default_rng(100 + k).integers(0, 11, size=(SAMPLES, *shape)).astype(np.int32)
        else:
            x = _samples(shape, SAMPLES, 100 + k)
        np.save(d / f"input_{name}_0.npy", x)
        runs = [litert_outputs(path, [s]) for s in x]
        err = next((e for o, e in runs if o is None), None)
        if err is None and name not in UNDEFINED:
            np.save(d / f"expected_{name}_output_0.npy", np.stack([o[0] for o, _ in runs]))
        out[name] = {
            "op": OP_NAMES[VARIANTS[name][2]],
            "per_channel": VARIANTS[name][5],
            "litert_runs": err is None,
            "litert_error": err,
            "litert_undefined": UNDEFINED.get(name),
        }
    return out
