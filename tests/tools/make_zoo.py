#!/usr/bin/env python3
"""The architecture zoo: >= 20 common architectures exported as users export them, through
TF's converter and through our tools (run by hand, never in CI).

For each architecture of tests/tools/zoo/archs.py (keras.applications nets with random weights,
weights=None and a fixed seed, at the smallest input each allows, and hand-built U-Net / YOLO /
SSD / keyword-spotting / DS-CNN / pose nets, and zoo/sequence.py's transformer and recurrent
nets; batch left dynamic except the recurrent nets'):

1. TF 2.21's `TFLiteConverter.from_keras_model`: the float model, int8 (int8 I/O), int8 with
   float I/O and 16x8, calibrated on the same 8 plausible random samples; LiteRT 2.3
   BUILTIN_REF outputs of each on 3 held-out inputs. Cached under target/zoo/<arch>/
   (gitignored) and reused while the architecture's seed and data are unchanged.
2. Our release CLI as a subprocess (`cargo build --release --bin zeropoint` first):
   `inspect --json` (operators we cannot run, with counts), `run` on each of TF's models vs
   BUILTIN_REF, `quantize --mode int8 --io float` on the same calibration samples (timed),
   LiteRT loading and running our model, SQNR of ours and of TF's vs the float model.
3. tests/zoo/results.json (merged per architecture), tests/zoo/<arch>/ for architectures whose
   float model is under 300 KB (checked by tests/rust/zoo.rs), and the README's "Architecture
   coverage" table, rendered from results.json by tests/rust/zoo.rs
   (`ZP_BLESS=1 cargo test -p zeropoint-tests --test zoo`, which this script runs).

Usage:
    /path/to/venv/bin/python tests/tools/make_zoo.py [--only a,b] [--list] [--force] [--no-readme]
"""

from __future__ import annotations

import os
import sys

sys.dont_write_bytecode = True
from goldens.env import apply_env  # noqa: E402 - standard library only: TF is not imported yet

apply_env(__file__ if __name__ == "__main__" else None)

import argparse  # noqa: E402
import subprocess  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

from goldens.writer import REPO  # noqa: E402 - imports TF
from zoo import results  # noqa: E402
from zoo.archs import ARCHS  # noqa: E402
from zoo.convert import child_convert, ensure_converted  # noqa: E402
from zoo.measure import measure  # noqa: E402


def log(msg: str) -> None:
    print(msg, flush=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", help="comma-separated architectures (default: all, smallest first)")
    ap.add_argument("--list", action="store_true", help="list the architectures and exit")
    ap.add_argument("--force", action="store_true", help="convert again even when the cache is current")
    ap.add_argument("--no-readme", action="store_true", help="do not regenerate the README table")
    ap.add_argument("--zeropoint", type=Path, default=REPO / "target" / "release" / "zeropoint")
    ap.add_argument("--cache", type=Path, default=REPO / "target" / "zoo")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)  # one architecture, in-process
    ap.add_argument("--convert-child", help=argparse.SUPPRESS)  # one TF conversion (zoo.convert.convert_isolated)
    args = ap.parse_args()
    if args.convert_child:
        child_convert(ARCHS[args.only], args.cache / args.only, args.convert_child)
        return 0
    if args.list:
        for a in ARCHS.values():
            print(f"{a.name:20s} {a.description}")
        return 0
    names = list(ARCHS) if not args.only else [n.strip() for n in args.only.split(",") if n.strip()]
    unknown = [n for n in names if n not in ARCHS]
    if unknown:
        ap.error(f"unknown architecture(s): {', '.join(unknown)}")
    if not args.zeropoint.is_file():
        ap.error(f"{args.zeropoint} missing: cargo build --release --bin zeropoint")
    version = subprocess.run([str(args.zeropoint), "--version"], capture_output=True, text=True, check=True).stdout.strip()
    if args.child:
        (name,) = names
        arch = ARCHS[name]
        t0 = time.time()
        meta = ensure_converted(arch, args.cache, args.force, log)
        measured = measure(args.zeropoint, args.cache / name, meta, log)
        committed = results.commit_case(arch, args.cache / name, meta)
        doc = results.load()
        doc.setdefault("archs", {})[name] = results.entry(arch, meta, measured, committed)
        results.write(doc, version)
        log(f"{name}: done in {time.time() - t0:.0f} s{' (committed to tests/zoo/)' if committed else ''}")
        return 0
    # One process per architecture, one at a time: TF's converter or LiteRT can end a process
    # (abort) on an odd model; that architecture is then recorded as such and the rest go on.
    for name in names:
        log(f"== {name}")
        cmd = [sys.executable, os.path.abspath(__file__), "--child", "--only", name,
               "--zeropoint", str(args.zeropoint), "--cache", str(args.cache)] + (["--force"] if args.force else [])
        p = subprocess.run(cmd, stderr=subprocess.PIPE, text=True)
        if p.returncode != 0:
            tail = " ".join(ln.strip() for ln in p.stderr.splitlines()[-5:] if ln.strip())[:500]
            log(f"{name}: the run ended with exit {p.returncode}: {tail}")
            doc = results.load()
            doc.setdefault("archs", {})[name] = results.crashed(ARCHS[name], p.returncode, tail)
            results.write(doc, version)
    if not args.no_readme:
        env = dict(os.environ, ZP_BLESS="1")
        subprocess.run(["cargo", "test", "-q", "-p", "zeropoint-tests", "--test", "zoo"], cwd=REPO, env=env, check=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
