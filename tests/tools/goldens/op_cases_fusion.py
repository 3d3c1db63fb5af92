"""Standalone RELU / RELU6 / RELU_N1_TO_1 after the ops TF's int8 quantizer fuses them into, and
the cases where it does not (issue 19). The converter fuses such activations while converting,
so each case converts a Keras model and then splits the activation out of the float .tflite
(activation_split.after); the quantized variants are TF's quantizer run on that file
(activation_split.tf_quantize), as a user quantizing a shipped model (MediaPipe's BlazeFace
has a RELU after each residual ADD) gets them."""

from __future__ import annotations

from .activation_split import after
from .frameworks import keras
from .single_op import In, op_case, random_bias

L = keras.layers
K = keras.ops
V = ("float", "int8", "int8_floatio", "16x8", "calibrated")

# Fused: the producer gets the fused activation, its result the activation's range and name.
op_case(
    "fuse_add_relu", "ADD", 9501,
    [In("x", (4, 4, 3)), In("y", (4, 4, 3))],
    lambda x, y: L.Add()([x, y]),
    "ADD then a standalone RELU: TF fuses the RELU into the ADD (output range [0, max]).",
    variants=V, float_rewrite=after("ADD", "RELU", "activation_1"),
)
op_case(
    "fuse_add_relu6", "ADD", 9502,
    [In("x", (4, 4, 3), -2.0, 5.0), In("y", (4, 4, 3), -1.0, 4.0)],
    lambda x, y: L.Add()([x, y]),
    "ADD (sum up to ~9) then a standalone RELU6 that clamps at 6: fused, range [0, 6].",
    variants=V, float_rewrite=after("ADD", "RELU6", "re_lu_6"),
)
op_case(
    "fuse_sub_relu_n1", "SUB", 9503,
    [In("x", (4, 4, 3), -2.0, 2.0), In("y", (4, 4, 3))],
    lambda x, y: L.Subtract()([x, y]),
    "SUB then a standalone RELU_N1_TO_1 (difference in [-3, 3] clamped to [-1, 1]): fused.",
    variants=V, float_rewrite=after("SUB", "RELU_N1_TO_1", "clip"),
)
op_case(
    "fuse_mul_relu", "MUL", 9504,
    [In("x", (4, 4, 3), -2.0, 2.0), In("y", (4, 4, 3))],
    lambda x, y: L.Multiply()([x, y]),
    "MUL then a standalone RELU: fused.",
    variants=V, float_rewrite=after("MUL", "RELU", "activation_1"),
)
op_case(
    "fuse_conv_relu", "CONV_2D", 9505,
    [In("x", (6, 6, 3))],
    lambda x: L.Conv2D(5, 3, padding="same")(x),
    "CONV_2D 3x3 SAME (no activation) then a standalone RELU: fused.",
    weights=random_bias(L.Conv2D), variants=V, float_rewrite=after("CONV_2D", "RELU", "activation_1"),
)
op_case(
    "fuse_dw_relu6", "DEPTHWISE_CONV_2D", 9506,
    [In("x", (6, 6, 4), -4.0, 4.0)],
    lambda x: L.DepthwiseConv2D(3, padding="same")(x),
    "DEPTHWISE_CONV_2D 3x3 then a standalone RELU6: fused.",
    weights=random_bias(L.DepthwiseConv2D), variants=V, float_rewrite=after("DEPTHWISE_CONV_2D", "RELU6", "activation_1"),
)
op_case(
    "fuse_fc_relu_n1", "FULLY_CONNECTED", 9507,
    [In("x", (12,), -2.0, 2.0)],
    lambda x: L.Dense(6)(x),
    "FULLY_CONNECTED 12 -> 6 then a standalone RELU_N1_TO_1: fused.",
    weights=random_bias(L.Dense), variants=V, float_rewrite=after("FULLY_CONNECTED", "RELU_N1_TO_1", "activation_1"),
)

# Not fused.
op_case(
    "fuse_not_concat", "CONCATENATION", 9511,
    [In("x", (4, 4, 3)), In("y", (4, 4, 2), -2.0, 1.0)],
    lambda x, y: L.Concatenate()([x, y]),
    "CONCATENATION then a standalone RELU: TF does not fuse it (the RELU keeps its own scale).",
    variants=V, float_rewrite=after("CONCATENATION", "RELU", "activation_1"),
)
op_case(
    "fuse_not_two_readers", "ADD", 9512,
    [In("x", (4, 4, 3)), In("y", (4, 4, 3))],
    lambda x, y: (lambda s: [L.Multiply()([s, x]), L.Subtract()([s, y])])(L.Add()([x, y])),
    "ADD whose result is read by a RELU (then MUL) and by a SUB: not fused (the SUB reads the "
    "ADD's full range).",
    variants=V, float_rewrite=after("ADD", "RELU", "activation_1", keep_consumers=(2,)),
)
op_case(
    "fuse_not_graph_output", "ADD", 9513,
    [In("x", (4, 4, 3)), In("y", (4, 4, 3))],
    lambda x, y: (lambda s: [L.Multiply()([s, x]), s])(L.Add()([x, y])),
    "ADD whose result is a graph output and feeds a RELU (then MUL): not fused.",
    variants=V, float_rewrite=after("ADD", "RELU", "activation_1", keep_output=True),
)


def _residual(x):
    """BlazeFace's block: depthwise 5x5 + 1x1 conv, residual ADD, standalone RELU, then a conv."""
    y = L.DepthwiseConv2D(5, padding="same")(x)
    y = L.Conv2D(8, 1)(y)
    s = L.Add()([y, x])
    return L.Conv2D(4, 1)(s)


op_case(
    "fuse_residual_block", "ADD", 9521,
    [In("x", (8, 8, 8))],
    _residual,
    "A BlazeFace-style block (MediaPipe face_detection_short_range): DEPTHWISE_CONV_2D 5x5, "
    "CONV_2D 1x1, residual ADD, standalone RELU (named activation_1, the ADD's result add_1), "
    "CONV_2D: TF fuses the RELU into the ADD and names the result 'activation_1;add_1'.",
    variants=V, float_rewrite=after("ADD", "RELU", "activation_1"),
)
