"""Our side of one zoo architecture, with the release CLI as a subprocess (as a user runs it):

- `zeropoint inspect --json` on each model: the operator types without a kernel and the
  operators the engine's prepare refuses (`cannot_run`), before anything runs;
- `zeropoint run` on TF's float model vs LiteRT BUILTIN_REF (max relative error), and on TF's
  int8, int8_floatio and 16x8 models (% of output elements bit-exact);
- `zeropoint quantize --mode int8 --io float` with the same calibration samples TF had: its wall
  time, whether LiteRT BUILTIN_REF loads and runs the result, and the SQNR of its outputs vs the
  float model's beside the SQNR of TF's int8_floatio model on the same held-out inputs."""

from __future__ import annotations

import json
import math
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np

from .convert import ZOO_VARIANTS, litert_outputs


def _first_lines(text: str, limit: int = 2000) -> str:
    return " ".join(ln.strip() for ln in text.strip().splitlines() if ln.strip())[:limit]


def zeropoint(exe: Path, args: list[str], timeout: float = 1800.0) -> tuple[int, str, str, float]:
    t0 = time.perf_counter()
    p = subprocess.run([str(exe), *args], capture_output=True, text=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr, time.perf_counter() - t0


def cannot_run(exe: Path, model: Path) -> dict:
    rc, out, err, _ = zeropoint(exe, ["inspect", "--json", str(model)])
    if rc != 0:
        return {"inspect_error": _first_lines(err)}
    c = json.loads(out)["cannot_run"]
    return {
        "no_kernel": {e["op"]: e["count"] for e in c["no_kernel"]},
        "refused": {e["op"]: {"count": e["count"], "kind": e["kind"], "reason": e["reason"][:400]} for e in c["refused"]},
    }


def run_ours(exe: Path, model: Path, inputs: Path) -> tuple[list[np.ndarray] | None, str | None]:
    with tempfile.TemporaryDirectory() as tmp:
        rc, _, err, _ = zeropoint(exe, ["run", str(model), "--input", str(inputs), "--out-dir", tmp])
        if rc != 0:
            return None, _first_lines(err)
        outs = sorted(Path(tmp).glob("output_*.npy"), key=lambda p: int(p.stem.split("_")[1]))
        return [np.load(p) for p in outs], None


def max_rel_err(got: list[np.ndarray], exp: list[np.ndarray]) -> float:
    """max |got - exp| / |exp| over every element (0 where both are equal, inf where exp is 0
    and got is not)."""
    worst = 0.0
    for g, e in zip(got, exp):
        g64, e64 = g.astype(np.float64).ravel(), e.astype(np.float64).ravel()
        d = np.abs(g64 - e64)
        with np.errstate(divide="ignore", invalid="ignore"):
            r = np.where(d == 0, 0.0, d / np.abs(e64))
        worst = max(worst, float(np.max(r)) if r.size else 0.0)
    return worst


def pct_exact(got: list[np.ndarray], exp: list[np.ndarray]) -> float:
    same = sum(int(np.count_nonzero(g.ravel() == e.ravel())) for g, e in zip(got, exp))
    total = sum(e.size for e in exp)
    return round(100.0 * same / total, 4) if total else 100.0


def sqnr_db(ref: list[np.ndarray], q: list[np.ndarray]) -> float | str:
    """10 log10(sum ref^2 / sum (ref - q)^2) over every output element; "inf" when identical."""
    sig = sum(float(np.sum(r.astype(np.float64) ** 2)) for r in ref)
    noise = sum(float(np.sum((r.astype(np.float64) - x.astype(np.float64)) ** 2)) for r, x in zip(ref, q))
    if noise == 0.0:
        return "inf"
    return round(10.0 * math.log10(sig / noise), 2) if sig > 0 else "-inf"


def _load_outputs(d: Path, vname: str, n: int) -> list[np.ndarray]:
    return [np.load(d / f"expected_{vname}_output_{k}.npy") for k in range(n)]


def measure(exe: Path, d: Path, meta: dict, log) -> dict:
    """Every measurement of one architecture whose TF conversions are cached in `d`."""
    res: dict = {"variants": {}}
    float_outs = None
    for vname in ZOO_VARIANTS:
        vm = meta["variants"].get(vname, {})
        v: dict = {}
        res["variants"][vname] = v
        if "error" in vm:
            v["tf_error"] = vm["error"]
            if vm.get("crashed"):
                v["tf_crashed"] = True
            continue
        model = d / f"model_{vname}.tflite"
        v["cannot_run"] = cannot_run(exe, model)
        v["litert_resolver"] = vm["resolver"]
        for key in ("reference_error", "lowered_versions"):
            if key in vm:
                v["litert_" + key] = vm[key]
        if not vm["outputs"]:
            v["litert_error"] = vm.get("optimized_error", "LiteRT gave no outputs")
            continue
        exp = _load_outputs(d, vname, vm["outputs"])
        inp = d / (f"input_{vname}_0.npy" if (d / f"input_{vname}_0.npy").is_file() else "heldout.npy")
        got, err = run_ours(exe, model, inp)
        if got is None:
            v["ours_error"] = err
            log(f"  {vname}: zeropoint run refuses: {err[:200]}")
            continue
        if [g.shape for g in got] != [e.shape for e in exp]:
            v["ours_error"] = f"output shapes {[g.shape for g in got]} != LiteRT's {[e.shape for e in exp]}"
            continue
        if vname == "float":
            float_outs = exp
            v["max_rel_err"] = max_rel_err(got, exp)
            v["bit_identical"] = all(np.array_equal(g, e) for g, e in zip(got, exp))
            log(f"  float: max rel err {v['max_rel_err']:.3g}")
        else:
            v["pct_bit_exact"] = pct_exact(got, exp)
            log(f"  {vname}: {v['pct_bit_exact']} % bit-exact")

    q: dict = {}
    res["ours_int8"] = q
    if "error" in meta["variants"].get("float", {"error": 1}):
        q["error"] = "no float model"
        return res
    heldout = np.load(d / "heldout.npy")
    if float_outs is None and meta["variants"]["float"]["outputs"]:
        float_outs = _load_outputs(d, "float", meta["variants"]["float"]["outputs"])
    tf_q = meta["variants"].get("int8_floatio", {})
    if float_outs is not None and tf_q.get("outputs"):
        q["tf_sqnr_db"] = sqnr_db(float_outs, _load_outputs(d, "int8_floatio", tf_q["outputs"]))
    ours = d / "ours_int8_floatio.tflite"
    ours.unlink(missing_ok=True)
    rc, _, err, secs = zeropoint(
        exe,
        ["quantize", str(d / "model_float.tflite"), "--mode", "int8", "--io", "float",
         "--data", str(d / "calib.npy"), "-o", str(ours)],
    )
    if rc != 0:
        q["error"] = _first_lines(err)
        log(f"  quantize refuses: {q['error'][:200]}")
        return res
    q["seconds"] = round(secs, 2)
    q["bytes"] = ours.stat().st_size
    outs, note = litert_outputs(ours.read_bytes(), heldout)
    q["litert_loads"] = outs is not None
    q["litert_resolver"] = note["resolver"]
    for key in ("reference_error", "lowered_versions"):
        if key in note:
            q["litert_" + key] = note[key]
    if outs is None:
        q["litert_error"] = note.get("optimized_error")
        log(f"  ours: LiteRT refuses: {q['litert_error']}")
        return res
    if float_outs is not None:
        q["sqnr_db"] = sqnr_db(float_outs, outs)
    if tf_q.get("outputs"):
        q["pct_equal_to_tf_outputs"] = pct_exact(outs, _load_outputs(d, "int8_floatio", tf_q["outputs"]))
    log(f"  ours int8: {secs:.1f} s, SQNR {q.get('sqnr_db')} dB (TF {q.get('tf_sqnr_db')} dB)")
    return res
