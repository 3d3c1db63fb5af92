"""tests/zoo/results.json (one entry per architecture, merged: a run with --only replaces only
the architectures it ran, in ARCHS order) and the small architectures committed as test cases
under tests/zoo/<arch>/ (float model < 300 KB): TF's models, the held-out inputs and LiteRT's
BUILTIN_REF outputs (the first COMMIT_SAMPLES held-out samples), which tests/rust/zoo.rs checks
our engine against on every `cargo test`."""

from __future__ import annotations

import json
import shutil
from importlib.metadata import version as pkg_version
from pathlib import Path

import numpy as np

from goldens.frameworks import keras, tf
from goldens.writer import REPO, save_npy

from .archs import ARCHS, Arch
from .convert import ZOO_VARIANTS
from .data import N_CALIB, N_HELDOUT

ZOO = REPO / "tests" / "zoo"
RESULTS = ZOO / "results.json"
COMMIT_MAX_BYTES = 300 * 1024  # float model size up to which an architecture is committed
COMMIT_SAMPLES = 2  # held-out samples (inputs and LiteRT outputs) committed per architecture


def load() -> dict:
    return json.loads(RESULTS.read_text()) if RESULTS.is_file() else {}


def entry(arch: Arch, meta: dict, measured: dict, committed: bool) -> dict:
    fv = meta["variants"].get("float", {})
    return {
        "description": arch.description,
        "seed": arch.seed,
        "params": meta["params"],
        "float_bytes": fv.get("bytes"),
        "ops": fv.get("op_counts", {}),
        "tf_convert_seconds": {v: m.get("convert_seconds") for v, m in meta["variants"].items()},
        "committed": committed,
        **measured,
    }


def crashed(arch: Arch, code: int, stderr_tail: str) -> dict:
    """The entry of an architecture whose run ended its process (TF's converter or LiteRT
    aborting): what is known, and how it ended."""
    return {
        "description": arch.description,
        "seed": arch.seed,
        "committed": False,
        "crashed": f"exit {code}: {stderr_tail}",
        "variants": {},
        "ours_int8": {},
    }


def commit_case(arch: Arch, cache: Path, meta: dict) -> bool:
    """Copies a small architecture's models, inputs and LiteRT outputs to tests/zoo/<arch>/
    (removing the folder of one that is no longer small). Returns whether it is committed."""
    out = ZOO / arch.name
    if out.exists():
        shutil.rmtree(out)
    fv = meta["variants"].get("float", {})
    if not fv.get("bytes") or fv["bytes"] >= COMMIT_MAX_BYTES:
        return False
    out.mkdir(parents=True)

    def copy(name: str, dst: str) -> None:
        save_npy(out / dst, np.load(cache / name)[:COMMIT_SAMPLES])

    copy("heldout.npy", "input_0.npy")
    for vname in ZOO_VARIANTS:
        vm = meta["variants"].get(vname, {})
        if "error" in vm or "litert_error" in vm:
            continue
        shutil.copy(cache / f"model_{vname}.tflite", out / f"model_{vname}.tflite")
        if (cache / f"input_{vname}_0.npy").is_file():
            copy(f"input_{vname}_0.npy", f"input_{vname}_0.npy")
        for k in range(vm["outputs"]):
            copy(f"expected_{vname}_output_{k}.npy", f"expected_{vname}_output_{k}.npy")
    return True


def write(results: dict, zeropoint_version: str) -> None:
    archs = results.get("archs", {})
    doc = {
        "generator": "tests/tools/make_zoo.py",
        "versions": {
            "tensorflow": tf.__version__,
            "keras": keras.__version__,
            "ai_edge_litert": pkg_version("ai-edge-litert"),
            "zeropoint": zeropoint_version,
        },
        "calibration_samples": N_CALIB,
        "heldout_samples": N_HELDOUT,
        "order": [name for name in ARCHS if name in archs],  # JSON readers may sort the keys below
        "archs": {name: archs[name] for name in ARCHS if name in archs},
    }
    ZOO.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(doc, indent=1, sort_keys=False) + "\n")
