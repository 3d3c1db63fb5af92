//! Per-tensor range choice by measured output error: for each calibrated activation, in
//! execution order, the candidate ranges (min/max, percentile 99.99 and 99.9, MSE, KL) are tried
//! on the whole model and the one with the best output SQNR ([`Scorer`]) is kept: first each
//! method for all tensors at once, then greedy coordinate descent from the best of those, tensor
//! by tensor in up to [`SWEEPS`] sweeps.
//!
//! Cost control: a candidate whose int8 scale and zero point equal the current choice's is not
//! tried, nor one whose quantized model equals the current best (a range the quantizer ignores,
//! e.g. the input of a same-scale operator whose output range wins); the search stops after a
//! budget of scored candidates. A candidate only replaces the current choice when it scores
//! strictly better on every fold of the scoring samples ([`Score::beats`]), so the result never
//! scores below the start on them.

use super::kl::kl_range;
use super::score::{Score, Scorer};
use crate::error::Result;
use crate::graph::Model;
use crate::quant::calibrate::{CalibrationStats, Method, TensorStats};
use crate::quant::params::activation_params_int8;
use crate::quant::passes::{QuantizeOptions, Ranges, quantize};

/// The range methods tried for each tensor besides min/max.
pub const CANDIDATE_METHODS: [&str; 4] = ["percentile:99.99", "percentile:99.9", "mse", "kl"];

/// One tensor's range as `--auto` chose it.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
pub struct RangeChoice {
    /// Tensor index in the float model's subgraph 0.
    pub index: usize,
    /// Tensor name.
    pub name: String,
    /// The method whose range won (`percentile:99.9`, `mse`, `kl`).
    pub method: String,
    /// The chosen range.
    pub min: f32,
    /// The chosen range.
    pub max: f32,
    /// TF's min/max range it replaced.
    pub minmax: [f32; 2],
}

/// The candidate ranges of one tensor: `(method, min, max)`, min/max first.
pub fn candidates(t: &TensorStats) -> Result<Vec<(String, f32, f32)>> {
    let mut out = vec![("minmax".to_string(), t.min, t.max)];
    let true_min = t.true_min.unwrap_or(t.min);
    let true_max = t.true_max.unwrap_or(t.max);
    for name in CANDIDATE_METHODS {
        let (lo, hi) = if name == "kl" {
            let (lo, hi) = kl_range(&t.histogram, f64::from(true_min), f64::from(true_max));
            (
                (lo as f32).clamp(true_min, true_max),
                (hi as f32).clamp(true_min, true_max),
            )
        } else {
            let s = t.with_method(Method::parse(name)?)?;
            (s.chosen_min, s.chosen_max)
        };
        out.push((name.to_string(), lo, hi));
    }
    Ok(out)
}

/// Whether two ranges give the same int8 parameters (an invalid range never equals).
fn same_int8(a: (f32, f32), b: (f32, f32)) -> bool {
    match (
        activation_params_int8(a.0, a.1),
        activation_params_int8(b.0, b.1),
    ) {
        (Ok(p), Ok(q)) => p == q,
        _ => false,
    }
}

/// Execution order of the calibrated tensors: graph inputs first, then by producing operator.
fn execution_order(model: &Model, stats: &CalibrationStats) -> Vec<usize> {
    let sg = &model.subgraphs[0];
    let mut producer = vec![0usize; sg.tensors.len()];
    for (i, op) in sg.operators.iter().enumerate() {
        for &o in &op.outputs {
            if let Some(p) = usize::try_from(o).ok().and_then(|o| producer.get_mut(o)) {
                *p = i + 1;
            }
        }
    }
    let mut order: Vec<usize> = (0..stats.tensors.len()).collect();
    crate::sort::stable_sort_by_key(&mut order, |&k| {
        let t = stats.tensors[k].index;
        (producer.get(t).copied().unwrap_or(0), t)
    });
    order
}

/// State of the search: the ranges, their quantized model and its score.
#[derive(Clone)]
pub(super) struct Best {
    pub ranges: Ranges,
    pub model: Model,
    pub score: Score,
}

/// At most this many sweeps over the tensors (a later sweep revisits tensors whose best range
/// changed because a later tensor's did: an outlier in a chain is only worth clipping once every
/// tensor of the chain is clipped).
pub const SWEEPS: usize = 3;

/// The search from `best` (TF's ranges): first one method for every tensor at once (the best of
/// the uniform choices becomes the start), then greedy per-tensor sweeps. Returns the tensors
/// whose range is no longer TF's and whether the search stopped early (budget or time limit,
/// [`Scorer::spent`]).
pub(super) fn search_ranges(
    model: &Model,
    stats: &CalibrationStats,
    opts: &QuantizeOptions,
    scorer: &mut Scorer,
    best: &mut Best,
    budget: usize,
) -> Result<(Vec<RangeChoice>, bool)> {
    let order: Vec<&TensorStats> = execution_order(model, stats)
        .into_iter()
        .map(|k| &stats.tensors[k])
        .filter(|t| t.subgraph == 0 && best.ranges.get(t.index).is_some())
        .collect();
    let cands: Vec<Vec<(String, f32, f32)>> =
        order.iter().map(|t| candidates(t)).collect::<Result<_>>()?;
    let mut method: Vec<usize> = vec![0; order.len()];
    let mut out_of_budget = false;
    // Uniform starts: every tensor with candidate m.
    for m in 1..=CANDIDATE_METHODS.len() {
        if scorer.spent(budget) {
            out_of_budget = true;
            break;
        }
        let mut ranges = best.ranges.clone();
        for (t, c) in order.iter().zip(&cands) {
            ranges.insert(t.index, &t.name, c[m].1, c[m].2)?;
        }
        if let Some((q, score)) = try_ranges(model, &ranges, opts, scorer, best)?
            && score.beats(&best.score)
        {
            *best = Best {
                ranges,
                model: q,
                score,
            };
            method.iter_mut().for_each(|x| *x = m);
        }
    }
    'sweeps: for _ in 0..SWEEPS {
        if out_of_budget {
            break;
        }
        let mut changed = false;
        for (k, t) in order.iter().enumerate() {
            let current = &cands[k][method[k]];
            let mut tried: Vec<(f32, f32)> = vec![(current.1, current.2)];
            for (m, &(_, lo, hi)) in cands[k].iter().enumerate() {
                if tried.iter().any(|&r| same_int8(r, (lo, hi))) {
                    continue;
                }
                tried.push((lo, hi));
                if scorer.spent(budget) {
                    out_of_budget = true;
                    break 'sweeps;
                }
                let mut ranges = best.ranges.clone();
                ranges.insert(t.index, &t.name, lo, hi)?;
                if let Some((q, score)) = try_ranges(model, &ranges, opts, scorer, best)?
                    && score.beats(&best.score)
                {
                    *best = Best {
                        ranges,
                        model: q,
                        score,
                    };
                    method[k] = m;
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
    let choices = order
        .iter()
        .zip(&cands)
        .zip(&method)
        .filter(|&((t, c), &m)| m != 0 && !same_int8((c[m].1, c[m].2), (t.min, t.max)))
        .map(|((t, c), &m)| RangeChoice {
            index: t.index,
            name: t.name.clone(),
            method: c[m].0.clone(),
            min: c[m].1,
            max: c[m].2,
            minmax: [t.min, t.max],
        })
        .collect();
    Ok((choices, out_of_budget))
}

/// The quantized model of `ranges` and its score; `None` when the quantizer refuses the ranges
/// or the model equals the current best (nothing to score).
fn try_ranges(
    model: &Model,
    ranges: &Ranges,
    opts: &QuantizeOptions,
    scorer: &mut Scorer,
    best: &Best,
) -> Result<Option<(Model, Score)>> {
    let Ok((q, _)) = quantize(model, ranges, opts) else {
        return Ok(None);
    };
    if q == best.model {
        return Ok(None);
    }
    let score = scorer.score(&q)?;
    Ok(Some((q, score)))
}
