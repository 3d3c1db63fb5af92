"""Goldens for MediaPipe's custom operators (`Convolution2DTransposeBias`, and version 2 of
`Landmarks2TransformMatrix`, `TransformTensorBilinear`, `TransformLandmarks`): single-op float
models built with LiteRT's flatbuffer object API, run by MediaPipe itself (the 0.10.14 wheel's
InferenceCalculator with MediaPipe's op resolver, TFLite CPU kernels: `mediapipe_run.py`), the
inputs (`input.npy`, then `input1.npy`, ... for further graph inputs; dim 0 is the sample) and
outputs written next to the models in tests/mediapipe/<case>/ and listed in
tests/mediapipe/cases.json. `tests/rust/mediapipe.rs` checks our engine against them bit for bit.

Run by hand (the wheel is fetched once with pip into tests/tools/.cache/, gitignored):

    python tests/tools/mediapipe/make_goldens.py      # the pinned TF venv's Python
"""

from __future__ import annotations

import json
import subprocess
import sys
import venv
from pathlib import Path

import flatbuffers
import numpy as np
from ai_edge_litert import schema_py_generated as S

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
TOOLS = HERE.parent
CACHE = TOOLS / ".cache"
OUT = TOOLS.parent / "mediapipe"
CODE = "Convolution2DTransposeBias"

# name: (input NHWC, filter OHWI, padding (1 SAME, 2 VALID), stride (w, h), seed)
CASES = {
    # selfie_segmentation's layer: 2x2 filter, stride 2, SAME with no padding left over.
    "tconv_bias_selfie": ((1, 6, 5, 16), (1, 2, 2, 16), 1, (2, 2), 1),
    # SAME with padding: 3x3 filter, stride 2 (padding 3 - 0 - 1 = 2, one row cropped on top).
    "tconv_bias_same_crop": ((1, 5, 7, 3), (4, 3, 3, 3), 1, (2, 2), 2),
    # SAME, stride 1, 4x3 filter (padding 3 and 2: crop 1 row, 1 column), unequal strides below.
    "tconv_bias_same_s1": ((1, 4, 4, 2), (3, 4, 3, 2), 1, (1, 1), 3),
    # VALID, strides (w 3, h 1), batch 2.
    "tconv_bias_valid": ((2, 3, 4, 5), (2, 2, 3, 5), 2, (3, 1), 4),
}


def mp_python() -> Path:
    """A venv (in the cache) with the mediapipe wheel and the few packages its import needs."""
    sys.path.insert(0, str(TOOLS))
    from compare_mediapipe import wheel

    env = CACHE / "mp-venv"
    py = env / "bin" / "python"
    if not py.exists():
        venv.create(env, with_pip=True)
        subprocess.run([py, "-m", "pip", "install", "-q", "--no-deps", str(wheel())], check=True)
        subprocess.run([py, "-m", "pip", "install", "-q", "numpy<2", "protobuf>=4.25.3,<5",
                        "absl-py", "attrs", "flatbuffers"], check=True)
    return py


def tensor(name: str, shape, buffer: int) -> S.TensorT:
    t = S.TensorT()
    t.name, t.shape, t.type, t.buffer = name.encode(), list(shape), S.TensorType.FLOAT32, buffer
    return t


def single_op(code: str, version: int, inputs: list, out_shape, options: bytes | None) -> bytes:
    """One custom operator `code`: `inputs` are (name, shape, constant float32 data or None for a
    graph input), one float32 output, `options` the custom options bytes."""
    m = S.ModelT()
    m.version = 3
    oc = S.OperatorCodeT()
    oc.builtinCode = oc.deprecatedBuiltinCode = S.BuiltinOperator.CUSTOM
    oc.customCode = code.encode()
    oc.version = version
    m.operatorCodes = [oc]
    m.buffers = [S.BufferT()]
    sg = S.SubGraphT()
    sg.tensors, sg.inputs = [], []
    for k, (name, shape, data) in enumerate(inputs):
        buf = 0
        if data is not None:
            b = S.BufferT()
            b.data = np.frombuffer(np.asarray(data, np.float32).tobytes(), np.uint8)
            m.buffers.append(b)
            buf = len(m.buffers) - 1
        else:
            sg.inputs.append(k)
        sg.tensors.append(tensor(name, shape, buf))
    m.buffers.append(S.BufferT())
    sg.tensors.append(tensor("output", out_shape, len(m.buffers) - 1))
    sg.outputs = [len(inputs)]
    op = S.OperatorT()
    op.opcodeIndex, op.inputs, op.outputs = 0, list(range(len(inputs))), [len(inputs)]
    if options is not None:
        op.customOptions = np.frombuffer(options, np.uint8)
    sg.operators = [op]
    m.subgraphs = [sg]
    fb = flatbuffers.Builder(0)
    fb.Finish(m.Pack(fb), file_identifier=b"TFL3")
    return bytes(fb.Output())


def model(inp, filt, padding, stride, w, b) -> bytes:
    """One Convolution2DTransposeBias: input, constant filter and bias, options as MediaPipe's
    converter writes them (TfLiteTransposeConvParams' padding, stride_width, stride_height)."""
    out_shape = [inp[0], *out_hw(inp, filt, padding, stride), filt[0]]
    options = np.array([padding, stride[0], stride[1]], "<i4").tobytes()
    return single_op(CODE, 1, [("input", inp, None), ("weights", filt, w), ("bias", [filt[0]], b)],
                     out_shape, options)


def out_hw(inp, filt, padding, stride):
    """The output height and width MediaPipe's Prepare computes (for the declared shape)."""
    dims = []
    for i, f, s in ((inp[1], filt[1], stride[1]), (inp[2], filt[2], stride[0])):
        pad = max(0, f - (i - 1) % s - 1) if padding == 1 else 0
        dims.append(s * (i - 1) + f - pad)
    return dims


def run_mediapipe(py: Path, d: Path, xs: list) -> np.ndarray:
    """MediaPipe's output for each sample of the graph inputs `xs` (dim 0 the sample), stacked."""
    outs = []
    for s in range(len(xs[0])):
        ins = []
        for k, x in enumerate(xs):
            ins.append(d / f"_in{k}.npy")
            np.save(ins[-1], x[s])
        tmp_out = d / "_out.npz"
        subprocess.run([py, HERE / "mediapipe_run.py", d / "model.tflite", "1", tmp_out, *ins], check=True,
                       capture_output=True)
        outs.append(np.load(tmp_out)["out0"])
        for f in [*ins, tmp_out]:
            f.unlink()
    return np.stack(outs)


def save_inputs(d: Path, xs: list) -> None:
    """input.npy, input1.npy, ...: the graph inputs, dim 0 the sample."""
    for k, x in enumerate(xs):
        np.save(d / ("input.npy" if k == 0 else f"input{k}.npy"), x)


def main() -> int:
    from landmark_cases import CASES as LANDMARK_CASES

    py = mp_python()
    OUT.mkdir(exist_ok=True)
    listing = []
    for name, (inp, filt, padding, stride, seed) in CASES.items():
        rng = np.random.default_rng(seed)
        w = rng.normal(0, 1, filt).astype(np.float32)
        # Biases far larger than the products, so adding them first or last rounds differently.
        b = (rng.normal(0, 1, filt[0]) * 1e3).astype(np.float32)
        x = rng.normal(0, 1, (2, *inp)).astype(np.float32)  # two samples, one invocation each
        d = OUT / name
        d.mkdir(exist_ok=True)
        (d / "model.tflite").write_bytes(model(inp, filt, padding, stride, w, b))
        save_inputs(d, [x])
        shape = [inp[0], *out_hw(inp, filt, padding, stride), filt[0]]
        np.save(d / "expected.npy", run_mediapipe(py, d, [x]).reshape(len(x), *shape))
        listing.append({"name": name, "op": CODE, "input": list(inp), "filter": list(filt), "padding": padding,
                        "stride_w": stride[0], "stride_h": stride[1], "output": shape, "samples": len(x)})
        print(f"{name}: output {shape}")
    for name, code, inputs, out_shape, options, xs in LANDMARK_CASES:
        d = OUT / name
        d.mkdir(exist_ok=True)
        (d / "model.tflite").write_bytes(single_op(code, 2, [(n, s, None) for n, s in inputs], out_shape, options))
        save_inputs(d, xs)
        y = run_mediapipe(py, d, xs).reshape(len(xs[0]), *out_shape)
        np.save(d / "expected.npy", y)
        listing.append({"name": name, "op": code, "version": 2, "inputs": [s for _, s in inputs],
                        "output": out_shape, "samples": len(xs[0])})
        print(f"{name}: output {out_shape}, |y| max {np.abs(y).max():.4g}, zeros {int((y == 0).sum())}/{y.size}")
    (OUT / "cases.json").write_text(json.dumps({
        "generated_by": "tests/tools/mediapipe/make_goldens.py",
        "reference": "mediapipe 0.10.14 wheel: InferenceCalculator (delegate tflite, MediaPipe's op resolver)",
        "cases": listing,
    }, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
