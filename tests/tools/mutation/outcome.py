"""Running our CLI on a mutant and reading what happened: an outcome per command (`ok`, `error`,
`panic`, `abort`, `timeout`), LiteRT in its worker process beside it, and the comparison of the
outputs where both ran."""

from __future__ import annotations

import json
import os
import re
import resource
import signal
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent

# What a clean refusal looks like: the CLI's one "error: …" line and exit status 1.
FAILURES = ("panic", "abort", "timeout")


@dataclass
class Ran:
    """One command of ours on one mutant."""

    outcome: str  # ok | error | panic | abort | timeout
    message: str  # the error line, the panic message, the signal, …


def _limit_memory(mb: int):
    def apply() -> None:
        limit = mb << 20
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

    return apply


def run_ours(args: list[str], timeout: float, memory_mb: int) -> Ran:
    """Runs the CLI; a panic is exit status 101 or Rust's panic message, an abort any signal."""
    try:
        p = subprocess.run(
            args,
            capture_output=True,
            text=True,
            errors="replace",
            timeout=timeout,
            preexec_fn=_limit_memory(memory_mb),
        )
    except subprocess.TimeoutExpired:
        return Ran("timeout", f"no answer in {timeout:g} s")
    err = p.stderr.strip()
    if "panicked at" in err or p.returncode == 101:
        return Ran("panic", err[-600:])
    if p.returncode < 0:
        name = signal.Signals(-p.returncode).name if -p.returncode in signal.Signals._value2member_map_ else str(p.returncode)
        return Ran("abort", f"{name}: {err[-400:]}")
    if p.returncode == 0:
        return Ran("ok", "")
    first = next((line for line in err.splitlines() if line.startswith("error")), err[:300])
    return Ran("error", first[:600])


class LiteRT:
    """A LiteRT worker process (tests/tools/mutation/litert_worker.py), restarted after it dies or
    hangs. One per harness thread."""

    def __init__(self, timeout: float) -> None:
        self.timeout = timeout
        self.proc: subprocess.Popen[str] | None = None
        self.lock = threading.Lock()

    def _start(self) -> subprocess.Popen[str]:
        if self.proc is None or self.proc.poll() is not None:
            self.proc = subprocess.Popen(
                [sys.executable, str(HERE / "litert_worker.py")],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
                preexec_fn=_limit_memory(1 << 16),  # the worker caps itself lower
            )
        return self.proc

    def _kill(self) -> None:
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
            self.proc = None

    def call(self, request: dict) -> dict:
        with self.lock:
            proc = self._start()
            assert proc.stdin is not None and proc.stdout is not None
            try:
                proc.stdin.write(json.dumps(request) + "\n")
                proc.stdin.flush()
            except BrokenPipeError:
                self._kill()
                return {"status": "crashed", "error": "the worker died before the request"}
            answer: list[str] = []
            reader = threading.Thread(target=lambda: answer.append(proc.stdout.readline()), daemon=True)
            reader.start()
            reader.join(self.timeout)
            if reader.is_alive():
                self._kill()
                return {"status": "timeout", "error": f"no answer in {self.timeout:g} s"}
            if not answer or not answer[0]:
                code = proc.wait()
                self.proc = None
                return {"status": "crashed", "error": f"LiteRT died (status {code})"}
            return json.loads(answer[0])

    def close(self) -> None:
        self._kill()


def same_bits(ours: np.ndarray, ref: np.ndarray) -> bool:
    """Element-wise identical values of the same type (any NaN equals any NaN)."""
    a, b = ours.reshape(-1), ref.reshape(-1)
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    if a.dtype.kind == "f":
        both_nan = np.isnan(a) & np.isnan(b)
        return bool(np.all(both_nan | (a.view(f"u{a.itemsize}") == b.view(f"u{b.itemsize}"))))
    return bool(np.array_equal(a, b))


def within_one_ulp(a: np.ndarray, b: np.ndarray) -> bool:
    """float32 arrays equal up to one unit in the last place (NaN where both are NaN)."""
    if a.dtype != np.float32 or b.dtype != np.float32:
        return False
    x, y = a.reshape(-1), b.reshape(-1)
    both_nan = np.isnan(x) & np.isnan(y)
    key = lambda v: np.where(v.view(np.int32) < 0, np.int64(-2**31) - v.view(np.int32).astype(np.int64), v.view(np.int32).astype(np.int64))  # noqa: E731
    return bool(np.all(both_nan | (np.abs(key(x) - key(y)) <= 1)))


def compare_outputs(ours_dir: Path, ref_dir: Path, count: int, detection: bool = False) -> str | None:
    """None when every output is identical; else what differs.

    `detection`: the model ends in TFLite_Detection_PostProcess (boxes, classes, scores,
    num_detections), whose fast NMS leaves the slots past num_detections unwritten in LiteRT
    (whatever its arena held: they change from run to run), so only the detections LiteRT
    reports (the first num_detections rows of each output of rank ≥ 2) are compared there."""
    rows = None
    if detection:  # num_detections: LiteRT's first one-element output
        for i in range(count):
            p = ref_dir / f"output_{i}.npy"
            n = np.load(p).reshape(-1) if p.exists() else np.zeros(0)
            if n.size == 1 and np.issubdtype(n.dtype, np.floating) and np.isfinite(n[0]) and n[0] >= 0:
                rows = int(n[0])
                break
    for i in range(count):
        mine, ref = ours_dir / f"output_{i}.npy", ref_dir / f"output_{i}.npy"
        if not mine.exists():
            return f"output {i}: ours wrote none (LiteRT has {count})"
        a, b = np.load(mine), np.load(ref)
        if a.dtype != b.dtype or a.size != b.size:
            return f"output {i}: ours {a.dtype}{list(a.shape)}, LiteRT {b.dtype}{list(b.shape)}"
        if rows is not None and b.ndim >= 2:  # ours carries a leading sample axis
            a, b = a.reshape(b.shape)[:, :rows], b[:, :rows]
        if not same_bits(a, b):
            bad = int(np.sum(a.reshape(-1) != b.reshape(-1)))
            return f"output {i}: {bad} of {a.size} elements differ"
    extra = ours_dir / f"output_{count}.npy"
    if extra.exists():
        return f"ours wrote more outputs than LiteRT's {count}"
    return None


_NUMBER = re.compile(r"-?\d+(\.\d+)?([eE][-+]?\d+)?")
_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"|`[^`]*`")


def message_class(message: str, path: str | None = None) -> str:
    """A message with its file path, names and numbers blanked: what groups refusals by cause."""
    if path:
        message = message.replace(path, "MODEL")
    message = re.sub(r"\S*/mutant\.tflite", "MODEL", message)
    message = re.sub(r"^error:\s*", "", message)
    message = _QUOTED.sub("'…'", message)
    message = _NUMBER.sub("N", message)
    message = re.sub(r"\s+", " ", message).strip()
    return message[:110]


def env_for_child() -> dict[str, str]:
    env = dict(os.environ)
    env.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    return env
