//! Operators: for each TFLite builtin the engine runs, a `prepare_*` that checks types, options
//! and shapes once and returns a ready [`Kernel`], and the kernel's `eval`, which only moves
//! slices into `crate::kernels`. One file per op family; [`registry`] maps
//! [`BuiltinOperator`] → prepare function.
//!
//! Prepare never panics on a hostile model: every count, stride, axis and size is checked (with
//! checked arithmetic) and a problem becomes an [`OpIssue`] naming the operator and tensor. Eval
//! never allocates: everything it needs was computed at prepare time.

pub mod activations;
pub mod batch_matmul;
pub mod compare;
pub mod control_flow;
pub mod conv;
pub mod detection;
pub mod elementwise;
pub mod embedding;
mod fast;
pub mod fully_connected;
mod io;
pub mod layout;
pub mod litert_options;
pub mod lstm;
pub mod lstm_bidi;
pub mod lstm_int;
pub mod math;
pub mod mediapipe;
pub mod mediapipe_landmarks;
pub mod normalize;
pub mod pool;
pub mod properties;
pub mod quantize;
pub mod recurrent_state;
pub mod reduce;
pub mod registry;
pub mod resize;
pub mod rnn;
pub mod shape;
pub mod shape_ops;
pub mod split;
pub mod variables;

pub use io::{OpIo, Region, TensorView};

use crate::error::{IssueKind, OpIssue};
use crate::graph::dtype::{dtype_name, element_size};
use crate::graph::lint::sci;
use crate::graph::{
    BuiltinOperator, Operator, QuantParams, Quantization, TensorType, litert_zero_point,
};
use crate::kernels::reference::{ActivationRange, MAX_RANK};
use crate::tflite::schema::{ActivationFunctionType, Padding};

/// Result of a prepare step: a problem is one [`OpIssue`].
pub type PrepareResult<T> = Result<T, OpIssue>;

/// Which of an operator's tensors a [`TensorInfo`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Input at this position.
    Input(usize),
    /// Output at this position.
    Output(usize),
    /// Intermediate tensor at this position (the integer LSTM's gate and hidden scales).
    Intermediate(usize),
}

/// What prepare knows about one tensor of the operator.
#[derive(Debug, Clone, Copy)]
pub struct TensorInfo<'a> {
    /// Input or output position within the operator.
    pub role: Role,
    /// Name in the model.
    pub name: &'a str,
    /// Element type.
    pub dtype: TensorType,
    /// Shape (computed by the engine for activations, declared for constants and graph inputs).
    pub shape: &'a [usize],
    /// Constant contents (little-endian element bytes), when the tensor is constant.
    pub data: Option<&'a [u8]>,
    /// Quantization parameters, when present.
    pub quantization: Option<&'a Quantization>,
}

impl TensorInfo<'_> {
    /// "input 1 'dense/kernel'": how issues name this tensor.
    pub fn describe(&self) -> String {
        match self.role {
            Role::Input(i) => format!("input {i} '{}'", self.name),
            Role::Output(i) => format!("output {i} '{}'", self.name),
            Role::Intermediate(i) => format!("intermediate {i} '{}'", self.name),
        }
    }

    /// Number of elements (the engine has checked that the product fits).
    pub fn num_elements(&self) -> usize {
        self.shape.iter().product()
    }
}

/// The view of the graph an operator's prepare function gets.
pub struct PrepareCtx<'a> {
    /// Which kernel set to prepare for.
    pub kernels: crate::kernels::KernelSet,
    /// Whose integer arithmetic to reproduce (the int8 conv-like ops read it).
    pub arithmetic: crate::kernels::Arithmetic,
    /// Operator index in execution order.
    pub op_index: usize,
    /// Operator name (`CONV_2D`, …).
    pub op_name: &'a str,
    /// The operator.
    pub op: &'a Operator,
    /// Inputs by position (`None` for omitted optional inputs).
    pub inputs: &'a [Option<TensorInfo<'a>>],
    /// Outputs by position.
    pub outputs: &'a [TensorInfo<'a>],
    /// The operator's intermediate tensors by position (`None` for an invalid index): their
    /// type and quantization only (no shape or data).
    pub intermediates: &'a [Option<TensorInfo<'a>>],
    /// Prepares the model's other subgraphs (WHILE, IF bodies).
    pub subgraphs: &'a dyn control_flow::SubgraphLoader,
}

impl<'a> PrepareCtx<'a> {
    /// An issue of `kind` at this operator.
    pub fn issue(&self, kind: IssueKind, tensor: String, reason: impl Into<String>) -> OpIssue {
        OpIssue {
            op_index: self.op_index,
            op_name: self.op_name.to_string(),
            tensor,
            kind,
            reason: reason.into(),
        }
    }

    /// Whether the float kernels should mirror LiteRT's optimized ones
    /// ([`KernelSet::LiteRtOptimized`](crate::kernels::KernelSet::LiteRtOptimized)).
    pub fn litert_optimized(&self) -> bool {
        self.eigen_caches().is_some()
    }

    /// The cache sizes of the CPU whose TF calibration the float kernels reproduce, when they
    /// mirror LiteRT's optimized ones.
    pub fn eigen_caches(&self) -> Option<crate::kernels::litert_optimized::caches::CacheSizes> {
        match self.kernels {
            crate::kernels::KernelSet::LiteRtOptimized(c) => Some(c),
            _ => None,
        }
    }

    /// An "invalid" issue (the model contradicts itself).
    pub fn invalid(&self, tensor: String, reason: impl Into<String>) -> OpIssue {
        self.issue(IssueKind::Invalid, tensor, reason)
    }

    /// An "unsupported" issue (valid, but no kernel for it yet).
    pub fn unsupported(&self, tensor: String, reason: impl Into<String>) -> OpIssue {
        self.issue(IssueKind::Unsupported, tensor, reason)
    }

    /// Required input `k`.
    pub fn input(&self, k: usize) -> PrepareResult<TensorInfo<'a>> {
        self.inputs.get(k).copied().flatten().ok_or_else(|| {
            self.invalid(
                String::new(),
                format!("needs input {k}, has {} input(s)", self.inputs.len()),
            )
        })
    }

    /// Optional input `k` (absent or -1 → `None`).
    pub fn optional_input(&self, k: usize) -> Option<TensorInfo<'a>> {
        self.inputs.get(k).copied().flatten()
    }

    /// Checks the operator has between `min` and `max` inputs.
    pub fn expect_inputs(&self, min: usize, max: usize) -> PrepareResult<()> {
        let n = self.inputs.len();
        if n < min || n > max {
            let want = if min == max {
                format!("{min}")
            } else {
                format!("{min} to {max}")
            };
            return Err(self.invalid(String::new(), format!("expects {want} inputs, has {n}")));
        }
        Ok(())
    }

    /// Output `k`.
    pub fn output(&self, k: usize) -> PrepareResult<TensorInfo<'a>> {
        self.outputs.get(k).copied().ok_or_else(|| {
            self.invalid(
                String::new(),
                format!("needs output {k}, has {} output(s)", self.outputs.len()),
            )
        })
    }

    /// Requires `t` to be float32, on an op's float path (callers send INT8/INT16 inputs to the
    /// integer kernels before this check); other types are "unsupported".
    pub fn require_f32(&self, t: &TensorInfo<'_>) -> PrepareResult<()> {
        if t.dtype == TensorType::FLOAT32 {
            Ok(())
        } else {
            Err(self.unsupported(
                t.describe(),
                format!(
                    "type {} (the float kernels take FLOAT32; INT8 and INT16 inputs run on the \
                     integer kernels)",
                    dtype_name(t.dtype)
                ),
            ))
        }
    }

    /// Requires a weight tensor to be float32 (callers send int8 weights with float activations
    /// to the dynamic-range hybrid kernels before this check).
    pub fn require_f32_weights(&self, t: &TensorInfo<'_>) -> PrepareResult<()> {
        if t.dtype == TensorType::FLOAT32 {
            return Ok(());
        }
        Err(self.unsupported(
            t.describe(),
            format!(
                "{} weights with FLOAT32 activations (the float kernels take FLOAT32 weights, the \
                 dynamic-range hybrid kernels INT8 weights)",
                dtype_name(t.dtype)
            ),
        ))
    }

    /// Requires `t` to have rank `rank`.
    pub fn require_rank(&self, t: &TensorInfo<'_>, rank: usize) -> PrepareResult<()> {
        if t.shape.len() == rank {
            Ok(())
        } else {
            Err(self.invalid(
                t.describe(),
                format!("expected rank {rank}, got shape {:?}", t.shape),
            ))
        }
    }

    /// Requires `t`'s rank to be at most [`MAX_RANK`].
    pub fn require_max_rank(&self, t: &TensorInfo<'_>) -> PrepareResult<()> {
        if t.shape.len() <= MAX_RANK {
            Ok(())
        } else {
            Err(self.unsupported(
                t.describe(),
                format!("rank {} (at most {MAX_RANK} supported)", t.shape.len()),
            ))
        }
    }

    /// The integer contents of a constant INT32/INT64 tensor (shape arguments, axes, paddings).
    pub fn const_ints(&self, t: &TensorInfo<'_>) -> PrepareResult<Vec<i64>> {
        let Some(data) = t.data else {
            return Err(self.unsupported(
                t.describe(),
                "must be a constant (dynamic shape arguments are not supported)",
            ));
        };
        crate::graph::dtype::int_values(t.dtype, data).ok_or_else(|| {
            self.unsupported(
                t.describe(),
                format!("type {} (expected INT32 or INT64)", dtype_name(t.dtype)),
            )
        })
    }

    /// The clamp of fused activation `f` on a quantized output with parameters `out`, in output
    /// units, within the type's range `[qmin, qmax]` (LiteRT's `CalculateActivationRangeQuantized`;
    /// the arithmetic is [`quantize::quantized_activation_range`]). Fused activations LiteRT does
    /// not implement are an error.
    ///
    /// [`quantize::quantized_activation_range`]: crate::kernels::reference::quantize::quantized_activation_range
    pub fn quantized_activation_range(
        &self,
        f: ActivationFunctionType,
        out: QuantParams,
        qmin: i32,
        qmax: i32,
    ) -> PrepareResult<(i32, i32)> {
        let act = self.activation(f)?;
        Ok(
            crate::kernels::reference::quantize::quantized_activation_range(
                act,
                out.scale,
                out.zero_point,
                qmin,
                qmax,
            ),
        )
    }

    /// The fused activation's clamp range. LiteRT's kernels clamp only for RELU, RELU_N1_TO_1
    /// and RELU6; every other code (TANH, SIGN_BIT, numbers the schema does not name) runs as
    /// NONE there, so here too (`graph::lint` warns about it).
    pub fn activation(&self, f: ActivationFunctionType) -> PrepareResult<ActivationRange> {
        Ok(match f {
            ActivationFunctionType::RELU => ActivationRange::RELU,
            ActivationFunctionType::RELU6 => ActivationRange::RELU6,
            ActivationFunctionType::RELU_N1_TO_1 => ActivationRange::RELU_N1_TO_1,
            _ => ActivationRange::NONE,
        })
    }

    /// Resolves a possibly negative axis against `rank`.
    pub fn axis(&self, t: &TensorInfo<'_>, axis: i64, rank: usize) -> PrepareResult<usize> {
        let r = i64::try_from(rank).unwrap_or(i64::MAX);
        let a = if axis < 0 { axis + r } else { axis };
        if (0..r).contains(&a) {
            Ok(a as usize)
        } else {
            Err(self.invalid(
                t.describe(),
                format!("axis {axis} out of range for rank {rank}"),
            ))
        }
    }

    /// Requires `t`'s dtype to be one of `allowed`; otherwise "unsupported", naming the tensor.
    pub fn require_dtype(&self, t: &TensorInfo<'_>, allowed: &[TensorType]) -> PrepareResult<()> {
        if allowed.contains(&t.dtype) {
            return Ok(());
        }
        let names: Vec<String> = allowed.iter().map(|&d| dtype_name(d).to_string()).collect();
        Err(self.unsupported(
            t.describe(),
            format!(
                "type {} (expected {})",
                dtype_name(t.dtype),
                names.join(" or ")
            ),
        ))
    }

    /// The single scale and zero point of a per-tensor quantized tensor. Missing parameters, more
    /// than one, a scale that is not finite and positive, or a zero point outside `i32` are
    /// "invalid".
    pub fn per_tensor_qparams(&self, t: &TensorInfo<'_>) -> PrepareResult<QuantParams> {
        let q = t.quantization.ok_or_else(|| {
            self.invalid(
                t.describe(),
                "quantized tensor without quantization parameters",
            )
        })?;
        match (q.scales(), q.zero_points()) {
            ([scale], zps) if zps.len() <= 1 => {
                // A zero point beyond `i32` runs as its low 32 bits, as in LiteRT (lint warns).
                let zero_point = litert_zero_point(zps.first().copied().unwrap_or(0));
                if !(scale.is_finite() && *scale > 0.0) {
                    return Err(self.invalid(
                        t.describe(),
                        format!("scale {} is not positive", sci(*scale)),
                    ));
                }
                Ok(QuantParams {
                    scale: *scale,
                    zero_point,
                })
            }
            (s, z) => Err(self.invalid(
                t.describe(),
                format!(
                    "expected one scale and zero point, got {} scale(s) and {} zero point(s)",
                    s.len(),
                    z.len()
                ),
            )),
        }
    }

    /// Per-channel (or per-tensor, broadcast to `channels`) scales of a quantized weight tensor
    /// whose channels lie along `axis`: one scale per channel (or a single one), every scale
    /// finite and positive, zero points all 0 (symmetric weights). Returns `channels` scales.
    pub fn channel_scales(
        &self,
        t: &TensorInfo<'_>,
        axis: usize,
        channels: usize,
    ) -> PrepareResult<Vec<f32>> {
        let q = t.quantization.ok_or_else(|| {
            self.invalid(
                t.describe(),
                "quantized tensor without quantization parameters",
            )
        })?;
        let scales = q.scales();
        if scales.len() > 1 && usize::try_from(q.quantized_dimension).ok() != Some(axis) {
            return Err(self.unsupported(
                t.describe(),
                format!(
                    "per-channel parameters along axis {} (expected {axis})",
                    q.quantized_dimension
                ),
            ));
        }
        let out: Vec<f32> = match scales.len() {
            1 => vec![scales[0]; channels],
            n if n == channels => scales.to_vec(),
            n => {
                return Err(
                    self.invalid(t.describe(), format!("{n} scales for {channels} channels"))
                );
            }
        };
        if let Some(bad) = out.iter().find(|s| !(s.is_finite() && **s > 0.0)) {
            return Err(self.invalid(t.describe(), format!("scale {} is not positive", sci(*bad))));
        }
        let input = self.input(0).map(|x| x.dtype).ok();
        let ignored = scales.len() > 1 && ignores_channel_zero_points(self.op.code.op(), input);
        if !ignored && q.zero_points().iter().any(|&z| litert_zero_point(z) != 0) {
            return Err(self.unsupported(
                t.describe(),
                "non-zero weight zero point (weights are symmetric in TFLite's int8 scheme)",
            ));
        }
        Ok(out)
    }

    /// The declared-output check: the output tensor's dtype must be what the op produces.
    pub fn require_output_dtype(&self, k: usize, dtype: TensorType) -> PrepareResult<()> {
        let out = self.output(k)?;
        if out.dtype == dtype {
            Ok(())
        } else {
            Err(self.invalid(
                out.describe(),
                format!(
                    "type {} but the operator produces {}",
                    dtype_name(out.dtype),
                    dtype_name(dtype)
                ),
            ))
        }
    }
}

pub(crate) use litert_options::options;

/// Output size and leading padding of one spatial axis, as LiteRT's `ComputeOutSize` and
/// `ComputePaddingWithOffset` define them: SAME → `ceil(in / stride)`, VALID →
/// `ceil((in - effective_filter + 1) / stride)`; padding before = half the total (the odd one
/// goes after). `None` when the output would be empty or sizes overflow.
pub fn out_size_and_pad(
    padding: Padding,
    input: usize,
    filter: usize,
    stride: usize,
    dilation: usize,
) -> Option<(usize, usize)> {
    let effective = filter
        .checked_sub(1)?
        .checked_mul(dilation)?
        .checked_add(1)?;
    let out = match padding {
        Padding::SAME => input.checked_add(stride - 1)? / stride,
        Padding::VALID => (input.checked_add(stride)?.checked_sub(effective)?) / stride,
        _ => return None,
    };
    if out == 0 {
        return None;
    }
    let needed = (out - 1).checked_mul(stride)?.checked_add(effective)?;
    let total = needed.saturating_sub(input);
    Some((out, total / 2))
}

/// Whether LiteRT's kernel for `op` (first input of type `input`) ignores the zero points of
/// per-channel weights (input 1): its per-channel kernels take no weight offset, so a zero point
/// other than 0 changes nothing; only its integer CONV_2D refuses one (conv.cc). Measured with
/// `ai_edge_litert` 2.3 (`BUILTIN_REF`) on every golden operator with per-channel int8 weights,
/// one channel's zero point set to 5: outputs unchanged for FULLY_CONNECTED, DEPTHWISE_CONV_2D,
/// TRANSPOSE_CONV, EMBEDDING_LOOKUP and hybrid CONV_2D (int8, 16x8, dynamic models). Per-tensor
/// weights are another matter (LiteRT's FULLY_CONNECTED applies the offset), and are refused.
/// `graph::lint` warns about each weight this lets through.
pub fn ignores_channel_zero_points(op: BuiltinOperator, input: Option<TensorType>) -> bool {
    use BuiltinOperator as B;
    match op {
        B::CONV_2D => input == Some(TensorType::FLOAT32),
        B::FULLY_CONNECTED | B::DEPTHWISE_CONV_2D | B::TRANSPOSE_CONV | B::EMBEDDING_LOOKUP => true,
        _ => false,
    }
}

/// Requires a padding code the schema names (SAME or VALID); an unknown number is named as such
/// rather than blamed on the output size.
pub fn known_padding(ctx: &PrepareCtx<'_>, p: Padding) -> PrepareResult<Padding> {
    match p {
        Padding::SAME | Padding::VALID => Ok(p),
        other => Err(ctx.invalid(
            String::new(),
            format!(
                "unknown padding code {} (the schema has SAME = 0 and VALID = 1)",
                other.0
            ),
        )),
    }
}

/// Checks a positive stride/dilation/filter option and converts it.
pub fn positive(ctx: &PrepareCtx<'_>, what: &str, v: i32) -> PrepareResult<usize> {
    match usize::try_from(v) {
        Ok(v) if v > 0 => Ok(v),
        _ => Err(ctx.invalid(String::new(), format!("{what} must be positive, got {v}"))),
    }
}

/// A (height, width) pair of operator parameters that must both be positive (strides,
/// dilations, window sizes), named `<name>_h` / `<name>_w` in errors.
pub fn positive_hw(
    ctx: &PrepareCtx<'_>,
    name: &str,
    h: i32,
    w: i32,
) -> PrepareResult<(usize, usize)> {
    Ok((
        positive(ctx, &format!("{name}_h"), h)?,
        positive(ctx, &format!("{name}_w"), w)?,
    ))
}

/// The four dimensions of a shape whose rank the caller has checked to be 4.
pub fn dims4(shape: &[usize]) -> [usize; 4] {
    [shape[0], shape[1], shape[2], shape[3]]
}

/// Element size of a fixed-size dtype, or an "unsupported" issue.
pub fn elem_size(ctx: &PrepareCtx<'_>, t: &TensorInfo<'_>) -> PrepareResult<usize> {
    element_size(t.dtype).ok_or_else(|| {
        ctx.unsupported(
            t.describe(),
            format!("type {} has no fixed element size", dtype_name(t.dtype)),
        )
    })
}

/// What a nested run reports: the subgraph index, the tensor index in that subgraph and its
/// contents, for every graph input and computed tensor (see [`Kernel::eval_nested`]).
pub type Observer<'o> = dyn FnMut(usize, usize, TensorView<'_>) + 'o;

/// A prepared operator: evaluates with everything fixed at prepare time, without allocating.
/// A kernel that needs scratch memory owns it (allocated at prepare time), hence `&mut self`.
pub trait Kernel {
    /// Computes the output from the inputs (for an operator with several outputs: output
    /// [`OpIo::output_index`]; the engine calls `eval` once per output, in order, on the same
    /// inputs).
    fn eval(&mut self, io: &mut OpIo<'_>);

    /// [`Kernel::eval`], telling `observer` about every tensor computed inside the subgraphs the
    /// operator runs (WHILE, IF: each iteration's tensors, in order). Operators without
    /// subgraphs have nothing to report and just evaluate.
    fn eval_nested(&mut self, io: &mut OpIo<'_>, observer: &mut Observer<'_>) {
        let _ = observer;
        self.eval(io);
    }

    /// Reports to `f` the float states a stateful kernel keeps between invocations, by the
    /// input position of the variable tensor each one stands for (UNIDIRECTIONAL_SEQUENCE_LSTM's
    /// output and cell states): what the calibrator records as those tensors after a run, as
    /// TF's calibrator logs the variable tensors LiteRT updates in place. None for the others.
    fn kept_states(&self, f: &mut dyn FnMut(usize, &[f32])) {
        let _ = f;
    }

    /// The kernel's type name (`zeropoint::ops::fast::Fast<…::Conv2dInt8>`, …): what the per-operator
    /// profile ([`crate::engine::Interpreter::invoke_timed`]) reports, so it shows which
    /// operators run a fast kernel and which keep the reference.
    fn type_name(&self) -> &'static str {
        std::any::type_name::<Self>()
    }
}

/// What prepare produced for one operator.
pub enum Node {
    /// Run this kernel at every inference.
    Kernel(Box<dyn Kernel>),
    /// The output is a constant computed at prepare time (constant folding), as
    /// little-endian element bytes.
    Constant(Vec<u8>),
    /// Run this kernel at every inference, once per output of an operator with several outputs
    /// ([`OpIo::output_index`] says which): [`Prepared::shape`] and [`Prepared::dtype`] describe
    /// output 0, `more` outputs 1, 2, ….
    MultiKernel {
        /// The kernel.
        kernel: Box<dyn Kernel>,
        /// Shape and type of outputs 1, 2, ….
        more: Vec<OutputSpec>,
    },
    /// Run this kernel at every inference for its effect: the operator has no outputs
    /// (ASSIGN_VARIABLE, CALL_ONCE); [`Prepared::shape`] and [`Prepared::dtype`] are unused.
    Effect(Box<dyn Kernel>),
}

/// Shape and element type of one output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutputSpec {
    /// Shape.
    pub shape: Vec<usize>,
    /// Element type.
    pub dtype: TensorType,
}

/// A prepared operator: the shape and type of its output (output 0 when it has several, see
/// [`Node::MultiKernel`]), and how to compute it.
pub struct Prepared {
    /// Output shape.
    pub shape: Vec<usize>,
    /// Output element type.
    pub dtype: TensorType,
    /// Kernel or folded constant.
    pub node: Node,
}

impl Prepared {
    /// An output of `shape` and `dtype` computed by `kernel`.
    pub fn new(shape: Vec<usize>, dtype: TensorType, kernel: impl Kernel + 'static) -> Self {
        Prepared {
            shape,
            dtype,
            node: Node::Kernel(Box::new(kernel)),
        }
    }

    /// Several outputs (`first`, then `more`) computed by `kernel`, evaluated once per output.
    pub fn multi(first: OutputSpec, more: Vec<OutputSpec>, kernel: impl Kernel + 'static) -> Self {
        Prepared {
            shape: first.shape,
            dtype: first.dtype,
            node: Node::MultiKernel {
                kernel: Box::new(kernel),
                more,
            },
        }
    }

    /// A float32 output of `shape` computed by `kernel`.
    pub fn f32(shape: Vec<usize>, kernel: impl Kernel + 'static) -> Self {
        Prepared {
            shape,
            dtype: TensorType::FLOAT32,
            node: Node::Kernel(Box::new(kernel)),
        }
    }
}

/// Signature of every `prepare_*` function.
pub type PrepareFn = fn(&PrepareCtx<'_>) -> PrepareResult<Prepared>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_and_valid_sizes_match_litert() {
        // SAME, stride 2, 3x3 on 32: out 16, total pad (15*2+3-32)=1 → before 0.
        assert_eq!(out_size_and_pad(Padding::SAME, 32, 3, 2, 1), Some((16, 0)));
        // SAME, stride 1, 3x3 on 5: out 5, total 2 → before 1.
        assert_eq!(out_size_and_pad(Padding::SAME, 5, 3, 1, 1), Some((5, 1)));
        // VALID, 3x3 on 5 stride 2: (5 + 2 - 3) / 2 = 2.
        assert_eq!(out_size_and_pad(Padding::VALID, 5, 3, 2, 1), Some((2, 0)));
        // VALID with dilation 2: effective 5 on 5 → 1.
        assert_eq!(out_size_and_pad(Padding::VALID, 5, 3, 1, 2), Some((1, 0)));
        // Filter bigger than input with VALID → empty → None.
        assert_eq!(out_size_and_pad(Padding::VALID, 2, 3, 1, 1), None);
        // Huge dilation overflows → None.
        assert_eq!(out_size_and_pad(Padding::SAME, 2, 3, 1, usize::MAX), None);
    }
}
