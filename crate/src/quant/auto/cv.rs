//! The cross-validated guard of `--auto` (fewer than
//! [`MIN_SEARCH_SAMPLES_TO_SPLIT`](super::MIN_SEARCH_SAMPLES_TO_SPLIT) search
//! samples): [`CV_FOLDS`] searches, each without a quarter of the samples, every sample scored
//! by the result of the search that did not see it, and the guard's judgement on those scores.

use super::report::AutoReport;
use super::score::{self, Score, Scorer};
use super::{Best, CV_FOLDS, GUARD_MARGIN_DB, Recalibrate, Start, finite, search, subset, wins};
use crate::clock::Deadline;
use crate::error::Result;

/// The held-out scores of cross-validation: every sample scored by the result of a search
/// without it.
pub(super) struct CrossValidated {
    /// The TF-compatible model, per sample.
    pub(super) tf: Score,
    /// The whole result of each search.
    pub(super) full: Score,
    /// The result of steps 1–2 of each search.
    pub(super) structural: Score,
    /// Whether the time limit stopped any of the searches.
    pub(super) time_limit_reached: bool,
}

impl CrossValidated {
    /// The cross-validated guard: whether the search's whole result is kept (`full_beats`: it
    /// beat the TF-compatible model on every search fold) and its held-out scores hold up, else
    /// whether the result of steps 1–2 is (`second`: `None` when it is the whole result, else
    /// whether it beat the TF-compatible model on every search fold), as `(keep, dropped)`.
    /// The report gets the held-out figures of the last result judged: the whole result's
    /// even when the search did not beat the TF-compatible model, the second choice's only
    /// when there is one to judge (a second choice that is the TF-compatible model itself
    /// would read it against itself), the whole result's then set aside
    /// ([`AutoReport::whole_held_out_sqnr_db`]).
    pub(super) fn judge(
        &self,
        full_beats: bool,
        second: Option<bool>,
        rep: &mut AutoReport,
    ) -> (bool, bool) {
        rep.cross_validated = true;
        rep.time_limit_reached |= self.time_limit_reached;
        rep.held_out_samples = self.tf.noise.len();
        rep.held_out_tf_compatible_sqnr_db = finite(self.tf.total);
        // Reports `h`'s held-out figures and whether they hold up.
        let holds_up = |h: &Score, rep: &mut AutoReport| {
            rep.held_out_sqnr_db = finite(h.total);
            rep.held_out_better = Some(wins(h, &self.tf));
            h.holds_up_against(&self.tf, GUARD_MARGIN_DB)
        };
        if holds_up(&self.full, rep) && full_beats {
            return (true, false);
        }
        if second == Some(true) {
            rep.set_whole_aside();
            if holds_up(&self.structural, rep) {
                return (true, true);
            }
        }
        (false, false)
    }
}

/// [`CV_FOLDS`] searches, search `q` on the samples `k` with `k mod 4 != q` (at least
/// [`MIN_SAMPLES_TO_HOLD_OUT`](super::MIN_SAMPLES_TO_HOLD_OUT) samples), each result scored on the samples it did not see. A
/// search whose result is not better than the TF-compatible model on every one of its folds
/// yields the TF-compatible model (as the search on all samples would), so it ties there.
/// Search `q` stops at `deadlines[q]` (none past the list's end).
pub(super) fn cross_validated(
    start: &Start<'_>,
    samples: &[Vec<Vec<f32>>],
    recalibrate: &mut Option<Recalibrate<'_>>,
    deadlines: &[Option<Deadline>],
) -> Result<CrossValidated> {
    let (model, auto) = (start.model, start.auto);
    let (mut signal, mut tf, mut full, mut structural) = (0.0, vec![], vec![], vec![]);
    let mut time_limit_reached = false;
    for q in 0..CV_FOLDS {
        let held = subset(samples, |k| k % CV_FOLDS == q);
        let fit = subset(samples, |k| k % CV_FOLDS != q);
        let fit_labels = subset(&auto.labels, |k| k % CV_FOLDS != q);
        let s = search(
            start,
            &fit,
            &fit_labels,
            recalibrate.as_mut().map(|r| &mut **r as _),
            deadlines.get(q).copied().flatten(),
        )?;
        time_limit_reached |= s.rep.time_limit_reached;
        let mut guard = Scorer::new(model, &held, &auto.shapes, 1)?;
        signal += guard.signal();
        let tf_h = guard.score(start.tf_model)?;
        let mut chosen = |b: &Best| -> Result<Vec<f64>> {
            Ok(if b.score.beats(&s.tf_score) {
                guard.score(&b.model)?.noise
            } else {
                tf_h.noise.clone()
            })
        };
        full.extend(chosen(&s.best)?);
        structural.extend(chosen(&s.structural)?);
        tf.extend(tf_h.noise);
    }
    let per_sample = |noise: Vec<f64>| Score {
        total: score::sqnr_db(signal, noise.iter().sum()),
        folds: Vec::new(),
        noise,
        correct: None,
    };
    Ok(CrossValidated {
        tf: per_sample(tf),
        full: per_sample(full),
        structural: per_sample(structural),
        time_limit_reached,
    })
}
