"""LiteRT's side of the mutation harness, in its own process (a crash or a hang in LiteRT must not
take the harness with it): reads one JSON request per line on stdin, answers one JSON line.

Requests:
  {"op": "run", "model": PATH, "seed": N, "in_dir": DIR, "out_dir": DIR}
      load with BUILTIN_REF, allocate, write seeded inputs as DIR/input_<i>.npy (before invoking,
      so the harness has them even if LiteRT then dies), invoke, write output_<i>.npy.
      → {"status": "ran", "outputs": K} or {"status": "refused", "stage": "load"|"allocate"|
        "inputs"|"invoke", "error": "..."}
  {"op": "load", "model": PATH}  → whether LiteRT (its default resolver) loads, allocates and
      runs seeded inputs through it.

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


def handle(req: dict) -> dict:
    stage = "load"
    try:
        # "run" compares with the reference kernels; "load" asks whether LiteRT as users run it
        # (its default resolver, which registers newer op versions than BUILTIN_REF) takes it.
        # "run_optimized": the reference run again on BUILTIN_WITHOUT_DEFAULT_DELEGATES, for models
        # holding an operator BUILTIN_REF computes wrongly (REFERENCE_DEFECTS in mutate.py).
        resolver = {
            "run": OpResolverType.BUILTIN_REF,
            "run_optimized": OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES,
        }.get(req["op"], OpResolverType.AUTO)
        runs = req["op"] in ("run", "run_optimized")
        it = Interpreter(model_path=req["model"], experimental_op_resolver_type=resolver)
        stage = "allocate"
        it.allocate_tensors()
        stage = "inputs"
        details = it.get_input_details()
        inputs = inputs_for(details, int(req.get("seed", 0)))
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
