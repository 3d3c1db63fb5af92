#!/usr/bin/env python3
"""Fixture for two integer LSTMs sharing their state tensors (issue 22).

The hand-built goldens `op_*_shared_state` (goldens/op_cases_bidi.py) cover the float and hybrid
kernels; TF's quantizer writes the integer LSTM only from a tf_keras model, so this edits TF's
int8 conversion of realworld `lstm_fused` the same way (its edge copy, `model_int8_edge.tflite`,
whose LSTMs do not saturate: in TF's own int8 file every LSTM output is 127) (`share_state`: a copy of its first
UNIDIRECTIONAL_SEQUENCE_LSTM runs right after it on the same input, with the same weights,
intermediates and state tensors, and writes a second graph output) and runs it in LiteRT 2.3
BUILTIN_REF on the case's samples, one after the other on one interpreter (the states carry
over from operator to operator and from sample to sample):

    tests/fixtures/shared_state_int8/model.tflite, input_0.npy (samples),
    litert_output_<k>.npy (samples stacked first)

Usage: python tests/tools/make_shared_state_int8.py
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from ai_edge_litert.interpreter import Interpreter, OpResolverType

from goldens.op_cases_bidi import share_state

REPO = Path(__file__).resolve().parents[2]
SEED = REPO / "tests" / "realworld" / "lstm_fused"
OUT = REPO / "tests" / "fixtures" / "shared_state_int8"


def main() -> None:
    blob = share_state(lambda b: b)((SEED / "model_int8_edge.tflite").read_bytes())
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "model.tflite").write_bytes(blob)
    x = np.load(SEED / "input_0.npy")
    np.save(OUT / "input_0.npy", x)
    it = Interpreter(model_content=blob, experimental_op_resolver_type=OpResolverType.BUILTIN_REF)
    it.allocate_tensors()
    (inp,) = it.get_input_details()
    outs = it.get_output_details()
    got: list[list[np.ndarray]] = [[] for _ in outs]
    for s in range(x.shape[0]):
        it.set_tensor(inp["index"], x[s].astype(inp["dtype"]).reshape(inp["shape"]))
        it.invoke()
        for k, o in enumerate(outs):
            got[k].append(it.get_tensor(o["index"]).copy())
    for k, ys in enumerate(got):
        np.save(OUT / f"litert_output_{k}.npy", np.stack(ys))
    print(f"wrote {OUT}: {len(outs)} outputs over {x.shape[0]} samples")


if __name__ == "__main__":
    main()
