//! The one table of operators ([`OPS`]): for each operator Zeropoint knows (builtin, or custom by
//! its custom code: `TFLite_Detection_PostProcess`), its prepare
//! function, the tensor types the engine runs it with, the quantizer's properties, the names of
//! its inputs and the arithmetic its integer kernel reproduces. Everything else reads this table:
//! the engine's prepare step ([`lookup`]: a row without a prepare function is reported as
//! unsupported, with all the others, at load time), the quantizer ([`properties`]), the README's
//! supported-op table and the page's op roles (both generated from it by
//! `tests/rust/op_table.rs`, which fails when they are stale).
//!
//! Adding an operator: write its `prepare_*` and kernel in the op family's file (`ops/<family>`,
//! `kernels/reference/<family>`), add one row here, and run
//! `ZP_BLESS=1 cargo test -p zeropoint-tests --test op_table` to regenerate the README table and
//! `www/src/model/op-table.ts`. Its goldens come from `tests/tools/make_goldens.py`.

use super::properties::{
    OpProperties, SCALE_1_128, SCALE_1_256, SCALE_1_32768, bool_out, fixed, hybrid_const,
    index_out, int16_at, per_tensor_weights, plain, same, same_scale_in_16x8, weighted, with16,
};
use super::{
    PrepareFn, activations, batch_matmul, compare, control_flow, conv, detection, elementwise,
    embedding, fully_connected, layout, lstm, lstm_bidi, math, mediapipe, mediapipe_landmarks,
    normalize, pool, quantize, reduce, resize, rnn, shape, shape_ops, split, variables,
};
use crate::graph::BuiltinOperator as Op;
use crate::graph::OpCode;

/// The tensor types the engine runs an operator with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Runs {
    /// Float32 activations (and float16 / int8 constants behind DEQUANTIZE).
    pub float: bool,
    /// Int8 (and uint8) activations.
    pub int8: bool,
    /// Int16 activations (TFLite's 16x8 scheme).
    pub int16: bool,
    /// Float activations with int8 weights (dynamic-range "hybrid" kernels).
    pub hybrid: bool,
}

impl Runs {
    /// Whether the engine runs the operator at all.
    pub const fn any(self) -> bool {
        self.float || self.int8 || self.int16 || self.hybrid
    }
}

const NONE: Runs = Runs {
    float: false,
    int8: false,
    int16: false,
    hybrid: false,
};
/// Float only.
const F: Runs = Runs {
    float: true,
    ..NONE
};
/// Float and int8.
const F8: Runs = Runs { int8: true, ..F };
/// Float, int8 and int16.
const F816: Runs = Runs { int16: true, ..F8 };
/// Float and hybrid (int8 weights, float activations).
const FH: Runs = Runs { hybrid: true, ..F };
/// Float, int8 and hybrid (int8 weights or tables, float activations).
const F8H: Runs = Runs { int8: true, ..FH };
/// Float, int8, int16 and hybrid.
const ALL: Runs = Runs {
    hybrid: true,
    ..F816
};
/// Integer only (QUANTIZE).
const I816: Runs = Runs {
    int8: true,
    int16: true,
    ..NONE
};

/// One operator: everything the engine, the quantizer and the docs know about it.
#[derive(Debug, Clone, Copy)]
pub struct OpEntry {
    /// The builtin operator (`CUSTOM` for a custom operator's row).
    pub op: Op,
    /// The custom code of a custom operator's row (`TFLite_Detection_PostProcess`), `None` for
    /// builtins. Rows are keyed by `(op, custom)`.
    pub custom: Option<&'static str>,
    /// Its prepare function, or `None` when the engine has no kernel for it yet (the quantizer
    /// may still know its properties).
    pub prepare: Option<PrepareFn>,
    /// The op family: the file under `ops/` (and `kernels/reference/`) its code lives in.
    pub family: &'static str,
    /// Which tensor types the engine runs it with.
    pub runs: Runs,
    /// The quantizer's properties, or `None` when the quantizer keeps it float.
    pub quant: Option<OpProperties>,
    /// Names of its inputs in order, for ops whose inputs are not interchangeable (empty
    /// otherwise).
    pub inputs: &'static [&'static str],
    /// The arithmetic its integer kernel reproduces, as the goldens decided (empty when it only
    /// moves values).
    pub arithmetic: &'static str,
    /// The operator versions LiteRT 2.3's default resolver (`register.cc`) registers, lowest and
    /// highest: it refuses a model asking for any other ("Didn't find op for builtin opcode 'X'
    /// version 'N'"), so the engine refuses it and the quantizer never writes one. Measured
    /// against the pinned LiteRT by `tests/tools/op_versions.py` into
    /// `tests/fixtures/litert_op_versions.json`, which `tests/rust/op_table.rs` checks this
    /// column against. `BUILTIN_REF` (`register_ref.cc`) registers fewer for some builtins
    /// (e.g. DEPTH_TO_SPACE 1, TILE 2, ADD 5; see the fixture), but TF writes the default
    /// resolver's versions, so this is the default resolver's range. Custom operators: LiteRT
    /// registers `TFLite_Detection_PostProcess` at version 1 only (measured: 0, 2, 3 and 2^31−1
    /// are "unresolved custom op"); MediaPipe's are judged at any version (`1..=i32::MAX`).
    pub versions: (i32, i32),
}

impl OpEntry {
    /// The operator's name (`CONV_2D`, or a custom operator's custom code), as
    /// [`OpCode::name`](crate::graph::OpCode::name) names it.
    pub fn name(&self) -> &'static str {
        self.custom
            .unwrap_or_else(|| self.op.variant_name().unwrap_or("?"))
    }

    /// Whether this row is a custom operator's (keyed by custom code).
    pub fn is_custom(&self) -> bool {
        self.custom.is_some()
    }

    /// What the quantizer does with the operator, in words: its properties, TF's integer LSTM
    /// (written by its own stage, `quant/passes/full_integer/lstm.rs`, without properties), or
    /// "kept float".
    pub fn quantizer(&self) -> String {
        match self.quant {
            Some(q) => q.describe(),
            None if self.custom.is_none() && self.op == Op::UNIDIRECTIONAL_SEQUENCE_LSTM => {
                "int8: TF's integer LSTM (weights int8 per tensor, biases int32, int16 \
                 power-of-two cell state, output state at the output's parameters, five \
                 intermediates); kept float in 16x8"
                    .to_string()
            }
            None => "kept float".to_string(),
        }
    }

    /// What Zeropoint does with the operator, in words, as `inspect` and the page's details panel
    /// say it: "Runs float, int8, int16, hybrid · quantizer: weights per channel (axis 0), …".
    pub fn support(&self) -> String {
        let r = self.runs;
        let types: Vec<&str> = [
            (r.float, "float"),
            (r.int8, "int8"),
            (r.int16, "int16"),
            (r.hybrid, "hybrid"),
        ]
        .iter()
        .filter(|(on, _)| *on)
        .map(|(_, t)| *t)
        .collect();
        let runs = if types.is_empty() {
            "No kernel yet".to_string()
        } else {
            format!("Runs {}", types.join(", "))
        };
        let quant = self.quantizer();
        if self.is_custom() {
            format!("Custom operator · {runs} · quantizer: {quant}")
        } else {
            format!("{runs} · quantizer: {quant}")
        }
    }
}

/// What Zeropoint does with an operator that has no row: a custom operator, or a builtin it does
/// not know.
pub const NO_ROW_SUPPORT: &str =
    "Not in the op table: no kernel, kept float (custom operators are kept as they are)";

/// [`OpEntry::support`] of the operator named `name` (`CONV_2D`, or a custom code), or
/// [`NO_ROW_SUPPORT`].
pub fn support_of(name: &str) -> String {
    OPS.iter()
        .find(|e| e.name() == name)
        .map_or_else(|| NO_ROW_SUPPORT.to_string(), OpEntry::support)
}

/// A row with every field; the `row!` shorthand below fills the rest. Its second argument is the
/// range of versions LiteRT registers ([`OpEntry::versions`]).
macro_rules! row {
    ($op:ident, $lo:literal ..= $hi:literal, $family:ident :: $prepare:ident, $runs:expr, $quant:expr, $inputs:expr, $arith:expr) => {
        OpEntry {
            versions: ($lo, $hi),
            op: Op::$op,
            custom: None,
            prepare: Some($family::$prepare),
            family: stringify!($family),
            runs: $runs,
            quant: $quant,
            inputs: $inputs,
            arithmetic: $arith,
        }
    };
    // A custom operator, keyed by its custom code; the quantizer keeps custom operators float
    // (TF's converter leaves them as they are, a DEQUANTIZE in front of integer inputs).
    (custom $code:literal, $family:ident :: $prepare:ident, $runs:expr, $inputs:expr, $arith:expr) => {
        row!(custom $code @ 1..=i32::MAX, $family::$prepare, $runs, $inputs, $arith)
    };
    // A custom operator LiteRT registers at the given versions only.
    (custom $code:literal @ $lo:literal ..= $hi:expr, $family:ident :: $prepare:ident, $runs:expr, $inputs:expr, $arith:expr) => {
        OpEntry {
            versions: ($lo, $hi),
            op: Op::CUSTOM,
            custom: Some($code),
            prepare: Some($family::$prepare),
            family: stringify!($family),
            runs: $runs,
            quant: None,
            inputs: $inputs,
            arithmetic: $arith,
        }
    };
    // Known to the quantizer only: no kernel yet.
    ($op:ident, $lo:literal ..= $hi:literal, quantizer only, $quant:expr) => {
        OpEntry {
            versions: ($lo, $hi),
            op: Op::$op,
            custom: None,
            prepare: None,
            family: "",
            runs: NONE,
            quant: Some($quant),
            inputs: &[],
            arithmetic: "",
        }
    };
}

/// BIDIRECTIONAL_SEQUENCE_LSTM's 48 inputs.
const BIDI_LSTM_INPUTS: &[&str] = &[
    "input",
    "fw_input_to_input_w",
    "fw_input_to_forget_w",
    "fw_input_to_cell_w",
    "fw_input_to_output_w",
    "fw_recurrent_to_input_w",
    "fw_recurrent_to_forget_w",
    "fw_recurrent_to_cell_w",
    "fw_recurrent_to_output_w",
    "fw_cell_to_input_w",
    "fw_cell_to_forget_w",
    "fw_cell_to_output_w",
    "fw_input_gate_bias",
    "fw_forget_gate_bias",
    "fw_cell_gate_bias",
    "fw_output_gate_bias",
    "fw_projection_w",
    "fw_projection_bias",
    "bw_input_to_input_w",
    "bw_input_to_forget_w",
    "bw_input_to_cell_w",
    "bw_input_to_output_w",
    "bw_recurrent_to_input_w",
    "bw_recurrent_to_forget_w",
    "bw_recurrent_to_cell_w",
    "bw_recurrent_to_output_w",
    "bw_cell_to_input_w",
    "bw_cell_to_forget_w",
    "bw_cell_to_output_w",
    "bw_input_gate_bias",
    "bw_forget_gate_bias",
    "bw_cell_gate_bias",
    "bw_output_gate_bias",
    "bw_projection_w",
    "bw_projection_bias",
    "fw_output_state",
    "fw_cell_state",
    "bw_output_state",
    "bw_cell_state",
    "aux_input",
    "fw_aux_input_to_input_w",
    "fw_aux_input_to_forget_w",
    "fw_aux_input_to_cell_w",
    "fw_aux_input_to_output_w",
    "bw_aux_input_to_input_w",
    "bw_aux_input_to_forget_w",
    "bw_aux_input_to_cell_w",
    "bw_aux_input_to_output_w",
];

/// UNIDIRECTIONAL_SEQUENCE_LSTM's 24 inputs.
const LSTM_INPUTS: &[&str] = &[
    "input",
    "input_to_input_w",
    "input_to_forget_w",
    "input_to_cell_w",
    "input_to_output_w",
    "recurrent_to_input_w",
    "recurrent_to_forget_w",
    "recurrent_to_cell_w",
    "recurrent_to_output_w",
    "cell_to_input_w",
    "cell_to_forget_w",
    "cell_to_output_w",
    "input_gate_bias",
    "forget_gate_bias",
    "cell_gate_bias",
    "output_gate_bias",
    "projection_w",
    "projection_bias",
    "output_state",
    "cell_state",
    "input_layer_norm",
    "forget_layer_norm",
    "cell_layer_norm",
    "output_layer_norm",
];
const CONV_INPUTS: &[&str] = &["input", "weights", "bias"];
const CONV_ARITH: &str = "int8: per-channel Q31 multiplier, double rounding (single rounding is 1 LSB off); \
     16x8 int64 bias: multiplier reduced to 15 bits, one rounding shift";
const COPY: &str = "copy";
const CMP_ARITH: &str =
    "each side `((q − zp) << 8)` times its own scale as a Q31 multiplier, one gemmlowp rounding";

/// Every operator Zeropoint knows, grouped by op family. One row per operator, one line per row
/// (kept unformatted so the table reads as a table).
#[rustfmt::skip]
pub const OPS: &[OpEntry] = &[
    // ops/conv.rs
    row!(CONV_2D, 1..=8, conv::prepare_conv2d, ALL, Some(with16(weighted(0, 0, 2, 3, 5))), CONV_INPUTS, CONV_ARITH),
    row!(DEPTHWISE_CONV_2D, 1..=7, conv::prepare_depthwise_conv2d, ALL, Some(with16(weighted(3, 0, 2, 3, 6))), CONV_INPUTS, "as CONV_2D"),
    row!(TRANSPOSE_CONV, 1..=5, conv::prepare_transpose_conv, ALL, Some(int16_at(weighted(0, 2, 3, 2, 2), 3)), &["output shape", "weights", "input", "bias"], "as CONV_2D"),
    // ops/fully_connected.rs
    row!(FULLY_CONNECTED, 1..=14, fully_connected::prepare_fully_connected, ALL, Some(with16(weighted(0, 0, 2, 4, 12))), CONV_INPUTS, "rescale in double, `round(acc · s_in·s_w/s_out)` (the fixed-point multiplier is 1 LSB off on 16x8)"),
    // ops/batch_matmul.rs (TF 2.21: both operands and a constant RHS get their own range; the
    // dynamic-range converter quantizes a constant RHS per tensor for the hybrid kernel, v4)
    row!(BATCH_MATMUL, 1..=4, batch_matmul::prepare_batch_matmul, ALL, Some(hybrid_const(with16(plain(2)), 1, 4)), &["lhs", "rhs"], "one multiplier `(double)(s_l·s_r)/s_out` (product in float); int8: double rounding; int16: int64 accumulator, 15-bit multiplier, one rounding shift; hybrid: LHS rows quantized at run time as FULLY_CONNECTED, LiteRT's per-row scale indexing kept"),
    // ops/elementwise.rs
    row!(ADD, 1..=6, elementwise::prepare_binary, F816, Some(with16(plain(2))), &[], "left shift 20 (int8) / 15 (int16), input and output multipliers in double, double rounding"),
    row!(SUB, 1..=5, elementwise::prepare_binary, F816, Some(with16(plain(2))), &[], "as ADD"),
    row!(MUL, 1..=8, elementwise::prepare_binary, F816, Some(with16(plain(2))), &[], "multiplier `s1·s2/s_out` in float, double rounding"),
    row!(DIV, 1..=2, elementwise::prepare_binary, F, None, &[], ""),
    row!(MAXIMUM, 1..=4, elementwise::prepare_binary, F816, Some(with16(same(2))), &[], "raw compare (same scale required)"),
    row!(MINIMUM, 1..=4, elementwise::prepare_binary, F816, Some(with16(same(2))), &[], "raw compare (same scale required)"),
    row!(SQUARED_DIFFERENCE, 1..=2, elementwise::prepare_binary, F8, Some(plain(2)), &[], "as SUB (left shift 7), the difference squared in int32, output multiplier `(2·max s_in)² / (2^14·s_out)`, double rounding; TF 2.21 has no 16x8 SQUARED_DIFFERENCE"),
    // ops/activations.rs
    row!(RELU, 1..=3, activations::prepare_unary, F816, Some(with16(plain(2))), &[], "`ReluX`: multiplier in float, double rounding"),
    row!(RELU6, 1..=3, activations::prepare_unary, F816, Some(with16(plain(2))), &[], "as RELU"),
    // TF 2.21 writes an int8 RELU_N1_TO_1 as version 1, the only one LiteRT registers.
    row!(RELU_N1_TO_1, 1..=1, activations::prepare_unary, F816, Some(plain(1)), &[], "as RELU"),
    row!(LOGISTIC, 1..=3, activations::prepare_unary, F816, Some(with16(fixed((SCALE_1_256, -128), (SCALE_1_32768, 0)))), &[], "int8: 256-entry table from the float function at prepare; int16: LiteRT's interpolated fixed table"),
    row!(TANH, 1..=3, activations::prepare_unary, F816, Some(with16(fixed((SCALE_1_128, 0), (SCALE_1_32768, 0)))), &[], "as LOGISTIC"),
    row!(LEAKY_RELU, 1..=2, activations::prepare_unary, F816, Some(int16_at(plain(1), 2)), &[], "identity and alpha multipliers in float, double rounding"),
    row!(HARD_SWISH, 1..=1, activations::prepare_unary, F8, Some(plain(1)), &[], "LiteRT's 16-bit fixed point (`reluish` multiplier); no int16 kernel in LiteRT"),
    row!(SOFTMAX, 1..=4, activations::prepare_unary, F816, Some(with16(fixed((SCALE_1_256, -128), (SCALE_1_32768, 0)))), &[], "int8: gemmlowp fixed-point exp + reciprocal; int16: two 513-entry interpolated tables"),
    row!(PRELU, 1..=1, activations::prepare_prelu, F8, Some(per_tensor_weights(1)), &["input", "alpha"], "double rounding, multipliers in float; no int16 kernel in LiteRT"),
    // ops/math.rs
    row!(RSQRT, 1..=3, math::prepare_unary_math, F816, Some(with16(plain(2))), &[], "int8: fixed-point Newton inverse square root, two double-rounding multipliers; int16: interpolated table built in float"),
    row!(ABS, 1..=5, math::prepare_unary_math, F816, Some(with16(plain(2))), &[], "`|q − z_in|`, multiplier `s_in/s_out` in float, double rounding"),
    row!(NEG, 1..=1, math::prepare_unary_math, F, None, &[], ""),
    row!(SQUARE, 1..=1, math::prepare_unary_math, F, None, &[], ""),
    row!(SQRT, 1..=2, math::prepare_unary_math, F8, Some(plain(2)), &[], "float path, `(int)(sqrt(x) / s_out)` truncated; TF has no 16x8 SQRT"),
    row!(EXP, 1..=2, math::prepare_unary_math, F816, Some(with16(plain(2))), &[], "int8: 256-entry table from the float function; int16: interpolated table built in float"),
    row!(LOG, 1..=2, math::prepare_unary_math, F816, Some(with16(plain(2))), &[], "as EXP (inputs ≤ 0 map to the lowest output)"),
    row!(GELU, 1..=3, math::prepare_unary_math, F816, Some(with16(plain(2))), &[], "float: Eigen's vectorized tanh / erfc; int8 / int16: tables from the scalar function (`tanhf`; the exact form's `erfcf` evaluated in double), as EXP"),
    row!(FLOOR, 1..=1, math::prepare_unary_math, F, None, &[], ""),
    // CEIL, ROUND and ELU: LiteRT 2.3's BUILTIN_REF resolver lacks them (their goldens come
    // from BUILTIN_WITHOUT_DEFAULT_DELEGATES). TF 2.21 keeps all three float in its int8 models
    // (DEQUANTIZE, op, QUANTIZE) and refuses them in 16x8; LiteRT registers version 1 only.
    row!(CEIL, 1..=1, math::prepare_unary_math, F, None, &[], ""),
    row!(ROUND, 1..=1, math::prepare_unary_math, F, None, &[], "float: LiteRT's `RoundToNearest` (half to even; +0.0 for negatives rounding to zero)"),
    row!(ELU, 1..=1, math::prepare_unary_math, F8, None, &[], "int8: 256-entry table of `x < 0 ? exp(x) − 1 : x` built in float (`LUTPopulate<int8_t>`); float: `expm1`"),
    // ops/pool.rs
    row!(AVERAGE_POOL_2D, 1..=3, pool::prepare_pool, F816, Some(with16(same(2))), &[], "rounded average, ties away from zero"),
    row!(MAX_POOL_2D, 1..=3, pool::prepare_pool, F816, Some(with16(same(2))), &[], "raw max"),
    // ops/reduce.rs
    row!(MEAN, 1..=3, reduce::prepare_reduce, F816, Some(with16(plain(2))), &["input", "axes"], "`in_scale/out_scale` in double with 1/n folded into the shift, double rounding"),
    row!(SUM, 1..=2, reduce::prepare_reduce, F816, Some(same_scale_in_16x8(with16(plain(2)))), &["input", "axes"], "int8: raw sum in int32, `round(sum · s_in/s_out − zp_in · s_in/s_out · n)` in float plus the output zero point (LiteRT's optimized kernel; BUILTIN_REF 2.3 reads 8-bit inputs as unsigned, goldens from the optimized resolver); int16: as MEAN"),
    row!(REDUCE_MAX, 1..=3, reduce::prepare_reduce, F816, Some(with16(same(2))), &["input", "axes"], "raw max"),
    row!(REDUCE_MIN, 1..=3, reduce::prepare_reduce, F816, Some(with16(same(2))), &["input", "axes"], "raw min"),
    row!(REDUCE_PROD, 1..=2, reduce::prepare_reduce, F816, Some(with16(plain(2))), &["input", "axes"], "running product, each step rescaled by `s_in / s_out^(1/n)` (Q31, double rounding)"),
    row!(REDUCE_ANY, 1..=1, reduce::prepare_reduce, F8, Some(bool_out(plain(1))), &["input", "axes"], ""),
    row!(CUMSUM, 1..=1, reduce::prepare_cumsum, F, None, &["input", "axis"], ""),
    row!(ARG_MAX, 1..=3, reduce::prepare_arg_min_max, F8, Some(index_out(plain(2))), &["input", "axis"], "raw compare, first index of ties"),
    row!(ARG_MIN, 1..=3, reduce::prepare_arg_min_max, F8, Some(index_out(plain(2))), &["input", "axis"], "as ARG_MAX"),
    // ops/compare.rs
    row!(EQUAL, 1..=5, compare::prepare_comparison, F8, Some(bool_out(plain(2))), &[], CMP_ARITH),
    // TF 2.21 keeps NOT_EQUAL float (its inputs are dequantized), though LiteRT has the int8 kernel.
    row!(NOT_EQUAL, 1..=4, compare::prepare_comparison, F8, None, &[], CMP_ARITH),
    row!(LESS, 1..=3, compare::prepare_comparison, F8, Some(bool_out(plain(2))), &[], CMP_ARITH),
    row!(LESS_EQUAL, 1..=2, compare::prepare_comparison, F8, Some(bool_out(plain(2))), &[], CMP_ARITH),
    row!(GREATER, 1..=2, compare::prepare_comparison, F8, Some(bool_out(plain(2))), &[], CMP_ARITH),
    row!(GREATER_EQUAL, 1..=3, compare::prepare_comparison, F8, Some(bool_out(plain(2))), &[], CMP_ARITH),
    // BOOL in and out: they run unchanged in float and integer models.
    row!(LOGICAL_AND, 1..=1, compare::prepare_logical, F8, Some(bool_out(plain(1))), &[], ""),
    row!(LOGICAL_OR, 1..=1, compare::prepare_logical, F8, Some(bool_out(plain(1))), &[], ""),
    row!(LOGICAL_NOT, 1..=1, compare::prepare_logical, F8, Some(bool_out(plain(1))), &[], ""),
    row!(SELECT, 1..=4, compare::prepare_select, F8, Some(same(1)), &["condition", "x", "y"], COPY),
    row!(SELECT_V2, 1..=2, compare::prepare_select, F8, Some(same(1)), &["condition", "x", "y"], COPY),
    // ops/shape.rs
    row!(RESHAPE, 1..=1, shape::prepare_reshape, F816, Some(with16(same(1))), &["input", "shape"], COPY),
    row!(SQUEEZE, 1..=2, shape::prepare_squeeze, F816, Some(with16(same(1))), &[], COPY),
    row!(EXPAND_DIMS, 1..=1, shape::prepare_expand_dims, F816, Some(with16(same(1))), &["input", "axis"], COPY),
    row!(TRANSPOSE, 1..=9, shape::prepare_transpose, F816, Some(with16(same(2))), &["input", "permutation"], COPY),
    row!(CONCATENATION, 1..=7, shape::prepare_concatenation, F816, Some(with16(same(2))), &[], "copy; differing input scales rescaled in float"),
    row!(PAD, 1..=6, shape::prepare_pad, F816, Some(with16(same(2))), &["input", "paddings"], "pads with the output zero point"),
    row!(PADV2, 1..=6, shape::prepare_pad, F816, Some(with16(same(2))), &["input", "paddings", "constant"], "as PAD"),
    row!(STRIDED_SLICE, 1..=8, shape::prepare_strided_slice, F816, Some(with16(same(2))), &["input", "begin", "end", "strides"], COPY),
    row!(SLICE, 1..=8, shape::prepare_slice, F816, Some(with16(same(2))), &["input", "begin", "size"], COPY),
    row!(DENSIFY, 1..=1, shape::prepare_densify, F, None, &[], "sparse constant expanded at load"),
    // ops/layout.rs
    row!(DEPTH_TO_SPACE, 1..=2, layout::prepare_depth_to_space, F8, Some(same(2)), &[], COPY),
    row!(SPACE_TO_DEPTH, 1..=2, layout::prepare_space_to_depth, F8, Some(same(2)), &[], COPY),
    row!(GATHER, 1..=8, layout::prepare_gather, F816, Some(with16(same(2))), &["input", "indices"], COPY),
    // ops/embedding.rs (TF 2.21's int8: the table int8, its output sharing its parameters)
    row!(EMBEDDING_LOOKUP, 1..=5, embedding::prepare_embedding_lookup, F8H, Some(same(1)), &["ids", "table"], "rows copied; hybrid: `q · scale` in double, scale per tensor or per row (uint8 tables read as int8, as LiteRT)"),
    row!(GATHER_ND, 1..=6, layout::prepare_gather_nd, F816, Some(int16_at(same(1), 3)), &["input", "indices"], COPY),
    row!(TILE, 1..=3, layout::prepare_tile, F816, Some(with16(same(3))), &["input", "multiples"], COPY),
    row!(BROADCAST_TO, 2..=4, layout::prepare_broadcast_to, F816, Some(with16(same(3))), &["input", "shape"], COPY),
    row!(MIRROR_PAD, 1..=3, layout::prepare_mirror_pad, F816, Some(with16(same(2))), &["input", "paddings"], COPY),
    row!(REVERSE_V2, 1..=4, layout::prepare_reverse, F816, Some(with16(same(3))), &["input", "axes"], COPY),
    row!(SPACE_TO_BATCH_ND, 1..=4, layout::prepare_space_to_batch, F816, Some(with16(same(2))), &["input", "block shape", "paddings"], "pads with the output zero point"),
    row!(BATCH_TO_SPACE_ND, 1..=4, layout::prepare_batch_to_space, F816, Some(with16(same(2))), &["input", "block shape", "crops"], COPY),
    // ops/shape_ops.rs
    row!(SHAPE, 1..=1, shape_ops::prepare_shape, F816, Some(index_out(plain(1))), &[], "folded at prepare (INT32/INT64 output)"),
    row!(PACK, 1..=5, shape_ops::prepare_pack, F816, Some(with16(same(2))), &[], COPY),
    row!(CAST, 1..=9, shape_ops::prepare_cast, F, None, &[], "per element: float → integer truncates and saturates (NaN → the largest value), integer narrowing wraps (`static_cast`)"),
    row!(FILL, 1..=5, shape_ops::prepare_fill, F816, Some(with16(same(3))), &["dims", "value"], COPY),
    row!(ZEROS_LIKE, 1..=1, shape_ops::prepare_zeros_like, F, None, &[], "folded at prepare"),
    row!(RANGE, 1..=2, shape_ops::prepare_range, F, None, &["start", "limit", "delta"], "folded at prepare; repeated addition"),
    // ops/normalize.rs
    row!(L2_NORMALIZATION, 1..=2, normalize::prepare_l2_normalization, F8, Some(fixed((SCALE_1_128, 0), (SCALE_1_128, 0))), &[], "int8: inverse square root of the i32 sum of squares by gemmlowp Newton-Raphson, double rounding; no int16 kernel in LiteRT"),
    row!(LOG_SOFTMAX, 1..=2, normalize::prepare_log_softmax, F8, Some(fixed((16.0 / 256.0, 127), (16.0 / 256.0, 127))), &[], "int8: gemmlowp fixed-point exp, sum in Q12, log in Q5.26; no int16 kernel in LiteRT"),
    // ops/split.rs
    row!(SPLIT, 1..=5, split::prepare_split, F816, Some(with16(same(2))), &["axis", "input"], COPY),
    row!(SPLIT_V, 1..=3, split::prepare_split_v, F816, Some(with16(same(2))), &["input", "size_splits", "axis"], COPY),
    row!(UNPACK, 1..=6, split::prepare_unpack, F816, Some(int16_at(same(2), 1)), &[], COPY),
    // ops/resize.rs
    row!(RESIZE_BILINEAR, 1..=4, resize::prepare_resize, F816, Some(with16(same(2))), &["input", "size"], "10-bit fixed-point coordinates, rounding shift by 20"),
    row!(RESIZE_NEAREST_NEIGHBOR, 1..=4, resize::prepare_resize, F816, Some(with16(same(2))), &["input", "size"], COPY),
    // ops/quantize.rs
    row!(QUANTIZE, 1..=6, quantize::prepare_quantize, I816, None, &[], "float→int `round(x / scale)` in float; int→int double rounding, multiplier in double"),
    row!(DEQUANTIZE, 1..=9, quantize::prepare_dequantize, F816, None, &[], "product in double"),
    // ops/control_flow.rs
    row!(UNIDIRECTIONAL_SEQUENCE_LSTM, 1..=4, lstm::prepare_unidirectional_sequence_lstm, F8H, None, LSTM_INPUTS, "float: lstm_eval.cc's step, each gate `act(W_rec·h + (W_in·x + bias))`, products by Eigen's SSE matrix × vector (4 lanes), Eigen's logistic / tanh, cell clip; hybrid: input and output state quantized per row (asymmetric as the option says), int32 products scaled by `s_row·s_w`; int8 (8x8→16): int16 Q3.12 gates from two int32 products each rescaled by MultiplyByQuantizedMultiplier (double rounding) and added with int16 saturation, gemmlowp int16 logistic / tanh, int16 cell state with a power-of-two scale, output `o·tanh(c)` requantized plus the hidden zero point (LiteRT's tanh of a cell scale outside 2^-15..2^-9 leaves the input gate in its place, reproduced); state kept per tensor across invocations until reset (operators naming one state tensor share it, in execution order)"),
    row!(BIDIRECTIONAL_SEQUENCE_LSTM, 1..=3, lstm_bidi::prepare_bidirectional_sequence_lstm, FH, None, BIDI_LSTM_INPUTS, "two LSTMs over the sequence, forward and backward (last step first), each with UNIDIRECTIONAL_SEQUENCE_LSTM's float or hybrid step and its own states; one output per direction or both merged per row; state kept per tensor across invocations until reset (operators naming one state tensor share it, in execution order)"),
    // ops/rnn.rs
    row!(UNIDIRECTIONAL_SEQUENCE_RNN, 1..=3, rnn::prepare_unidirectional_sequence_rnn, FH, None, &["input", "input_w", "recurrent_w", "bias", "hidden_state"], "float: `kernel_utils::RnnBatchStep`, each step `act(bias + W_in·x + W_rec·h)`, each product as the NEON `MatrixBatchVectorMultiplyAccumulate` through SSE (4 lane accumulators summed in order, then the leftover columns into the output), Eigen's tanh; hybrid: input and state quantized per row (as the option says), int32 products scaled by `s_row·s_w`; state kept per tensor across invocations until reset (operators naming one state tensor share it, in execution order)"),
    row!(WHILE, 1..=1, control_flow::prepare_while, F816, None, &[], "runs the cond and body subgraphs; the state is copied"),
    row!(IF, 1..=1, control_flow::prepare_if, F816, None, &["condition"], "runs the then or else subgraph"),
    // ops/variables.rs
    row!(VAR_HANDLE, 1..=1, variables::prepare_var_handle, F816, None, &[], "resource id of (container, shared_name), folded at prepare"),
    row!(READ_VARIABLE, 1..=1, variables::prepare_read_variable, F816, None, &["resource"], COPY),
    row!(ASSIGN_VARIABLE, 1..=1, variables::prepare_assign_variable, F816, None, &["resource", "value"], COPY),
    row!(CALL_ONCE, 1..=1, variables::prepare_call_once, F816, None, &[], "runs the init subgraph at the first invocation after prepare or reset"),
    // Custom operators, by custom code (kept float by the quantizer, as TF's converter does).
    // ops/detection.rs
    row!(custom "TFLite_Detection_PostProcess" @ 1..=1, detection::prepare_detection_postprocess, F, &["box encodings", "class predictions", "anchors"], "UINT8 box encodings / scores / anchors dequantized inside the op (float arithmetic), as LiteRT"),
    // ops/mediapipe.rs
    row!(custom "Convolution2DTransposeBias", mediapipe::prepare_transpose_conv_bias, F, &["input", "weights", "bias"], "float only (MediaPipe's kernel: the sum starts at the bias)"),
    row!(custom "Landmarks2TransformMatrix", mediapipe_landmarks::prepare_landmarks_to_transform_matrix, F, &["landmarks"], "float only, version 2 (MediaPipe's kernel: rotation from two landmarks, box from a subset)"),
    row!(custom "TransformTensorBilinear", mediapipe_landmarks::prepare_transform_tensor_bilinear, F, &["input", "matrix"], "float only, version 2 (MediaPipe's kernel: bilinear sampling, zero outside)"),
    row!(custom "TransformLandmarks", mediapipe_landmarks::prepare_transform_landmarks, F, &["landmarks", "matrix"], "float only, version 2 (MediaPipe's kernel: x, y through the matrix, z copied)"),
];

/// The table row of the builtin `op`, if Zeropoint knows it (custom operators' rows are found
/// by [`entry_for`], never here: `entry(Op::CUSTOM)` is `None`).
pub fn entry(op: Op) -> Option<&'static OpEntry> {
    OPS.iter().find(|e| e.op == op && e.custom.is_none())
}

/// The table row of the operator a model's operator code names: a builtin by its code, a custom
/// operator by its custom code.
pub fn entry_for(code: &OpCode) -> Option<&'static OpEntry> {
    let op = code.op();
    if op == Op::CUSTOM {
        let name = code.custom_code.as_deref()?;
        OPS.iter()
            .find(|e| e.op == Op::CUSTOM && e.custom == Some(name))
    } else {
        entry(op)
    }
}

/// Why LiteRT 2.3 refuses the version of the operator `code` names, or `None` when it registers
/// it: below 1 for any operator, or outside its row's [`OpEntry::versions`] ("Didn't find op for
/// builtin opcode 'ADD' version '7'"). Builtins without a row are not judged here (they have no
/// kernel, and the quantizer keeps them as found).
pub fn version_refusal(code: &OpCode) -> Option<String> {
    let v = code.version;
    if v < 1 {
        return Some(format!(
            "operator version {v}: LiteRT registers kernels from version 1"
        ));
    }
    let e = entry_for(code)?;
    let (lo, hi) = e.versions;
    (v < lo || v > hi).then(|| {
        let range = if lo == hi {
            format!("only version {lo}")
        } else {
            format!("versions {lo} to {hi}")
        };
        format!(
            "operator version {v}: LiteRT 2.3 registers {} {range}",
            e.name()
        )
    })
}

/// The prepare function for the operator `code` names (builtin or custom), or `None` when the
/// engine has no kernel for it.
pub fn lookup(code: &OpCode) -> Option<PrepareFn> {
    entry_for(code).and_then(|e| e.prepare)
}

/// Whether the op table has a kernel for the operator named `name` (a builtin name such as
/// `CONV_2D`, or a custom code such as `TFLite_Detection_PostProcess`; unknown names have none).
pub fn has_kernel_named(name: &str) -> bool {
    OPS.iter().any(|e| e.name() == name && e.prepare.is_some())
}

/// The quantization facts of `op`, or `None` when the quantizer keeps it float.
pub fn properties(op: Op) -> Option<OpProperties> {
    entry(op).and_then(|e| e.quant)
}

/// Every operator the engine runs (rows with a prepare function), in table order.
pub fn supported() -> impl Iterator<Item = &'static OpEntry> {
    OPS.iter().filter(|e| e.prepare.is_some())
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    #[test]
    fn one_row_per_op_and_rows_agree_with_themselves() {
        let mut seen = HashSet::new();
        for e in OPS {
            assert!(seen.insert((e.op, e.custom)), "{} has two rows", e.name());
            // Custom rows and only they are CUSTOM; the quantizer keeps custom operators float.
            assert_eq!(e.op == Op::CUSTOM, e.is_custom(), "{}", e.name());
            assert!(!e.is_custom() || e.quant.is_none(), "{}", e.name());
            assert_eq!(e.prepare.is_some(), e.runs.any(), "{}", e.name());
            assert!(e.op.variant_name().is_some(), "{:?}", e.op);
            if let Some(q) = e.quant {
                // A same-scale op cannot also fix its output; weights come with an axis or
                // per-tensor, never both a bias and no weights.
                assert!(!(q.same_scale && q.fixed_output.is_some()), "{}", e.name());
                assert!(q.bias.is_none() || q.weights.is_some(), "{}", e.name());
                // (UNPACK: TF 2.21's 16x8 quantizer writes version 1, below int8's 2.)
                assert!(
                    q.int16_version >= q.int8_version || e.op == Op::UNPACK,
                    "{}",
                    e.name()
                );
                // The quantizer writes only versions LiteRT registers.
                let (lo, hi) = e.versions;
                let written = [
                    Some(q.int8_version),
                    q.int16.then_some(q.int16_version),
                    q.hybrid.then_some(q.hybrid_version),
                ];
                for v in written.into_iter().flatten() {
                    assert!((lo..=hi).contains(&v), "{}: writes v{v}", e.name());
                }
                // The engine runs every 16x8 operator TF writes.
                if e.prepare.is_some() && q.int16 {
                    assert!(
                        e.runs.int16,
                        "{}: TF writes it in 16x8, no int16 kernel",
                        e.name()
                    );
                }
                // A hybrid kernel for every weighted op TF quantizes dynamically (the engine
                // may run more hybrid forms than TF writes: EMBEDDING_LOOKUP with an int8 table,
                // as older converters wrote it).
                if e.prepare.is_some() && q.hybrid {
                    assert!(
                        e.runs.hybrid,
                        "{}: TF writes it hybrid, no hybrid kernel",
                        e.name()
                    );
                }
            }
        }
        let custom = |name: &str| OpCode {
            custom_code: Some(name.to_string()),
            ..OpCode::builtin(Op::CUSTOM, 1)
        };
        assert!(lookup(&OpCode::builtin(Op::CUSTOM, 1)).is_none());
        assert!(lookup(&custom("MyCustomOp")).is_none());
        assert!(lookup(&custom("TFLite_Detection_PostProcess")).is_some());
        assert!(entry(Op::CUSTOM).is_none());
        assert!(lookup(&OpCode::builtin(Op::LSTM, 1)).is_none());
        for e in OPS.iter().filter(|e| e.prepare.is_none()) {
            assert!(
                lookup(&OpCode::builtin(e.op, 1)).is_none() && properties(e.op).is_some(),
                "{}",
                e.name()
            );
        }
    }

    #[test]
    fn version_refusals_name_the_op_and_both_versions() {
        let refusal = |op, v| version_refusal(&OpCode::builtin(op, v));
        assert_eq!(refusal(Op::ADD, 6), None);
        assert_eq!(
            refusal(Op::ADD, 7).as_deref(),
            Some("operator version 7: LiteRT 2.3 registers ADD versions 1 to 6")
        );
        // BROADCAST_TO starts at version 2 (its version 1 was rolled back in TF).
        assert_eq!(
            refusal(Op::BROADCAST_TO, 1).as_deref(),
            Some("operator version 1: LiteRT 2.3 registers BROADCAST_TO versions 2 to 4")
        );
        assert_eq!(
            refusal(Op::RELU_N1_TO_1, 2).as_deref(),
            Some("operator version 2: LiteRT 2.3 registers RELU_N1_TO_1 only version 1")
        );
        assert!(refusal(Op::ADD, 0).is_some_and(|r| r.contains("from version 1")));
        // Builtins without a row are not judged by version above 1; custom operators by their row.
        assert_eq!(refusal(Op::LSTM, 99), None);
        let custom = OpCode {
            custom_code: Some("TFLite_Detection_PostProcess".to_string()),
            ..OpCode::builtin(Op::CUSTOM, 7)
        };
        assert!(
            version_refusal(&custom).is_some_and(|r| r.contains("TFLite_Detection_PostProcess")),
            "{:?}",
            version_refusal(&custom)
        );
        let mediapipe = OpCode {
            custom_code: Some("Convolution2DTransposeBias".to_string()),
            ..OpCode::builtin(Op::CUSTOM, 7)
        };
        assert_eq!(version_refusal(&mediapipe), None);
    }

    #[test]
    fn weights_and_axes() {
        let conv = properties(Op::CONV_2D).expect("conv");
        assert_eq!(conv.weights.map(|w| (w.input, w.axis)), Some((1, Some(0))));
        assert_eq!(conv.bias.map(|b| (b.input, b.activation)), Some((2, 0)));
        let dw = properties(Op::DEPTHWISE_CONV_2D).expect("dw");
        assert_eq!(dw.weights.and_then(|w| w.axis), Some(3));
        let tc = properties(Op::TRANSPOSE_CONV).expect("tconv");
        assert_eq!(
            tc.bias.map(|b| (b.input, b.activation, b.weights)),
            Some((3, 2, 1))
        );
        assert_eq!((tc.int8_version, tc.int16_version), (2, 3));
        assert_eq!(
            properties(Op::PRELU)
                .and_then(|p| p.weights)
                .map(|w| w.axis),
            Some(None)
        );
        let leaky = properties(Op::LEAKY_RELU).expect("leaky");
        assert_eq!((leaky.int8_version, leaky.int16_version), (1, 2));
    }

    #[test]
    fn fixed_and_same_scale() {
        let sm = properties(Op::SOFTMAX).and_then(|p| p.fixed_output);
        assert_eq!(sm.map(|f| f.int8), Some((1.0 / 256.0, -128)));
        let tanh = properties(Op::TANH).and_then(|p| p.fixed_output);
        assert_eq!(tanh.map(|f| f.int8), Some((1.0 / 128.0, 0)));
        assert_eq!(tanh.map(|f| f.int16), Some((1.0 / 32768.0, 0)));
        for op in [Op::MAX_POOL_2D, Op::RESHAPE, Op::CONCATENATION, Op::PAD] {
            assert!(properties(op).is_some_and(|p| p.same_scale), "{op:?}");
        }
        assert!(properties(Op::ADD).is_some_and(|p| !p.same_scale));
        assert!(properties(Op::CUSTOM).is_none());
        assert_eq!(
            properties(Op::SOFTMAX).map(|p| p.describe()),
            Some("fixed output int8 1/256 / -128".to_string())
        );
        assert_eq!(
            support_of("CONV_2D"),
            "Runs float, int8, int16, hybrid · quantizer: weights per channel (axis 0), bias int32 \
             (int64 in 16x8)"
        );
        assert_eq!(
            support_of("ELU"),
            "Runs float, int8 · quantizer: kept float"
        );
        assert_eq!(support_of("DIV"), "Runs float · quantizer: kept float");
        assert_eq!(support_of("MyCustomOp"), NO_ROW_SUPPORT);
        assert_eq!(
            support_of("TFLite_Detection_PostProcess"),
            "Custom operator · Runs float · quantizer: kept float"
        );
        assert!(has_kernel_named("TFLite_Detection_PostProcess"));
    }
}
