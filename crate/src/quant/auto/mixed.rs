//! Mixed precision with a target (`--target-sqnr DB`): the fewest operators moved to int16
//! activations (16x8, through `--int16-ops`) until the output SQNR reaches the target.
//!
//! Sensitivity of an operator = the output SQNR gained when it alone runs 16x8 (measured, one
//! candidate model per operator). Then the first 1, 2, … operators of that ranking (best first)
//! are moved together until the target holds (greedy: the fewest for this ranking, not a proof
//! of the minimum); if it never holds, the best-scoring prefix is kept (if it beats the start).
//! Only operators LiteRT has a 16x8 kernel for (the op table's `int16` column)
//! are candidates; one the mixed pass refuses is skipped.

use super::ranges::Best;
use super::score::Scorer;
use crate::error::Result;
use crate::graph::{Model, TensorType};
use crate::ops::registry::properties;
use crate::quant::passes::{QuantizeOptions, quantize};

/// One operator `--target-sqnr` considered: its gain alone and whether it was moved.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
pub struct Sensitivity {
    /// Operator index in the float model.
    pub index: usize,
    /// `OP #i (output name)`.
    pub label: String,
    /// Output SQNR in dB with only this operator 16x8 (on top of the other `--auto` choices).
    pub sqnr_db: f64,
    /// Whether it was moved to int16.
    pub moved: bool,
}

/// Operators of subgraph 0 that may run 16x8: a 16x8 kernel, a float output, not kept float.
fn candidates(model: &Model, opts: &QuantizeOptions) -> Vec<usize> {
    let sg = &model.subgraphs[0];
    (0..sg.operators.len())
        .filter(|i| !opts.float_ops.iter().any(|f| f.trim() == i.to_string()))
        .filter(|&i| {
            let op = &sg.operators[i];
            properties(op.code.op()).is_some_and(|p| p.int16)
                && op
                    .output(0)
                    .and_then(|o| sg.tensors.get(o))
                    .is_some_and(|t| t.dtype == TensorType::FLOAT32)
        })
        .collect()
}

/// Marks the first `k` operators of the ranking as moved.
fn mark(ranked: &mut [Sensitivity], k: usize) {
    for (i, s) in ranked.iter_mut().enumerate() {
        s.moved = i < k;
    }
}

pub(super) fn label(model: &Model, i: usize) -> String {
    let op = &model.subgraphs[0].operators[i];
    let name = op
        .output(0)
        .and_then(|o| model.subgraphs[0].tensors.get(o))
        .map_or("", |t| t.name.as_str());
    format!("{} #{i} ({name})", op.code.name())
}

/// Moves operators to int16 until `best` scores `target` dB or more (or the candidates or the
/// `budget` of scored models run out). `float` is the model quantized (bias already corrected,
/// if it was); `best.ranges` its ranges. Returns every operator ranked and whether the budget
/// ran out.
pub(super) fn reach_target(
    float: &Model,
    opts: &QuantizeOptions,
    scorer: &mut Scorer,
    best: &mut Best,
    target: f64,
    budget: usize,
) -> Result<(Vec<Sensitivity>, bool)> {
    let mut ranked = Vec::new();
    if best.score.total >= target {
        return Ok((ranked, false));
    }
    let with = |ops: &[usize]| {
        let mut o = opts.clone();
        o.int16_ops.extend(ops.iter().map(usize::to_string));
        o
    };
    for i in candidates(float, opts) {
        if scorer.evaluations() >= budget {
            return Ok((ranked, true));
        }
        let Ok((q, _)) = quantize(float, &best.ranges, &with(&[i])) else {
            continue;
        };
        let score = scorer.score(&q)?;
        ranked.push(Sensitivity {
            index: i,
            label: label(float, i),
            sqnr_db: score.total,
            moved: false,
        });
    }
    crate::sort::stable_sort_by(&mut ranked, |a, b| b.sqnr_db.total_cmp(&a.sqnr_db));
    // Prefixes of the ranking, shortest first: the first that reaches the target wins; if none
    // does, the best-scoring prefix (if it beats the start on every fold). A prefix need not improve on the
    // previous one (two int16 neighbours avoid the requantization between them).
    let mut best_prefix = 0;
    for k in 1..=ranked.len() {
        if scorer.evaluations() >= budget {
            mark(&mut ranked, best_prefix);
            return Ok((ranked, true));
        }
        let trial: Vec<usize> = ranked[..k].iter().map(|s| s.index).collect();
        let Ok((q, _)) = quantize(float, &best.ranges, &with(&trial)) else {
            continue;
        };
        let score = scorer.score(&q)?;
        if score.beats(&best.score) {
            best.model = q;
            best.score = score;
            best_prefix = k;
        }
        if best.score.total >= target {
            break;
        }
    }
    mark(&mut ranked, best_prefix);
    Ok((ranked, false))
}
