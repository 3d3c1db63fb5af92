"""Single-operator cases of the data-movement family (DEPTH_TO_SPACE, SPACE_TO_DEPTH, GATHER,
GATHER_ND, TILE, BROADCAST_TO, MIRROR_PAD, REVERSE_V2, SPACE_TO_BATCH_ND, BATCH_TO_SPACE_ND): one op_case() call each, grouped by
operator. Index inputs (indices, multiples, paddings, shapes) are int32/int64 constants that stay
unquantized. See goldens.single_op for In and op_case."""

from __future__ import annotations

import numpy as np

from .frameworks import keras, tf
from .single_op import In, op_case

L = keras.layers
K = keras.ops


def _tf(fn, name: str):
    """A Keras layer running a TF function (ops Keras has no own layer or keras.ops call for)."""
    return L.Lambda(fn, name=name)


# DEPTH_TO_SPACE ---------------------------------------------------------------
op_case(
    "op_depth_to_space", "DEPTH_TO_SPACE", 7001,
    [In("x", (4, 5, 8), -1.0, 1.0)],
    lambda x: _tf(lambda t: tf.nn.depth_to_space(t, 2), "d2s")(x),
    "DEPTH_TO_SPACE block 2: [1,4,5,8] -> [1,8,10,2] (odd width).",
)
op_case(
    "op_depth_to_space_b3_pos", "DEPTH_TO_SPACE", 7002,
    [In("x", (3, 2, 18), 0.0, 2.0)],
    lambda x: _tf(lambda t: tf.nn.depth_to_space(t, 3), "d2s")(x),
    "DEPTH_TO_SPACE block 3: [1,3,2,18] -> [1,9,6,2]; input in [0, 2] (int8 zero point -128).",
)

# SPACE_TO_DEPTH ---------------------------------------------------------------
op_case(
    "op_space_to_depth", "SPACE_TO_DEPTH", 7011,
    [In("x", (6, 4, 3), -2.0, 0.0)],
    lambda x: _tf(lambda t: tf.nn.space_to_depth(t, 2), "s2d")(x),
    "SPACE_TO_DEPTH block 2: [1,6,4,3] -> [1,3,2,12]; input in [-2, 0] (int8 zero point 127).",
)
op_case(
    "op_space_to_depth_b3", "SPACE_TO_DEPTH", 7012,
    [In("x", (3, 6, 2), -1.0, 1.0)],
    lambda x: _tf(lambda t: tf.nn.space_to_depth(t, 3), "s2d")(x),
    "SPACE_TO_DEPTH block 3: [1,3,6,2] -> [1,1,2,18].",
)

# GATHER -----------------------------------------------------------------------
op_case(
    "op_gather_axis1", "GATHER", 7021,
    [In("x", (5, 6), -1.0, 1.0)],
    lambda x: K.take(x, np.array([4, 0, 2, 2], np.int32), axis=1),
    "GATHER on axis 1 of [1,5,6] with constant int32 indices [4,0,2,2] (a repeat) -> [1,4,6].",
)
op_case(
    "op_gather_last_2d_idx", "GATHER", 7022,
    [In("x", (3, 7), 0.0, 3.0)],
    lambda x: _tf(lambda t: tf.gather(t, np.array([[6, 1], [0, 3], [5, 5]], np.int64), axis=-1), "gather")(x),
    "GATHER on the last axis (negative axis -1) of [1,3,7] with constant int64 indices of shape "
    "[3,2] -> [1,3,3,2]; input in [0, 3] (int8 zero point -128).",
)
op_case(
    "op_gather_batch_dims", "GATHER", 7023,
    [In("x", (4, 5), -2.0, 2.0)],
    lambda x: _tf(
        lambda t: tf.gather(t, np.array([[3, 0, 3]], np.int32), axis=1, batch_dims=1), "gather"
    )(x),
    "GATHER with batch_dims 1 on axis 1 of [1,4,5], constant int32 indices [[3,0,3]] -> [1,3,5].",
)

# GATHER_ND --------------------------------------------------------------------
op_case(
    "op_gather_nd", "GATHER_ND", 7031,
    [In("x", (4, 3, 5), -1.0, 1.0)],
    lambda x: _tf(lambda t: tf.gather_nd(t, np.array([[0, 3, 1], [0, 0, 2], [0, 2, 0]], np.int32)), "gather_nd")(x),
    "GATHER_ND of [1,4,3,5] with constant int32 indices [3,3] (index depth 3) -> [3,5] rows.",
)

# TILE -------------------------------------------------------------------------
op_case(
    "op_tile", "TILE", 7041,
    [In("x", (2, 3, 4), -1.0, 1.0)],
    lambda x: K.tile(x, [1, 2, 1, 3]),
    "TILE [1,2,3,4] by multiples [1,2,1,3] -> [1,4,3,12].",
)
op_case(
    "op_tile_neg", "TILE", 7042,
    [In("x", (3, 1), -2.0, 0.0)],
    lambda x: K.tile(x, [1, 1, 5]),
    "TILE [1,3,1] by [1,1,5] -> [1,3,5] (size-1 dim tiled); input in [-2, 0] (int8 zero point 127).",
)

# BROADCAST_TO -----------------------------------------------------------------
op_case(
    "op_broadcast_to", "BROADCAST_TO", 7051,
    [In("x", (3, 1), -1.0, 1.0)],
    lambda x: _tf(lambda t: tf.broadcast_to(t, (1, 4, 3, 5)), "broadcast")(x),
    "BROADCAST_TO [1,3,1] -> [1,4,3,5] (a new leading dim and a size-1 dim stretched).",
)

# MIRROR_PAD -------------------------------------------------------------------
op_case(
    "op_mirror_pad_reflect", "MIRROR_PAD", 7061,
    [In("x", (4, 5, 3), -1.0, 1.0)],
    lambda x: K.pad(x, ((0, 0), (1, 2), (2, 1), (0, 0)), mode="reflect"),
    "MIRROR_PAD REFLECT ((1,2),(2,1)) of [1,4,5,3] -> [1,7,8,3].",
)
op_case(
    "op_mirror_pad_symmetric", "MIRROR_PAD", 7062,
    [In("x", (3, 4, 2), 0.0, 2.0)],
    lambda x: K.pad(x, ((0, 0), (3, 0), (1, 4), (0, 1)), mode="symmetric"),
    "MIRROR_PAD SYMMETRIC ((3,0),(1,4),(0,1)) of [1,3,4,2] -> [1,6,9,3] (pads as large as the dim); "
    "input in [0, 2] (int8 zero point -128).",
)

# REVERSE_V2 -------------------------------------------------------------------
op_case(
    "op_reverse", "REVERSE_V2", 7071,
    [In("x", (4, 5, 3), -1.0, 1.0)],
    lambda x: K.flip(x, axis=2),
    "REVERSE_V2 of [1,4,5,3] on axis 2.",
)
op_case(
    "op_reverse_2axes", "REVERSE_V2", 7072,
    [In("x", (3, 4, 2), 0.0, 1.0)],
    lambda x: _tf(lambda t: tf.reverse(t, [2, -1]), "reverse")(x),
    "REVERSE_V2 of [1,3,4,2] on axes 2 and -1 (two adjacent axes, one negative: LiteRT refuses "
    "non-adjacent ones at run time); input in [0, 1] (int8 zero "
    "point -128).",
)
op_case(
    "op_mirror_pad_rank3", "MIRROR_PAD", 7063,
    [In("x", (6, 4), -1.0, 1.0)],
    lambda x: K.pad(x, ((0, 0), (2, 2), (3, 1)), mode="reflect"),
    "MIRROR_PAD REFLECT ((2,2),(3,1)) of a rank-3 [1,6,4] -> [1,10,8] (pad 3 = dim - 1, the largest "
    "REFLECT allows).",
)

# SPACE_TO_BATCH_ND / BATCH_TO_SPACE_ND ----------------------------------------
op_case(
    "op_space_to_batch_pad", "SPACE_TO_BATCH_ND", 7081,
    [In("x", (5, 4, 3), 0.0, 2.0)],
    lambda x: _tf(lambda t: tf.space_to_batch_nd(t, [2, 3], [[1, 0], [1, 1]]), "s2b")(x),
    "SPACE_TO_BATCH_ND block [2,3], paddings [[1,0],[1,1]]: [1,5,4,3] -> [6,3,2,3]; input in [0, 2] "
    "(int8 zero point -128: padding writes -128).",
)
op_case(
    "op_batch_to_space_crop", "BATCH_TO_SPACE_ND", 7082,
    [In("x", (3, 4, 2), -1.0, 1.0)],
    lambda x: _tf(
        lambda t: tf.batch_to_space(tf.reshape(t, (4, 3, 2, 1)), [2, 2], [[1, 0], [0, 1]]), "b2s"
    )(x),
    "BATCH_TO_SPACE_ND block [2,2], crops [[1,0],[0,1]]: [4,3,2,1] -> [1,5,3,1] (after a RESHAPE "
    "of the [1,3,4,2] input to batch 4).",
)
