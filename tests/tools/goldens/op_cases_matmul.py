"""Single-operator cases for BATCH_MATMUL (one op_case() call each): two activations and a
constant RHS, adj_x / adj_y, broadcast batch dims, ranks 2 to 5, depth 1. A constant RHS of
rank >= 3 stays BATCH_MATMUL in TF 2.21 (a rank-2 one becomes FULLY_CONNECTED); with >= 1024
elements it also gets a dynamic-range (hybrid) variant, where TF writes version 4 with
asymmetric_quantize_inputs."""

from __future__ import annotations

from .frameworks import keras, tf
from .single_op import In, op_case

L = keras.layers


class MatMul(L.Layer):
    """tf.linalg.matmul(a, b) with adjoint flags; b is a second input, or a constant weight of
    shape `w_shape` (Keras' default glorot_uniform initializer, seeded); `rhs_shape` reshapes a
    run-time b first (to drop its batch dim)."""

    def __init__(self, adj_x=False, adj_y=False, w_shape=None, rhs_shape=None, **kw):
        super().__init__(**kw)
        self.adj_x, self.adj_y, self.w_shape, self.rhs_shape = adj_x, adj_y, w_shape, rhs_shape

    def build(self, *shapes):
        if self.w_shape is not None:
            self.w = self.add_weight(shape=self.w_shape, initializer="glorot_uniform", name="rhs")

    def call(self, a, b=None):
        b = self.w if b is None else b
        if self.rhs_shape is not None:
            b = tf.reshape(b, self.rhs_shape)
        return tf.linalg.matmul(a, b, adjoint_a=self.adj_x, adjoint_b=self.adj_y)


# Two activations -----------------------------------------------------------------
op_case(
    "op_bmm_acts", "BATCH_MATMUL", 9501,
    [In("a", (2, 3, 4), -1.0, 1.0), In("b", (2, 4, 5), 0.0, 2.0)],
    lambda a, b: MatMul()(a, b),
    "BATCH_MATMUL of two activations [1, 2, 3, 4] x [1, 2, 4, 5] (rhs in [0, 2]: int8 zero point "
    "-128), as attention's scores.",
)
op_case(
    "op_bmm_adj", "BATCH_MATMUL", 9502,
    [In("a", (2, 6, 3), -2.0, 1.0), In("b", (2, 5, 6), -1.0, 1.0)],
    lambda a, b: MatMul(adj_x=True, adj_y=True)(a, b),
    "BATCH_MATMUL with adj_x and adj_y: [1, 2, 6, 3]^T x [1, 2, 5, 6]^T = [1, 2, 3, 5].",
)
op_case(
    "op_bmm_adj_y", "BATCH_MATMUL", 9503,
    [In("q", (2, 7, 4), -1.0, 1.0), In("k", (2, 7, 4), -1.5, 0.5)],
    lambda q, k: MatMul(adj_y=True)(q, k),
    "BATCH_MATMUL q x k^T (adj_y only), [1, 2, 7, 4] x [1, 2, 7, 4]^T, odd row count.",
)
op_case(
    "op_bmm_broadcast_rank5", "BATCH_MATMUL", 9504,
    [In("a", (2, 3, 4, 5), -1.0, 1.0), In("b", (1, 5, 6), -1.0, 0.0)],
    lambda a, b: MatMul()(a, b),
    "BATCH_MATMUL rank 5 x rank 4 with broadcast batch dims: [1, 2, 3, 4, 5] x [1, 1, 5, 6] "
    "(rhs in [-1, 0]: int8 zero point 127).",
)
op_case(
    "op_bmm_depth1", "BATCH_MATMUL", 9505,
    [In("a", (3, 4, 1), -1.0, 1.0), In("b", (3, 1, 5), -2.0, 2.0)],
    lambda a, b: MatMul()(a, b),
    "BATCH_MATMUL with depth K = 1 (an outer product per batch): [1, 3, 4, 1] x [1, 3, 1, 5].",
)
op_case(
    "op_bmm_rank2", "BATCH_MATMUL", 9506,
    [In("a", (4,), -1.0, 1.0), In("b", (12,), -1.0, 1.0)],
    lambda a, b: MatMul(rhs_shape=(4, 3))(a, b),
    "BATCH_MATMUL of rank-2 activations, one row: [1, 4] x reshape(b, [4, 3]).",
)

# Constant RHS ----------------------------------------------------------------------
op_case(
    "op_bmm_const", "BATCH_MATMUL", 9511,
    [In("x", (3, 5, 24), -1.0, 1.0)],
    lambda x: MatMul(w_shape=(3, 24, 16))(x),
    "BATCH_MATMUL with a constant rank-3 RHS [3, 24, 16] (1152 weights: a hybrid dynamic "
    "variant) and a rank-4 LHS [1, 3, 5, 24]; TF quantizes the constant with its own asymmetric "
    "int8 range (int16 symmetric in 16x8).",
)
op_case(
    "op_bmm_const_adj", "BATCH_MATMUL", 9512,
    [In("x", (3, 24, 5), 0.0, 2.0)],
    lambda x: MatMul(adj_x=True, adj_y=True, w_shape=(3, 16, 24))(x),
    "BATCH_MATMUL with adj_x and adj_y and a constant RHS [3, 16, 24] (hybrid: the LHS is "
    "transposed before its rows are quantized); LHS in [0, 2].",
)
op_case(
    "op_bmm_const_2batch", "BATCH_MATMUL", 9513,
    [In("x", (2, 3, 4, 24), -1.0, 1.0)],
    lambda x: MatMul(w_shape=(2, 3, 24, 8))(x),
    "BATCH_MATMUL with two batch dims > 1 on both sides (rank 5 x rank 4 constant [2, 3, 24, "
    "8]): the hybrid kernel's per-row scales and column sums are indexed as LiteRT does.",
)
