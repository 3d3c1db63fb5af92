#!/usr/bin/env python3
"""TF's calibrator arithmetic, element by element (issue 19, "exact calibration"): which LiteRT
configuration TF 2.21's calibrator runs, proven per case, and its float outputs saved as goldens.

TF's calibrator (tensorflow/lite/python/optimize/calibration_wrapper.cc) builds a logging
interpreter from BuiltinOpResolver with the default thread count (-1); LiteRT's eigen_support.cc
then gives Eigen a thread pool of 4 threads, and CONV_2D with a constant filter runs its
multithreaded kernel on it. TF's own interpreter (tf.lite.Interpreter, the LiteRT build inside
the TF wheel, not ai_edge_litert's) with BUILTIN_WITHOUT_DEFAULT_DELEGATES and num_threads=4 is
that configuration. For each case this script

1. runs model_float.tflite on every calibration sample in that configuration and checks that
   the per-tensor min/max equal the ones TF's calibrator recorded in model_calibrated.tflite, on
   every tensor (the script fails otherwise: the configuration is then not the calibrator's);
2. counts the output elements a 1-thread interpreter computes differently (why it matters);
3. writes calibrator_output_<k>.npy (the outputs of the first SAMPLES calibration samples, first
   axis = samples, as every golden array) and calibrator.toml (configuration, counts, and this
   machine's cache sizes as Eigen reads them, `eigen_caches`, which decide its blocking: the
   Rust test calibrates with them).

tests/rust/calibration_order.rs compares our calibration kernels with these outputs bit for bit.
Run after make_goldens.py has (re)written the cases, then regenerate the manifest:

    /path/to/venv/bin/python tests/tools/calibrator_order.py [--cases calib_conv_k288_s2,...]
"""

from __future__ import annotations

import os
import sys

sys.dont_write_bytecode = True
from goldens.env import apply_env  # noqa: E402 - standard library only: TF is not imported yet

apply_env(__file__ if __name__ == "__main__" else None)

import argparse  # noqa: E402
import subprocess  # noqa: E402
import tomllib  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

from goldens.env import quiet  # noqa: E402
from goldens.frameworks import tf, tfl_schema  # noqa: E402
from goldens.writer import GOLDEN  # noqa: E402

THREADS = 4
SAMPLES = 4


def recorded_ranges(model: bytes) -> dict[int, tuple[np.float32, np.float32]]:
    """Tensor index -> (min, max) TF's calibrator stored in a calibrated-only model."""
    m = tfl_schema.ModelT.InitFromPackedBuf(model, 0)
    out = {}
    for i, t in enumerate(m.subgraphs[0].tensors):
        q = t.quantization
        if q is not None and q.min is not None and len(q.min):
            out[i] = (np.float32(q.min[0]), np.float32(q.max[0]))
    return out


def run(model: bytes, inputs: list[np.ndarray], threads: int, tensors: list[int]):
    """Every sample through TF's own interpreter: (outputs per sample, min/max per tensor)."""
    with quiet():
        it = tf.lite.Interpreter(
            model_content=model,
            experimental_op_resolver_type=tf.lite.experimental.OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES,
            experimental_preserve_all_tensors=True,
            num_threads=threads,
        )
        it.allocate_tensors()
    ins, outs = it.get_input_details(), it.get_output_details()
    results: list[list[np.ndarray]] = [[] for _ in outs]
    ranges: dict[int, tuple[np.float32, np.float32]] = {}
    for s in range(inputs[0].shape[0]):
        for d, arr in zip(ins, inputs):
            it.set_tensor(d["index"], arr[s])
        with quiet():
            it.invoke()
        for k, d in enumerate(outs):
            results[k].append(it.get_tensor(d["index"]).copy())
        for i in tensors:
            v = it.get_tensor(i)
            lo, hi = np.float32(v.min()), np.float32(v.max())
            old = ranges.get(i)
            ranges[i] = (lo, hi) if old is None else (min(old[0], lo), max(old[1], hi))
    return [np.stack(r) for r in results], ranges


def eigen_caches() -> str:
    """This machine's data caches as Eigen reads them with cpuid (`L1,L2,L3` in KiB), which
    decide its blocking: `zeropoint tf-caches`. (Linux's sizes are not always Eigen's: on AMD
    Eigen reads L3 from leaf 0x80000006, which a VM may report unlike the cache topology.)"""
    repo = Path(__file__).resolve().parents[2]
    cmd = ["cargo", "run", "--quiet", "--locked", "-p", "zeropoint", "--bin", "zeropoint", "--", "tf-caches"]
    return subprocess.run(cmd, cwd=repo, check=True, capture_output=True, text=True).stdout.strip()


def cpu_model() -> str:
    """This CPU's model name (Linux /proc/cpuinfo), which decides `rcpps` estimates: TF's exact
    GELU depends on them (calib_gelu_exact)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown"


def one_case(case_dir: Path) -> None:
    meta = tomllib.loads((case_dir / "case.toml").read_text())
    model = (case_dir / "model_float.tflite").read_bytes()
    calibrated = (case_dir / "model_calibrated.tflite").read_bytes()
    inputs = [np.load(case_dir / f) for f in meta["calibration"]]
    tf_ranges = recorded_ranges(calibrated)
    outs4, ranges4 = run(model, inputs, THREADS, list(tf_ranges))
    outs1, _ = run(model, inputs, 1, [])
    bad = [(i, tf_ranges[i], ranges4[i]) for i in tf_ranges if tf_ranges[i] != ranges4[i]]
    if bad:
        sys.exit(f"{case_dir.name}: {THREADS}-thread ranges differ from TF's calibrator: {bad}")
    differing = sum(int((a != b).sum()) for a, b in zip(outs1, outs4))
    total = sum(int(a.size) for a in outs4)
    for k, o in enumerate(outs4):
        np.save(case_dir / f"calibrator_output_{k}.npy", o[:SAMPLES])
    (case_dir / "calibrator.toml").write_text(
        "# Generated by tests/tools/calibrator_order.py -- do not edit by hand.\n"
        f'interpreter = "tf.lite.Interpreter (TensorFlow {tf.__version__})"\n'
        'resolver = "BUILTIN_WITHOUT_DEFAULT_DELEGATES"\n'
        f"threads = {THREADS}\n"
        f"samples = {min(SAMPLES, inputs[0].shape[0])}\n"
        f"outputs = {len(outs4)}\n"
        f"ranges_equal_to_tf_calibrator = {len(tf_ranges)}\n"
        f"output_elements = {total}\n"
        f"output_elements_differing_from_1_thread = {differing}\n"
        f'eigen_caches = "{eigen_caches()}"\n'
        f'cpu = "{cpu_model()}"\n'
    )
    print(
        f"{case_dir.name}: {len(tf_ranges)}/{len(tf_ranges)} ranges equal TF's calibrator with "
        f"{THREADS} threads; {differing}/{total} output elements differ with 1 thread",
        flush=True,
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", help="comma-separated cases (default: every tests/golden/calib_* case)")
    args = ap.parse_args()
    if args.cases:
        dirs = [GOLDEN / n.strip() for n in args.cases.split(",") if n.strip()]
    else:
        dirs = sorted(d for d in GOLDEN.glob("calib_*") if d.is_dir())
    missing = [d.name for d in dirs if not (d / "model_calibrated.tflite").is_file()]
    if missing:
        ap.error(f"no calibrated model in: {', '.join(missing)}")
    for d in dirs:
        one_case(d)
    return 0


if __name__ == "__main__":
    os.chdir(Path(__file__).resolve().parent)
    sys.exit(main())
