#!/usr/bin/env python3
"""Every golden operator that has an options table, with that table replaced by one of another
type (`wrong`: ReshapeOptions, or SqueezeOptions on RESHAPE) or removed (`none`), run by LiteRT
(BUILTIN_REF, in a worker process) and by `zeropoint run` on the same inputs: prints how many
both ran with identical outputs, both refused, and the mismatches (issue 22: LiteRT reads such
operators with its zeroed params struct; so must we).

    python tests/tools/mutation/options_check.py --zeropoint target/debug/zeropoint [--variant none] [--only 16x8]

Slow (a worker per mutant): about 8 minutes for all 1,217 operators on a loaded 2-core machine.
"""

from __future__ import annotations

import argparse
import collections
import copy
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import flatbuffers
from ai_edge_litert import schema_py_generated as tfl

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from mutation.outcome import compare_outputs  # noqa: E402

REPO = HERE.parent.parent.parent


def pack(m: tfl.ModelT) -> bytes:
    b = flatbuffers.Builder(1024)
    b.Finish(m.Pack(b), file_identifier=b"TFL3")
    return bytes(b.Output())


def litert(model: Path, d: Path) -> dict:
    req = json.dumps({"op": "run", "model": str(model), "seed": 1, "in_dir": str(d / "in"), "out_dir": str(d / "ref")})
    w = subprocess.run([sys.executable, str(HERE / "litert_worker.py")], input=req + "\n", capture_output=True, text=True, timeout=120)
    return json.loads(w.stdout) if w.stdout.strip() else {"status": "crashed", "error": f"status {w.returncode}"}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--zeropoint", type=Path, required=True)
    ap.add_argument("--variant", choices=("wrong", "none"), default="wrong")
    ap.add_argument("--only", default="", help="comma-separated parts every model path must contain")
    args = ap.parse_args()
    parts = [p for p in args.only.split(",") if p]
    models = sorted(p for p in (REPO / "tests" / "golden").glob("*/model_*.tflite") if p.stat().st_size <= 200_000 and all(x in str(p) for x in parts))
    tally: collections.Counter[str] = collections.Counter()
    odd: list[str] = []
    for path in models:
        m = tfl.ModelT.InitFromObj(tfl.Model.GetRootAsModel(path.read_bytes(), 0))
        for oi, op in enumerate(m.subgraphs[0].operators or []):
            if op.builtinOptionsType == 0:
                continue
            m2 = copy.deepcopy(m)
            o2 = m2.subgraphs[0].operators[oi]
            if args.variant == "none":
                o2.builtinOptionsType, o2.builtinOptions = 0, None
            elif op.builtinOptionsType == tfl.BuiltinOptions.ReshapeOptions:
                o2.builtinOptionsType, o2.builtinOptions = tfl.BuiltinOptions.SqueezeOptions, tfl.SqueezeOptionsT()
            else:
                o2.builtinOptionsType, o2.builtinOptions = tfl.BuiltinOptions.ReshapeOptions, tfl.ReshapeOptionsT()
            with tempfile.TemporaryDirectory() as tmp:
                d = Path(tmp)
                model = d / "m.tflite"
                model.write_bytes(pack(m2))
                for sub in ("in", "ref", "ours"):
                    (d / sub).mkdir()
                ref = litert(model, d)
                ins = sorted((d / "in").glob("input_*.npy"))
                ours = subprocess.run([str(args.zeropoint), "run", str(model), *[a for x in ins for a in ("--input", str(x))], "--out-dir", str(d / "ours")], capture_output=True, text=True, timeout=120)
                if ours.returncode not in (0, 1):
                    key = f"crash (status {ours.returncode})"
                elif ref["status"] == "ran" and ours.returncode == 0:
                    key = "wrong" if compare_outputs(d / "ours", d / "ref", ref["outputs"]) else "identical"
                elif ref["status"] == "ran":
                    key = "false rejection"
                elif ours.returncode == 0:
                    key = "lenient"
                else:
                    key = "both refuse"
                tally[key] += 1
                if key not in ("identical", "both refuse"):
                    odd.append(f"{key}: {path.relative_to(REPO)} operator {oi}: ours: {ours.stderr.strip()[-200:]} | LiteRT: {ref.get('error', '')[:200]}")
    print(dict(tally))
    for line in odd:
        print(line)
    bad = tally["wrong"] + sum(n for k, n in tally.items() if k.startswith("crash"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
