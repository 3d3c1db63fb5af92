"""Single-operator cases for the multi-output data-movement ops SPLIT, SPLIT_V and UNPACK (one
op_case() call each; every output is a model output unless a case says otherwise)."""

from __future__ import annotations

from .frameworks import keras
from .single_op import In, op_case

L = keras.layers
K = keras.ops

# SPLIT ------------------------------------------------------------------------
op_case(
    "op_split_last3", "SPLIT", 9101,
    [In("x", (4, 3, 6))],
    lambda x: K.split(x, 3, axis=-1),
    "SPLIT into 3 equal parts along the last axis (negative axis), three model outputs.",
)
op_case(
    "op_split_axis1_pos", "SPLIT", 9102,
    [In("x", (6, 5), 0.0, 2.0)],
    lambda x: K.split(x, 2, axis=1),
    "SPLIT into 2 parts along axis 1 of a [1, 6, 5] input in [0, 2] (int8 zero point -128).",
)
op_case(
    "op_split_feeds_concat", "SPLIT", 9103,
    [In("x", (3, 6, 2), -3.0, 1.0)],
    lambda x: (lambda s: [K.concatenate([s[2], s[0]], axis=1), s[1]])(K.split(x, 3, axis=1)),
    "SPLIT into 3 along axis 1; parts 2 and 0 feed a CONCATENATION (in that order), part 1 is a "
    "model output: the outputs live for different spans of the arena plan.",
)

# SPLIT_V ----------------------------------------------------------------------
op_case(
    "op_split_v_sizes", "SPLIT_V", 9201,
    [In("x", (5, 7), -2.0, 0.0)],
    lambda x: K.split(x, [2, 6], axis=2),
    "SPLIT_V into sizes [2, 4, 1] along the last axis of a [1, 5, 7] input in [-2, 0] (int8 zero "
    "point 127).",
)
op_case(
    "op_split_v_axis1", "SPLIT_V", 9202,
    [In("x", (7, 2, 3))],
    lambda x: K.split(x, [1, 4], axis=1),
    "SPLIT_V into sizes [1, 3, 3] along axis 1 of a [1, 7, 2, 3] input.",
)
op_case(
    "op_split_v_empty_part", "SPLIT_V", 9203,
    [In("x", (2, 7), -1.0, 3.0)],
    lambda x: K.split(x, [3, 3], axis=-1),
    "SPLIT_V into sizes [3, 0, 4] along the last axis: the middle output is empty.",
)

# UNPACK -----------------------------------------------------------------------
op_case(
    "op_unpack_axis1", "UNPACK", 9301,
    [In("x", (3, 4, 5))],
    lambda x: K.unstack(x, axis=1),
    "UNPACK a [1, 3, 4, 5] input along axis 1: three [1, 4, 5] outputs.",
)
op_case(
    "op_unpack_last_pos", "UNPACK", 9302,
    [In("x", (4, 2), 0.0, 3.0)],
    lambda x: K.unstack(x, axis=-1),
    "UNPACK a [1, 4, 2] input in [0, 3] along the last axis (negative axis): two [1, 4] outputs.",
)
op_case(
    "op_unpack_size1", "UNPACK", 9303,
    [In("x", (3, 1, 4))],
    lambda x: K.unstack(x, axis=2),
    "UNPACK along an axis of size 1: one [1, 3, 4] output (a one-output UNPACK).",
)
