"""Our int8 quantization of MediaPipe's BlazeFace (face_detection_short_range) against TF 2.21's,
on the same calibration data: `zeropoint compare-quant` per tensor, and the output SQNR of both.

Run by hand (needs the network once, never in CI): the mediapipe wheel is fetched with
`pip download` into tests/tools/.cache/ (gitignored; the model is not committed), its weights are
float16 behind DEQUANTIZE, which TF's MLIR quantizer refuses ("scale out of expressed type
range"), so TF gets a float32 copy (the DEQUANTIZEs folded); ours quantizes the shipped file
(it folds them itself) and the copy. Calibration: 16 seeded synthetic 128x128 images in [-1, 1];
SQNR on the first 4 of them.

    /path/to/venv-tf/bin/python tests/tools/compare_mediapipe.py --zeropoint target/release/zeropoint
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
CACHE = HERE / ".cache"
WHEEL = "mediapipe==0.10.14"
MEMBER = "mediapipe/modules/face_detection/face_detection_short_range.tflite"


def fetch() -> bytes:
    model = CACHE / Path(MEMBER).name
    if not model.is_file():
        wheels = CACHE / "wheels"
        wheels.mkdir(parents=True, exist_ok=True)
        if not list(wheels.glob("mediapipe-*.whl")):
            subprocess.run(
                [sys.executable, "-m", "pip", "download", WHEEL, "--no-deps", "--only-binary=:all:",
                 "--python-version", "3.11", "--platform", "manylinux_2_17_x86_64", "-d", str(wheels)],
                check=True,
            )
        with zipfile.ZipFile(next(wheels.glob("mediapipe-*.whl"))) as z:
            model.write_bytes(z.read(MEMBER))
    return model.read_bytes()


def float32_copy(model: bytes) -> bytes:
    """The model with each DEQUANTIZE of a float16 constant folded into a float32 constant."""
    import flatbuffers
    import numpy as np

    from goldens.frameworks import tfl_schema

    m = tfl_schema.ModelT.InitFromPackedBuf(model, 0)
    sg = m.subgraphs[0]
    dq = tfl_schema.BuiltinOperator.DEQUANTIZE
    keep = []
    for op in sg.operators:
        oc = m.operatorCodes[op.opcodeIndex]
        src = sg.tensors[op.inputs[0]] if len(op.inputs) else None
        if max(oc.builtinCode, oc.deprecatedBuiltinCode) == dq and src is not None and src.type == tfl_schema.TensorType.FLOAT16:
            vals = np.frombuffer(bytes(m.buffers[src.buffer].data), dtype=np.float16).astype(np.float32)
            buf = tfl_schema.BufferT()
            buf.data = np.frombuffer(vals.tobytes(), dtype=np.uint8)
            m.buffers.append(buf)
            sg.tensors[op.outputs[0]].buffer = len(m.buffers) - 1
            continue
        keep.append(op)
    # TF's calibrator registers every operator code of the table: drop the unused ones.
    used = sorted({op.opcodeIndex for op in keep})
    remap = {old: new for new, old in enumerate(used)}
    m.operatorCodes = [m.operatorCodes[i] for i in used]
    for op in keep:
        op.opcodeIndex = remap[op.opcodeIndex]
    sg.operators = keep
    b = flatbuffers.Builder(0)
    b.Finish(m.Pack(b), file_identifier=b"TFL3")
    return bytes(b.Output())


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--zeropoint", required=True, help="the zeropoint binary")
    ap.add_argument("--out-dir", default=str(CACHE / "blazeface"))
    args = ap.parse_args()
    sys.path.insert(0, str(HERE))
    import numpy as np

    from goldens.activation_split import tf_quantize

    out = Path(args.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    shipped = fetch()
    f32 = float32_copy(shipped)
    (out / "float32.tflite").write_bytes(f32)
    rng = np.random.default_rng(1)
    lo = rng.uniform(-1, 1, (16, 1, 8, 8, 3)).astype(np.float32)
    x = np.repeat(np.repeat(lo, 16, axis=2), 16, axis=3) + rng.uniform(-0.2, 0.2, (16, 1, 128, 128, 3)).astype(np.float32)
    x = np.clip(x, -1, 1).astype(np.float32)
    np.save(out / "calib.npy", x)
    np.save(out / "test.npy", x[:4])
    (out / "tf_int8_floatio.tflite").write_bytes(tf_quantize(f32, "int8_floatio", [x]))
    zp = args.zeropoint
    for name, src in (("ours_shipped", CACHE / Path(MEMBER).name), ("ours_float32", out / "float32.tflite")):
        subprocess.run([zp, "quantize", str(src), "--data", str(out / "calib.npy"), "--mode", "int8",
                        "--io", "float", "-o", str(out / f"{name}.tflite")], check=True, capture_output=True)
        print(f"== {name} vs TF", flush=True)
        subprocess.run([zp, "compare-quant", str(out / f"{name}.tflite"), str(out / "tf_int8_floatio.tflite"),
                        "--float", str(out / "float32.tflite"), "--input", str(out / "test.npy")], check=True)
    for name in ("ours_shipped", "ours_float32", "tf_int8_floatio"):
        r = subprocess.run([zp, "compare", str(out / "float32.tflite"), str(out / f"{name}.tflite"), "--input",
                            str(out / "test.npy"), "--top", "1000"], check=True, capture_output=True, text=True)
        rows = [ln for ln in r.stdout.splitlines() if ln.endswith((" classificators", " regressors"))]
        print(f"{name}: " + "; ".join(" ".join(ln.split()[::4][::-1]) + " dB" for ln in rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
