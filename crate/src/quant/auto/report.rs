//! What `--auto` did ([`AutoReport`], the quantize report's `auto`) and its one-line summary.

use serde::{Deserialize, Serialize};

use super::mixed::Sensitivity;
use super::ranges::RangeChoice;
use super::{AUTO_SAMPLES, CV_FOLDS};

/// What `--auto` did, for the quantize report.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
pub struct AutoReport {
    /// Search samples: every candidate was scored on these.
    pub samples: usize,
    /// Folds of the search samples a step must improve on every one of.
    pub folds: usize,
    /// Held-out samples (never used to choose) the final guard compares on.
    pub held_out_samples: usize,
    /// Output SQNR in dB of the TF-compatible model on the held-out samples.
    pub held_out_tf_compatible_sqnr_db: Option<f64>,
    /// Output SQNR in dB of `--auto`'s choice on the held-out samples (before the guard).
    pub held_out_sqnr_db: Option<f64>,
    /// On how many held-out samples that choice has less output error than the TF-compatible
    /// model (the guard's sign test, [`super::score::Score::holds_up_against`]).
    #[serde(default)]
    pub held_out_better: Option<usize>,
    /// When the whole result did not hold up and the guard then judged the result without the
    /// range search and mixed precision (whose figures `held_out_sqnr_db` and
    /// `held_out_better` then are): the whole result's held-out SQNR in dB …
    #[serde(default)]
    pub whole_held_out_sqnr_db: Option<f64>,
    /// … and on how many held-out samples it had less output error.
    #[serde(default)]
    pub whole_held_out_better: Option<usize>,
    /// Output SQNR in dB of the TF-compatible model (`null` when exact).
    pub tf_compatible_sqnr_db: Option<f64>,
    /// Output SQNR in dB of the written model (`null` when exact).
    pub sqnr_db: Option<f64>,
    /// Candidate models scored.
    pub evaluations: usize,
    /// Whether the budget stopped the search early.
    pub budget_exhausted: bool,
    /// Whether the time limit (`--auto-time-limit`) stopped a search early (cross-validated:
    /// any of the searches).
    #[serde(default)]
    pub time_limit_reached: bool,
    /// Equalized operator pairs (`OP #i → OP #j`; empty when equalization did not improve).
    pub equalized: Vec<String>,
    /// Output SQNR in dB with equalization (whether kept or not; `null` without a pair).
    pub equalization_sqnr_db: Option<f64>,
    /// Tensors whose range is not TF's min/max.
    pub ranges: Vec<RangeChoice>,
    /// Operators whose weights were clipped ([`super::clip`]; empty when no clipping improved).
    #[serde(default)]
    pub weights_clipped: Vec<String>,
    /// Operators whose bias was corrected (empty when the correction did not improve).
    pub bias_corrected: Vec<String>,
    /// Output SQNR in dB with the bias correction (whether kept or not).
    pub bias_correction_sqnr_db: Option<f64>,
    /// With a target: every candidate operator's SQNR alone in int16, best first.
    pub sensitivity: Vec<Sensitivity>,
    /// Operators moved to int16 activations (float-model indices).
    pub int16_ops: Vec<usize>,
    /// Operators kept float to reach the target (no 16x8 kernel; float-model indices).
    #[serde(default)]
    pub float_ops: Vec<usize>,
    /// The target, when one was given, and whether it was reached.
    pub target_sqnr_db: Option<f64>,
    /// The accuracy target (percentage points below the float model), when one was given.
    #[serde(default)]
    pub target_accuracy_drop: Option<f64>,
    /// The output whose top-1 class the accuracy counts (with labels).
    #[serde(default)]
    pub label_output: Option<usize>,
    /// Top-1 accuracy of the float model on the search samples (with labels).
    #[serde(default)]
    pub float_accuracy: Option<f64>,
    /// Top-1 accuracy of the result on the search samples (with labels).
    #[serde(default)]
    pub accuracy: Option<f64>,
    /// Whether the target was reached.
    pub target_reached: Option<bool>,
    /// The TF-compatible model was written: nothing scored better on every fold, or the choice
    /// did not beat it on the held-out samples.
    pub fell_back: bool,
    /// The range search (and mixed precision) did not hold up on the held-out samples and was
    /// dropped with weight clipping; equalization and bias correction were kept.
    pub guard_dropped_search: bool,
    /// The guard cross-validated: the search ran once per quarter of the samples without it,
    /// and `held_out_*` count every sample, each scored by the result chosen without it (the
    /// model written is the search's on all samples, `samples`).
    #[serde(default)]
    pub cross_validated: bool,
}

impl AutoReport {
    /// Keeps the whole result's held-out figures aside before the guard judges the result
    /// without the range search (which overwrites `held_out_sqnr_db` and `held_out_better`).
    pub(super) fn set_whole_aside(&mut self) {
        self.whole_held_out_sqnr_db = self.held_out_sqnr_db;
        self.whole_held_out_better = self.held_out_better;
    }
}

/// One line for people: what `--auto` changed and what it measured.
pub fn summary(r: &AutoReport) -> String {
    let db = |v: Option<f64>| v.map_or("exact".to_string(), |v| format!("{v:.2} dB"));
    let mut s = format!(
        "--auto: output SQNR {} (TF-compatible {}) on {} search samples in {} folds, {} \
         candidates scored; {} ranges changed",
        db(r.sqnr_db),
        db(r.tf_compatible_sqnr_db),
        r.samples,
        r.folds,
        r.evaluations,
        r.ranges.len()
    );
    if !r.equalized.is_empty() {
        s += &format!(", {} operator pairs equalized", r.equalized.len());
    }
    if !r.weights_clipped.is_empty() {
        s += &format!(", weights clipped on {} operators", r.weights_clipped.len());
    }
    if !r.bias_corrected.is_empty() {
        s += &format!(", bias corrected on {} operators", r.bias_corrected.len());
    }
    let targets: Vec<String> = [
        r.target_sqnr_db.map(|t| format!("{t} dB")),
        r.target_accuracy_drop
            .map(|d| format!("top-1 accuracy at most {d} points below float")),
    ]
    .into_iter()
    .flatten()
    .collect();
    if !targets.is_empty() {
        let float = if r.float_ops.is_empty() {
            String::new()
        } else {
            format!(" and {} kept float", r.float_ops.len())
        };
        s += &format!(
            ", {} operators moved to int16{float} for target {} ({})",
            r.int16_ops.len(),
            targets.join(" and "),
            if r.target_reached == Some(true) {
                "reached"
            } else {
                "not reached"
            }
        );
    }
    if let (Some(f), Some(a)) = (r.float_accuracy, r.accuracy) {
        s += &format!(
            ", top-1 accuracy (output {}) {:.1} % (float {:.1} %) on the search samples",
            r.label_output.unwrap_or(0),
            100.0 * a,
            100.0 * f
        );
    }
    if r.budget_exhausted {
        s += "; the candidate budget ran out";
    }
    if r.time_limit_reached {
        s += "; the time limit stopped the search (the best found by then was judged)";
    }
    if r.held_out_samples > 0 && r.held_out_sqnr_db.is_some() {
        let whole = match (r.whole_held_out_sqnr_db, r.whole_held_out_better) {
            (Some(_), Some(k)) => format!(
                " the whole result {}, less error on {k}; without the range search",
                db(r.whole_held_out_sqnr_db)
            ),
            _ => String::new(),
        };
        s += &format!(
            "; on {} held-out samples{}{whole} {} (TF-compatible {}), less error on {} of them",
            r.held_out_samples,
            if r.cross_validated {
                format!(" (cross-validated: {CV_FOLDS} searches, each without a quarter)")
            } else {
                String::new()
            },
            db(r.held_out_sqnr_db),
            db(r.held_out_tf_compatible_sqnr_db),
            r.held_out_better.unwrap_or(0)
        );
    }
    if r.guard_dropped_search {
        s += "; the range search did not hold up on the held-out samples: dropped";
    }
    if r.fell_back {
        s += "; not better than the TF-compatible model on every fold and on enough held-out \
              samples (at least 4 needed): the TF-compatible model was written";
        // Cross-validated, every sample was searched on and held out once.
        let given = if r.cross_validated {
            r.samples
        } else {
            r.samples + r.held_out_samples
        };
        if given < AUTO_SAMPLES {
            s += &format!(
                " (with {given} samples a gain is hard to confirm: --auto takes up to \
                 {AUTO_SAMPLES}, {} to search and {} to hold out)",
                AUTO_SAMPLES - AUTO_SAMPLES / 4,
                AUTO_SAMPLES / 4
            );
        }
    }
    s
}
