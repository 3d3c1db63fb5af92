#!/usr/bin/env python3
"""Fixtures for the hybrid FULLY_CONNECTED's TANH and SIGN_BIT fused activations (issue 22).

TF's converter never fuses these into FULLY_CONNECTED, and LiteRT's prepare refuses them outside
the hybrid kernel, whose `ApplyActivationToVector` applies them. The dynamic-range golden
`op_fc_hybrid_edges_none` is rewritten with each activation and run by LiteRT 2.3 BUILTIN_REF
on the golden's inputs (rows with ±inf, NaN, ±0, huge values) and on one seeded normal sample:

    tests/fixtures/fc_hybrid_functions/<tanh|sign_bit>/model.tflite, input_0.npy (samples),
    litert_output_0.npy (one output per sample)

Usage: python tests/tools/make_fc_hybrid_functions.py
"""

from __future__ import annotations

from pathlib import Path

import flatbuffers
import numpy as np
from ai_edge_litert import schema_py_generated as tfl
from ai_edge_litert.interpreter import Interpreter, OpResolverType

REPO = Path(__file__).resolve().parents[2]
SEED = REPO / "tests" / "golden" / "op_fc_hybrid_edges_none"
OUT = REPO / "tests" / "fixtures" / "fc_hybrid_functions"
FUNCTIONS = {"tanh": tfl.ActivationFunctionType.TANH, "sign_bit": tfl.ActivationFunctionType.SIGN_BIT}


def rewritten(activation: int) -> bytes:
    m = tfl.ModelT.InitFromPackedBuf(bytearray((SEED / "model_dynamic.tflite").read_bytes()), 0)
    fcs = [op for op in m.subgraphs[0].operators if m.operatorCodes[op.opcodeIndex].builtinCode == tfl.BuiltinOperator.FULLY_CONNECTED]
    assert len(fcs) == 1, "the seed holds one FULLY_CONNECTED"
    fcs[0].builtinOptions.fusedActivationFunction = activation
    b = flatbuffers.Builder(0)
    b.Finish(m.Pack(b), file_identifier=b"TFL3")
    return bytes(b.Output())


def main() -> None:
    golden = np.load(SEED / "input_0.npy")
    normal = (np.random.default_rng(22).standard_normal(golden.shape[1:]) * 2).astype(np.float32)
    samples = np.concatenate([golden, normal[None]])
    for name, activation in FUNCTIONS.items():
        model = rewritten(activation)
        it = Interpreter(model_content=model, experimental_op_resolver_type=OpResolverType.BUILTIN_REF)
        it.allocate_tensors()
        (i,), (o,) = it.get_input_details(), it.get_output_details()
        outs = []
        for x in samples:
            it.set_tensor(i["index"], x)
            it.invoke()
            outs.append(it.get_tensor(o["index"]).copy())
        d = OUT / name
        d.mkdir(parents=True, exist_ok=True)
        (d / "model.tflite").write_bytes(model)
        np.save(d / "input_0.npy", samples)
        np.save(d / "litert_output_0.npy", np.stack(outs))
        print(f"wrote {d}")


if __name__ == "__main__":
    main()
