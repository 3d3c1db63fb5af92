"""Single-operator cases for the shape-subgraph ops and the two normalizations: PACK,
L2_NORMALIZATION, LOG_SOFTMAX (registered in this order on import).

SHAPE, FILL, RANGE and ZEROS_LIKE have no case: with the batch-1 inputs the generator builds,
TF's converter folds them (and ONES_LIKE, which becomes FILL) into constants; the engine's tests
cover them (crate/src/ops/shape_ops/tests.rs, with a SHAPE -> STRIDED_SLICE -> PACK -> RESHAPE
chain). CAST has no case yet: a graph of CASTs alone has no quantizable operator, and TF still
gives its int8 model int8 I/O (DEQUANTIZE, CAST, CAST, QUANTIZE) where Zeropoint's quantizer keeps
the graph float; tests/rust/quantizer.rs has no expected-failure mechanism for that."""

from __future__ import annotations

from .frameworks import keras, tf
from .single_op import In, op_case

L = keras.layers
K = keras.ops

# PACK -------------------------------------------------------------------------
op_case(
    "op_pack_axis1", "PACK", 7101,
    [In("x", (3, 4), -1.0, 1.0), In("y", (3, 4), -2.0, 0.5)],
    lambda x, y: L.Lambda(lambda t: K.stack(t, axis=1), name="stack")([x, y]),
    "PACK (keras.ops.stack) of two [1,3,4] inputs with different ranges on axis 1: [1,2,3,4] "
    "(same scale in and out in int8: TF requantizes the inputs to one scale).",
)
op_case(
    "op_pack_last_pos", "PACK", 7102,
    [In("x", (5,), 0.0, 2.0), In("y", (5,), 0.0, 2.0), In("z", (5,), 0.0, 2.0)],
    lambda x, y, z: L.Lambda(lambda t: K.stack(t, axis=-1), name="stack")([x, y, z]),
    "PACK of three [1,5] inputs in [0, 2] (zero point -128) on the last axis: [1,5,3].",
)

# L2_NORMALIZATION -------------------------------------------------------------
op_case(
    "op_l2norm", "L2_NORMALIZATION", 7301,
    [In("x", (3, 7), -2.0, 2.0)],
    lambda x: L.Lambda(lambda t: tf.math.l2_normalize(t, axis=-1), name="l2norm")(x),
    "L2_NORMALIZATION (tf.math.l2_normalize over the last axis, which TF fuses; keras.ops.normalize "
    "is not fused) of [1,3,7] in [-2, 2]; int8 output fixed at scale 1/128, zero point 0.",
)
op_case(
    "op_l2norm_pos", "L2_NORMALIZATION", 7302,
    [In("x", (2, 2, 16), 0.0, 3.0)],
    lambda x: L.Lambda(lambda t: tf.math.l2_normalize(t, axis=-1), name="l2norm")(x),
    "L2_NORMALIZATION over 16 channels of a [1,2,2,16] input in [0, 3] (zero point -128).",
)

# LOG_SOFTMAX ------------------------------------------------------------------
op_case(
    "op_log_softmax", "LOG_SOFTMAX", 7401,
    [In("x", (3, 10), -4.0, 4.0)],
    lambda x: L.Lambda(lambda t: K.log_softmax(t, axis=-1), name="log_softmax")(x),
    "LOG_SOFTMAX (keras.ops.log_softmax) over 10 logits in [-4, 4], 3 rows; int8 output fixed at "
    "scale 16/256, zero point 127.",
)
op_case(
    "op_log_softmax_wide", "LOG_SOFTMAX", 7402,
    [In("x", (2, 37), -12.0, 2.0)],
    lambda x: L.Lambda(lambda t: K.log_softmax(t, axis=-1), name="log_softmax")(x),
    "LOG_SOFTMAX over 37 logits in [-12, 2] (rows start at different packet alignments; large "
    "negative differences reach the int8 kernel's diff_min cut-off).",
)
op_case(
    "op_log_softmax_wrap", "LOG_SOFTMAX", 7403,
    [In("x", (7000,), 0.0, 0.5)],
    lambda x: L.Lambda(lambda t: K.log_softmax(t, axis=-1), name="log_softmax")(x),
    "LOG_SOFTMAX over 7000 logits in [0, 0.5]: the int8 kernel's sum of exponentials (about 5500) "
    "passes the 2^12 its Q12.19 accumulator holds and wraps negative, and LiteRT's log of it "
    "saturates (SaturatingRoundingMultiplyByPOTParam has no right shift).",
)
