#!/usr/bin/env python3
"""Runs the bomb set (tests/tools/mutation/bombs.py: huge outputs, long chains, endless loops,
deep nesting, constants with slop) through our CLI, each command under an address-space cap,
and checks each against its promised outcome, wall time and peak RSS. The models are built here,
at test time, in a temporary directory.

    python tests/tools/bombs.py --zeropoint target/debug/zeropoint [--only tanh,pad]

Prints one line per check and "N passed, M failed"; exits 1 on any failure.
"""

from __future__ import annotations

import argparse
import os
import resource
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import case_filter  # noqa: E402
from mutation.bombs import BOMBS, Bomb, Check  # noqa: E402


def limited(mb: int):
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (mb << 20, mb << 20))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

    return apply


def measure(cmd: list[str], timeout: float, memory_mb: int) -> tuple[int | None, str, float, int]:
    """(exit status or None on timeout, stderr, seconds, peak RSS in MB) of one command."""
    start = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, preexec_fn=limited(memory_mb))
    err: list[bytes] = []
    reader = threading.Thread(target=lambda: err.append(p.stderr.read() if p.stderr else b""), daemon=True)
    reader.start()
    timer = threading.Timer(timeout, p.kill)
    timer.start()
    _, status, usage = os.wait4(p.pid, 0)
    timer.cancel()
    p.returncode = os.waitstatus_to_exitcode(status)
    reader.join(5)
    seconds = time.monotonic() - start
    code: int | None = p.returncode
    if code == -signal.SIGKILL and seconds >= timeout:
        code = None
    return code, b"".join(err).decode(errors="replace"), seconds, usage.ru_maxrss // 1024


def check_one(zp: Path, bomb: Bomb, check: Check, model: Path, inputs: list[Path], samples: list[Path], work: Path, memory_mb: int) -> str | None:
    """Runs one check; returns why it failed, or None."""
    if check.command == "run":
        cmd = [str(zp), "run", str(model), *[a for p in inputs for a in ("--input", str(p))], "--out-dir", str(work / "out")]
    elif check.command == "quantize":
        cmd = [str(zp), "quantize", str(model), "-o", str(work / "q.tflite"), *[a for p in samples for a in ("--data", str(p))]]
    else:
        cmd = [str(zp), check.command, str(model)]
    cmd += list(check.args)
    code, err, seconds, rss = measure(cmd, check.max_s * 3 + 10, memory_mb)
    last = next((line for line in err.splitlines() if line.startswith("error")), err.strip()[-300:])
    if code is None:
        outcome = "timeout"
    elif code == 0:
        outcome = "ok"
    elif "panicked at" in err or code == 101:
        outcome = "panic"
    elif code < 0:
        outcome = f"abort ({signal.Signals(-code).name})"
    else:
        outcome = "error"
    line = f"{bomb.name} {check.command} {' '.join(check.args)}".strip()
    print(f"{line}: {outcome} in {seconds:.1f} s, {rss} MB{': ' + last[:200] if outcome != 'ok' else ''}", flush=True)
    problems = []
    if outcome != check.outcome:
        problems.append(f"expected {check.outcome}, got {outcome}")
    elif check.outcome == "error" and check.phrase not in last:
        problems.append(f"the error does not say '{check.phrase}'")
    if seconds > check.max_s:
        problems.append(f"{seconds:.1f} s > {check.max_s} s")
    if rss > check.max_rss_mb:
        problems.append(f"{rss} MB > {check.max_rss_mb} MB")
    return f"{line}: {'; '.join(problems)}" if problems else None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--zeropoint", type=Path, required=True)
    ap.add_argument("--memory-mb", type=int, default=1536, help="address-space cap of each command")
    case_filter.add_argument(ap)
    args = ap.parse_args()
    only = case_filter.parse(args.only)
    bombs = [b for b in BOMBS if not only or any(o in b.name for o in only)]
    failures: list[str] = []
    passed = 0
    with tempfile.TemporaryDirectory(prefix="zp-bombs-") as tmp:
        for bomb in bombs:
            work = Path(tmp) / bomb.name
            work.mkdir()
            started = time.monotonic()
            data, xs = bomb.build()
            model = work / "model.tflite"
            model.write_bytes(data)
            inputs, samples = [], []
            for i, x in enumerate(xs):
                inputs.append(work / f"input_{i}.npy")
                np.save(inputs[-1], x)
                samples.append(work / f"samples_{i}.npy")
                np.save(samples[-1], x[np.newaxis])
            print(f"{bomb.name}: {bomb.what}; {len(data):,} bytes, built in {time.monotonic() - started:.1f} s", flush=True)
            for check in bomb.checks:
                why = check_one(args.zeropoint, bomb, check, model, inputs, samples, work, args.memory_mb)
                if why:
                    failures.append(why)
                else:
                    passed += 1
    for f in failures:
        print(f"FAILED {f}")
    print(f"{passed} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
