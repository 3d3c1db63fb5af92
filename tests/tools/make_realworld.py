#!/usr/bin/env python3
"""Real-world-shaped .tflite files for the hardening tests (run by hand, never in CI).

The goldens (make_goldens.py) are clean converter outputs. People drop files written by
other tools and other years; this script makes small models with the structures those
files have, with TF's own converter where it can write them and with TF's flatbuffer
utilities (tensorflow.lite.tools.flatbuffer_utils) where only an older or foreign writer
would:

    deprecated_opcodes   an MLP whose operator codes fill only `deprecated_builtin_code`
                         (schema before v3a: `builtin_code` absent)
    sparse_fc            Dense layers with block-sparse weights, converted with
                         Optimize.EXPERIMENTAL_SPARSITY: sparse constant + DENSIFY
    custom_op            a model with one CUSTOM operator ("ZpTestCustom", flexbuffer-free
                         custom options) that no runtime implements
    variables            resource variables: VAR_HANDLE / READ_VARIABLE / ASSIGN_VARIABLE and
                         CALL_ONCE with an initialisation subgraph (a running total)
    streaming_kws        streaming keyword spotter: a ring buffer of the last 4 feature frames and
                         a smoothed score held in resource variables -> Conv1D -> Dense
    control_flow         tf.cond and tf.while_loop: IF / WHILE with their own subgraphs
    lstm_classifier      Keras 3 text classifier: Embedding -> LSTM(unroll=False) -> Dense softmax
                         (int32 token ids; the LSTM becomes a WHILE over cond/body subgraphs)
    gru_kws              Keras 3 keyword spotter on feature frames: GRU(unroll=False) -> Dense
                         softmax
    bilstm               Bidirectional(LSTM) -> Dense: two WHILE loops, one over REVERSE_V2'd time
    lstm_fused           tf_keras (Keras 2) text classifier: Embedding -> LSTM(return_sequences=True)
                         -> LSTM -> Dense softmax, fused by TF's converter into two builtin
                         UNIDIRECTIONAL_SEQUENCE_LSTM (TF's dynamic-range model: the first with
                         int8 weights, hybrid; TF's int8 model: the integer LSTM); also each
                         LSTM's output sequence as LiteRT computes it (expected[_dynamic]_lstm_<k>)
    no_signature         the MLP with its signature defs removed
    metadata_heavy       the MLP with several metadata entries (one of 256 KiB) and a
                         min_runtime_version entry, as Model Maker / MediaPipe files carry
    dynamic_batch        a small CNN with the batch left dynamic (SHAPE -> STRIDED_SLICE -> PACK ->
                         RESHAPE)
    dynamic_shapes       dynamic batch with Conv2DTranspose (run-time output shape), Reshape, a
                         BROADCAST_TO and a Dense on 3-D input; also TF's int8 and 16x8 versions
                         and LiteRT outputs of all three at batch 1 and batch 3
    softmax16x8_huge_beta  a 16x8 SOFTMAX whose beta was set to 1e12 (LiteRT's rescale shift
                         above 31)
    ssd_detector         a tiny SSD (conv backbone, box/class heads) ending in the custom
                         TFLite_Detection_PostProcess (regular NMS), added with the object API;
                         also TF's post-training int8 quantization of it (float I/O) and its
                         LiteRT outputs
    detpp_*              TFLite_Detection_PostProcess alone: fast and regular NMS, several classes
                         per detection, tied scores, IoU exactly at the threshold, fewer
                         candidates than max_detections, UINT8 inputs; their own inputs (box
                         encodings, class predictions) and all four LiteRT outputs, unstacked

The streaming models (variables, streaming_kws) have STREAM_FRAMES consecutive frames in input_0.npy
(stacked on a leading frames axis), run in order on ONE LiteRT interpreter so the variables carry
state from call to call (expected_output_<k>.npy, one row per frame), and the outputs of a
re-created interpreter over frames STREAM_RESET_FROM.. (expected_reset_output_<k>.npy: what a
reset must give). TF's full-integer conversion (calib.npy: two runs of 16 consecutive calibration
frames, on one calibrator interpreter) is tried in a child process and its outcome recorded
(`tf_int8`; a model it writes is kept as model_int8.tflite with the same two kinds of LiteRT
outputs, with TF's calibrate-only model of the same data as model_calibrated.tflite), and TF's dynamic-range conversion is kept as
model_dynamic.tflite with its LiteRT outputs (`tf_dynamic`), its float16 conversion as
model_float16.tflite (`tf_float16`).

The recurrent models (lstm_classifier, gru_kws, bilstm, lstm_fused) have RECURRENT_SAMPLES inputs stacked on
a leading samples axis, with one LiteRT output per sample; TF's full-integer conversion of each is
tried in a child process and its outcome recorded in the manifest (`tf_int8`: TF 2.21's
calibrator crashes with SIGSEGV on these WHILE models, tensorflow/tensorflow#75140: it logs a WHILE
output that LiteRT deallocated because the body passes that input through unchanged; a model it writes would be saved as
model_int8.tflite with LiteRT outputs), and TF's dynamic-range conversion is kept as
model_dynamic.tflite with LiteRT outputs (`tf_dynamic`).

Written to tests/realworld/<name>.tflite, with input_0.npy (seeded test input), LiteRT
2.3 BUILTIN_REF outputs expected_output_<k>.npy where LiteRT can run the model, and
manifest.json (sha256, size, what each file is, which ops it holds, whether LiteRT runs
it). Deterministic for the pinned versions (tests/tools/requirements.txt): a second run
gives byte-identical files.

Usage:
    tests/tools/.venv/bin/python tests/tools/make_realworld.py [--only name,name]

`--only` regenerates the named models and keeps the other folders and manifest entries.
"""

from __future__ import annotations

import os
import sys

_ENV = {
    "PYTHONHASHSEED": "0",
    "TF_CPP_MIN_LOG_LEVEL": "3",
    "TF_ENABLE_ONEDNN_OPTS": "0",
    "TF_DETERMINISTIC_OPS": "1",
    "CUDA_VISIBLE_DEVICES": "",
    "OMP_NUM_THREADS": "1",
    "KERAS_BACKEND": "tensorflow",
}
if __name__ == "__main__" and any(os.environ.get(k) != v for k, v in _ENV.items()):
    _env = dict(os.environ)
    _env.update(_ENV)
    os.execve(sys.executable, [sys.executable, os.path.abspath(__file__), *sys.argv[1:]], _env)

import functools  # noqa: E402
import hashlib  # noqa: E402
import json  # noqa: E402
import random  # noqa: E402
import shutil  # noqa: E402
import subprocess  # noqa: E402
from importlib.metadata import version as pkg_version  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
import keras  # noqa: E402
from ai_edge_litert.interpreter import Interpreter, OpResolverType  # noqa: E402
from tensorflow.lite.python import schema_py_generated as schema  # noqa: E402
from tensorflow.lite.tools import flatbuffer_utils  # noqa: E402
from flatbuffers import flexbuffers  # noqa: E402

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
OUT = REPO / "tests" / "realworld"


def seed(s: int) -> None:
    random.seed(s)
    np.random.seed(s)
    tf.random.set_seed(s)
    keras.utils.set_random_seed(s)


def mlp() -> keras.Model:
    seed(11)
    inp = keras.Input((16,), batch_size=1, name="features")
    x = keras.layers.Dense(32, activation="relu", name="fc1")(inp)
    x = keras.layers.Dense(8, name="fc2")(x)
    out = keras.layers.Softmax(name="probs")(x)
    return keras.Model(inp, out)


def convert_keras(model: keras.Model, **opts) -> bytes:
    conv = tf.lite.TFLiteConverter.from_keras_model(model)
    for k, v in opts.items():
        setattr(conv, k, v)
    return conv.convert()


def edit(model: bytes, fn) -> bytes:
    """Applies `fn` to the object-API ModelT and serialises it again."""
    m = flatbuffer_utils.convert_bytearray_to_object(bytearray(model))
    fn(m)
    return bytes(flatbuffer_utils.convert_object_to_bytearray(m))


def deprecated_opcodes() -> bytes:
    def f(m):
        for oc in m.operatorCodes:
            assert oc.builtinCode < 127, "only codes < 127 fit deprecated_builtin_code"
            oc.deprecatedBuiltinCode = oc.builtinCode
            oc.builtinCode = 0  # absent in old files; readers take max(deprecated, builtin)

    return edit(convert_keras(mlp()), f)


def no_signature() -> bytes:
    def f(m):
        m.signatureDefs = []

    return edit(convert_keras(mlp()), f)


def metadata_heavy() -> bytes:
    rng = np.random.default_rng(5)

    def f(m):
        def add(name: str, data: bytes) -> None:
            b = schema.BufferT()
            b.data = np.frombuffer(data, dtype=np.uint8)
            m.buffers.append(b)
            md = schema.MetadataT()
            md.name = name
            md.buffer = len(m.buffers) - 1
            m.metadata = (m.metadata or []) + [md]

        add("TFLITE_METADATA", rng.integers(0, 256, 256 * 1024, dtype=np.uint8).tobytes())
        add("labels.txt", "\n".join(f"class_{i}" for i in range(8)).encode())
        add("model_card", json.dumps({"author": "zeropoint tests", "license": "Apache-2.0"}).encode())

    return edit(convert_keras(mlp()), f)


def custom_op() -> bytes:
    """The MLP's second FULLY_CONNECTED turned into a CUSTOM operator."""

    def f(m):
        code = schema.OperatorCodeT()
        code.builtinCode = schema.BuiltinOperator.CUSTOM
        code.deprecatedBuiltinCode = schema.BuiltinOperator.CUSTOM
        code.customCode = "ZpTestCustom"
        code.version = 1
        m.operatorCodes.append(code)
        sg = m.subgraphs[0]
        fcs = [
            op
            for op in sg.operators
            if m.operatorCodes[op.opcodeIndex].builtinCode == schema.BuiltinOperator.FULLY_CONNECTED
        ]
        op = fcs[-1]
        op.opcodeIndex = len(m.operatorCodes) - 1
        op.builtinOptionsType = 0
        op.builtinOptions = None
        op.customOptions = np.frombuffer(b"zeropoint-custom-options", dtype=np.uint8)
        op.customOptionsFormat = schema.CustomOptionsFormat.FLEXBUFFERS

    return edit(convert_keras(mlp()), f)


def sparse_fc() -> bytes:
    seed(12)
    inp = keras.Input((64,), batch_size=1, name="features")
    x = keras.layers.Dense(64, activation="relu", name="fc1")(inp)
    out = keras.layers.Dense(16, name="fc2")(x)
    model = keras.Model(inp, out)
    # 4x1 block sparsity at ~80 %: TF's sparsifier only keeps a sparse encoding when it
    # makes the tensor smaller.
    rng = np.random.default_rng(3)
    for layer in (model.get_layer("fc1"), model.get_layer("fc2")):
        w, b = layer.get_weights()
        keep = rng.random((w.shape[0], w.shape[1] // 4)) < 0.2
        w = w * np.repeat(keep, 4, axis=1)
        layer.set_weights([w.astype(np.float32), b])
    return convert_keras(model, optimizations=[tf.lite.Optimize.EXPERIMENTAL_SPARSITY])


class _Counter(tf.Module):
    def __init__(self):
        super().__init__()
        self.total = tf.Variable(tf.zeros([1, 4]), name="total")

    @tf.function(input_signature=[tf.TensorSpec([1, 4], tf.float32, name="x")])
    def __call__(self, x):
        self.total.assign_add(x)
        return {"total": self.total.read_value() * 2.0}


def convert_module(module: tf.Module, **opts) -> bytes:
    """TF 2.21's conversion of `module.__call__` with resource variables kept as variables."""
    fn = module.__call__.get_concrete_function()
    conv = tf.lite.TFLiteConverter.from_concrete_functions([fn], module)
    conv.experimental_enable_resource_variables = True
    for k, v in opts.items():
        setattr(conv, k, v)
    return conv.convert()


def variables() -> bytes:
    seed(13)
    return convert_module(_Counter())


KWS_CONTEXT, KWS_FEATURES, KWS_HIDDEN, KWS_CLASSES = 4, 8, 48, 5


class _StreamingKws(tf.Module):
    """A streaming keyword spotter: a ring buffer of the last KWS_CONTEXT feature frames (one
    resource variable) -> a Conv1D over time -> Dense -> logits, plus a running (exponentially
    smoothed) score in a second variable. One frame per call, state kept between calls."""

    def __init__(self):
        super().__init__()
        rng = np.random.default_rng(29)
        self.ring = tf.Variable(tf.zeros([1, KWS_CONTEXT, KWS_FEATURES]), name="ring")
        self.smooth = tf.Variable(tf.zeros([1, KWS_CLASSES]), name="smooth")
        self.conv_w = tf.constant(rng.normal(0, 0.4, (3, KWS_FEATURES, KWS_HIDDEN)).astype(np.float32))
        self.conv_b = tf.constant(rng.normal(0, 0.1, (KWS_HIDDEN,)).astype(np.float32))
        flat = (KWS_CONTEXT - 2) * KWS_HIDDEN
        self.fc_w = tf.constant(rng.normal(0, 0.2, (flat, KWS_CLASSES)).astype(np.float32))
        self.fc_b = tf.constant(rng.normal(0, 0.1, (KWS_CLASSES,)).astype(np.float32))

    @tf.function(input_signature=[tf.TensorSpec([1, KWS_FEATURES], tf.float32, name="frame")])
    def __call__(self, frame):
        ring = tf.concat([self.ring[:, 1:, :], frame[:, None, :]], axis=1)
        self.ring.assign(ring)
        h = tf.nn.relu(tf.nn.conv1d(ring, self.conv_w, stride=1, padding="VALID") + self.conv_b)
        logits = tf.matmul(tf.reshape(h, [1, -1]), self.fc_w) + self.fc_b
        smooth = self.smooth * 0.75 + logits * 0.25
        self.smooth.assign(smooth)
        return {"logits": logits, "smoothed": smooth}


def streaming_kws() -> bytes:
    seed(14)
    return convert_module(_StreamingKws())


class _Control(tf.Module):
    @tf.function(input_signature=[tf.TensorSpec([1, 4], tf.float32, name="x")])
    def __call__(self, x):
        y = tf.cond(tf.reduce_sum(x) > 0.0, lambda: x * 2.0, lambda: x - 1.0)
        i = tf.constant(0)
        _, z = tf.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, v * 0.5 + 1.0), [i, y])
        return {"z": z}


def dynamic_batch() -> bytes:
    """A small CNN exported as most people export: batch left dynamic (shape_signature -1), so the
    converter computes the Reshape target at run time with SHAPE -> STRIDED_SLICE -> PACK."""
    seed(13)
    inp = keras.Input((12, 12, 3), name="image")
    x = keras.layers.Conv2D(8, 3, padding="same", activation="relu", name="conv")(inp)
    x = keras.layers.DepthwiseConv2D(3, padding="same", name="dw")(x)
    x = keras.layers.Reshape((-1,), name="flatten")(x)
    x = keras.layers.Dense(10, name="fc")(x)
    out = keras.layers.Softmax(name="probs")(x)
    return convert_keras(keras.Model(inp, out))


def dynamic_shapes_keras() -> keras.Model:
    """Dynamic batch with a run-time TRANSPOSE_CONV output shape (SHAPE -> STRIDED_SLICE -> PACK),
    a Reshape, a BROADCAST_TO to the run-time shape and a Dense on a 3-D tensor (GATHER /
    REDUCE_PROD / CONCATENATION shape arithmetic)."""
    seed(21)
    inp = keras.Input((6, 6, 4), name="image")
    x = keras.layers.Conv2D(8, 3, padding="same", activation="relu", name="conv")(inp)
    x = keras.layers.Conv2DTranspose(6, 3, strides=2, padding="same", name="up")(x)
    x = keras.layers.Reshape((144, 6), name="tokens")(x)
    pos = keras.layers.Lambda(
        lambda t: keras.ops.broadcast_to(keras.ops.linspace(-1.0, 1.0, 6), keras.ops.shape(t)), name="pos"
    )(x)
    x = keras.layers.Add(name="addpos")([x, pos])
    out = keras.layers.Dense(5, name="fc")(x)
    return keras.Model(inp, out)


def dynamic_shapes() -> bytes:
    return convert_keras(dynamic_shapes_keras())


DYNAMIC_BATCHES = (1, 3)


def dynamic_shapes_variants(d: Path) -> None:
    """TF's int8 (int8 I/O) and 16x8 versions of `dynamic_shapes`, and LiteRT BUILTIN_REF outputs of
    all three at batch 1 and batch 3 (resize_tensor_input(strict=True) + allocate_tensors):
    model_<v>.tflite, input_<v>_b<B>.npy, expected_<v>_b<B>.npy, each array exactly the input's /
    output's shape at that batch (no samples axis)."""
    model = dynamic_shapes_keras()
    rng = np.random.default_rng(2121)
    calib = [rng.uniform(-1.0, 1.0, (1, 6, 6, 4)).astype(np.float32) for _ in range(16)]

    def rep():
        for c in calib:
            yield [c]

    def quantized(ops, io_int8: bool) -> bytes:
        conv = tf.lite.TFLiteConverter.from_keras_model(model)
        conv.optimizations = [tf.lite.Optimize.DEFAULT]
        conv.representative_dataset = rep
        conv.target_spec.supported_ops = [ops]
        if io_int8:
            conv.inference_input_type = tf.int8
            conv.inference_output_type = tf.int8
        return conv.convert()

    variants = {
        "float": convert_keras(model),
        "int8": quantized(tf.lite.OpsSet.TFLITE_BUILTINS_INT8, True),
        "16x8": quantized(tf.lite.OpsSet.EXPERIMENTAL_TFLITE_BUILTINS_ACTIVATIONS_INT16_WEIGHTS_INT8, False),
    }
    floats = {b: rng.uniform(-1.0, 1.0, (b, 6, 6, 4)).astype(np.float32) for b in DYNAMIC_BATCHES}
    for v, data in variants.items():
        (d / f"model_{v}.tflite").write_bytes(data)
        for b, x in floats.items():
            it = Interpreter(model_content=data, experimental_op_resolver_type=OpResolverType.BUILTIN_REF)
            det = it.get_input_details()[0]
            assert list(det["shape_signature"]) == [-1, 6, 6, 4], det["shape_signature"]
            it.resize_tensor_input(det["index"], [b, 6, 6, 4], strict=True)
            it.allocate_tensors()
            if det["dtype"] == np.int8:
                scale, zp = det["quantization"]
                x = np.clip(np.round(x / scale) + zp, -128, 127).astype(np.int8)
            it.set_tensor(det["index"], x)
            it.invoke()
            y = it.get_tensor(it.get_output_details()[0]["index"])
            assert y.shape[0] == b, y.shape
            np.save(d / f"input_{v}_b{b}.npy", x)
            np.save(d / f"expected_{v}_b{b}.npy", y)
def softmax16x8_huge_beta() -> bytes:
    """A 16x8 SOFTMAX (TF's converter, int16 activations) whose beta is then set to 1e12, as a
    hand-edited or foreign file may carry: the input rescale multiplier's exponent is then above
    31, which LiteRT's compiled `1 << left_shift` takes modulo 32 (issue 22)."""
    seed(15)
    inp = keras.Input((10,), batch_size=1, name="x")
    out = keras.layers.Softmax(name="probs")(inp)
    rng = np.random.default_rng(15)

    def data():
        for _ in range(8):
            yield [rng.uniform(-1.0, 1.0, size=(1, 10)).astype(np.float32)]

    quantized = convert_keras(
        keras.Model(inp, out),
        optimizations=[tf.lite.Optimize.DEFAULT],
        representative_dataset=data,
        target_spec=tf.lite.TargetSpec(
            supported_ops=[tf.lite.OpsSet.EXPERIMENTAL_TFLITE_BUILTINS_ACTIVATIONS_INT16_WEIGHTS_INT8]
        ),
    )

    def huge_beta(m) -> None:
        for op in m.subgraphs[0].operators:
            if op.builtinOptionsType == schema.BuiltinOptions.SoftmaxOptions:
                op.builtinOptions.beta = 1e12

    return edit(quantized, huge_beta)


def control_flow() -> bytes:
    seed(14)
    module = _Control()
    fn = module.__call__.get_concrete_function()
    conv = tf.lite.TFLiteConverter.from_concrete_functions([fn], module)
    return conv.convert()


@functools.cache  # one model for the float and dynamic-range conversions: same tensor names
def lstm_classifier_keras() -> keras.Model:
    seed(31)
    inp = keras.Input((12,), batch_size=1, dtype="int32", name="tokens")
    x = keras.layers.Embedding(50, 16, name="embed")(inp)
    x = keras.layers.LSTM(32, name="lstm")(x)
    out = keras.layers.Dense(3, activation="softmax", name="probs")(x)
    return keras.Model(inp, out)


@functools.cache  # one model for the float and dynamic-range conversions: same tensor names
def gru_kws_keras() -> keras.Model:
    seed(32)
    inp = keras.Input((10, 12), batch_size=1, name="frames")
    x = keras.layers.GRU(32, name="gru")(inp)
    out = keras.layers.Dense(4, activation="softmax", name="keywords")(x)
    return keras.Model(inp, out)


@functools.cache  # one model for the float and dynamic-range conversions: same tensor names
def bilstm_keras() -> keras.Model:
    seed(33)
    inp = keras.Input((6, 4), batch_size=1, name="sequence")
    x = keras.layers.Bidirectional(keras.layers.LSTM(5), name="bilstm")(inp)
    out = keras.layers.Dense(2, name="head")(x)
    return keras.Model(inp, out)



# --- Fused recurrent ops (tf_keras) -----------------------------------------------------------
# Keras 2 (tf_keras) LSTM layers carry TF's `api_implements` marker, which TF's converter fuses
# into the builtin UNIDIRECTIONAL_SEQUENCE_LSTM (Keras 3 gives WHILE loops instead). Exported
# through a concrete function (from_keras_model expects Keras 3 models).


@functools.cache  # one model for the float, dynamic-range and int8 conversions: same tensor names
def lstm_fused_tf_keras():
    import tf_keras

    seed(34)
    tf_keras.utils.set_random_seed(34)
    inp = tf_keras.Input((10,), batch_size=1, dtype="int32", name="tokens")
    x = tf_keras.layers.Embedding(50, 32, name="embed")(inp)
    # 32x32 gate weights (>= 1024 elements: int8 in TF's dynamic-range model, hybrid kernel) ...
    x = tf_keras.layers.LSTM(32, return_sequences=True, name="lstm_seq")(x)
    # ... and 16x32 / 16x16 ones (below 1024: stay float there).
    x = tf_keras.layers.LSTM(16, name="lstm_last")(x)
    out = tf_keras.layers.Dense(3, activation="softmax", name="probs")(x)
    return tf_keras.Model(inp, out)


def fused_converter(name: str) -> tf.lite.TFLiteConverter:
    model = FUSED[name]()
    spec = [tf.TensorSpec(t.shape, t.dtype, name=t.name.split(":")[0]) for t in model.inputs]
    fn = tf.function(lambda *xs: model(list(xs) if len(xs) > 1 else xs[0])).get_concrete_function(*spec)
    return tf.lite.TFLiteConverter.from_concrete_functions([fn], model)


def convert_fused(name: str, **opts) -> bytes:
    conv = fused_converter(name)
    for k, v in opts.items():
        setattr(conv, k, v)
    return conv.convert()


FUSED = {"lstm_fused": lstm_fused_tf_keras}


def fused_lstm_outputs(d: Path) -> None:
    """The output of every UNIDIRECTIONAL_SEQUENCE_LSTM in model.tflite and model_dynamic.tflite
    as LiteRT BUILTIN_REF computes it on each test sample (a fresh interpreter per sample, all
    tensors preserved): expected_lstm_<k>.npy and expected_dynamic_lstm_<k>.npy for the k-th LSTM
    in operator order, samples stacked first. (The classifier's softmax output alone hides
    last-bit differences inside the LSTMs.)"""
    x = np.load(d / "input_0.npy")
    for file, prefix in (("model.tflite", "expected_lstm_"), ("model_dynamic.tflite", "expected_dynamic_lstm_")):
        m = flatbuffer_utils.convert_bytearray_to_object(bytearray((d / file).read_bytes()))
        code = schema.BuiltinOperator.UNIDIRECTIONAL_SEQUENCE_LSTM
        outs = [
            op.outputs[0]
            for op in m.subgraphs[0].operators
            if max(m.operatorCodes[op.opcodeIndex].builtinCode, m.operatorCodes[op.opcodeIndex].deprecatedBuiltinCode)
            == code
        ]
        per_sample = []
        for sample in x:
            it = Interpreter(
                model_path=str(d / file),
                experimental_op_resolver_type=OpResolverType.BUILTIN_REF,
                experimental_preserve_all_tensors=True,
            )
            it.allocate_tensors()
            it.set_tensor(it.get_input_details()[0]["index"], sample)
            it.invoke()
            per_sample.append([it.get_tensor(t).copy() for t in outs])
        for k in range(len(outs)):
            np.save(d / f"{prefix}{k}.npy", np.stack([p[k] for p in per_sample]))



# --- TFLite_Detection_PostProcess -------------------------------------------------------------
# The custom op as SSD exports ship it, built with TF's schema object API (the options a
# FlexBuffers map written by flatbuffers.flexbuffers), run by LiteRT's BUILTIN_REF resolver
# (which registers it). The op cases have two inputs (box encodings, class predictions; the
# anchors are a constant) and four outputs; their inputs are made here, not by main's default.

DET_CODE = "TFLite_Detection_PostProcess"
DET_SCALES = dict(y_scale=10.0, x_scale=10.0, h_scale=5.0, w_scale=5.0)


def _qparams(scale: float, zero_point: int):
    qp = schema.QuantizationParametersT()
    qp.scale = np.array([scale], np.float32)
    qp.zeroPoint = np.array([zero_point], np.int64)
    return qp


def _det_tensor(name, shape, ttype, buffer, q=None):
    t = schema.TensorT()
    t.name = name
    t.shape = np.array(shape, dtype=np.int32)
    t.type = ttype
    t.buffer = buffer
    t.quantization = q
    return t


def _det_code():
    oc = schema.OperatorCodeT()
    oc.builtinCode = schema.BuiltinOperator.CUSTOM
    oc.deprecatedBuiltinCode = schema.BuiltinOperator.CUSTOM
    oc.customCode = DET_CODE
    oc.version = 1
    return oc


def _det_op(opcode: int, inputs, outputs, opts: dict):
    op = schema.OperatorT()
    op.opcodeIndex = opcode
    op.inputs = np.array(inputs, np.int32)
    op.outputs = np.array(outputs, np.int32)
    op.customOptions = np.frombuffer(flexbuffers.Dumps(opts), np.uint8)
    op.customOptionsFormat = schema.CustomOptionsFormat.FLEXBUFFERS
    return op


def _det_outputs(opts: dict):
    m = opts["max_detections"] * opts["max_classes_per_detection"]
    f = schema.TensorType.FLOAT32
    return [
        _det_tensor("detection_boxes", [1, m, 4], f, 0),
        _det_tensor("detection_classes", [1, m], f, 0),
        _det_tensor("detection_scores", [1, m], f, 0),
        _det_tensor("num_detections", [1], f, 0),
    ]


def det_model(anchors: np.ndarray, classes: int, opts: dict, uint8=None) -> bytes:
    """One TFLite_Detection_PostProcess: inputs box encodings [1,N,4], class predictions
    [1,N,classes]; anchors [N,4] constant. `uint8` = ((box scale, zp), (score scale, zp),
    (anchor scale, zp)) makes the three tensors UINT8 with those parameters."""
    n = anchors.shape[0]
    m = schema.ModelT()
    m.version = 3
    m.description = "TFLite_Detection_PostProcess op case (make_realworld.py)"
    m.operatorCodes = [_det_code()]
    empty = schema.BufferT()
    anchor_buf = schema.BufferT()
    if uint8 is None:
        t_in, qb, qs, qa = schema.TensorType.FLOAT32, None, None, None
        anchor_buf.data = np.frombuffer(anchors.astype(np.float32).tobytes(), np.uint8)
    else:
        t_in = schema.TensorType.UINT8
        qb, qs, qa = (_qparams(*p) for p in uint8)
        anchor_buf.data = anchors.astype(np.uint8).reshape(-1)
    m.buffers = [empty, schema.BufferT(), schema.BufferT(), anchor_buf]
    sg = schema.SubGraphT()
    sg.name = "main"
    sg.tensors = [
        _det_tensor("box_encodings", [1, n, 4], t_in, 1, qb),
        _det_tensor("class_predictions", [1, n, classes], t_in, 2, qs),
        _det_tensor("anchors", [n, 4], t_in, 3, qa),
        *_det_outputs(opts),
    ]
    sg.inputs = np.array([0, 1], np.int32)
    sg.outputs = np.array([3, 4, 5, 6], np.int32)
    sg.operators = [_det_op(0, [0, 1, 2], [3, 4, 5, 6], opts)]
    m.subgraphs = [sg]
    return bytes(flatbuffer_utils.convert_object_to_bytearray(m))


def _det_opts(**kw) -> dict:
    base = dict(
        max_detections=10,
        max_classes_per_detection=1,
        detections_per_class=100,
        use_regular_nms=False,
        nms_score_threshold=0.3,
        nms_iou_threshold=0.5,
        num_classes=3,
        **DET_SCALES,
    )
    base.update(kw)
    return base


def _grid_anchors(rng, n: int) -> np.ndarray:
    """Anchors [N, 4] (y, x, h, w) in the unit square."""
    return np.stack(
        [rng.uniform(0.1, 0.9, n), rng.uniform(0.1, 0.9, n), rng.uniform(0.1, 0.5, n), rng.uniform(0.1, 0.5, n)],
        axis=1,
    ).astype(np.float32)


def _tied_scores(rng, n: int, classes: int, step: float) -> np.ndarray:
    """Scores in [0, 1) rounded to multiples of `step`: many exact ties across anchors and
    classes (the sort and top-k tie rules decide the order)."""
    return (np.floor(rng.uniform(0.0, 1.0, (1, n, classes)) / step) * step).astype(np.float32)


def _det_case(name: str):
    """(anchors, classes, opts, uint8, box encodings, class predictions) of op case `name`."""
    rng = np.random.default_rng(int.from_bytes(hashlib.sha256(name.encode()).digest()[:4], "little"))
    if name == "detpp_exact_iou":
        # Boxes decoded exactly (encodings 0): pairs whose IoU is exactly the threshold 0.5
        # ([0,0,1,1] vs [0,0,1,0.5]; not suppressed, the test is strictly above) or just over
        # it, with tied scores; fewer candidates than max_detections.
        a = [
            [0.5, 0.5, 1.0, 1.0], [0.5, 0.25, 1.0, 0.5], [0.5, 0.5, 1.0, 1.0], [2.5, 2.5, 1.0, 1.0],
            [2.5, 2.25, 1.0, 0.5], [2.5, 2.3, 1.0, 0.6], [4.5, 4.5, 1.0, 1.0], [4.5, 4.5, 1.0, 1.0],
        ]
        anchors = np.array(a, np.float32)
        enc = np.zeros((1, 8, 4), np.float32)
        scores = np.array(
            [[[0, 0.75, 0.5], [0, 0.75, 0.5], [0, 0.75, 0.75], [0, 0.5, 0.5],
              [0, 0.5, 0.25], [0, 0.5, 0.5], [0, 0.25, 0.25], [0, 0.25, 0.0]]],
            np.float32,
        )
        return anchors, 3, _det_opts(num_classes=2, max_detections=10, max_classes_per_detection=2,
                                      nms_score_threshold=0.25), None, enc, scores
    n = 48
    anchors = _grid_anchors(rng, n)
    enc = rng.normal(0.0, 1.0, (1, n, 4)).astype(np.float32)
    if name == "detpp_fast":
        return anchors, 4, _det_opts(), None, enc, _tied_scores(rng, n, 4, 1 / 16)
    if name == "detpp_fast_multiclass":
        # No background column (classes == num_classes), 3 classes per detection out of 5.
        return anchors, 5, _det_opts(num_classes=5, max_classes_per_detection=3, max_detections=6,
                                      nms_iou_threshold=0.4), None, enc, _tied_scores(rng, n, 5, 1 / 8)
    if name == "detpp_fast_few":
        # Few scores above a high threshold: fewer detections than max_detections.
        return anchors, 4, _det_opts(max_detections=20, max_classes_per_detection=2,
                                      nms_score_threshold=0.85), None, enc, _tied_scores(rng, n, 4, 1 / 32)
    if name == "detpp_regular":
        return anchors, 4, _det_opts(use_regular_nms=True, detections_per_class=4, max_detections=8),\
            None, enc, _tied_scores(rng, n, 4, 1 / 16)
    if name == "detpp_regular_many":
        # Regular NMS with more kept per class than max_detections, no background.
        return anchors, 3, _det_opts(use_regular_nms=True, num_classes=3, detections_per_class=12,
                                      max_detections=10, nms_score_threshold=0.0, nms_iou_threshold=0.6),\
            None, enc, _tied_scores(rng, n, 3, 1 / 4)
    if name == "detpp_uint8":
        # UINT8 box encodings, scores and anchors, dequantized inside the op.
        qa = rng.integers(20, 236, (n, 4)).astype(np.uint8)
        qa[:, 2:] = rng.integers(10, 60, (n, 2))
        benc = rng.integers(0, 256, (1, n, 4)).astype(np.uint8)
        sc = rng.integers(0, 256, (1, n, 4)).astype(np.uint8)
        return qa, 4, _det_opts(max_classes_per_detection=2, nms_score_threshold=0.4),\
            ((0.05, 128), (1 / 255, 0), (1 / 255, 0)), benc, sc
    raise KeyError(name)


DET_CASES = [
    "detpp_fast", "detpp_fast_multiclass", "detpp_fast_few", "detpp_regular", "detpp_regular_many",
    "detpp_exact_iou", "detpp_uint8",
]


def det_make(name: str):
    anchors, classes, opts, uint8, _, _ = _det_case(name)
    return lambda: det_model(anchors, classes, opts, uint8)


def det_inputs(name: str) -> list[np.ndarray]:
    *_, enc, scores = _det_case(name)
    return [enc, scores]


def ssd_detector() -> bytes:
    """A tiny SSD: conv backbone -> box and class heads (2 anchors per cell of a 4x4 map) ->
    TFLite_Detection_PostProcess (regular NMS: every output slot written). TF converts the
    Keras part; the custom op, its anchors and its four outputs are added with the object API,
    as SSD exports carry them."""
    seed(21)
    inp = keras.Input((16, 16, 3), batch_size=1, name="image")
    x = keras.layers.Conv2D(8, 3, strides=2, padding="same", activation="relu", name="conv1")(inp)
    x = keras.layers.Conv2D(16, 3, strides=2, padding="same", activation="relu", name="conv2")(x)
    boxes = keras.layers.Reshape((32, 4), name="box_encodings")(keras.layers.Conv2D(8, 1, name="box_head")(x))
    logits = keras.layers.Reshape((32, 4), name="class_logits")(keras.layers.Conv2D(8, 1, name="class_head")(x))
    scores = keras.layers.Activation("sigmoid", name="class_predictions")(logits)
    model = keras.Model(inp, [boxes, scores])
    data = convert_keras(model)
    cy, cx = np.meshgrid((np.arange(4) + 0.5) / 4, (np.arange(4) + 0.5) / 4, indexing="ij")
    anchors = []
    for y, x_ in zip(cy.reshape(-1), cx.reshape(-1)):
        anchors += [[y, x_, 0.3, 0.3], [y, x_, 0.4, 0.2]]
    anchors = np.array(anchors, np.float32)
    opts = _det_opts(use_regular_nms=True, detections_per_class=5, max_detections=6, nms_score_threshold=0.2)

    def f(m):
        sg = m.subgraphs[0]
        outs = [int(t) for t in sg.outputs]
        # The class predictions come from the sigmoid (LOGISTIC, then maybe a RESHAPE the
        # converter moved after it); the other output is the boxes.
        producer = {int(o): op for op in sg.operators for o in op.outputs}

        def from_logistic(t: int) -> bool:
            op = producer.get(t)
            while op is not None:
                code = m.operatorCodes[op.opcodeIndex].builtinCode
                if code == schema.BuiltinOperator.LOGISTIC:
                    return True
                op = producer.get(int(op.inputs[0]))
            return False

        cls_t = next(o for o in outs if from_logistic(o))
        box_t = next(o for o in outs if o != cls_t)
        buf = schema.BufferT()
        buf.data = np.frombuffer(anchors.tobytes(), np.uint8)
        m.buffers.append(buf)
        a = len(sg.tensors)
        sg.tensors.append(_det_tensor("anchors", [32, 4], schema.TensorType.FLOAT32, len(m.buffers) - 1))
        for t in _det_outputs(opts):
            t.buffer = len(m.buffers)
            m.buffers.append(schema.BufferT())
            sg.tensors.append(t)
        m.operatorCodes.append(_det_code())
        sg.operators.append(_det_op(len(m.operatorCodes) - 1, [box_t, cls_t, a], [a + 1, a + 2, a + 3, a + 4], opts))
        sg.outputs = np.array([a + 1, a + 2, a + 3, a + 4], np.int32)
        m.signatureDefs = []

    return edit(data, f)


RECURRENT = {
    "lstm_classifier": lstm_classifier_keras,
    "gru_kws": gru_kws_keras,
    "bilstm": bilstm_keras,
    **FUSED,
}
RECURRENT_SAMPLES = 3


def recurrent_inputs(name: str, details) -> list[np.ndarray]:
    """RECURRENT_SAMPLES samples per input, stacked on a leading axis: token ids in [0, 50) for
    int32 inputs, uniform [-1, 1) features otherwise."""
    rng = np.random.default_rng(int.from_bytes(hashlib.sha256(name.encode()).digest()[:4], "little"))
    out = []
    for dd in details:
        shape = (RECURRENT_SAMPLES, *dd["shape"])
        if dd["dtype"] == np.int32:
            out.append(rng.integers(0, 50, size=shape).astype(np.int32))
        else:
            out.append(rng.uniform(-1.0, 1.0, size=shape).astype(np.float32))
    return out


def tf_int8_child(name: str, out: Path) -> None:
    """Child process: TF's full-integer conversion (float I/O, representative data from
    recurrent_inputs' generator) of recurrent model `name`, written to `out`."""
    if name in FUSED:
        conv = fused_converter(name)
        details = Interpreter(model_content=convert_fused(name)).get_input_details()
    else:
        model = RECURRENT[name]()
        conv = tf.lite.TFLiteConverter.from_keras_model(model)
        details = Interpreter(model_content=convert_keras(model)).get_input_details()
    conv.optimizations = [tf.lite.Optimize.DEFAULT]

    def rep():
        for k in range(8):
            xs = recurrent_inputs(f"{name}-calibration-{k}", details)
            yield [x[0] for x in xs]

    conv.representative_dataset = rep
    out.write_bytes(conv.convert())


def tf_dynamic(name: str, d: Path) -> dict:
    """TF's dynamic-range conversion (Optimize.DEFAULT, no representative data: int8 weights of
    at least 1024 elements, hybrid kernels) of recurrent model `name`, kept as model_dynamic.tflite
    with LiteRT BUILTIN_REF outputs on the test inputs (expected_dynamic_output_<k>.npy)."""
    opts = {"optimizations": [tf.lite.Optimize.DEFAULT]}
    data = convert_fused(name, **opts) if name in FUSED else convert_keras(RECURRENT[name](), **opts)
    path = d / "model_dynamic.tflite"
    path.write_bytes(data)
    xs = recurrent_inputs(name, Interpreter(model_content=data).get_input_details())
    outs = []
    for s in range(RECURRENT_SAMPLES):
        o, err = litert_outputs(path, [x[s] for x in xs])
        if o is None:
            return {"litert_runs": False, "litert_error": err, "ops": op_names(data)}
        outs.append(o)
    for k in range(len(outs[0])):
        np.save(d / f"expected_dynamic_output_{k}.npy", np.stack([o[k] for o in outs]))
    return {"litert_runs": True, "ops": op_names(data)}


def tf_int8(name: str, d: Path) -> dict:
    """Runs tf_int8_child in a child process (TF's calibrator may crash) and records the outcome;
    a model TF writes is kept as model_int8.tflite with LiteRT outputs on the test inputs."""
    path = d / "model_int8.tflite"
    r = subprocess.run(
        [sys.executable, os.path.abspath(__file__), "--tf-int8-child", name, str(path)],
        capture_output=True,
        text=True,
    )
    if r.returncode != 0:
        path.unlink(missing_ok=True)
        (d / "model_calibrated.tflite").unlink(missing_ok=True)
        how = f"signal {-r.returncode}" if r.returncode < 0 else f"exit {r.returncode}"
        return {"converts": False, "outcome": f"TF's full-integer conversion died ({how})"}
    data = path.read_bytes()
    xs = recurrent_inputs(name, Interpreter(model_content=data).get_input_details())
    outs = []
    for s in range(RECURRENT_SAMPLES):
        o, err = litert_outputs(path, [x[s] for x in xs])
        if o is None:
            return {"converts": True, "litert_runs": False, "outcome": err, "ops": op_names(data)}
        outs.append(o)
    for k in range(len(outs[0])):
        np.save(d / f"expected_int8_output_{k}.npy", np.stack([o[k] for o in outs]))
    return {"converts": True, "litert_runs": True, "ops": op_names(data)}


STREAMING = {"variables": _Counter, "streaming_kws": _StreamingKws}
STREAM_FRAMES = 10
STREAM_RESET_FROM = 5


def stream_inputs(name: str, details) -> list[np.ndarray]:
    """STREAM_FRAMES consecutive frames per input, stacked on a leading frames axis: uniform
    [-1, 1) features."""
    rng = np.random.default_rng(int.from_bytes(hashlib.sha256(name.encode()).digest()[:4], "little"))
    return [rng.uniform(-1.0, 1.0, size=(STREAM_FRAMES, *dd["shape"])).astype(np.float32) for dd in details]


def litert_stream(path: Path, inputs: list[np.ndarray], first: int = 0):
    """BUILTIN_REF outputs of frames first.. of `inputs` run in order on ONE interpreter (state
    carried from call to call), stacked per output on a frames axis; or the load/run error text."""
    try:
        it = Interpreter(model_path=str(path), experimental_op_resolver_type=OpResolverType.BUILTIN_REF)
        it.allocate_tensors()
        per_frame = []
        for f in range(first, len(inputs[0])):
            for d, x in zip(it.get_input_details(), inputs):
                it.set_tensor(d["index"], x[f].astype(d["dtype"]).reshape(d["shape"]))
            it.invoke()
            per_frame.append([it.get_tensor(d["index"]).copy() for d in it.get_output_details()])
        return [np.stack([o[k] for o in per_frame]) for k in range(len(per_frame[0]))], None
    except Exception as e:  # noqa: BLE001 — recorded, the point of the file
        return None, str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__


def save_stream(d: Path, path: Path, prefix: str) -> tuple[bool, str | None]:
    """LiteRT outputs of the model at `path` over the test frames on one interpreter
    (<prefix>output_<k>.npy), and of a re-created interpreter over frames STREAM_RESET_FROM..
    (<prefix>reset_output_<k>.npy: what a reset must give)."""
    xs = [np.load(d / "input_0.npy")]
    outs, err = litert_stream(path, xs)
    if outs is None:
        return False, err
    again, err = litert_stream(path, xs, STREAM_RESET_FROM)
    if again is None:
        return False, err
    for k, y in enumerate(outs):
        np.save(d / f"{prefix}output_{k}.npy", y)
    for k, y in enumerate(again):
        np.save(d / f"{prefix}reset_output_{k}.npy", y)
    return True, None


def stream_calibration(name: str, details) -> np.ndarray:
    """The representative data of TF's full-integer conversion of streaming model `name`: two runs
    of 16 consecutive frames, stacked on a frames axis (saved as calib.npy)."""
    return np.concatenate([stream_inputs(f"{name}-calibration", details)[0], stream_inputs(f"{name}-calibration-2", details)[0]])


def stream_tf_int8_child(name: str, out: Path) -> None:
    """Child process: TF's full-integer conversion (float I/O) of streaming model `name`, its
    representative data stream_calibration's frames in order (TF's calibrator runs them on one
    interpreter, state carried), written to `out`; and TF's calibrate-only model of the same data
    (the float model with the calibrator's min/max on its tensors) as model_calibrated.tflite
    beside it."""
    details = Interpreter(model_content=convert_module(STREAMING[name]())).get_input_details()
    frames = stream_calibration(name, details)

    def rep():
        for x in frames:
            yield [x]

    opts = {"optimizations": [tf.lite.Optimize.DEFAULT], "representative_dataset": rep}
    out.write_bytes(convert_module(STREAMING[name](), **opts))
    calibrated = convert_module(STREAMING[name](), _experimental_calibrate_only=True, **opts)
    (out.parent / "model_calibrated.tflite").write_bytes(calibrated)


def stream_variants(d: Path, name: str) -> dict:
    """TF's full-integer conversion (tried in a child process, outcome recorded; a model TF writes
    kept as model_int8.tflite with expected_int8_*output_<k>.npy) and dynamic-range conversion
    (model_dynamic.tflite, expected_dynamic_*output_<k>.npy) and float16 conversion
    (model_float16.tflite, expected_float16_*output_<k>.npy) of streaming model `name`."""
    out = {}
    path = d / "model_int8.tflite"
    details = Interpreter(model_path=str(d / "model.tflite")).get_input_details()
    np.save(d / "calib.npy", stream_calibration(name, details))
    r = subprocess.run(
        [sys.executable, os.path.abspath(__file__), "--stream-int8-child", name, str(path)],
        capture_output=True,
        text=True,
    )
    if r.returncode != 0:
        path.unlink(missing_ok=True)
        (d / "model_calibrated.tflite").unlink(missing_ok=True)
        how = f"signal {-r.returncode}" if r.returncode < 0 else f"exit {r.returncode}"
        tail = (r.stderr.strip().splitlines() or [""])[-1][:300]
        out["tf_int8"] = {"converts": False, "outcome": f"TF's full-integer conversion failed ({how}): {tail}"}
    else:
        runs, err = save_stream(d, path, "expected_int8_")
        out["tf_int8"] = {"converts": True, "litert_runs": runs, "outcome": err, "ops": op_names(path.read_bytes())}
    seed(15)
    data = convert_module(STREAMING[name](), optimizations=[tf.lite.Optimize.DEFAULT])
    path = d / "model_dynamic.tflite"
    path.write_bytes(data)
    runs, err = save_stream(d, path, "expected_dynamic_")
    out["tf_dynamic"] = {"litert_runs": runs, "outcome": err, "ops": op_names(data)}
    fn = STREAMING[name]()
    conv = tf.lite.TFLiteConverter.from_concrete_functions([fn.__call__.get_concrete_function()], fn)
    conv.experimental_enable_resource_variables = True
    conv.optimizations = [tf.lite.Optimize.DEFAULT]
    conv.target_spec.supported_types = [tf.float16]
    data = conv.convert()
    path = d / "model_float16.tflite"
    path.write_bytes(data)
    runs, err = save_stream(d, path, "expected_float16_")
    out["tf_float16"] = {"litert_runs": runs, "outcome": err, "ops": op_names(data)}
    return out


MODELS = {
    "deprecated_opcodes": (deprecated_opcodes, "operator codes only in deprecated_builtin_code"),
    "sparse_fc": (sparse_fc, "block-sparse float weights behind DENSIFY"),
    "custom_op": (custom_op, "one CUSTOM operator ZpTestCustom no runtime implements"),
    "variables": (variables, "resource variables (VAR_HANDLE/READ_VARIABLE/ASSIGN_VARIABLE, CALL_ONCE)"),
    "streaming_kws": (
        streaming_kws,
        "streaming keyword spotter: ring buffer of the last frames and a smoothed score in resource "
        "variables -> Conv1D -> Dense, one frame per call",
    ),
    "control_flow": (control_flow, "IF and WHILE with their own subgraphs"),
    "lstm_classifier": (
        lambda: convert_keras(lstm_classifier_keras()),
        "Embedding -> LSTM(unroll=False) -> Dense softmax: WHILE over cond/body subgraphs, int32 input",
    ),
    "gru_kws": (lambda: convert_keras(gru_kws_keras()), "GRU(unroll=False) keyword spotter: WHILE"),
    "bilstm": (lambda: convert_keras(bilstm_keras()), "Bidirectional(LSTM): two WHILE loops"),
    "lstm_fused": (
        lambda: convert_fused("lstm_fused"),
        "tf_keras Embedding -> LSTM(return_sequences) -> LSTM -> Dense softmax: two fused "
        "UNIDIRECTIONAL_SEQUENCE_LSTM, int32 input",
    ),
    "no_signature": (no_signature, "no signature defs"),
    "metadata_heavy": (metadata_heavy, "metadata entries incl. 256 KiB TFLITE_METADATA"),
    "dynamic_batch": (dynamic_batch, "batch left dynamic: SHAPE -> STRIDED_SLICE -> PACK -> RESHAPE"),
    "dynamic_shapes": (
        dynamic_shapes,
        "batch left dynamic: TRANSPOSE_CONV output shape, RESHAPE, BROADCAST_TO and a 3-D Dense computed "
        "from SHAPE; float, TF int8 and 16x8 with LiteRT outputs at batch 1 and 3",
    ),
    "softmax16x8_huge_beta": (softmax16x8_huge_beta, "16x8 SOFTMAX with beta 1e12 (rescale exponent above 31)"),
    "ssd_detector": (ssd_detector, "tiny SSD: conv heads -> TFLite_Detection_PostProcess (regular NMS)"),
    **{n: (det_make(n), "TFLite_Detection_PostProcess op case (inputs: box encodings, class predictions)")
       for n in DET_CASES},
}

def ssd_detector_tf_int8(d: Path) -> None:
    """TF's full-integer quantization (float I/O) of ssd_detector's float file, by TF's
    post-training calibrator and quantizer (`tensorflow.lite.python.optimize.calibrator`, the
    quantizer TF's converter runs on a .tflite model) calibrated on input_0.npy; custom operators
    need `allow_float` there and stay float behind DEQUANTIZE. Saved as model_int8_floatio.tflite
    with its LiteRT BUILTIN_REF outputs expected_int8_floatio_output_<k>.npy (samples axis
    first, as expected_output_<k>.npy)."""
    from tensorflow.lite.python.optimize import calibrator

    x = np.load(d / "input_0.npy")

    def rep():
        for sample in x:
            yield [sample]

    c = calibrator.Calibrator((d / "model.tflite").read_bytes())
    data = c.calibrate_and_quantize(rep, tf.float32, tf.float32, True, tf.int8)
    path = d / "model_int8_floatio.tflite"
    path.write_bytes(data)
    outs, err = litert_outputs(path, [x[0]])
    assert outs is not None, err
    for k, y in enumerate(outs):
        np.save(d / f"expected_int8_floatio_output_{k}.npy", y[None, ...])


# Extra files written into a model's folder (before the manifest lists its files).
EXTRAS = {
    "dynamic_shapes": dynamic_shapes_variants,
    "ssd_detector": ssd_detector_tf_int8,
    **{n: fused_lstm_outputs for n in FUSED},
}


def op_names(model: bytes) -> list[list[str]]:
    m = flatbuffer_utils.convert_bytearray_to_object(bytearray(model))
    names = {v: k for k, v in vars(schema.BuiltinOperator).items() if not k.startswith("_")}
    out = []
    for sg in m.subgraphs:
        ops = []
        for op in sg.operators:
            oc = m.operatorCodes[op.opcodeIndex]
            code = max(oc.builtinCode, oc.deprecatedBuiltinCode)
            name = names.get(code, str(code))
            if code == schema.BuiltinOperator.CUSTOM:
                name += f"({oc.customCode.decode() if isinstance(oc.customCode, bytes) else oc.customCode})"
            ops.append(name)
        out.append(ops)
    return out


def litert_outputs(path: Path, inputs: list[np.ndarray]):
    """BUILTIN_REF outputs, or the load/run error text."""
    try:
        it = Interpreter(model_path=str(path), experimental_op_resolver_type=OpResolverType.BUILTIN_REF)
        it.allocate_tensors()
        for d, x in zip(it.get_input_details(), inputs):
            it.set_tensor(d["index"], x.astype(d["dtype"]).reshape(d["shape"]))
        it.invoke()
        return [it.get_tensor(d["index"]).copy() for d in it.get_output_details()], None
    except Exception as e:  # noqa: BLE001 — recorded, the point of the file
        return None, str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__


def main() -> int:
    args = sys.argv[1:]
    if args[:1] == ["--tf-int8-child"]:
        tf_int8_child(args[1], Path(args[2]))
        return 0
    if args[:1] == ["--stream-int8-child"]:
        stream_tf_int8_child(args[1], Path(args[2]))
        return 0
    only = None
    if args[:1] == ["--only"] and len(args) == 2:
        only = args[1].split(",")
        unknown = [n for n in only if n not in MODELS]
        if unknown:
            raise SystemExit(f"unknown model(s) {unknown}; known: {list(MODELS)}")
    elif args:
        raise SystemExit(__doc__)
    manifest = {
        "generator": "tests/tools/make_realworld.py",
        "versions": {p: pkg_version(p) for p in ("tensorflow-cpu", "keras", "tf_keras", "ai-edge-litert", "numpy")},
        "models": {},
    }
    if only is None:
        if OUT.exists():
            shutil.rmtree(OUT)
        OUT.mkdir(parents=True)
    else:
        old = json.loads((OUT / "manifest.json").read_text())
        manifest["models"] = old["models"]
    for name, (make, what) in MODELS.items():
        if only is not None and name not in only:
            continue
        data = make()
        d = OUT / name
        if d.exists():
            shutil.rmtree(d)
        d.mkdir()
        path = d / "model.tflite"
        path.write_bytes(data)
        it = Interpreter(model_content=data)
        details = it.get_input_details()
        extra = {}
        if name in RECURRENT:
            inputs = recurrent_inputs(name, details)
            for k, x in enumerate(inputs):
                np.save(d / f"input_{k}.npy", x)
            per_sample = [litert_outputs(path, [x[s] for x in inputs]) for s in range(RECURRENT_SAMPLES)]
            err = next((e for o, e in per_sample if o is None), None)
            outs = None if err else [np.stack([o[k] for o, _ in per_sample]) for k in range(len(per_sample[0][0]))]
            if outs is not None:
                for k, y in enumerate(outs):
                    np.save(d / f"expected_output_{k}.npy", y)
            extra["samples"] = RECURRENT_SAMPLES
            extra["tf_int8"] = tf_int8(name, d)
            extra["tf_dynamic"] = tf_dynamic(name, d)
        elif name in STREAMING:
            inputs = stream_inputs(name, details)
            np.save(d / "input_0.npy", inputs[0])
            runs, err = save_stream(d, path, "expected_")
            outs = [] if runs else None
            extra["frames"] = STREAM_FRAMES
            extra["reset_from"] = STREAM_RESET_FROM
            extra.update(stream_variants(d, name))
        elif name in DET_CASES:
            # Unstacked (one sample); every output saved. The options, for the test to know which
            # slots LiteRT writes (fast NMS leaves those past the detections unwritten).
            inputs = det_inputs(name)
            for k, x in enumerate(inputs):
                np.save(d / f"input_{k}.npy", x)
            outs, err = litert_outputs(path, inputs)
            if outs is not None:
                for k, y in enumerate(outs):
                    np.save(d / f"expected_output_{k}.npy", y)
            _, _, opts, *_ = _det_case(name)
            extra["detection_options"] = opts
        else:
            rng = np.random.default_rng(int.from_bytes(hashlib.sha256(name.encode()).digest()[:4], "little"))
            inputs = [rng.uniform(-1.0, 1.0, size=dd["shape"]).astype(np.float32) for dd in details]
            for k, x in enumerate(inputs):
                np.save(d / f"input_{k}.npy", x[None, ...])
            outs, err = litert_outputs(path, inputs)
            if outs is not None:
                for k, y in enumerate(outs):
                    np.save(d / f"expected_output_{k}.npy", y[None, ...])
        if name in EXTRAS:
            EXTRAS[name](d)
        files = {}
        for f in sorted(d.iterdir()):
            files[f.name] = {"sha256": hashlib.sha256(f.read_bytes()).hexdigest(), "size": f.stat().st_size}
        manifest["models"][name] = {
            "what": what,
            "ops": op_names(data),
            "litert_runs": outs is not None,
            "litert_error": err,
            "files": files,
            **extra,
        }
        print(f"{name:20s} {len(data):8d} B  ops={op_names(data)}  litert={'ok' if outs is not None else err}")
        if "tf_dynamic" in extra:
            print(f"{'':20s} TF dynamic: {extra['tf_dynamic']}")
        if "tf_int8" in extra:
            print(f"{'':20s} TF int8: {extra['tf_int8']}")
    (OUT / "manifest.json").write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
