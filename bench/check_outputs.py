#!/usr/bin/env python3
"""Cross-check of the benchmark's outputs against LiteRT's own Python interpreter (run by
scripts/bench.mjs when a Python with ai-edge-litert is available; the venv of `npm test`,
target/py-check, has it).

For every benchmarked model it feeds the exact input bytes the browser runtimes got
(target/bench/dist/inputs/<id>.bin) to LiteRT 2.3 with the reference kernels (BUILTIN_REF) and
with the default XNNPACK delegate (AUTO), single-threaded, and prints, as JSON on stdout, the
largest element difference between each browser runtime's output and each of those two
(float outputs in float units, integer outputs in LSB).

    python bench/check_outputs.py target/bench/results.json
"""

from __future__ import annotations

import base64
import json
import sys
from pathlib import Path

import numpy as np
from ai_edge_litert.interpreter import Interpreter, OpResolverType

ROOT = Path(__file__).resolve().parent.parent
RESOLVERS = {"litert_ref": OpResolverType.BUILTIN_REF, "litert_xnnpack": OpResolverType.AUTO}
DTYPES = {"float32": np.float32, "int8": np.int8, "uint8": np.uint8, "int32": np.int32}


def litert_outputs(model: Path, raw: bytes, resolver: OpResolverType) -> list[np.ndarray]:
    it = Interpreter(model_path=str(model), experimental_op_resolver_type=resolver, num_threads=1)
    it.allocate_tensors()
    d = it.get_input_details()[0]
    it.set_tensor(d["index"], np.frombuffer(raw, dtype=d["dtype"]).reshape(d["shape"]))
    it.invoke()
    return [it.get_tensor(o["index"]).astype(np.float64).ravel() for o in it.get_output_details()]


def main() -> int:
    results = json.loads(Path(sys.argv[1]).read_text())
    report: dict[str, dict[str, dict[str, float | None]]] = {}
    for model in results["models"]:
        raw = (ROOT / "target" / "bench" / "dist" / "inputs" / f"{model['id']}.bin").read_bytes()
        expected = {k: litert_outputs(ROOT / model["file"], raw, r) for k, r in RESOLVERS.items()}
        per_runtime: dict[str, dict[str, float | None]] = {}
        for entry in results["results"]:
            if entry["model"] != model["id"] or not entry["result"]["ok"]:
                continue
            got = [
                np.frombuffer(base64.b64decode(o["base64"]), dtype=DTYPES[o["dtype"]]).astype(np.float64)
                for o in entry["result"]["outputs"]
            ]
            per_runtime[entry["runtime"]] = {
                k: (
                    max(float(np.abs(g - e).max()) for g, e in zip(got, exp))
                    if len(got) == len(exp) and all(g.shape == e.shape for g, e in zip(got, exp))
                    else None
                )
                for k, exp in expected.items()
            }
        report[model["id"]] = per_runtime
    json.dump(report, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
