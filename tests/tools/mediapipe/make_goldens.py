"""Goldens for MediaPipe's custom operator `Convolution2DTransposeBias`: single-op float models
built with LiteRT's flatbuffer object API, run by MediaPipe itself (the 0.10.14 wheel's
InferenceCalculator with MediaPipe's op resolver, TFLite CPU kernels: `mediapipe_run.py`), the
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


def model(inp, filt, padding, stride, w, b) -> bytes:
    """One Convolution2DTransposeBias: input, constant filter and bias, options as MediaPipe's
    converter writes them (TfLiteTransposeConvParams' padding, stride_width, stride_height)."""
    m = S.ModelT()
    m.version = 3
    oc = S.OperatorCodeT()
    oc.builtinCode = oc.deprecatedBuiltinCode = S.BuiltinOperator.CUSTOM
    oc.customCode = CODE.encode()
    oc.version = 1
    m.operatorCodes = [oc]
    bufs = [S.BufferT(), S.BufferT(), S.BufferT()]
    bufs[1].data = np.frombuffer(w.tobytes(), np.uint8)
    bufs[2].data = np.frombuffer(b.tobytes(), np.uint8)
    m.buffers = bufs + [S.BufferT()]
    sg = S.SubGraphT()
    out_shape = [inp[0], *out_hw(inp, filt, padding, stride), filt[0]]
    sg.tensors = [tensor("input", inp, 0), tensor("weights", filt, 1), tensor("bias", [filt[0]], 2),
                  tensor("output", out_shape, 3)]
    sg.inputs, sg.outputs = [0], [3]
    op = S.OperatorT()
    op.opcodeIndex, op.inputs, op.outputs = 0, [0, 1, 2], [3]
    op.customOptions = np.array([padding, stride[0], stride[1]], "<i4").view(np.uint8)
    sg.operators = [op]
    m.subgraphs = [sg]
    fb = flatbuffers.Builder(0)
    fb.Finish(m.Pack(fb), file_identifier=b"TFL3")
    return bytes(fb.Output())


def out_hw(inp, filt, padding, stride):
    """The output height and width MediaPipe's Prepare computes (for the declared shape)."""
    dims = []
    for i, f, s in ((inp[1], filt[1], stride[1]), (inp[2], filt[2], stride[0])):
        pad = max(0, f - (i - 1) % s - 1) if padding == 1 else 0
        dims.append(s * (i - 1) + f - pad)
    return dims


def main() -> int:
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
        np.save(d / "input.npy", x)
        outs = []
        for s in range(len(x)):
            tmp_in, tmp_out = d / "_in.npy", d / "_out.npy"
            np.save(tmp_in, x[s])
            subprocess.run([py, HERE / "mediapipe_run.py", d / "model.tflite", tmp_in, tmp_out], check=True,
                           capture_output=True)
            outs.append(np.load(tmp_out))
            tmp_in.unlink()
            tmp_out.unlink()
        shape = [inp[0], *out_hw(inp, filt, padding, stride), filt[0]]
        y = np.stack(outs).reshape(len(x), *shape)
        np.save(d / "expected.npy", y)
        listing.append({"name": name, "op": CODE, "input": list(inp), "filter": list(filt), "padding": padding,
                        "stride_w": stride[0], "stride_h": stride[1], "output": shape, "samples": len(x)})
        print(f"{name}: output {shape}")
    (OUT / "cases.json").write_text(json.dumps({
        "generated_by": "tests/tools/mediapipe/make_goldens.py",
        "reference": "mediapipe 0.10.14 wheel: InferenceCalculator (delegate tflite, MediaPipe's op resolver)",
        "cases": listing,
    }, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
