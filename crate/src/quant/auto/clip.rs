//! Weight clipping: per output channel of CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED, the
//! int8 scale that minimizes the channel's squared weight error `Σ (s·q(w/s) − w)²` instead of
//! TF's `max|w| / 127` (the "MSE" weight observer of PyTorch's and AIMET's quantizers). A
//! channel whose few largest weights stand apart loses little by clipping them and gains
//! resolution on all the others.
//!
//! The clipped weights are written into the float model as the values the int8 grid gives
//! (`s·k`, `k` in −127…127, one of them ±127), so the quantizer's own rule (`max|w'| / 127`)
//! finds the chosen scale and the same integers: the model written is an ordinary int8 model.
//! Weight error is not output error, so clipping is a candidate `--auto` keeps only when the
//! measured output SQNR improves on every fold (`search_clipping`): all operators at once
//! first, then each operator in execution order toggled greedily, each with its bias corrected
//! for the clipped weights when bias correction was kept ([`super::bias`]).

use super::equalize::set_constant;
use super::ranges::Best;
use super::score::Scorer;
use super::{dims, floats};
use crate::error::Result;
use crate::graph::{BuiltinOperator as Op, Model};

/// The clipped scale is searched among `f · max|w| / 127` for
/// `f = 1 − (1 − MIN_FRACTION) · j / STEPS`, `j` = 1 … `STEPS` (steps of 0.005 down to 0.5).
pub const STEPS: usize = 100;

/// The smallest fraction of a channel's `max|w|` the clipped range may keep.
pub const MIN_FRACTION: f64 = 0.5;

/// Largest weight magnitude in int8 (TF's symmetric weights: −127…127).
const QMAX: f64 = 127.0;

/// One operator whose weights can be clipped: its index and its weights tensor.
struct Target {
    op: usize,
    weights: usize,
}

/// The operators of subgraph 0 weight clipping applies to: CONV_2D, DEPTHWISE_CONV_2D and
/// FULLY_CONNECTED with float32 constant weights.
fn targets(model: &Model) -> Vec<Target> {
    super::weighted_ops(model)
        .map(|(op, _, weights)| Target { op, weights })
        .collect()
}

/// Squared error of `w` quantized with scale `s` (round half away from zero, clamped to ±127).
fn error(w: &[f32], s: f64) -> f64 {
    w.iter()
        .map(|&v| {
            let v = f64::from(v);
            let k = (v / s).round().clamp(-QMAX, QMAX);
            (k * s - v).powi(2)
        })
        .sum()
}

/// The scale minimizing [`error`] for one channel's values, or `None` when it is TF's own
/// (`max|w| / 127`) or the channel is all zeros.
fn best_scale(w: &[f32]) -> Option<f64> {
    let m = w.iter().fold(0.0f64, |m, &v| m.max(f64::from(v).abs()));
    if m == 0.0 || !m.is_finite() {
        return None;
    }
    let tf = error(w, m / QMAX);
    let mut best: Option<(f64, f64)> = None;
    for j in 1..=STEPS {
        let f = 1.0 - (1.0 - MIN_FRACTION) * j as f64 / STEPS as f64;
        let s = f * m / QMAX;
        let e = error(w, s);
        if e < tf && best.is_none_or(|(b, _)| e < b) {
            best = Some((e, s));
        }
    }
    best.map(|(_, s)| s)
}

/// The weights of one target clipped channel by channel (per tensor with `per_tensor`), or
/// `None` when no channel changes.
fn clipped_weights(model: &Model, t: &Target, per_tensor: bool) -> Option<Vec<f32>> {
    let w = floats(model.tensor_data(0, t.weights)?);
    let shape = dims(model, t.weights);
    if w.is_empty() || shape.iter().product::<usize>() != w.len() {
        return None;
    }
    let kind = model.subgraphs[0].operators[t.op].code.op();
    // Element k is in channel (k / inner) % channels (as the quantizer lays channels out).
    let axis = if kind == Op::DEPTHWISE_CONV_2D {
        shape.len() - 1
    } else {
        0
    };
    let (channels, inner) = if per_tensor {
        (1, w.len())
    } else {
        (
            shape[axis],
            shape[axis + 1..].iter().product::<usize>().max(1),
        )
    };
    let channel_of = |k: usize| (k / inner) % channels;
    let mut groups: Vec<Vec<f32>> = vec![Vec::new(); channels];
    for (k, &v) in w.iter().enumerate() {
        groups[channel_of(k)].push(v);
    }
    let scales: Vec<Option<f64>> = groups.iter().map(|g| best_scale(g)).collect();
    if scales.iter().all(Option::is_none) {
        return None;
    }
    Some(
        w.iter()
            .enumerate()
            .map(|(k, &v)| match scales[channel_of(k)] {
                Some(s) => ((f64::from(v) / s).round().clamp(-QMAX, QMAX) * s) as f32,
                None => v,
            })
            .collect(),
    )
}

/// `model` with the weights of every operator that gains by it clipped, and those operators
/// (subgraph 0 indices); `None` when none does.
pub(super) fn all_clipped(model: &Model, per_tensor: bool) -> Option<(Model, Vec<usize>)> {
    let mut out = model.clone();
    let mut ops = Vec::new();
    for t in targets(model) {
        if let Some(w) = clipped_weights(model, &t, per_tensor) {
            set_constant(&mut out, t.weights, &w);
            ops.push(t.op);
        }
    }
    (!ops.is_empty()).then_some((out, ops))
}

/// The search from `best` over the operators `ops` (`quantized(m, best)` quantizes a float
/// model `m`, a copy of `float` with other constants, with `best.ranges`): each operator's
/// weights and bias are `float`'s or `clipped`'s (the same model with [`all_clipped`]'s weights
/// and, when bias correction was kept, the biases corrected for them). First every operator
/// clipped at once, then each toggled in execution order; a change is kept when it
/// [`beats`](super::score::Score::beats) the current choice: at most `ops.len() + 1`
/// candidates. Returns the float model chosen and the operators clipped.
///
/// # Errors
/// What the scorer's engine refuses.
pub(super) fn search_clipping(
    float: &Model,
    clipped: &Model,
    ops: &[usize],
    quantized: &dyn Fn(&Model, &Best) -> Option<Model>,
    scorer: &mut Scorer,
    best: &mut Best,
) -> Result<(Model, Vec<usize>)> {
    let sg = &float.subgraphs[0];
    // The constants each operator reads (weights, bias) that differ between the two models.
    let swaps: Vec<Vec<usize>> = ops
        .iter()
        .map(|&op| {
            sg.operators[op]
                .inputs
                .iter()
                .filter_map(|&t| usize::try_from(t).ok())
                .filter(|&t| {
                    float
                        .tensor_data(0, t)
                        .is_some_and(|d| clipped.tensor_data(0, t) != Some(d))
                })
                .collect()
        })
        .collect();
    let set = |m: &mut Model, k: usize, from: &Model| {
        for &t in &swaps[k] {
            if let Some(d) = from.tensor_data(0, t) {
                crate::quant::passes::set_constant_data(m, t, d.to_vec());
            }
        }
    };
    let try_model = |m: &Model, scorer: &mut Scorer, best: &mut Best| -> Result<bool> {
        let Some(q) = quantized(m, best) else {
            return Ok(false);
        };
        if q == best.model {
            return Ok(false);
        }
        let score = scorer.score(&q)?;
        if score.beats(&best.score) {
            best.model = q;
            best.score = score;
            return Ok(true);
        }
        Ok(false)
    };
    let mut current = float.clone();
    let mut on = vec![false; ops.len()];
    if ops.is_empty() || scorer.out_of_time() {
        return Ok((current, Vec::new()));
    }
    // Every operator at once.
    let mut all = float.clone();
    (0..ops.len()).for_each(|k| set(&mut all, k, clipped));
    if try_model(&all, scorer, best)? {
        current = all;
        on.iter_mut().for_each(|c| *c = true);
    }
    // Each operator toggled (until the time limit).
    for (k, is_on) in on.iter_mut().enumerate() {
        if scorer.out_of_time() {
            break;
        }
        let mut m = current.clone();
        set(&mut m, k, if *is_on { float } else { clipped });
        if try_model(&m, scorer, best)? {
            current = m;
            *is_on = !*is_on;
        }
    }
    let chosen = ops
        .iter()
        .zip(&on)
        .filter(|(_, c)| **c)
        .map(|(op, _)| *op)
        .collect();
    Ok((current, chosen))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_outlier_is_clipped_and_the_quantizer_finds_the_chosen_grid() {
        // 2001 evenly spread weights in [-1, 1] and one at 1.15: TF's scale 1.15/127 serves the
        // outlier; a smaller one costs it some error and saves more on the 2001 others.
        let mut w: Vec<f32> = (-1000..=1000).map(|k| k as f32 / 1000.0).collect();
        w.push(1.15);
        let tf = 1.15f64 / QMAX;
        let s = best_scale(&w).expect("clipping pays");
        assert!(s < tf, "{s} vs {tf}");
        assert!(error(&w, s) < error(&w, tf));
        // Written as s·k, the quantizer's own rule (max|w'| / 127) gives back s and the same k.
        let clipped: Vec<f32> = w
            .iter()
            .map(|&v| ((f64::from(v) / s).round().clamp(-QMAX, QMAX) * s) as f32)
            .collect();
        let q = crate::quant::params::per_channel_weights_int8(
            &clipped,
            &[1, clipped.len()],
            0,
            crate::quant::params::WeightRule::FullInteger,
        )
        .expect("quantizes");
        assert!(
            (f64::from(q.scales[0]) / s - 1.0).abs() < 1e-6,
            "{:?} vs {s}",
            q.scales
        );
        for (&v, &k) in w.iter().zip(&q.values) {
            let want = (f64::from(v) / s).round().clamp(-QMAX, QMAX);
            assert_eq!(f64::from(k), want, "{v}");
        }
    }

    #[test]
    fn weights_on_tfs_grid_or_zero_are_left_alone() {
        // Evenly spread values on TF's own grid: its scale has zero error, nothing beats it.
        let even: Vec<f32> = (-127..=127).map(|k| k as f32 / 127.0).collect();
        assert_eq!(best_scale(&even), None);
        assert_eq!(best_scale(&[0.0; 8]), None);
    }
}
