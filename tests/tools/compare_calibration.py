#!/usr/bin/env python3
"""Our calibration against TF 2.21's calibrator on any float model, tensor by tensor (by hand).

Runs TF's own calibrator (tensorflow.lite.python.optimize.calibrator, what the converter's
post-training quantization runs) on MODEL with the samples of CALIB.npy (first axis = samples,
one invocation each, single-input models) and `zeropoint calibrate` on the same file and samples,
then compares the recorded min/max of every tensor TF records: f32-equal, or the distance in
ulps. Used on the architecture zoo's models (target/zoo/<arch>/model_float.tflite and calib.npy,
written by make_zoo.py) to show where the two calibrations part.

    /path/to/venv/bin/python tests/tools/compare_calibration.py MODEL CALIB.npy \\
        [--zeropoint target/release/zeropoint] [--show 10]

Exit status 1 when any tensor differs.
"""

from __future__ import annotations

import os
import sys

sys.dont_write_bytecode = True
from goldens.env import apply_env  # noqa: E402 - standard library only: TF is not imported yet

apply_env(__file__ if __name__ == "__main__" else None)

import argparse  # noqa: E402
import json  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

from goldens.env import quiet  # noqa: E402
from goldens.frameworks import tfl_schema  # noqa: E402
from goldens.writer import REPO  # noqa: E402


def tf_ranges(model: bytes, calib: np.ndarray) -> dict[str, tuple[np.float32, np.float32]]:
    """Tensor name -> (min, max) as TF's calibrator records them."""
    from tensorflow.lite.python.optimize import calibrator

    with quiet():
        cal = calibrator.Calibrator(model)
        out = cal.calibrate(lambda: ([calib[i]] for i in range(calib.shape[0])))
    m = tfl_schema.ModelT.InitFromPackedBuf(out, 0)
    ranges = {}
    for t in m.subgraphs[0].tensors:
        q = t.quantization
        if q is not None and q.min is not None and len(q.min):
            ranges[t.name.decode()] = (np.float32(q.min[0]), np.float32(q.max[0]))
    return ranges


def our_ranges(exe: Path, model: Path, calib: Path) -> dict[str, tuple[np.float32, np.float32]]:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "stats.json"
        subprocess.run(
            [str(exe), "calibrate", str(model), "--data", str(calib), "-o", str(out)],
            check=True, capture_output=True, text=True,
        )
        stats = json.loads(out.read_text())
    return {t["name"]: (np.float32(t["min"]), np.float32(t["max"])) for t in stats["tensors"]}


def ulps(a: np.float32, b: np.float32) -> int:
    def key(x: np.float32) -> int:
        i = int(np.array(x, np.float32).view(np.int32))
        return i if i >= 0 else -(i & 0x7FFFFFFF)

    return abs(key(a) - key(b))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("model", type=Path)
    ap.add_argument("calib", type=Path)
    ap.add_argument("--zeropoint", type=Path, default=REPO / "target" / "release" / "zeropoint")
    ap.add_argument("--show", type=int, default=10, help="differing tensors to print")
    args = ap.parse_args()
    calib = np.load(args.calib)
    theirs = tf_ranges(args.model.read_bytes(), calib)
    ours = our_ranges(args.zeropoint, args.model, args.calib)
    missing = sorted(set(theirs) - set(ours))
    diffs = []
    for name, (lo, hi) in theirs.items():
        if name in ours and ours[name] != (lo, hi):
            o = ours[name]
            diffs.append((max(ulps(o[0], lo), ulps(o[1], hi)), name, (lo, hi), o))
    diffs.sort(reverse=True)
    equal = len(theirs) - len(missing) - len(diffs)
    print(f"{args.model}: {equal}/{len(theirs)} tensors f32-equal to TF's calibrator, "
          f"{len(diffs)} differ, {len(missing)} not recorded by us")
    for d, name, t, o in diffs[: args.show]:
        print(f"  {d:6d} ulp  {name}: TF [{t[0]!r}, {t[1]!r}], ours [{o[0]!r}, {o[1]!r}]")
    for name in missing[: args.show]:
        print(f"  missing: {name}")
    return 1 if diffs or missing else 0


if __name__ == "__main__":
    os.chdir(Path(__file__).resolve().parent)
    sys.exit(main())
