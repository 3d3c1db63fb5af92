//! Mixed precision with a target (`--target-sqnr DB`, and/or `--target-accuracy-drop PCT` with
//! labelled samples): the fewest operators moved to int16 activations (16x8, through
//! `--int16-ops`), or kept float (`--float-ops`) where LiteRT has no 16x8 kernel for them,
//! until the output SQNR reaches the target and the top-1 accuracy is at most that many points
//! below the float model's ([`Target`]). The ranking and the choice of each prefix go by
//! output SQNR in both cases; the accuracy target only says when to stop.
//!
//! Sensitivity of an operator = the output SQNR when it alone is moved (measured, one candidate
//! model per operator; the candidates and their moves are [`rank::candidates`], the ranking the
//! page shows). Then the first 1, 2, … operators of that ranking (best first) are moved together
//! until the target holds (greedy: the fewest for this ranking, not a proof of the minimum); if
//! it never holds, the best-scoring prefix is kept (if it beats the start). A move the
//! quantizer refuses is skipped.

use super::ranges::Best;
use super::rank::{self, Fix};
use super::score::{Score, Scorer};
use crate::error::Result;
use crate::graph::Model;
use crate::quant::passes::{QuantizeOptions, quantize};

/// One operator `--target-sqnr` considered: its gain alone and whether it was moved.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
pub struct Sensitivity {
    /// Operator index in the float model.
    pub index: usize,
    /// `OP #i (output name)`.
    pub label: String,
    /// Output SQNR in dB with only this operator moved (on top of the other `--auto` choices).
    pub sqnr_db: f64,
    /// Where it is moved: int16 activations, or float without a 16x8 kernel.
    #[serde(default = "int16")]
    pub fix: Fix,
    /// Whether it was moved.
    pub moved: bool,
}

fn int16() -> Fix {
    Fix::Int16
}

/// Marks the first `k` operators of the ranking as moved.
fn mark(ranked: &mut [Sensitivity], k: usize) {
    for (i, s) in ranked.iter_mut().enumerate() {
        s.moved = i < k;
    }
}

/// What mixed precision must reach (both, when both are given).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Target {
    /// Output SQNR in dB at least this.
    pub sqnr_db: Option<f64>,
    /// Top-1 accuracy at most this many percentage points below the float model's.
    pub accuracy_drop: Option<f64>,
    /// The float model's top-1 accuracy on the samples scored (with labels).
    pub float_accuracy: Option<f64>,
}

impl Target {
    /// Whether `score` meets every target given (an accuracy target without labels is not met).
    pub fn met(&self, score: &Score) -> bool {
        let sqnr = self.sqnr_db.is_none_or(|t| score.total >= t);
        let accuracy = self.accuracy_drop.is_none_or(|d| {
            match (self.float_accuracy, score.accuracy()) {
                // A tolerance for the float sums: 1 in 10^9 of a sample.
                (Some(f), Some(a)) => 100.0 * (f - a) <= d + 1e-9,
                _ => false,
            }
        });
        sqnr && accuracy
    }
}

/// Moves operators to int16 until `best` meets `target` (or the candidates, the
/// `budget` of scored models or the time run out). `float` is the model quantized (bias already
/// corrected, if it was); `best.ranges` its ranges. Returns every operator ranked and whether
/// the budget or the time ran out.
pub(super) fn reach_target(
    float: &Model,
    opts: &QuantizeOptions,
    scorer: &mut Scorer,
    best: &mut Best,
    target: &Target,
    budget: usize,
) -> Result<(Vec<Sensitivity>, bool)> {
    let mut ranked = Vec::new();
    if target.met(&best.score) {
        return Ok((ranked, false));
    }
    let with = |moves: &[(usize, Fix)]| {
        moves
            .iter()
            .fold(opts.clone(), |o, &(i, fix)| rank::with_fix(&o, i, fix))
    };
    for c in rank::candidates(float, opts) {
        if scorer.spent(budget) {
            return Ok((ranked, true));
        }
        let Ok((q, _)) = quantize(float, &best.ranges, &with(&[(c.index, c.fix)])) else {
            continue;
        };
        let score = scorer.score(&q)?;
        ranked.push(Sensitivity {
            index: c.index,
            label: c.label,
            sqnr_db: score.total,
            fix: c.fix,
            moved: false,
        });
    }
    crate::sort::stable_sort_by(&mut ranked, |a, b| b.sqnr_db.total_cmp(&a.sqnr_db));
    // Prefixes of the ranking, shortest first: the first that reaches the target wins; if none
    // does, the best-scoring prefix (if it beats the start on every fold). A prefix need not improve on the
    // previous one (two int16 neighbours avoid the requantization between them).
    let mut best_prefix = 0;
    for k in 1..=ranked.len() {
        if scorer.spent(budget) {
            mark(&mut ranked, best_prefix);
            return Ok((ranked, true));
        }
        let trial: Vec<(usize, Fix)> = ranked[..k].iter().map(|s| (s.index, s.fix)).collect();
        let Ok((q, _)) = quantize(float, &best.ranges, &with(&trial)) else {
            continue;
        };
        let score = scorer.score(&q)?;
        if score.beats(&best.score) {
            best.model = q;
            best.score = score;
            best_prefix = k;
        }
        if target.met(&best.score) {
            break;
        }
    }
    mark(&mut ranked, best_prefix);
    Ok((ranked, false))
}
