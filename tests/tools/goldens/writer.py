"""Output writing: where files go (REPO, GOLDEN), TOML values and keys, .npy bytes, CaseWriter
(one case folder, identical arrays stored once), and tests/golden/manifest.json."""

from __future__ import annotations

import hashlib
import json
import platform
import re
from importlib.metadata import version as pkg_version
from pathlib import Path
from typing import Any

import numpy as np

from .frameworks import keras, tf
from .registry import CASES
from .variants import RESOLVERS

TOOLS = Path(__file__).resolve().parent.parent  # tests/tools
REPO = TOOLS.parent.parent
GOLDEN = REPO / "tests" / "golden"


def toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float) and v != v:
        return "nan"
    if isinstance(v, float) and v in (float("inf"), float("-inf")):
        return "inf" if v > 0 else "-inf"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{toml_key(k)} = {toml_value(x)}" for k, x in v.items()) + " }"
    raise TypeError(type(v))


def toml_key(k: str) -> str:
    return k if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_-]*", k) else json.dumps(k)


def save_npy(path: Path, arr: np.ndarray) -> None:
    with open(path, "wb") as f:
        np.save(f, np.ascontiguousarray(arr), allow_pickle=False)


def npy_bytes(arr: np.ndarray) -> bytes:
    import io

    buf = io.BytesIO()
    np.save(buf, np.ascontiguousarray(arr), allow_pickle=False)
    return buf.getvalue()


def sha256_file(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


class CaseWriter:
    """Writes one case folder; files that would be byte-identical to one already written
    (intermediates shared by the int8 and int8_floatio variants) are referenced, not copied."""

    def __init__(self, out: Path):
        self.out = out
        self.by_hash: dict[str, str] = {}

    def npy(self, rel: str, arr: np.ndarray, dedupe: bool = False) -> str:
        data = npy_bytes(arr)
        h = hashlib.sha256(data).hexdigest()
        if dedupe and h in self.by_hash:
            return self.by_hash[h]
        path = self.out / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        self.by_hash.setdefault(h, rel)
        return rel


def write_manifest() -> None:
    files = []
    for p in sorted(GOLDEN.rglob("*")):
        if p.is_file() and p.name != "manifest.json":
            files.append(p)
    for spec in CASES.values():
        for rel in spec.copies.values():
            files.append(REPO / rel)
    versions = {
        "tensorflow": tf.__version__,
        "keras": keras.__version__,
        "ai_edge_litert": pkg_version("ai-edge-litert"),
        "numpy": np.__version__,
        "python": platform.python_version(),
    }
    # Cases whose expected outputs come from another resolver than BUILTIN_REF (an op it lacks).
    resolvers = {
        name: RESOLVERS[spec.resolver].name
        for name, spec in CASES.items()
        if spec.resolver != "reference" and (GOLDEN / name / "case.toml").is_file()
    }
    entries = [
        json.dumps({"path": p.relative_to(REPO).as_posix(), "size": p.stat().st_size, "sha256": sha256_file(p)})
        for p in files
    ]
    text = (
        "{\n"
        f'  "generator": "tests/tools/make_goldens.py",\n'
        f'  "versions": {json.dumps(versions)},\n'
        f'  "expected_resolvers": {json.dumps(resolvers, sort_keys=True)},\n'
        f'  "total_size": {sum(p.stat().st_size for p in files)},\n'
        '  "files": [\n    ' + ",\n    ".join(entries) + "\n  ]\n}\n"
    )
    (GOLDEN / "manifest.json").write_text(text)
