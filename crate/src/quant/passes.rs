//! The quantizer passes: from a float [`Model`] and per-tensor ranges to a quantized model with
//! the structure and parameters TF 2.21's converter produces.
//!
//! Full integer (`int8`, `int16x8`), in order:
//!
//! 1. **Which ops.** Every operator with an entry in [`properties`] (and, for 16x8, an int16
//!    kernel) is quantized unless named in [`QuantizeOptions::float_ops`]; the others stay float
//!    with a warning naming them, and QUANTIZE/DEQUANTIZE are inserted where float and integer
//!    tensors meet.
//! 2. **Which recorded ranges count** (TF's `RemoveRedundantStatsOps`): outputs of fixed-output
//!    ops drop theirs; a same-scale op with one float operand passes its operand's range forward
//!    (transitively); the remaining ranges on results of same-scale ops pass backward to their
//!    operands (CONCATENATION, MAXIMUM of two tensors, …). A kept range becomes immutable
//!    parameters ([`activation_params_int8`] / [`activation_params_int16`]).
//! 3. **Propagation** (TF's `QuantizationDriver`): a work list over the quantized ops, last op
//!    first, spreads parameters across same-scale ops (immutable states win, then a single operand,
//!    then a single result, then the first one known) and sets fixed outputs (SOFTMAX, LOGISTIC
//!    1/256 −128; TANH 1/128 0). Where a tensor already holds different parameters, a requantize
//!    (QUANTIZE int8 → int8) is inserted, named like TF's (`<name>1`).
//! 4. **Weights** per channel (CONV_2D axis 0, DEPTHWISE_CONV_2D axis 3, FULLY_CONNECTED and
//!    TRANSPOSE_CONV axis 0) or per tensor, **bias** int32 (int64 for 16x8) with scale `s_in ·
//!    s_w[c]`, and other float constants (asymmetric over their value range, or the shared
//!    parameters of a same-scale op).
//! 5. **I/O types**: int8 (the quantized tensors are the model's inputs and outputs), uint8
//!    (zero point + 128, with a QUANTIZE at each end), or float (QUANTIZE after each input, named
//!    `tfl.quantize`, `tfl.quantize1`, …; DEQUANTIZE before each output, the integer tensor
//!    renamed `<name>1`) — as TF's `int8_floatio` models.
//!
//! 16x8 follows TF's older quantizer where it differs (all measured on the goldens): every
//! recorded range counts except on fixed outputs and on results of single-input same-scale ops
//! (which take their input's); a multi-input same-scale op keeps its result's range and its inputs
//! are requantized (`<name>_requantized`); float inputs are quantized into `<name>_int16`; output
//! DEQUANTIZEs come last; recorded min/max stay in the int16 tensors; CONV_2D, FULLY_CONNECTED and
//! TRANSPOSE_CONV declare `quantized_bias_type = INT64`, ADD/SUB `pot_scale_int16 = false`.
//!
//! As TF's writer, every operator of one builtin code gets the highest version among them.
//!
//! Dynamic range (int8 weights with at least [`DYNAMIC_MIN_ELEMENTS`] elements for the ops with
//! hybrid kernels, FULLY_CONNECTED with `asymmetric_quantize_inputs`) and float16 (every float
//! constant stored as float16 behind a DEQUANTIZE) are separate, simpler passes ([`quantize`]
//! dispatches).
//!
//! Nothing here touches files: the same function serves the CLI and the wasm face.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use super::calibrate::CalibrationStats;
use super::op_properties::{OpProperties, int16_version, properties};
use super::params::{
    self, QuantParams, WeightRule, activation_params_int8, activation_params_int16, bias_int32,
    bias_int64, constant_params_int8, per_channel_weights_int8_for_bias, per_tensor_weights_int8,
    quantize_affine,
};
use super::report::{OpReport, Report, TensorReport};
use crate::error::{Error, Result};
use crate::fixedpoint::quantize_multiplier;
use crate::graph::{
    BuiltinOperator as Op, BuiltinOptions2T, BuiltinOptionsT, CustomOptionsFormat, Model, OpCode,
    Operator, Quantization, Subgraph, Tensor, TensorType,
};
use crate::tflite::types::dtype_name;

/// Which quantization to apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// Full integer: int8 activations (asymmetric), int8 weights, int32 bias (TF's MLIR quantizer).
    #[default]
    Int8,
    /// Int16 activations (symmetric), int8 weights, int64 bias (TF's older quantizer).
    Int16x8,
    /// Weight-only int8 for ops with hybrid kernels; activations stay float.
    Dynamic,
    /// Float constants stored as float16, dequantized at load time.
    Float16,
}

impl Mode {
    /// Parses `int8`, `int16x8` (or `16x8`), `dynamic`, `float16` (or `fp16`).
    pub fn parse(text: &str) -> Result<Mode> {
        Ok(match text.trim() {
            "int8" => Mode::Int8,
            "int16x8" | "16x8" => Mode::Int16x8,
            "dynamic" => Mode::Dynamic,
            "float16" | "fp16" => Mode::Float16,
            other => {
                return Err(Error::Quantization {
                    what: "options".into(),
                    reason: format!(
                        "unknown mode '{other}': expected int8, int16x8, dynamic or float16"
                    ),
                });
            }
        })
    }

    /// The mode's name as [`Mode::parse`] reads it.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Int8 => "int8",
            Mode::Int16x8 => "int16x8",
            Mode::Dynamic => "dynamic",
            Mode::Float16 => "float16",
        }
    }
}

/// Element type of the quantized model's inputs and outputs (full-integer modes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum IoType {
    /// The mode's own integer type (int8, or int16 for 16x8).
    #[default]
    Native,
    /// uint8 (int8 parameters with zero point + 128), converted by QUANTIZE at both ends.
    Uint8,
    /// float32, with QUANTIZE after each input and DEQUANTIZE before each output.
    Float,
}

impl IoType {
    /// Parses `int8`, `int16` (both mean the mode's integer type), `uint8` or `float`.
    pub fn parse(text: &str) -> Result<IoType> {
        Ok(match text.trim() {
            "int8" | "int16" | "native" => IoType::Native,
            "uint8" => IoType::Uint8,
            "float" | "float32" => IoType::Float,
            other => {
                return Err(Error::Quantization {
                    what: "options".into(),
                    reason: format!("unknown I/O type '{other}': expected int8, uint8 or float"),
                });
            }
        })
    }
}

/// How to quantize.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct QuantizeOptions {
    /// The quantization mode.
    pub mode: Mode,
    /// Type of the model's inputs and outputs (full-integer modes).
    pub io: IoType,
    /// Per-tensor instead of per-channel weights.
    pub per_tensor: bool,
    /// Operators to keep float: operator indices (`"3"`) or names of one of their output tensors.
    pub float_ops: Vec<String>,
    /// Operators to run with int16 activations (16x8) in an `int8` model: indices or output
    /// tensor names, as `float_ops`. QUANTIZE / DEQUANTIZE are inserted where they meet int8
    /// operators (see [`quantize`]).
    pub int16_ops: Vec<String>,
}

/// Per-tensor float ranges `(min, max)` of subgraph 0, by tensor index: what calibration recorded.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Ranges {
    ranges: BTreeMap<usize, (f32, f32)>,
}

impl Ranges {
    /// No ranges (enough for dynamic-range and float16 quantization).
    pub fn new() -> Self {
        Ranges::default()
    }

    /// Records the range of tensor `index` (named `name` in errors).
    ///
    /// # Errors
    /// [`Error::Quantization`] if an end is NaN or infinite or `min > max`.
    pub fn insert(&mut self, index: usize, name: &str, min: f32, max: f32) -> Result<()> {
        if !min.is_finite() || !max.is_finite() || min > max {
            return Err(Error::Quantization {
                what: format!("tensor {index} '{name}'"),
                reason: format!("its calibration range [{min}, {max}] is not a finite range"),
            });
        }
        self.ranges.insert(index, (min, max));
        Ok(())
    }

    /// The recorded range of tensor `index`.
    pub fn get(&self, index: usize) -> Option<(f32, f32)> {
        self.ranges.get(&index).copied()
    }

    /// Number of tensors with a range.
    pub fn len(&self) -> usize {
        self.ranges.len()
    }

    /// Whether no tensor has a range.
    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    /// The ranges chosen by our calibration (`chosen_min`, `chosen_max` of each tensor) for
    /// `model`.
    ///
    /// # Errors
    /// [`Error::Quantization`] if a tensor index is not in the model, its name differs (statistics
    /// of another model), or a range is not finite.
    pub fn from_calibration(model: &Model, stats: &CalibrationStats) -> Result<Self> {
        let tensors = model.subgraphs.first().map_or(&[][..], |s| &s.tensors);
        let mut r = Ranges::new();
        for t in &stats.tensors {
            let Some(mt) = tensors.get(t.index) else {
                return Err(Error::Quantization {
                    what: format!("statistics of tensor {} '{}'", t.index, t.name),
                    reason: format!("the model has only {} tensors", tensors.len()),
                });
            };
            if mt.name != t.name {
                return Err(Error::Quantization {
                    what: format!("statistics of tensor {} '{}'", t.index, t.name),
                    reason: format!(
                        "the model's tensor {} is named '{}': statistics of another model?",
                        t.index, mt.name
                    ),
                });
            }
            r.insert(t.index, &t.name, t.chosen_min, t.chosen_max)?;
        }
        Ok(r)
    }

    /// The min/max TF's calibrator recorded in a calibrated-only model (`model_calibrated.tflite`:
    /// the float model whose tensors carry `quantization.min/max`), matched to `model`'s tensors by
    /// name (by index when names are not unique).
    ///
    /// # Errors
    /// [`Error::Quantization`] if a recorded range is not finite.
    pub fn from_calibrated_model(model: &Model, calibrated: &Model) -> Result<Self> {
        let (Some(sg), Some(csg)) = (model.subgraphs.first(), calibrated.subgraphs.first()) else {
            return Ok(Ranges::new());
        };
        let mut by_name: HashMap<&str, Option<usize>> = HashMap::new();
        for (i, t) in sg.tensors.iter().enumerate() {
            by_name
                .entry(t.name.as_str())
                .and_modify(|e| *e = None)
                .or_insert(Some(i));
        }
        let mut r = Ranges::new();
        for (ci, ct) in csg.tensors.iter().enumerate() {
            let Some(q) = &ct.quantization else { continue };
            let (Some([min]), Some([max])) = (q.min.as_deref(), q.max.as_deref()) else {
                continue;
            };
            let index = match by_name.get(ct.name.as_str()) {
                Some(Some(i)) => *i,
                _ if sg.tensors.get(ci).is_some_and(|t| t.name == ct.name) => ci,
                _ => continue,
            };
            r.insert(index, &ct.name, *min, *max)?;
        }
        Ok(r)
    }
}

/// Quantizes `model` (subgraph 0) with the recorded `ranges` as `opts` asks. Returns the new model
/// and a [`Report`] of every decision.
///
/// Before the passes, for the full-integer modes: DENSIFY of constants and DEQUANTIZE of
/// constants (float16 or integer weights) are folded into float32 constants, and hybrid int8
/// weights are dequantized ([`super::normalize`]). After them, redundant DEQUANTIZE → QUANTIZE
/// pairs are removed ([`super::cleanup`]), so a model that was already partly quantized keeps
/// its integer operators and gains no float detour between them.
///
/// With [`QuantizeOptions::int16_ops`] (mode `int8` only) the model is quantized twice: first
/// int8 with those operators kept float, then those operators alone as 16x8 (TF's older
/// quantizer's rules, with the same recorded ranges). Where an int16 result feeds int8
/// operators, one requantizing QUANTIZE (int16 → int8) is left; where an int8 tensor feeds an
/// int16 operator, DEQUANTIZE → QUANTIZE (LiteRT's QUANTIZE does not widen int8 to int16).
/// Model inputs read only by int16 operators, and outputs written by them, are int16 with
/// `--io int8`, float otherwise.
///
/// # Errors
/// [`Error::Quantization`] for a tensor that needs a range and has none, NaN/infinite ranges or
/// weights, models with several subgraphs, or options that do not fit the mode.
pub fn quantize(model: &Model, ranges: &Ranges, opts: &QuantizeOptions) -> Result<(Model, Report)> {
    if model.subgraphs.len() != 1 {
        return Err(Error::Quantization {
            what: "model".into(),
            reason: format!(
                "it has {} subgraphs; only single-subgraph models are quantized",
                model.subgraphs.len()
            ),
        });
    }
    let full_integer = matches!(opts.mode, Mode::Int8 | Mode::Int16x8);
    if !opts.int16_ops.iter().all(|s| s.trim().is_empty()) && opts.mode != Mode::Int8 {
        return Err(qerr(
            "--int16-ops",
            format!(
                "int16 operators are chosen in an int8 model (--mode int8), not in mode {}",
                opts.mode.name()
            ),
        ));
    }
    let (dense, mut notes) = fold_densify(model)?;
    let model = dense.as_ref().unwrap_or(model);
    let (plain, more) = if full_integer {
        super::normalize::dequantize_constants(model)?
    } else {
        (None, Vec::new())
    };
    notes.extend(more);
    // The constants behind folded DEQUANTIZEs: unread now, dropped from the result.
    let orphans: Vec<usize> = if plain.is_some() {
        model.subgraphs[0]
            .operators
            .iter()
            .filter(|op| op.code.op() == Op::DEQUANTIZE)
            .filter_map(|op| op.input(0))
            .filter(|&t| model.tensor_data(0, t).is_some())
            .collect()
    } else {
        Vec::new()
    };
    let model = plain.as_ref().unwrap_or(model);
    let (mut q, mut report) = match opts.mode {
        Mode::Int8 if !opts.int16_ops.iter().all(|s| s.trim().is_empty()) => {
            mixed_int16(model, ranges, opts)
        }
        Mode::Int8 | Mode::Int16x8 => FullInteger::new(model, ranges, opts, None)?.run(),
        Mode::Dynamic => dynamic_range(model, opts),
        Mode::Float16 => float16(model, opts),
    }?;
    if full_integer {
        let cleaned = super::cleanup::remove_redundant_pairs(&mut q, &mut report, &orphans);
        if !cleaned.is_empty() || !orphans.is_empty() {
            compact_buffers(&mut q);
        }
        notes.extend(cleaned);
    }
    report.warnings.splice(0..0, notes);
    Ok((q, report))
}

/// `int8` with some operators int16 (see [`quantize`]).
fn mixed_int16(model: &Model, ranges: &Ranges, opts: &QuantizeOptions) -> Result<(Model, Report)> {
    let sg = &model.subgraphs[0];
    let int16 = resolve_ops(sg, &opts.int16_ops, "--int16-ops")?;
    let float = resolve_ops(sg, &opts.float_ops, "--float-ops")?;
    if let Some(i) = int16.intersection(&float).min() {
        return Err(qerr(
            "--int16-ops",
            format!("operator {i} is named both in --float-ops and in --int16-ops"),
        ));
    }
    // Pass 1: int8, with the int16 operators kept float.
    let mut first = opts.clone();
    first.float_ops = float.union(&int16).map(usize::to_string).collect();
    first.int16_ops = Vec::new();
    let (m1, r1) = FullInteger::new(model, ranges, &first, None)?.run()?;
    // The int16 operators in the new model: found by their outputs, whose indices pass 1 keeps
    // (tensors are only appended, and a float operator's outputs are not rewired).
    let keys: HashSet<i32> = int16
        .iter()
        .filter_map(|&i| sg.operators[i].outputs.first().copied())
        .collect();
    let sg1 = &m1.subgraphs[0];
    let only: HashSet<usize> = sg1
        .operators
        .iter()
        .enumerate()
        .filter(|(_, op)| op.outputs.first().is_some_and(|o| keys.contains(o)))
        .map(|(i, _)| i)
        .collect();
    // The float copies pass 1 made of int8 tensors (DEQUANTIZE outputs) get the range 16x8
    // would give the original: its own, or, for the result of a single-input same-scale op, that
    // of the tensor the chain starts from (TF's older quantizer's rule).
    let producer: HashMap<usize, usize> = sg
        .operators
        .iter()
        .enumerate()
        .flat_map(|(i, op)| {
            op.outputs
                .iter()
                .filter_map(|&t| usize::try_from(t).ok())
                .map(move |t| (t, i))
        })
        .collect();
    let origin = |mut t: usize| {
        for _ in 0..sg.operators.len() {
            let Some(&p) = producer.get(&t) else { break };
            let op = &sg.operators[p];
            let same =
                properties(op.code.op()).is_some_and(|p| p.same_scale && p.fixed_output.is_none());
            let floats: Vec<usize> = op
                .inputs
                .iter()
                .filter_map(|&x| usize::try_from(x).ok())
                .filter(|&x| {
                    sg.tensors
                        .get(x)
                        .is_some_and(|x| x.dtype == TensorType::FLOAT32)
                })
                .filter(|&x| model.tensor_data(0, x).is_none())
                .collect();
            match (same, floats.as_slice()) {
                (true, [x]) => t = *x,
                _ => break,
            }
        }
        t
    };
    let mut ranges2 = ranges.clone();
    for op in sg1
        .operators
        .iter()
        .filter(|op| op.code.op() == Op::DEQUANTIZE)
    {
        if let (Some(a), Some(f)) = (op.input(0), op.output(0))
            && a < sg.tensors.len()
            && let Some((min, max)) = ranges.get(origin(a)).or(ranges.get(a))
            && ranges2.get(f).is_none()
        {
            ranges2.insert(f, &sg1.tensors[f].name, min, max)?;
        }
    }
    // Pass 2: those operators alone, 16x8, float at their borders; model inputs and outputs
    // still float (read or written only by int16 operators) become int16 with int8 I/O.
    let second = QuantizeOptions {
        mode: Mode::Int16x8,
        io: if opts.io == IoType::Native {
            IoType::Native
        } else {
            IoType::Float
        },
        per_tensor: opts.per_tensor,
        float_ops: Vec::new(),
        int16_ops: Vec::new(),
    };
    let (m2, mut r2) = FullInteger::new(&m1, &ranges2, &second, Some(&only))?.run()?;
    // One report: pass 2's tensors where it decided, pass 1's elsewhere; pass 2's multipliers
    // (computed on the final model) and both passes' warnings, minus those about the int16
    // operators being float in pass 1.
    for t in &mut r2.tensors {
        if matches!(t.source.as_str(), "" | "inserted")
            && let Some(t1) = r1.tensors.get(t.index).filter(|t1| t1.name == t.name)
        {
            *t = t1.clone();
        }
    }
    let mut ops16: Vec<usize> = int16.iter().copied().collect();
    ops16.sort_unstable();
    let about_int16 = |w: &String| {
        ops16.iter().any(|i| {
            w.starts_with(&format!("operator {i} (")) || w.ends_with(&format!("float operator {i}"))
        })
    };
    let mut warnings: Vec<String> = r1
        .warnings
        .into_iter()
        .filter(|w| !about_int16(w))
        .collect();
    warnings.extend(
        r2.warnings
            .into_iter()
            .filter(|w| !w.contains("is quantized after float operator")),
    );
    warnings.push(format!(
        "operators {} run with int16 activations (16x8); QUANTIZE / DEQUANTIZE join them to the \
         int8 operators",
        ops16
            .iter()
            .map(usize::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    ));
    let report = Report {
        mode: Mode::Int8.name().into(),
        io: r1.io,
        tensors: r2.tensors,
        ops: r2.ops,
        warnings,
        ..Report::default()
    };
    Ok((m2, report))
}

/// Sparse constants behind DENSIFY: each DENSIFY of a constant is removed and its output becomes
/// the dense constant (tensor indices unchanged, so ranges still apply), so the operators that
/// read it see ordinary weights. `None` when the model has no such DENSIFY. The sparse tensor
/// stays in the file, unread.
fn fold_densify(model: &Model) -> Result<(Option<Model>, Vec<String>)> {
    let sg = &model.subgraphs[0];
    let foldable = |op: &crate::graph::Operator| {
        op.code.op() == Op::DENSIFY
            && op.inputs.len() == 1
            && op.outputs.len() == 1
            && usize::try_from(op.inputs[0])
                .ok()
                .is_some_and(|t| model.tensor_data(0, t).is_some())
    };
    if !sg.operators.iter().any(foldable) {
        return Ok((None, Vec::new()));
    }
    let mut m = model.clone();
    let mut notes = Vec::new();
    let mut kept = Vec::with_capacity(sg.operators.len());
    for op in &sg.operators {
        if !foldable(op) {
            kept.push(op.clone());
            continue;
        }
        let (i, o) = (op.inputs[0] as usize, op.outputs[0] as usize);
        let src = &sg.tensors[i];
        let Some(out) = sg.tensors.get(o) else {
            return Err(qerr("DENSIFY", format!("output {o} is not a tensor")));
        };
        let values = model.tensor_data(0, i).unwrap_or_default();
        let dense = match (&src.sparsity, crate::tflite::types::element_size(src.dtype)) {
            (Some(sp), Some(elem)) => {
                let shape = dims(src);
                crate::kernels::reference::densify::densify(values, elem, &shape, sp)
                    .map_err(|e| qerr(format!("sparse tensor '{}'", src.name), e))?
            }
            // A dense constant behind DENSIFY is already its own value.
            (None, _) => values.to_vec(),
            (Some(_), None) => {
                return Err(qerr(
                    format!("sparse tensor '{}'", src.name),
                    format!("type {} cannot be sparse", dtype_name(src.dtype)),
                ));
            }
        };
        m.buffers.push(crate::graph::Buffer { data: dense });
        let t = &mut m.subgraphs[0].tensors[o];
        t.buffer =
            u32::try_from(m.buffers.len() - 1).map_err(|_| qerr("model", "too many buffers"))?;
        t.dtype = src.dtype;
        notes.push(format!(
            "DENSIFY of '{}' folded: '{}' is stored dense in the quantized model",
            src.name, out.name
        ));
    }
    m.subgraphs[0].operators = kept;
    Ok((Some(m), notes))
}

fn qerr(what: impl Into<String>, reason: impl Into<String>) -> Error {
    Error::Quantization {
        what: what.into(),
        reason: reason.into(),
    }
}

fn f32s(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn dims(t: &Tensor) -> Vec<usize> {
    t.dims()
        .iter()
        .map(|&d| usize::try_from(d).unwrap_or(0))
        .collect()
}

fn per_tensor_q(p: QuantParams) -> Quantization {
    Quantization {
        scale: Some(vec![p.scale]),
        zero_point: Some(vec![i64::from(p.zero_point)]),
        ..Quantization::default()
    }
}

fn per_axis_q(scales: Vec<f32>, zero_points: Vec<i64>, axis: usize) -> Quantization {
    Quantization {
        scale: Some(scales),
        zero_point: Some(zero_points),
        quantized_dimension: i32::try_from(axis).unwrap_or(0),
        ..Quantization::default()
    }
}

fn simple_op(op: Op, version: i32, input: usize, output: usize) -> Operator {
    Operator {
        code: OpCode::builtin(op, version),
        inputs: vec![idx(input)],
        outputs: vec![idx(output)],
        intermediates: None,
        options: BuiltinOptionsT::NONE,
        options_2: BuiltinOptions2T::NONE,
        custom_options: None,
        custom_options_format: CustomOptionsFormat::FLEXBUFFERS,
        mutating_variable_inputs: None,
        debug_metadata_index: -1,
    }
}

/// Tensor index as stored in operators (models never hold 2³¹ tensors; saturate regardless).
fn idx(t: usize) -> i32 {
    i32::try_from(t).unwrap_or(i32::MAX)
}

/// Names already used in a subgraph, and TF-style fresh names (`name1`, `name2`, …).
struct Names(HashSet<String>);

impl Names {
    fn new(sg: &Subgraph) -> Self {
        Names(sg.tensors.iter().map(|t| t.name.clone()).collect())
    }
    fn fresh(&mut self, base: &str) -> String {
        let mut k = 1usize;
        loop {
            let name = format!("{base}{k}");
            if self.0.insert(name.clone()) {
                return name;
            }
            k += 1;
        }
    }
    fn take(&mut self, name: &str) -> String {
        if self.0.insert(name.to_string()) {
            name.to_string()
        } else {
            self.fresh(name)
        }
    }
}

/// Appends a buffer with `data` and returns its index.
fn push_buffer(model: &mut Model, data: Vec<u8>) -> u32 {
    model.buffers.push(crate::graph::Buffer { data });
    u32::try_from(model.buffers.len() - 1).unwrap_or(u32::MAX)
}

/// Gives every operator of one builtin code the highest version among them, as TF's writer does
/// (its operator-code table has one entry per builtin op).
fn unify_versions(model: &mut Model) {
    let mut max: HashMap<(Op, Option<String>), i32> = HashMap::new();
    let key = |op: &Operator| (op.code.op(), op.code.custom_code.clone());
    for sg in &model.subgraphs {
        for op in &sg.operators {
            let v = max.entry(key(op)).or_insert(op.code.version);
            *v = (*v).max(op.code.version);
        }
    }
    for sg in &mut model.subgraphs {
        for op in &mut sg.operators {
            if let Some(&v) = max.get(&key(op)) {
                op.code.version = v;
            }
        }
    }
}

/// Drops buffers no tensor or metadata refers to any more (buffer 0 stays), renumbering the rest.
fn compact_buffers(model: &mut Model) {
    let mut used = vec![false; model.buffers.len()];
    if let Some(u) = used.first_mut() {
        *u = true;
    }
    let mark = |b: u32, used: &mut Vec<bool>| {
        if let Some(u) = used.get_mut(b as usize) {
            *u = true;
        }
    };
    for sg in &model.subgraphs {
        for t in &sg.tensors {
            mark(t.buffer, &mut used);
        }
    }
    for m in &model.metadata {
        mark(m.buffer, &mut used);
    }
    for &b in model.metadata_buffer.iter().flatten() {
        if let Ok(b) = u32::try_from(b) {
            mark(b, &mut used);
        }
    }
    let mut remap = vec![0u32; model.buffers.len()];
    let mut kept = Vec::new();
    for (i, b) in std::mem::take(&mut model.buffers).into_iter().enumerate() {
        if used[i] {
            remap[i] = u32::try_from(kept.len()).unwrap_or(u32::MAX);
            kept.push(b);
        }
    }
    model.buffers = kept;
    let re = |b: u32| remap.get(b as usize).copied().unwrap_or(0);
    for sg in &mut model.subgraphs {
        for t in &mut sg.tensors {
            t.buffer = re(t.buffer);
        }
    }
    for m in &mut model.metadata {
        m.buffer = re(m.buffer);
    }
    if let Some(mb) = &mut model.metadata_buffer {
        for b in mb.iter_mut() {
            if let Ok(u) = u32::try_from(*b) {
                *b = i32::try_from(re(u)).unwrap_or(0);
            }
        }
    }
}

/// Where the parameters of a tensor came from (for the report).
#[derive(Debug, Clone)]
struct State {
    params: QuantParams,
    immutable: bool,
    source: String,
}

/// An operand requantize: tensor, the parameters its readers need, and those readers
/// `(operator, input slot)`.
type OperandRequant = (usize, QuantParams, Vec<(usize, usize)>);

/// The full-integer quantizer's working state: per-op facts from the float model, per-tensor
/// parameter states, and the requantizes the propagation asked for.
struct FullInteger<'a> {
    model: &'a Model,
    ranges: &'a Ranges,
    opts: &'a QuantizeOptions,
    int16: bool,
    /// The subgraph being rewritten (tensors appended, operator inputs edited).
    sg: Subgraph,
    props: Vec<Option<OpProperties>>,
    quantized: Vec<bool>,
    producer: HashMap<usize, usize>,
    consumers: HashMap<usize, Vec<usize>>,
    state: Vec<Option<State>>,
    /// Parameters an op writes into a result whose state differs (TF's requantize ON_INPUT).
    result_requant: HashMap<usize, QuantParams>,
    /// Operand requantizes: (tensor, params, users (op, input slot)).
    operand_requant: Vec<OperandRequant>,
    /// Float values and axis of each per-channel weight tensor (for 16x8's recorded min/max).
    weight_values: Vec<(usize, Vec<f32>, usize)>,
    report: Report,
}

impl<'a> FullInteger<'a> {
    /// `only`: when given, the operators that may be quantized (the others are left as they are,
    /// without a warning) — the int16 pass of a mixed model.
    fn new(
        model: &'a Model,
        ranges: &'a Ranges,
        opts: &'a QuantizeOptions,
        only: Option<&HashSet<usize>>,
    ) -> Result<Self> {
        let sg = model.subgraphs[0].clone();
        let int16 = opts.mode == Mode::Int16x8;
        let mut report = Report {
            mode: opts.mode.name().to_string(),
            io: match (opts.io, int16) {
                (IoType::Native, false) => "int8",
                (IoType::Native, true) => "int16",
                (IoType::Uint8, _) => "uint8",
                (IoType::Float, _) => "float",
            }
            .to_string(),
            ..Report::default()
        };
        if int16 && opts.io == IoType::Uint8 {
            return Err(qerr("options", "uint8 I/O is only available in int8 mode"));
        }
        let float_ops = resolve_ops(&sg, &opts.float_ops, "--float-ops")?;
        let n = sg.operators.len();
        let mut props = vec![None; n];
        let mut quantized = vec![false; n];
        for (i, op) in sg.operators.iter().enumerate() {
            if only.is_some_and(|o| !o.contains(&i)) {
                continue;
            }
            let code = op.code.op();
            let has_float = op
                .inputs
                .iter()
                .chain(&op.outputs)
                .filter_map(|&t| usize::try_from(t).ok())
                .any(|t| {
                    sg.tensors
                        .get(t)
                        .is_some_and(|t| t.dtype == TensorType::FLOAT32)
                });
            if !has_float {
                continue;
            }
            let p = properties(code);
            let why = match p {
                _ if float_ops.contains(&i) => {
                    Some("kept float as asked (--float-ops)".to_string())
                }
                None => Some("no quantized kernel".to_string()),
                Some(p) if int16 && !p.int16 => Some("no 16x8 kernel".to_string()),
                Some(p) => check_types(&sg, op, &p),
            };
            match why {
                None => {
                    props[i] = p;
                    quantized[i] = true;
                }
                // QUANTIZE / DEQUANTIZE of a partly quantized model are conversions, not
                // float operators: the redundant ones go in `cleanup`.
                Some(_) if matches!(code, Op::QUANTIZE | Op::DEQUANTIZE) => {}
                Some(why) => report.warnings.push(format!(
                    "operator {i} ({}) stays float: {why}",
                    op.code.name()
                )),
            }
        }
        let mut producer = HashMap::new();
        let mut consumers: HashMap<usize, Vec<usize>> = HashMap::new();
        for (i, op) in sg.operators.iter().enumerate() {
            for t in op.outputs.iter().filter_map(|&t| usize::try_from(t).ok()) {
                producer.insert(t, i);
            }
            for t in op.inputs.iter().filter_map(|&t| usize::try_from(t).ok()) {
                let c = consumers.entry(t).or_default();
                if !c.contains(&i) {
                    c.push(i);
                }
            }
        }
        let state = vec![None; sg.tensors.len()];
        Ok(FullInteger {
            model,
            ranges,
            opts,
            int16,
            sg,
            props,
            quantized,
            producer,
            consumers,
            state,
            result_requant: HashMap::new(),
            operand_requant: Vec::new(),
            weight_values: Vec::new(),
            report,
        })
    }

    fn is_const(&self, t: usize) -> bool {
        self.sg.tensors.get(t).is_some_and(|x| {
            x.buffer != 0
                && self
                    .model
                    .buffers
                    .get(x.buffer as usize)
                    .is_some_and(|b| !b.data.is_empty())
        })
    }

    fn is_float(&self, t: usize) -> bool {
        self.sg
            .tensors
            .get(t)
            .is_some_and(|x| x.dtype == TensorType::FLOAT32)
    }

    fn activation_params(&self, min: f32, max: f32) -> Result<QuantParams> {
        if self.int16 {
            activation_params_int16(min, max)
        } else {
            activation_params_int8(min, max)
        }
    }

    fn run(mut self) -> Result<(Model, Report)> {
        self.split_shared_constants();
        self.initial_states()?;
        self.propagate();
        let consts = self.quantize_constants()?;
        self.check_complete()?;
        let mut out = self.model.clone();
        for (t, data) in consts {
            let b = push_buffer(&mut out, data);
            self.sg.tensors[t].buffer = b;
        }
        let origins = if self.int16 {
            self.origin_ranges()
        } else {
            Vec::new()
        };
        self.materialize();
        if self.int16 {
            let weights = std::mem::take(&mut self.weight_values);
            self.record_ranges(&origins, &weights);
        }
        self.multipliers();
        out.subgraphs[0] = std::mem::take(&mut self.sg);
        unify_versions(&mut out);
        compact_buffers(&mut out);
        self.fill_tensor_report(&out);
        Ok((out, self.report))
    }

    /// Gives every (quantized op, input slot) that reads a float constant its own tensor, as TF
    /// duplicates shared constants, so that each use can get its own parameters.
    fn split_shared_constants(&mut self) {
        let mut seen: HashSet<usize> = HashSet::new();
        // Constants also read by float ops or graph outputs keep the original for them.
        for (i, op) in self.sg.operators.iter().enumerate() {
            if !self.quantized[i] {
                for t in op.inputs.iter().filter_map(|&t| usize::try_from(t).ok()) {
                    seen.insert(t);
                }
            }
        }
        for &t in &self.sg.outputs {
            if let Ok(t) = usize::try_from(t) {
                seen.insert(t);
            }
        }
        for i in 0..self.sg.operators.len() {
            if !self.quantized[i] {
                continue;
            }
            for k in 0..self.sg.operators[i].inputs.len() {
                let Some(t) = self.sg.operators[i].input(k) else {
                    continue;
                };
                if !self.is_float(t) || !self.is_const(t) {
                    continue;
                }
                if seen.insert(t) {
                    continue;
                }
                let copy = self.sg.tensors[t].clone();
                self.sg.tensors.push(copy);
                self.state.push(None);
                let n = self.sg.tensors.len() - 1;
                self.sg.operators[i].inputs[k] = idx(n);
                self.consumers.entry(n).or_default().push(i);
            }
        }
    }

    fn same_scale(&self, o: usize) -> bool {
        self.quantized[o] && self.props[o].is_some_and(|p| p.same_scale)
    }

    fn fixed(&self, o: usize) -> bool {
        self.quantized[o] && self.props[o].is_some_and(|p| p.fixed_output.is_some())
    }

    fn float_inputs(&self, o: usize) -> Vec<usize> {
        let op = &self.sg.operators[o];
        (0..op.inputs.len())
            .filter_map(|k| op.input(k))
            .filter(|&t| self.is_float(t))
            .collect()
    }

    fn float_outputs(&self, o: usize) -> Vec<usize> {
        let op = &self.sg.operators[o];
        (0..op.outputs.len())
            .filter_map(|k| op.output(k))
            .filter(|&t| self.is_float(t))
            .collect()
    }

    /// Activations (float, not constant) read or written by quantized ops.
    fn activations(&self) -> BTreeSet<usize> {
        let mut a = BTreeSet::new();
        for o in (0..self.sg.operators.len()).filter(|&o| self.quantized[o]) {
            let op = &self.sg.operators[o];
            for t in op
                .inputs
                .iter()
                .chain(&op.outputs)
                .filter_map(|&t| usize::try_from(t).ok())
            {
                if self.is_float(t) && !self.is_const(t) {
                    a.insert(t);
                }
            }
        }
        a
    }

    /// Step 2: which recorded ranges are kept (TF's `RemoveRedundantStatsOps` for int8; the older
    /// quantizer's "same-scale results take their input's" for 16x8), as immutable states.
    fn initial_states(&mut self) -> Result<()> {
        let acts = self.activations();
        let stats: Vec<usize> = acts
            .iter()
            .copied()
            .filter(|&t| self.ranges.get(t).is_some())
            .collect();
        let has = |t: usize| stats.binary_search(&t).is_ok();
        let mut redundant: BTreeMap<usize, &'static str> = BTreeMap::new();
        for &t in &stats {
            if self.producer.get(&t).is_some_and(|&p| self.fixed(p)) {
                redundant.insert(t, "fixed");
            }
        }
        if self.int16 {
            for &t in &stats {
                if self
                    .producer
                    .get(&t)
                    .is_some_and(|&p| self.same_scale(p) && self.float_inputs(p).len() == 1)
                {
                    redundant.entry(t).or_insert("same-scale");
                }
            }
        } else {
            let mut forward = BTreeSet::new();
            let mut work = stats.clone();
            while let Some(t) = work.pop() {
                for &u in self.consumers.get(&t).map(Vec::as_slice).unwrap_or(&[]) {
                    if !self.same_scale(u) || self.float_inputs(u).len() > 1 {
                        continue;
                    }
                    for r in self.float_outputs(u) {
                        if has(r) && forward.insert(r) {
                            work.push(r);
                        }
                    }
                }
            }
            let mut backward = BTreeSet::new();
            let mut work: Vec<usize> = stats
                .iter()
                .copied()
                .filter(|t| !forward.contains(t))
                .collect();
            while let Some(t) = work.pop() {
                let Some(&p) = self.producer.get(&t) else {
                    continue;
                };
                if !self.same_scale(p) {
                    continue;
                }
                for x in self.float_inputs(p) {
                    if has(x) && backward.insert(x) {
                        work.push(x);
                    }
                }
            }
            for t in forward.into_iter().chain(backward) {
                redundant.entry(t).or_insert("same-scale");
            }
        }
        for &t in &stats {
            if redundant.contains_key(&t) {
                continue;
            }
            let Some((min, max)) = self.ranges.get(t) else {
                continue;
            };
            let params = self.activation_params(min, max).map_err(|e| {
                qerr(
                    format!("tensor {t} '{}'", self.sg.tensors[t].name),
                    e.to_string(),
                )
            })?;
            self.state[t] = Some(State {
                params,
                immutable: true,
                source: "calibrated".into(),
            });
        }
        // A partly quantized model: a float activation that one of its DEQUANTIZEs computes
        // from an integer tensor of this mode's type, or that one of its QUANTIZEs turns into
        // one, keeps those parameters, so that the pair becomes redundant (`cleanup`).
        for &t in &acts {
            if let Some(params) = self.existing_params(t) {
                self.state[t] = Some(State {
                    params,
                    immutable: true,
                    source: "already quantized".into(),
                });
            }
        }
        Ok(())
    }

    /// The parameters an existing DEQUANTIZE (from) or QUANTIZE (to) gives float tensor `t`,
    /// when that integer tensor has this mode's type and one scale.
    fn existing_params(&self, t: usize) -> Option<QuantParams> {
        // A fixed-output op writes its own parameters (a requantize follows if they differ).
        if self.producer.get(&t).is_some_and(|&p| self.fixed(p)) {
            return None;
        }
        let qd = self.q_dtype();
        let params_of = |x: Option<usize>| -> Option<QuantParams> {
            let x = self.sg.tensors.get(x?)?;
            let q = x.quantization.as_ref()?;
            match (x.dtype == qd, q.scales(), q.zero_points()) {
                (true, [scale], [zp]) => Some(QuantParams {
                    scale: *scale,
                    zero_point: i32::try_from(*zp).ok()?,
                }),
                _ => None,
            }
        };
        let code = |o: usize| self.sg.operators[o].code.op();
        if let Some(&p) = self.producer.get(&t)
            && !self.quantized[p]
            && code(p) == Op::DEQUANTIZE
            && let Some(params) = params_of(self.sg.operators[p].input(0))
        {
            return Some(params);
        }
        self.consumers
            .get(&t)?
            .iter()
            .filter(|&&c| !self.quantized[c] && code(c) == Op::QUANTIZE)
            .find_map(|&c| params_of(self.sg.operators[c].output(0)))
    }

    fn push_producer(&self, t: usize, work: &mut Vec<usize>) {
        if let Some(&p) = self.producer.get(&t)
            && self.quantized[p]
        {
            work.push(p);
        }
    }

    fn push_consumers(&self, t: usize, work: &mut Vec<usize>) {
        for &c in self.consumers.get(&t).map(Vec::as_slice).unwrap_or(&[]) {
            if self.quantized[c] {
                work.push(c);
            }
        }
    }

    fn set_operand(
        &mut self,
        o: usize,
        k: usize,
        params: QuantParams,
        source: &str,
        work: &mut Vec<usize>,
    ) {
        let Some(t) = self.sg.operators[o].input(k) else {
            return;
        };
        match &self.state[t] {
            Some(s) if s.params == params => {}
            Some(_) => {
                if let Some(e) = self
                    .operand_requant
                    .iter_mut()
                    .find(|e| e.0 == t && e.1 == params)
                {
                    e.2.push((o, k));
                } else {
                    self.operand_requant.push((t, params, vec![(o, k)]));
                }
            }
            None => {
                self.state[t] = Some(State {
                    params,
                    immutable: false,
                    source: source.to_string(),
                });
                self.push_producer(t, work);
            }
        }
    }

    fn set_result(&mut self, t: usize, params: QuantParams, source: &str, work: &mut Vec<usize>) {
        match &self.state[t] {
            Some(s) if s.params == params => {}
            Some(_) => {
                if let Some(old) = self.result_requant.insert(t, params)
                    && old != params
                {
                    self.report.warnings.push(format!(
                        "tensor {t} '{}': two different output parameters requested; the last \
                         one is used",
                        self.sg.tensors[t].name
                    ));
                }
            }
            None => {
                self.state[t] = Some(State {
                    params,
                    immutable: false,
                    source: source.to_string(),
                });
                self.push_consumers(t, work);
            }
        }
    }

    /// TF's `GetQuantParamsForSameScaleConstraint`.
    fn same_scale_params(&self, o: usize) -> Option<QuantParams> {
        let op = &self.sg.operators[o];
        let get = |t: Option<usize>| t.and_then(|t| self.state.get(t)).and_then(Option::as_ref);
        let ins: Vec<Option<&State>> = (0..op.inputs.len()).map(|k| get(op.input(k))).collect();
        let outs: Vec<Option<&State>> = (0..op.outputs.len()).map(|k| get(op.output(k))).collect();
        let imm = |v: &[Option<&State>]| -> Vec<QuantParams> {
            v.iter()
                .flatten()
                .filter(|s| s.immutable)
                .map(|s| s.params)
                .collect()
        };
        let muts = |v: &[Option<&State>]| -> Vec<QuantParams> {
            v.iter()
                .flatten()
                .filter(|s| !s.immutable)
                .map(|s| s.params)
                .collect()
        };
        let (imm_in, imm_out) = (imm(&ins), imm(&outs));
        if op.inputs.len() == 1 && imm_in.len() == 1 {
            return imm_in.first().copied();
        }
        if op.outputs.len() == 1 && imm_out.len() == 1 {
            return imm_out.first().copied();
        }
        if let Some(p) = imm_in.first().or(imm_out.first()) {
            return Some(*p);
        }
        let (mut_in, mut_out) = (muts(&ins), muts(&outs));
        if op.inputs.len() == 1 && mut_in.len() == 1 {
            return mut_in.first().copied();
        }
        if op.outputs.len() == 1 && mut_out.len() == 1 {
            return mut_out.first().copied();
        }
        mut_in.first().or(mut_out.first()).copied()
    }

    /// Step 3: TF's `QuantizationDriver` work list.
    fn propagate(&mut self) {
        let mut work: Vec<usize> = (0..self.sg.operators.len())
            .filter(|&o| self.quantized[o])
            .collect();
        let mut done: HashSet<usize> = HashSet::new();
        while let Some(o) = work.pop() {
            if !done.insert(o) {
                continue;
            }
            let Some(p) = self.props[o] else { continue };
            let name = self.sg.operators[o].code.name();
            if p.same_scale {
                let params = if self.int16 && self.float_inputs(o).len() > 1 {
                    // The older quantizer keeps the result's range and requantizes the inputs.
                    self.float_outputs(o)
                        .first()
                        .and_then(|&t| self.state_params(t))
                        .or_else(|| self.same_scale_params(o))
                } else {
                    self.same_scale_params(o)
                };
                let Some(params) = params else {
                    done.remove(&o);
                    continue;
                };
                let source = format!("same-scale ({name})");
                for k in 0..self.sg.operators[o].inputs.len() {
                    if self.sg.operators[o]
                        .input(k)
                        .is_some_and(|t| self.is_float(t))
                    {
                        self.set_operand(o, k, params, &source, &mut work);
                    }
                }
                for t in self.float_outputs(o) {
                    self.set_result(t, params, &source, &mut work);
                }
            }
            if let Some(f) = p.fixed_output {
                let (scale, zero_point) = if self.int16 { f.int16 } else { f.int8 };
                let params = QuantParams { scale, zero_point };
                let source = format!("fixed ({name})");
                for t in self.float_outputs(o) {
                    self.set_result(t, params, &source, &mut work);
                }
            }
        }
    }

    fn state_params(&self, t: usize) -> Option<QuantParams> {
        self.state.get(t).and_then(Option::as_ref).map(|s| s.params)
    }

    fn tensor_label(&self, t: usize) -> String {
        format!("tensor {t} '{}'", self.sg.tensors[t].name)
    }

    fn const_values(&self, t: usize) -> Vec<f32> {
        let b = self.sg.tensors[t].buffer as usize;
        self.model
            .buffers
            .get(b)
            .map(|b| f32s(&b.data))
            .unwrap_or_default()
    }

    /// Step 4: weights, bias and other constants. Returns the new data of each quantized
    /// constant tensor; dtypes and parameters are set on the tensors.
    fn quantize_constants(&mut self) -> Result<Vec<(usize, Vec<u8>)>> {
        let mut out = Vec::new();
        let mut handled: HashSet<usize> = HashSet::new();
        for o in 0..self.sg.operators.len() {
            if !self.quantized[o] {
                continue;
            }
            let Some(p) = self.props[o] else { continue };
            let op = self.sg.operators[o].clone();
            let mut weight_scales: Option<Vec<f32>> = None;
            let mut widened_bias: Option<Vec<Option<f64>>> = None;
            // Weights.
            if let Some(ws) = p.weights
                && let Some(w) = op.input(ws.input)
            {
                if self.is_const(w) && self.is_float(w) {
                    let values = self.const_values(w);
                    let shape = dims(&self.sg.tensors[w]);
                    let rule = if self.int16 {
                        WeightRule::Int16x8
                    } else {
                        WeightRule::FullInteger
                    };
                    let axis = ws
                        .axis
                        .filter(|&a| !self.opts.per_tensor && a < shape.len());
                    let label = self.tensor_label(w);
                    let mut q = match axis {
                        Some(axis) => {
                            let s_in = p
                                .bias
                                .and_then(|b| op.input(b.activation))
                                .and_then(|a| self.state_params(a))
                                .map_or(1.0, |q| q.scale);
                            let bias = p
                                .bias
                                .and_then(|b| op.input(b.input))
                                .filter(|&b| self.is_const(b) && self.is_float(b))
                                .map(|b| self.const_values(b))
                                .unwrap_or_default();
                            if bias.is_empty() {
                                params::per_channel_weights_int8(&values, &shape, axis, rule)
                            } else {
                                per_channel_weights_int8_for_bias(
                                    &values, &shape, axis, rule, &bias, s_in,
                                )
                            }
                        }
                        None => per_tensor_weights_int8(&values, rule),
                    }
                    .map_err(|e| qerr(label.clone(), e.to_string()))?;
                    // Int8 (MLIR): weight and bias scales widened where the int32 bias would
                    // overflow.
                    if !self.int16
                        && let Some(bs) = p.bias
                        && let Some(b) = op.input(bs.input)
                        && self.is_const(b)
                        && self.is_float(b)
                        && let Some(s_in) =
                            op.input(bs.activation).and_then(|a| self.state_params(a))
                    {
                        let bias = self.const_values(b);
                        widened_bias = params::widen_for_bias_int32(
                            &mut q, &values, &shape, axis, &bias, s_in.scale,
                        )
                        .map_err(|e| qerr(label.clone(), e.to_string()))?;
                        if widened_bias.is_some() {
                            self.report.warnings.push(format!(
                                "{label}: weight and bias scales widened so the int32 bias fits \
                                 (|bias| / (s_in · s_w) > 2^30), as TF's MLIR quantizer does"
                            ));
                        }
                    }
                    let t = &mut self.sg.tensors[w];
                    t.dtype = TensorType::INT8;
                    let zps = q.zero_points.iter().map(|&z| i64::from(z)).collect();
                    t.quantization = Some(match axis {
                        Some(a) => per_axis_q(q.scales.clone(), zps, a),
                        None => Quantization {
                            scale: Some(q.scales.clone()),
                            zero_point: Some(zps),
                            ..Quantization::default()
                        },
                    });
                    out.push((w, q.values.iter().map(|&v| v as u8).collect()));
                    handled.insert(w);
                    if self.int16 {
                        self.weight_values
                            .push((w, values.clone(), axis.unwrap_or(0)));
                    }
                    self.state[w] = Some(State {
                        params: QuantParams {
                            scale: q.scales.first().copied().unwrap_or(1.0),
                            zero_point: 0,
                        },
                        immutable: true,
                        source: "weights".into(),
                    });
                    weight_scales = Some(q.scales);
                } else if let Some(s) = self.state_params(w) {
                    weight_scales = Some(vec![s.scale]);
                }
            }
            // Bias.
            if let Some(bs) = p.bias
                && let Some(b) = op.input(bs.input)
                && self.is_const(b)
                && self.is_float(b)
            {
                let label = self.tensor_label(b);
                let s_in = op
                    .input(bs.activation)
                    .and_then(|a| self.state_params(a))
                    .ok_or_else(|| {
                        qerr(
                            label.clone(),
                            "the bias scale needs the input's parameters, which are unknown",
                        )
                    })?;
                let s_w = weight_scales.clone().ok_or_else(|| {
                    qerr(label.clone(), "the bias scale needs the weights' scales")
                })?;
                let values = self.const_values(b);
                let (data, scales, dtype) = if self.int16 {
                    let q = bias_int64(&values, s_in.scale, &s_w)
                        .map_err(|e| qerr(label.clone(), e.to_string()))?;
                    let d: Vec<u8> = q.values.iter().flat_map(|v| v.to_le_bytes()).collect();
                    (d, q.scales, TensorType::INT64)
                } else {
                    let q = match &widened_bias {
                        Some(adjusted) => {
                            params::bias_int32_adjusted(&values, s_in.scale, &s_w, adjusted)
                        }
                        None => bias_int32(&values, s_in.scale, &s_w),
                    }
                    .map_err(|e| qerr(label.clone(), e.to_string()))?;
                    let d: Vec<u8> = q.values.iter().flat_map(|v| v.to_le_bytes()).collect();
                    (d, q.scales, TensorType::INT32)
                };
                let t = &mut self.sg.tensors[b];
                t.dtype = dtype;
                let n = scales.len();
                t.quantization = Some(per_axis_q(scales, vec![0; n], 0));
                out.push((b, data));
                handled.insert(b);
                self.state[b] = Some(State {
                    params: QuantParams {
                        scale: s_in.scale * s_w.first().copied().unwrap_or(1.0),
                        zero_point: 0,
                    },
                    immutable: true,
                    source: "bias".into(),
                });
            }
            // Other float constants.
            for k in 0..op.inputs.len() {
                let Some(c) = op.input(k) else { continue };
                if handled.contains(&c) || !self.is_const(c) || !self.is_float(c) {
                    continue;
                }
                let label = self.tensor_label(c);
                let values = self.const_values(c);
                let params = match self.state_params(c) {
                    Some(p) => p,
                    None if self.int16 => {
                        let (lo, hi) = values
                            .iter()
                            .fold((0.0f32, 0.0f32), |(l, h), &v| (l.min(v), h.max(v)));
                        activation_params_int16(lo, hi)
                            .map_err(|e| qerr(label.clone(), e.to_string()))?
                    }
                    None => constant_params_int8(&values)
                        .map_err(|e| qerr(label.clone(), e.to_string()))?,
                };
                let (qmin, qmax, dtype) = if self.int16 {
                    (-32768, 32767, TensorType::INT16)
                } else {
                    (-128, 127, TensorType::INT8)
                };
                let q = quantize_affine(&values, params, qmin, qmax)
                    .map_err(|e| qerr(label.clone(), e.to_string()))?;
                let data: Vec<u8> = if self.int16 {
                    q.iter().flat_map(|&v| (v as i16).to_le_bytes()).collect()
                } else {
                    q.iter().map(|&v| v as i8 as u8).collect()
                };
                let t = &mut self.sg.tensors[c];
                t.dtype = dtype;
                t.quantization = Some(per_tensor_q(params));
                out.push((c, data));
                handled.insert(c);
                if self.state[c].is_none() {
                    self.state[c] = Some(State {
                        params,
                        immutable: true,
                        source: "constant".into(),
                    });
                }
            }
        }
        Ok(out)
    }

    /// Every activation of a quantized op must have parameters by now.
    fn check_complete(&self) -> Result<()> {
        let missing: Vec<String> = self
            .activations()
            .into_iter()
            .filter(|&t| self.state[t].is_none())
            .map(|t| self.tensor_label(t))
            .collect();
        if missing.is_empty() {
            Ok(())
        } else {
            Err(qerr(
                "activations",
                format!(
                    "no calibration statistics for {} (calibrate the model, or keep the ops that \
                     use them float with --float-ops)",
                    missing.join(", ")
                ),
            ))
        }
    }

    fn q_dtype(&self) -> TensorType {
        if self.int16 {
            TensorType::INT16
        } else {
            TensorType::INT8
        }
    }

    fn new_tensor(
        &mut self,
        like: usize,
        name: String,
        dtype: TensorType,
        q: Option<Quantization>,
    ) -> usize {
        let src = &self.sg.tensors[like];
        let mut t = Tensor::new(name, dtype, src.shape.clone().unwrap_or_default());
        t.shape = src.shape.clone();
        t.shape_signature = src.shape_signature.clone();
        t.has_rank = src.has_rank;
        t.quantization = q;
        self.sg.tensors.push(t);
        self.sg.tensors.len() - 1
    }

    fn dequantize_version(&self) -> i32 {
        2
    }

    fn quantize_version(&self) -> i32 {
        1
    }

    /// Step 5: rewrite dtypes, insert requantizes and the Q/DQ at the float boundaries and at the
    /// model's inputs and outputs; set operator versions.
    fn materialize(&mut self) {
        let qd = self.q_dtype();
        let io = self.opts.io;
        let mut names = Names::new(&self.sg);
        let n_ops = self.sg.operators.len();
        let mut start: Vec<Operator> = Vec::new();
        let mut end: Vec<(usize, Operator)> = Vec::new();
        let mut after: Vec<Vec<Operator>> = vec![Vec::new(); n_ops];
        // (op, input slot) → new tensor; (op, output slot) → new tensor.
        let mut in_map: HashMap<(usize, usize), usize> = HashMap::new();
        let mut out_map: HashMap<(usize, usize), usize> = HashMap::new();
        let mut output_map: HashMap<usize, usize> = HashMap::new();
        let outputs: HashSet<usize> = self
            .sg
            .outputs
            .iter()
            .filter_map(|&t| usize::try_from(t).ok())
            .collect();
        // Graph inputs in signature order (TF names their QUANTIZE outputs in that order).
        let mut inputs: Vec<usize> = self
            .model
            .signatures
            .iter()
            .find(|s| s.subgraph == 0)
            .map(|s| s.inputs.iter().map(|m| m.tensor as usize).collect())
            .unwrap_or_default();
        for &t in &self.sg.inputs {
            if let Ok(t) = usize::try_from(t)
                && !inputs.contains(&t)
            {
                inputs.push(t);
            }
        }
        inputs.retain(|t| self.sg.inputs.contains(&idx(*t)));
        if !self.int16 {
            // TF's MLIR quantizer: inputs whose parameters were propagated get their QUANTIZE
            // inserted at the start of the function one by one (so in reverse order), before
            // those of inputs with their own recorded range (in subgraph order).
            let mut sub: Vec<usize> = self
                .sg
                .inputs
                .iter()
                .filter_map(|&t| usize::try_from(t).ok())
                .collect();
            let immutable = |t: &usize| self.state[*t].as_ref().is_some_and(|s| s.immutable);
            let (imm, mut muts): (Vec<usize>, Vec<usize>) = sub.drain(..).partition(immutable);
            muts.reverse();
            inputs = muts.into_iter().chain(imm).collect();
        }
        let acts = self.activations();
        let mut order: Vec<usize> = inputs
            .iter()
            .copied()
            .filter(|t| acts.contains(t))
            .collect();
        order.extend(acts.iter().copied().filter(|t| !inputs.contains(t)));
        let mut input_quantize = 0usize;
        let mut q_of: HashMap<usize, usize> = HashMap::new();
        for t in order {
            let Some(st) = self.state[t].clone() else {
                continue;
            };
            let p = st.params;
            let prod = self.producer.get(&t).copied();
            let float_users: Vec<usize> = self
                .consumers
                .get(&t)
                .map(|c| c.iter().copied().filter(|&c| !self.quantized[c]).collect())
                .unwrap_or_default();
            let q_users: Vec<usize> = self
                .consumers
                .get(&t)
                .map(|c| c.iter().copied().filter(|&c| self.quantized[c]).collect())
                .unwrap_or_default();
            let name = self.sg.tensors[t].name.clone();
            let uint8_q = QuantParams {
                scale: p.scale,
                zero_point: p.zero_point + 128,
            };
            // `q`: the tensor quantized consumers read; `f`: the one float consumers read.
            let mut convs: Vec<Operator> = Vec::new();
            let q;
            let mut f = t;
            let quantized_producer = prod.is_some_and(|o| self.quantized[o]);
            if !quantized_producer {
                let is_input = prod.is_none() && inputs.contains(&t);
                match (is_input, io) {
                    (true, IoType::Native) => {
                        let x = &mut self.sg.tensors[t];
                        x.dtype = qd;
                        x.quantization = Some(per_tensor_q(p));
                        q = t;
                        if !float_users.is_empty() {
                            f = self.new_tensor(t, names.fresh(&name), TensorType::FLOAT32, None);
                            convs.push(simple_op(Op::DEQUANTIZE, self.dequantize_version(), q, f));
                        }
                    }
                    (true, _) => {
                        let qname = if self.int16 {
                            names.take(&format!("{name}_int16"))
                        } else if input_quantize == 0 {
                            names.take("tfl.quantize")
                        } else {
                            names.take(&format!("tfl.quantize{input_quantize}"))
                        };
                        input_quantize += 1;
                        q = self.new_tensor(t, qname, qd, Some(per_tensor_q(p)));
                        if io == IoType::Uint8 {
                            let x = &mut self.sg.tensors[t];
                            x.dtype = TensorType::UINT8;
                            x.quantization = Some(per_tensor_q(uint8_q));
                            if !float_users.is_empty() {
                                f = self.new_tensor(
                                    t,
                                    names.fresh(&name),
                                    TensorType::FLOAT32,
                                    None,
                                );
                                convs.push(simple_op(
                                    Op::DEQUANTIZE,
                                    self.dequantize_version(),
                                    t,
                                    f,
                                ));
                            }
                        }
                        convs.insert(0, simple_op(Op::QUANTIZE, self.quantize_version(), t, q));
                    }
                    (false, _) => {
                        // Produced by a float op: stays float, quantized for integer consumers.
                        q = self.new_tensor(t, names.fresh(&name), qd, Some(per_tensor_q(p)));
                        convs.push(simple_op(Op::QUANTIZE, self.quantize_version(), t, q));
                        let from_dequantize =
                            prod.is_some_and(|o| self.sg.operators[o].code.op() == Op::DEQUANTIZE);
                        if !from_dequantize {
                            self.report.warnings.push(format!(
                                "tensor {t} '{name}' is quantized after float operator {}",
                                prod.map_or(String::new(), |o| o.to_string())
                            ));
                        }
                    }
                }
            } else {
                let o = prod.unwrap_or(0);
                let k = self.sg.operators[o]
                    .outputs
                    .iter()
                    .position(|&x| x == idx(t))
                    .unwrap_or(0);
                let written = self.result_requant.get(&t).copied();
                let wp = written.unwrap_or(p);
                let is_out = outputs.contains(&t);
                if is_out && io != IoType::Native {
                    let wname = if self.int16 {
                        names.take(&format!("{name}_int16"))
                    } else {
                        names.fresh(&name)
                    };
                    let w = self.new_tensor(t, wname, qd, Some(per_tensor_q(wp)));
                    out_map.insert((o, k), w);
                    q = if written.is_some() {
                        let r = self.new_tensor(t, names.fresh(&name), qd, Some(per_tensor_q(p)));
                        convs.push(simple_op(Op::QUANTIZE, self.quantize_version(), w, r));
                        r
                    } else {
                        w
                    };
                    if io == IoType::Float && self.int16 {
                        // The older quantizer appends output DEQUANTIZEs at the end.
                        let at = self
                            .sg
                            .outputs
                            .iter()
                            .position(|&x| x == idx(t))
                            .unwrap_or(0);
                        end.push((
                            at,
                            simple_op(Op::DEQUANTIZE, self.dequantize_version(), q, t),
                        ));
                    } else if io == IoType::Float {
                        convs.push(simple_op(Op::DEQUANTIZE, self.dequantize_version(), q, t));
                    } else {
                        let x = &mut self.sg.tensors[t];
                        x.dtype = TensorType::UINT8;
                        x.quantization = Some(per_tensor_q(uint8_q));
                        convs.push(simple_op(Op::QUANTIZE, self.quantize_version(), q, t));
                        if !float_users.is_empty() {
                            f = self.new_tensor(t, names.fresh(&name), TensorType::FLOAT32, None);
                            convs.push(simple_op(Op::DEQUANTIZE, self.dequantize_version(), q, f));
                        }
                    }
                } else {
                    let x = &mut self.sg.tensors[t];
                    x.dtype = qd;
                    x.quantization = Some(per_tensor_q(wp));
                    q = if written.is_some() {
                        let rname = if self.int16 {
                            names.take(&format!("{name}_requantized"))
                        } else {
                            names.fresh(&name)
                        };
                        let r = self.new_tensor(t, rname, qd, Some(per_tensor_q(p)));
                        convs.push(simple_op(Op::QUANTIZE, self.quantize_version(), t, r));
                        if is_out {
                            output_map.insert(t, r);
                        }
                        r
                    } else {
                        t
                    };
                    if !float_users.is_empty() {
                        f = self.new_tensor(t, names.fresh(&name), TensorType::FLOAT32, None);
                        convs.push(simple_op(Op::DEQUANTIZE, self.dequantize_version(), q, f));
                    }
                }
            }
            q_of.insert(t, q);
            for &c in &q_users {
                for (k, &x) in self.sg.operators[c].inputs.iter().enumerate() {
                    if x == idx(t) {
                        in_map.insert((c, k), q);
                    }
                }
            }
            for &c in &float_users {
                for (k, &x) in self.sg.operators[c].inputs.iter().enumerate() {
                    if x == idx(t) {
                        in_map.insert((c, k), f);
                    }
                }
            }
            match prod {
                Some(o) => after[o].extend(convs),
                None => start.extend(convs),
            }
        }
        // Operand requantizes (TF's op-code table holds one QUANTIZE version: 2 once an int16
        // requantize exists).
        let requants = std::mem::take(&mut self.operand_requant);
        let requant_version = if self.int16 && !requants.is_empty() {
            2
        } else {
            self.quantize_version()
        };
        if requant_version != self.quantize_version() {
            for op in start.iter_mut().chain(after.iter_mut().flatten()) {
                if op.code.op() == Op::QUANTIZE {
                    op.code.version = requant_version;
                }
            }
        }
        for (t, p, users) in requants {
            let src = q_of.get(&t).copied().unwrap_or(t);
            let name = self.sg.tensors[t].name.clone();
            let rname = if self.int16 {
                names.take(&format!("{name}_requantized"))
            } else {
                names.fresh(&name)
            };
            let r = self.new_tensor(t, rname, qd, Some(per_tensor_q(p)));
            let op = simple_op(Op::QUANTIZE, requant_version, src, r);
            match self.producer.get(&t) {
                Some(&o) => after[o].push(op),
                None => start.push(op),
            }
            for (o, k) in users {
                in_map.insert((o, k), r);
            }
        }
        // Rewire and order.
        let old_ops = std::mem::take(&mut self.sg.operators);
        let mut ops = start;
        for (o, mut op) in old_ops.into_iter().enumerate() {
            for (k, x) in op.inputs.iter_mut().enumerate() {
                if let Some(&n) = in_map.get(&(o, k)) {
                    *x = idx(n);
                }
            }
            for (k, x) in op.outputs.iter_mut().enumerate() {
                if let Some(&n) = out_map.get(&(o, k)) {
                    *x = idx(n);
                }
            }
            if self.quantized[o]
                && let Some(p) = self.props[o]
            {
                let v = if self.int16 {
                    int16_version(op.code.op(), &p)
                } else {
                    p.int8_version
                };
                op.code.version = op.code.version.max(v);
                if self.int16 {
                    // As TF's 16x8 converter writes them: int64 bias declared in the options,
                    // and ADD/SUB on the general (not power-of-two) int16 scale path.
                    match &mut op.options {
                        BuiltinOptionsT::Conv2DOptions(x) => {
                            x.quantized_bias_type = TensorType::INT64;
                        }
                        BuiltinOptionsT::FullyConnectedOptions(x) => {
                            x.quantized_bias_type = TensorType::INT64;
                        }
                        BuiltinOptionsT::TransposeConvOptions(x) => {
                            x.quantized_bias_type = TensorType::INT64;
                        }
                        BuiltinOptionsT::AddOptions(x) => x.pot_scale_int16 = false,
                        BuiltinOptionsT::SubOptions(x) => x.pot_scale_int16 = false,
                        _ => {}
                    }
                }
            }
            ops.push(op);
            ops.append(&mut after[o]);
        }
        end.sort_by_key(|e| e.0);
        ops.extend(end.into_iter().map(|e| e.1));
        self.sg.operators = ops;
        for x in &mut self.sg.outputs {
            if let Some(&n) = usize::try_from(*x).ok().and_then(|t| output_map.get(&t)) {
                *x = idx(n);
            }
        }
    }

    /// For each tensor, the recorded range its parameters came from (itself, or across
    /// single-input same-scale ops); none for fixed outputs and for tensors an op writes with
    /// other parameters than its readers see. Computed on the original graph, before
    /// materializing.
    fn origin_ranges(&self) -> Vec<Option<(f32, f32)>> {
        let n = self.state.len();
        let origin = |mut t: usize| -> Option<usize> {
            for _ in 0..n {
                let s = self.state.get(t)?.as_ref()?;
                if s.source == "calibrated" {
                    return Some(t);
                }
                if !s.source.starts_with("same-scale") {
                    return None;
                }
                let p = *self.producer.get(&t)?;
                t = *self.float_inputs(p).first()?;
            }
            None
        };
        (0..n)
            .map(|t| {
                if self.result_requant.contains_key(&t) {
                    return None;
                }
                origin(t).and_then(|o| self.ranges.get(o))
            })
            .collect()
    }

    /// TF's older (16x8) quantizer keeps min/max in the quantization of what it quantized: the
    /// recorded range (widened to include 0) on each int16 activation, same-scale results
    /// carrying their source's; and per channel the value range of each int8 weight.
    fn record_ranges(
        &mut self,
        ranges: &[Option<(f32, f32)>],
        weights: &[(usize, Vec<f32>, usize)],
    ) {
        let mut by_name: HashMap<String, (f32, f32)> = HashMap::new();
        for (t, r) in ranges.iter().enumerate() {
            if let Some((min, max)) = *r {
                let r = (min.min(0.0), max.max(0.0));
                by_name.insert(self.sg.tensors[t].name.clone(), r);
                by_name.insert(format!("{}_int16", self.sg.tensors[t].name), r);
            }
        }
        for x in &mut self.sg.tensors {
            if x.dtype != TensorType::INT16 {
                continue;
            }
            let (Some(q), Some(&(min, max))) = (&mut x.quantization, by_name.get(&x.name)) else {
                continue;
            };
            q.min = Some(vec![min]);
            q.max = Some(vec![max]);
        }
        for (w, values, axis) in weights {
            let shape = dims(&self.sg.tensors[*w]);
            let channels = shape.get(*axis).copied().unwrap_or(1).max(1);
            let inner: usize = shape
                .get(axis + 1..)
                .map_or(1, |s| s.iter().product::<usize>())
                .max(1);
            let mut mins = vec![f32::MAX; channels];
            let mut maxs = vec![f32::MIN; channels];
            for (k, &v) in values.iter().enumerate() {
                let c = (k / inner) % channels;
                mins[c] = mins[c].min(v);
                maxs[c] = maxs[c].max(v);
            }
            if let Some(q) = &mut self.sg.tensors[*w].quantization {
                q.min = Some(mins);
                q.max = Some(maxs);
            }
        }
    }

    /// Per-op requantization multipliers for the report.
    fn multipliers(&mut self) {
        let sg = &self.sg;
        for (i, op) in sg.operators.iter().enumerate() {
            let Some(p) = properties(op.code.op()) else {
                continue;
            };
            let (Some(ws), Some(bs)) = (p.weights, p.bias) else {
                continue;
            };
            let scales = |t: Option<usize>| -> Vec<f32> {
                t.and_then(|t| sg.tensors.get(t))
                    .and_then(|t| t.quantization.as_ref())
                    .map(|q| q.scales().to_vec())
                    .unwrap_or_default()
            };
            let (s_in, s_w, s_out) = (
                scales(op.input(bs.activation)),
                scales(op.input(ws.input)),
                scales(op.output(0)),
            );
            let (Some(&s_in), Some(&s_out)) = (s_in.first(), s_out.first()) else {
                continue;
            };
            if s_w.is_empty() || s_out == 0.0 {
                continue;
            }
            let multipliers: Vec<f64> = s_w
                .iter()
                .map(|&w| f64::from(s_in) * f64::from(w) / f64::from(s_out))
                .collect();
            let quantized = multipliers
                .iter()
                .map(|&m| quantize_multiplier(m))
                .collect();
            self.report.ops.push(OpReport {
                index: i,
                op: op.code.name(),
                multipliers,
                quantized,
            });
        }
    }

    fn fill_tensor_report(&mut self, out: &Model) {
        let sg = &out.subgraphs[0];
        let inputs: HashSet<i32> = sg.inputs.iter().copied().collect();
        let outputs: HashSet<i32> = sg.outputs.iter().copied().collect();
        for (i, t) in sg.tensors.iter().enumerate() {
            let st = self.state.get(i).and_then(Option::as_ref);
            let range = self
                .ranges
                .get(i)
                .filter(|_| i < self.model.subgraphs[0].tensors.len());
            let role = if inputs.contains(&idx(i)) {
                "input"
            } else if outputs.contains(&idx(i)) {
                "output"
            } else if out.tensor_data(0, i).is_some() {
                match st.map(|s| s.source.as_str()) {
                    Some("weights") => "weight",
                    Some("bias") => "bias",
                    _ => "constant",
                }
            } else {
                "activation"
            };
            let q = t.quantization.as_ref();
            self.report.tensors.push(TensorReport {
                index: i,
                name: t.name.clone(),
                dtype: dtype_name(t.dtype),
                role: role.to_string(),
                min: range.map(|r| r.0),
                max: range.map(|r| r.1),
                source: st.map_or_else(
                    || {
                        if q.is_some_and(|q| !q.scales().is_empty()) {
                            "inserted".to_string()
                        } else {
                            String::new()
                        }
                    },
                    |s| s.source.clone(),
                ),
                scales: q.map(|q| q.scales().to_vec()).unwrap_or_default(),
                zero_points: q.map(|q| q.zero_points().to_vec()).unwrap_or_default(),
                axis: q
                    .filter(|q| q.scales().len() > 1)
                    .map(|q| q.quantized_dimension),
                ..TensorReport::default()
            });
        }
    }
}

/// `None` when every float tensor of the op is FLOAT32 and its weights are float constants;
/// otherwise why the op cannot be quantized.
fn check_types(sg: &Subgraph, op: &Operator, p: &OpProperties) -> Option<String> {
    for &t in op.inputs.iter().chain(&op.outputs) {
        let Ok(t) = usize::try_from(t) else { continue };
        let Some(x) = sg.tensors.get(t) else {
            return Some(format!("tensor {t} does not exist"));
        };
        if matches!(
            x.dtype,
            TensorType::INT8 | TensorType::UINT8 | TensorType::INT16 | TensorType::FLOAT16
        ) {
            return Some(format!(
                "tensor {t} '{}' is already {}",
                x.name,
                dtype_name(x.dtype)
            ));
        }
    }
    if let Some(ws) = p.weights
        && let Some(w) = op.input(ws.input)
        && sg
            .tensors
            .get(w)
            .is_some_and(|x| x.dtype != TensorType::FLOAT32)
    {
        return Some("its weights are not float32".into());
    }
    None
}

/// Operator indices named by `--float-ops` / `--int16-ops` (`flag`): indices, or names of an
/// output tensor.
fn resolve_ops(sg: &Subgraph, names: &[String], flag: &str) -> Result<HashSet<usize>> {
    let mut set = HashSet::new();
    for n in names {
        let n = n.trim();
        if n.is_empty() {
            continue;
        }
        if let Ok(i) = n.parse::<usize>() {
            if i >= sg.operators.len() {
                return Err(qerr(
                    flag,
                    format!("no operator {i}: the model has {}", sg.operators.len()),
                ));
            }
            set.insert(i);
            continue;
        }
        let found: Vec<usize> = sg
            .operators
            .iter()
            .enumerate()
            .filter(|(_, op)| {
                op.outputs.iter().any(|&t| {
                    usize::try_from(t)
                        .ok()
                        .and_then(|t| sg.tensors.get(t))
                        .is_some_and(|t| t.name == n)
                })
            })
            .map(|(i, _)| i)
            .collect();
        if found.is_empty() {
            return Err(qerr(
                flag,
                format!("no operator index or output tensor named '{n}'"),
            ));
        }
        set.extend(found);
    }
    Ok(set)
}

/// TF's `minimum_elements_for_weights`: dynamic-range quantization leaves smaller weights float.
pub const DYNAMIC_MIN_ELEMENTS: usize = 1024;

/// Dynamic-range quantization: int8 weights (per channel, TF's `PrepareDynamicRangeQuantize`
/// rule) for the weights of ops with hybrid kernels that have at least
/// [`DYNAMIC_MIN_ELEMENTS`] elements; everything else stays float.
fn dynamic_range(model: &Model, opts: &QuantizeOptions) -> Result<(Model, Report)> {
    let mut out = model.clone();
    let report = Report {
        mode: Mode::Dynamic.name().into(),
        io: "float".into(),
        ..Report::default()
    };
    let float_ops = resolve_ops(&model.subgraphs[0], &opts.float_ops, "--float-ops")?;
    let sg = &model.subgraphs[0];
    let mut done: HashSet<usize> = HashSet::new();
    let mut new_data = Vec::new();
    for (i, op) in sg.operators.iter().enumerate() {
        let code = op.code.op();
        let Some(p) = properties(code) else { continue };
        let Some(ws) = p.weights else { continue };
        if !p.hybrid || float_ops.contains(&i) {
            continue;
        }
        let Some(w) = op.input(ws.input) else {
            continue;
        };
        let t = &sg.tensors[w];
        let Some(data) = model.tensor_data(0, w) else {
            continue;
        };
        if t.dtype != TensorType::FLOAT32 || done.contains(&w) {
            continue;
        }
        let values = f32s(data);
        if values.len() < DYNAMIC_MIN_ELEMENTS {
            continue;
        }
        let shape = dims(t);
        let label = format!("tensor {w} '{}'", t.name);
        let axis = ws.axis.filter(|&a| !opts.per_tensor && a < shape.len());
        let q = match axis {
            Some(a) => {
                params::per_channel_weights_int8(&values, &shape, a, WeightRule::DynamicRange)
            }
            None => per_tensor_weights_int8(&values, WeightRule::DynamicRange),
        }
        .map_err(|e| qerr(label, e.to_string()))?;
        let zps = q.zero_points.iter().map(|&z| i64::from(z)).collect();
        let x = &mut out.subgraphs[0].tensors[w];
        x.dtype = TensorType::INT8;
        x.quantization = Some(match axis {
            Some(a) => per_axis_q(q.scales, zps, a),
            None => Quantization {
                scale: Some(q.scales),
                zero_point: Some(zps),
                ..Quantization::default()
            },
        });
        new_data.push((w, q.values.iter().map(|&v| v as u8).collect::<Vec<u8>>()));
        done.insert(w);
        let qop = &mut out.subgraphs[0].operators[i];
        qop.code.version = qop.code.version.max(p.hybrid_version);
        // TF's dynamic-range converter asks the hybrid FULLY_CONNECTED kernel to quantize its
        // inputs asymmetrically (per batch row, with a zero point).
        if let BuiltinOptionsT::FullyConnectedOptions(o) = &mut qop.options {
            o.asymmetric_quantize_inputs = true;
        }
    }
    for (w, data) in new_data {
        let b = push_buffer(&mut out, data);
        out.subgraphs[0].tensors[w].buffer = b;
    }
    unify_versions(&mut out);
    compact_buffers(&mut out);
    let report = report_tensors(report, &out);
    Ok((out, report))
}

/// Float16 quantization: every float32 constant becomes float16, followed by a DEQUANTIZE to
/// float32 that its users read (TF's `target_spec.supported_types = [tf.float16]`).
fn float16(model: &Model, _opts: &QuantizeOptions) -> Result<(Model, Report)> {
    let mut out = model.clone();
    let report = Report {
        mode: Mode::Float16.name().into(),
        io: "float".into(),
        ..Report::default()
    };
    let sg = &mut out.subgraphs[0];
    let mut names = Names::new(sg);
    let mut deq_ops = Vec::new();
    let mut remap: HashMap<usize, usize> = HashMap::new();
    let mut new_data = Vec::new();
    let n = sg.tensors.len();
    let used: HashSet<usize> = sg
        .operators
        .iter()
        .flat_map(|op| op.inputs.iter().filter_map(|&t| usize::try_from(t).ok()))
        .collect();
    for t in 0..n {
        if !used.contains(&t) || sg.tensors[t].dtype != TensorType::FLOAT32 {
            continue;
        }
        let Some(data) = model.tensor_data(0, t) else {
            continue;
        };
        let halves: Vec<u8> = f32s(data)
            .into_iter()
            .flat_map(|v| f32_to_f16_bits(v).to_le_bytes())
            .collect();
        let name = sg.tensors[t].name.clone();
        let mut f = sg.tensors[t].clone();
        f.buffer = 0;
        f.name = names.fresh(&name);
        f.quantization = None;
        let x = &mut sg.tensors[t];
        x.dtype = TensorType::FLOAT16;
        new_data.push((t, halves));
        sg.tensors.push(f);
        let fi = sg.tensors.len() - 1;
        remap.insert(t, fi);
        deq_ops.push(simple_op(Op::DEQUANTIZE, 3, t, fi));
    }
    for op in &mut sg.operators {
        for x in &mut op.inputs {
            if let Some(&n) = usize::try_from(*x).ok().and_then(|t| remap.get(&t)) {
                *x = idx(n);
            }
        }
    }
    deq_ops.append(&mut sg.operators);
    sg.operators = deq_ops;
    for (t, data) in new_data {
        let b = push_buffer(&mut out, data);
        out.subgraphs[0].tensors[t].buffer = b;
    }
    compact_buffers(&mut out);
    let report = report_tensors(report, &out);
    Ok((out, report))
}

fn report_tensors(mut report: Report, out: &Model) -> Report {
    for (i, t) in out.subgraphs[0].tensors.iter().enumerate() {
        let q = t.quantization.as_ref();
        report.tensors.push(TensorReport {
            index: i,
            name: t.name.clone(),
            dtype: dtype_name(t.dtype),
            role: if t.buffer != 0 {
                "constant"
            } else {
                "activation"
            }
            .into(),
            scales: q.map(|q| q.scales().to_vec()).unwrap_or_default(),
            zero_points: q.map(|q| q.zero_points().to_vec()).unwrap_or_default(),
            axis: q
                .filter(|q| q.scales().len() > 1)
                .map(|q| q.quantized_dimension),
            ..TensorReport::default()
        });
    }
    report
}

/// IEEE binary16 bits of `v`, rounded to nearest even (as TF's `Eigen::half` conversion).
pub fn f32_to_f16_bits(v: f32) -> u16 {
    let x = v.to_bits();
    let sign = ((x >> 16) & 0x8000) as u16;
    let exp = ((x >> 23) & 0xff) as i32;
    let man = x & 0x7f_ffff;
    if exp == 0xff {
        // Inf or NaN (keep a quiet NaN).
        return sign | 0x7c00 | if man != 0 { 0x200 } else { 0 };
    }
    let e = exp - 127 + 15;
    if e >= 0x1f {
        return sign | 0x7c00;
    }
    if e <= 0 {
        if e < -10 {
            return sign;
        }
        // Subnormal half: shift the mantissa with its implicit bit.
        let m = man | 0x80_0000;
        let shift = (14 - e) as u32;
        let half = m >> shift;
        let rem = m & ((1 << shift) - 1);
        let mid = 1 << (shift - 1);
        let round = rem > mid || (rem == mid && (half & 1) == 1);
        return sign | (half + u32::from(round)) as u16;
    }
    let half = ((e as u32) << 10) | (man >> 13);
    let rem = man & 0x1fff;
    let round = rem > 0x1000 || (rem == 0x1000 && (half & 1) == 1);
    // A carry out of the mantissa correctly bumps the exponent (up to infinity).
    sign | (half + u32::from(round)) as u16
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::graph::Buffer;

    fn f32_bytes(v: &[f32]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    /// x[1,4] → FULLY_CONNECTED(w[2,4], b[2]) → y[1,2] → `last` → z[1,2].
    fn tiny(last: OpCode) -> Model {
        let mut sg = Subgraph::default();
        let mut t = |name: &str, shape: Vec<i32>, buffer: u32| {
            let mut x = Tensor::new(name, TensorType::FLOAT32, shape);
            x.buffer = buffer;
            sg.tensors.push(x);
        };
        t("x", vec![1, 4], 0);
        t("w", vec![2, 4], 1);
        t("b", vec![2], 2);
        t("y", vec![1, 2], 0);
        t("z", vec![1, 2], 0);
        sg.inputs = vec![0];
        sg.outputs = vec![4];
        let mut fc = simple_op(Op::FULLY_CONNECTED, 1, 0, 3);
        fc.inputs = vec![0, 1, 2];
        fc.options = BuiltinOptionsT::FullyConnectedOptions(Box::default());
        let mut sm = simple_op(Op::SOFTMAX, 1, 3, 4);
        sm.code = last;
        sg.operators = vec![fc, sm];
        Model {
            version: 3,
            subgraphs: vec![sg],
            buffers: vec![
                Buffer::default(),
                Buffer {
                    data: f32_bytes(&[1.0, -0.5, 0.25, 0.0, 0.0, 0.0, 0.0, 2.0]),
                },
                Buffer {
                    data: f32_bytes(&[0.5, -1.0]),
                },
            ],
            ..Model::default()
        }
    }

    fn ranges(m: &Model) -> Ranges {
        let mut r = Ranges::new();
        for (i, lo, hi) in [(0, -1.0, 1.0), (3, -2.0, 6.0), (4, 0.0, 1.0)] {
            r.insert(i, &m.subgraphs[0].tensors[i].name, lo, hi)
                .expect("finite");
        }
        r
    }

    fn q(t: &Tensor) -> (Vec<f32>, Vec<i64>) {
        let q = t.quantization.as_ref().expect("quantized");
        (q.scales().to_vec(), q.zero_points().to_vec())
    }

    #[test]
    fn fully_connected_then_softmax_by_hand() {
        let m = tiny(OpCode::builtin(Op::SOFTMAX, 1));
        let (out, report) = quantize(&m, &ranges(&m), &QuantizeOptions::default()).expect("ok");
        let sg = &out.subgraphs[0];
        let by = |n: &str| sg.tensors.iter().position(|t| t.name == n).expect(n);
        // x: [-1, 1] → scale 2/255, zero point round(-128 + 127.5) = -1 (half away from zero).
        assert_eq!(q(&sg.tensors[by("x")]), (vec![2.0 / 255.0], vec![-1]));
        assert_eq!(sg.tensors[by("x")].dtype, TensorType::INT8);
        // y: [-2, 6] → scale 8/255, zero point round(-128 + 63.75) = -64.
        assert_eq!(q(&sg.tensors[by("y")]), (vec![8.0 / 255.0], vec![-64]));
        // z: SOFTMAX's fixed 1/256, -128 whatever its range.
        assert_eq!(q(&sg.tensors[by("z")]), (vec![1.0 / 256.0], vec![-128]));
        // Weights per output channel: scales 1/127, 2/127; -0.5·127 = -63.5 → -64, 31.75 → 32.
        let w = by("w");
        assert_eq!(q(&sg.tensors[w]).0, vec![1.0 / 127.0, 2.0 / 127.0]);
        let wv: Vec<i8> = out
            .tensor_data(0, w)
            .expect("w")
            .iter()
            .map(|&b| b as i8)
            .collect();
        assert_eq!(wv, vec![127, -64, 32, 0, 0, 0, 0, 127]);
        // Bias: 0.5 / (2/255 · 1/127) = 8096.25 → 8096; -1 / (2/255 · 2/127) → -8096.
        let b = by("b");
        assert_eq!(sg.tensors[b].dtype, TensorType::INT32);
        let bv: Vec<i32> = out
            .tensor_data(0, b)
            .expect("b")
            .chunks_exact(4)
            .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        assert_eq!(bv, vec![8096, -8096]);
        let versions: Vec<i32> = sg.operators.iter().map(|o| o.code.version).collect();
        assert_eq!(versions, vec![4, 2]);
        // The report's multiplier: s_x · s_w[0] / s_y = (2/255)(1/127)/(8/255) = 1/508.
        let m0 = report.ops[0].multipliers[0];
        assert!((m0 - 1.0 / 508.0).abs() < 1e-9, "{m0}");
        assert_eq!(report.ops[0].quantized[0], quantize_multiplier(m0));
    }

    #[test]
    fn float_io_adds_quantize_and_dequantize_named_as_tf() {
        let m = tiny(OpCode::builtin(Op::SOFTMAX, 1));
        let opts = QuantizeOptions {
            io: IoType::Float,
            ..QuantizeOptions::default()
        };
        let (out, _) = quantize(&m, &ranges(&m), &opts).expect("ok");
        let sg = &out.subgraphs[0];
        let names: Vec<String> = sg.operators.iter().map(|o| o.code.name()).collect();
        assert_eq!(
            names,
            ["QUANTIZE", "FULLY_CONNECTED", "SOFTMAX", "DEQUANTIZE"]
        );
        let name = |t: i32| sg.tensors[t as usize].name.as_str();
        assert_eq!(name(sg.operators[0].outputs[0]), "tfl.quantize");
        assert_eq!(name(sg.operators[2].outputs[0]), "z1");
        assert_eq!(name(sg.outputs[0]), "z");
        assert_eq!(
            sg.tensors[sg.outputs[0] as usize].dtype,
            TensorType::FLOAT32
        );
        assert_eq!(sg.tensors[sg.inputs[0] as usize].dtype, TensorType::FLOAT32);
    }

    #[test]
    fn uint8_io_shifts_the_zero_point() {
        let m = tiny(OpCode::builtin(Op::SOFTMAX, 1));
        let opts = QuantizeOptions {
            io: IoType::Uint8,
            ..QuantizeOptions::default()
        };
        let (out, _) = quantize(&m, &ranges(&m), &opts).expect("ok");
        let sg = &out.subgraphs[0];
        let x = &sg.tensors[sg.inputs[0] as usize];
        assert_eq!(x.dtype, TensorType::UINT8);
        assert_eq!(q(x), (vec![2.0 / 255.0], vec![127]));
        let z = &sg.tensors[sg.outputs[0] as usize];
        assert_eq!(q(z), (vec![1.0 / 256.0], vec![0]));
    }

    #[test]
    fn unsupported_op_stays_float_between_dequantize_and_float_output() {
        let custom = OpCode {
            custom_code: Some("MyOp".into()),
            ..OpCode::builtin(Op::CUSTOM, 1)
        };
        let m = tiny(custom);
        let (out, report) = quantize(&m, &ranges(&m), &QuantizeOptions::default()).expect("ok");
        assert!(
            report
                .warnings
                .iter()
                .any(|w| w.contains("operator 1 (MyOp) stays float")),
            "{:?}",
            report.warnings
        );
        let sg = &out.subgraphs[0];
        let names: Vec<String> = sg.operators.iter().map(|o| o.code.name()).collect();
        assert_eq!(names, ["FULLY_CONNECTED", "DEQUANTIZE", "MyOp"]);
        assert_eq!(
            sg.tensors[sg.outputs[0] as usize].dtype,
            TensorType::FLOAT32
        );
        // The custom op reads the DEQUANTIZE output, a float tensor.
        let input = sg.operators[2].inputs[0] as usize;
        assert_eq!(sg.tensors[input].dtype, TensorType::FLOAT32);
        assert_eq!(sg.operators[1].outputs[0] as usize, input);
    }

    #[test]
    fn missing_or_bad_ranges_are_typed_errors() {
        let m = tiny(OpCode::builtin(Op::SOFTMAX, 1));
        let mut r = Ranges::new();
        r.insert(0, "x", -1.0, 1.0).expect("finite");
        // y has no range (z's is fixed by SOFTMAX): named in the error.
        let e = quantize(&m, &r, &QuantizeOptions::default()).expect_err("missing y");
        assert!(e.to_string().contains("tensor 3 'y'"), "{e}");
        assert!(r.insert(3, "y", f32::NAN, 1.0).is_err());
        let e = r.insert(3, "y", 2.0, 1.0).expect_err("inverted");
        assert!(e.to_string().contains("'y'"), "{e}");
        // Dynamic range and float16 need no ranges; small weights stay float in dynamic mode.
        let dynamic = QuantizeOptions {
            mode: Mode::Dynamic,
            ..QuantizeOptions::default()
        };
        let (out, _) = quantize(&m, &Ranges::new(), &dynamic).expect("ok");
        assert_eq!(out.subgraphs[0].tensors[1].dtype, TensorType::FLOAT32);
        let fp16 = QuantizeOptions {
            mode: Mode::Float16,
            ..QuantizeOptions::default()
        };
        let (out, _) = quantize(&m, &Ranges::new(), &fp16).expect("ok");
        assert_eq!(out.subgraphs[0].tensors[1].dtype, TensorType::FLOAT16);
        assert_eq!(out.subgraphs[0].operators[0].code.name(), "DEQUANTIZE");
    }

    /// x[1,3] → LOGISTIC → s; CONCATENATION(s, x) → c[1,6].
    fn concat_of_logistic() -> Model {
        let mut sg = Subgraph::default();
        for (name, shape) in [("x", vec![1, 3]), ("s", vec![1, 3]), ("c", vec![1, 6])] {
            sg.tensors
                .push(Tensor::new(name, TensorType::FLOAT32, shape));
        }
        sg.inputs = vec![0];
        sg.outputs = vec![2];
        let mut cat = simple_op(Op::CONCATENATION, 1, 1, 2);
        cat.inputs = vec![1, 0];
        sg.operators = vec![simple_op(Op::LOGISTIC, 1, 0, 1), cat];
        Model {
            version: 3,
            subgraphs: vec![sg],
            buffers: vec![Buffer::default()],
            ..Model::default()
        }
    }

    #[test]
    fn concat_shares_its_result_range_and_requantizes_a_fixed_input() {
        let m = concat_of_logistic();
        let mut r = Ranges::new();
        r.insert(0, "x", -4.0, 4.0).expect("finite");
        r.insert(1, "s", 0.02, 0.98).expect("finite");
        r.insert(2, "c", -4.0, 4.0).expect("finite");
        let (out, _) = quantize(&m, &r, &QuantizeOptions::default()).expect("ok");
        let sg = &out.subgraphs[0];
        let names: Vec<String> = sg.operators.iter().map(|o| o.code.name()).collect();
        assert_eq!(names, ["LOGISTIC", "QUANTIZE", "CONCATENATION"]);
        // c's range [-4, 4]: scale 8/255, zero point round(-128 + 127.5) = -1; x (an operand of
        // the concatenation) takes it instead of its own range.
        let c = QuantParams {
            scale: 8.0 / 255.0,
            zero_point: -1,
        };
        let params = |t: i32| {
            let q = sg.tensors[t as usize].quantization.as_ref().expect("q");
            QuantParams {
                scale: q.scales()[0],
                zero_point: q.zero_points()[0] as i32,
            }
        };
        assert_eq!(params(sg.inputs[0]), c);
        assert_eq!(params(sg.outputs[0]), c);
        // LOGISTIC writes 1/256, -128 into 's'; a requantize gives the concatenation 's1' in c's.
        let s = sg.operators[0].outputs[0];
        assert_eq!(sg.tensors[s as usize].name, "s");
        assert_eq!(
            params(s),
            QuantParams {
                scale: 1.0 / 256.0,
                zero_point: -128
            }
        );
        let s1 = sg.operators[1].outputs[0];
        assert_eq!(sg.tensors[s1 as usize].name, "s1");
        assert_eq!(params(s1), c);
        assert_eq!(sg.operators[2].inputs, vec![s1, sg.inputs[0]]);

        // 16x8: the result keeps its range, each input with other parameters is requantized.
        let opts = QuantizeOptions {
            mode: Mode::Int16x8,
            io: IoType::Float,
            ..QuantizeOptions::default()
        };
        r.insert(2, "c", -5.0, 4.0).expect("finite");
        let (out, _) = quantize(&m, &r, &opts).expect("ok");
        let sg = &out.subgraphs[0];
        let names: Vec<&str> = sg.tensors.iter().map(|t| t.name.as_str()).collect();
        for n in ["x_int16", "x_requantized", "s_requantized", "c_int16"] {
            assert!(names.contains(&n), "{n} in {names:?}");
        }
        let c16 = sg
            .tensors
            .iter()
            .find(|t| t.name == "c_int16")
            .expect("c_int16");
        let q = c16.quantization.as_ref().expect("q");
        // Symmetric: 5 / 32767, zero point 0, recorded range kept.
        assert_eq!(q.scales(), [5.0f32 / 32767.0]);
        assert_eq!(q.min.as_deref(), Some(&[-5.0f32][..]));
    }

    #[test]
    fn f16_conversion() {
        assert_eq!(f32_to_f16_bits(1.0), 0x3c00);
        assert_eq!(f32_to_f16_bits(-2.0), 0xc000);
        assert_eq!(f32_to_f16_bits(0.0), 0);
        assert_eq!(f32_to_f16_bits(65504.0), 0x7bff);
        assert_eq!(f32_to_f16_bits(1e6), 0x7c00);
        // Smallest subnormal half: 2^-24.
        assert_eq!(f32_to_f16_bits(2.0f32.powi(-24)), 1);
        // 1 + 2^-11 is a tie between 1 and 1 + 2^-10: to even (1.0).
        assert_eq!(f32_to_f16_bits(1.0 + 2.0f32.powi(-11)), 0x3c00);
        assert_eq!(f32_to_f16_bits(1.0 + 3.0 * 2.0f32.powi(-11)), 0x3c02);
    }

    #[test]
    fn fresh_names_follow_tf() {
        let mut sg = Subgraph::default();
        sg.tensors
            .push(Tensor::new("a", TensorType::FLOAT32, vec![1]));
        sg.tensors
            .push(Tensor::new("a1", TensorType::FLOAT32, vec![1]));
        let mut n = Names::new(&sg);
        assert_eq!(n.fresh("a"), "a2");
        assert_eq!(n.fresh("b"), "b1");
        assert_eq!(n.take("tfl.quantize"), "tfl.quantize");
        assert_eq!(n.take("tfl.quantize"), "tfl.quantize1");
    }

    #[test]
    fn options_parse() {
        assert_eq!(Mode::parse("16x8").expect("ok"), Mode::Int16x8);
        assert!(Mode::parse("int4").is_err());
        assert_eq!(IoType::parse("float").expect("ok"), IoType::Float);
        assert!(IoType::parse("bf16").is_err());
    }
}
