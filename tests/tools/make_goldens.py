#!/usr/bin/env python3
"""Deterministic golden-data generator for Zeropoint (run by hand, never in CI).

Builds small Keras models, trains them briefly on synthetic but learnable tasks,
converts each with TF's TFLiteConverter into several variants (float, dynamic
range, full int8, int8 with float I/O, 16x8, fp16) and records LiteRT
reference-kernel outputs for a few test inputs.

Layout written (paths relative to the repository root):

    tests/golden/<case>/case.toml                   what the case is, variants, tolerances
    tests/golden/<case>/model_<variant>.tflite      converter outputs
    tests/golden/<case>/calib.npy                   calibration samples (representative dataset)
    tests/golden/<case>/input_<k>.npy               float test inputs for model input k
    tests/golden/<case>/input_<variant>_<k>.npy     the same inputs quantized, where the dtype differs
    tests/golden/<case>/expected_<variant>_output_<k>.npy
    tests/golden/manifest.json                      sha256 + size of every file, tool versions
    www/assets/example.tflite                       == tests/golden/example_cnn/model_float.tflite

Array layout: every .npy holds samples stacked on a new first axis; element i
has exactly the shape of the model tensor (batch dim 1 included), and is one
separate interpreter invocation.

Adding a case: write a function decorated with ``@case(...)`` that returns a
``CaseData`` (batch-1 Keras model, calibration samples, test inputs). See the
existing cases at the bottom of the file.

Usage:
    tests/tools/.venv/bin/python tests/tools/make_goldens.py [--cases a,b] [--list] [--verbose]
"""

from __future__ import annotations

import os
import sys

# Determinism / quietness knobs that must be in place before Python and TF start
# (hash seed affects set/dict iteration order inside TF's Python code).
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
os.environ.update({k: v for k, v in _ENV.items() if k != "PYTHONHASHSEED"})  # when imported

import argparse  # noqa: E402
import contextlib  # noqa: E402
import hashlib  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import random  # noqa: E402
import shutil  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from importlib.metadata import version as pkg_version  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any, Callable  # noqa: E402

import numpy as np  # noqa: E402

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
GOLDEN = REPO / "tests" / "golden"


@contextlib.contextmanager
def quiet():
    """Silence stdout/stderr at the fd level (TF C++ logs, Keras export prints,
    converter warnings). On error the captured log is replayed to stderr."""
    sys.stdout.flush()
    sys.stderr.flush()
    with tempfile.TemporaryFile() as log:
        saved = os.dup(1), os.dup(2)
        os.dup2(log.fileno(), 1)
        os.dup2(log.fileno(), 2)
        ok = False
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                yield
            ok = True
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            os.close(saved[0])
            os.close(saved[1])
            if not ok:
                log.seek(0)
                sys.stderr.write(log.read().decode(errors="replace")[-20000:])


with quiet():
    import tensorflow as tf

    tf.config.threading.set_intra_op_parallelism_threads(1)
    tf.config.threading.set_inter_op_parallelism_threads(1)
    tf.config.experimental.enable_op_determinism()
    tf.get_logger().setLevel("ERROR")
    import keras
    from ai_edge_litert import schema_py_generated as tfl_schema
    from ai_edge_litert.interpreter import Interpreter, OpResolverType


# --------------------------------------------------------------------------
# Converter variants
# --------------------------------------------------------------------------

REPR = object()  # placeholder: "the representative dataset built from calib"


@dataclass(frozen=True)
class Variant:
    name: str
    description: str
    tolerance: str  # key into TOLERANCES
    # (attribute path on the converter, value, exact Python text of the value)
    settings: tuple[tuple[str, Any, str], ...]


VARIANTS: dict[str, Variant] = {}


def _variant(v: Variant) -> None:
    VARIANTS[v.name] = v


_OPT = ("optimizations", [tf.lite.Optimize.DEFAULT], "[tf.lite.Optimize.DEFAULT]")
_REP = (
    "representative_dataset",
    REPR,
    "calib samples, one per call, as [calib[i]] (batch 1)",
)
_variant(Variant("float", "float32 model, no optimizations", "float_tolerance", ()))
_variant(
    Variant(
        "dynamic",
        "dynamic-range quantization (int8 weights, float activations, hybrid kernels)",
        "dynamic_tolerance",
        (_OPT,),
    )
)
_variant(
    Variant(
        "int8",
        "full integer quantization with int8 inputs/outputs",
        "int8_tolerance",
        (
            _OPT,
            _REP,
            (
                "target_spec.supported_ops",
                [tf.lite.OpsSet.TFLITE_BUILTINS_INT8],
                "[tf.lite.OpsSet.TFLITE_BUILTINS_INT8]",
            ),
            ("inference_input_type", tf.int8, "tf.int8"),
            ("inference_output_type", tf.int8, "tf.int8"),
        ),
    )
)
_variant(
    Variant(
        "int8_floatio",
        "full integer quantization, float32 inputs/outputs (QUANTIZE/DEQUANTIZE at the edges)",
        "int8_tolerance",
        (
            _OPT,
            _REP,
            (
                "target_spec.supported_ops",
                [tf.lite.OpsSet.TFLITE_BUILTINS_INT8],
                "[tf.lite.OpsSet.TFLITE_BUILTINS_INT8]",
            ),
        ),
    )
)
_variant(
    Variant(
        "16x8",
        "int16 activations, int8 weights, float32 inputs/outputs",
        "int16x8_tolerance",
        (
            _OPT,
            _REP,
            (
                "target_spec.supported_ops",
                [tf.lite.OpsSet.EXPERIMENTAL_TFLITE_BUILTINS_ACTIVATIONS_INT16_WEIGHTS_INT8],
                "[tf.lite.OpsSet.EXPERIMENTAL_TFLITE_BUILTINS_ACTIVATIONS_INT16_WEIGHTS_INT8]",
            ),
        ),
    )
)
_variant(
    Variant(
        "fp16",
        "float16 weights (DEQUANTIZE to float32 at load), float32 compute",
        "fp16_tolerance",
        (
            _OPT,
            ("target_spec.supported_types", [tf.float16], "[tf.float16]"),
        ),
    )
)

ALL_VARIANTS = tuple(VARIANTS)

# Tolerance names used by case.toml: name -> (value, one-line reason).
# Float rule: an element passes if |got - expected| <= max(FLOAT_ABS, FLOAT_REL * |expected|).
# Integer rule: the number is the allowed absolute difference in quantized units.
TOLERANCE_RULE = (
    "float: element ok if |got - expected| <= max(FLOAT_ABS, FLOAT_REL * |expected|); "
    "integer: max allowed |got - expected| in quantized units"
)
TOLERANCES: dict[str, tuple[Any, str]] = {
    "float_tolerance": (
        "FLOAT_REL=1e-5,FLOAT_ABS=1e-6",
        "float32 kernels may accumulate in a different order than LiteRT's reference kernels "
        "(LiteRT's own optimized kernels differ by up to 1.4e-5 relative on near-zero outputs)",
    ),
    "fp16_tolerance": (
        "FLOAT_REL=1e-5,FLOAT_ABS=1e-6",
        "fp16 weights dequantize exactly to float32; the rest is the same float32 math as the float model",
    ),
    "dynamic_tolerance": (
        "FLOAT_REL=1e-3,FLOAT_ABS=1e-4",
        "hybrid kernels quantize activations at run time, so a float rounding difference upstream "
        "can flip one activation LSB; LiteRT's optimized hybrid kernels stay within this bound",
    ),
    "int8_tolerance": (
        0,
        "integer kernels with fixed-point requantization are deterministic: must match the reference "
        "kernels bit for bit (float edges are single QUANTIZE/DEQUANTIZE ops, also exact)",
    ),
    "int16x8_tolerance": (
        0,
        "int16-activation kernels use the same fixed-point requantization: exact",
    ),
}


def _set_attr_path(obj: Any, path: str, value: Any) -> None:
    *parents, last = path.split(".")
    for p in parents:
        obj = getattr(obj, p)
    setattr(obj, last, value)


def convert(model: keras.Model, variant: Variant, calib: list[np.ndarray]) -> bytes:
    def representative_dataset():
        for i in range(calib[0].shape[0]):
            yield [c[i] for c in calib]

    with quiet():
        conv = tf.lite.TFLiteConverter.from_keras_model(model)
        for path, value, _ in variant.settings:
            _set_attr_path(conv, path, representative_dataset if value is REPR else value)
        return bytes(conv.convert())


# --------------------------------------------------------------------------
# LiteRT reference runs and model introspection
# --------------------------------------------------------------------------


def quantize(x: np.ndarray, scale: float, zero_point: int, dtype: np.dtype) -> np.ndarray:
    """float -> integer the way TFLite's reference QUANTIZE does it:
    round-half-away-from-zero(x / scale) + zero_point, computed in float32, clamped."""
    q = x.astype(np.float32) / np.float32(scale)
    q = np.sign(q) * np.floor(np.abs(q).astype(np.float64) + 0.5)
    info = np.iinfo(dtype)
    return np.clip(q + zero_point, info.min, info.max).astype(dtype)


def make_interpreter(model: bytes) -> Interpreter:
    with quiet():
        it = Interpreter(
            model_content=model,
            experimental_op_resolver_type=OpResolverType.BUILTIN_REF,
            num_threads=1,
        )
        it.allocate_tensors()
    return it


def run_reference(model: bytes, inputs: list[np.ndarray]) -> list[np.ndarray]:
    """inputs[k][i] is sample i of model input k (already the right dtype)."""
    it = make_interpreter(model)
    ins, outs = it.get_input_details(), it.get_output_details()
    assert len(ins) == len(inputs), (len(ins), len(inputs))
    results: list[list[np.ndarray]] = [[] for _ in outs]
    for i in range(inputs[0].shape[0]):
        for d, arr in zip(ins, inputs):
            it.set_tensor(d["index"], arr[i])
        it.invoke()
        for k, d in enumerate(outs):
            results[k].append(it.get_tensor(d["index"]).copy())
    return [np.stack(r) for r in results]


_OP_NAMES = {v: k for k, v in vars(tfl_schema.BuiltinOperator).items() if not k.startswith("_")}
_TYPE_NAMES = {v: k for k, v in vars(tfl_schema.TensorType).items() if not k.startswith("_")}


def model_ops(model: bytes) -> list[str]:
    """Builtin operator names in order of first use (subgraph 0 first)."""
    m = tfl_schema.Model.GetRootAs(model, 0)
    seen: list[str] = []
    for s in range(m.SubgraphsLength()):
        sg = m.Subgraphs(s)
        for o in range(sg.OperatorsLength()):
            oc = m.OperatorCodes(sg.Operators(o).OpcodeIndex())
            code = max(oc.BuiltinCode(), oc.DeprecatedBuiltinCode())
            name = _OP_NAMES.get(code, f"BUILTIN_{code}")
            if code == tfl_schema.BuiltinOperator.CUSTOM:
                name = f"CUSTOM:{oc.CustomCode().decode()}"
            if name not in seen:
                seen.append(name)
    return seen


# --------------------------------------------------------------------------
# Case registry
# --------------------------------------------------------------------------


@dataclass
class CaseData:
    model: keras.Model  # batch-1 inference model that gets converted
    calib: list[np.ndarray]  # per model input: [N, *input_shape] float32
    inputs: list[np.ndarray]  # per model input: [S, *input_shape] float32
    description: str
    notes: dict[str, Any] = field(default_factory=dict)


@dataclass
class CaseSpec:
    name: str
    build: Callable[[int], CaseData]
    seed: int
    variants: tuple[str, ...]
    # variant -> extra repo-relative path receiving an identical copy of that model
    copies: dict[str, str]


CASES: dict[str, CaseSpec] = {}


def case(name: str, *, seed: int, variants: tuple[str, ...] = ALL_VARIANTS, copies=None):
    def deco(fn: Callable[[int], CaseData]):
        assert name not in CASES, name
        CASES[name] = CaseSpec(name, fn, seed, variants, dict(copies or {}))
        return fn

    return deco


def seed_everything(seed: int) -> None:
    keras.backend.clear_session()  # resets auto-naming counters
    random.seed(seed)
    np.random.seed(seed)
    keras.utils.set_random_seed(seed)  # python, numpy, TF and Keras seed generators


def train_and_freeze(
    build: Callable[[int | None], keras.Model],
    x: np.ndarray,
    y: np.ndarray,
    x_val: np.ndarray,
    y_val: np.ndarray,
    *,
    epochs: int,
    batch_size: int = 32,
    lr: float = 3e-3,
    loss: Any = "sparse_categorical_crossentropy",
    metrics: Any = ("accuracy",),
) -> tuple[keras.Model, dict[str, float]]:
    """Train build(None) briefly, then return build(1) (static batch 1, what the
    converter sees) carrying the trained weights, plus validation metrics."""
    with quiet():
        m = build(None)
        m.compile(optimizer=keras.optimizers.Adam(lr), loss=loss, metrics=list(metrics) if not isinstance(metrics, dict) else metrics)
        m.fit(x, y, epochs=epochs, batch_size=batch_size, shuffle=True, verbose=0)
        res = m.evaluate(x_val, y_val, batch_size=64, verbose=0, return_dict=True)
        frozen = build(1)
        frozen.set_weights(m.get_weights())
    return frozen, {k: round(float(v), 4) for k, v in res.items()}


# --------------------------------------------------------------------------
# Synthetic data
# --------------------------------------------------------------------------

SHAPE_CLASSES = ("circle", "square", "triangle", "cross", "h_stripes", "v_stripes")


def draw_shapes(rng: np.random.Generator, n: int, size: int, classes: tuple[str, ...]):
    """Procedural images: one coloured shape (or a stripe pattern) on a coloured
    background with pixel noise, values on the 1/255 grid in [0, 1].
    Returns (images [n, size, size, 3] float32, labels [n] int32)."""
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float32) + 0.5
    labels = rng.permutation(np.arange(n) % len(classes)).astype(np.int32)
    imgs = np.empty((n, size, size, 3), np.float32)
    for i, lab in enumerate(labels):
        kind = classes[lab]
        bg = rng.uniform(0.0, 1.0, 3)
        fg = rng.uniform(0.0, 1.0, 3)
        while np.abs(fg - bg).mean() < 0.3:
            fg = rng.uniform(0.0, 1.0, 3)
        cx, cy = rng.uniform(0.35, 0.65, 2) * size
        r = rng.uniform(0.18, 0.32) * size
        dx, dy = xx - cx, yy - cy
        if kind == "circle":
            mask = dx * dx + dy * dy < r * r
        elif kind == "square":
            mask = np.maximum(np.abs(dx), np.abs(dy)) < 0.85 * r
        elif kind == "triangle":  # apex up
            mask = (dy < 0.7 * r) & (np.abs(dx) < 0.6 * (dy + r))
        elif kind == "cross":
            w = 0.3 * r
            mask = ((np.abs(dx) < w) & (np.abs(dy) < r)) | ((np.abs(dy) < w) & (np.abs(dx) < r))
        elif kind in ("h_stripes", "v_stripes"):
            period = rng.uniform(0.15, 0.3) * size
            coord = yy if kind == "h_stripes" else xx
            mask = np.sin(2 * np.pi * coord / period + rng.uniform(0, 2 * np.pi)) > 0
        else:
            raise ValueError(kind)
        img = np.where(mask[..., None], fg, bg) + rng.normal(0.0, 0.06, (size, size, 3))
        imgs[i] = np.round(np.clip(img, 0.0, 1.0) * 255.0) / 255.0
    return imgs, labels


def tabular_task(rng: np.random.Generator, n: int):
    """16 standard-normal features laid out as a 4x4 grid; a 3-class rule plus a
    bounded regression target. Returns (x [n,4,4], class [n], target [n,1])."""
    x = rng.normal(0.0, 1.0, (n, 16)).astype(np.float32)
    score0 = x[:, 0] * x[:, 1] + 0.5 * x[:, 2]
    score1 = np.sin(2.0 * x[:, 3]) + 0.5 * x[:, 4] ** 2 - 0.5
    score2 = 0.8 * x[:, 5] - 0.6 * x[:, 6] + 0.3 * x[:, 7] * x[:, 8]
    cls = np.argmax(np.stack([score0, score1, score2], 1), 1).astype(np.int32)
    target = np.tanh(0.7 * x[:, 9] - 0.4 * x[:, 10] + 0.3 * x[:, 11] * x[:, 12])[:, None]
    return x.reshape(n, 4, 4), cls, target.astype(np.float32)


def split_for_case(x: np.ndarray, n_calib: int, n_inputs: int):
    """Calibration samples and test inputs, each stacked as [N, 1, ...] (batch-1 tensors)."""
    calib = x[:n_calib][:, None]
    inputs = x[n_calib : n_calib + n_inputs][:, None]
    return np.ascontiguousarray(calib), np.ascontiguousarray(inputs)


# --------------------------------------------------------------------------
# Cases
# --------------------------------------------------------------------------

L = keras.layers


@case("example_cnn", seed=1001, copies={"float": "www/assets/example.tflite"})
def example_cnn(seed: int) -> CaseData:
    classes = SHAPE_CLASSES[:5]
    rng = np.random.default_rng(seed)
    x, y = draw_shapes(rng, 2400, 32, classes)
    xv, yv = draw_shapes(rng, 400, 32, classes)
    xe, _ = draw_shapes(rng, 32 + 4, 32, classes)

    def build(bs):
        i = keras.Input((32, 32, 3), batch_size=bs, name="image")
        h = L.Conv2D(8, 3, strides=2, padding="same", activation="relu6", name="conv1")(i)
        h = L.DepthwiseConv2D(3, padding="same", activation="relu", name="dw1")(h)
        h = L.Conv2D(16, 1, activation="relu", name="pw1")(h)
        h = L.MaxPooling2D(2, name="maxpool")(h)
        h = L.Conv2D(32, 3, padding="same", activation="relu", name="conv2")(h)
        h = L.AveragePooling2D(2, name="avgpool")(h)
        h = L.Flatten(name="flatten")(h)
        h = L.Dense(32, activation="relu", name="fc1")(h)
        h = L.Dense(len(classes), name="logits")(h)
        o = L.Softmax(name="probs")(h)
        return keras.Model(i, o, name="example_cnn")

    model, metrics = train_and_freeze(build, x, y, xv, yv, epochs=6)
    calib, inputs = split_for_case(xe, 32, 4)
    return CaseData(
        model,
        [calib],
        [inputs],
        "Example image classifier bundled with the web page: 32x32 RGB procedurally drawn "
        f"shapes/stripes, {len(classes)} classes ({', '.join(classes)}); CONV_2D (RELU6, stride 2), "
        "DEPTHWISE_CONV_2D, MAX/AVERAGE_POOL_2D, RESHAPE, FULLY_CONNECTED, SOFTMAX.",
        {"classes": list(classes), "val_metrics": metrics},
    )


@case("mlp", seed=2002)
def mlp(seed: int) -> CaseData:
    rng = np.random.default_rng(seed)
    x, c, t = tabular_task(rng, 6000)
    xv, cv, tv = tabular_task(rng, 1000)
    xe, _, _ = tabular_task(rng, 64 + 4)

    def build(bs):
        i = keras.Input((4, 4), batch_size=bs, name="features")
        f = L.Flatten(name="flatten")(i)
        h = L.Dense(48, activation="relu", name="fc1")(f)
        a = L.Dense(32, activation="tanh", use_bias=False, name="fc_tanh_nobias")(h)
        b = L.Dense(32, activation="sigmoid", name="fc_sigmoid")(f)
        s = L.Add(name="add")([a, b])
        cat = L.Concatenate(name="concat")([s, h])
        h2 = L.Dense(32, activation="relu", name="fc2")(cat)
        cls = L.Dense(3, name="class_logits")(h2)
        reg = L.Dense(1, activation="tanh", name="regression")(h2)
        return keras.Model(i, [cls, reg], name="mlp")

    model, metrics = train_and_freeze(
        build,
        x,
        (c, t),
        xv,
        (cv, tv),
        epochs=8,
        lr=3e-3,
        loss=[keras.losses.SparseCategoricalCrossentropy(from_logits=True), "mse"],
        metrics=[["accuracy"], ["mae"]],
    )
    calib, inputs = split_for_case(xe, 64, 4)
    return CaseData(
        model,
        [calib],
        [inputs],
        "MLP on a synthetic tabular rule (16 normal features as a 4x4 grid): RESHAPE, "
        "FULLY_CONNECTED with and without bias, RELU/TANH/LOGISTIC, ADD, CONCATENATION; "
        "two outputs (3 class logits, 1 tanh regression value).",
        {"val_metrics": metrics},
    )


@case("mobilenet_block", seed=3003)
def mobilenet_block(seed: int) -> CaseData:
    classes = SHAPE_CLASSES
    rng = np.random.default_rng(seed)
    x, y = draw_shapes(rng, 1200, 48, classes)
    xv, yv = draw_shapes(rng, 300, 48, classes)
    xe, _ = draw_shapes(rng, 32 + 4, 48, classes)

    def conv_bn(h, filters, kernel, stride, relu6, name):
        h = L.Conv2D(filters, kernel, strides=stride, padding="same", use_bias=False, name=name)(h)
        h = L.BatchNormalization(momentum=0.9, name=name + "_bn")(h)
        return L.ReLU(6.0, name=name + "_relu6")(h) if relu6 else h

    def inverted_residual(h, cin, cout, stride, expand, name):
        inp = h
        h = conv_bn(h, cin * expand, 1, 1, True, name + "_expand")
        if stride == 2:  # MobileNetV2 pads explicitly before strided depthwise convs
            h = L.ZeroPadding2D(((0, 1), (0, 1)), name=name + "_pad")(h)
        h = L.DepthwiseConv2D(3, strides=stride, padding="same" if stride == 1 else "valid", use_bias=False, name=name + "_dw")(h)
        h = L.BatchNormalization(momentum=0.9, name=name + "_dw_bn")(h)
        h = L.ReLU(6.0, name=name + "_dw_relu6")(h)
        h = conv_bn(h, cout, 1, 1, False, name + "_project")
        if stride == 1 and cin == cout:
            h = L.Add(name=name + "_add")([inp, h])
        return h

    def build(bs):
        i = keras.Input((48, 48, 3), batch_size=bs, name="image")
        h = conv_bn(i, 8, 3, 2, True, "stem")  # 24x24x8
        h = inverted_residual(h, 8, 8, 1, 3, "block1")
        h = inverted_residual(h, 8, 16, 2, 4, "block2")  # 12x12x16
        h = inverted_residual(h, 16, 16, 1, 4, "block3")
        h = conv_bn(h, 48, 1, 1, True, "head")
        h = L.GlobalAveragePooling2D(name="gap")(h)
        h = L.Dense(len(classes), name="logits")(h)
        o = L.Softmax(name="probs")(h)
        return keras.Model(i, o, name="mobilenet_block")

    model, metrics = train_and_freeze(build, x, y, xv, yv, epochs=6)
    calib, inputs = split_for_case(xe, 32, 4)
    return CaseData(
        model,
        [calib],
        [inputs],
        "MobileNetV2-style net on 48x48 RGB shapes/stripes (6 classes): stem conv, three inverted "
        "residual blocks (1x1 expand + RELU6, PAD + depthwise 3x3 stride 2 / depthwise 3x3, 1x1 "
        "linear project, residual ADD), batch norm folded, MEAN (global average pool), "
        "FULLY_CONNECTED, SOFTMAX.",
        {"classes": list(classes), "val_metrics": metrics},
    )


# --------------------------------------------------------------------------
# Output writing
# --------------------------------------------------------------------------


def toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{k} = {toml_value(x)}" for k, x in v.items()) + " }"
    raise TypeError(type(v))


def save_npy(path: Path, arr: np.ndarray) -> None:
    with open(path, "wb") as f:
        np.save(f, np.ascontiguousarray(arr), allow_pickle=False)


def sha256_file(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def io_desc(details: list[dict], sig_names: dict[int, str]) -> list[dict]:
    out = []
    for d in details:
        qp = d["quantization_parameters"]
        e = {"name": d["name"], "shape": [int(s) for s in d["shape"]], "dtype": np.dtype(d["dtype"]).name}
        if d["index"] in sig_names:
            e["signature_name"] = sig_names[d["index"]]
        if len(qp["scales"]):
            e["scale"] = [float(s) for s in qp["scales"]]
            e["zero_point"] = [int(z) for z in qp["zero_points"]]
        out.append(e)
    return out


def generate_case(spec: CaseSpec, verbose: bool) -> dict:
    t0 = time.time()
    seed_everything(spec.seed)
    data = spec.build(spec.seed)
    out = GOLDEN / spec.name
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)

    calib_files = []
    for k, c in enumerate(data.calib):
        fn = "calib.npy" if len(data.calib) == 1 else f"calib_{k}.npy"
        save_npy(out / fn, c.astype(np.float32))
        calib_files.append(fn)
    input_files = []
    for k, x in enumerate(data.inputs):
        fn = f"input_{k}.npy"
        save_npy(out / fn, x.astype(np.float32))
        input_files.append(fn)

    variants_toml = []
    for vname in spec.variants:
        v = VARIANTS[vname]
        blob = convert(data.model, v, data.calib)
        model_fn = f"model_{vname}.tflite"
        (out / model_fn).write_bytes(blob)
        if vname in spec.copies:
            dst = REPO / spec.copies[vname]
            dst.parent.mkdir(parents=True, exist_ok=True)
            dst.write_bytes(blob)

        it = make_interpreter(blob)
        ins, outs = it.get_input_details(), it.get_output_details()
        sig_in: dict[int, str] = {}
        sig_out: dict[int, str] = {}
        for sig in it._get_full_signature_list().values():
            sig_in.update({idx: n for n, idx in sig["inputs"].items()})
            sig_out.update({idx: n for n, idx in sig["outputs"].items()})
        feed, feed_files = [], []
        for k, (d, x) in enumerate(zip(ins, data.inputs)):
            dt = np.dtype(d["dtype"])
            if dt == np.float32:
                feed.append(x.astype(np.float32))
                feed_files.append(input_files[k])
            else:
                scale, zp = d["quantization"]
                assert scale > 0, (vname, d)
                q = quantize(x, scale, zp, dt)
                fn = f"input_{vname}_{k}.npy"
                save_npy(out / fn, q)
                feed.append(q)
                feed_files.append(fn)
        results = run_reference(blob, feed)
        expected_files = []
        for k, r in enumerate(results):
            fn = f"expected_{vname}_output_{k}.npy"
            save_npy(out / fn, r)
            expected_files.append(fn)
        entry = {
            "name": vname,
            "model": model_fn,
            "description": v.description,
            "converter": [f"converter.{p} = {text}" for p, _, text in v.settings]
            or ["(defaults: no optimizations)"],
            "inputs": feed_files,
            "expected_outputs": expected_files,
            "tolerance": v.tolerance,
            "ops": model_ops(blob),
            "input_details": io_desc(ins, sig_in),
            "output_details": io_desc(outs, sig_out),
        }
        if vname in spec.copies:
            entry["copied_to"] = spec.copies[vname]
        variants_toml.append(entry)

    lines = [
        "# Generated by tests/tools/make_goldens.py -- do not edit by hand.",
        "# Arrays: first axis = samples; element i has exactly the model tensor's shape",
        "# (batch dim 1 included) and is one separate invocation with LiteRT's",
        "# BUILTIN_REF (reference) kernels. input_<k> / output_<k> follow the subgraph's",
        "# input/output order (as in input_details / output_details below), which can",
        "# differ from the signature order (see signature_name).",
        "",
        f"name = {toml_value(spec.name)}",
        f"description = {toml_value(data.description)}",
        f"seed = {spec.seed}",
        f"variants = {toml_value([v['name'] for v in variants_toml])}",
        f"calibration = {toml_value(calib_files)}",
        f"inputs = {toml_value(input_files)}",
        f"num_samples = {int(data.inputs[0].shape[0])}",
        "",
        f"tolerance_rule = {toml_value(TOLERANCE_RULE)}",
        "",
        "[training]",
    ]
    for k, val in data.notes.items():
        lines.append(f"{k} = {toml_value(val)}")
    lines += ["", "[tolerances]"]
    used = []
    for v in variants_toml:
        if v["tolerance"] not in used:
            used.append(v["tolerance"])
    for tname in used:
        val, reason = TOLERANCES[tname]
        lines.append(f"{tname} = {toml_value(val)}")
        lines.append(f"{tname}_reason = {toml_value(reason)}")
    for v in variants_toml:
        lines += ["", "[[variant]]"]
        for key in ("name", "model", "description", "converter", "inputs", "expected_outputs", "tolerance", "ops", "copied_to"):
            if key in v:
                lines.append(f"{key} = {toml_value(v[key])}")
        for key in ("input_details", "output_details"):
            lines.append(f"{key} = [")
            for d in v[key]:
                lines.append(f"  {toml_value(d)},")
            lines.append("]")
    (out / "case.toml").write_text("\n".join(lines) + "\n")

    elapsed = time.time() - t0
    summary = f"{spec.name}: {len(spec.variants)} variants, {data.notes.get('val_metrics')}, {elapsed:.1f} s"
    print(summary, flush=True)
    if verbose:
        for v in variants_toml:
            print(f"  {v['name']:13s} {' '.join(v['ops'])}")
    return {"case": spec.name, "seconds": elapsed}


def write_manifest() -> None:
    files = []
    for p in sorted(GOLDEN.rglob("*")):
        if p.is_file() and p.name != "manifest.json":
            files.append(p)
    for spec in CASES.values():
        for rel in spec.copies.values():
            files.append(REPO / rel)
    manifest = {
        "generator": "tests/tools/make_goldens.py",
        "versions": {
            "tensorflow": tf.__version__,
            "keras": keras.__version__,
            "ai_edge_litert": pkg_version("ai-edge-litert"),
            "numpy": np.__version__,
            "python": platform.python_version(),
        },
        "files": [
            {
                "path": p.relative_to(REPO).as_posix(),
                "size": p.stat().st_size,
                "sha256": sha256_file(p),
            }
            for p in files
        ],
    }
    (GOLDEN / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", help="comma-separated subset of cases (default: all)")
    ap.add_argument("--list", action="store_true", help="list cases and exit")
    ap.add_argument("--verbose", action="store_true", help="also print the op list of every variant")
    args = ap.parse_args()
    if args.list:
        for name, spec in CASES.items():
            print(name, " ".join(spec.variants))
        return 0
    names = list(CASES) if not args.cases else [c.strip() for c in args.cases.split(",") if c.strip()]
    unknown = [n for n in names if n not in CASES]
    if unknown:
        ap.error(f"unknown case(s): {', '.join(unknown)}")
    t0 = time.time()
    GOLDEN.mkdir(parents=True, exist_ok=True)
    for n in names:
        generate_case(CASES[n], args.verbose)
    write_manifest()
    print(f"done in {time.time() - t0:.1f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
