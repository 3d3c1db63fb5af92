"""Single-operator cases of the elementwise unary math family (ABS, NEG, SQUARE, SQRT, RSQRT,
EXP, LOG, GELU, FLOOR): one op_case() call each, registered in this order on import. See
goldens.single_op for In and op_case.

CEIL, ROUND and ELU, which LiteRT 2.3's BUILTIN_REF resolver does not register, have their cases
in op_cases_more.py (expected outputs with the op from BUILTIN_WITHOUT_DEFAULT_DELEGATES).
Exact GELU (approximate=False) runs: float as LiteRT 2.3's Eigen erfc, int8 / int16 tables from
erfc in double."""

from __future__ import annotations

from .frameworks import keras
from .single_op import In, op_case

K = keras.ops

op_case(
    "op_rsqrt", "RSQRT", 6101,
    [In("x", (4, 4, 5), 0.05, 4.0)],
    lambda x: K.rsqrt(x),
    "RSQRT on [0.05, 4] (int8 input zero point near -128; LayerNorm's 1/sqrt(var + eps)).",
)
op_case(
    "op_abs", "ABS", 6102,
    [In("x", (4, 4, 5), -3.0, 2.0)],
    lambda x: K.abs(x),
    "ABS on [-3, 2]: input and output ranges differ, so the int8 kernel rescales.",
)
op_case(
    "op_neg", "NEG", 6103,
    [In("x", (3, 5, 7), -2.0, 3.0)],
    lambda x: K.negative(x),
    "NEG on [-2, 3], odd sizes. TF keeps it float (no int8 kernel) and quantizes the model's "
    "I/O around it: DEQUANTIZE, NEG, QUANTIZE.",
)
op_case(
    "op_square", "SQUARE", 6104,
    [In("x", (4, 4, 5), -2.0, 3.0)],
    lambda x: K.square(x),
    "SQUARE on [-2, 3] (kept float by TF, as NEG).",
)
op_case(
    "op_sqrt", "SQRT", 6105,
    [In("x", (4, 4, 5), 0.0, 4.0)],
    lambda x: K.sqrt(x),
    "SQRT on [0, 4] (int8 input zero point -128).",
)
op_case(
    "op_exp", "EXP", 6106,
    [In("x", (4, 4, 5), -3.0, 1.0)],
    lambda x: K.exp(x),
    "EXP on [-3, 1].",
)
op_case(
    "op_log", "LOG", 6107,
    [In("x", (4, 4, 5), 0.1, 5.0)],
    lambda x: K.log(x),
    "LOG on [0.1, 5].",
)
op_case(
    "op_gelu_approx", "GELU", 6110,
    [In("x", (3, 5, 7), -4.0, 3.0)],
    lambda x: K.gelu(x, approximate=True),
    "GELU, tanh approximation, on [-4, 3]; 105 elements, so the float kernel's 8-lane loop has a "
    "tail.",
)
op_case(
    "op_gelu_exact", "GELU", 6112,
    [In("x", (3, 5, 7), -5.0, 3.0)],
    lambda x: K.gelu(x, approximate=False),
    "GELU, exact (erfc) form, on [-5, 3]: x/sqrt(2) beyond 1 in magnitude takes the large branch "
    "of Eigen's erfc.",
)
op_case(
    "op_gelu_exact_wide", "GELU", 6113,
    [In("x", (4, 8, 8), -8.0, 8.0, dist="grid")],
    lambda x: K.gelu(x, approximate=False),
    "GELU, exact form, on an even grid over [-8, 8] (256 points per sample): every int8 / int16 "
    "table entry's neighbourhood and erfc's clamp.",
)
op_case(
    "op_floor", "FLOOR", 6111,
    [In("x", (4, 4, 5), -3.0, 3.0)],
    lambda x: K.floor(x),
    "FLOOR on [-3, 3] (kept float by TF, as NEG).",
)
# Edge cases: zero points at the ends of the int8 range, inputs at the zero point.
op_case(
    "op_abs_neg", "ABS", 6121,
    [In("x", (3, 5, 7), -3.0, 0.0)],
    lambda x: K.abs(x),
    "ABS on [-3, 0]: int8 input zero point 127, output zero point -128.",
)
op_case(
    "op_rsqrt_near0", "RSQRT", 6122,
    [In("x", (3, 5, 7), 0.001, 1.0, dist="grid")],
    lambda x: K.rsqrt(x),
    "RSQRT on an even grid over [0.001, 1]: the smallest inputs quantize to the int8 zero point "
    "(-128), which LiteRT's int8 kernel maps to 127.",
)
op_case(
    "op_exp_neg", "EXP", 6123,
    [In("x", (3, 5, 7), -5.0, 0.0)],
    lambda x: K.exp(x),
    "EXP on [-5, 0]: int8 input zero point 127.",
)
