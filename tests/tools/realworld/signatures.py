"""A model with several signatures: a tf.Module whose three @tf.function entry points (`encode`,
`decode`, `score`) share one weight, saved as a SavedModel (in a temporary directory) and converted
with TFLiteConverter.from_saved_model(..., signature_keys=[...]): one subgraph per signature.

Besides the model (and the generic input_0 / expected_output_0 of subgraph 0), `signature_variants`
writes, per signature KEY and per input/output name NAME of it:

    sig_KEY_in_NAME.npy            the seeded input LiteRT was given
    sig_KEY_out_NAME.npy           LiteRT 2.3 BUILTIN_REF's output through get_signature_runner(KEY)
    sig_KEY_dynamic_out_NAME.npy   the same for TF's dynamic-range model (model_dynamic.tflite:
                                   Optimize.DEFAULT without representative data; the shared weight
                                   has 1536 elements, above TF's 1024-element threshold, so it is
                                   int8 with hybrid kernels)

    sig_KEY_calib_NAME.npy         CALIB seeded calibration samples of that input, stacked on a new
                                   first axis
    sig_KEY_int8_out_NAME.npy      LiteRT 2.3's output for sig_KEY_in_* of TF's int8 model
                                   (model_int8.tflite: Optimize.DEFAULT with a representative
                                   dataset of (key, inputs) tuples, float I/O: TF's calibrator runs
                                   each sample through its signature's subgraph, so each subgraph
                                   is quantized with the ranges of its own signature's data), on
                                   BUILTIN_REF, except a signature with SUM (`score`) on
                                   BUILTIN_WITHOUT_DEFAULT_DELEGATES: BUILTIN_REF's int8 SUM reads
                                   its input as unsigned (REFERENCE_DEFECTS in golden_resolver.py);
                                   signatures.json names the resolver of each
    model_16x8.tflite              TF's 16x8 model on the same dataset (float I/O). TF 2.21 writes
                                   the weight shared by `encode` and `score`, and their biases,
                                   corrupted in those two subgraphs (mostly zeros: output SQNR
                                   about 4 dB there, against 46-49 dB for a correct
                                   quantization); every other tensor is as its 16x8 quantizer
                                   computes it
    model_calibrated.tflite        TF's calibrated-only model on the same dataset
                                   (`_experimental_calibrate_only`): the float model, one subgraph
                                   per signature, each float tensor carrying the min/max TF's
                                   calibrator recorded running that signature's samples

and signatures.json: per signature its key, subgraph, input and output names in the order LiteRT's
get_signature_list gives, the resolver of its int8 outputs, and the operators of TF's
dynamic-range and int8 models."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import numpy as np
import tensorflow as tf
from ai_edge_litert.interpreter import Interpreter, OpResolverType

from .common import op_names, seed

KEYS = ["encode", "decode", "score"]
CALIB = 8
FEATURES = 32
CODE = 48


class _Codec(tf.Module):
    """One weight W (FEATURES x CODE) used by all three signatures."""

    def __init__(self) -> None:
        super().__init__()
        seed(31)
        rng = np.random.default_rng(31)
        self.w = tf.constant(rng.normal(0.0, 0.3, (FEATURES, CODE)).astype(np.float32))
        self.b = tf.constant(rng.normal(0.0, 0.1, (CODE,)).astype(np.float32))

    def _enc(self, x):
        return tf.tanh(tf.matmul(x, self.w) + self.b)

    @tf.function(input_signature=[tf.TensorSpec([1, FEATURES], tf.float32, name="features")])
    def encode(self, features):
        return {"code": self._enc(features)}

    @tf.function(input_signature=[tf.TensorSpec([1, CODE], tf.float32, name="code")])
    def decode(self, code):
        return {"reconstruction": tf.matmul(code, self.w, transpose_b=True)}

    @tf.function(
        input_signature=[
            tf.TensorSpec([2, FEATURES], tf.float32, name="query"),
            tf.TensorSpec([2, FEATURES], tf.float32, name="candidate"),
        ]
    )
    def score(self, query, candidate):
        q, c = self._enc(query), self._enc(candidate)
        return {"similarity": tf.reduce_sum(q * c, axis=-1), "query_code": q}


def _convert(**opts) -> bytes:
    m = _Codec()
    with tempfile.TemporaryDirectory() as tmp:
        tf.saved_model.save(m, tmp, signatures={k: getattr(m, k).get_concrete_function() for k in KEYS})
        conv = tf.lite.TFLiteConverter.from_saved_model(tmp, signature_keys=KEYS)
        for k, v in opts.items():
            setattr(conv, k, v)
        return conv.convert()


def signatures() -> bytes:
    return _convert()


def _inputs(it: Interpreter) -> dict[str, dict[str, np.ndarray]]:
    rng = np.random.default_rng(3131)
    out = {}
    for key in KEYS:
        details = it.get_signature_runner(key).get_input_details()
        out[key] = {
            name: rng.uniform(-1.0, 1.0, d["shape"]).astype(np.float32) for name, d in sorted(details.items())
        }
    return out


def _run(data: bytes, inputs, resolver=OpResolverType.BUILTIN_REF) -> dict[str, dict[str, np.ndarray]]:
    it = Interpreter(model_content=data, experimental_op_resolver_type=resolver)
    return {key: {n: v.copy() for n, v in it.get_signature_runner(key)(**inputs[key]).items()} for key in KEYS}


def _calibration(it: Interpreter) -> dict[str, dict[str, np.ndarray]]:
    """CALIB samples per signature and input, stacked; each signature's inputs in its own range
    (so that a subgraph quantized with another signature's ranges shows)."""
    rng = np.random.default_rng(3132)
    scale = {"encode": 1.0, "decode": 0.5, "score": 2.0}
    out = {}
    for key in KEYS:
        details = it.get_signature_runner(key).get_input_details()
        out[key] = {
            name: rng.uniform(-scale[key], scale[key], [CALIB, *d["shape"]]).astype(np.float32)
            for name, d in sorted(details.items())
        }
    return out


def signature_variants(d: Path) -> None:
    data = (d / "model.tflite").read_bytes()
    it = Interpreter(model_content=data)
    inputs = _inputs(it)
    for key, xs in inputs.items():
        for name, x in xs.items():
            np.save(d / f"sig_{key}_in_{name}.npy", x)
    for key, ys in _run(data, inputs).items():
        for name, y in ys.items():
            np.save(d / f"sig_{key}_out_{name}.npy", y)
    dynamic = _convert(optimizations=[tf.lite.Optimize.DEFAULT])
    (d / "model_dynamic.tflite").write_bytes(dynamic)
    for key, ys in _run(dynamic, inputs).items():
        for name, y in ys.items():
            np.save(d / f"sig_{key}_dynamic_out_{name}.npy", y)
    calib = _calibration(it)
    for key, xs in calib.items():
        for name, x in xs.items():
            np.save(d / f"sig_{key}_calib_{name}.npy", x)

    def representative():
        for k in range(CALIB):
            for key in KEYS:
                yield key, {name: x[k] for name, x in calib[key].items()}

    int8 = _convert(optimizations=[tf.lite.Optimize.DEFAULT], representative_dataset=representative)
    (d / "model_int8.tflite").write_bytes(int8)
    calibrated = _convert(
        optimizations=[tf.lite.Optimize.DEFAULT],
        representative_dataset=representative,
        _experimental_calibrate_only=True,
    )
    (d / "model_calibrated.tflite").write_bytes(calibrated)
    int16 = _convert(
        optimizations=[tf.lite.Optimize.DEFAULT],
        representative_dataset=representative,
        target_spec=tf.lite.TargetSpec(
            supported_ops=[tf.lite.OpsSet.EXPERIMENTAL_TFLITE_BUILTINS_ACTIVATIONS_INT16_WEIGHTS_INT8]
        ),
    )
    (d / "model_16x8.tflite").write_bytes(int16)
    int8_ops = op_names(int8)
    resolver = {}
    for key in KEYS:
        sub = it.get_signature_runner(key)._subgraph_index
        resolver[key] = "BUILTIN_WITHOUT_DEFAULT_DELEGATES" if "SUM" in int8_ops[sub] else "BUILTIN_REF"
        ys = _run(int8, inputs, getattr(OpResolverType, resolver[key]))[key]
        for name, y in ys.items():
            np.save(d / f"sig_{key}_int8_out_{name}.npy", y)
    sigs = it.get_signature_list()
    table = {
        "signatures": [
            {
                "key": key,
                "subgraph": it.get_signature_runner(key)._subgraph_index,
                "inputs": sigs[key]["inputs"],
                "outputs": sigs[key]["outputs"],
                "tf_int8_resolver": resolver[key],
            }
            for key in KEYS
        ],
        "tf_dynamic_ops": op_names(dynamic),
        "tf_int8_ops": int8_ops,
    }
    (d / "signatures.json").write_text(json.dumps(table, indent=2, sort_keys=True) + "\n")
