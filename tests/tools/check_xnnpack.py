#!/usr/bin/env python3
"""Our engine's `--arithmetic xnnpack` against LiteRT's default interpreter on random inputs.

The goldens hold a few samples per case (tests/rust/xnnpack_goldens.rs compares them); this
script draws many more. For every golden case's `int8` model (int8 I/O) and `int8_floatio`
model (QUANTIZE / DEQUANTIZE at the edges), except those holding an operator in NOT_YET (listed
as not compared, with the operator), it

  * loads the model in LiteRT with `OpResolverType.AUTO` (the default: XNNPACK delegate, one
    thread) and names the operators the delegate left to LiteRT's own (optimized) kernels (the
    nodes each DELEGATE node replaced are found by walking back from its outputs to its inputs);
  * runs `--samples` random inputs (seeded by the model's path under tests/golden, so every
    checkout draws the same), one invocation each, with AUTO and with
    the case's reference resolver (BUILTIN_REF, golden_resolver.py): int8 inputs uniform over
    -128..127 (and, for a model with two int8 inputs of one shape, as many more samples as put
    every pair of int8 values side by side); float inputs `(q + f) · scale` in the first
    QUANTIZE's units, `q` uniform over -140..140 and `f` 0.5 for half of them (ties, where
    XNNPACK rounds to even and the reference away from zero), else uniform in [0, 1); any other
    input (indices, an unquantized float input) the case's golden samples, repeated;
  * runs our CLI (`--zeropoint BIN`: `BIN run --arithmetic xnnpack`, with `--kernels reference`
    and `--kernels fast`) on the same inputs, and requires both to equal AUTO bit for bit.

It prints one line per model (elements, and how many of them the reference resolver gets
differently: the elements that tell the arithmetics apart), then `N passed, M failed`; exit
status 1 on any failure or when no model was checked.

Usage:
    python tests/tools/check_xnnpack.py --zeropoint target/debug/zeropoint [--samples 200]
        [--only PART[,PART…]]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import tomllib
import zlib
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402

import case_filter  # noqa: E402
from golden_resolver import resolver_name  # noqa: E402

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
TOTALS = [0, 0]  # elements compared, of which BUILTIN_REF differs (models that passed)
VARIANTS = ("int8", "int8_floatio")
# Operators whose `--arithmetic xnnpack` result is not yet LiteRT AUTO's: a model holding one is
# listed as not compared (with the operator), never counted as passed.
NOT_YET: set[str] = set()


def interpreter(model: Path, resolver: str):
    from ai_edge_litert.interpreter import Interpreter, OpResolverType

    it = Interpreter(
        model_path=str(model),
        experimental_op_resolver_type=getattr(OpResolverType, resolver),
        num_threads=1,
    )
    it.allocate_tensors()
    return it


def undelegated(it) -> list[str]:
    """The operators of the model LiteRT still runs itself (not inside a DELEGATE node)."""
    ops = it._get_ops_details()
    by_index = {o["index"]: o for o in ops}
    nodes = [o for o in ops if o["op_name"] != "DELEGATE"]
    producer = {int(t): o["index"] for o in nodes for t in o["outputs"]}
    taken: set[int] = set()
    for d in (o for o in ops if o["op_name"] == "DELEGATE"):
        boundary = {int(t) for t in d["inputs"]}
        stack = [int(t) for t in d["outputs"]]
        while stack:
            t = stack.pop()
            if t in boundary or t not in producer or producer[t] in taken:
                continue
            taken.add(producer[t])
            stack += [int(x) for x in by_index[producer[t]]["inputs"] if x >= 0]
    return [o["op_name"] for o in nodes if o["index"] not in taken]


def litert_run(model: Path, resolver: str, inputs: list[np.ndarray]) -> list[np.ndarray]:
    it = interpreter(model, resolver)
    ins, outs = it.get_input_details(), it.get_output_details()
    res: list[list[np.ndarray]] = [[] for _ in outs]
    for s in range(inputs[0].shape[0]):
        for d, a in zip(ins, inputs):
            it.set_tensor(d["index"], a[s])
        it.invoke()
        for k, d in enumerate(outs):
            res[k].append(it.get_tensor(d["index"]).copy())
    return [np.stack(r) for r in res]


def ours(zeropoint: Path, model: Path, files: list[Path], kernels: str, n_out: int) -> list[np.ndarray]:
    with tempfile.TemporaryDirectory() as out:
        cmd = [str(zeropoint), "run", str(model), "--out-dir", out, "--arithmetic", "xnnpack", "--kernels", kernels]
        for f in files:
            cmd += ["--input", str(f)]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError(f"zeropoint run failed: {r.stderr.strip()}")
        return [np.load(Path(out) / f"output_{k}.npy") for k in range(n_out)]


def all_pairs(shape: tuple[int, ...]) -> list[np.ndarray]:
    """Samples for a model with two int8 inputs of one shape that put every (a, b) pair of int8
    values (65,536) at some element: the rare pairs where the two arithmetics of ADD / SUB round
    differently are not left to chance."""
    a, b = np.meshgrid(np.arange(-128, 128), np.arange(-128, 128), indexing="ij")
    size = int(np.prod(shape))
    n = -(-a.size // size)
    flat = [np.resize(v.ravel().astype(np.int8), n * size) for v in (a, b)]
    return [f.reshape(n, *shape) for f in flat]


def check(case: str, model: Path, zeropoint: Path, samples: int, golden_inputs: list[Path]) -> str:
    left = undelegated(interpreter(model, "AUTO"))
    # Seeded by the path inside tests/golden (not the absolute one): the same inputs in every checkout.
    rng = np.random.default_rng(zlib.crc32(str(model.relative_to(GOLDEN)).encode()))
    it = interpreter(model, "AUTO")
    inputs = []
    for d, golden in zip(it.get_input_details(), golden_inputs):
        size = (samples, *d["shape"])
        readers = [o for o in it._get_ops_details() if d["index"] in o["inputs"] and o["op_name"] == "QUANTIZE"]
        if d["dtype"] not in (np.int8, np.float32) or (d["dtype"] == np.float32 and not readers):
            # Indices, shapes, an unquantized float input: the golden samples, repeated.
            g = np.load(golden)
            inputs.append(np.resize(g, (samples, *g.shape[1:])).astype(g.dtype))
            continue
        if d["dtype"] == np.int8:
            inputs.append(rng.integers(-128, 128, size=size, dtype=np.int8))
            continue
        tensors = {t["index"]: t for t in it.get_tensor_details()}
        scale, zp = tensors[int(readers[0]["outputs"][0])]["quantization"]
        q = rng.integers(-140, 141, size=size).astype(np.float32) - np.float32(zp)
        f = np.where(rng.random(size) < 0.5, np.float32(0.5), rng.random(size).astype(np.float32))
        inputs.append(((q + f) * np.float32(scale)).astype(np.float32))
    details = it.get_input_details()
    if len(details) == 2 and all(d["dtype"] == np.int8 for d in details) and list(details[0]["shape"]) == list(details[1]["shape"]):
        inputs = [np.concatenate([x, p]) for x, p in zip(inputs, all_pairs(tuple(details[0]["shape"])))]
    auto = litert_run(model, "AUTO", inputs)
    ref = litert_run(model, resolver_name(model.parent), inputs)
    with tempfile.TemporaryDirectory() as tmp:
        files = []
        for k, a in enumerate(inputs):
            files.append(Path(tmp) / f"input_{k}.npy")
            np.save(files[-1], a)
        for kernels in ("reference", "fast"):
            got = ours(zeropoint, model, files, kernels, len(auto))
            for k, (g, e) in enumerate(zip(got, auto)):
                if g.dtype != e.dtype or g.shape != e.shape or g.tobytes() != e.tobytes():
                    n = int(np.count_nonzero(g != e)) if g.shape == e.shape else -1
                    raise RuntimeError(f"--kernels {kernels}: output {k}: {n} of {e.size} elements differ from AUTO")
    total = sum(a.size for a in auto)
    differ = sum(int(np.count_nonzero(a != r)) for a, r in zip(auto, ref))
    TOTALS[0] += total
    TOTALS[1] += differ
    own = f"; LiteRT runs {', '.join(sorted(set(left)))} itself" if left else ""
    return f"{total} elements equal AUTO (BUILTIN_REF differs on {differ}){own}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--zeropoint", type=Path, required=True, help="our CLI")
    ap.add_argument("--samples", type=int, default=200)
    case_filter.add_argument(ap)
    args = ap.parse_args()
    cases = []
    not_yet: dict[str, list[str]] = {}
    for toml in sorted(GOLDEN.glob("*/case.toml")):
        meta = tomllib.loads(toml.read_text())
        for v in meta.get("variant", []):
            if v["name"] not in VARIANTS:
                continue
            name = f"{meta['name']}/{v['name']}"
            left = sorted(set(v["ops"]) & NOT_YET)
            if left:
                not_yet.setdefault(", ".join(left), []).append(name)
                continue
            cases.append((name, toml.parent / v["model"], [toml.parent / f for f in v["inputs"]]))
    cases = case_filter.select(cases, lambda c: c[0].split("/")[0], args.only, "int8 golden models")
    if not cases:
        return 1
    for ops, names in sorted(not_yet.items()):
        print(f"not compared ({ops} not yet XNNPACK-exact): {len(names)} model(s): {', '.join(names)}")
    passed = failed = 0
    for name, model, golden_inputs in cases:
        try:
            print(f"{name}: {check(name, model, args.zeropoint, args.samples, golden_inputs)}")
            passed += 1
        except Exception as e:  # noqa: BLE001 - reported per model
            print(f"{name}: FAILED: {e}")
            failed += 1
    print(f"{passed} passed, {failed} failed; {TOTALS[0]} elements equal AUTO, BUILTIN_REF differs on {TOTALS[1]}")
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    sys.exit(main())
