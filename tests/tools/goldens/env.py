"""Determinism and quietness knobs that must be in place before TF is imported, and quiet().

make_goldens.py calls apply_env() before it imports anything else of the package;
goldens.frameworks calls it again (a no-op then) before importing TF, so no import order brings
TF in without these settings. Standard library only: importing this module does not import TF.
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
import warnings

# Determinism / quietness knobs that must be in place before Python and TF start
# (hash seed affects set/dict iteration order inside TF's Python code).
_ENV = {
    "PYTHONHASHSEED": "0",
    "TF_CPP_MIN_LOG_LEVEL": "3",
    "TF_ENABLE_ONEDNN_OPTS": "0",
    "TF_DETERMINISTIC_OPS": "1",
    "CUDA_VISIBLE_DEVICES": "",
    "OMP_NUM_THREADS": "1",
    "KERAS_BACKEND": "tensorflow",
}


def apply_env(script: str | None) -> None:
    """script: the entry point when it runs as __main__, else None (imported, or a spawned worker,
    which inherits the environment). The hash seed only takes effect when Python starts, so a
    script started without the knobs re-executes itself with them."""
    if script is not None and any(os.environ.get(k) != v for k, v in _ENV.items()):
        _env = dict(os.environ)
        _env.update(_ENV)
        os.execve(sys.executable, [sys.executable, os.path.abspath(script), *sys.argv[1:]], _env)
    os.environ.update({k: v for k, v in _ENV.items() if k != "PYTHONHASHSEED"})  # when imported


@contextlib.contextmanager
def quiet(replay: bool = True):
    """Silence stdout/stderr at the fd level (TF C++ logs, Keras export prints,
    converter warnings). On error the captured log is replayed to stderr (unless
    replay is false: the caller reports the error itself)."""
    sys.stdout.flush()
    sys.stderr.flush()
    with tempfile.TemporaryFile() as log:
        saved = os.dup(1), os.dup(2)
        os.dup2(log.fileno(), 1)
        os.dup2(log.fileno(), 2)
        ok = False
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                yield
            ok = True
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            os.close(saved[0])
            os.close(saved[1])
            if not ok and replay:
                log.seek(0)
                sys.stderr.write(log.read().decode(errors="replace")[-20000:])
