"""Standalone activations in a converted float model, and TF's quantizer run on a .tflite file.

TF's converter fuses a RELU / RELU6 / RELU_N1_TO_1 that follows ADD, CONV_2D, ... into the op
while converting, so a Keras model never yields the standalone activations that real shipped
models (MediaPipe's BlazeFace) have. insert_activation() edits a converted float flatbuffer with
the schema's object API: the producer keeps its output tensor, a new activation op reads it and
writes a new tensor that the chosen consumers (and graph outputs) read instead.

tf_quantize() quantizes such a float .tflite the way TFLiteConverter does after conversion
(lite.py `_quantize`): add_intermediate_tensors, Calibrator.calibrate with the samples, then the
MLIR quantizer (`mlir_quantize`) for int8, the legacy C++ quantizer
(`calibrate_and_quantize`, what the converter runs for int16 activations) for 16x8; the
calibrated-only model is the calibrate() result."""

from __future__ import annotations

from typing import Callable, Iterable

import flatbuffers
import numpy as np

from .env import quiet
from .frameworks import tf, tfl_schema

ACTIVATIONS = {"RELU": "RELU", "RELU6": "RELU6", "RELU_N1_TO_1": "RELU_N1_TO_1"}


def _opcode_index(m, code: int) -> int:
    for i, oc in enumerate(m.operatorCodes):
        if max(oc.builtinCode, oc.deprecatedBuiltinCode) == code:
            return i
    oc = tfl_schema.OperatorCodeT()
    oc.builtinCode = code
    oc.deprecatedBuiltinCode = min(code, 127)
    oc.version = 1
    m.operatorCodes.append(oc)
    return len(m.operatorCodes) - 1


def insert_activation(
    model: bytes,
    op_index: int,
    act: str,
    name: str,
    *,
    keep_consumers: Iterable[int] = (),
    keep_output: bool = False,
    producer_name: str | None = None,
) -> bytes:
    """A standalone `act` op after operator `op_index` (subgraph 0) of a float model.

    Its output is a new tensor called `name`; every consumer of the producer's output 0 except
    the operators in `keep_consumers` reads it, and it replaces the producer's output among the
    graph outputs (keep_output: the producer's output stays the graph output); `producer_name` renames the producer's
    output (the converter names it after the TF graph node). The activation op is placed right after
    the producer, so operator indices after it shift by one."""
    m = tfl_schema.ModelT.InitFromPackedBuf(model, 0)
    sg = m.subgraphs[0]
    code = getattr(tfl_schema.BuiltinOperator, ACTIVATIONS[act])
    src = int(sg.operators[op_index].outputs[0])
    t = sg.tensors[src]
    if producer_name is not None:
        t.name = producer_name.encode()
    nt = tfl_schema.TensorT()
    nt.shape = None if t.shape is None else np.array(t.shape, dtype=np.int32)
    nt.shapeSignature = None if t.shapeSignature is None else np.array(t.shapeSignature, dtype=np.int32)
    nt.type = t.type
    nt.buffer = 0
    nt.name = name.encode()
    sg.tensors.append(nt)
    dst = len(sg.tensors) - 1
    keep = set(keep_consumers)
    for i, op in enumerate(sg.operators):
        if i == op_index or i in keep:
            continue
        op.inputs = np.array([dst if int(x) == src else int(x) for x in op.inputs], dtype=np.int32)
    outs = [int(x) for x in sg.outputs]
    if not keep_output:
        outs = [dst if x == src else x for x in outs]
        for sd in m.signatureDefs or []:
            for tm in sd.outputs or []:
                if tm.tensorIndex == src:
                    tm.tensorIndex = dst
    sg.outputs = np.array(outs, dtype=np.int32)
    new = tfl_schema.OperatorT()
    new.opcodeIndex = _opcode_index(m, code)
    new.inputs = np.array([src], dtype=np.int32)
    new.outputs = np.array([dst], dtype=np.int32)
    sg.operators.insert(op_index + 1, new)
    b = flatbuffers.Builder(0)
    b.Finish(m.Pack(b), file_identifier=b"TFL3")
    return bytes(b.Output())


def after(op: str, act: str, name: str, *, nth: int = 0, **kw) -> Callable[[bytes], bytes]:
    """A float_rewrite: insert_activation after the `nth` operator `op` (a builtin name) of
    subgraph 0; the producer's output is renamed `<op lowercase>_1` unless producer_name says."""

    def rewrite(model: bytes) -> bytes:
        m = tfl_schema.Model.GetRootAs(model, 0)
        sg = m.Subgraphs(0)
        code = getattr(tfl_schema.BuiltinOperator, op)
        found = []
        for i in range(sg.OperatorsLength()):
            oc = m.OperatorCodes(sg.Operators(i).OpcodeIndex())
            if max(oc.BuiltinCode(), oc.DeprecatedBuiltinCode()) == code:
                found.append(i)
        kw.setdefault("producer_name", f"{op.lower()}_1")
        return insert_activation(model, found[nth], act, name, **kw)

    return rewrite


def _dataset(calib: list[np.ndarray], names: list[str] | None):
    def gen():
        for i in range(calib[0].shape[0]):
            if len(calib) == 1:
                yield [calib[0][i]]
            else:
                yield {n: c[i] for n, c in zip(names, calib)}

    return gen


def tf_quantize(float_model: bytes, variant: str, calib: list[np.ndarray], names: list[str] | None = None) -> bytes:
    """TF 2.21's post-training quantization of a float .tflite: variant `int8`, `int8_floatio`,
    `16x8` or `calibrated` (the converter's settings of goldens.variants, run on the file)."""
    from tensorflow.lite.python import convert as tf_convert
    from tensorflow.lite.python.optimize import calibrator

    with quiet(replay=True):
        model = calibrator.add_intermediate_tensors(float_model)
        c = calibrator.Calibrator(model)
        if variant == "16x8":
            return bytes(
                c.calibrate_and_quantize(_dataset(calib, names), tf.float32, tf.float32, False, activations_type=tf.int16, bias_type=tf.int64)
            )
        calibrated = bytes(c.calibrate(_dataset(calib, names)))
        if variant == "calibrated":
            return calibrated
        io = {"int8": tf.int8, "int8_floatio": tf.float32}[variant]
        return bytes(tf_convert.mlir_quantize(calibrated, False, input_data_type=io, output_data_type=io))
