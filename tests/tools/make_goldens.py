#!/usr/bin/env python3
"""Deterministic golden-data generator for Zeropoint (run by hand, never in CI).

Builds small Keras models (whole nets trained briefly on synthetic but
learnable tasks, and single-operator models with seeded random weights),
converts each with TF's TFLiteConverter into several variants (float, dynamic
range, full int8, int8 with float I/O, 16x8, fp16, calibrated-only) and records
what LiteRT computes on a few test inputs: outputs of the reference kernels
(BUILTIN_REF, the bit-exact target), of the optimized builtin kernels and of
the default XNNPACK path (for comparison), and for integer models every
intermediate tensor of the first input.

Layout written (paths relative to the repository root):

    tests/golden/<case>/case.toml                   what the case is, variants, tolerances, op lists
    tests/golden/<case>/model_<variant>.tflite      converter outputs
    tests/golden/<case>/calib.npy                   calibration samples (representative dataset);
                                                    calib_<k>.npy when the model has several inputs
    tests/golden/<case>/input_<k>.npy               float test inputs for model input k
    tests/golden/<case>/input_<variant>_<k>.npy     the same inputs quantized, where the dtype differs
    tests/golden/<case>/expected_<variant>_output_<k>.npy            LiteRT BUILTIN_REF (for an op
                                                    BUILTIN_REF lacks: op by op, see expected_resolver)
    tests/golden/<case>/expected_<variant>_optimized_output_<k>.npy  BUILTIN_WITHOUT_DEFAULT_DELEGATES
    tests/golden/<case>/expected_<variant>_xnnpack_output_<k>.npy    AUTO (default: XNNPACK delegate)
    tests/golden/<case>/intermediates_<variant>/t<index>.npy         every op output, first input, REF
    (optimized / xnnpack outputs and intermediates identical to an array already written
    in the case are not stored twice: case.toml names the file that holds them)
    tests/golden/manifest.json                      sha256 + size of every file, tool versions
    www/assets/example.tflite                       == tests/golden/example_cnn/model_float.tflite

Array layout: every .npy holds samples stacked on a new first axis; element i
has exactly the shape of the model tensor (batch dim 1 included), and is one
separate interpreter invocation. Intermediates hold one sample (first axis 1).
input_<k> / output_<k> follow the subgraph's input/output order.

Adding a case: a whole model is a function decorated with ``@case(...)`` that
returns a ``CaseData`` (batch-1 Keras model, calibration samples, test inputs),
in goldens/models.py; a single-operator case is one ``op_case(...)`` call in
goldens/op_cases.py. This file is the entry point and CLI; the generator is the
package next to it, tests/tools/goldens/ (its __init__.py lists the modules).

Usage:
    tests/tools/.venv/bin/python tests/tools/make_goldens.py [--cases a,b] [--jobs N] [--list] [--verbose]
    tests/tools/.venv/bin/python tests/tools/make_goldens.py --labelled-only --cases example_cnn,mlp
"""

from __future__ import annotations

import os
import sys

sys.dont_write_bytecode = True  # leave no __pycache__ in tests/tools/goldens
from goldens.env import apply_env  # noqa: E402 - standard library only: TF is not imported yet

# Determinism knobs before TF is imported: run as a script, re-executes itself with them.
apply_env(__file__ if __name__ == "__main__" else None)

import argparse  # noqa: E402
import multiprocessing  # noqa: E402
import shutil  # noqa: E402
import time  # noqa: E402

from goldens.generate import add_labelled, generate_case  # noqa: E402 - imports TF, registers the cases
from goldens.registry import CASES  # noqa: E402
from goldens.writer import GOLDEN, write_manifest  # noqa: E402


def _generate_by_name(args: tuple[str, bool]) -> dict:
    return generate_case(CASES[args[0]], args[1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", help="comma-separated subset of cases (default: all)")
    ap.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1), help="worker processes (default: 2)")
    ap.add_argument("--list", action="store_true", help="list cases and exit")
    ap.add_argument(
        "--labelled-only",
        action="store_true",
        help="only (re)write the labelled test sets of the chosen cases, keeping their models",
    )
    ap.add_argument("--verbose", action="store_true", help="also print op lists, kernel differences, skipped variants")
    args = ap.parse_args()
    if args.list:
        for name, spec in CASES.items():
            print(f"{name:34s} {spec.kind:5s} {spec.op or '':24s} {' '.join(spec.variants)}")
        return 0
    names = list(CASES) if not args.cases else [c.strip() for c in args.cases.split(",") if c.strip()]
    unknown = [n for n in names if n not in CASES]
    if unknown:
        ap.error(f"unknown case(s): {', '.join(unknown)}")
    t0 = time.time()
    GOLDEN.mkdir(parents=True, exist_ok=True)
    # Stale case folders (renamed or removed cases) go when everything is regenerated.
    if not args.cases:
        for d in sorted(GOLDEN.iterdir()):
            if d.is_dir() and d.name not in CASES:
                shutil.rmtree(d)
    if args.labelled_only:
        for n in names:
            print(add_labelled(CASES[n])["summary"], flush=True)
        write_manifest()
        print(f"done in {time.time() - t0:.1f} s", flush=True)
        return 0
    work = [(n, args.verbose) for n in names]
    if args.jobs <= 1 or len(work) == 1:
        for item in work:
            print(_generate_by_name(item)["summary"], flush=True)
    else:
        # Each case seeds itself and its output does not depend on what ran before in the
        # process (checked: one case alone == the same case after others), so cases can be
        # spread over fresh processes. Big cases first to balance the two workers.
        heavy = [n for n in names if CASES[n].kind == "model"]
        work.sort(key=lambda item: item[0] not in heavy)
        with multiprocessing.get_context("spawn").Pool(args.jobs, maxtasksperchild=8) as pool:
            for res in pool.imap_unordered(_generate_by_name, work):
                print(res["summary"], flush=True)
    write_manifest()
    print(f"done in {time.time() - t0:.1f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
