"""Dynamic shapes and control flow: a dynamic batch, run-time shapes computed by SHAPE subgraphs
(with TF's int8 and 16x8 versions at two batch sizes), IF and WHILE."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import tensorflow as tf
import keras
from ai_edge_litert.interpreter import Interpreter, OpResolverType

from .common import convert_keras, seed


class _Control(tf.Module):
    @tf.function(input_signature=[tf.TensorSpec([1, 4], tf.float32, name="x")])
    def __call__(self, x):
        y = tf.cond(tf.reduce_sum(x) > 0.0, lambda: x * 2.0, lambda: x - 1.0)
        i = tf.constant(0)
        _, z = tf.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, v * 0.5 + 1.0), [i, y])
        return {"z": z}


def dynamic_batch() -> bytes:
    """A small CNN exported as most people export: batch left dynamic (shape_signature -1), so the
    converter computes the Reshape target at run time with SHAPE -> STRIDED_SLICE -> PACK."""
    seed(13)
    inp = keras.Input((12, 12, 3), name="image")
    x = keras.layers.Conv2D(8, 3, padding="same", activation="relu", name="conv")(inp)
    x = keras.layers.DepthwiseConv2D(3, padding="same", name="dw")(x)
    x = keras.layers.Reshape((-1,), name="flatten")(x)
    x = keras.layers.Dense(10, name="fc")(x)
    out = keras.layers.Softmax(name="probs")(x)
    return convert_keras(keras.Model(inp, out))


def dynamic_shapes_keras() -> keras.Model:
    """Dynamic batch with a run-time TRANSPOSE_CONV output shape (SHAPE -> STRIDED_SLICE -> PACK),
    a Reshape, a BROADCAST_TO to the run-time shape and a Dense on a 3-D tensor (GATHER /
    REDUCE_PROD / CONCATENATION shape arithmetic)."""
    seed(21)
    inp = keras.Input((6, 6, 4), name="image")
    x = keras.layers.Conv2D(8, 3, padding="same", activation="relu", name="conv")(inp)
    x = keras.layers.Conv2DTranspose(6, 3, strides=2, padding="same", name="up")(x)
    x = keras.layers.Reshape((144, 6), name="tokens")(x)
    pos = keras.layers.Lambda(
        lambda t: keras.ops.broadcast_to(keras.ops.linspace(-1.0, 1.0, 6), keras.ops.shape(t)), name="pos"
    )(x)
    x = keras.layers.Add(name="addpos")([x, pos])
    out = keras.layers.Dense(5, name="fc")(x)
    return keras.Model(inp, out)


def dynamic_shapes() -> bytes:
    return convert_keras(dynamic_shapes_keras())


DYNAMIC_BATCHES = (1, 3)


def dynamic_shapes_variants(d: Path) -> None:
    """TF's int8 (int8 I/O) and 16x8 versions of `dynamic_shapes`, and LiteRT BUILTIN_REF outputs of
    all three at batch 1 and batch 3 (resize_tensor_input(strict=True) + allocate_tensors):
    model_<v>.tflite, input_<v>_b<B>.npy, expected_<v>_b<B>.npy, each array exactly the input's /
    output's shape at that batch (no samples axis)."""
    model = dynamic_shapes_keras()
    rng = np.random.default_rng(2121)
    calib = [rng.uniform(-1.0, 1.0, (1, 6, 6, 4)).astype(np.float32) for _ in range(16)]

    def rep():
        for c in calib:
            yield [c]

    def quantized(ops, io_int8: bool) -> bytes:
        conv = tf.lite.TFLiteConverter.from_keras_model(model)
        conv.optimizations = [tf.lite.Optimize.DEFAULT]
        conv.representative_dataset = rep
        conv.target_spec.supported_ops = [ops]
        if io_int8:
            conv.inference_input_type = tf.int8
            conv.inference_output_type = tf.int8
        return conv.convert()

    variants = {
        "float": convert_keras(model),
        "int8": quantized(tf.lite.OpsSet.TFLITE_BUILTINS_INT8, True),
        "16x8": quantized(tf.lite.OpsSet.EXPERIMENTAL_TFLITE_BUILTINS_ACTIVATIONS_INT16_WEIGHTS_INT8, False),
    }
    floats = {b: rng.uniform(-1.0, 1.0, (b, 6, 6, 4)).astype(np.float32) for b in DYNAMIC_BATCHES}
    for v, data in variants.items():
        (d / f"model_{v}.tflite").write_bytes(data)
        for b, x in floats.items():
            it = Interpreter(model_content=data, experimental_op_resolver_type=OpResolverType.BUILTIN_REF)
            det = it.get_input_details()[0]
            assert list(det["shape_signature"]) == [-1, 6, 6, 4], det["shape_signature"]
            it.resize_tensor_input(det["index"], [b, 6, 6, 4], strict=True)
            it.allocate_tensors()
            if det["dtype"] == np.int8:
                scale, zp = det["quantization"]
                x = np.clip(np.round(x / scale) + zp, -128, 127).astype(np.int8)
            it.set_tensor(det["index"], x)
            it.invoke()
            y = it.get_tensor(it.get_output_details()[0]["index"])
            assert y.shape[0] == b, y.shape
            np.save(d / f"input_{v}_b{b}.npy", x)


def control_flow() -> bytes:
    seed(14)
    module = _Control()
    fn = module.__call__.get_concrete_function()
    conv = tf.lite.TFLiteConverter.from_concrete_functions([fn], module)
    return conv.convert()


def control_flow_tf_int8(d: Path) -> None:
    """TF's full-integer conversion (float I/O) of control_flow's function, its representative
    data calib.npy (16 seeded samples; both IF branches taken): model_int8.tflite. Unlike the
    Keras recurrent models (tensorflow#75140), no WHILE input passes through the body unchanged,
    so TF's calibrator does not crash; its layout is the one the full-integer tests compare ours
    with: float at every subgraph boundary, QUANTIZE / DEQUANTIZE inside the bodies. (No LiteRT
    output is kept: LiteRT 2.3's BUILTIN_REF int8 SUM gives -1 in this model whatever the input,
    where its optimized kernels give the sum.)"""
    rng = np.random.default_rng(1414)
    calib = rng.normal(0.0, 1.0, (16, 1, 4)).astype(np.float32)
    sums = calib.sum(axis=(1, 2))
    assert (sums > 0).any() and (sums <= 0).any(), "both IF branches calibrated"
    np.save(d / "calib.npy", calib)

    def rep():
        for c in calib:
            yield [c]

    seed(14)
    module = _Control()
    fn = module.__call__.get_concrete_function()
    conv = tf.lite.TFLiteConverter.from_concrete_functions([fn], module)
    conv.optimizations = [tf.lite.Optimize.DEFAULT]
    conv.representative_dataset = rep
    (d / "model_int8.tflite").write_bytes(conv.convert())
