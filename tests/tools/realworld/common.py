"""Shared helpers of the real-world model generator: paths, seeding, TF conversion, flatbuffer
editing, LiteRT BUILTIN_REF outputs."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import tensorflow as tf
import keras
from ai_edge_litert.interpreter import Interpreter, OpResolverType
from tensorflow.lite.python import schema_py_generated as schema
from tensorflow.lite.tools import flatbuffer_utils


TOOLS = Path(__file__).resolve().parent.parent
REPO = TOOLS.parent.parent
OUT = REPO / "tests" / "realworld"
# The generator script: child processes (TF conversions that may crash) re-enter it.
MAIN = TOOLS / "make_realworld.py"


def seed(s: int) -> None:
    random.seed(s)
    np.random.seed(s)
    tf.random.set_seed(s)
    keras.utils.set_random_seed(s)


def mlp() -> keras.Model:
    seed(11)
    inp = keras.Input((16,), batch_size=1, name="features")
    x = keras.layers.Dense(32, activation="relu", name="fc1")(inp)
    x = keras.layers.Dense(8, name="fc2")(x)
    out = keras.layers.Softmax(name="probs")(x)
    return keras.Model(inp, out)


def convert_keras(model: keras.Model, **opts) -> bytes:
    conv = tf.lite.TFLiteConverter.from_keras_model(model)
    for k, v in opts.items():
        setattr(conv, k, v)
    return conv.convert()


def edit(model: bytes, fn) -> bytes:
    """Applies `fn` to the object-API ModelT and serialises it again."""
    m = flatbuffer_utils.convert_bytearray_to_object(bytearray(model))
    fn(m)
    return bytes(flatbuffer_utils.convert_object_to_bytearray(m))


def convert_module(module: tf.Module, **opts) -> bytes:
    """TF 2.21's conversion of `module.__call__` with resource variables kept as variables."""
    fn = module.__call__.get_concrete_function()
    conv = tf.lite.TFLiteConverter.from_concrete_functions([fn], module)
    conv.experimental_enable_resource_variables = True
    for k, v in opts.items():
        setattr(conv, k, v)
    return conv.convert()


def op_names(model: bytes) -> list[list[str]]:
    m = flatbuffer_utils.convert_bytearray_to_object(bytearray(model))
    names = {v: k for k, v in vars(schema.BuiltinOperator).items() if not k.startswith("_")}
    out = []
    for sg in m.subgraphs:
        ops = []
        for op in sg.operators:
            oc = m.operatorCodes[op.opcodeIndex]
            code = max(oc.builtinCode, oc.deprecatedBuiltinCode)
            name = names.get(code, str(code))
            if code == schema.BuiltinOperator.CUSTOM:
                name += f"({oc.customCode.decode() if isinstance(oc.customCode, bytes) else oc.customCode})"
            ops.append(name)
        out.append(ops)
    return out


def litert_outputs(path: Path, inputs: list[np.ndarray]):
    """BUILTIN_REF outputs, or the load/run error text."""
    try:
        it = Interpreter(model_path=str(path), experimental_op_resolver_type=OpResolverType.BUILTIN_REF)
        it.allocate_tensors()
        for d, x in zip(it.get_input_details(), inputs):
            it.set_tensor(d["index"], x.astype(d["dtype"]).reshape(d["shape"]))
        it.invoke()
        return [it.get_tensor(d["index"]).copy() for d in it.get_output_details()], None
    except Exception as e:  # noqa: BLE001 — recorded, the point of the file
        return None, str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
