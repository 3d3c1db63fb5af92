"""Single-operator cases: one op_case() call each, grouped by operator (registered in this
order on import). See goldens.single_op for In, op_case and the weight setters."""

from __future__ import annotations

import numpy as np

from .frameworks import keras, tf
from .single_op import (
    In,
    op_case,
    prelu_alpha,
    random_bias,
    scaled_weights,
    zero_sum_int_kernel,
)

L = keras.layers
K = keras.ops

# CONV_2D ----------------------------------------------------------------------
op_case(
    "op_conv2d_same_relu", "CONV_2D", 5001,
    [In("x", (5, 5, 9))],
    lambda x: L.Conv2D(13, 3, padding="same", activation="relu", name="conv")(x),
    "CONV_2D 3x3, stride 1, SAME, fused RELU, 9 -> 13 channels (1053 weights: also a hybrid dynamic variant).",
    weights=random_bias(L.Conv2D),
)
op_case(
    "op_conv2d_s2_valid_relu6", "CONV_2D", 5002,
    [In("x", (11, 11, 4), 0.0, 2.0)],
    lambda x: L.Conv2D(7, 3, strides=2, padding="valid", activation="relu6", name="conv")(x),
    "CONV_2D 3x3, stride 2, VALID, fused RELU6, 4 -> 7 channels; input in [0, 2] (int8 zero point -128).",
    weights=random_bias(L.Conv2D),
)
op_case(
    "op_conv2d_dilation2", "CONV_2D", 5003,
    [In("x", (9, 9, 3), -2.0, 2.0)],
    lambda x: L.Conv2D(5, 3, dilation_rate=2, padding="same", name="conv")(x),
    "CONV_2D 3x3, dilation 2, SAME, no activation, 3 -> 5 channels.",
    weights=random_bias(L.Conv2D),
)
op_case(
    "op_conv2d_1x1_nobias_neg", "CONV_2D", 5004,
    [In("x", (5, 7, 9), -3.0, 0.0)],
    lambda x: L.Conv2D(3, 1, use_bias=False, name="conv")(x),
    "CONV_2D 1x1 without bias (TF still adds a zero bias tensor), 9 -> 3 channels, non-square 5x7 "
    "input in [-3, 0] (int8 zero point 127).",
)
op_case(
    "op_conv2d_mult_gt1", "CONV_2D", 5005,
    [In("x", (6, 6, 4), 0.0, 255.0, dist="smooth", noise=1.5)],
    lambda x: L.Conv2D(5, 3, activation="relu6", name="conv")(x),
    "CONV_2D 3x3 VALID + RELU6 on raw pixel values [0, 255] (input scale 1.0) with weights up to "
    "+-4: requantization multiplier s_in*s_w/s_out = (1 * 4/127) / (6/255) = 1.34 > 1 on every channel; "
    "zero-sum exact-int8 kernels keep the pre-activation near the [0, 6] window.",
    weights=zero_sum_int_kernel(L.Conv2D, 4.0, bias=1.0),
)
op_case(
    "op_conv2d_mult_tiny", "CONV_2D", 5006,
    [In("x", (6, 6, 3), -1.0, 1.0)],
    lambda x: L.Conv2D(5, 3, padding="same", name="conv")(x),
    "CONV_2D 3x3 with weights U[-0.05, 0.05] and bias in [250, 300]: output range ~[0, 300] gives a "
    "requantization multiplier around 3e-6 (shift ~ -18).",
    weights=scaled_weights(L.Conv2D, 0.05, 250.0, 300.0),
)

# DEPTHWISE_CONV_2D ------------------------------------------------------------
op_case(
    "op_depthwise_m1_relu6", "DEPTHWISE_CONV_2D", 5101,
    [In("x", (7, 7, 7), -1.0, 1.0)],
    lambda x: L.DepthwiseConv2D(3, padding="same", activation="relu6", name="dw")(x),
    "DEPTHWISE_CONV_2D 3x3, multiplier 1, SAME, fused RELU6, 7 channels.",
    weights=random_bias(L.DepthwiseConv2D),
)
op_case(
    "op_depthwise_m2_s2", "DEPTHWISE_CONV_2D", 5102,
    [In("x", (8, 8, 3), 0.0, 1.0)],
    lambda x: L.DepthwiseConv2D(3, strides=2, depth_multiplier=2, name="dw")(x),
    "DEPTHWISE_CONV_2D 3x3, multiplier 2, stride 2, VALID, 3 -> 6 channels, input in [0, 1] (zero point -128).",
    weights=random_bias(L.DepthwiseConv2D),
)
op_case(
    "op_depthwise_m3_dilation2", "DEPTHWISE_CONV_2D", 5103,
    [In("x", (5, 5, 14), -1.0, 1.0)],
    lambda x: L.DepthwiseConv2D(5, depth_multiplier=3, dilation_rate=2, padding="same", name="dw")(x),
    "DEPTHWISE_CONV_2D 5x5, multiplier 3, dilation 2, SAME, 14 -> 42 channels (1050 weights: also a "
    "hybrid dynamic variant).",
    weights=random_bias(L.DepthwiseConv2D),
)

# FULLY_CONNECTED --------------------------------------------------------------
op_case(
    "op_fc_bias_relu", "FULLY_CONNECTED", 5201,
    [In("x", (65,), -1.0, 1.0)],
    lambda x: L.Dense(17, activation="relu", name="fc")(x),
    "FULLY_CONNECTED 65 -> 17 with bias and fused RELU (1105 weights: also a hybrid dynamic variant).",
    weights=random_bias(L.Dense),
)
op_case(
    "op_fc_nobias", "FULLY_CONNECTED", 5202,
    [In("x", (13,), 0.0, 4.0)],
    lambda x: L.Dense(5, use_bias=False, name="fc")(x),
    "FULLY_CONNECTED 13 -> 5 without bias (optional bias input -1), input in [0, 4] (zero point -128).",
)
op_case(
    "op_fc_keep_num_dims", "FULLY_CONNECTED", 5203,
    [In("x", (3, 6), -1.0, 1.0)],
    lambda x: L.Dense(5, name="fc")(x),
    "FULLY_CONNECTED on a rank-3 input [1, 3, 6] -> [1, 3, 5]: keep_num_dims = true.",
    weights=random_bias(L.Dense),
)
op_case(
    "op_fc_mult_gt1", "FULLY_CONNECTED", 5204,
    [In("x", (16,), 0.0, 255.0, dist="smooth", noise=1.5)],
    lambda x: L.Dense(5, activation="relu6", name="fc")(x),
    "FULLY_CONNECTED 16 -> 5 + RELU6 on raw pixel values [0, 255] with weights up to +-4: "
    "requantization multiplier (1 * 4/127) / (6/255) = 1.34 > 1 (zero-sum exact-int8 kernel).",
    weights=zero_sum_int_kernel(L.Dense, 4.0, bias=1.0),
)
op_case(
    "op_fc_mult_tiny", "FULLY_CONNECTED", 5205,
    [In("x", (8,), -1.0, 1.0)],
    lambda x: L.Dense(3, name="fc")(x),
    "FULLY_CONNECTED 8 -> 3 with weights U[-0.05, 0.05] and bias in [250, 300]: requantization "
    "multiplier around 3e-6.",
    weights=scaled_weights(L.Dense, 0.05, 250.0, 300.0),
)

op_case(
    "op_fc_bias_overflow", "FULLY_CONNECTED", 5206,
    [In("x", (8,), -1.0, 1.0)],
    lambda x: L.Dense(4, name="fc")(x),
    "FULLY_CONNECTED 8 -> 4 with weights U[-1e-6, 1e-6] and bias U[-1, 1]: bias / (s_in * s_w) "
    "exceeds 2^30, so TF's quantizer widens the bias scale to |b| / (2^31 / 2) and the weight "
    "scale with it (MLIR QuantizationDriver::SetBiasParamsWithAdjustments).",
    weights=scaled_weights(L.Dense, 1e-6, -1.0, 1.0),
)
op_case(
    "op_conv2d_bias_overflow", "CONV_2D", 5007,
    [In("x", (5, 5, 2), -1.0, 1.0)],
    lambda x: L.Conv2D(4, 3, padding="same", name="conv")(x),
    "CONV_2D 3x3 with weights U[-1e-6, 1e-6] and bias U[-1, 1]: per-channel bias scales that "
    "would overflow int32 are widened with their weight scales.",
    weights=scaled_weights(L.Conv2D, 1e-6, -1.0, 1.0),
)

# ADD / SUB / MUL ---------------------------------------------------------------
op_case(
    "op_add", "ADD", 5301,
    [In("x", (5, 5, 3), -1.0, 1.0), In("y", (5, 5, 3), -3.0, 3.0)],
    lambda x, y: L.Add(name="add")([x, y]),
    "ADD of two inputs of the same shape with different ranges.",
)
op_case(
    "op_add_broadcast_pos", "ADD", 5302,
    [In("x", (4, 4, 5), 0.0, 1.0), In("y", (1, 1, 5), 0.0, 3.0)],
    lambda x, y: K.add(x, y),
    "ADD with broadcasting [1,4,4,5] + [1,1,1,5]; inputs and output >= 0 (zero points -128). "
    "keras.ops.add squeezes y first, so TF's model is RESHAPE [1,1,1,5] -> [5], then ADD "
    "[1,4,4,5] + [5].",
)
op_case(
    "op_add_const", "ADD", 5303,
    [In("x", (4, 4, 5), -1.0, 1.0)],
    lambda x: K.add(x, K.convert_to_tensor(np.array([-0.75, -0.3, 0.0, 0.4, 1.5], np.float32))),
    "ADD of the input and a constant [5] vector (broadcast): the constant is quantized as a tensor.",
)
op_case(
    "op_sub_broadcast_neg", "SUB", 5304,
    [In("x", (4, 4, 5), -2.0, 0.0), In("y", (4, 1, 1), 0.0, 1.0)],
    lambda x, y: K.subtract(x, y),
    "SUB with broadcasting [1,4,4,5] - [1,4,1,1]; x <= 0 (zero point 127), y >= 0 (-128), output <= 0 (127).",
)
op_case(
    "op_sub_ties", "SUB", 5307,
    [
        In("x", (8, 32), -1.0, 127 / 128, calib_edges=(-1.0, 127 / 128)),
        In("y", (8, 32), -1.0, 127 / 128, calib_edges=(127 / 128, -1.0)),
    ],
    lambda x, y: K.subtract(x, y),
    "SUB on power-of-two scales: calibration pins x and y to [-1, 127/128] (int8 scale 2^-7, zero "
    "point 0) and x - y to [-255/128, 255/128] (scale 2^-6), so half the "
    "differences fall near a rounding tie, where XNNPACK's qs8 ADD/SUB (rounding half up) and "
    "LiteRT's reference (half away from zero) part.",
)
op_case(
    "op_squared_difference", "SQUARED_DIFFERENCE", 5306,
    [In("x", (4, 6, 8), -3.0, 2.0), In("m", (4, 6, 1), -1.0, 1.0)],
    lambda x, m: K.square(K.subtract(x, m)),
    "SQUARED_DIFFERENCE (TF fuses square(x - m)) with broadcasting [1,4,6,8] vs [1,4,6,1], as "
    "LayerNorm's variance; the inputs' scales differ.",
    skip={
        "16x8": "TF 2.21 writes an int16 SQUARED_DIFFERENCE that LiteRT 2.3's BUILTIN_REF refuses to "
        "run ('SquaredDifference only supports FLOAT32 and INT32')",
    },
)
op_case(
    "op_mul_broadcast", "MUL", 5305,
    [In("x", (4, 4, 5), -1.0, 1.0), In("y", (1, 4, 5), 0.0, 2.0)],
    lambda x, y: K.multiply(x, y),
    "MUL with broadcasting [1,4,4,5] * [1,1,4,5].",
)
op_case(
    "op_mul_neg", "MUL", 5306,
    [In("x", (6, 7), 0.0, 3.0), In("y", (6, 7), -2.0, 0.0)],
    lambda x, y: L.Multiply(name="mul")([x, y]),
    "MUL of x in [0, 3] (zero point -128) and y in [-2, 0] (127): output <= 0 (127).",
)

# Pools -------------------------------------------------------------------------
op_case(
    "op_avgpool_same_s2", "AVERAGE_POOL_2D", 5401,
    [In("x", (9, 9, 5), -1.0, 1.0)],
    lambda x: L.AveragePooling2D(3, strides=2, padding="same", name="pool")(x),
    "AVERAGE_POOL_2D 3x3, stride 2, SAME (border windows average fewer elements), 5 channels.",
)
op_case(
    "op_avgpool_valid", "AVERAGE_POOL_2D", 5402,
    [In("x", (8, 8, 3), 0.0, 6.0)],
    lambda x: L.AveragePooling2D(2, name="pool")(x),
    "AVERAGE_POOL_2D 2x2, stride 2, VALID, input in [0, 6] (zero point -128).",
)
op_case(
    "op_maxpool_same_s2", "MAX_POOL_2D", 5403,
    [In("x", (9, 9, 5), -1.0, 1.0)],
    lambda x: L.MaxPooling2D(3, strides=2, padding="same", name="pool")(x),
    "MAX_POOL_2D 3x3, stride 2, SAME, 5 channels.",
)
op_case(
    "op_maxpool_valid_neg", "MAX_POOL_2D", 5404,
    [In("x", (8, 8, 3), -4.0, 0.0)],
    lambda x: L.MaxPooling2D(2, name="pool")(x),
    "MAX_POOL_2D 2x2, stride 2, VALID, input in [-4, 0] (zero point 127).",
)

# CONCATENATION / PAD / RESHAPE / TRANSPOSE / slices ----------------------------
op_case(
    "op_concat_channels", "CONCATENATION", 5501,
    [In("x", (4, 4, 3), -1.0, 1.0), In("y", (4, 4, 5), 0.0, 6.0)],
    lambda x, y: L.Concatenate(axis=-1, name="concat")([x, y]),
    "CONCATENATION on the channel axis of inputs with different ranges (the int8 kernel requantizes).",
)
op_case(
    "op_concat_axis1", "CONCATENATION", 5502,
    [In("x", (2, 5), -2.0, 2.0), In("y", (3, 5), -1.0, 0.5)],
    lambda x, y: L.Concatenate(axis=1, name="concat")([x, y]),
    "CONCATENATION on axis 1 of rank-3 inputs [1,2,5] and [1,3,5].",
)
op_case(
    "op_pad", "PAD", 5503,
    [In("x", (5, 5, 3), 0.5, 2.0)],
    lambda x: L.ZeroPadding2D(((1, 2), (2, 1)), name="pad")(x),
    "PAD (ZeroPadding2D, asymmetric ((1,2),(2,1))); input in [0.5, 2], the range widened to [0, 2] "
    "(zero point -128: padding writes -128).",
)
op_case(
    "op_pad_neg", "PAD", 5504,
    [In("x", (4, 6, 3), -2.0, -0.5)],
    lambda x: L.ZeroPadding2D(((2, 0), (1, 1)), name="pad")(x),
    "PAD ((2,0),(1,1)) of an input in [-2, -0.5] (zero point 127: padding writes 127).",
)
op_case(
    "op_reshape", "RESHAPE", 5505,
    [In("x", (4, 6), -1.0, 1.0)],
    lambda x: L.Reshape((3, 8), name="reshape")(x),
    "RESHAPE [1,4,6] -> [1,3,8].",
)
op_case(
    "op_transpose", "TRANSPOSE", 5506,
    [In("x", (4, 5, 3), -1.0, 1.0)],
    lambda x: L.Permute((3, 1, 2), name="permute")(x),
    "TRANSPOSE (Keras Permute) [1,4,5,3] -> [1,3,4,5], perm [0,3,1,2].",
)
op_case(
    "op_strided_slice", "STRIDED_SLICE", 5507,
    [In("x", (7, 7, 5), -1.0, 1.0)],
    lambda x: x[:, 1:6:2, ::2, 1:],
    "STRIDED_SLICE x[:, 1:6:2, ::2, 1:] of [1,7,7,5] -> [1,3,4,4].",
)
op_case(
    "op_slice", "SLICE", 5508,
    [In("x", (6, 6, 5), -1.0, 1.0)],
    lambda x: K.slice(x, (0, 1, 2, 0), (1, 4, 3, 4)),
    "SLICE begin [0,1,2,0] size [1,4,3,4] of [1,6,6,5].",
)

# Activations -------------------------------------------------------------------
op_case(
    "op_softmax", "SOFTMAX", 5601,
    [In("x", (10,), -4.0, 4.0)],
    lambda x: L.Softmax(name="softmax")(x),
    "SOFTMAX over 10 logits in [-4, 4] (int8 output fixed at scale 1/256, zero point -128).",
)
op_case(
    "op_softmax_4d", "SOFTMAX", 5602,
    [In("x", (3, 3, 7), -8.0, 8.0)],
    lambda x: L.Softmax(name="softmax")(x),
    "SOFTMAX over the last axis of a [1,3,3,7] tensor, logits in [-8, 8].",
)
op_case(
    "op_logistic", "LOGISTIC", 5603,
    [In("x", (4, 4, 5), -6.0, 6.0)],
    lambda x: L.Activation("sigmoid", name="sigmoid")(x),
    "LOGISTIC on [-6, 6] (int8 output fixed at 1/256, -128).",
)
op_case(
    "op_tanh", "TANH", 5604,
    [In("x", (4, 4, 5), -3.0, 3.0)],
    lambda x: L.Activation("tanh", name="tanh")(x),
    "TANH on [-3, 3] (int8 output fixed at 1/128, 0).",
)
op_case(
    "op_relu", "RELU", 5605,
    [In("x", (4, 4, 5), -2.0, 3.0)],
    lambda x: L.ReLU(name="relu")(x),
    "RELU as a standalone op (directly on a model input, so nothing to fuse into).",
)
op_case(
    "op_relu6", "RELU6", 5606,
    [In("x", (4, 4, 5), -3.0, 8.0)],
    lambda x: L.ReLU(6.0, name="relu6")(x),
    "RELU6 standalone, input in [-3, 8] (both clamps hit).",
)
op_case(
    "op_leaky_relu", "LEAKY_RELU", 5607,
    [In("x", (4, 4, 5), -3.0, 3.0)],
    lambda x: L.LeakyReLU(negative_slope=0.2, name="leaky")(x),
    "LEAKY_RELU with alpha 0.2.",
)
op_case(
    "op_hard_swish", "HARD_SWISH", 5608,
    [In("x", (4, 4, 5), -5.0, 5.0)],
    lambda x: L.Activation("hard_swish", name="hard_swish")(x),
    "HARD_SWISH (Keras hard_swish = x * relu6(x + 3) / 6, which TF matches to one op) on [-5, 5].",
)
op_case(
    "op_prelu", "PRELU", 5609,
    [In("x", (4, 4, 5), -2.0, 2.0)],
    lambda x: L.PReLU(shared_axes=[1, 2], name="prelu")(x),
    "PRELU with one alpha per channel (shared over H and W), alpha in [0.05, 0.5].",
    weights=prelu_alpha,
)

# Reductions --------------------------------------------------------------------
op_case(
    "op_mean_spatial", "MEAN", 5701,
    [In("x", (5, 5, 7), -1.0, 1.0)],
    lambda x: L.GlobalAveragePooling2D(name="gap")(x),
    "MEAN over axes [1,2] (GlobalAveragePooling2D), keep_dims false.",
)
op_case(
    "op_mean_axis3_keepdims", "MEAN", 5702,
    [In("x", (3, 4, 9), 0.0, 2.0)],
    lambda x: K.mean(x, axis=-1, keepdims=True),
    "MEAN over the last axis with keep_dims true, input in [0, 2] (zero point -128).",
)
op_case(
    "op_reduce_max", "REDUCE_MAX", 5703,
    [In("x", (5, 5, 7), -1.0, 1.0)],
    lambda x: K.max(x, axis=[1, 2]),
    "REDUCE_MAX over axes [1,2] (GlobalMaxPooling2D gives the same op).",
)
op_case(
    "op_reduce_max_axis3_keepdims", "REDUCE_MAX", 5704,
    [In("x", (3, 4, 9), -2.0, 0.0)],
    lambda x: K.max(x, axis=-1, keepdims=True),
    "REDUCE_MAX over the last axis, keep_dims true, input in [-2, 0] (zero point 127).",
)

# Resize / transpose conv -------------------------------------------------------
op_case(
    "op_resize_bilinear_x2", "RESIZE_BILINEAR", 5801,
    [In("x", (4, 5, 3), -1.0, 1.0)],
    lambda x: L.UpSampling2D(2, interpolation="bilinear", name="up")(x),
    "RESIZE_BILINEAR x2 (UpSampling2D bilinear): half_pixel_centers true, align_corners false.",
)
op_case(
    "op_resize_bilinear_x2_c20", "RESIZE_BILINEAR", 5809,
    [In("x", (6, 7, 20), -1.0, 1.0)],
    lambda x: L.UpSampling2D(2, interpolation="bilinear", name="up")(x),
    "RESIZE_BILINEAR x2 on 20 channels (two 8-channel lane groups of the fast int8 kernel and a "
    "scalar tail of 4), half_pixel_centers true.",
)
op_case(
    "op_resize_bilinear_legacy_c16", "RESIZE_BILINEAR", 5810,
    [In("x", (5, 6, 16), -1.0, 1.0)],
    lambda x: L.Lambda(
        lambda t: tf.compat.v1.image.resize_bilinear(t, [10, 12], half_pixel_centers=False), name="resize"
    )(x),
    "RESIZE_BILINEAR 5x6 -> 10x12 on 16 channels with the legacy coordinates (half-way taps: the "
    "rounding of exact ties, half away from zero in LiteRT, half up in XNNPACK).",
)
op_case(
    "op_resize_bilinear_7x9", "RESIZE_BILINEAR", 5802,
    [In("x", (4, 5, 3), 0.0, 1.0)],
    lambda x: L.Resizing(7, 9, "bilinear", name="resize")(x),
    "RESIZE_BILINEAR 4x5 -> 7x9 (non-integer factors; Keras Resizing), half_pixel_centers true.",
)
op_case(
    "op_resize_bilinear_align", "RESIZE_BILINEAR", 5807,
    [In("x", (4, 5, 3), -1.0, 1.0)],
    lambda x: L.Lambda(
        lambda t: tf.compat.v1.image.resize_bilinear(t, [7, 9], align_corners=True), name="resize"
    )(x),
    "RESIZE_BILINEAR 4x5 -> 7x9 with align_corners true (tf.compat.v1.image.resize_bilinear).",
)
op_case(
    "op_resize_bilinear_legacy", "RESIZE_BILINEAR", 5808,
    [In("x", (4, 5, 3), -1.0, 1.0)],
    lambda x: L.Lambda(
        lambda t: tf.compat.v1.image.resize_bilinear(t, [7, 9], half_pixel_centers=False), name="resize"
    )(x),
    "RESIZE_BILINEAR 4x5 -> 7x9 with align_corners and half_pixel_centers false (the legacy "
    "coordinates, tf.compat.v1.image.resize_bilinear).",
)
op_case(
    "op_resize_nearest_x2", "RESIZE_NEAREST_NEIGHBOR", 5803,
    [In("x", (4, 5, 3), -1.0, 1.0)],
    lambda x: L.Resizing(8, 10, "nearest", name="resize")(x),
    "RESIZE_NEAREST_NEIGHBOR x2 via Keras Resizing (UpSampling2D nearest becomes RESHAPE + TILE "
    "in TF 2.21, not this op).",
)
op_case(
    "op_resize_nearest_7x9", "RESIZE_NEAREST_NEIGHBOR", 5804,
    [In("x", (4, 5, 3), -1.0, 1.0)],
    lambda x: L.Resizing(7, 9, "nearest", name="resize")(x),
    "RESIZE_NEAREST_NEIGHBOR 4x5 -> 7x9, half_pixel_centers true.",
)
op_case(
    "op_transpose_conv_s2_same", "TRANSPOSE_CONV", 5805,
    [In("x", (4, 4, 3), -1.0, 1.0)],
    lambda x: L.Conv2DTranspose(5, 3, strides=2, padding="same", name="tconv")(x),
    "TRANSPOSE_CONV 3x3, stride 2, SAME, 3 -> 5 channels, with bias.",
    weights=random_bias(L.Conv2DTranspose),
)
op_case(
    "op_transpose_conv_valid_nobias", "TRANSPOSE_CONV", 5806,
    [In("x", (5, 5, 29), -1.0, 1.0)],
    lambda x: L.Conv2DTranspose(4, 3, padding="valid", use_bias=False, name="tconv")(x),
    "TRANSPOSE_CONV 3x3, stride 1, VALID, no bias, 29 -> 4 channels (1044 weights: also a dynamic "
    "variant, which TF makes a hybrid TRANSPOSE_CONV: int8 weights, float activations).",
    expected_failures={
        "dynamic": {
            "stage": "int8",
            "issue": 6,
            "reason": "hybrid TRANSPOSE_CONV (int8 weights, float activations): issue 6 plans hybrid "
            "kernels for FULLY_CONNECTED, CONV_2D and DEPTHWISE_CONV_2D only",
        }
    },
)

# MAXIMUM / MINIMUM -------------------------------------------------------------
op_case(
    "op_maximum", "MAXIMUM", 5901,
    [In("x", (4, 4, 5), -1.0, 1.0), In("y", (4, 4, 5), -2.0, 2.0)],
    lambda x, y: L.Maximum(name="maximum")([x, y]),
    "MAXIMUM of two inputs with different ranges (TF gives both inputs the output's scale).",
)
op_case(
    "op_minimum_broadcast", "MINIMUM", 5902,
    [In("x", (4, 4, 5), -1.0, 1.0), In("y", (1, 1, 5), -0.5, 0.5)],
    lambda x, y: K.minimum(x, y),
    "MINIMUM with broadcasting [1,4,4,5] vs [1,1,1,5].",
)

# QUANTIZE / DEQUANTIZE ---------------------------------------------------------
op_case(
    "op_quantize_dequantize", "QUANTIZE", 6001,
    [In("x", (8, 16), -1.25, 1.25, dist="grid", calib_shrink=0.25)],
    lambda x: L.Reshape((16, 8), name="reshape")(x),
    "QUANTIZE and DEQUANTIZE at the float edges (int8_floatio: float32 -> int8, 16x8: float32 -> "
    "int16, and back) around a RESHAPE, which moves no value: calibrated on [-1, 1], tested on an "
    "even grid over [-1.25, 1.25] (values past the range saturate, many fall near rounding ties).",
)
op_case(
    "op_quantize_requantize", "QUANTIZE", 6002,
    [In("x", (4, 4, 3), -4.0, 4.0)],
    lambda x: L.Concatenate(name="concat")([L.Activation("sigmoid", name="sigmoid")(x), x]),
    "QUANTIZE int8 -> int8 (requantize): TF inserts it to bring LOGISTIC's fixed-scale output "
    "(1/256, -128) to the CONCATENATION's scale.",
)
