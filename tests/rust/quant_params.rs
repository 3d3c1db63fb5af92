//! `zeropoint::quant::params` against TF 2.21's own output, bit for bit.
//!
//! For every golden case (`tests/golden/<case>/`):
//!
//! 1. **Weights and bias.** Each constant weight of `model_float.tflite` is matched to the
//!    corresponding quantized tensor of TF's `model_int8.tflite`, `model_int8_floatio.tflite`,
//!    `model_16x8.tflite` and `model_dynamic.tflite` by operator position and input slot (the
//!    operators of both models, QUANTIZE/DEQUANTIZE left out, must line up one to one). We quantize
//!    the float weights with the rule of that converter mode and require TF's int8 values, scales
//!    (f32 bits) and zero points; likewise the int32 (int8 modes) and int64 (16x8) biases, from
//!    TF's own input and weight scales.
//! 2. **Activations.** `model_calibrated.tflite` is TF's calibrated-only float model: its
//!    activation tensors carry the min/max TF recorded. Every activation of TF's quantized model
//!    whose parameters come from its *own* recorded range must get bit-equal scale and equal zero
//!    point from [`activation_params_int8`] (int8 modes) or [`activation_params_int16`] (16x8).
//!    Tensors whose parameters come from elsewhere are left out, by the rule that assigns them
//!    (see [`ActivationPlan`]); those rules belong to the quantizer passes, not to `params`.
//!
//! A summary line per case and mode is printed (`cargo test -- --nocapture` to see it). There is
//! no tolerance: any difference fails, unless it is listed in [`KNOWN_GAPS`] with its reason.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use zeropoint::graph::{Model, Subgraph, Tensor, TensorType};
use zeropoint::quant::params::{
    QuantParams, WeightRule, activation_params_int8, activation_params_int16, bias_int32,
    bias_int64, per_channel_weights_int8, per_channel_weights_int8_for_bias,
    per_tensor_weights_int8, widen_for_bias_int32,
};
use zeropoint::tflite;
use zeropoint_tests::{CaseFilter, repo_root, select};

/// Comparisons that differ from TF for a understood reason we have not fixed yet:
/// `(case, mode, tensor name in TF's quantized model, reason)`. Such a difference is reported but
/// does not fail the test; an entry that no longer differs fails it (remove the entry).
const KNOWN_GAPS: &[(&str, &str, &str, &str)] = &[];

/// The quantized models TF made from each float model, and the rules of that converter mode.
#[derive(Debug, Clone, Copy)]
struct Mode {
    /// Variant name as in `case.toml` (file `model_<name>.tflite`).
    name: &'static str,
    weights: WeightRule,
    bias: BiasKind,
    activations: Option<ActKind>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum BiasKind {
    Int32,
    Int64,
    /// Dynamic range keeps biases float.
    Float,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum ActKind {
    Int8,
    Int16,
}

const MODES: [Mode; 4] = [
    Mode {
        name: "int8",
        weights: WeightRule::FullInteger,
        bias: BiasKind::Int32,
        activations: Some(ActKind::Int8),
    },
    Mode {
        name: "int8_floatio",
        weights: WeightRule::FullInteger,
        bias: BiasKind::Int32,
        activations: Some(ActKind::Int8),
    },
    Mode {
        name: "16x8",
        weights: WeightRule::Int16x8,
        bias: BiasKind::Int64,
        activations: Some(ActKind::Int16),
    },
    Mode {
        name: "dynamic",
        weights: WeightRule::DynamicRange,
        bias: BiasKind::Float,
        activations: None,
    },
];

/// Where an operator's weights live: (weights input, per-channel axis, bias input, activation
/// input).
fn weight_slots(op: &str) -> Option<(usize, usize, Option<usize>, usize)> {
    match op {
        "CONV_2D" | "FULLY_CONNECTED" => Some((1, 0, Some(2), 0)),
        "DEPTHWISE_CONV_2D" => Some((1, 3, Some(2), 0)),
        // Inputs: output shape, weights, activation, bias.
        "TRANSPOSE_CONV" => Some((1, 0, Some(3), 2)),
        "CONV_3D" => Some((1, 4, Some(2), 0)),
        _ => None,
    }
}

/// Ops whose output parameters are fixed by the op, not by the recorded range (TF's
/// `FixedOutputRangeInterface`; e.g. SOFTMAX/LOGISTIC int8 → (1/256, −128), TANH → (1/128, 0)).
const FIXED_OUTPUT_OPS: &[&str] = &[
    "SOFTMAX",
    "LOGISTIC",
    "TANH",
    "LOG_SOFTMAX",
    "L2_NORMALIZATION",
];

/// Ops whose operands and results share one scale (TF's `SameOperandsAndResultsScale`): their
/// parameters are propagated across the op, so only one side keeps its recorded range.
const SAME_SCALE_OPS: &[&str] = &[
    "AVERAGE_POOL_2D",
    "MAX_POOL_2D",
    "CONCATENATION",
    "RESHAPE",
    "SQUEEZE",
    "EXPAND_DIMS",
    "TRANSPOSE",
    "SLICE",
    "STRIDED_SLICE",
    "SPLIT",
    "SPLIT_V",
    "PACK",
    "UNPACK",
    "PAD",
    "PADV2",
    "MIRROR_PAD",
    "GATHER",
    "GATHER_ND",
    "MAXIMUM",
    "MINIMUM",
    "RESIZE_BILINEAR",
    "RESIZE_NEAREST_NEIGHBOR",
    "DEPTH_TO_SPACE",
    "SPACE_TO_DEPTH",
    "BATCH_TO_SPACE_ND",
    "SPACE_TO_BATCH_ND",
    "TILE",
    "BROADCAST_TO",
    "REDUCE_MAX",
    "REDUCE_MIN",
    "SELECT",
    "SELECT_V2",
    "REVERSE_V2",
];

/// The golden cases: `tests/golden/*/`, or the folder named by `ZEROPOINT_GOLDEN_DIR` (to check a
/// freshly generated set before it replaces the committed one).
fn golden_cases() -> Vec<PathBuf> {
    let dir = std::env::var_os("ZEROPOINT_GOLDEN_DIR")
        .map_or_else(|| repo_root().join("tests/golden"), PathBuf::from);
    let mut out: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|rd| {
            rd.flatten()
                .map(|e| e.path())
                .filter(|p| p.join("model_float.tflite").is_file())
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}

fn load(path: &Path) -> Model {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    tflite::read(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn case_name(dir: &Path) -> String {
    dir.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Operators other than QUANTIZE/DEQUANTIZE, in execution order: the ones both models share.
fn compute_ops(sg: &Subgraph) -> Vec<usize> {
    (0..sg.operators.len())
        .filter(|&i| {
            let n = sg.operators[i].code.name();
            n != "QUANTIZE" && n != "DEQUANTIZE"
        })
        .collect()
}

/// Pairs the operators of two models that must have the same structure.
fn pair_ops(a: &Subgraph, b: &Subgraph, what: &str) -> Vec<(usize, usize)> {
    let (oa, ob) = (compute_ops(a), compute_ops(b));
    let names = |sg: &Subgraph, ops: &[usize]| -> Vec<String> {
        ops.iter().map(|&i| sg.operators[i].code.name()).collect()
    };
    assert_eq!(
        names(a, &oa),
        names(b, &ob),
        "{what}: the operators do not line up"
    );
    oa.into_iter().zip(ob).collect()
}

/// Tensor index → index of the operator producing it.
fn producers(sg: &Subgraph) -> HashMap<usize, usize> {
    let mut m = HashMap::new();
    for (i, op) in sg.operators.iter().enumerate() {
        for o in (0..op.outputs.len()).filter_map(|k| op.output(k)) {
            m.insert(o, i);
        }
    }
    m
}

/// Tensor index → operators reading it.
fn consumers(sg: &Subgraph) -> HashMap<usize, Vec<usize>> {
    let mut m: HashMap<usize, Vec<usize>> = HashMap::new();
    for (i, op) in sg.operators.iter().enumerate() {
        for t in (0..op.inputs.len()).filter_map(|k| op.input(k)) {
            m.entry(t).or_default().push(i);
        }
    }
    m
}

/// Follows a DEQUANTIZE back to the constant it dequantizes (dynamic range keeps int8 weights
/// behind DEQUANTIZE for ops without hybrid kernels).
fn through_dequantize(sg: &Subgraph, prod: &HashMap<usize, usize>, t: usize) -> usize {
    match prod.get(&t).map(|&o| &sg.operators[o]) {
        Some(op) if op.code.name() == "DEQUANTIZE" => op.input(0).unwrap_or(t),
        _ => t,
    }
}

fn data(m: &Model, t: usize) -> &[u8] {
    m.tensor_data(0, t).unwrap_or(&[])
}

fn f32s(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn i32s(b: &[u8]) -> Vec<i32> {
    b.chunks_exact(4)
        .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn i64s(b: &[u8]) -> Vec<i64> {
    b.chunks_exact(8)
        .map(|c| i64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]))
        .collect()
}

fn dims(t: &Tensor) -> Vec<usize> {
    t.dims()
        .iter()
        .map(|&d| usize::try_from(d).unwrap_or(0))
        .collect()
}

fn scales(t: &Tensor) -> Vec<f32> {
    t.quantization
        .as_ref()
        .map(|q| q.scales().to_vec())
        .unwrap_or_default()
}

fn zero_points(t: &Tensor) -> Vec<i64> {
    t.quantization
        .as_ref()
        .map(|q| q.zero_points().to_vec())
        .unwrap_or_default()
}

fn bits(v: &[f32]) -> Vec<u32> {
    v.iter().map(|x| x.to_bits()).collect()
}

/// First differing element of two equal-length sequences, described.
fn first_diff<T: PartialEq + std::fmt::Debug>(ours: &[T], tf: &[T], float: &[f32]) -> String {
    let n = ours.iter().zip(tf).filter(|(a, b)| a != b).count();
    match ours.iter().zip(tf).position(|(a, b)| a != b) {
        Some(i) => format!(
            "{n} value(s) differ, first at [{i}]: float {:e}, ours {:?}, TF {:?}",
            float.get(i).copied().unwrap_or(f32::NAN),
            ours[i],
            tf[i]
        ),
        None if ours.len() != tf.len() => format!("{} values vs TF's {}", ours.len(), tf.len()),
        None => String::new(),
    }
}

/// Tallies of one case and mode, and the differences found.
#[derive(Default)]
struct Tally {
    weights: (usize, usize),
    weight_values: usize,
    weights_kept_float: usize,
    biases: (usize, usize),
    activations: (usize, usize),
    excluded: BTreeMap<&'static str, usize>,
    /// (where, tensor name in TF's model, what differs).
    mismatches: Vec<(String, String, String)>,
}

impl Tally {
    /// Records one comparison of TF's tensor `tensor` (described by `label`): `problem` is empty
    /// when ours equals TF's.
    fn check(
        &mut self,
        counter: fn(&mut Tally) -> &mut (usize, usize),
        label: &str,
        tensor: &str,
        problem: String,
    ) {
        let c = counter(self);
        c.0 += 1;
        if problem.is_empty() {
            c.1 += 1;
        } else {
            self.mismatches
                .push((label.to_string(), tensor.to_string(), problem));
        }
    }
}

/// Part 1: weights and bias of every weight-bearing operator.
fn compare_weights(float: &Model, quant: &Model, mode: Mode, tally: &mut Tally, what: &str) {
    let (fsg, qsg) = (&float.subgraphs[0], &quant.subgraphs[0]);
    let (fprod, qprod) = (producers(fsg), producers(qsg));
    for (fi, qi) in pair_ops(fsg, qsg, what) {
        let (fop, qop) = (&fsg.operators[fi], &qsg.operators[qi]);
        let op_name = fop.code.name();
        let Some((w_slot, axis, b_slot, in_slot)) = weight_slots(&op_name) else {
            continue;
        };
        let (Some(fw), Some(qw)) = (fop.input(w_slot), qop.input(w_slot)) else {
            continue;
        };
        let fw = through_dequantize(fsg, &fprod, fw);
        let qw = through_dequantize(qsg, &qprod, qw);
        let (ft, qt) = (&fsg.tensors[fw], &qsg.tensors[qw]);
        if ft.dtype != TensorType::FLOAT32 || data(float, fw).is_empty() {
            continue;
        }
        if qt.dtype == TensorType::FLOAT32 {
            // Dynamic range leaves small weights float (fewer than 1024 elements).
            tally.weights_kept_float += 1;
            continue;
        }
        let label = format!("op {qi} ({op_name}) weights '{}'", qt.name);
        if qt.dtype != TensorType::INT8 {
            tally.check(
                |t| &mut t.weights,
                &label,
                &qt.name,
                format!("TF's type is {:?}", qt.dtype),
            );
            continue;
        }
        let w = f32s(data(float, fw));
        let shape = dims(ft);
        let tf_scales = scales(qt);
        let channels = shape.get(axis).copied().unwrap_or(0);
        let per_tensor = tf_scales.len() == 1 && channels != 1;
        // The bias (float in the float model) and TF's input scale, for the weight-range
        // adjustment that keeps the bias representable.
        let bias_fit = b_slot
            .and_then(|k| fop.input(k))
            .filter(|&fb| fsg.tensors[fb].dtype == TensorType::FLOAT32)
            .map(|fb| f32s(data(float, fb)))
            .filter(|b| !b.is_empty())
            .zip(
                qop.input(in_slot)
                    .and_then(|t| scales(&qsg.tensors[t]).first().copied()),
            );
        let ours = match (per_tensor, &bias_fit) {
            (true, _) => per_tensor_weights_int8(&w, mode.weights),
            (false, Some((b, s_in))) if mode.bias != BiasKind::Float => {
                per_channel_weights_int8_for_bias(&w, &shape, axis, mode.weights, b, *s_in)
            }
            (false, _) => per_channel_weights_int8(&w, &shape, axis, mode.weights),
        };
        // Int8 (MLIR): scales widened where the int32 bias would overflow.
        let ours = match (ours, &bias_fit) {
            (Ok(mut q), Some((b, s_in))) if mode.bias == BiasKind::Int32 => {
                let axis = (!per_tensor).then_some(axis);
                widen_for_bias_int32(&mut q, &w, &shape, axis, b, *s_in).map(|_| q)
            }
            (other, _) => other,
        };
        let tf_values: Vec<i8> = data(quant, qw).iter().map(|&b| b as i8).collect();
        let mut problem = String::new();
        match ours {
            Err(e) => problem = format!("ours failed: {e}"),
            Ok(ours) => {
                tally.weight_values += w.len();
                problem += &first_diff(&ours.values, &tf_values, &w);
                if bits(&ours.scales) != bits(&tf_scales) {
                    let d = first_diff(&bits(&ours.scales), &bits(&tf_scales), &[]);
                    let _ = write!(problem, " scales (f32 bits): {d}");
                }
                let ours_zp: Vec<i64> = ours.zero_points.iter().map(|&z| i64::from(z)).collect();
                if ours_zp != zero_points(qt) {
                    let _ = write!(
                        problem,
                        " zero points: ours {ours_zp:?}, TF {:?}",
                        zero_points(qt)
                    );
                }
                let tf_axis = qt
                    .quantization
                    .as_ref()
                    .map_or(0, |q| q.quantized_dimension);
                if !per_tensor && usize::try_from(tf_axis).ok() != Some(axis) {
                    let _ = write!(problem, " axis: ours {axis}, TF {tf_axis}");
                }
            }
        }
        tally.check(|t| &mut t.weights, &label, &qt.name, problem);

        // The bias, from TF's own input and weight scales.
        if mode.bias == BiasKind::Float {
            continue;
        }
        let Some(b_slot) = b_slot else { continue };
        let (Some(fb), Some(qb), Some(qin)) =
            (fop.input(b_slot), qop.input(b_slot), qop.input(in_slot))
        else {
            continue;
        };
        let (fbt, qbt) = (&fsg.tensors[fb], &qsg.tensors[qb]);
        if fbt.dtype != TensorType::FLOAT32 || data(float, fb).is_empty() {
            continue;
        }
        let label = format!("op {qi} ({op_name}) bias '{}'", qbt.name);
        let b = f32s(data(float, fb));
        let Some(&s_in) = scales(&qsg.tensors[qin]).first() else {
            let problem = "TF's input has no scale".to_string();
            tally.check(|t| &mut t.biases, &label, &qbt.name, problem);
            continue;
        };
        let mut problem = String::new();
        let tf_bias_scales = scales(qbt);
        let (ours_scales, diff) = match (mode.bias, qbt.dtype) {
            (BiasKind::Int32, TensorType::INT32) => match bias_int32(&b, s_in, &tf_scales) {
                Ok(q) => (q.scales, first_diff(&q.values, &i32s(data(quant, qb)), &b)),
                Err(e) => (Vec::new(), format!("ours failed: {e}")),
            },
            (BiasKind::Int64, TensorType::INT64) => match bias_int64(&b, s_in, &tf_scales) {
                Ok(q) => (q.scales, first_diff(&q.values, &i64s(data(quant, qb)), &b)),
                Err(e) => (Vec::new(), format!("ours failed: {e}")),
            },
            (_, dtype) => (Vec::new(), format!("TF's bias type is {dtype:?}")),
        };
        problem += &diff;
        // A per-tensor bias scale is stored once.
        let ours_scales = if tf_bias_scales.len() == 1 && ours_scales.len() > 1 {
            ours_scales[..1].to_vec()
        } else {
            ours_scales
        };
        if problem.is_empty() && bits(&ours_scales) != bits(&tf_bias_scales) {
            let d = first_diff(&bits(&ours_scales), &bits(&tf_bias_scales), &[]);
            let _ = write!(problem, " scales (f32 bits): {d}");
        }
        if zero_points(qbt).iter().any(|&z| z != 0) {
            let _ = write!(
                problem,
                " TF's zero points are not 0: {:?}",
                zero_points(qbt)
            );
        }
        tally.check(|t| &mut t.biases, &label, &qbt.name, problem);
    }
}

/// Which activations of the calibrated model keep their own recorded range, reproducing TF's
/// `RemoveRedundantStatsOps` (int8) and the older quantizer's same-scale rule (16x8):
///
/// - outputs of fixed-output ops take the op's fixed parameters;
/// - int8: a same-scale op with one float operand passes its input's parameters forward to its
///   result (transitively); a same-scale op with several float operands (CONCATENATION, MAXIMUM
///   of two tensors, …) keeps its result's range and passes it backward to its operands;
/// - 16x8: a same-scale op's result takes its (first) input's parameters;
/// - everything else with a recorded range keeps it and is compared.
struct ActivationPlan {
    /// Calibrated tensor index → why its parameters come from elsewhere.
    excluded: BTreeMap<usize, &'static str>,
}

impl ActivationPlan {
    fn new(sg: &Subgraph, calibrated: &Model, kind: ActKind) -> Self {
        let prod = producers(sg);
        let cons = consumers(sg);
        let has_stats = |t: usize| {
            let tensor = &sg.tensors[t];
            calibrated.tensor_data(0, t).is_none()
                && tensor.quantization.as_ref().is_some_and(|q| {
                    q.min.as_ref().is_some_and(|m| m.len() == 1)
                        && q.max.as_ref().is_some_and(|m| m.len() == 1)
                })
        };
        let op_name = |o: usize| sg.operators[o].code.name();
        let same_scale = |o: usize| SAME_SCALE_OPS.contains(&op_name(o).as_str());
        let float_operands = |o: usize| {
            let op = &sg.operators[o];
            (0..op.inputs.len())
                .filter_map(|k| op.input(k))
                .filter(|&t| sg.tensors[t].dtype == TensorType::FLOAT32)
                .count()
        };
        let mut excluded = BTreeMap::new();
        let stats: Vec<usize> = (0..sg.tensors.len()).filter(|&t| has_stats(t)).collect();
        for &t in &stats {
            if let Some(&p) = prod.get(&t)
                && FIXED_OUTPUT_OPS.contains(&op_name(p).as_str())
            {
                excluded.insert(t, "fixed-output op");
            }
        }
        match kind {
            ActKind::Int8 => {
                // Forward: through single-float-operand same-scale ops.
                let mut work: Vec<usize> = stats.clone();
                let mut redundant = BTreeSet::new();
                while let Some(t) = work.pop() {
                    for &u in cons.get(&t).map(Vec::as_slice).unwrap_or(&[]) {
                        if !same_scale(u) || float_operands(u) > 1 {
                            continue;
                        }
                        let op = &sg.operators[u];
                        for r in (0..op.outputs.len()).filter_map(|k| op.output(k)) {
                            if has_stats(r) && redundant.insert(r) {
                                work.push(r);
                            }
                        }
                    }
                }
                // Backward: from the remaining results of same-scale ops to their operands.
                let mut work: Vec<usize> = stats
                    .iter()
                    .copied()
                    .filter(|t| !redundant.contains(t))
                    .collect();
                let mut backward = BTreeSet::new();
                while let Some(t) = work.pop() {
                    let Some(&p) = prod.get(&t) else { continue };
                    if !same_scale(p) {
                        continue;
                    }
                    let op = &sg.operators[p];
                    for x in (0..op.inputs.len()).filter_map(|k| op.input(k)) {
                        if has_stats(x) && !redundant.contains(&x) && backward.insert(x) {
                            work.push(x);
                        }
                    }
                }
                for t in redundant {
                    excluded.entry(t).or_insert("same-scale (forward)");
                }
                for t in backward {
                    excluded.entry(t).or_insert("same-scale (backward)");
                }
            }
            ActKind::Int16 => {
                for &t in &stats {
                    if prod.get(&t).is_some_and(|&p| same_scale(p)) {
                        excluded.entry(t).or_insert("same-scale (takes input's)");
                    }
                }
            }
        }
        ActivationPlan { excluded }
    }
}

/// Calibrated tensor → quantized tensor: op outputs position by position, and subgraph inputs
/// (through the QUANTIZE TF puts after a float input).
fn map_activations(calibrated: &Model, quant: &Model, what: &str) -> Vec<(usize, usize)> {
    let (csg, qsg) = (&calibrated.subgraphs[0], &quant.subgraphs[0]);
    let qcons = consumers(qsg);
    let mut out = Vec::new();
    for (&ci, &qi) in csg.inputs.iter().zip(&qsg.inputs) {
        let (Ok(ci), Ok(mut qi)) = (usize::try_from(ci), usize::try_from(qi)) else {
            continue;
        };
        if qsg.tensors[qi].dtype == TensorType::FLOAT32
            && let Some(q) = qcons.get(&qi).and_then(|ops| {
                ops.iter()
                    .map(|&o| &qsg.operators[o])
                    .find(|op| op.code.name() == "QUANTIZE")
            })
            && let Some(o) = q.output(0)
        {
            qi = o;
        }
        out.push((ci, qi));
    }
    for (co, qo) in pair_ops(csg, qsg, what) {
        let (cop, qop) = (&csg.operators[co], &qsg.operators[qo]);
        for k in 0..cop.outputs.len().min(qop.outputs.len()) {
            if let (Some(c), Some(q)) = (cop.output(k), qop.output(k)) {
                out.push((c, q));
            }
        }
    }
    out
}

/// Part 2: activations against the calibrated model's recorded ranges.
fn compare_activations(
    calibrated: &Model,
    quant: &Model,
    kind: ActKind,
    tally: &mut Tally,
    what: &str,
) {
    let (csg, qsg) = (&calibrated.subgraphs[0], &quant.subgraphs[0]);
    let plan = ActivationPlan::new(csg, calibrated, kind);
    let mut seen = BTreeSet::new();
    for (c, q) in map_activations(calibrated, quant, what) {
        if !seen.insert(c) {
            continue;
        }
        let (ct, qt) = (&csg.tensors[c], &qsg.tensors[q]);
        let Some(cq) = ct.quantization.as_ref() else {
            continue;
        };
        let (Some([min]), Some([max])) = (cq.min.as_deref(), cq.max.as_deref()) else {
            continue;
        };
        let want_type = match kind {
            ActKind::Int8 => TensorType::INT8,
            ActKind::Int16 => TensorType::INT16,
        };
        if qt.dtype != want_type || scales(qt).len() != 1 {
            *tally
                .excluded
                .entry("not quantized to this type")
                .or_default() += 1;
            continue;
        }
        if let Some(&why) = plan.excluded.get(&c) {
            *tally.excluded.entry(why).or_default() += 1;
            continue;
        }
        let ours = match kind {
            ActKind::Int8 => activation_params_int8(*min, *max),
            ActKind::Int16 => activation_params_int16(*min, *max),
        };
        let tf = (scales(qt)[0], zero_points(qt).first().copied().unwrap_or(0));
        let problem = match ours {
            Err(e) => format!("ours failed: {e} (range [{min:e}, {max:e}])"),
            Ok(QuantParams { scale, zero_point })
                if scale.to_bits() == tf.0.to_bits() && i64::from(zero_point) == tf.1 =>
            {
                String::new()
            }
            Ok(QuantParams { scale, zero_point }) => format!(
                "range [{min:e}, {max:e}] ({:#010x}, {:#010x}): ours scale {scale:e} ({:#010x}) zp {zero_point}, TF scale {:e} ({:#010x}) zp {}",
                min.to_bits(),
                max.to_bits(),
                scale.to_bits(),
                tf.0,
                tf.0.to_bits(),
                tf.1
            ),
        };
        let label = format!("activation '{}'", qt.name);
        tally.check(|t| &mut t.activations, &label, &qt.name, problem);
    }
}

#[test]
fn quant_params_match_tf_goldens() {
    let cases = golden_cases();
    assert!(!cases.is_empty(), "no golden cases under tests/golden");
    let selection = select(
        "quant_params",
        cases,
        |d| case_name(d),
        CaseFilter::from_env(),
    );
    let mut failures = Vec::new();
    let mut gaps_seen = BTreeSet::new();
    let mut no_calibrated = Vec::new();
    let mut totals = Tally::default();
    let panics = selection.each(|dir| {
        let case = case_name(dir);
        let float = load(&dir.join("model_float.tflite"));
        let calibrated_path = dir.join("model_calibrated.tflite");
        let calibrated = calibrated_path.is_file().then(|| load(&calibrated_path));
        if calibrated.is_none() {
            no_calibrated.push(case.clone());
        }
        for mode in MODES {
            let path = dir.join(format!("model_{}.tflite", mode.name));
            if !path.is_file() {
                continue;
            }
            let quant = load(&path);
            let what = format!("{case}/{}", mode.name);
            let mut tally = Tally::default();
            compare_weights(&float, &quant, mode, &mut tally, &what);
            if let (Some(cal), Some(kind)) = (&calibrated, mode.activations) {
                compare_activations(cal, &quant, kind, &mut tally, &what);
            }
            let excluded: Vec<String> = tally
                .excluded
                .iter()
                .map(|(k, v)| format!("{v} {k}"))
                .collect();
            println!(
                "{what}: weights {}/{} exact ({} values{}), bias {}/{} exact, activations {}/{} exact{}",
                tally.weights.1,
                tally.weights.0,
                tally.weight_values,
                if tally.weights_kept_float > 0 {
                    format!(", {} kept float", tally.weights_kept_float)
                } else {
                    String::new()
                },
                tally.biases.1,
                tally.biases.0,
                tally.activations.1,
                tally.activations.0,
                if calibrated.is_none() && mode.activations.is_some() {
                    " (no model_calibrated.tflite)".to_string()
                } else if excluded.is_empty() {
                    String::new()
                } else {
                    format!(" (excluded: {})", excluded.join(", "))
                }
            );
            for (label, tensor, problem) in &tally.mismatches {
                let gap = KNOWN_GAPS
                    .iter()
                    .find(|g| g.0 == case && g.1 == mode.name && g.2 == tensor);
                match gap {
                    Some(g) => {
                        gaps_seen.insert((g.0, g.1, g.2));
                        println!("  known gap {label}: {problem} — {}", g.3);
                    }
                    None => {
                        println!("  MISMATCH {label}: {problem}");
                        failures.push(format!("{what} {label}: {problem}"));
                    }
                }
            }
            totals.weights.0 += tally.weights.0;
            totals.weights.1 += tally.weights.1;
            totals.biases.0 += tally.biases.0;
            totals.biases.1 += tally.biases.1;
            totals.activations.0 += tally.activations.0;
            totals.activations.1 += tally.activations.1;
        }
    });
    failures.extend(panics);
    println!(
        "total: weights {}/{}, bias {}/{}, activations {}/{} exact",
        totals.weights.1,
        totals.weights.0,
        totals.biases.1,
        totals.biases.0,
        totals.activations.1,
        totals.activations.0
    );
    if !no_calibrated.is_empty() {
        println!(
            "activations not compared (no model_calibrated.tflite): {}",
            no_calibrated.join(", ")
        );
    }
    for g in KNOWN_GAPS {
        if selection.contains(g.0) && !gaps_seen.contains(&(g.0, g.1, g.2)) {
            failures.push(format!(
                "stale KNOWN_GAPS entry {}/{} '{}': it matches TF now, remove it",
                g.0, g.1, g.2
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} difference(s) from TF:\n{}",
        failures.len(),
        failures.join("\n")
    );
    let compared = totals.weights.0 + totals.biases.0 + totals.activations.0;
    selection.expect_checked(compared, "weights, biases or activations");
    assert!(
        !selection.is_complete() || totals.weights.0 > 0,
        "no weights were compared"
    );
}
