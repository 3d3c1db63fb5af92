"""Models as older or foreign writers leave them: TF's output edited with the flatbuffer object API
(deprecated opcodes, no signatures, heavy metadata, a custom op, sparse weights, a huge SOFTMAX beta)."""

from __future__ import annotations

import json

import numpy as np
import tensorflow as tf
import keras
from tensorflow.lite.python import schema_py_generated as schema

from .common import convert_keras, edit, mlp, seed


def deprecated_opcodes() -> bytes:
    def f(m):
        for oc in m.operatorCodes:
            assert oc.builtinCode < 127, "only codes < 127 fit deprecated_builtin_code"
            oc.deprecatedBuiltinCode = oc.builtinCode
            oc.builtinCode = 0  # absent in old files; readers take max(deprecated, builtin)

    return edit(convert_keras(mlp()), f)


def no_signature() -> bytes:
    def f(m):
        m.signatureDefs = []

    return edit(convert_keras(mlp()), f)


def metadata_heavy() -> bytes:
    rng = np.random.default_rng(5)

    def f(m):
        def add(name: str, data: bytes) -> None:
            b = schema.BufferT()
            b.data = np.frombuffer(data, dtype=np.uint8)
            m.buffers.append(b)
            md = schema.MetadataT()
            md.name = name
            md.buffer = len(m.buffers) - 1
            m.metadata = (m.metadata or []) + [md]

        add("TFLITE_METADATA", rng.integers(0, 256, 256 * 1024, dtype=np.uint8).tobytes())
        add("labels.txt", "\n".join(f"class_{i}" for i in range(8)).encode())
        add("model_card", json.dumps({"author": "zeropoint tests", "license": "Apache-2.0"}).encode())

    return edit(convert_keras(mlp()), f)


def custom_op() -> bytes:
    """The MLP's second FULLY_CONNECTED turned into a CUSTOM operator."""

    def f(m):
        code = schema.OperatorCodeT()
        code.builtinCode = schema.BuiltinOperator.CUSTOM
        code.deprecatedBuiltinCode = schema.BuiltinOperator.CUSTOM
        code.customCode = "ZpTestCustom"
        code.version = 1
        m.operatorCodes.append(code)
        sg = m.subgraphs[0]
        fcs = [
            op
            for op in sg.operators
            if m.operatorCodes[op.opcodeIndex].builtinCode == schema.BuiltinOperator.FULLY_CONNECTED
        ]
        op = fcs[-1]
        op.opcodeIndex = len(m.operatorCodes) - 1
        op.builtinOptionsType = 0
        op.builtinOptions = None
        op.customOptions = np.frombuffer(b"zeropoint-custom-options", dtype=np.uint8)
        op.customOptionsFormat = schema.CustomOptionsFormat.FLEXBUFFERS

    return edit(convert_keras(mlp()), f)


def sparse_fc() -> bytes:
    seed(12)
    inp = keras.Input((64,), batch_size=1, name="features")
    x = keras.layers.Dense(64, activation="relu", name="fc1")(inp)
    out = keras.layers.Dense(16, name="fc2")(x)
    model = keras.Model(inp, out)
    # 4x1 block sparsity at ~80 %: TF's sparsifier only keeps a sparse encoding when it
    # makes the tensor smaller.
    rng = np.random.default_rng(3)
    for layer in (model.get_layer("fc1"), model.get_layer("fc2")):
        w, b = layer.get_weights()
        keep = rng.random((w.shape[0], w.shape[1] // 4)) < 0.2
        w = w * np.repeat(keep, 4, axis=1)
        layer.set_weights([w.astype(np.float32), b])
    return convert_keras(model, optimizations=[tf.lite.Optimize.EXPERIMENTAL_SPARSITY])


def softmax16x8_huge_beta() -> bytes:
    """A 16x8 SOFTMAX (TF's converter, int16 activations) whose beta is then set to 1e12, as a
    hand-edited or foreign file may carry: the input rescale multiplier's exponent is then above
    31, which LiteRT's compiled `1 << left_shift` takes modulo 32 (issue 22)."""
    seed(15)
    inp = keras.Input((10,), batch_size=1, name="x")
    out = keras.layers.Softmax(name="probs")(inp)
    rng = np.random.default_rng(15)

    def data():
        for _ in range(8):
            yield [rng.uniform(-1.0, 1.0, size=(1, 10)).astype(np.float32)]

    quantized = convert_keras(
        keras.Model(inp, out),
        optimizations=[tf.lite.Optimize.DEFAULT],
        representative_dataset=data,
        target_spec=tf.lite.TargetSpec(
            supported_ops=[tf.lite.OpsSet.EXPERIMENTAL_TFLITE_BUILTINS_ACTIVATIONS_INT16_WEIGHTS_INT8]
        ),
    )

    def huge_beta(m) -> None:
        for op in m.subgraphs[0].operators:
            if op.builtinOptionsType == schema.BuiltinOptions.SoftmaxOptions:
                op.builtinOptions.beta = 1e12

    return edit(quantized, huge_beta)
