#!/usr/bin/env python3
"""Deterministic golden-data generator for Zeropoint (run by hand, never in CI).

Builds small Keras models (whole nets trained briefly on synthetic but
learnable tasks, and single-operator models with seeded random weights),
converts each with TF's TFLiteConverter into several variants (float, dynamic
range, full int8, int8 with float I/O, 16x8, fp16, calibrated-only) and records
what LiteRT computes on a few test inputs: outputs of the reference kernels
(BUILTIN_REF, the bit-exact target), of the optimized builtin kernels and of
the default XNNPACK path (for comparison), and for integer models every
intermediate tensor of the first input.

Layout written (paths relative to the repository root):

    tests/golden/<case>/case.toml                   what the case is, variants, tolerances, op lists
    tests/golden/<case>/model_<variant>.tflite      converter outputs
    tests/golden/<case>/calib.npy                   calibration samples (representative dataset);
                                                    calib_<k>.npy when the model has several inputs
    tests/golden/<case>/input_<k>.npy               float test inputs for model input k
    tests/golden/<case>/input_<variant>_<k>.npy     the same inputs quantized, where the dtype differs
    tests/golden/<case>/expected_<variant>_output_<k>.npy            LiteRT BUILTIN_REF
    tests/golden/<case>/expected_<variant>_optimized_output_<k>.npy  BUILTIN_WITHOUT_DEFAULT_DELEGATES
    tests/golden/<case>/expected_<variant>_xnnpack_output_<k>.npy    AUTO (default: XNNPACK delegate)
    tests/golden/<case>/intermediates_<variant>/t<index>.npy         every op output, first input, REF
    (optimized / xnnpack outputs and intermediates identical to an array already written
    in the case are not stored twice: case.toml names the file that holds them)
    tests/golden/manifest.json                      sha256 + size of every file, tool versions
    www/assets/example.tflite                       == tests/golden/example_cnn/model_float.tflite

Array layout: every .npy holds samples stacked on a new first axis; element i
has exactly the shape of the model tensor (batch dim 1 included), and is one
separate interpreter invocation. Intermediates hold one sample (first axis 1).
input_<k> / output_<k> follow the subgraph's input/output order.

Adding a case: a whole model is a function decorated with ``@case(...)`` that
returns a ``CaseData`` (batch-1 Keras model, calibration samples, test inputs);
a single-operator case is one ``op_case(...)`` call. See the cases below.

Usage:
    tests/tools/.venv/bin/python tests/tools/make_goldens.py [--cases a,b] [--jobs N] [--list] [--verbose]
    tests/tools/.venv/bin/python tests/tools/make_goldens.py --labelled-only --cases example_cnn,mlp
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
import multiprocessing  # noqa: E402
import platform  # noqa: E402
import random  # noqa: E402
import re  # noqa: E402
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
def quiet(replay: bool = True):
    """Silence stdout/stderr at the fd level (TF C++ logs, Keras export prints,
    converter warnings). On error the captured log is replayed to stderr (unless
    replay is false: the caller reports the error itself)."""
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
            if not ok and replay:
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
    # weight-quantizing variants that leave a model without weights unchanged: the
    # tensor type whose presence shows the variant did something (else it is skipped)
    needs_type: str | None = None


VARIANTS: dict[str, Variant] = {}


def _variant(v: Variant) -> None:
    VARIANTS[v.name] = v


_OPT = ("optimizations", [tf.lite.Optimize.DEFAULT], "[tf.lite.Optimize.DEFAULT]")
_REP = (
    "representative_dataset",
    REPR,
    "calib samples, one per call, as [calib[i]] (batch 1; a dict by input name for several inputs)",
)
_variant(Variant("float", "float32 model, no optimizations", "float_tolerance", ()))
_variant(
    Variant(
        "dynamic",
        "dynamic-range quantization (int8 weights, float activations, hybrid kernels)",
        "dynamic_tolerance",
        (_OPT,),
        needs_type="INT8",
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
        needs_type="FLOAT16",
    )
)
_variant(
    Variant(
        "calibrated",
        "TF's calibrated-only model (the flag tf.lite.experimental.QuantizationDebugger uses): the "
        "float model whose float tensors carry the calibrator's recorded min/max in their "
        "quantization min/max fields (no scale/zero point)",
        "calibrated_tolerance",
        (_OPT, _REP, ("_experimental_calibrate_only", True, "True")),
    )
)

ALL_VARIANTS = tuple(VARIANTS)
# Variants whose every intermediate tensor is recorded (first input, BUILTIN_REF).
TRACED_VARIANTS = ("int8", "int8_floatio", "16x8")

# LiteRT op resolvers: the reference kernels are the target; the other two are
# recorded for comparison only.
RESOLVERS = {
    "reference": OpResolverType.BUILTIN_REF,
    "optimized": OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES,
    "xnnpack": OpResolverType.AUTO,
}

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
    "calibrated_tolerance": (
        "FLOAT_REL=1e-5,FLOAT_ABS=1e-6",
        "the calibrated model is the float model plus recorded min/max (ignored at run time): same float32 math",
    ),
}

# Stages a variant can be checked at (used by expected_failure.stage), in pipeline order.
STAGES = ("read", "rewrite", "float", "int8", "calibrate", "quantize")


def _set_attr_path(obj: Any, path: str, value: Any) -> None:
    *parents, last = path.split(".")
    for p in parents:
        obj = getattr(obj, p)
    setattr(obj, last, value)


def convert(model: keras.Model, variant: Variant, calib: list[np.ndarray], names: list[str]) -> bytes:
    """calib[k] are the samples of Keras input k (named names[k])."""

    def representative_dataset():
        for i in range(calib[0].shape[0]):
            if len(calib) == 1:
                yield [calib[0][i]]
            else:  # a list would be matched against an order TF does not document
                yield {n: c[i] for n, c in zip(names, calib)}

    with quiet(replay=variant.name != "float"):  # a refused variant is recorded, not shown
        conv = tf.lite.TFLiteConverter.from_keras_model(model)
        for path, value, _ in variant.settings:
            _set_attr_path(conv, path, representative_dataset if value is REPR else value)
        return bytes(conv.convert())


def short_error(e: BaseException) -> str:
    """One line out of a converter / interpreter error."""
    lines = [ln.strip() for ln in str(e).splitlines() if ln.strip()]
    errs = [ln for ln in lines if "error:" in ln]
    msg = errs[0] if errs else (lines[-1] if lines else type(e).__name__)
    msg = re.sub(r"^.*?error: ", "", msg)
    msg = re.sub(r"loc\([^)]*\):?\s*", "", msg)
    return msg.strip()[:300]


# --------------------------------------------------------------------------
# LiteRT runs and model introspection
# --------------------------------------------------------------------------


def quantize(x: np.ndarray, scale: float, zero_point: int, dtype: np.dtype) -> np.ndarray:
    """float -> integer the way TFLite's reference QUANTIZE does it:
    round-half-away-from-zero(x / scale) + zero_point, computed in float32, clamped."""
    q = x.astype(np.float32) / np.float32(scale)
    q = np.sign(q) * np.floor(np.abs(q).astype(np.float64) + 0.5)
    info = np.iinfo(dtype)
    return np.clip(q + zero_point, info.min, info.max).astype(dtype)


def make_interpreter(model: bytes, resolver: str = "reference", preserve: bool = False) -> Interpreter:
    with quiet():
        it = Interpreter(
            model_content=model,
            experimental_op_resolver_type=RESOLVERS[resolver],
            experimental_preserve_all_tensors=preserve,
            num_threads=1,
        )
        it.allocate_tensors()
    return it


def run_model(model: bytes, inputs: list[np.ndarray], resolver: str = "reference") -> list[np.ndarray]:
    """inputs[k][i] is sample i of subgraph input k (already the right dtype)."""
    it = make_interpreter(model, resolver)
    ins, outs = it.get_input_details(), it.get_output_details()
    assert len(ins) == len(inputs), (len(ins), len(inputs))
    results: list[list[np.ndarray]] = [[] for _ in outs]
    for i in range(inputs[0].shape[0]):
        for d, arr in zip(ins, inputs):
            it.set_tensor(d["index"], arr[i])
        with quiet():
            it.invoke()
        for k, d in enumerate(outs):
            results[k].append(it.get_tensor(d["index"]).copy())
    return [np.stack(r) for r in results]


def trace_model(model: bytes, inputs: list[np.ndarray]) -> list[tuple[dict, np.ndarray]]:
    """Every operator output for sample 0 (BUILTIN_REF, all tensors preserved):
    (description, value) in operator order."""
    it = make_interpreter(model, "reference", preserve=True)
    for d, arr in zip(it.get_input_details(), inputs):
        it.set_tensor(d["index"], arr[0])
    with quiet():
        it.invoke()
    details = {d["index"]: d for d in it.get_tensor_details()}
    out = []
    for op in it._get_ops_details():
        for t in op["outputs"]:
            t = int(t)
            if t < 0:
                continue
            d = details[t]
            e = {
                "tensor": t,
                "name": d["name"],
                "dtype": np.dtype(d["dtype"]).name,
                "shape": [int(s) for s in d["shape"]],
                "op": int(op["index"]),
                "op_type": op["op_name"],
            }
            qp = d["quantization_parameters"]
            if len(qp["scales"]):
                e["scale"] = [float(s) for s in qp["scales"]]
                e["zero_point"] = [int(z) for z in qp["zero_points"]]
            out.append((e, it.get_tensor(t).copy()))
    return out


def diff_stats(got: list[np.ndarray], ref: list[np.ndarray]) -> dict:
    """How far one kernel set's outputs are from the reference kernels' (all outputs, all samples).
    Integer outputs: in quantized units."""
    n = nd = 0
    worst = 0.0
    for a, b in zip(got, ref):
        a64, b64 = a.astype(np.float64).ravel(), b.astype(np.float64).ravel()
        same = (a64 == b64) | (np.isnan(a64) & np.isnan(b64))
        n += a64.size
        nd += int(np.count_nonzero(~same))
        with np.errstate(invalid="ignore"):
            d = np.abs(a64 - b64)[~same]
        if d.size:  # a NaN against a number counts as infinitely far
            worst = max(worst, float(np.max(np.where(np.isnan(d), np.inf, d))))
    return {"max_abs_diff": worst, "elements_differing": nd, "elements": n}


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


def tensor_types(model: bytes) -> set[str]:
    m = tfl_schema.Model.GetRootAs(model, 0)
    out = set()
    for s in range(m.SubgraphsLength()):
        sg = m.Subgraphs(s)
        for t in range(sg.TensorsLength()):
            out.add(_TYPE_NAMES.get(sg.Tensors(t).Type(), "?"))
    return out


# --------------------------------------------------------------------------
# Case registry
# --------------------------------------------------------------------------


@dataclass
class CaseData:
    model: keras.Model  # batch-1 inference model that gets converted
    calib: list[np.ndarray]  # per Keras model input: [N, *input_shape] float32
    inputs: list[np.ndarray]  # per Keras model input: [S, *input_shape] float32
    description: str
    notes: dict[str, Any] = field(default_factory=dict)
    # A held-out labelled test set for classifiers: (x stored as written, labels int32, scale):
    # the model input is x * scale (images as uint8 pixels with scale 1/255, computed in float64
    # then rounded to float32 as the training data was). Drawn from its own generator so the
    # rest of the case is unchanged.
    labelled: tuple[np.ndarray, np.ndarray, float] | None = None


@dataclass
class CaseSpec:
    name: str
    build: Callable[[int], CaseData]
    seed: int
    variants: tuple[str, ...]
    # variant -> extra repo-relative path receiving an identical copy of that model
    copies: dict[str, str]
    kind: str = "model"  # "model" (a whole net) or "op" (one operator in isolation)
    op: str | None = None  # for kind == "op": the operator the case isolates
    # variant -> {stage, issue, reason}: a known gap that a later issue tracks
    expected_failures: dict[str, dict] = field(default_factory=dict)
    # traced variant -> why its intermediates are not stored (size)
    untraced: dict[str, str] = field(default_factory=dict)


CASES: dict[str, CaseSpec] = {}


def case(
    name: str,
    *,
    seed: int,
    variants: tuple[str, ...] = ALL_VARIANTS,
    copies=None,
    kind: str = "model",
    op: str | None = None,
    expected_failures: dict[str, dict] | None = None,
    untraced: dict[str, str] | None = None,
):
    def deco(fn: Callable[[int], CaseData]):
        assert name not in CASES, name
        for v, ef in (expected_failures or {}).items():
            assert v in variants and ef["stage"] in STAGES and set(ef) == {"stage", "issue", "reason"}, (name, v, ef)
        CASES[name] = CaseSpec(
            name, fn, seed, variants, dict(copies or {}), kind, op, dict(expected_failures or {}), dict(untraced or {})
        )
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
    prepare: Callable[[keras.Model], None] | None = None,
) -> tuple[keras.Model, dict[str, float]]:
    """Train build(None) briefly, then return build(1) (static batch 1, what the
    converter sees) carrying the trained weights, plus validation metrics."""
    with quiet():
        m = build(None)
        if prepare is not None:
            prepare(m)
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
    xt, yt = draw_shapes(np.random.default_rng(seed + 1), 300, 32, classes)
    labelled = (np.round(xt.astype(np.float64) * 255.0).astype(np.uint8), yt, 1.0 / 255.0)
    return CaseData(
        model,
        [calib],
        [inputs],
        "Example image classifier bundled with the web page: 32x32 RGB procedurally drawn "
        f"shapes/stripes, {len(classes)} classes ({', '.join(classes)}); CONV_2D (RELU6, stride 2), "
        "DEPTHWISE_CONV_2D, MAX/AVERAGE_POOL_2D, RESHAPE, FULLY_CONNECTED, SOFTMAX.",
        {"classes": list(classes), "val_metrics": metrics},
        labelled,
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
    xt, ct, _ = tabular_task(np.random.default_rng(seed + 1), 1000)
    return CaseData(
        model,
        [calib],
        [inputs],
        "MLP on a synthetic tabular rule (16 normal features as a 4x4 grid): RESHAPE, "
        "FULLY_CONNECTED with and without bias (RELU fused), TANH and LOGISTIC as separate ops, ADD, CONCATENATION; "
        "two outputs (3 class logits, 1 tanh regression value).",
        {"val_metrics": metrics},
        (xt, ct, 1.0),
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
        "residual blocks (1x1 expand + RELU6, depthwise 3x3 stride 2 after a ZeroPadding2D that TF folds "
        "into the depthwise padding / depthwise 3x3, 1x1 "
        "linear project, residual ADD), batch norm folded, MEAN (global average pool), "
        "FULLY_CONNECTED, SOFTMAX.",
        {"classes": list(classes), "val_metrics": metrics},
    )



# Keras' MobileNetV2 (alpha 0.35, 96x96) cut after this layer; see the case's description.
MOBILENET_V2_CUT = "block_12_add"


@case(
    "mobilenet_v2",
    seed=4004,
    untraced={
        "16x8": "1 MB of int16 activations at 96x96; the int8 trace of this net and the 16x8 traces "
        "of the single-op cases cover the same kernels"
    },
)
def mobilenet_v2(seed: int) -> CaseData:
    classes = SHAPE_CLASSES
    rng = np.random.default_rng(seed)
    x, y = draw_shapes(rng, 1200, 96, classes)
    xv, yv = draw_shapes(rng, 240, 96, classes)
    xe, _ = draw_shapes(rng, 6 + 2, 96, classes)
    # Keras' MobileNetV2 preprocessing maps [0, 255] to [-1, 1]
    x, xv, xe = (a * 2.0 - 1.0 for a in (x, xv, xe))

    def build(bs):
        i = keras.Input((96, 96, 3), batch_size=bs, name="image")
        base = keras.applications.MobileNetV2(
            input_tensor=i, alpha=0.35, include_top=False, weights=None
        )
        h = base.get_layer(MOBILENET_V2_CUT).output
        h = L.GlobalAveragePooling2D(name="gap")(h)
        h = L.Dense(len(classes), name="logits")(h)
        o = L.Softmax(name="probs")(h)
        return keras.Model(i, o, name="mobilenet_v2")

    def prepare(m):  # few steps: let batch-norm statistics follow the data
        for layer in m.layers:
            if isinstance(layer, L.BatchNormalization):
                layer.momentum = 0.9

    model, metrics = train_and_freeze(build, x, y, xv, yv, epochs=5, lr=2e-3, prepare=prepare)
    calib, inputs = split_for_case(xe, 6, 2)
    return CaseData(
        model,
        [calib],
        [inputs],
        "Keras' own MobileNetV2 (keras.applications.MobileNetV2, alpha=0.35, weights=None, 96x96x3 "
        f"input in [-1, 1]) cut after {MOBILENET_V2_CUT} (the stem and the first 13 inverted-residual "
        "blocks, output stride 16) + global average pool + dense + softmax, trained 5 epochs on "
        f"96x96 shapes/stripes ({len(classes)} classes); the remaining blocks and the 1280-channel head "
        "add ~4.6 MB over all variants and no new operator kind. CONV_2D (stride 2, fused RELU6), "
        "DEPTHWISE_CONV_2D (stride 1 and 2; TF folds the ZeroPadding2D before each strided depthwise "
        "into its padding), residual ADD, MEAN, FULLY_CONNECTED, SOFTMAX.",
        {"classes": list(classes), "val_metrics": metrics, "cut_after": MOBILENET_V2_CUT},
    )


# --------------------------------------------------------------------------
# Single-operator cases
# --------------------------------------------------------------------------
#
# One Keras layer (or keras.ops call) per model, seeded random weights (Keras'
# default initializers unless a case sets them), inputs drawn from a stated
# range. Calibration: OP_CALIB samples; test inputs: OP_SAMPLES samples.
# Input ranges [0, x] give zero point -128 and [-x, 0] give 127 for int8.
# TF's dynamic-range quantizer leaves weights with fewer than 1024 elements
# float, so a case needs >= 1024 weights for a hybrid (dynamic) variant.

OP_CALIB = 12
OP_SAMPLES = 2


@dataclass(frozen=True)
class In:
    """One model input: name, shape without the batch dim, and how samples are drawn."""

    name: str
    shape: tuple[int, ...]
    lo: float = -1.0
    hi: float = 1.0
    # "uniform": U[lo, hi]; "smooth": one U[lo, hi] level per sample plus U[-noise, noise]
    # per element, clipped to [lo, hi]; "grid": evenly spaced values from lo to hi over all
    # samples (calibration still U[lo, hi] shrunk by `calib_shrink`)
    dist: str = "uniform"
    noise: float = 0.0
    calib_shrink: float = 0.0

    def draw(self, rng: np.random.Generator, n: int, calibration: bool) -> np.ndarray:
        shape = (n, 1, *self.shape)
        if self.dist == "uniform" or (self.dist == "grid" and calibration):
            lo, hi = self.lo, self.hi
            if self.dist == "grid":
                lo, hi = lo + self.calib_shrink, hi - self.calib_shrink
            return rng.uniform(lo, hi, shape).astype(np.float32)
        if self.dist == "smooth":
            level = rng.uniform(self.lo, self.hi, (n, 1, *(1 for _ in self.shape)))
            x = level + rng.uniform(-self.noise, self.noise, shape)
            return np.clip(x, self.lo, self.hi).astype(np.float32)
        if self.dist == "grid":
            return np.linspace(self.lo, self.hi, int(np.prod(shape)), dtype=np.float32).reshape(shape)
        raise ValueError(self.dist)

    def describe(self) -> str:
        s = f"{self.name}: [1, {', '.join(map(str, self.shape))}] "
        if self.dist == "smooth":
            return s + f"one level U[{self.lo:g}, {self.hi:g}] per sample + U[-{self.noise:g}, {self.noise:g}] per element"
        if self.dist == "grid":
            return s + f"evenly spaced from {self.lo:g} to {self.hi:g} (calibration U[{self.lo + self.calib_shrink:g}, {self.hi - self.calib_shrink:g}])"
        return s + f"U[{self.lo:g}, {self.hi:g}]"


def op_case(
    name: str,
    op: str,
    seed: int,
    inputs: list[In],
    build: Callable[..., Any],
    description: str,
    *,
    weights: Callable[[keras.Model, np.random.Generator], str] | None = None,
    expected_failures: dict[str, dict] | None = None,
) -> None:
    """Register a single-operator case: build(*keras_inputs) -> output tensor."""

    def builder(seed: int) -> CaseData:
        rng = np.random.default_rng(seed)
        kin = [keras.Input(i.shape, batch_size=1, name=i.name) for i in inputs]
        out = build(*kin)
        model = keras.Model(kin[0] if len(kin) == 1 else kin, out, name=name)
        how = "none" if not model.weights else "random: Keras' default initializers, seeded"
        if weights is not None:
            how = weights(model, rng)
        calib = [i.draw(rng, OP_CALIB, True) for i in inputs]
        tests = [i.draw(rng, OP_SAMPLES, False) for i in inputs]
        notes = {"weights": how, "inputs": [i.describe() for i in inputs]}
        return CaseData(model, calib, tests, description, notes)

    case(name, seed=seed, kind="op", op=op, expected_failures=expected_failures)(builder)


def _layer(model: keras.Model, cls: type) -> Any:
    return next(layer for layer in model.layers if isinstance(layer, cls))


def zero_sum_int_kernel(cls: type, wmax: float, bias: float = 0.0):
    """Kernel whose values are integer multiples of wmax/127 (so int8 weight quantization is
    exact), with a +-127 entry and zero sum per output channel: on a per-sample constant input
    the output is the bias, and only the per-element noise survives."""

    def set_weights(model: keras.Model, rng: np.random.Generator) -> str:
        layer = _layer(model, cls)
        kernel = layer.kernel.numpy()
        cout = kernel.shape[-1]
        k = rng.integers(-40, 41, kernel.shape).reshape(-1, cout)
        for c in range(cout):
            k[0, c] = 127 if c % 2 == 0 else -127
            excess = int(k[:, c].sum())
            j = 1
            while excess != 0:  # spread the correction over the other entries, within [-126, 126]
                step = int(np.clip(-excess, -126 - k[j, c], 126 - k[j, c]))
                k[j, c] += step
                excess += step
                j += 1
        assert np.all(k.sum(0) == 0) and np.all(np.abs(k).max(0) == 127)
        layer.kernel.assign((k.reshape(kernel.shape) * (wmax / 127.0)).astype(np.float32))
        if layer.use_bias:
            layer.bias.assign(np.full(layer.bias.shape, bias, np.float32))
        return (
            f"kernel: integers in [-127, 127] times {wmax:g}/127, one +-127 and zero sum per output "
            f"channel (exact int8 weights); bias {bias:g}"
        )

    return set_weights


def scaled_weights(cls: type, kernel_scale: float, bias_lo: float, bias_hi: float):
    def set_weights(model: keras.Model, rng: np.random.Generator) -> str:
        layer = _layer(model, cls)
        layer.kernel.assign(rng.uniform(-kernel_scale, kernel_scale, layer.kernel.shape).astype(np.float32))
        layer.bias.assign(rng.uniform(bias_lo, bias_hi, layer.bias.shape).astype(np.float32))
        return f"kernel U[-{kernel_scale:g}, {kernel_scale:g}], bias U[{bias_lo:g}, {bias_hi:g}]"

    return set_weights


def prelu_alpha(model: keras.Model, rng: np.random.Generator) -> str:
    layer = _layer(model, L.PReLU)
    layer.alpha.assign(rng.uniform(0.05, 0.5, layer.alpha.shape).astype(np.float32))
    return "alpha U[0.05, 0.5] per channel"


def random_bias(cls: type, lo: float = -0.5, hi: float = 0.5):
    """Keras initialises biases to zero; give them values so the bias path is exercised."""

    def set_weights(model: keras.Model, rng: np.random.Generator) -> str:
        layer = _layer(model, cls)
        layer.bias.assign(rng.uniform(lo, hi, layer.bias.shape).astype(np.float32))
        return f"kernel: Keras' default initializer, seeded; bias U[{lo:g}, {hi:g}]"

    return set_weights


K = keras.ops

# CONV_2D ----------------------------------------------------------------------
op_case(
    "op_conv2d_same_relu", "CONV_2D", 5001,
    [In("x", (5, 5, 9))],
    lambda x: L.Conv2D(13, 3, padding="same", activation="relu", name="conv")(x),
    "CONV_2D 3x3, stride 1, SAME, fused RELU, 9 -> 13 channels (1053 weights: also a hybrid dynamic variant).",
    weights=random_bias(L.Conv2D),
)
op_case(
    "op_conv2d_s2_valid_relu6", "CONV_2D", 5002,
    [In("x", (11, 11, 4), 0.0, 2.0)],
    lambda x: L.Conv2D(7, 3, strides=2, padding="valid", activation="relu6", name="conv")(x),
    "CONV_2D 3x3, stride 2, VALID, fused RELU6, 4 -> 7 channels; input in [0, 2] (int8 zero point -128).",
    weights=random_bias(L.Conv2D),
)
op_case(
    "op_conv2d_dilation2", "CONV_2D", 5003,
    [In("x", (9, 9, 3), -2.0, 2.0)],
    lambda x: L.Conv2D(5, 3, dilation_rate=2, padding="same", name="conv")(x),
    "CONV_2D 3x3, dilation 2, SAME, no activation, 3 -> 5 channels.",
    weights=random_bias(L.Conv2D),
)
op_case(
    "op_conv2d_1x1_nobias_neg", "CONV_2D", 5004,
    [In("x", (5, 7, 9), -3.0, 0.0)],
    lambda x: L.Conv2D(3, 1, use_bias=False, name="conv")(x),
    "CONV_2D 1x1 without bias (TF still adds a zero bias tensor), 9 -> 3 channels, non-square 5x7 "
    "input in [-3, 0] (int8 zero point 127).",
)
op_case(
    "op_conv2d_mult_gt1", "CONV_2D", 5005,
    [In("x", (6, 6, 4), 0.0, 255.0, dist="smooth", noise=1.5)],
    lambda x: L.Conv2D(5, 3, activation="relu6", name="conv")(x),
    "CONV_2D 3x3 VALID + RELU6 on raw pixel values [0, 255] (input scale 1.0) with weights up to "
    "+-4: requantization multiplier s_in*s_w/s_out = (1 * 4/127) / (6/255) = 1.34 > 1 on every channel; "
    "zero-sum exact-int8 kernels keep the pre-activation near the [0, 6] window.",
    weights=zero_sum_int_kernel(L.Conv2D, 4.0, bias=1.0),
)
op_case(
    "op_conv2d_mult_tiny", "CONV_2D", 5006,
    [In("x", (6, 6, 3), -1.0, 1.0)],
    lambda x: L.Conv2D(5, 3, padding="same", name="conv")(x),
    "CONV_2D 3x3 with weights U[-0.05, 0.05] and bias in [250, 300]: output range ~[0, 300] gives a "
    "requantization multiplier around 3e-6 (shift ~ -18).",
    weights=scaled_weights(L.Conv2D, 0.05, 250.0, 300.0),
)

# DEPTHWISE_CONV_2D ------------------------------------------------------------
op_case(
    "op_depthwise_m1_relu6", "DEPTHWISE_CONV_2D", 5101,
    [In("x", (7, 7, 7), -1.0, 1.0)],
    lambda x: L.DepthwiseConv2D(3, padding="same", activation="relu6", name="dw")(x),
    "DEPTHWISE_CONV_2D 3x3, multiplier 1, SAME, fused RELU6, 7 channels.",
    weights=random_bias(L.DepthwiseConv2D),
)
op_case(
    "op_depthwise_m2_s2", "DEPTHWISE_CONV_2D", 5102,
    [In("x", (8, 8, 3), 0.0, 1.0)],
    lambda x: L.DepthwiseConv2D(3, strides=2, depth_multiplier=2, name="dw")(x),
    "DEPTHWISE_CONV_2D 3x3, multiplier 2, stride 2, VALID, 3 -> 6 channels, input in [0, 1] (zero point -128).",
    weights=random_bias(L.DepthwiseConv2D),
)
op_case(
    "op_depthwise_m3_dilation2", "DEPTHWISE_CONV_2D", 5103,
    [In("x", (5, 5, 14), -1.0, 1.0)],
    lambda x: L.DepthwiseConv2D(5, depth_multiplier=3, dilation_rate=2, padding="same", name="dw")(x),
    "DEPTHWISE_CONV_2D 5x5, multiplier 3, dilation 2, SAME, 14 -> 42 channels (1050 weights: also a "
    "hybrid dynamic variant).",
    weights=random_bias(L.DepthwiseConv2D),
)

# FULLY_CONNECTED --------------------------------------------------------------
op_case(
    "op_fc_bias_relu", "FULLY_CONNECTED", 5201,
    [In("x", (65,), -1.0, 1.0)],
    lambda x: L.Dense(17, activation="relu", name="fc")(x),
    "FULLY_CONNECTED 65 -> 17 with bias and fused RELU (1105 weights: also a hybrid dynamic variant).",
    weights=random_bias(L.Dense),
)
op_case(
    "op_fc_nobias", "FULLY_CONNECTED", 5202,
    [In("x", (13,), 0.0, 4.0)],
    lambda x: L.Dense(5, use_bias=False, name="fc")(x),
    "FULLY_CONNECTED 13 -> 5 without bias (optional bias input -1), input in [0, 4] (zero point -128).",
)
op_case(
    "op_fc_keep_num_dims", "FULLY_CONNECTED", 5203,
    [In("x", (3, 6), -1.0, 1.0)],
    lambda x: L.Dense(5, name="fc")(x),
    "FULLY_CONNECTED on a rank-3 input [1, 3, 6] -> [1, 3, 5]: keep_num_dims = true.",
    weights=random_bias(L.Dense),
)
op_case(
    "op_fc_mult_gt1", "FULLY_CONNECTED", 5204,
    [In("x", (16,), 0.0, 255.0, dist="smooth", noise=1.5)],
    lambda x: L.Dense(5, activation="relu6", name="fc")(x),
    "FULLY_CONNECTED 16 -> 5 + RELU6 on raw pixel values [0, 255] with weights up to +-4: "
    "requantization multiplier (1 * 4/127) / (6/255) = 1.34 > 1 (zero-sum exact-int8 kernel).",
    weights=zero_sum_int_kernel(L.Dense, 4.0, bias=1.0),
)
op_case(
    "op_fc_mult_tiny", "FULLY_CONNECTED", 5205,
    [In("x", (8,), -1.0, 1.0)],
    lambda x: L.Dense(3, name="fc")(x),
    "FULLY_CONNECTED 8 -> 3 with weights U[-0.05, 0.05] and bias in [250, 300]: requantization "
    "multiplier around 3e-6.",
    weights=scaled_weights(L.Dense, 0.05, 250.0, 300.0),
)

op_case(
    "op_fc_bias_overflow", "FULLY_CONNECTED", 5206,
    [In("x", (8,), -1.0, 1.0)],
    lambda x: L.Dense(4, name="fc")(x),
    "FULLY_CONNECTED 8 -> 4 with weights U[-1e-6, 1e-6] and bias U[-1, 1]: bias / (s_in * s_w) "
    "exceeds 2^30, so TF's quantizer widens the bias scale to |b| / (2^31 / 2) and the weight "
    "scale with it (MLIR QuantizationDriver::SetBiasParamsWithAdjustments).",
    weights=scaled_weights(L.Dense, 1e-6, -1.0, 1.0),
)
op_case(
    "op_conv2d_bias_overflow", "CONV_2D", 5007,
    [In("x", (5, 5, 2), -1.0, 1.0)],
    lambda x: L.Conv2D(4, 3, padding="same", name="conv")(x),
    "CONV_2D 3x3 with weights U[-1e-6, 1e-6] and bias U[-1, 1]: per-channel bias scales that "
    "would overflow int32 are widened with their weight scales.",
    weights=scaled_weights(L.Conv2D, 1e-6, -1.0, 1.0),
)

# ADD / SUB / MUL ---------------------------------------------------------------
op_case(
    "op_add", "ADD", 5301,
    [In("x", (5, 5, 3), -1.0, 1.0), In("y", (5, 5, 3), -3.0, 3.0)],
    lambda x, y: L.Add(name="add")([x, y]),
    "ADD of two inputs of the same shape with different ranges.",
)
op_case(
    "op_add_broadcast_pos", "ADD", 5302,
    [In("x", (4, 4, 5), 0.0, 1.0), In("y", (1, 1, 5), 0.0, 3.0)],
    lambda x, y: K.add(x, y),
    "ADD with broadcasting [1,4,4,5] + [1,1,1,5]; inputs and output >= 0 (zero points -128). "
    "keras.ops.add squeezes y first, so TF's model is RESHAPE [1,1,1,5] -> [5], then ADD "
    "[1,4,4,5] + [5].",
)
op_case(
    "op_add_const", "ADD", 5303,
    [In("x", (4, 4, 5), -1.0, 1.0)],
    lambda x: K.add(x, K.convert_to_tensor(np.array([-0.75, -0.3, 0.0, 0.4, 1.5], np.float32))),
    "ADD of the input and a constant [5] vector (broadcast): the constant is quantized as a tensor.",
)
op_case(
    "op_sub_broadcast_neg", "SUB", 5304,
    [In("x", (4, 4, 5), -2.0, 0.0), In("y", (4, 1, 1), 0.0, 1.0)],
    lambda x, y: K.subtract(x, y),
    "SUB with broadcasting [1,4,4,5] - [1,4,1,1]; x <= 0 (zero point 127), y >= 0 (-128), output <= 0 (127).",
)
op_case(
    "op_mul_broadcast", "MUL", 5305,
    [In("x", (4, 4, 5), -1.0, 1.0), In("y", (1, 4, 5), 0.0, 2.0)],
    lambda x, y: K.multiply(x, y),
    "MUL with broadcasting [1,4,4,5] * [1,1,4,5].",
)
op_case(
    "op_mul_neg", "MUL", 5306,
    [In("x", (6, 7), 0.0, 3.0), In("y", (6, 7), -2.0, 0.0)],
    lambda x, y: L.Multiply(name="mul")([x, y]),
    "MUL of x in [0, 3] (zero point -128) and y in [-2, 0] (127): output <= 0 (127).",
)

# Pools -------------------------------------------------------------------------
op_case(
    "op_avgpool_same_s2", "AVERAGE_POOL_2D", 5401,
    [In("x", (9, 9, 5), -1.0, 1.0)],
    lambda x: L.AveragePooling2D(3, strides=2, padding="same", name="pool")(x),
    "AVERAGE_POOL_2D 3x3, stride 2, SAME (border windows average fewer elements), 5 channels.",
)
op_case(
    "op_avgpool_valid", "AVERAGE_POOL_2D", 5402,
    [In("x", (8, 8, 3), 0.0, 6.0)],
    lambda x: L.AveragePooling2D(2, name="pool")(x),
    "AVERAGE_POOL_2D 2x2, stride 2, VALID, input in [0, 6] (zero point -128).",
)
op_case(
    "op_maxpool_same_s2", "MAX_POOL_2D", 5403,
    [In("x", (9, 9, 5), -1.0, 1.0)],
    lambda x: L.MaxPooling2D(3, strides=2, padding="same", name="pool")(x),
    "MAX_POOL_2D 3x3, stride 2, SAME, 5 channels.",
)
op_case(
    "op_maxpool_valid_neg", "MAX_POOL_2D", 5404,
    [In("x", (8, 8, 3), -4.0, 0.0)],
    lambda x: L.MaxPooling2D(2, name="pool")(x),
    "MAX_POOL_2D 2x2, stride 2, VALID, input in [-4, 0] (zero point 127).",
)

# CONCATENATION / PAD / RESHAPE / TRANSPOSE / slices ----------------------------
op_case(
    "op_concat_channels", "CONCATENATION", 5501,
    [In("x", (4, 4, 3), -1.0, 1.0), In("y", (4, 4, 5), 0.0, 6.0)],
    lambda x, y: L.Concatenate(axis=-1, name="concat")([x, y]),
    "CONCATENATION on the channel axis of inputs with different ranges (the int8 kernel requantizes).",
)
op_case(
    "op_concat_axis1", "CONCATENATION", 5502,
    [In("x", (2, 5), -2.0, 2.0), In("y", (3, 5), -1.0, 0.5)],
    lambda x, y: L.Concatenate(axis=1, name="concat")([x, y]),
    "CONCATENATION on axis 1 of rank-3 inputs [1,2,5] and [1,3,5].",
)
op_case(
    "op_pad", "PAD", 5503,
    [In("x", (5, 5, 3), 0.5, 2.0)],
    lambda x: L.ZeroPadding2D(((1, 2), (2, 1)), name="pad")(x),
    "PAD (ZeroPadding2D, asymmetric ((1,2),(2,1))); input in [0.5, 2], the range widened to [0, 2] "
    "(zero point -128: padding writes -128).",
)
op_case(
    "op_pad_neg", "PAD", 5504,
    [In("x", (4, 6, 3), -2.0, -0.5)],
    lambda x: L.ZeroPadding2D(((2, 0), (1, 1)), name="pad")(x),
    "PAD ((2,0),(1,1)) of an input in [-2, -0.5] (zero point 127: padding writes 127).",
)
op_case(
    "op_reshape", "RESHAPE", 5505,
    [In("x", (4, 6), -1.0, 1.0)],
    lambda x: L.Reshape((3, 8), name="reshape")(x),
    "RESHAPE [1,4,6] -> [1,3,8].",
)
op_case(
    "op_transpose", "TRANSPOSE", 5506,
    [In("x", (4, 5, 3), -1.0, 1.0)],
    lambda x: L.Permute((3, 1, 2), name="permute")(x),
    "TRANSPOSE (Keras Permute) [1,4,5,3] -> [1,3,4,5], perm [0,3,1,2].",
)
op_case(
    "op_strided_slice", "STRIDED_SLICE", 5507,
    [In("x", (7, 7, 5), -1.0, 1.0)],
    lambda x: x[:, 1:6:2, ::2, 1:],
    "STRIDED_SLICE x[:, 1:6:2, ::2, 1:] of [1,7,7,5] -> [1,3,4,4].",
)
op_case(
    "op_slice", "SLICE", 5508,
    [In("x", (6, 6, 5), -1.0, 1.0)],
    lambda x: K.slice(x, (0, 1, 2, 0), (1, 4, 3, 4)),
    "SLICE begin [0,1,2,0] size [1,4,3,4] of [1,6,6,5].",
)

# Activations -------------------------------------------------------------------
op_case(
    "op_softmax", "SOFTMAX", 5601,
    [In("x", (10,), -4.0, 4.0)],
    lambda x: L.Softmax(name="softmax")(x),
    "SOFTMAX over 10 logits in [-4, 4] (int8 output fixed at scale 1/256, zero point -128).",
)
op_case(
    "op_softmax_4d", "SOFTMAX", 5602,
    [In("x", (3, 3, 7), -8.0, 8.0)],
    lambda x: L.Softmax(name="softmax")(x),
    "SOFTMAX over the last axis of a [1,3,3,7] tensor, logits in [-8, 8].",
)
op_case(
    "op_logistic", "LOGISTIC", 5603,
    [In("x", (4, 4, 5), -6.0, 6.0)],
    lambda x: L.Activation("sigmoid", name="sigmoid")(x),
    "LOGISTIC on [-6, 6] (int8 output fixed at 1/256, -128).",
)
op_case(
    "op_tanh", "TANH", 5604,
    [In("x", (4, 4, 5), -3.0, 3.0)],
    lambda x: L.Activation("tanh", name="tanh")(x),
    "TANH on [-3, 3] (int8 output fixed at 1/128, 0).",
)
op_case(
    "op_relu", "RELU", 5605,
    [In("x", (4, 4, 5), -2.0, 3.0)],
    lambda x: L.ReLU(name="relu")(x),
    "RELU as a standalone op (directly on a model input, so nothing to fuse into).",
)
op_case(
    "op_relu6", "RELU6", 5606,
    [In("x", (4, 4, 5), -3.0, 8.0)],
    lambda x: L.ReLU(6.0, name="relu6")(x),
    "RELU6 standalone, input in [-3, 8] (both clamps hit).",
)
op_case(
    "op_leaky_relu", "LEAKY_RELU", 5607,
    [In("x", (4, 4, 5), -3.0, 3.0)],
    lambda x: L.LeakyReLU(negative_slope=0.2, name="leaky")(x),
    "LEAKY_RELU with alpha 0.2.",
)
op_case(
    "op_hard_swish", "HARD_SWISH", 5608,
    [In("x", (4, 4, 5), -5.0, 5.0)],
    lambda x: L.Activation("hard_swish", name="hard_swish")(x),
    "HARD_SWISH (Keras hard_swish = x * relu6(x + 3) / 6, which TF matches to one op) on [-5, 5].",
)
op_case(
    "op_prelu", "PRELU", 5609,
    [In("x", (4, 4, 5), -2.0, 2.0)],
    lambda x: L.PReLU(shared_axes=[1, 2], name="prelu")(x),
    "PRELU with one alpha per channel (shared over H and W), alpha in [0.05, 0.5].",
    weights=prelu_alpha,
)

# Reductions --------------------------------------------------------------------
op_case(
    "op_mean_spatial", "MEAN", 5701,
    [In("x", (5, 5, 7), -1.0, 1.0)],
    lambda x: L.GlobalAveragePooling2D(name="gap")(x),
    "MEAN over axes [1,2] (GlobalAveragePooling2D), keep_dims false.",
)
op_case(
    "op_mean_axis3_keepdims", "MEAN", 5702,
    [In("x", (3, 4, 9), 0.0, 2.0)],
    lambda x: K.mean(x, axis=-1, keepdims=True),
    "MEAN over the last axis with keep_dims true, input in [0, 2] (zero point -128).",
)
op_case(
    "op_reduce_max", "REDUCE_MAX", 5703,
    [In("x", (5, 5, 7), -1.0, 1.0)],
    lambda x: K.max(x, axis=[1, 2]),
    "REDUCE_MAX over axes [1,2] (GlobalMaxPooling2D gives the same op).",
)
op_case(
    "op_reduce_max_axis3_keepdims", "REDUCE_MAX", 5704,
    [In("x", (3, 4, 9), -2.0, 0.0)],
    lambda x: K.max(x, axis=-1, keepdims=True),
    "REDUCE_MAX over the last axis, keep_dims true, input in [-2, 0] (zero point 127).",
)

# Resize / transpose conv -------------------------------------------------------
op_case(
    "op_resize_bilinear_x2", "RESIZE_BILINEAR", 5801,
    [In("x", (4, 5, 3), -1.0, 1.0)],
    lambda x: L.UpSampling2D(2, interpolation="bilinear", name="up")(x),
    "RESIZE_BILINEAR x2 (UpSampling2D bilinear): half_pixel_centers true, align_corners false.",
)
op_case(
    "op_resize_bilinear_7x9", "RESIZE_BILINEAR", 5802,
    [In("x", (4, 5, 3), 0.0, 1.0)],
    lambda x: L.Resizing(7, 9, "bilinear", name="resize")(x),
    "RESIZE_BILINEAR 4x5 -> 7x9 (non-integer factors; Keras Resizing), half_pixel_centers true.",
)
op_case(
    "op_resize_nearest_x2", "RESIZE_NEAREST_NEIGHBOR", 5803,
    [In("x", (4, 5, 3), -1.0, 1.0)],
    lambda x: L.Resizing(8, 10, "nearest", name="resize")(x),
    "RESIZE_NEAREST_NEIGHBOR x2 via Keras Resizing (UpSampling2D nearest becomes RESHAPE + TILE "
    "in TF 2.21, not this op).",
)
op_case(
    "op_resize_nearest_7x9", "RESIZE_NEAREST_NEIGHBOR", 5804,
    [In("x", (4, 5, 3), -1.0, 1.0)],
    lambda x: L.Resizing(7, 9, "nearest", name="resize")(x),
    "RESIZE_NEAREST_NEIGHBOR 4x5 -> 7x9, half_pixel_centers true.",
)
op_case(
    "op_transpose_conv_s2_same", "TRANSPOSE_CONV", 5805,
    [In("x", (4, 4, 3), -1.0, 1.0)],
    lambda x: L.Conv2DTranspose(5, 3, strides=2, padding="same", name="tconv")(x),
    "TRANSPOSE_CONV 3x3, stride 2, SAME, 3 -> 5 channels, with bias.",
    weights=random_bias(L.Conv2DTranspose),
)
op_case(
    "op_transpose_conv_valid_nobias", "TRANSPOSE_CONV", 5806,
    [In("x", (5, 5, 29), -1.0, 1.0)],
    lambda x: L.Conv2DTranspose(4, 3, padding="valid", use_bias=False, name="tconv")(x),
    "TRANSPOSE_CONV 3x3, stride 1, VALID, no bias, 29 -> 4 channels (1044 weights: also a dynamic "
    "variant, which TF makes a hybrid TRANSPOSE_CONV: int8 weights, float activations).",
    expected_failures={
        "dynamic": {
            "stage": "int8",
            "issue": 6,
            "reason": "hybrid TRANSPOSE_CONV (int8 weights, float activations): issue 6 plans hybrid "
            "kernels for FULLY_CONNECTED, CONV_2D and DEPTHWISE_CONV_2D only",
        }
    },
)

# MAXIMUM / MINIMUM -------------------------------------------------------------
op_case(
    "op_maximum", "MAXIMUM", 5901,
    [In("x", (4, 4, 5), -1.0, 1.0), In("y", (4, 4, 5), -2.0, 2.0)],
    lambda x, y: L.Maximum(name="maximum")([x, y]),
    "MAXIMUM of two inputs with different ranges (TF gives both inputs the output's scale).",
)
op_case(
    "op_minimum_broadcast", "MINIMUM", 5902,
    [In("x", (4, 4, 5), -1.0, 1.0), In("y", (1, 1, 5), -0.5, 0.5)],
    lambda x, y: K.minimum(x, y),
    "MINIMUM with broadcasting [1,4,4,5] vs [1,1,1,5].",
)

# QUANTIZE / DEQUANTIZE ---------------------------------------------------------
op_case(
    "op_quantize_dequantize", "QUANTIZE", 6001,
    [In("x", (8, 16), -1.25, 1.25, dist="grid", calib_shrink=0.25)],
    lambda x: L.Reshape((16, 8), name="reshape")(x),
    "QUANTIZE and DEQUANTIZE at the float edges (int8_floatio: float32 -> int8, 16x8: float32 -> "
    "int16, and back) around a RESHAPE, which moves no value: calibrated on [-1, 1], tested on an "
    "even grid over [-1.25, 1.25] (values past the range saturate, many fall near rounding ties).",
)
op_case(
    "op_quantize_requantize", "QUANTIZE", 6002,
    [In("x", (4, 4, 3), -4.0, 4.0)],
    lambda x: L.Concatenate(name="concat")([L.Activation("sigmoid", name="sigmoid")(x), x]),
    "QUANTIZE int8 -> int8 (requantize): TF inserts it to bring LOGISTIC's fixed-scale output "
    "(1/256, -128) to the CONCATENATION's scale.",
)


# --------------------------------------------------------------------------
# Output writing
# --------------------------------------------------------------------------


def toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float) and v != v:
        return "nan"
    if isinstance(v, float) and v in (float("inf"), float("-inf")):
        return "inf" if v > 0 else "-inf"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{toml_key(k)} = {toml_value(x)}" for k, x in v.items()) + " }"
    raise TypeError(type(v))


def toml_key(k: str) -> str:
    return k if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_-]*", k) else json.dumps(k)


def save_npy(path: Path, arr: np.ndarray) -> None:
    with open(path, "wb") as f:
        np.save(f, np.ascontiguousarray(arr), allow_pickle=False)


def npy_bytes(arr: np.ndarray) -> bytes:
    import io

    buf = io.BytesIO()
    np.save(buf, np.ascontiguousarray(arr), allow_pickle=False)
    return buf.getvalue()


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


def signature_maps(it: Interpreter) -> tuple[dict[int, str], dict[int, str]]:
    sig_in: dict[int, str] = {}
    sig_out: dict[int, str] = {}
    for sig in it._get_full_signature_list().values():
        sig_in.update({idx: n for n, idx in sig["inputs"].items()})
        sig_out.update({idx: n for n, idx in sig["outputs"].items()})
    return sig_in, sig_out


def input_order(it: Interpreter, keras_names: list[str]) -> list[int]:
    """For each subgraph input (in subgraph order), the position of the Keras input feeding it."""
    ins = it.get_input_details()
    if len(keras_names) == 1:
        assert len(ins) == 1
        return [0]
    sig_in, _ = signature_maps(it)
    order = [keras_names.index(sig_in[d["index"]]) for d in ins]
    assert sorted(order) == list(range(len(keras_names))), (order, keras_names)
    return order


class CaseWriter:
    """Writes one case folder; files that would be byte-identical to one already written
    (intermediates shared by the int8 and int8_floatio variants) are referenced, not copied."""

    def __init__(self, out: Path):
        self.out = out
        self.by_hash: dict[str, str] = {}

    def npy(self, rel: str, arr: np.ndarray, dedupe: bool = False) -> str:
        data = npy_bytes(arr)
        h = hashlib.sha256(data).hexdigest()
        if dedupe and h in self.by_hash:
            return self.by_hash[h]
        path = self.out / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        self.by_hash.setdefault(h, rel)
        return rel


def labelled_section(data: CaseData, blobs: dict[str, bytes], unavailable: set[str], w: CaseWriter) -> list[str]:
    """Writes test_x.npy / test_y.npy of a classifier case and returns the [labelled] table that
    ends its case.toml: where the set lies and the accuracy of TF's models on it (LiteRT REF)."""
    if data.labelled is None:
        return []
    assert len(data.calib) == 1, "labelled sets are for single-input classifiers"
    lx, ly, lscale = data.labelled
    files = [w.npy("test_x.npy", lx[:, None]), w.npy("test_y.npy", ly.astype(np.int32))]
    x = (lx.astype(np.float64) * lscale).astype(np.float32)[:, None]
    n_classes = int(ly.max()) + 1
    outs = make_interpreter(blobs["float"]).get_output_details()
    cls = [k for k, d in enumerate(outs) if int(d["shape"][-1]) == n_classes]
    assert len(cls) == 1, [d["shape"] for d in outs]

    def accuracy(blob: bytes) -> float:
        logits = run_model(blob, [x])[cls[0]]
        return round(float(np.mean(logits.reshape(len(ly), -1).argmax(1) == ly)) * 100.0, 4)

    lines = [
        "",
        "# Held-out labelled test set (drawn apart from the training, calibration and test",
        "# inputs): input = x * x_scale (float64, rounded to float32); label = argmax of",
        "# subgraph output `output`. Accuracies in percent, LiteRT BUILTIN_REF.",
        "[labelled]",
        f"x = {toml_value(files[0])}",
        f"y = {toml_value(files[1])}",
        f"x_scale = {toml_value(lscale)}",
        f"output = {cls[0]}",
        f"samples = {len(ly)}",
    ]
    for vname in ("float", "int8_floatio", "16x8", "dynamic"):
        if vname in blobs and vname not in unavailable:
            lines.append(f"accuracy_{vname} = {toml_value(accuracy(blobs[vname]))}")
    return lines


def add_labelled(spec: CaseSpec) -> dict:
    """--labelled-only: adds the labelled set to an existing case folder without converting
    again (the committed models are used as they are), giving the bytes a full run of the same
    machine would. Exists because Keras training differs across CPUs: a full regeneration on
    another machine rewrites every model."""
    t0 = time.time()
    seed_everything(spec.seed)
    data = spec.build(spec.seed)
    out = GOLDEN / spec.name
    toml_path = out / "case.toml"
    text = toml_path.read_text()
    marker = "\n\n# Held-out labelled test set"
    if marker in text:
        text = text[: text.index(marker)] + "\n"
    blobs = {v: (out / f"model_{v}.tflite").read_bytes() for v in spec.variants if (out / f"model_{v}.tflite").is_file()}
    lines = labelled_section(data, blobs, set(), CaseWriter(out))
    toml_path.write_text(text.rstrip("\n") + "\n" + "\n".join(lines) + "\n")
    return {"case": spec.name, "seconds": time.time() - t0, "summary": f"{spec.name}: labelled set added"}


def generate_case(spec: CaseSpec, verbose: bool) -> dict:
    t0 = time.time()
    seed_everything(spec.seed)
    data = spec.build(spec.seed)
    out = GOLDEN / spec.name
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    w = CaseWriter(out)
    keras_names = [t.name for t in data.model.inputs]
    assert len(keras_names) == len(data.calib) == len(data.inputs)

    # The float model fixes the subgraph input order that input_<k> / calib_<k> follow.
    blobs: dict[str, bytes] = {"float": convert(data.model, VARIANTS["float"], data.calib, keras_names)}
    base_order = input_order(make_interpreter(blobs["float"]), keras_names)

    calib_files = []
    for k, pos in enumerate(base_order):
        fn = "calib.npy" if len(data.calib) == 1 else f"calib_{k}.npy"
        calib_files.append(w.npy(fn, data.calib[pos].astype(np.float32)))
    input_files = []
    for k, pos in enumerate(base_order):
        input_files.append(w.npy(f"input_{k}.npy", data.inputs[pos].astype(np.float32)))
    input_names = [keras_names[pos] for pos in base_order]

    variants_toml = []
    unavailable: dict[str, str] = {}
    for vname in spec.variants:
        v = VARIANTS[vname]
        if vname not in blobs:
            try:
                blobs[vname] = convert(data.model, v, data.calib, keras_names)
            except Exception as e:  # noqa: BLE001 - the converter's refusal is a finding
                unavailable[vname] = f"TF {tf.__version__} converter refuses: {short_error(e)}"
                continue
        blob = blobs[vname]
        if v.needs_type and v.needs_type not in tensor_types(blob):
            why = "no weights" if not data.model.weights else "every weight tensor has < 1024 elements"
            unavailable[vname] = (
                f"nothing to quantize ({why}; TF's {vname} quantization leaves such weights float32): "
                "the converter output is the float model"
            )
            continue
        try:
            it = make_interpreter(blob)
        except Exception as e:  # noqa: BLE001
            unavailable[vname] = f"LiteRT BUILTIN_REF cannot prepare it: {short_error(e)}"
            continue

        model_fn = f"model_{vname}.tflite"
        (out / model_fn).write_bytes(blob)
        if vname in spec.copies:
            dst = REPO / spec.copies[vname]
            dst.parent.mkdir(parents=True, exist_ok=True)
            dst.write_bytes(blob)

        ins, outs = it.get_input_details(), it.get_output_details()
        sig_in, sig_out = signature_maps(it)
        order = input_order(it, keras_names)
        feed, feed_files = [], []
        for k, (d, pos) in enumerate(zip(ins, order)):
            x = data.inputs[pos]
            dt = np.dtype(d["dtype"])
            if dt == np.float32 and order == base_order:
                feed.append(x.astype(np.float32))
                feed_files.append(input_files[k])
            elif dt == np.float32:
                feed.append(x.astype(np.float32))
                feed_files.append(w.npy(f"input_{vname}_{k}.npy", feed[-1]))
            else:
                scale, zp = d["quantization"]
                assert scale > 0, (vname, d)
                q = quantize(x, scale, zp, dt)
                feed.append(q)
                feed_files.append(w.npy(f"input_{vname}_{k}.npy", q))

        results = {r: run_model(blob, feed, r) for r in RESOLVERS}
        # Outputs of the other kernel sets that equal an array already written are not stored
        # twice: case.toml then names the existing file.
        expected = {
            r: [
                w.npy(f"expected_{vname}_{'' if r == 'reference' else r + '_'}output_{k}.npy", a, dedupe=r != "reference")
                for k, a in enumerate(res)
            ]
            for r, res in results.items()
        }
        entry = {
            "name": vname,
            "model": model_fn,
            "description": v.description,
            "converter": [f"converter.{p} = {text}" for p, _, text in v.settings]
            or ["(defaults: no optimizations)"],
            "inputs": feed_files,
            "expected_outputs": expected["reference"],
            "expected_optimized_outputs": expected["optimized"],
            "expected_xnnpack_outputs": expected["xnnpack"],
            "optimized_vs_reference": diff_stats(results["optimized"], results["reference"]),
            "xnnpack_vs_reference": diff_stats(results["xnnpack"], results["reference"]),
            "tolerance": v.tolerance,
            "ops": model_ops(blob),
            "input_details": io_desc(ins, sig_in),
            "output_details": io_desc(outs, sig_out),
        }
        if vname in spec.copies:
            entry["copied_to"] = spec.copies[vname]
        if vname in spec.expected_failures:
            entry["expected_failure"] = spec.expected_failures[vname]
        if vname in spec.untraced:
            entry["intermediates_omitted"] = spec.untraced[vname]
        elif vname in TRACED_VARIANTS:
            inter = []
            for desc, arr in trace_model(blob, feed):
                desc["file"] = w.npy(f"intermediates_{vname}/t{desc['tensor']}.npy", arr[None], dedupe=True)
                inter.append(desc)
            entry["intermediates"] = inter
        variants_toml.append(entry)

    ops: list[str] = []
    for v in variants_toml:
        ops += [o for o in v["ops"] if o not in ops]
    lines = [
        "# Generated by tests/tools/make_goldens.py -- do not edit by hand.",
        "# Arrays: first axis = samples; element i has exactly the model tensor's shape",
        "# (batch dim 1 included) and is one separate invocation. expected_outputs come from",
        "# LiteRT's BUILTIN_REF (reference) kernels, the target; expected_optimized_outputs from",
        "# BUILTIN_WITHOUT_DEFAULT_DELEGATES (optimized builtin kernels) and expected_xnnpack_outputs",
        "# from AUTO (the default: XNNPACK delegate) are for comparison only. input_<k> / output_<k>",
        "# follow the subgraph's input/output order (as in input_details / output_details), which",
        "# can differ from the signature order (see signature_name). intermediates: every operator",
        "# output for sample 0 (BUILTIN_REF), one sample per file; op = index of the producing",
        "# operator in subgraph 0.",
        "",
        f"name = {toml_value(spec.name)}",
        f"kind = {toml_value(spec.kind)}",
    ]
    if spec.op:
        lines.append(f"op = {toml_value(spec.op)}")
    lines += [
        f"description = {toml_value(data.description)}",
        f"ops = {toml_value(ops)}",
        f"seed = {spec.seed}",
        f"variants = {toml_value([v['name'] for v in variants_toml])}",
        f"calibration = {toml_value(calib_files)}",
        f"inputs = {toml_value(input_files)}",
        f"input_names = {toml_value(input_names)}",
        f"num_samples = {int(data.inputs[0].shape[0])}",
        f"num_calibration_samples = {int(data.calib[0].shape[0])}",
        "",
        f"tolerance_rule = {toml_value(TOLERANCE_RULE)}",
        "",
        "[training]",
    ]
    for k, val in data.notes.items():
        lines.append(f"{toml_key(k)} = {toml_value(val)}")
    lines += ["", "[tolerances]"]
    used = []
    for v in variants_toml:
        if v["tolerance"] not in used:
            used.append(v["tolerance"])
    for tname in used:
        val, reason = TOLERANCES[tname]
        lines.append(f"{tname} = {toml_value(val)}")
        lines.append(f"{tname}_reason = {toml_value(reason)}")
    lines += ["", "# Variants not produced, with the reason.", "[unavailable]"]
    for vname, why in unavailable.items():
        lines.append(f"{toml_key(vname)} = {toml_value(why)}")
    for v in variants_toml:
        lines += ["", "[[variant]]"]
        for key in (
            "name", "model", "description", "converter", "inputs", "expected_outputs",
            "expected_optimized_outputs", "expected_xnnpack_outputs", "optimized_vs_reference",
            "xnnpack_vs_reference", "tolerance", "expected_failure", "ops", "copied_to",
            "intermediates_omitted",
        ):
            if key in v:
                lines.append(f"{key} = {toml_value(v[key])}")
        for key in ("input_details", "output_details", "intermediates"):
            if key not in v:
                continue
            lines.append(f"{key} = [")
            for d in v[key]:
                lines.append(f"  {toml_value(d)},")
            lines.append("]")
    lines += labelled_section(data, blobs, set(unavailable), w)
    (out / "case.toml").write_text("\n".join(lines) + "\n")

    elapsed = time.time() - t0
    size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
    metrics = data.notes.get("val_metrics")
    summary = (
        f"{spec.name}: {len(variants_toml)} variants"
        + (f" ({len(unavailable)} unavailable)" if unavailable else "")
        + f", {size / 1024:.0f} KiB"
        + (f", {metrics}" if metrics else "")
        + f", {elapsed:.1f} s"
    )
    if verbose:
        for v in variants_toml:
            summary += f"\n  {v['name']:13s} {' '.join(v['ops'])}"
            for r in ("optimized", "xnnpack"):
                s = v[f"{r}_vs_reference"]
                if s["elements_differing"]:
                    summary += f"\n  {'':13s} {r}: {s['elements_differing']}/{s['elements']} differ, max {s['max_abs_diff']:g}"
        for vname, why in unavailable.items():
            summary += f"\n  {vname:13s} unavailable: {why}"
    return {"case": spec.name, "seconds": elapsed, "summary": summary}


def write_manifest() -> None:
    files = []
    for p in sorted(GOLDEN.rglob("*")):
        if p.is_file() and p.name != "manifest.json":
            files.append(p)
    for spec in CASES.values():
        for rel in spec.copies.values():
            files.append(REPO / rel)
    versions = {
        "tensorflow": tf.__version__,
        "keras": keras.__version__,
        "ai_edge_litert": pkg_version("ai-edge-litert"),
        "numpy": np.__version__,
        "python": platform.python_version(),
    }
    entries = [
        json.dumps({"path": p.relative_to(REPO).as_posix(), "size": p.stat().st_size, "sha256": sha256_file(p)})
        for p in files
    ]
    text = (
        "{\n"
        f'  "generator": "tests/tools/make_goldens.py",\n'
        f'  "versions": {json.dumps(versions)},\n'
        f'  "total_size": {sum(p.stat().st_size for p in files)},\n'
        '  "files": [\n    ' + ",\n    ".join(entries) + "\n  ]\n}\n"
    )
    (GOLDEN / "manifest.json").write_text(text)


def _generate_by_name(args: tuple[str, bool]) -> dict:
    return generate_case(CASES[args[0]], args[1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", help="comma-separated subset of cases (default: all)")
    ap.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1), help="worker processes (default: 2)")
    ap.add_argument("--list", action="store_true", help="list cases and exit")
    ap.add_argument(
        "--labelled-only",
        action="store_true",
        help="only (re)write the labelled test sets of the chosen cases, keeping their models",
    )
    ap.add_argument("--verbose", action="store_true", help="also print op lists, kernel differences, skipped variants")
    args = ap.parse_args()
    if args.list:
        for name, spec in CASES.items():
            print(f"{name:34s} {spec.kind:5s} {spec.op or '':24s} {' '.join(spec.variants)}")
        return 0
    names = list(CASES) if not args.cases else [c.strip() for c in args.cases.split(",") if c.strip()]
    unknown = [n for n in names if n not in CASES]
    if unknown:
        ap.error(f"unknown case(s): {', '.join(unknown)}")
    t0 = time.time()
    GOLDEN.mkdir(parents=True, exist_ok=True)
    # Stale case folders (renamed or removed cases) go when everything is regenerated.
    if not args.cases:
        for d in sorted(GOLDEN.iterdir()):
            if d.is_dir() and d.name not in CASES:
                shutil.rmtree(d)
    if args.labelled_only:
        for n in names:
            print(add_labelled(CASES[n])["summary"], flush=True)
        write_manifest()
        print(f"done in {time.time() - t0:.1f} s", flush=True)
        return 0
    work = [(n, args.verbose) for n in names]
    if args.jobs <= 1 or len(work) == 1:
        for item in work:
            print(_generate_by_name(item)["summary"], flush=True)
    else:
        # Each case seeds itself and its output does not depend on what ran before in the
        # process (checked: one case alone == the same case after others), so cases can be
        # spread over fresh processes. Big cases first to balance the two workers.
        heavy = [n for n in names if CASES[n].kind == "model"]
        work.sort(key=lambda item: item[0] not in heavy)
        with multiprocessing.get_context("spawn").Pool(args.jobs, maxtasksperchild=8) as pool:
            for res in pool.imap_unordered(_generate_by_name, work):
                print(res["summary"], flush=True)
    write_manifest()
    print(f"done in {time.time() - t0:.1f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
