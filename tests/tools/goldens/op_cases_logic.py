"""Single-operator cases of the comparison, logic and selection family (LESS, GREATER, EQUAL, ...,
LOGICAL_AND/OR/NOT, SELECT, SELECT_V2) and of REDUCE_MIN, ARG_MAX and ARG_MIN. Comparisons give BOOL tensors, which
a model cannot usefully output on its own in these goldens, so each comparison case ends in a
SELECT (or a cast and a product) that turns the condition back into float values. See
goldens.single_op for In and op_case."""

from __future__ import annotations

from .frameworks import keras, tf
from .single_op import In, op_case

K = keras.ops
L = keras.layers

# SELECT / SELECT_V2 + LESS / GREATER family -----------------------------------
op_case(
    "op_select_less", "SELECT", 6101,
    [In("x", (4, 5), -1.0, 1.0), In("y", (4, 5), -1.0, 1.0)],
    lambda x, y: K.where(K.less(x, y), x, y),
    "LESS of two same-shape inputs, then SELECT between them (an elementwise minimum): int8 "
    "compares both inputs after rescaling to a common scale; SELECT shares one scale.",
)
op_case(
    "op_select_v2_greater_broadcast", "SELECT_V2", 6102,
    [In("x", (3, 4, 5), -2.0, 2.0), In("y", (1, 1, 5), -1.0, 0.5)],
    lambda x, y: K.where(K.greater(x, y), x, y),
    "GREATER with broadcasting [1,3,4,5] vs [1,1,1,5], then a broadcasting SELECT_V2 between the "
    "two inputs (TF gives both the output's scale).",
)
op_case(
    "op_greater_equal_const_pos", "GREATER_EQUAL", 6103,
    [In("x", (6, 7), 0.0, 3.0)],
    lambda x: K.where(K.greater_equal(x, 1.5), x, K.zeros_like(x)),
    "GREATER_EQUAL against the constant 1.5, input in [0, 3] (int8 zero point -128); SELECT "
    "between the input and zeros.",
)
op_case(
    "op_less_equal_neg", "LESS_EQUAL", 6104,
    [In("x", (5, 6), -3.0, 0.0), In("y", (5, 6), -2.0, 0.0)],
    lambda x, y: K.where(K.less_equal(x, y), x, y),
    "LESS_EQUAL of two inputs in [-3, 0] and [-2, 0] (int8 zero points 127, different scales).",
)
# One graph input with one reader: every comparison reads the output of a quantized operator,
# as in real models (the partly quantized re-quantization test keeps every third operator float).
op_case(
    "op_equal_not_equal_grid", "EQUAL", 6105,
    [In("x", (4, 6), -0.5, 0.5, dist="grid")],
    lambda x: (lambda s: K.where(K.logical_or(K.equal(s, 1.0), K.not_equal(s, 0.5)), s, s * 0.25))(x * 4.0),
    "EQUAL against 1.0 and NOT_EQUAL against 0.5 of 4x an evenly spaced input (int8: equal after "
    "rescaling both sides; TF 2.21 keeps NOT_EQUAL float behind a DEQUANTIZE), LOGICAL_OR, then "
    "SELECT.",
)
op_case(
    "op_logical_and_not", "LOGICAL_AND", 6106,
    [In("x", (7,), -1.0, 1.0)],
    lambda x: (lambda s: K.where(
        K.logical_and(K.greater(s, 0.0), K.logical_not(K.logical_or(K.less(s, -0.5), K.greater(s, 0.5)))),
        s, s * 0.25,
    ))(x * 1.5),
    "GREATER and LESS of 1.5x the input against constants, LOGICAL_OR, LOGICAL_NOT and "
    "LOGICAL_AND on BOOL tensors, then SELECT.",
)

# REDUCE_MIN -------------------------------------------------------------------
op_case(
    "op_reduce_min", "REDUCE_MIN", 6201,
    [In("x", (5, 5, 7), -1.0, 1.0)],
    lambda x: K.min(x, axis=[1, 2]),
    "REDUCE_MIN over axes [1,2].",
)
op_case(
    "op_reduce_min_axis_keepdims_pos", "REDUCE_MIN", 6202,
    [In("x", (3, 4, 9), 0.0, 2.0)],
    lambda x: K.min(x, axis=-1, keepdims=True),
    "REDUCE_MIN over the last axis, keep_dims true, input in [0, 2] (zero point -128).",
)

# ARG_MAX / ARG_MIN ------------------------------------------------------------
# keras.ops.argmax lowers to a BitwiseAnd that TFLite has no builtin for: tf.math directly.
op_case(
    "op_argmax_last_axis_i32", "ARG_MAX", 6301,
    [In("x", (3, 4, 6), -1.0, 1.0)],
    lambda x: L.Lambda(lambda t: tf.math.argmax(t, axis=-1, output_type=tf.int32), name="argmax")(x),
    "ARG_MAX over the last axis, INT32 indices (the int8 model compares raw quantized values: "
    "ties after quantization pick the first index).",
)
op_case(
    "op_argmax_axis1_i64_pos", "ARG_MAX", 6302,
    [In("x", (5, 3), 0.0, 2.0)],
    lambda x: L.Lambda(lambda t: tf.math.argmax(t, axis=1, output_type=tf.int64), name="argmax")(x),
    "ARG_MAX over a middle axis, INT64 indices, input in [0, 2] (zero point -128).",
)
op_case(
    "op_argmin_last_axis_neg", "ARG_MIN", 6303,
    [In("x", (4, 7), -2.0, 0.0)],
    lambda x: L.Lambda(lambda t: tf.math.argmin(t, axis=-1, output_type=tf.int32), name="argmin")(x),
    "ARG_MIN over the last axis, INT32 indices, input in [-2, 0] (zero point 127).",
)

# REDUCE_ANY / REDUCE_PROD / CUMSUM ----------------------------------------------
op_case(
    "op_reduce_any_select", "REDUCE_ANY", 6401,
    [In("x", (3, 5), -1.0, 1.0), In("y", (3, 5), -1.0, 1.0)],
    lambda x, y: K.where(K.any(K.greater(x, 0.7), axis=-1, keepdims=True), x, y),
    "REDUCE_ANY over the last axis (keep_dims) of a GREATER, then a broadcasting SELECT_V2.",
)
op_case(
    "op_reduce_prod", "REDUCE_PROD", 6402,
    [In("x", (4, 5), 0.5, 1.5)],
    lambda x: K.prod(x, axis=-1),
    "REDUCE_PROD over the last axis, input in [0.5, 1.5].",
)
op_case(
    "op_cumsum_axis1", "CUMSUM", 6403,
    [In("x", (4, 6), -1.0, 1.0)],
    lambda x: K.cumsum(x * 2.0, axis=1) + 0.5,
    "CUMSUM along the last axis (not exclusive, not reversed) between a MUL and an ADD: LiteRT has "
    "no integer CUMSUM, so TF keeps it float between a DEQUANTIZE and a QUANTIZE.",
)
