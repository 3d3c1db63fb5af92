"""Converter variants (Variant: name, converter settings, tolerance), the LiteRT op resolvers,
the tolerances and their rule, the stages an expected failure can name, and convert(): one Keras
model to one variant's .tflite bytes (short_error() condenses a converter's refusal)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from .env import quiet
from .frameworks import OpResolverType, keras, tf

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


def convert(
    model: keras.Model,
    variant: Variant,
    calib: list[np.ndarray],
    names: list[str],
    make_converter: Callable[[Any], Any] | None = None,
) -> bytes:
    """calib[k] are the samples of Keras input k (named names[k]). make_converter(model) gives
    the converter to configure (default `TFLiteConverter.from_keras_model`; a tf_keras model
    goes through a concrete function instead)."""

    def representative_dataset():
        for i in range(calib[0].shape[0]):
            if len(calib) == 1:
                yield [calib[0][i]]
            else:  # a list would be matched against an order TF does not document
                yield {n: c[i] for n, c in zip(names, calib)}

    with quiet(replay=variant.name != "float"):  # a refused variant is recorded, not shown
        conv = (make_converter or tf.lite.TFLiteConverter.from_keras_model)(model)
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
