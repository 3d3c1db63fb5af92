#!/usr/bin/env python3
"""Deterministic generator of the benchmark models in bench/models/ (run by hand, never in CI).

Writes one real-world-sized network for `npm run bench`: Keras' own MobileNetV2 (alpha 1.0,
224x224x3, 1000-class head, ~300 MMACs), converted by TF 2.21's TFLiteConverter to full int8 with
float32 inputs/outputs (QUANTIZE / DEQUANTIZE at the edges), calibrated on 20 seeded random
samples. It is not trained: latency does not depend on weight values. Keras' seeded initializers
give the weights; the batch-norm moving statistics are then set, layer by layer, to the
statistics of each layer's input on 16 seeded random images, so activations stay in a sensible
range through all 17 blocks (default moving stats, mean 0 / var 1, let them grow or vanish with
depth), and the classifier's kernel is scaled for logits of standard deviation 4 (a peaked
softmax, so the outputs carry information for the cross-runtime comparison).

Files (relative to the repository root):

    bench/models/mobilenet_v2_1.0_224_int8_floatio.tflite   the model
    bench/models/README.md                                  sha256, sizes, MACs, how generated

Same pinned toolchain and determinism knobs as tests/tools/make_goldens.py (tensorflow-cpu 2.21.0,
keras 3.15.1, ai-edge-litert 2.3.0, numpy 2.4.6; PYTHONHASHSEED=0, single-threaded TF, op
determinism, oneDNN off; the script re-executes itself with that environment). A second run
gives byte-identical files (check with sha256sum; the README lists each file's sha256).

Usage:
    tests/tools/.venv/bin/python tests/tools/make_bench_models.py
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

import contextlib  # noqa: E402
import hashlib  # noqa: E402
import platform  # noqa: E402
import random  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402
from importlib.metadata import version as pkg_version  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

warnings.simplefilter("ignore")
import tensorflow as tf  # noqa: E402

tf.config.threading.set_intra_op_parallelism_threads(1)
tf.config.threading.set_inter_op_parallelism_threads(1)
tf.config.experimental.enable_op_determinism()
tf.get_logger().setLevel("ERROR")
import keras  # noqa: E402
from ai_edge_litert.interpreter import Interpreter, OpResolverType  # noqa: E402

REPO = Path(__file__).resolve().parent.parent.parent
OUT = REPO / "bench" / "models"

SEED = 2024
ALPHA = 1.0
SIZE = 224
CALIB_SAMPLES = 20
BN_SAMPLES = 16
LOGIT_STD = 4.0
MODEL_FILE = "mobilenet_v2_1.0_224_int8_floatio.tflite"


@contextlib.contextmanager
def quiet():
    """Silences stdout/stderr at the fd level (TF C++ logs, Keras export prints, converter
    chatter); on error the captured log is replayed to stderr (as in make_goldens.py)."""
    sys.stdout.flush()
    sys.stderr.flush()
    with tempfile.TemporaryFile() as log:
        saved = os.dup(1), os.dup(2)
        os.dup2(log.fileno(), 1)
        os.dup2(log.fileno(), 2)
        ok = False
        try:
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


def seed_everything(seed: int) -> None:
    keras.backend.clear_session()
    random.seed(seed)
    np.random.seed(seed)
    keras.utils.set_random_seed(seed)


def build_model() -> keras.Model:
    """MobileNetV2 alpha 1.0 224x224 with Keras' seeded random init (weights=None: no download)."""
    i = keras.Input((SIZE, SIZE, 3), batch_size=1, name="image")
    return keras.applications.MobileNetV2(
        input_tensor=i, alpha=ALPHA, include_top=True, weights=None, classes=1000
    )


def set_bn_statistics(model: keras.Model, x: np.ndarray) -> None:
    """Sets every batch-norm layer's moving mean/variance to the statistics of its own input on
    `x`, in graph order, so each layer sees the already-normalised output of the ones before it."""
    bns = [layer for layer in model.layers if isinstance(layer, keras.layers.BatchNormalization)]
    for bn in bns:
        probe = keras.Model(model.inputs, bn.input)
        h = probe(x, training=False).numpy().astype(np.float64)
        axes = tuple(range(h.ndim - 1))
        mean = h.mean(axis=axes)
        var = h.var(axis=axes)
        gamma, beta, _, _ = bn.get_weights()
        bn.set_weights([gamma, beta, mean.astype(np.float32), var.astype(np.float32)])


def scale_logits(model: keras.Model, x: np.ndarray, target_std: float) -> float:
    """Rescales the classifier's kernel so its logits on `x` have standard deviation
    `target_std`: a peaked softmax, so that the int8 output (scale 1/256) is not all zeros and
    the cross-runtime comparison of outputs means something. Returns the factor applied."""
    dense = model.get_layer("predictions")
    feats = keras.Model(model.inputs, dense.input)(x, training=False).numpy().astype(np.float64)
    w, b = dense.get_weights()
    std = float((feats @ w.astype(np.float64) + b).std())
    factor = target_std / std
    dense.set_weights([(w * factor).astype(np.float32), b])
    return factor


def count_macs(model: keras.Model) -> int:
    """MACs of the convolutions and dense layers, from Keras' shapes (cross-checked by the Rust
    `engine::macs` count in the bench page)."""
    total = 0
    for layer in model.layers:
        if isinstance(layer, keras.layers.DepthwiseConv2D):
            kh, kw = layer.kernel_size
            out = layer.output.shape
            total += int(np.prod(out[1:])) * kh * kw
        elif isinstance(layer, keras.layers.Conv2D):
            kh, kw = layer.kernel_size
            cin = layer.input.shape[-1]
            out = layer.output.shape
            total += int(np.prod(out[1:])) * kh * kw * cin
        elif isinstance(layer, keras.layers.Dense):
            total += int(layer.input.shape[-1]) * int(layer.units)
    return total


def convert(model: keras.Model, calib: np.ndarray) -> bytes:
    def representative_dataset():
        for i in range(calib.shape[0]):
            yield [calib[i : i + 1]]

    with quiet():
        conv = tf.lite.TFLiteConverter.from_keras_model(model)
        conv.optimizations = [tf.lite.Optimize.DEFAULT]
        conv.representative_dataset = representative_dataset
        conv.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
        return bytes(conv.convert())


def litert_check(path: Path, x: np.ndarray) -> tuple[int, float]:
    """Runs the model once in LiteRT (reference kernels): operator count, top probability."""
    it = Interpreter(model_path=str(path), experimental_op_resolver_type=OpResolverType.BUILTIN_REF)
    it.allocate_tensors()
    it.set_tensor(it.get_input_details()[0]["index"], x)
    it.invoke()
    out = it.get_tensor(it.get_output_details()[0]["index"])
    return len(it._get_ops_details()), float(out.max())


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def main() -> int:
    t0 = time.time()
    OUT.mkdir(parents=True, exist_ok=True)
    seed_everything(SEED)
    rng = np.random.default_rng(SEED)
    # MobileNetV2's preprocessing maps pixels to [-1, 1].
    bn_x = rng.uniform(-1.0, 1.0, (BN_SAMPLES, SIZE, SIZE, 3)).astype(np.float32)
    calib = rng.uniform(-1.0, 1.0, (CALIB_SAMPLES, SIZE, SIZE, 3)).astype(np.float32)
    model = build_model()
    set_bn_statistics(model, bn_x)
    factor = scale_logits(model, bn_x, LOGIT_STD)
    macs = count_macs(model)
    params = model.count_params()
    print(f"built MobileNetV2 alpha {ALPHA} {SIZE}x{SIZE}: {params} parameters, {macs} MACs", flush=True)
    path = OUT / MODEL_FILE
    path.write_bytes(convert(model, calib))
    ops, top = litert_check(path, calib[:1])
    print(f"LiteRT reference kernels: top probability {top:.4f}", flush=True)
    digest = sha256(path)
    size = path.stat().st_size
    print(f"wrote {path.relative_to(REPO)}: {size} bytes, {ops} operators, sha256 {digest}", flush=True)
    versions = (
        f"tensorflow {tf.__version__}, keras {keras.__version__}, ai-edge-litert "
        f"{pkg_version('ai-edge-litert')}, numpy {np.__version__}, Python {platform.python_version()}"
    )
    readme = f"""# Benchmark models

Generated by `tests/tools/make_bench_models.py` (run by hand; {versions}) — do not edit by hand.
The generator is deterministic: a second run gives byte-identical files (compare the sha256 below).

| file | bytes | sha256 | MACs | operators |
|---|---|---|---|---|
| `{MODEL_FILE}` | {size} | `{digest}` | {macs} ({macs / 1e6:.1f} M) | {ops} |

**`{MODEL_FILE}`** — Keras' own `keras.applications.MobileNetV2(alpha={ALPHA}, include_top=True,
weights=None, classes=1000)` at {SIZE}×{SIZE}×3, batch 1 ({params} parameters). Not trained
(latency does not depend on weight values): Keras' initializers seeded with
`keras.utils.set_random_seed({SEED})`, then every batch-norm layer's moving mean/variance set,
in graph order, to the statistics of its input on {BN_SAMPLES} seeded uniform [−1, 1) images, so
activations keep a sensible range through the whole net, and the classifier's kernel scaled by
{factor:.3f} so its logits on those images have standard deviation {LOGIT_STD} (a peaked softmax:
the output is not a flat 1/1000, so comparing outputs across runtimes means something). Converted by TF's `TFLiteConverter`
with `optimizations=[DEFAULT]`, `supported_ops=[TFLITE_BUILTINS_INT8]` and a representative
dataset of {CALIB_SAMPLES} seeded uniform [−1, 1) images (numpy `default_rng({SEED})`): full int8
(per-channel int8 weights, int8 activations, int32 bias) with float32 input and output
(QUANTIZE / DEQUANTIZE at the edges). LiteRT's reference kernels run it (top probability of the
first calibration image: {top:.4f}).

MACs count multiply-accumulates of CONV_2D (output elements × kernel h × w × input channels),
DEPTHWISE_CONV_2D (output elements × kernel h × w) and FULLY_CONNECTED (inputs × units), from
Keras' layer shapes; the bench page recomputes them from the TFLite graph
(`crate/src/engine/macs.rs`) and must agree.

An int8-I/O variant is not committed: it differs only by the QUANTIZE of the input and the
DEQUANTIZE of the output (150 k + 1 k elements), and the int8-I/O path is benchmarked on the
smaller MobileNetV2 golden (`tests/golden/mobilenet_v2/model_int8.tflite`).
"""
    (OUT / "README.md").write_text(readme)
    print(f"done in {time.time() - t0:.1f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
