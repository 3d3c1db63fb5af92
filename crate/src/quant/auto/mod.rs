//! `zeropoint quantize --auto`: beyond TF's choices, each step kept only when the measured
//! output error improves. TF-compatible mode (without `--auto`) is untouched by anything here.
//!
//! On a set of float samples (the first calibration samples), every candidate quantized model
//! is run on our integer kernels and scored by its output SQNR against the float model
//! ([`score`]). Starting from the TF-compatible model (TF's min/max ranges):
//!
//! 1. **Ranges** ([`ranges`]): per activation, in execution order, the best of min/max,
//!    percentile 99.99 / 99.9, MSE and KL ([`kl`]) ranges, greedily.
//! 2. **Bias correction** ([`bias`]): the per-channel error weight quantization adds to
//!    CONV_2D / DEPTHWISE_CONV_2D / FULLY_CONNECTED folded into the bias; kept if it scores better.
//! 3. **Mixed precision** ([`mixed`], only with a target SQNR): the fewest operators moved to
//!    int16 activations until the target holds.
//!
//! The result is never worse than the TF-compatible model on the scoring samples: if it were, the
//! TF-compatible model is returned (and the report says so). Everything written is an ordinary
//! int8 (or int8 + 16x8) model the same passes make, so it loads in stock LiteRT.

pub mod bias;
pub mod kl;
pub mod mixed;
pub mod ranges;
pub mod score;
#[cfg(test)]
mod tests;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::graph::{Model, ShapeOverrides};
use crate::quant::calibrate::{CalibrationStats, Method};
use crate::quant::passes::{Mode, QuantizeOptions, Ranges, quantize};
use crate::quant::report::Report;
use mixed::Sensitivity;
use ranges::{Best, RangeChoice};
use score::Scorer;

/// Default budget of candidate models scored.
pub const DEFAULT_BUDGET: usize = 400;

/// How `--auto` searches.
#[derive(Debug, Clone, PartialEq)]
pub struct AutoOptions {
    /// Move operators to int16 until the output SQNR reaches this many dB (`--target-sqnr`);
    /// `None`: int8 only.
    pub target_sqnr_db: Option<f64>,
    /// At most this many candidate models are scored (the search stops there, keeping the best
    /// so far).
    pub budget: usize,
    /// Input shapes the samples have (applied to every model before it runs).
    pub shapes: ShapeOverrides,
}

impl Default for AutoOptions {
    fn default() -> Self {
        AutoOptions {
            target_sqnr_db: None,
            budget: DEFAULT_BUDGET,
            shapes: ShapeOverrides::default(),
        }
    }
}

/// What `--auto` did, for the quantize report.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
pub struct AutoReport {
    /// Samples the output SQNR was measured on.
    pub samples: usize,
    /// Output SQNR in dB of the TF-compatible model (`null` when exact).
    pub tf_compatible_sqnr_db: Option<f64>,
    /// Output SQNR in dB of the written model (`null` when exact).
    pub sqnr_db: Option<f64>,
    /// Candidate models scored.
    pub evaluations: usize,
    /// Whether the budget stopped the search early.
    pub budget_exhausted: bool,
    /// Tensors whose range is not TF's min/max.
    pub ranges: Vec<RangeChoice>,
    /// Operators whose bias was corrected (empty when the correction did not improve).
    pub bias_corrected: Vec<String>,
    /// Output SQNR in dB with the bias correction (whether kept or not).
    pub bias_correction_sqnr_db: Option<f64>,
    /// With a target: every candidate operator's SQNR alone in int16, best first.
    pub sensitivity: Vec<Sensitivity>,
    /// Operators moved to int16 activations (float-model indices).
    pub int16_ops: Vec<usize>,
    /// The target, when one was given, and whether it was reached.
    pub target_sqnr_db: Option<f64>,
    /// Whether the target was reached.
    pub target_reached: Option<bool>,
    /// The TF-compatible model was written because nothing scored better.
    pub fell_back: bool,
}

fn finite(v: f64) -> Option<f64> {
    v.is_finite().then_some(v)
}

/// Quantizes `model` beyond TF (see the module docs): `stats` from calibration (any method: the
/// histograms and TF's min/max are what count), `samples[s][i]` the float samples scored on.
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
    let minmax = CalibrationStats {
        tensors: stats
            .tensors
            .iter()
            .map(|t| t.with_method(Method::MinMax))
            .collect::<Result<_>>()?,
        ..stats.clone()
    };
    let tf_ranges = Ranges::from_calibration(model, &minmax)?;
    let mut scorer = Scorer::new(model, samples, &auto.shapes)?;
    let (tf_model, tf_report) = quantize(model, &tf_ranges, opts)?;
    let tf_score = scorer.score(&tf_model)?;
    let mut best = Best {
        ranges: tf_ranges,
        model: tf_model.clone(),
        score: tf_score,
    };
    let mut rep = AutoReport {
        samples: scorer.samples(),
        tf_compatible_sqnr_db: finite(tf_score),
        target_sqnr_db: auto.target_sqnr_db,
        ..AutoReport::default()
    };
    let (choices, out) =
        ranges::search_ranges(model, &minmax, opts, &mut scorer, &mut best, auto.budget)?;
    rep.ranges = choices;
    rep.budget_exhausted = out;
    // Bias correction on top of the chosen ranges.
    let mut float = model.clone();
    if let Some((corrected, ops)) =
        bias::bias_corrected(model, samples, &auto.shapes, opts.per_tensor)?
        && let Ok((q, _)) = quantize(&corrected, &best.ranges, opts)
    {
        let score = scorer.score(&q)?;
        rep.bias_correction_sqnr_db = finite(score);
        if score > best.score {
            best.model = q;
            best.score = score;
            float = corrected;
            rep.bias_corrected = ops;
        }
    }
    let mut final_opts = opts.clone();
    if let Some(target) = auto.target_sqnr_db {
        let (ranked, out) =
            mixed::reach_target(&float, opts, &mut scorer, &mut best, target, auto.budget)?;
        rep.int16_ops = ranked.iter().filter(|s| s.moved).map(|s| s.index).collect();
        final_opts
            .int16_ops
            .extend(rep.int16_ops.iter().map(usize::to_string));
        rep.sensitivity = ranked;
        rep.budget_exhausted |= out;
        rep.target_reached = Some(best.score >= target);
    }
    rep.evaluations = scorer.evaluations();
    if best.score < tf_score {
        // Never happens with strict improvements only; kept as the guarantee's last line.
        rep.fell_back = true;
        rep.sqnr_db = finite(tf_score);
        return Ok((tf_model, tf_report, rep));
    }
    let (q, mut report) = quantize(&float, &best.ranges, &final_opts)?;
    if q != best.model {
        return Err(Error::Quantization {
            what: "--auto".into(),
            reason: "the final model differs from the one scored (internal error)".into(),
        });
    }
    rep.sqnr_db = finite(best.score);
    report.warnings.push(summary(&rep));
    Ok((q, report, rep))
}

/// One line for people: what `--auto` changed and what it measured.
pub fn summary(r: &AutoReport) -> String {
    let db = |v: Option<f64>| v.map_or("exact".to_string(), |v| format!("{v:.2} dB"));
    let mut s = format!(
        "--auto: output SQNR {} (TF-compatible {}) on {} calibration samples, {} candidates \
         scored; {} ranges changed",
        db(r.sqnr_db),
        db(r.tf_compatible_sqnr_db),
        r.samples,
        r.evaluations,
        r.ranges.len()
    );
    if !r.bias_corrected.is_empty() {
        s += &format!(", bias corrected on {} operators", r.bias_corrected.len());
    }
    if let Some(t) = r.target_sqnr_db {
        s += &format!(
            ", {} operators moved to int16 for target {t} dB ({})",
            r.int16_ops.len(),
            if r.target_reached == Some(true) {
                "reached"
            } else {
                "not reached"
            }
        );
    }
    if r.budget_exhausted {
        s += "; the candidate budget ran out";
    }
    if r.fell_back {
        s += "; nothing scored better: the TF-compatible model was written";
    }
    s
}
