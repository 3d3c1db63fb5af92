"""LiteRT's side of the mutation harness, in its own process (a crash or a hang in LiteRT must not
take the harness with it): reads one JSON request per line on stdin, answers one JSON line.

Requests:
  {"op": "run", "model": PATH, "seed": N, "in_dir": DIR, "out_dir": DIR}
      load with BUILTIN_REF, allocate, write seeded inputs as DIR/input_<i>.npy (before invoking,
      so the harness has them even if LiteRT then dies), invoke, write output_<i>.npy.
      → {"status": "ran", "outputs": K} or {"status": "refused", "stage": "load"|"allocate"|
        "inputs"|"invoke", "error": "..."}
  {"op": "load", "model": PATH, "floats": [NPY, ...]}  → whether LiteRT (its default resolver)
      loads, allocates and runs seeded inputs through it; an integer input with quantization
      parameters gets the float sample of the same size in "floats" (one sample, with a leading
      axis of 1, as ours reads it) quantized with them instead.
  {"op": "run_per_op", "model": PATH, "in_dir": DIR, "out_dir": DIR}
      the model run operator by operator (tests/tools/per_op.py: BUILTIN_REF, but the operators
      it computes wrongly on the optimized resolver) on the inputs a "run" wrote to DIR.

Memory is capped (RLIMIT_AS) so an absurd allocation fails instead of taking the machine.
"""

from __future__ import annotations

import json
import os
import resource
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402
from ai_edge_litert.interpreter import Interpreter, OpResolverType  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import per_op  # noqa: E402

RESOLVERS = {"reference": OpResolverType.BUILTIN_REF, "optimized": OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES}

MAX_ELEMENTS = 1 << 22


def inputs_for(details: list[dict], seed: int) -> list[np.ndarray]:
    """Seeded inputs of the declared shapes and types (small integers for integer inputs, so
    index-like inputs stay mostly in range)."""
    rng = np.random.default_rng(seed)
    out = []
    for d in details:
        shape = [int(x) for x in d["shape"]]
        if any(x < 0 for x in shape) or int(np.prod(shape, dtype=np.int64)) > MAX_ELEMENTS:
            raise ValueError(f"input shape {shape} is too large or negative to feed")
        dtype = np.dtype(d["dtype"])
        if dtype.kind == "f":
            out.append(rng.standard_normal(shape).astype(dtype))
        elif dtype.kind == "b":
            out.append(rng.integers(0, 2, shape).astype(dtype))
        elif dtype.kind in "iu":
            info = np.iinfo(dtype)
            lo, hi = (max(info.min, -3), min(info.max, 4)) if dtype.itemsize >= 4 else (info.min, info.max + 1)
            out.append(rng.integers(lo, hi, shape).astype(dtype))
        else:
            raise ValueError(f"input type {dtype} is not fed by the harness")
    return out


def quantized_sample(detail: dict, seeded: np.ndarray, floats: str | None) -> np.ndarray:
    """`seeded`, or for an integer input with a scale the float sample in `floats` (same element
    count) quantized as LiteRT's QUANTIZE does (round half away from zero, clamped)."""
    dtype = np.dtype(detail["dtype"])
    scale, zero_point = detail["quantization"]
    if floats is None or dtype.kind not in "iu" or not scale > 0:
        return seeded
    x = np.load(floats).astype(np.float32)
    if x.size != seeded.size:
        return seeded
    q = x / np.float32(scale)
    q = np.sign(q) * np.floor(np.abs(q) + 0.5) + zero_point
    info = np.iinfo(dtype)
    return np.clip(np.nan_to_num(q, nan=0.0), info.min, info.max).astype(dtype).reshape(seeded.shape)


def interpreter(blob: bytes, resolver: str) -> Interpreter:
    it = Interpreter(model_content=blob, experimental_op_resolver_type=RESOLVERS[resolver], num_threads=1)
    it.allocate_tensors()
    return it


def run_per_op(req: dict) -> dict:
    """The "run_per_op" request: the reference outputs of a model holding an operator BUILTIN_REF
    computes wrongly (golden_resolver.REFERENCE_DEFECTS), as the goldens define them."""
    try:
        with open(req["model"], "rb") as f:
            m, parts = per_op.pieces(f.read(), interpreter)
        sg = m.subgraphs[0]
        inputs = [np.load(os.path.join(req["in_dir"], f"input_{i}.npy")) for i in range(len(sg.inputs))]
        values = {int(t): x for t, x in zip(sg.inputs, inputs)}
        for _ in per_op.run_sample(parts, values):
            pass
        for i, t in enumerate(sg.outputs):
            np.save(os.path.join(req["out_dir"], f"output_{i}.npy"), values[int(t)])
        return {"status": "ran", "outputs": len(sg.outputs)}
    except Exception as e:  # noqa: BLE001 — every refusal is an answer
        return {"status": "refused", "stage": "per-op", "error": f"{type(e).__name__}: {e}"[:500]}


def handle(req: dict) -> dict:
    if req["op"] == "run_per_op":
        return run_per_op(req)
    stage = "load"
    try:
        # "run" compares with the reference kernels; "load" asks whether LiteRT as users run it
        # (its default resolver, which registers newer op versions than BUILTIN_REF) takes it.
        runs = req["op"] == "run"
        resolver = OpResolverType.BUILTIN_REF if runs else OpResolverType.AUTO
        it = Interpreter(model_path=req["model"], experimental_op_resolver_type=resolver)
        stage = "allocate"
        it.allocate_tensors()
        stage = "inputs"
        details = it.get_input_details()
        inputs = inputs_for(details, int(req.get("seed", 0)))
        if not runs:
            inputs = [quantized_sample(d, x, f) for d, x, f in zip(details, inputs, req.get("floats", []) + [None] * len(inputs))]
        if runs:
            for i, x in enumerate(inputs):
                np.save(os.path.join(req["in_dir"], f"input_{i}.npy"), x)
        for d, x in zip(details, inputs):
            it.set_tensor(d["index"], x)
        stage = "invoke"
        it.invoke()
        outs = [it.get_tensor(d["index"]) for d in it.get_output_details()]
        if runs:
            for i, y in enumerate(outs):
                np.save(os.path.join(req["out_dir"], f"output_{i}.npy"), y)
        return {"status": "ran", "outputs": len(outs), "inputs": len(inputs)}
    except Exception as e:  # noqa: BLE001 — every refusal is an answer
        return {"status": "refused", "stage": stage, "error": f"{type(e).__name__}: {e}"[:500]}


def main() -> None:
    limit = int(os.environ.get("ZP_MUTATE_LITERT_MB", "3072")) << 20
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    for line in sys.stdin:
        reply = handle(json.loads(line))
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
