//! Scoring a candidate from where it first differs. Most `--auto` candidates differ from a model
//! scored just before only from some operator on (the range search changes one tensor at a
//! time, in execution order), and the operators before it compute the same bits. So the
//! [`super::score::Scorer`] keeps each sample's activation arena at a few steps of one model's run
//! ([`Checkpoints`], placed by cost: [`checkpoint_steps`]), and runs a candidate from the last of those steps before its first
//! difference ([`first_difference`]) on the saved arena ([`crate::engine::Interpreter::invoke_from`]).
//! The scores are the same bits as a whole run (tested): every step before the resumed one is
//! the same kernel on the same tensors, and the arena plan is the same
//! ([`crate::engine::Interpreter::plan_digest`], checked per candidate).
//!
//! One set is kept, recorded on the first model scored (TF's). Arenas are not copied while a
//! candidate runs: when the next candidate shares a later checkpoint with the last one than
//! with the set's model (the search kept the last one and goes on from it), the last one runs
//! again from where it resumed, recording its checkpoints, and they become the set. Memory is
//! capped ([`MAX_CHECKPOINT_BYTES`]): a checkpoint holds only the tensors live across its step
//! ([`crate::engine::Interpreter::live_words`]), and fewer checkpoints are placed when all
//! samples' would exceed the cap ([`place`]); a model whose live tensors exceed it even at one is
//! scored whole, as are models with several subgraphs or variable tensors (state between
//! samples).

use std::ops::Range;
use std::sync::Arc;

use crate::graph::Model;

/// Most checkpoints per set.
pub const MAX_CHECKPOINTS: usize = 16;

/// Memory one set of checkpoints may take (all samples' live tensors at every checkpoint).
pub const MAX_CHECKPOINT_BYTES: usize = if cfg!(target_arch = "wasm32") {
    48 << 20
} else {
    192 << 20
};

/// Each sample's arena at a few steps of one model's run.
pub struct Checkpoints {
    /// The model (shapes applied) they were recorded on.
    pub model: Model,
    /// Its interpreter's [`crate::engine::Interpreter::plan_digest`].
    pub digest: u64,
    /// `step_of_op[k]`: its interpreter's first step running operator `k` or a later one
    /// ([`crate::engine::Interpreter::first_step_from_op`]), for every `k` up to the number of
    /// operators.
    pub step_of_op: Vec<usize>,
    /// The steps, ascending, each above 0.
    pub steps: Vec<usize>,
    /// `live[c]`: the arena words live across step `steps[c]`
    /// ([`crate::engine::Interpreter::live_words`]).
    pub live: Vec<Vec<Range<usize>>>,
    /// `arenas[c][s]`: sample `s`'s `live[c]` words just before step `steps[c]`, in order.
    pub arenas: Vec<Arc<Vec<Vec<u64>>>>,
}

/// The checkpoint steps of a run whose step `k` costs `costs[k]`: up to `n` steps, each above
/// 0, that cut the run into parts of about equal cost (a candidate resumed from the last one
/// before its first difference re-runs at most one part it did not need to).
pub fn checkpoint_steps(costs: &[u64], n: usize) -> Vec<usize> {
    let total: u128 = costs.iter().map(|&c| u128::from(c)).sum();
    let mut out = Vec::new();
    let (mut before, mut j) = (0u128, 1usize);
    for (k, &c) in costs.iter().enumerate() {
        // `before`: the cost of steps 0..k.
        while j <= n && before * (n as u128 + 1) >= j as u128 * total {
            if k > 0 && out.last() != Some(&k) {
                out.push(k);
            }
            j += 1;
        }
        before += u128::from(c);
    }
    out
}

/// The cost of each step of `interp` (prepared from `model`) for [`checkpoint_steps`]: its
/// multiply-accumulates ([`crate::engine::macs`]) plus its output elements (what an
/// elementwise step costs), at least 1.
pub fn step_costs(model: &Model, interp: &crate::engine::Interpreter) -> Vec<u64> {
    let macs = crate::engine::macs::per_op(model, interp);
    interp
        .step_infos()
        .iter()
        .map(|s| {
            let m = macs
                .iter()
                .find(|o| o.op_index == s.op_index)
                .map_or(0, |o| o.macs);
            let elements = s.shape.iter().product::<usize>() as u64;
            m.saturating_add(elements).max(1)
        })
        .collect()
}

/// The checkpoint steps for a run whose step `k` costs `costs[k]`, where `live_words(p)` words
/// are live across step `p` in each of `samples` runs: the most (up to [`MAX_CHECKPOINTS`],
/// placed by [`checkpoint_steps`]) whose saved words fit in [`MAX_CHECKPOINT_BYTES`]; none when
/// not even one fits.
pub fn place(costs: &[u64], live_words: impl Fn(usize) -> usize, samples: usize) -> Vec<usize> {
    for n in (1..=MAX_CHECKPOINTS).rev() {
        let steps = checkpoint_steps(costs, n);
        let words: usize = steps.iter().map(|&p| live_words(p)).sum();
        if words.saturating_mul(8).saturating_mul(samples) <= MAX_CHECKPOINT_BYTES {
            return steps;
        }
    }
    Vec::new()
}

/// Copies `ranges` of `arena` into one vector, in order (a checkpoint of one sample).
pub fn pack(arena: &[u64], ranges: &[Range<usize>]) -> Vec<u64> {
    let mut out = Vec::with_capacity(ranges.iter().map(|r| r.len()).sum());
    for r in ranges {
        out.extend_from_slice(&arena[r.clone()]);
    }
    out
}

/// Whether a model can be scored from checkpoints at all: one subgraph and no variable tensor
/// (state carried from one sample to the next).
pub fn shareable(model: &Model) -> bool {
    let [sg] = model.subgraphs.as_slice() else {
        return false;
    };
    !sg.tensors.iter().any(|t| t.is_variable)
}

/// The first operator of subgraph 0 whose kernel may compute other bits in `b` than in `a`
/// (its options, or a tensor it reads or writes — quantization, constant data — differ); the
/// number of operators when none does; 0 when a graph input differs. `None` when the two
/// cannot share a plan: not one subgraph each, a variable tensor, or different operators,
/// tensor shapes or types.
pub fn first_difference(a: &Model, b: &Model) -> Option<usize> {
    if !shareable(a) || !shareable(b) {
        return None;
    }
    let ([sa], [sb]) = (a.subgraphs.as_slice(), b.subgraphs.as_slice()) else {
        return None;
    };
    if sa.tensors.len() != sb.tensors.len()
        || sa.operators.len() != sb.operators.len()
        || sa.inputs != sb.inputs
        || sa.outputs != sb.outputs
    {
        return None;
    }
    for (x, y) in sa.tensors.iter().zip(&sb.tensors) {
        if x.shape != y.shape || x.dtype != y.dtype {
            return None;
        }
    }
    for (x, y) in sa.operators.iter().zip(&sb.operators) {
        if x.code != y.code
            || x.inputs != y.inputs
            || x.outputs != y.outputs
            || x.intermediates != y.intermediates
        {
            return None;
        }
    }
    fn data(m: &Model, buffer: u32) -> Option<&[u8]> {
        usize::try_from(buffer)
            .ok()
            .and_then(|b| m.buffers.get(b))
            .map(|b| b.data.as_slice())
    }
    let same_tensor = |t: i32| {
        let Ok(t) = usize::try_from(t) else {
            return true; // an omitted optional input
        };
        match (sa.tensors.get(t), sb.tensors.get(t)) {
            (Some(x), Some(y)) => {
                x.quantization == y.quantization
                    && x.sparsity == y.sparsity
                    && x.external_buffer == y.external_buffer
                    && data(a, x.buffer) == data(b, y.buffer)
            }
            _ => false,
        }
    };
    if !sa.inputs.iter().all(|&t| same_tensor(t)) {
        return Some(0);
    }
    for (k, (x, y)) in sa.operators.iter().zip(&sb.operators).enumerate() {
        let same = x.options == y.options
            && x.options_2 == y.options_2
            && x.custom_options == y.custom_options
            && x.custom_options_format == y.custom_options_format
            && x.inputs
                .iter()
                .chain(&x.outputs)
                .chain(x.intermediates.iter().flatten())
                .all(|&t| same_tensor(t));
        if !same {
            return Some(k);
        }
    }
    Some(sa.operators.len())
}

/// The last checkpoint of `set` at or before the first step where `model` may differ from
/// `set.model`; `None` when there is none (or the two cannot share a plan).
pub fn resume_point(set: &Checkpoints, model: &Model) -> Option<usize> {
    resume_point_from(set, &set.model, model)
}

/// [`resume_point`] for a model `base` with `set`'s plan other than the one `set` was
/// recorded on: the last checkpoint at or before the first step where `model` may differ
/// from `base`.
pub fn resume_point_from(set: &Checkpoints, base: &Model, model: &Model) -> Option<usize> {
    let op = first_difference(base, model)?;
    let step = *set.step_of_op.get(op)?;
    set.steps.iter().rposition(|&p| p <= step)
}

#[cfg(test)]
mod tests {
    use super::super::ranges::{Best, search_ranges};
    use super::super::score::Scorer;
    use super::super::tests::{calibrate, unit};
    use super::super::{FOLDS, split_samples};
    use super::*;
    use crate::engine::control_flow_tests::op;
    use crate::graph::{
        Buffer, BuiltinOperator, BuiltinOptionsT, ShapeOverrides, Subgraph, Tensor, TensorType,
    };
    use crate::quant::calibrate::CalibrationStats;
    use crate::quant::passes::{QuantizeOptions, Ranges, quantize};

    /// `x → ADD c → ADD c → …` (`n` ADDs of one constant), x: [1, 8].
    fn add_chain(n: usize) -> Model {
        let cv = [0.25f32, -0.5, 0.125, 0.0, 0.5, -0.25, 0.75, -0.125];
        let mut c = Tensor::new("c", TensorType::FLOAT32, vec![8]);
        c.buffer = 1;
        let mut tensors = vec![Tensor::new("x", TensorType::FLOAT32, vec![1, 8]), c];
        let mut operators = Vec::new();
        for k in 0..n {
            tensors.push(Tensor::new(
                format!("y{k}"),
                TensorType::FLOAT32,
                vec![1, 8],
            ));
            let input = if k == 0 { 0 } else { k as i32 + 1 };
            operators.push(op(
                BuiltinOperator::ADD,
                &[input, 1],
                &[k as i32 + 2],
                BuiltinOptionsT::AddOptions(Box::default()),
            ));
        }
        Model {
            version: 3,
            subgraphs: vec![Subgraph {
                tensors,
                inputs: vec![0],
                outputs: vec![n as i32 + 1],
                operators,
                ..Default::default()
            }],
            buffers: vec![
                Buffer::default(),
                Buffer {
                    data: bytemuck::cast_slice(&cv).to_vec(),
                },
            ],
            ..Default::default()
        }
    }

    fn sample(k: u32) -> Vec<Vec<f32>> {
        vec![(0..8).map(|j| 2.0 * unit(k * 8 + j) - 1.0).collect()]
    }

    /// A 7-ADD chain whose calibration had an outlier (every tensor's min/max is wide, so a
    /// search changes them one by one, in execution order), its statistics and search samples.
    fn chain_with_outlier() -> (Model, CalibrationStats, Vec<Vec<Vec<f32>>>) {
        let model = add_chain(7);
        let mut calib: Vec<_> = (0..200).map(sample).collect();
        calib[100][0][3] = 300.0;
        let stats = calibrate(&model, &calib);
        let scoring: Vec<_> = (1000..1024).map(sample).collect();
        let (search, _) = split_samples(&scoring);
        (model, stats, search)
    }

    /// The range search on [`chain_with_outlier`].
    fn search(resume: bool) -> (Vec<super::super::ranges::RangeChoice>, Best, usize, usize) {
        let (model, stats, search) = chain_with_outlier();
        let opts = QuantizeOptions::default();
        let ranges = Ranges::from_calibration(&model, &stats).expect("ranges");
        let (tf, _) = quantize(&model, &ranges, &opts).expect("quantizes");
        let mut scorer =
            Scorer::new(&model, &search, &ShapeOverrides::default(), FOLDS).expect("float");
        if !resume {
            scorer = scorer.whole_runs();
        }
        let score = scorer.score(&tf).expect("runs");
        let mut best = Best {
            ranges,
            model: tf,
            score,
        };
        let (choices, _) =
            search_ranges(&model, &stats, &opts, &mut scorer, &mut best, 200).expect("search");
        (choices, best, scorer.evaluations(), scorer.resumed())
    }

    #[test]
    fn resumed_scores_are_the_bits_of_whole_runs() {
        let (choices, best, evaluations, resumed) = search(true);
        let (whole_choices, whole_best, whole_evaluations, whole_resumed) = search(false);
        assert!(choices.len() >= 3, "{choices:?}");
        assert_eq!(choices, whole_choices);
        assert_eq!(best.model, whole_best.model);
        assert_eq!(best.score, whole_best.score);
        assert_eq!(evaluations, whole_evaluations);
        assert_eq!(whole_resumed, 0);
        // Most candidates change one tensor after the first operator: they resume.
        assert!(resumed * 2 > evaluations, "{resumed} of {evaluations}");
    }

    #[test]
    fn every_resumed_score_is_the_bits_of_a_whole_run() {
        // A search-like sequence scored one by one: candidate k narrows tensors 0..=k (as if
        // each was kept: the next resumes from its checkpoints once adopted), and after each
        // a rejected one narrows tensor k + 1 further. Every score equals a whole run's.
        let (model, stats, search) = chain_with_outlier();
        let opts = QuantizeOptions::default();
        let tf_ranges = Ranges::from_calibration(&model, &stats).expect("ranges");
        let tensors: Vec<(usize, String, f32, f32)> = stats
            .tensors
            .iter()
            .map(|t| (t.index, t.name.clone(), t.min, t.max))
            .collect();
        let mut kept = tf_ranges.clone();
        let mut models = vec![quantize(&model, &tf_ranges, &opts).expect("tf").0];
        for k in 0..tensors.len() {
            let (i, name, lo, _) = &tensors[k];
            kept.insert(*i, name, *lo, 4.0).expect("range");
            models.push(quantize(&model, &kept, &opts).expect("kept").0);
            if let Some((j, name, lo, _)) = tensors.get(k + 1) {
                let mut rejected = kept.clone();
                rejected.insert(*j, name, *lo, 0.5).expect("range");
                models.push(quantize(&model, &rejected, &opts).expect("rejected").0);
            }
        }
        let new = || Scorer::new(&model, &search, &ShapeOverrides::default(), FOLDS).expect("f");
        let (mut resuming, mut whole) = (new(), new().whole_runs());
        for (k, m) in models.iter().enumerate() {
            let a = resuming.score(m).expect("runs");
            let b = whole.score(m).expect("runs");
            assert_eq!(a, b, "candidate {k}");
        }
        assert!(
            resuming.resumed() * 2 > models.len(),
            "{} of {}",
            resuming.resumed(),
            models.len()
        );
        assert_eq!(whole.resumed(), 0);
    }

    #[test]
    fn first_difference_finds_the_first_operator_that_may_compute_other_bits() {
        let a = add_chain(4);
        assert_eq!(first_difference(&a, &a), Some(4));
        // A tensor's quantization: from its first reader or writer on (y1: written by op 1).
        let mut b = a.clone();
        b.subgraphs[0].tensors[3].quantization = Some(Default::default());
        assert_eq!(first_difference(&a, &b), Some(1));
        // The constant every ADD reads: from op 0; so is a graph input's quantization.
        let mut b = a.clone();
        b.buffers[1].data[0] ^= 1;
        assert_eq!(first_difference(&a, &b), Some(0));
        let mut b = a.clone();
        b.subgraphs[0].tensors[0].quantization = Some(Default::default());
        assert_eq!(first_difference(&a, &b), Some(0));
        // Options of op 2.
        let mut b = a.clone();
        b.subgraphs[0].operators[2].options = BuiltinOptionsT::NONE;
        assert_eq!(first_difference(&a, &b), Some(2));
        // Names do not matter; shapes, types, operators and variables do.
        let mut b = a.clone();
        b.subgraphs[0].tensors[4].name = "other".into();
        assert_eq!(first_difference(&a, &b), Some(4));
        let mut b = a.clone();
        b.subgraphs[0].tensors[4].shape = Some(vec![8]);
        assert_eq!(first_difference(&a, &b), None);
        let mut b = a.clone();
        b.subgraphs[0].tensors[4].dtype = TensorType::INT8;
        assert_eq!(first_difference(&a, &b), None);
        let mut b = a.clone();
        b.subgraphs[0].operators[3].code = crate::graph::OpCode::builtin(BuiltinOperator::MUL, 1);
        assert_eq!(first_difference(&a, &b), None);
        let mut b = a.clone();
        b.subgraphs[0].tensors[2].is_variable = true;
        assert_eq!(first_difference(&a, &b), None);
    }

    #[test]
    fn checkpoint_steps_cut_the_cost_in_equal_parts() {
        // Equal costs: evenly spaced steps.
        assert_eq!(
            checkpoint_steps(&[1; 90], 8),
            vec![10, 20, 30, 40, 50, 60, 70, 80]
        );
        // Front-loaded: the first steps hold half the cost, so half the checkpoints.
        let mut costs = vec![1u64; 20];
        costs[..4].fill(5);
        assert_eq!(checkpoint_steps(&costs, 3), vec![2, 4, 11]);
        // Never step 0, never twice the same, never more than asked.
        assert_eq!(checkpoint_steps(&[100, 1, 1], 8), vec![1]);
        assert!(checkpoint_steps(&[1], 8).is_empty());
        assert!(checkpoint_steps(&[1; 50], 0).is_empty());
        assert!(checkpoint_steps(&[], 4).is_empty());
    }

    #[test]
    fn place_keeps_the_checkpoints_within_the_cap() {
        let costs = [1u64; 90];
        // Little live data: every checkpoint.
        assert_eq!(place(&costs, |_| 1, 1).len(), MAX_CHECKPOINTS);
        // A quarter of the cap per checkpoint (all samples): 4 of them.
        let quarter = MAX_CHECKPOINT_BYTES / 4 / 8 / 2;
        assert_eq!(place(&costs, |_| quarter, 2), checkpoint_steps(&costs, 4));
        // More than the cap at any step: none.
        assert!(place(&costs, |_| MAX_CHECKPOINT_BYTES, 1).is_empty());
    }

    #[test]
    fn pack_concatenates_the_ranges() {
        let arena: Vec<u64> = (0..10).collect();
        assert_eq!(pack(&arena, &[1..3, 6..7]), vec![1, 2, 6]);
        assert!(pack(&arena, &[]).is_empty());
    }
}
