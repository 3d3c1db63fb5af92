"""Stateful models: resource variables and a streaming keyword spotter, run frame by frame on one
LiteRT interpreter, with TF's int8, dynamic-range and float16 conversions."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

import numpy as np
import tensorflow as tf
from ai_edge_litert.interpreter import Interpreter, OpResolverType

from .common import MAIN, convert_module, op_names, seed


class _Counter(tf.Module):
    def __init__(self):
        super().__init__()
        self.total = tf.Variable(tf.zeros([1, 4]), name="total")

    @tf.function(input_signature=[tf.TensorSpec([1, 4], tf.float32, name="x")])
    def __call__(self, x):
        self.total.assign_add(x)
        return {"total": self.total.read_value() * 2.0}


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
        [sys.executable, str(MAIN), "--stream-int8-child", name, str(path)],
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
