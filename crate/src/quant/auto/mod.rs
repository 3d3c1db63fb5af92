//! `zeropoint quantize --auto`: beyond TF's choices, each step kept only when the measured
//! output error improves. TF-compatible mode (without `--auto`) is untouched by anything here.
//!
//! **Samples and the rule against overfitting.** The float samples given (the first
//! [`AUTO_SAMPLES`] calibration samples) are split: with 4 or more, every 4th (positions 3, 7, 11, …) is *held
//! out* ([`split_samples`]); the others are the *search* samples, dealt into 2 folds (with fewer
//! than 4 search samples, one fold per sample). Every candidate quantized model is run on our
//! integer kernels on the search samples and scored by its output SQNR against the float model
//! ([`score`]); a candidate replaces the current choice only when it is better on **every fold**
//! ([`score::Score::beats`]), so a change that helps some samples and hurts others is not taken.
//! Starting from the TF-compatible model (TF's min/max ranges):
//!
//! 1. **Cross-layer equalization** ([`equalize`]): depthwise-separable and conv → conv chains
//!    rescaled channel by channel, the model recalibrated (min/max); kept if it scores better.
//! 2. **Bias correction** ([`bias`]): the per-channel error weight quantization adds to
//!    CONV_2D / DEPTHWISE_CONV_2D / FULLY_CONNECTED folded into the bias; kept if it scores better.
//! 3. **Weight clipping** ([`clip`]): per output channel, the int8 weight scale of least squared
//!    weight error instead of `max|w| / 127` (with step 2 kept, the bias corrected for it); all
//!    operators at once, then each toggled, kept where it scores better.
//! 4. **Ranges** ([`ranges`]): per activation, in execution order, the best of min/max,
//!    percentile 99.99 / 99.9, MSE and KL ([`kl`]) ranges, greedily.
//! 5. **Mixed precision** ([`mixed`], only with a target SQNR): the fewest operators moved to
//!    int16 activations (or kept float, without a 16x8 kernel) until the target holds.
//!
//! [`rank`] measures the same sensitivity for a person to act on step by step (the page's "fix
//! the worst layers"): each operator alone in int16 (or float), ranked by output SQNR.
//!
//! **The final guard:** the result is scored on the held-out samples (never used to choose) next
//! to the TF-compatible model; unless it is better there by [`GUARD_MARGIN_DB`] in total, has less
//! output error on enough single held-out samples to pass a one-sided sign test at
//! [`score::GUARD_SIGN_P`] (so at least 4 held-out samples; fewer cannot tell a real gain from
//! noise: the TF-compatible model is written) and is better on every
//! search fold, the result of steps 1–2 alone (without weight clipping, the range search and
//! mixed precision, the steps most prone to overfitting) is tried the same way (`guard_dropped_search`), and if
//! that fails too the TF-compatible model is written and the report says so (`fell_back`). Without held-out
//! samples (fewer than 4 given) the guard is the search samples, each its own fold.
//!
//! **Cross-validation** (`cv.rs`; with fewer than [`MIN_SEARCH_SAMPLES_TO_SPLIT`] search samples, i.e. 4
//! to 20 samples given, where a single split holds out 1–5): the search runs [`CV_FOLDS`]
//! times, search `q` on the samples `k` with `k mod 4 != q`, and each sample of quarter `q` is
//! scored by search `q`'s result (the TF-compatible model where that search found nothing better
//! on every fold); the sign test and margin above apply to those N held-out results, which
//! estimate how the *procedure* does on samples it did not see. The model written is the search's
//! on all N samples (also required to beat the TF-compatible model on every fold of them): the
//! usual cross-validation practice — it is the procedure that was validated, and the search on
//! all samples has a third more data than any fold's; picking one fold's model would choose on
//! a held-out score again. Five searches instead of one: `--auto` takes about 5 times as long
//! there. Everything
//! written is an ordinary int8 (or int8 + 16x8) model the same passes make, so it loads in stock
//! LiteRT.

pub mod bias;
pub mod clip;
mod cv;
pub mod equalize;
pub mod kl;
pub mod mixed;
pub mod ranges;
pub mod rank;
pub mod report;
pub mod resume;
pub mod score;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_guard;

use crate::clock::Deadline;
use crate::error::{Error, Result};
use crate::graph::{Model, ShapeOverrides};
use crate::quant::calibrate::{CalibrationStats, Method};
use crate::quant::passes::{Mode, QuantizeOptions, Ranges, plain_float, quantize};
use crate::quant::report::Report;
use cv::cross_validated;
use ranges::Best;
pub use report::{AutoReport, summary};
use score::{Score, Scorer};

/// Default budget of candidate models scored.
pub const DEFAULT_BUDGET: usize = 400;

/// How `--auto` searches.
#[derive(Debug, Clone, PartialEq)]
pub struct AutoOptions {
    /// Move operators to int16 until the output SQNR reaches this many dB (`--target-sqnr`);
    /// `None`: int8 only.
    pub target_sqnr_db: Option<f64>,
    /// At most this many candidate models are scored (the search stops there, keeping the best
    /// so far), not counting weight clipping's (at most one per operator it changes, and one
    /// more).
    pub budget: usize,
    /// Input shapes the samples have (applied to every model before it runs).
    pub shapes: ShapeOverrides,
    /// Move operators until the top-1 accuracy is at most this many percentage points below
    /// the float model's (`--target-accuracy-drop`; needs `labels`).
    pub target_accuracy_drop: Option<f64>,
    /// The class label of each sample given (`--labels`), in order; empty without.
    pub labels: Vec<usize>,
    /// The output whose largest element is the class the labels name (`--label-output`;
    /// default 0).
    pub label_output: usize,
    /// Score every candidate by a whole run instead of from the last checkpoint before its
    /// first difference ([`resume`]; `--auto-whole-runs`): the same result, slower.
    pub whole_runs: bool,
    /// Stop searching after about this many seconds (`--auto-time-limit`; `None`: no limit):
    /// each search gets its share ([`search_deadlines`]) and keeps the best found by then; the
    /// guard still judges the result, so it is never worse than without a limit in kind, only
    /// less searched. A time limit makes the result depend on the machine's speed.
    pub time_limit: Option<f64>,
}

impl Default for AutoOptions {
    fn default() -> Self {
        AutoOptions {
            target_sqnr_db: None,
            budget: DEFAULT_BUDGET,
            shapes: ShapeOverrides::default(),
            target_accuracy_drop: None,
            labels: Vec::new(),
            label_output: 0,
            whole_runs: false,
            time_limit: None,
        }
    }
}

fn finite(v: f64) -> Option<f64> {
    v.is_finite().then_some(v)
}

/// `--auto` is given up to this many calibration samples (the first ones) to search and guard
/// on (the report's errors still use the first [`crate::quant::sqnr::ERROR_SAMPLES`]).
pub const AUTO_SAMPLES: usize = 64;

/// Every 4th sample (positions 3, 7, 11, …) is held out when there are at least this many.
pub const MIN_SAMPLES_TO_HOLD_OUT: usize = 4;

/// The final guard's margin: `--auto`'s result must beat the TF-compatible model by this many dB
/// on the held-out samples (a smaller difference on a few samples is noise).
pub const GUARD_MARGIN_DB: f64 = 0.1;

/// With fewer search samples than this after holding every 4th out (and at least
/// [`MIN_SAMPLES_TO_HOLD_OUT`] samples), the guard cross-validates instead ([`CV_FOLDS`]
/// searches, each sample held out once): a single split leaves too few held-out samples for the
/// sign test.
pub const MIN_SEARCH_SAMPLES_TO_SPLIT: usize = 16;

/// Searches of the cross-validated guard: search `q` holds out the samples `k` with
/// `k mod CV_FOLDS == q`.
pub const CV_FOLDS: usize = 4;

/// Search folds when there are at least [`MIN_SAMPLES_TO_HOLD_OUT`] search samples (fewer: one
/// fold per sample).
pub const FOLDS: usize = 2;

/// Of a time limit, the share the searches get: the rest is for the guard's held-out scoring
/// and the final quantization.
pub const SEARCH_SHARE: f64 = 0.9;

/// The deadline of each of `searches` searches run one after the other from now within
/// `time_limit` seconds: search `i` must stop by `SEARCH_SHARE · time_limit · (i + 1) / searches`
/// (time one leaves unused goes to the next).
pub fn search_deadlines(time_limit: Option<f64>, searches: usize) -> Vec<Option<Deadline>> {
    let start = crate::clock::now_ms();
    (1..=searches)
        .map(|i| {
            time_limit.map(|l| {
                Deadline::at(start + l.max(0.0) * 1e3 * SEARCH_SHARE * i as f64 / searches as f64)
            })
        })
        .collect()
}

/// Refuses a time limit that is not a number of seconds (finite, 0 or more).
///
/// # Errors
/// [`Error::Quantization`] naming `--auto-time-limit`.
pub fn check_time_limit(time_limit: Option<f64>) -> Result<()> {
    match time_limit {
        Some(t) if !(t.is_finite() && t >= 0.0) => Err(Error::Quantization {
            what: "--auto-time-limit".into(),
            reason: format!("{t} is not a number of seconds (finite, 0 or more)"),
        }),
        _ => Ok(()),
    }
}

/// Float samples, `[sample][input]` values.
pub type Samples = Vec<Vec<Vec<f32>>>;

/// `(search, held_out)`: with [`MIN_SAMPLES_TO_HOLD_OUT`] samples or more, positions `k` with
/// `k mod 4 == 3` are held out; otherwise all are search samples.
pub fn split_samples<T: Clone>(samples: &[T]) -> (Vec<T>, Vec<T>) {
    if samples.len() < MIN_SAMPLES_TO_HOLD_OUT {
        return (samples.to_vec(), Vec::new());
    }
    (
        subset(samples, |k| k % 4 != 3),
        subset(samples, |k| k % 4 == 3),
    )
}

/// The items at the positions `keep` accepts, in order.
fn subset<T: Clone>(items: &[T], keep: impl Fn(usize) -> bool) -> Vec<T> {
    items
        .iter()
        .enumerate()
        .filter(|(k, _)| keep(*k))
        .map(|(_, x)| x.clone())
        .collect()
}

/// Calibrates a float model again (min/max over the same calibration data as the first
/// statistics): `--auto` asks for it after changing weights (cross-layer equalization).
pub type Recalibrate<'a> = &'a mut dyn FnMut(&Model) -> Result<CalibrationStats>;

/// TF's min/max ranges of `stats` for `model`.
fn minmax_ranges(model: &Model, stats: &CalibrationStats) -> Result<(CalibrationStats, Ranges)> {
    let minmax = CalibrationStats {
        tensors: stats
            .tensors
            .iter()
            .map(|t| t.with_method(Method::MinMax))
            .collect::<Result<_>>()?,
        ..stats.clone()
    };
    let ranges = Ranges::from_calibration(model, &minmax)?;
    Ok((minmax, ranges))
}

/// Quantizes `model` beyond TF (see the module docs): `stats` from calibration (any method: the
/// histograms and TF's min/max are what count), `samples[s][i]` the float samples scored on
/// (split into search and held-out samples, [`split_samples`]); `recalibrate` calibrates a
/// changed float model on the same data (without it, cross-layer equalization is not tried).
///
/// # Errors
/// [`Error::Quantization`] for a mode other than int8 or without samples; what [`quantize`] or
/// the engine refuse.
pub fn auto_quantize(
    model: &Model,
    stats: &CalibrationStats,
    samples: &[Vec<Vec<f32>>],
    opts: &QuantizeOptions,
    auto: &AutoOptions,
    recalibrate: Option<Recalibrate<'_>>,
) -> Result<(Model, Report, AutoReport)> {
    if opts.mode != Mode::Int8 {
        return Err(Error::Quantization {
            what: "--auto".into(),
            reason: format!(
                "it quantizes int8 models (--mode int8), not {}",
                opts.mode.name()
            ),
        });
    }
    if let Some(t) = auto.target_sqnr_db.filter(|t| !t.is_finite()) {
        return Err(Error::Quantization {
            what: "--target-sqnr".into(),
            reason: format!("{t} is not a finite number of dB"),
        });
    }
    check_time_limit(auto.time_limit)?;
    if let Some(d) = auto.target_accuracy_drop {
        if !d.is_finite() {
            return Err(Error::Quantization {
                what: "--target-accuracy-drop".into(),
                reason: format!("{d} is not a finite number of percentage points"),
            });
        }
        if auto.labels.len() != samples.len() {
            return Err(Error::Quantization {
                what: "--target-accuracy-drop".into(),
                reason: format!(
                    "it needs one class label per sample (--labels): {} labels for {} samples",
                    auto.labels.len(),
                    samples.len()
                ),
            });
        }
    }
    let (minmax, tf_ranges) = minmax_ranges(model, stats)?;
    let (tf_model, tf_report) = quantize(model, &tf_ranges, opts)?;
    // The weight steps read and change the float32 weights the quantizer sees (float16 weights
    // behind DEQUANTIZE folded): their changes reach `quantize` as `QuantizeOptions::constants`.
    let plain = plain_float(model)?;
    let plain = plain.as_ref().unwrap_or(model);
    let start = Start {
        model,
        plain,
        file_index: file_indices(model, plain),
        minmax: &minmax,
        tf_ranges: &tf_ranges,
        tf_model: &tf_model,
        opts,
        auto,
    };
    let (search_samples, held_out) = split_samples(samples);
    let cross_validate = !held_out.is_empty() && search_samples.len() < MIN_SEARCH_SAMPLES_TO_SPLIT;
    let mut recalibrate = recalibrate;
    let mut deadlines = search_deadlines(
        auto.time_limit,
        if cross_validate { CV_FOLDS + 1 } else { 1 },
    );
    let last_deadline = deadlines.pop().flatten();
    // With few samples, cross-validation: the search runs once per quarter of the samples
    // without it, and each sample is scored by the result chosen without it.
    let mut cv = None;
    if cross_validate {
        cv = Some(cross_validated(
            &start,
            samples,
            &mut recalibrate,
            &deadlines,
        )?);
    }
    let (search_on, search_labels) = if cross_validate {
        (samples.to_vec(), auto.labels.clone())
    } else {
        (search_samples, split_samples(&auto.labels).0)
    };
    let Searched {
        mut best,
        structural,
        structural_opts,
        mut final_opts,
        mut rep,
        tf_score,
    } = search(
        &start,
        &search_on,
        &search_labels,
        recalibrate,
        last_deadline,
    )?;
    // The final guard: better than the TF-compatible model on every search fold and, when there
    // are held-out samples, by GUARD_MARGIN_DB on them; first the whole result, then the result
    // without the range search and mixed precision.
    let mut keep;
    let mut dropped = false;
    if let Some(cv) = cv {
        let second = (structural.model != best.model).then(|| structural.score.beats(&tf_score));
        (keep, dropped) = cv.judge(best.score.beats(&tf_score), second, &mut rep);
    } else {
        rep.held_out_samples = held_out.len();
        let mut guard = if held_out.is_empty() {
            None
        } else {
            Some(Scorer::new(model, &held_out, &auto.shapes, 1)?)
        };
        let tf_h = match guard.as_mut() {
            Some(g) => Some(g.score(&tf_model)?),
            None => None,
        };
        rep.held_out_tf_compatible_sqnr_db = tf_h.as_ref().and_then(|s| finite(s.total));
        let mut passes = |candidate: &Best, rep: &mut AutoReport| -> Result<bool> {
            if !candidate.score.beats(&tf_score) {
                return Ok(false);
            }
            let (Some(g), Some(tf_h)) = (guard.as_mut(), tf_h.as_ref()) else {
                return Ok(true);
            };
            let h = g.score(&candidate.model)?;
            rep.held_out_sqnr_db = finite(h.total);
            rep.held_out_better = Some(wins(&h, tf_h));
            Ok(h.holds_up_against(tf_h, GUARD_MARGIN_DB))
        };
        keep = passes(&best, &mut rep)?;
        if !keep && structural.model != best.model && structural.score.beats(&tf_score) {
            rep.set_whole_aside();
            keep = passes(&structural, &mut rep)?;
            dropped = keep;
        }
    }
    if dropped {
        // The range search (and any int16 move) did not hold up on the held-out samples.
        best = structural;
        final_opts = structural_opts;
        rep.ranges.clear();
        rep.weights_clipped.clear();
        rep.int16_ops.clear();
        rep.float_ops.clear();
        rep.sensitivity.iter_mut().for_each(|s| s.moved = false);
        if let Some(target) = target_of(auto, rep.float_accuracy) {
            rep.target_reached = Some(target.met(&best.score));
            rep.accuracy = best.score.accuracy();
        }
        rep.guard_dropped_search = true;
    }
    if !keep {
        rep.fell_back = true;
        rep.sqnr_db = finite(tf_score.total);
        let mut report = tf_report;
        report.warnings.push(summary(&rep));
        return Ok((tf_model, report, rep));
    }
    let (q, mut report) = quantize(model, &best.ranges, &final_opts)?;
    if q != best.model {
        return Err(Error::Quantization {
            what: "--auto".into(),
            reason: "the final model differs from the one scored (internal error)".into(),
        });
    }
    rep.sqnr_db = finite(best.score.total);
    report.warnings.push(summary(&rep));
    Ok((q, report, rep))
}

/// On how many samples `h` has less output error than `tf` (the same samples, in order).
fn wins(h: &Score, tf: &Score) -> usize {
    h.noise.iter().zip(&tf.noise).filter(|(a, b)| a < b).count()
}

/// What a search starts from: the model, its TF-compatible quantization, the options.
struct Start<'a> {
    /// The float model as given.
    model: &'a Model,
    /// `model` as the quantizer reads it ([`plain_float`]): the weight steps work on it.
    plain: &'a Model,
    /// The index in `model` of each operator of `plain` (folding removes operators).
    file_index: Vec<usize>,
    /// TF's min/max statistics.
    minmax: &'a CalibrationStats,
    /// TF's ranges.
    tf_ranges: &'a Ranges,
    /// The TF-compatible model.
    tf_model: &'a Model,
    /// The options asked for.
    opts: &'a QuantizeOptions,
    /// How to search.
    auto: &'a AutoOptions,
}

impl Start<'_> {
    /// `opts` with the constants of `changed` (a copy of `plain` with other weights) that differ
    /// from `plain`'s as [`QuantizeOptions::constants`].
    fn with_weights(&self, opts: &QuantizeOptions, changed: &Model) -> QuantizeOptions {
        let n = self.plain.subgraphs[0].tensors.len();
        let constants = (0..n)
            .filter_map(|t| {
                let new = changed.tensor_data(0, t)?;
                (self.plain.tensor_data(0, t)? != new).then(|| (t, new.to_vec()))
            })
            .collect();
        QuantizeOptions {
            constants,
            ..opts.clone()
        }
    }

    /// `OP #i (output name)` of operator `k` of `plain`, numbered as in the file.
    fn label(&self, k: usize) -> String {
        rank::label(self.model, self.file_index.get(k).copied().unwrap_or(k))
    }
}

/// The index in `model` of each operator of `plain` (`model` with some operators folded away,
/// the others in order with the same outputs).
fn file_indices(model: &Model, plain: &Model) -> Vec<usize> {
    let ops = &model.subgraphs[0].operators;
    let mut j = 0;
    plain.subgraphs[0]
        .operators
        .iter()
        .enumerate()
        .map(|(k, op)| {
            while j < ops.len() && ops[j].outputs != op.outputs {
                j += 1;
            }
            let i = if j < ops.len() { j } else { k };
            j += 1;
            i
        })
        .collect()
}

/// What one search (steps 1–5 of the module docs) found.
struct Searched {
    /// The result.
    best: Best,
    /// The result of steps 1–2 alone.
    structural: Best,
    /// Options for the result of steps 1–2 (their weights).
    structural_opts: QuantizeOptions,
    /// Options for the result (its weights and int16 operators).
    final_opts: QuantizeOptions,
    /// The report so far (no guard fields yet).
    rep: AutoReport,
    /// The TF-compatible model's score on the search samples.
    tf_score: Score,
}

/// The mixed-precision target `auto` asks for, if any.
fn target_of(auto: &AutoOptions, float_accuracy: Option<f64>) -> Option<mixed::Target> {
    (auto.target_sqnr_db.is_some() || auto.target_accuracy_drop.is_some()).then_some(
        mixed::Target {
            sqnr_db: auto.target_sqnr_db,
            accuracy_drop: auto.target_accuracy_drop,
            float_accuracy,
        },
    )
}

/// Steps 1–5 of the module docs on the search samples `search` (at least 1), labelled by
/// `labels` (empty: none); no step starts and no candidate is scored after `deadline` (the
/// TF-compatible model's score aside).
fn search(
    start: &Start<'_>,
    search: &[Vec<Vec<f32>>],
    labels: &[usize],
    recalibrate: Option<Recalibrate<'_>>,
    deadline: Option<Deadline>,
) -> Result<Searched> {
    let (model, opts, auto) = (start.model, start.opts, start.auto);
    let mut minmax = start.minmax.clone();
    let folds = if search.len() >= MIN_SAMPLES_TO_HOLD_OUT {
        FOLDS
    } else {
        search.len()
    };
    let mut scorer = Scorer::new(model, search, &auto.shapes, folds)?
        .with_labels(labels, auto.label_output)?
        .with_deadline(deadline);
    if auto.whole_runs {
        scorer = scorer.whole_runs();
    }
    let tf_score = scorer.score(start.tf_model)?;
    let mut best = Best {
        ranges: start.tf_ranges.clone(),
        model: start.tf_model.clone(),
        score: tf_score.clone(),
    };
    let mut rep = AutoReport {
        samples: search.len(),
        folds,
        tf_compatible_sqnr_db: finite(tf_score.total),
        target_sqnr_db: auto.target_sqnr_db,
        target_accuracy_drop: auto.target_accuracy_drop,
        label_output: (!labels.is_empty()).then_some(auto.label_output),
        float_accuracy: scorer.float_accuracy(),
        ..AutoReport::default()
    };
    // The weights so far (`plain` with the kept changes) and the options that carry them.
    let mut weights = start.plain.clone();
    let mut current = opts.clone();
    // Cross-layer equalization: new weights, the model calibrated again.
    if let Some(recalibrate) = recalibrate.filter(|_| !scorer.out_of_time())
        && let Some((eq, pairs)) = equalize::equalized(&weights)?
    {
        let (eq_minmax, eq_ranges) = minmax_ranges(&eq, &recalibrate(&eq)?)?;
        let eq_opts = start.with_weights(opts, &eq);
        if let Ok((q, _)) = quantize(model, &eq_ranges, &eq_opts) {
            let score = scorer.score(&q)?;
            rep.equalization_sqnr_db = finite(score.total);
            if score.beats(&best.score) {
                best = Best {
                    ranges: eq_ranges,
                    model: q,
                    score,
                };
                weights = eq;
                current = eq_opts;
                minmax = eq_minmax;
                let name = |k: usize| {
                    let i = start.file_index.get(k).copied().unwrap_or(k);
                    format!("{} #{i}", model.subgraphs[0].operators[i].code.name())
                };
                rep.equalized = pairs
                    .iter()
                    .map(|&(a, b)| format!("{} → {}", name(a), name(b)))
                    .collect();
            }
        }
    }
    // Bias correction on the min/max ranges (its means from the search samples).
    let uncorrected = weights.clone();
    if !scorer.out_of_time()
        && let Some((corrected, ops)) =
            bias::bias_corrected(&weights, &weights, search, &auto.shapes, opts.per_tensor)?
    {
        let bias_opts = start.with_weights(opts, &corrected);
        if let Ok((q, _)) = quantize(model, &best.ranges, &bias_opts) {
            let score = scorer.score(&q)?;
            rep.bias_correction_sqnr_db = finite(score.total);
            if score.beats(&best.score) {
                best.model = q;
                best.score = score;
                weights = corrected;
                current = bias_opts;
                rep.bias_corrected = ops.into_iter().map(|k| start.label(k)).collect();
            }
        }
    }
    // Without weight clipping and the range search (the steps most prone to overfitting): the
    // guard's second choice.
    let structural = best.clone();
    let structural_opts = current.clone();
    let before_clipping = scorer.evaluations();
    // Weight clipping, operator by operator (with bias correction kept: each clipped operator's
    // bias corrected for its clipped weights).
    if let Some((mut clipped, ops)) = clip::all_clipped(&uncorrected, opts.per_tensor) {
        if !rep.bias_corrected.is_empty()
            && let Some((c, _)) = bias::bias_corrected(
                &clipped,
                &uncorrected,
                search,
                &auto.shapes,
                opts.per_tensor,
            )?
        {
            clipped = c;
        }
        let quantized = |m: &Model, b: &Best| {
            quantize(model, &b.ranges, &start.with_weights(opts, m))
                .ok()
                .map(|(q, _)| q)
        };
        let (chosen, ops) =
            clip::search_clipping(&weights, &clipped, &ops, &quantized, &mut scorer, &mut best)?;
        if !ops.is_empty() {
            current = start.with_weights(opts, &chosen);
        }
        rep.weights_clipped = ops.into_iter().map(|k| start.label(k)).collect();
    }
    // The budget leaves weight clipping's candidates out (bounded by the operators).
    let budget = auto.budget + (scorer.evaluations() - before_clipping);
    let (choices, out) =
        ranges::search_ranges(model, &minmax, &current, &mut scorer, &mut best, budget)?;
    rep.ranges = choices;
    rep.budget_exhausted = out && scorer.evaluations() >= budget;
    let mut final_opts = current.clone();
    if let Some(target) = target_of(auto, scorer.float_accuracy()) {
        let (ranked, out) =
            mixed::reach_target(model, &current, &mut scorer, &mut best, &target, budget)?;
        let moved = |fix: rank::Fix| -> Vec<usize> {
            ranked
                .iter()
                .filter(|s| s.moved && s.fix == fix)
                .map(|s| s.index)
                .collect()
        };
        rep.int16_ops = moved(rank::Fix::Int16);
        rep.float_ops = moved(rank::Fix::Float);
        final_opts
            .int16_ops
            .extend(rep.int16_ops.iter().map(usize::to_string));
        final_opts
            .float_ops
            .extend(rep.float_ops.iter().map(usize::to_string));
        rep.sensitivity = ranked;
        rep.budget_exhausted |= out && scorer.evaluations() >= budget;
        rep.target_reached = Some(target.met(&best.score));
        rep.accuracy = best.score.accuracy();
    }
    rep.evaluations = scorer.evaluations();
    rep.time_limit_reached = scorer.out_of_time();
    Ok(Searched {
        best,
        structural,
        structural_opts,
        final_opts,
        rep,
        tf_score,
    })
}

/// Little-endian float32 constant bytes as values.
fn floats(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// The shape of tensor `t` of subgraph 0 (negative dims as 0).
fn dims(model: &Model, t: usize) -> Vec<usize> {
    model.subgraphs[0].tensors[t]
        .shape
        .as_deref()
        .unwrap_or(&[])
        .iter()
        .map(|&d| usize::try_from(d).unwrap_or(0))
        .collect()
}

/// Whether tensor `t` of subgraph 0 is a float32 constant.
fn is_f32_constant(model: &Model, t: usize) -> bool {
    model.subgraphs[0]
        .tensors
        .get(t)
        .is_some_and(|x| x.dtype == crate::graph::TensorType::FLOAT32)
        && model.tensor_data(0, t).is_some()
}

/// The operators of subgraph 0 the weight steps (bias correction, clipping) change: CONV_2D,
/// DEPTHWISE_CONV_2D and FULLY_CONNECTED whose weights (input 1) are a float32 constant, as
/// `(operator index, operator, weights tensor)`.
fn weighted_ops(
    model: &Model,
) -> impl Iterator<Item = (usize, &crate::graph::Operator, usize)> + '_ {
    use crate::graph::BuiltinOperator as Op;
    model.subgraphs[0]
        .operators
        .iter()
        .enumerate()
        .filter(|(_, op)| {
            matches!(
                op.code.op(),
                Op::CONV_2D | Op::DEPTHWISE_CONV_2D | Op::FULLY_CONNECTED
            )
        })
        .filter_map(|(i, op)| {
            let w = op.input(1)?;
            is_f32_constant(model, w).then_some((i, op, w))
        })
}
