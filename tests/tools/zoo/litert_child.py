"""One LiteRT run in its own process (`python zoo/litert_child.py MODEL INPUT.npy RESOLVER OUT_DIR`):
LiteRT can abort the whole process (its reference SOFTMAX Prepare does on a huge input scale,
as untrained nets have), so the zoo never runs it in its own. Imports only numpy and LiteRT.
Writes OUT_DIR/output_<k>.npy (samples stacked on the first axis); on a LiteRT error prints
its first line to stderr and exits 2."""

from __future__ import annotations

import os
import sys

import numpy as np
from ai_edge_litert.interpreter import Interpreter, OpResolverType

RESOLVERS = {
    "reference": OpResolverType.BUILTIN_REF,
    "optimized": OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES,
}


def main() -> int:
    model, inp, resolver, out = sys.argv[1:5]
    x = np.load(inp)
    try:
        it = Interpreter(model_path=model, experimental_op_resolver_type=RESOLVERS[resolver], num_threads=1)
        it.allocate_tensors()
        (d,) = it.get_input_details()
        outs = it.get_output_details()
        res: list[list[np.ndarray]] = [[] for _ in outs]
        for i in range(x.shape[0]):
            it.set_tensor(d["index"], x[i])
            it.invoke()
            for k, o in enumerate(outs):
                res[k].append(it.get_tensor(o["index"]).copy())
    except Exception as e:  # noqa: BLE001 - reported to the parent
        lines = [ln.strip() for ln in str(e).splitlines() if ln.strip()]
        print(lines[0] if lines else type(e).__name__, file=sys.stderr)
        return 2
    for k, r in enumerate(res):
        np.save(os.path.join(out, f"output_{k}.npy"), np.stack(r))
    return 0


if __name__ == "__main__":
    sys.exit(main())
