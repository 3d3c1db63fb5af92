#!/usr/bin/env python3
"""Fixtures for int16 LOGISTIC / TANH whose input rescaling overflows int32 (issue 22, mutant 5541).

LiteRT's int16 LOGISTIC / TANH rescale the input as `(x · multiplier + round) >> shift` in int32.
An input scale far from the calibrated ones (a denormal one makes the multiplier 0, which the
kernel reads as "power of two" and turns into `3 << 31`; a large one makes the product overflow)
overflows that product: undefined behaviour in C++, which LiteRT's compiled kernel wraps. The
golden 16x8 models `op_tanh` and `op_logistic` are cut to their one int16 operator
(tests/tools/per_op.py), the operator's input scale is set to each value of SCALES, and LiteRT 2.3
BUILTIN_REF runs the int16 values of VALUES through it:

    tests/fixtures/int16_lut_overflow/<op>_<k>/model.tflite, input_0.npy (samples, int16),
    litert_output_0.npy (one output per sample)

Usage: python tests/tools/make_int16_lut_overflow.py
"""

from __future__ import annotations

import shutil
from pathlib import Path

import flatbuffers
import numpy as np
from ai_edge_litert import schema_py_generated as tfl
from ai_edge_litert.interpreter import Interpreter, OpResolverType

from per_op import OP_NAMES, code_of, single_op_model

REPO = Path(__file__).resolve().parents[2]
OUT = REPO / "tests" / "fixtures" / "int16_lut_overflow"
OPS = {"tanh": "op_tanh", "logistic": "op_logistic"}
# Denormal (the mutant's), tiny, and large enough that x · multiplier overflows int32.
SCALES = [9.2e-41, 1e-30, 8.0, 300.0]
# Both ends and the middle of the int16 range (odd and even values: a product that wraps depends
# on the parity), and 1,024 seeded values between.
VALUES = np.unique(
    np.concatenate(
        [
            np.arange(-32768, -32512),
            np.arange(-256, 256),
            np.arange(32512, 32768),
            np.random.default_rng(5541).integers(-32768, 32768, 1024),
        ]
    )
).astype(np.int16)


def one_op(case: str, scale: float) -> bytes:
    m = tfl.ModelT.InitFromPackedBuf(bytearray((REPO / "tests" / "golden" / case / "model_16x8.tflite").read_bytes()), 0)
    (index,) = [i for i in range(len(m.subgraphs[0].operators)) if OP_NAMES.get(code_of(m, i)) in ("TANH", "LOGISTIC")]
    cut = tfl.ModelT.InitFromPackedBuf(bytearray(single_op_model(m, index)), 0)
    sg = cut.subgraphs[0]
    t = sg.tensors[int(sg.operators[0].inputs[0])]
    assert t.type == tfl.TensorType.INT16
    t.quantization.scale = np.array([scale], dtype=np.float32)
    b = flatbuffers.Builder(0)
    b.Finish(cut.Pack(b), file_identifier=b"TFL3")
    return bytes(b.Output())


def main() -> None:
    shutil.rmtree(OUT, ignore_errors=True)
    for name, case in OPS.items():
        for k, scale in enumerate(SCALES):
            model = one_op(case, scale)
            it = Interpreter(model_content=model, experimental_op_resolver_type=OpResolverType.BUILTIN_REF)
            it.allocate_tensors()
            (i,), (o,) = it.get_input_details(), it.get_output_details()
            size = int(np.prod(i["shape"]))
            samples = np.resize(VALUES, (-(-VALUES.size // size)) * size).reshape(-1, *i["shape"])
            outs = []
            for x in samples:
                it.set_tensor(i["index"], x)
                it.invoke()
                outs.append(it.get_tensor(o["index"]).copy())
            d = OUT / f"{name}_{k}"
            d.mkdir(parents=True, exist_ok=True)
            (d / "model.tflite").write_bytes(model)
            np.save(d / "input_0.npy", samples)
            np.save(d / "litert_output_0.npy", np.stack(outs))
            print(f"wrote {d} (input scale {scale:g}, {samples.shape[0]} samples)")


if __name__ == "__main__":
    main()
