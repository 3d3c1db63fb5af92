#!/usr/bin/env python3
"""Every golden int8/int16 operator with its first per-tensor quantized output requantized (scale
doubled, and for int8 the zero point moved by 3), run by LiteRT (BUILTIN_REF, in a worker
process) and by `zeropoint run` on the same inputs: prints, per operator, how many both ran with
identical outputs, both refused, and the mismatches (issue 22: the operators that move integers
unchanged, `ops::shape::moves_integers_unchecked`, must run as LiteRT runs them; the others
requantize or are refused as LiteRT refuses them).

    python tests/tools/mutation/requant_check.py --zeropoint target/debug/zeropoint [--only op_pad]

Exit status 1 on a wrong answer or a crash. About 2,000 mutants; slow (a worker per mutant).
"""

from __future__ import annotations

import argparse
import collections
import copy
import subprocess
import sys
import tempfile
from pathlib import Path

from ai_edge_litert import schema_py_generated as tfl

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from mutation.options_check import litert, pack  # noqa: E402
from mutation.outcome import compare_outputs  # noqa: E402

REPO = HERE.parent.parent.parent
OP_NAMES = {v: k for k, v in vars(tfl.BuiltinOperator).items() if not k.startswith("_")}


def requantized(m: tfl.ModelT, oi: int) -> tfl.ModelT | None:
    """`m` with operator `oi`'s first per-tensor int8/int16 output requantized, or None."""
    sg = m.subgraphs[0]
    for t in sg.operators[oi].outputs if sg.operators[oi].outputs is not None else []:
        q = sg.tensors[t].quantization
        if sg.tensors[t].type not in (tfl.TensorType.INT8, tfl.TensorType.INT16) or q is None or q.scale is None or len(q.scale) != 1:
            continue
        m2 = copy.deepcopy(m)
        q2 = m2.subgraphs[0].tensors[t].quantization
        q2.scale = [float(q.scale[0]) * 2.0]
        if sg.tensors[t].type == tfl.TensorType.INT8:
            q2.zeroPoint = [int(q.zeroPoint[0]) + 3 if q.zeroPoint is not None and len(q.zeroPoint) else 3]
        return m2
    return None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--zeropoint", type=Path, required=True)
    ap.add_argument("--only", default="", help="comma-separated parts every model path must contain")
    args = ap.parse_args()
    parts = [p for p in args.only.split(",") if p]
    models = sorted(
        p for p in (REPO / "tests" / "golden").glob("*/model_int*.tflite") if p.stat().st_size <= 200_000 and all(x in str(p) for x in parts)
    )
    tally: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    odd: list[str] = []
    for path in models:
        m = tfl.ModelT.InitFromObj(tfl.Model.GetRootAsModel(path.read_bytes(), 0))
        if len(m.subgraphs) != 1:
            continue
        for oi, op in enumerate(m.subgraphs[0].operators or []):
            m2 = requantized(m, oi)
            if m2 is None:
                continue
            name = OP_NAMES.get(m.operatorCodes[op.opcodeIndex].builtinCode, "?")
            with tempfile.TemporaryDirectory() as tmp:
                d = Path(tmp)
                model = d / "m.tflite"
                model.write_bytes(pack(m2))
                for sub in ("in", "ref", "ours"):
                    (d / sub).mkdir()
                ref = litert(model, d)
                ins = sorted((d / "in").glob("input_*.npy"))
                if not ins:  # LiteRT refused before making inputs: feed the unchanged model's
                    (d / "seed").mkdir()
                    (d / "seed" / "in").mkdir()
                    (d / "seed" / "ref").mkdir()
                    litert(path, d / "seed")
                    ins = sorted((d / "seed" / "in").glob("input_*.npy"))
                cmd = [str(args.zeropoint), "run", str(model), *[a for x in ins for a in ("--input", str(x))], "--out-dir", str(d / "ours")]
                ours = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
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
                tally[name][key] += 1
                if key not in ("identical", "both refuse"):
                    odd.append(f"{key}: {path.relative_to(REPO)} operator {oi} ({name}): ours: {ours.stderr.strip()[-200:]} | LiteRT: {ref.get('error', '')[:160]}")
    for name in sorted(tally):
        print(f"{name}: {dict(tally[name])}")
    for line in odd:
        print(line)
    bad = sum(c["wrong"] + sum(n for k, n in c.items() if k.startswith("crash")) for c in tally.values())
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
