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

The streaming models (variables, streaming_kws) have STREAM_FRAMES consecutive frames in input_0.npy
(stacked on a leading frames axis), run in order on ONE LiteRT interpreter so the variables carry
state from call to call (expected_output_<k>.npy, one row per frame), and the outputs of a
re-created interpreter over frames STREAM_RESET_FROM.. (expected_reset_output_<k>.npy: what a
reset must give). TF's full-integer conversion (16 consecutive calibration frames) is tried in a
child process and its outcome recorded (`tf_int8`; a model it writes is kept as model_int8.tflite
with the same two kinds of LiteRT outputs), and TF's dynamic-range conversion is kept as
model_dynamic.tflite with its LiteRT outputs (`tf_dynamic`), its float16 conversion as
model_float16.tflite (`tf_float16`).

The recurrent models (lstm_classifier, gru_kws, bilstm) have RECURRENT_SAMPLES inputs stacked on
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


RECURRENT = {"lstm_classifier": lstm_classifier_keras, "gru_kws": gru_kws_keras, "bilstm": bilstm_keras}
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
    model = RECURRENT[name]()
    conv = tf.lite.TFLiteConverter.from_keras_model(model)
    conv.optimizations = [tf.lite.Optimize.DEFAULT]
    details = Interpreter(model_content=convert_keras(model)).get_input_details()

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
    data = convert_keras(RECURRENT[name](), optimizations=[tf.lite.Optimize.DEFAULT])
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


def stream_tf_int8_child(name: str, out: Path) -> None:
    """Child process: TF's full-integer conversion (float I/O) of streaming model `name`, its
    representative data 16 consecutive frames (TF's calibrator runs them on one interpreter)."""
    details = Interpreter(model_content=convert_module(STREAMING[name]())).get_input_details()

    def rep():
        for x in stream_inputs(f"{name}-calibration", details)[0]:
            yield [x]
        for x in stream_inputs(f"{name}-calibration-2", details)[0]:
            yield [x]

    out.write_bytes(convert_module(STREAMING[name](), optimizations=[tf.lite.Optimize.DEFAULT], representative_dataset=rep))


def stream_variants(d: Path, name: str) -> dict:
    """TF's full-integer conversion (tried in a child process, outcome recorded; a model TF writes
    kept as model_int8.tflite with expected_int8_*output_<k>.npy) and dynamic-range conversion
    (model_dynamic.tflite, expected_dynamic_*output_<k>.npy) and float16 conversion
    (model_float16.tflite, expected_float16_*output_<k>.npy) of streaming model `name`."""
    out = {}
    path = d / "model_int8.tflite"
    r = subprocess.run(
        [sys.executable, os.path.abspath(__file__), "--stream-int8-child", name, str(path)],
        capture_output=True,
        text=True,
    )
    if r.returncode != 0:
        path.unlink(missing_ok=True)
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
    "no_signature": (no_signature, "no signature defs"),
    "metadata_heavy": (metadata_heavy, "metadata entries incl. 256 KiB TFLITE_METADATA"),
    "dynamic_batch": (dynamic_batch, "batch left dynamic: SHAPE -> STRIDED_SLICE -> PACK -> RESHAPE"),
    "dynamic_shapes": (
        dynamic_shapes,
        "batch left dynamic: TRANSPOSE_CONV output shape, RESHAPE, BROADCAST_TO and a 3-D Dense computed "
        "from SHAPE; float, TF int8 and 16x8 with LiteRT outputs at batch 1 and 3",
    ),
    "softmax16x8_huge_beta": (softmax16x8_huge_beta, "16x8 SOFTMAX with beta 1e12 (rescale exponent above 31)"),
}

# Extra files written into a model's folder (before the manifest lists its files).
EXTRAS = {"dynamic_shapes": dynamic_shapes_variants}


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
        "versions": {p: pkg_version(p) for p in ("tensorflow-cpu", "keras", "ai-edge-litert", "numpy")},
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
