//! Part 2: activations of TF's quantized model against the ranges TF recorded in its calibrated
//! model, leaving out the tensors whose parameters come from elsewhere ([`ActivationPlan`]).

use std::collections::{BTreeMap, BTreeSet};

use zeropoint::graph::{Model, Subgraph, TensorType};
use zeropoint::quant::params::{QuantParams, activation_params_int8, activation_params_int16};

use super::graph::{consumers, pair_ops, producers, scales, zero_points};
use super::{ActKind, Tally};

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
/// Ops TF 2.21's 16x8 quantizer gives their input's scale, while its int8 quantizer gives them
/// their own range (op_sum_* goldens: the 16x8 SUM output is at the input's scale).
const SAME_SCALE_16X8_ONLY: &[&str] = &["SUM"];

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

/// Which activations of the calibrated model keep their own recorded range, reproducing TF's
/// `RemoveRedundantStatsOps` (int8) and the older quantizer's same-scale rule (16x8):
///
/// - outputs of fixed-output ops take the op's fixed parameters;
/// - int8: a same-scale op with one float operand passes its input's parameters forward to its
///   result (transitively); a same-scale op with several float operands (CONCATENATION, MAXIMUM
///   of two tensors, …) keeps its result's range and passes it backward to its operands;
/// - 16x8: a same-scale op's result takes its (first) input's parameters;
/// - everything else with a recorded range keeps it and is compared.
pub(crate) struct ActivationPlan {
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
                    let same_16 = |o: usize| SAME_SCALE_16X8_ONLY.contains(&op_name(o).as_str());
                    if prod.get(&t).is_some_and(|&p| same_scale(p) || same_16(p)) {
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
    for (_, qo, co) in pair_ops(csg, qsg, what) {
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
pub(crate) fn compare_activations(
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
