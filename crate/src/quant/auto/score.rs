//! The measure every `--auto` decision is taken on: the SQNR of a quantized model's outputs
//! against the float model's, over a fixed set of float samples.
//!
//! `SQNR = 10·log10(Σ f² / Σ (f − q̂)²)` summed over every element of every graph output and every
//! sample (`q̂` the quantized output dequantized with its own scale and zero point), the same
//! definition as the zoo's and the quality table's (`tests/tools/zoo/measure.py`). The float
//! outputs are computed once, on the calibration kernels ([`CALIBRATION_KERNELS`]); each
//! candidate runs on the fast integer kernels (bit-identical to LiteRT's reference kernels), so
//! the score is what LiteRT would give.
//!
//! The samples are dealt into folds (sample `k` in fold `k mod folds`) and a [`Score`] carries
//! one SQNR per fold besides the total: `--auto` keeps a step only when it is better on every
//! fold ([`Score::beats`]), so a change that helps some samples and hurts others (overfitting
//! to the samples it is chosen on) is not taken.
//!
//! The final guard asks more of a result than of a step: on the held-out samples it must be
//! better in total and reduce the output error on so many single samples that a coin flip per
//! sample would do as well with probability at most [`GUARD_SIGN_P`] (a one-sided sign test,
//! [`Score::holds_up_against`]): a total carried by one or two samples, the way SQNR over
//! softmax probabilities often is, does not pass, and neither does any result checked on fewer
//! than 4 held-out samples.

use std::sync::Arc;

use super::resume::{self, Checkpoints};
use crate::clock::Deadline;
use crate::engine::compare::{per_tensor_params, real_values, set_input_real};
use crate::engine::{Interpreter, Limits};
use crate::error::{Error, Result};
use crate::graph::{Model, ShapeOverrides};
use crate::kernels::KernelSet;
use crate::quant::calibrate::CALIBRATION_KERNELS;

std::thread_local! {
    /// Called after each candidate scored on this thread while [`with_progress`] runs.
    static ON_SCORE: std::cell::RefCell<Option<Box<dyn FnMut()>>> =
        const { std::cell::RefCell::new(None) };
}

/// Runs `f` with `hook` called after every candidate model any [`Scorer`] on this thread
/// scores (the page's `--auto` progress: a search is one call, this is how it reports as it
/// goes). The hook is removed when `f` returns, whatever it returns.
pub fn with_progress<R>(hook: impl FnMut() + 'static, f: impl FnOnce() -> R) -> R {
    struct Clear;
    impl Drop for Clear {
        fn drop(&mut self) {
            ON_SCORE.with(|h| h.borrow_mut().take());
        }
    }
    ON_SCORE.with(|h| *h.borrow_mut() = Some(Box::new(hook)));
    let _clear = Clear;
    f()
}

/// Float reference outputs of a set of samples, and the scoring of quantized candidates on them.
pub struct Scorer {
    samples: Vec<Vec<Vec<f32>>>,
    shapes: ShapeOverrides,
    /// `[sample][output]` float outputs.
    reference: Vec<Vec<Vec<f64>>>,
    /// `Σ f²` per fold.
    signal: Vec<f64>,
    evaluations: usize,
    /// Threads a candidate's samples are run on ([`Scorer::with_threads`]).
    threads: usize,
    /// Each sample's class label ([`Scorer::with_labels`]; empty: no labels).
    labels: Vec<usize>,
    /// The output whose largest element is the class ([`Scorer::with_labels`]).
    label_output: usize,
    /// Samples whose float top-1 class is their label.
    float_correct: usize,
    /// Whether candidates resume from checkpoints ([`resume`]; [`Scorer::whole_runs`] turns
    /// it off).
    resume: bool,
    /// The checkpoints candidates resume from: those of the first model scored, or of a later
    /// one the search kept ([`Scorer::adopt_last`]).
    checkpoints: Option<Checkpoints>,
    /// The model scored last (shapes applied) and the checkpoint it resumed from.
    last: Option<(Model, Option<usize>)>,
    /// Candidates scored from a checkpoint.
    resumed: usize,
    /// When the search stops scoring new candidates ([`Scorer::with_deadline`]).
    deadline: Option<Deadline>,
}

/// A candidate's output SQNR in dB: over all samples, and per fold.
#[derive(Debug, Clone, PartialEq)]
pub struct Score {
    /// Over every sample.
    pub total: f64,
    /// Fold `f`: the samples `k` with `k mod folds == f`.
    pub folds: Vec<f64>,
    /// `Σ (f − q̂)²` of each sample, in sample order.
    pub noise: Vec<f64>,
    /// Samples whose top-1 class (the largest element of the label output) is their label,
    /// when the scorer has labels.
    pub correct: Option<usize>,
}

/// The final guard's sign test: a result must reduce the output error on so many held-out
/// samples that a fair coin per sample would reach that many with probability at most this
/// (`1/16`: at least 4 of 4, 5 of 5, 6 of 7, 7 of 8, 12 of 16 …).
pub const GUARD_SIGN_P: f64 = 1.0 / 16.0;

/// `P(X ≥ wins)` for `X ~ Binomial(n, 1/2)`.
pub fn sign_test_p(wins: usize, n: usize) -> f64 {
    if wins > n {
        return 0.0;
    }
    // C(n, k) / 2^n summed for k = wins..=n, computed in floating point term by term.
    let mut term = 0.5f64.powi(i32::try_from(n).unwrap_or(i32::MAX)); // C(n, 0) / 2^n
    let mut p = 0.0;
    for k in 0..=n {
        if k >= wins {
            p += term;
        }
        term *= (n - k) as f64 / (k + 1) as f64;
    }
    p.min(1.0)
}

impl Score {
    /// Top-1 accuracy over the samples scored, when the scorer has labels.
    pub fn accuracy(&self) -> Option<f64> {
        self.correct
            .map(|c| c as f64 / self.noise.len().max(1) as f64)
    }

    /// Whether `self` is strictly better than `other` on every fold (and so in total too, up to
    /// rounding: checked as well). Equal infinite scores (exact outputs) are not better.
    pub fn beats(&self, other: &Score) -> bool {
        self.folds.len() == other.folds.len()
            && self.total > other.total
            && self.folds.iter().zip(&other.folds).all(|(a, b)| a > b)
    }

    /// The final guard (see the module docs): whether `self` is better than `other` (scored on
    /// the same samples) by more than `margin_db` in total and has less output error on enough
    /// single samples that the one-sided sign test gives at most [`GUARD_SIGN_P`] (samples on
    /// which both have the same error are left out of the test, as a sign test does).
    pub fn holds_up_against(&self, other: &Score, margin_db: f64) -> bool {
        if self.noise.len() != other.noise.len() || self.total <= other.total + margin_db {
            return false;
        }
        let (mut wins, mut decided) = (0, 0);
        for (a, b) in self.noise.iter().zip(&other.noise) {
            if a != b {
                decided += 1;
                wins += usize::from(a < b);
            }
        }
        sign_test_p(wins, decided) <= GUARD_SIGN_P
    }
}

impl Scorer {
    /// Runs `float` (with `shapes` applied) on every sample (`samples[s][i]` = values of input
    /// `i`) and keeps its outputs; the samples are dealt into `folds` folds (at least 1, at most
    /// one per sample).
    ///
    /// # Errors
    /// [`Error::Quantization`] without samples or when the float outputs of some fold are all
    /// zero (no SQNR can be measured); what the engine refuses.
    pub fn new(
        float: &Model,
        samples: &[Vec<Vec<f32>>],
        shapes: &ShapeOverrides,
        folds: usize,
    ) -> Result<Self> {
        if samples.is_empty() {
            return Err(Error::Quantization {
                what: "--auto".into(),
                reason: "it needs calibration samples to measure the output error on".into(),
            });
        }
        let mut float = float.clone();
        shapes.apply(&mut float)?;
        let mut fi = Interpreter::with_options(&float, &Limits::default(), CALIBRATION_KERNELS)?;
        let mut reference = Vec::with_capacity(samples.len());
        for sample in samples {
            for (i, x) in sample.iter().enumerate() {
                set_input_real(&mut fi, &float, i, x)?;
            }
            fi.invoke()?;
            reference.push(outputs(&fi, &float)?);
        }
        let folds = folds.clamp(1, samples.len());
        let mut signal = vec![0.0; folds];
        for (k, r) in reference.iter().enumerate() {
            signal[k % folds] += r.iter().flatten().map(|f| f * f).sum::<f64>();
        }
        if signal.iter().any(|&s| s == 0.0 || !s.is_finite()) {
            return Err(Error::Quantization {
                what: "--auto".into(),
                reason: "the float model's outputs are all zero on some calibration samples: no \
                         output error can be measured on them"
                    .into(),
            });
        }
        Ok(Scorer {
            samples: samples.to_vec(),
            shapes: shapes.clone(),
            reference,
            signal,
            evaluations: 0,
            threads: default_threads(),
            labels: Vec::new(),
            label_output: 0,
            float_correct: 0,
            resume: true,
            checkpoints: None,
            last: None,
            resumed: 0,
            deadline: None,
        })
    }

    /// Scores top-1 accuracy too: `labels[s]` is sample `s`'s class, the index of the largest
    /// element of output `output` when right (`--label-output`); empty for none.
    ///
    /// # Errors
    /// [`Error::Quantization`] when there is not one label per sample, the model has no output
    /// `output`, or a label is not one of its classes (an index of its elements).
    pub fn with_labels(mut self, labels: &[usize], output: usize) -> Result<Self> {
        if labels.is_empty() {
            return Ok(self);
        }
        if labels.len() != self.samples.len() {
            return Err(Error::Quantization {
                what: "--labels".into(),
                reason: format!(
                    "{} labels for {} samples: one label per sample",
                    labels.len(),
                    self.samples.len()
                ),
            });
        }
        let outputs = self.reference.first().map_or(0, Vec::len);
        let classes = match self.reference.first().and_then(|r| r.get(output)) {
            Some(o) => o.len(),
            None => {
                return Err(Error::Quantization {
                    what: "--label-output".into(),
                    reason: format!(
                        "output {output} holds the class scores, but the model has {outputs} \
                         output{}",
                        if outputs == 1 { "" } else { "s" }
                    ),
                });
            }
        };
        if classes < 2 {
            return Err(Error::Quantization {
                what: "--label-output".into(),
                reason: format!(
                    "output {output} has {classes} element{}: a top-1 class needs one score per \
                     class ({outputs} output{}; --label-output picks the one with the scores)",
                    if classes == 1 { "" } else { "s" },
                    if outputs == 1 { "" } else { "s" }
                ),
            });
        }
        if let Some(l) = labels.iter().find(|l| **l >= classes) {
            return Err(Error::Quantization {
                what: "--labels".into(),
                reason: format!(
                    "a label is {l}, but output {output} has {classes} classes (0 to {})",
                    classes.saturating_sub(1)
                ),
            });
        }
        self.float_correct = self
            .reference
            .iter()
            .zip(labels)
            .filter(|(r, l)| r.get(output).is_some_and(|o| top1(o) == **l))
            .count();
        self.labels = labels.to_vec();
        self.label_output = output;
        Ok(self)
    }

    /// The float model's top-1 accuracy on the samples, when labelled.
    pub fn float_accuracy(&self) -> Option<f64> {
        (!self.labels.is_empty()).then(|| self.float_correct as f64 / self.labels.len() as f64)
    }

    /// Runs each candidate's samples on `n` threads (at least 1; natively the default is the
    /// machine's parallelism, at most 4; in wasm always 1). Each thread prepares its own
    /// interpreter and runs a contiguous run of the samples; the per-sample errors are summed in
    /// sample order afterwards, so the scores are the same bits for any `n`.
    pub fn with_threads(mut self, n: usize) -> Self {
        self.threads = if cfg!(target_arch = "wasm32") {
            1
        } else {
            n.max(1)
        };
        self
    }

    /// Scores every candidate by a whole run, never from a checkpoint ([`resume`]): the same
    /// scores, more time (what the tests compare resuming with).
    pub fn whole_runs(mut self) -> Self {
        self.resume = false;
        self.checkpoints = None;
        self.last = None;
        self
    }

    /// Number of samples scored on.
    pub fn samples(&self) -> usize {
        self.samples.len()
    }

    /// `Σ f²` over every sample and output of the float model.
    pub fn signal(&self) -> f64 {
        self.signal.iter().sum()
    }

    /// Number of candidate models scored from a checkpoint ([`resume`]) so far.
    pub fn resumed(&self) -> usize {
        self.resumed
    }

    /// Number of candidate models scored so far.
    pub fn evaluations(&self) -> usize {
        self.evaluations
    }

    /// Stops the search at `deadline` (`--auto-time-limit`): from then on [`Scorer::out_of_time`]
    /// and [`Scorer::spent`] say so, and the searches keep the best found so far. A candidate
    /// being scored is finished.
    #[must_use]
    pub fn with_deadline(mut self, deadline: Option<Deadline>) -> Self {
        self.deadline = deadline;
        self
    }

    /// Whether the deadline has passed.
    pub fn out_of_time(&self) -> bool {
        self.deadline.is_some_and(Deadline::passed)
    }

    /// Whether the search must stop: `budget` candidates scored, or out of time.
    pub fn spent(&self, budget: usize) -> bool {
        self.evaluations >= budget || self.out_of_time()
    }

    /// The output SQNR in dB of `quant`, in total and per fold (`f64::INFINITY` when its
    /// outputs equal the float model's).
    ///
    /// # Errors
    /// What the engine refuses when preparing or running `quant`; [`Error::TensorMismatch`] if
    /// its outputs do not have the float model's sizes.
    pub fn score(&mut self, quant: &Model) -> Result<Score> {
        self.evaluations += 1;
        ON_SCORE.with(|h| {
            if let Some(hook) = h.borrow_mut().as_mut() {
                hook();
            }
        });
        let mut q = quant.clone();
        self.shapes.apply(&mut q)?;
        let folds = self.signal.len();
        if self.resume {
            self.adopt_last(&q)?;
        }
        let set = self.checkpoints.as_ref();
        let from = set.and_then(|set| resume::resume_point(set, &q));
        // Checkpoints are recorded on the first model scored; later sets come from
        // [`Scorer::adopt_last`].
        let run = Run {
            set,
            from,
            capture: self.resume && set.is_none(),
            total_samples: self.samples.len(),
            label_output: self.label_output,
        };
        let mut parts = self.run_parts(&q, &run)?;
        if parts.first().is_some_and(|p| p.from.is_some()) {
            self.resumed += 1;
        }
        if let Some(set) = record(&q, &run, &mut parts) {
            self.checkpoints = Some(set);
        }
        if self.resume {
            self.last = Some((q, from));
        }
        let per_sample: Vec<(f64, usize)> = parts.into_iter().flat_map(|p| p.noise).collect();
        let mut noise = vec![0.0; folds];
        for (k, (n, _)) in per_sample.iter().enumerate() {
            noise[k % folds] += n;
        }
        let correct = (!self.labels.is_empty()).then(|| {
            per_sample
                .iter()
                .zip(&self.labels)
                .filter(|((_, t), l)| t == *l)
                .count()
        });
        let per_sample: Vec<f64> = per_sample.into_iter().map(|(n, _)| n).collect();
        Ok(Score {
            total: sqnr_db(self.signal.iter().sum(), noise.iter().sum()),
            folds: self
                .signal
                .iter()
                .zip(&noise)
                .map(|(&s, &n)| sqnr_db(s, n))
                .collect(),
            noise: per_sample,
            correct,
        })
    }
}

impl Scorer {
    /// Runs `q` on every sample as `run` says, on the scorer's threads, in sample order.
    fn run_parts(&self, q: &Model, run: &Run<'_>) -> Result<Vec<Part>> {
        let threads = self.threads.clamp(1, self.samples.len());
        // (wasm has one thread: the threaded path is not even compiled in there.)
        if threads == 1 || cfg!(target_arch = "wasm32") {
            return Ok(vec![sample_noise(
                q,
                &self.samples,
                &self.reference,
                0,
                run,
            )?]);
        }
        let chunk = self.samples.len().div_ceil(threads);
        let parts: Vec<Result<Part>> = std::thread::scope(|scope| {
            let handles: Vec<_> = self
                .samples
                .chunks(chunk)
                .zip(self.reference.chunks(chunk))
                .enumerate()
                .map(|(k, (samples, reference))| {
                    scope.spawn(move || sample_noise(q, samples, reference, k * chunk, run))
                })
                .collect();
            handles
                .into_iter()
                .map(|h| {
                    h.join().unwrap_or_else(|_| {
                        Err(Error::Quantization {
                            what: "--auto".into(),
                            reason: "a scoring thread panicked".into(),
                        })
                    })
                })
                .collect()
        });
        parts.into_iter().collect()
    }

    /// When the model scored last shares a later checkpoint with `q` than the current set does
    /// (it was kept: the search goes on from it), its checkpoints become the set: it runs
    /// again from where it resumed, recording the arenas after that (a model that is not kept
    /// costs no copies).
    fn adopt_last(&mut self, q: &Model) -> Result<()> {
        let (Some((last, last_from)), Some(set)) = (&self.last, &self.checkpoints) else {
            return Ok(());
        };
        if resume::first_difference(&set.model, last).is_none() {
            return Ok(());
        }
        let ahead = resume::resume_point_from(set, last, q);
        if ahead <= resume::resume_point(set, q) {
            return Ok(());
        }
        let run = Run {
            set: Some(set),
            from: *last_from,
            capture: true,
            total_samples: self.samples.len(),
            label_output: self.label_output,
        };
        let mut parts = self.run_parts(last, &run)?;
        if let Some(adopted) = record(last, &run, &mut parts) {
            self.checkpoints = Some(adopted);
        }
        self.last = None;
        Ok(())
    }
}

/// Natively the machine's parallelism, at most 4; 1 in wasm (no threads there).
fn default_threads() -> usize {
    if cfg!(target_arch = "wasm32") {
        1
    } else {
        std::thread::available_parallelism().map_or(1, |n| n.get().min(4))
    }
}

/// The index of the first largest element (0 for none).
fn top1(values: &[f64]) -> usize {
    let mut best = 0;
    for (i, v) in values.iter().enumerate() {
        if *v > values[best] {
            best = i;
        }
    }
    best
}

/// How a candidate's samples run: from checkpoint `from` of `set` (whose plan digest the
/// candidate's interpreter must have, else from the inputs), capturing its checkpoints.
struct Run<'a> {
    set: Option<&'a Checkpoints>,
    from: Option<usize>,
    /// Whether to record the checkpoints after `from`.
    capture: bool,
    total_samples: usize,
    /// The output whose top-1 class each sample's part records.
    label_output: usize,
}

/// One thread's share of a candidate's scoring.
struct Part {
    /// `Σ (f − q̂)²` and top-1 class of the label output of each sample.
    noise: Vec<(f64, usize)>,
    /// The run's plan digest, checkpoint steps, first step of each operator, and the
    /// checkpoint it resumed from (`None`: from the inputs; no steps: nothing recorded).
    digest: u64,
    steps: Vec<usize>,
    step_of_op: Vec<usize>,
    from: Option<usize>,
    /// The words each checkpoint saves ([`Checkpoints::live`]; empty unless recording).
    live: Vec<Vec<std::ops::Range<usize>>>,
    /// `captured[s][j]`: sample `s`'s live words at the `j`-th checkpoint after `from`.
    captured: Vec<Vec<Vec<u64>>>,
}

/// The checkpoints of `q` from the parts' runs (those before the resumed one shared with the
/// set resumed from); `None` when nothing was recorded.
fn record(q: &Model, run: &Run<'_>, parts: &mut [Part]) -> Option<Checkpoints> {
    let first = parts.first_mut()?;
    if !run.capture || first.steps.is_empty() {
        return None;
    }
    // Every part ran the same plan: the first one's steps and live words are the set's.
    let (digest, from) = (first.digest, first.from);
    let steps = std::mem::take(&mut first.steps);
    let step_of_op = std::mem::take(&mut first.step_of_op);
    let live = std::mem::take(&mut first.live);
    let skip = from.map_or(0, |c| c + 1);
    let mut arenas = Vec::with_capacity(steps.len());
    for c in 0..steps.len() {
        if c < skip {
            arenas.push(Arc::clone(&run.set?.arenas[c]));
        } else {
            let all: Vec<Vec<u64>> = parts
                .iter_mut()
                .flat_map(|p| {
                    p.captured
                        .iter_mut()
                        .map(|s| s.get_mut(c - skip).map(std::mem::take))
                })
                .collect::<Option<_>>()?;
            arenas.push(Arc::new(all));
        }
    }
    Some(Checkpoints {
        model: q.clone(),
        digest,
        step_of_op,
        steps,
        live,
        arenas,
    })
}

/// Runs `q` (shapes applied), prepared once on the fast kernels, on `samples` (the scorer's
/// samples `offset..`) against the float `reference` outputs, from a checkpoint where `run`
/// has one with `q`'s plan ([`resume`]).
fn sample_noise(
    q: &Model,
    samples: &[Vec<Vec<f32>>],
    reference: &[Vec<Vec<f64>>],
    offset: usize,
    run: &Run<'_>,
) -> Result<Part> {
    let mut qi = Interpreter::with_options(q, &Limits::default(), KernelSet::Fast)?;
    let digest = qi.plan_digest();
    // (Without resuming there is neither a set nor a capture: a whole run.)
    let resumable = resume::shareable(q) && !qi.has_variables();
    let (steps, from) = match run.set {
        _ if !resumable => (Vec::new(), None),
        Some(set) if set.digest == digest => (set.steps.clone(), run.from),
        // A new set is placed only when one is recorded.
        _ if run.capture => (
            resume::place(
                &resume::step_costs(q, &qi),
                |p| qi.live_words(p).iter().map(|r| r.len()).sum(),
                run.total_samples,
            ),
            None,
        ),
        _ => (Vec::new(), None),
    };
    let resumed = from.and_then(|c| Some((steps[c], run.set?)));
    // The words each checkpoint saves (the set's when resuming from it: the same plan).
    let placed: Vec<Vec<std::ops::Range<usize>>>;
    let live: &[Vec<std::ops::Range<usize>>] = match run.set {
        Some(set) if set.digest == digest => &set.live,
        _ => {
            placed = steps.iter().map(|&p| qi.live_words(p)).collect();
            &placed
        }
    };
    let step_of_op = if steps.is_empty() || !run.capture {
        Vec::new()
    } else {
        let ops = q.subgraphs.first().map_or(0, |sg| sg.operators.len());
        (0..=ops).map(|k| qi.first_step_from_op(k)).collect()
    };
    let mut noise = Vec::with_capacity(samples.len());
    let mut captured = Vec::with_capacity(samples.len());
    for (k, (sample, reference)) in samples.iter().zip(reference).enumerate() {
        let start = match (resumed, from) {
            (Some((step, set)), Some(c)) => {
                qi.load_words(&live[c], &set.arenas[c][offset + k])?;
                step
            }
            _ => {
                for (i, x) in sample.iter().enumerate() {
                    set_input_real(&mut qi, q, i, x)?;
                }
                0
            }
        };
        let mut caps = Vec::new();
        let capture_at: &[usize] = if run.capture { &steps } else { &[] };
        qi.invoke_from(start, capture_at, &mut |j, words| {
            caps.push(resume::pack(words, &live[j]));
        })?;
        captured.push(caps);
        let got = outputs(&qi, q)?;
        if got.len() != reference.len() {
            return Err(mismatch(
                "outputs",
                reference.len().to_string(),
                got.len().to_string(),
            ));
        }
        let mut sum = 0.0;
        for (o, (g, r)) in got.iter().zip(reference).enumerate() {
            if g.len() != r.len() {
                return Err(mismatch(
                    &format!("output {o}"),
                    format!("{} elements", r.len()),
                    format!("{} elements", g.len()),
                ));
            }
            sum += g.iter().zip(r).map(|(g, f)| (f - g) * (f - g)).sum::<f64>();
        }
        noise.push((sum, got.get(run.label_output).map_or(0, |o| top1(o))));
    }
    Ok(Part {
        noise,
        digest,
        steps,
        step_of_op,
        from,
        // Kept for `record` only when checkpoints are recorded.
        live: if run.capture {
            live.to_vec()
        } else {
            Vec::new()
        },
        captured,
    })
}

/// `10·log10(signal / noise)`; infinite when there is no noise, `−∞` for non-finite noise.
pub fn sqnr_db(signal: f64, noise: f64) -> f64 {
    if noise == 0.0 {
        f64::INFINITY
    } else if !noise.is_finite() {
        f64::NEG_INFINITY
    } else {
        10.0 * (signal / noise).log10()
    }
}

fn mismatch(what: &str, expected: String, got: String) -> Error {
    Error::TensorMismatch {
        what: format!("quantized model {what}"),
        tensor: String::new(),
        expected,
        got,
    }
}

/// Every graph output of `interp` (prepared from `model`) as real numbers.
fn outputs(interp: &Interpreter, model: &Model) -> Result<Vec<Vec<f64>>> {
    (0..interp.outputs().len())
        .map(|o| {
            let view = interp.output(o)?;
            let id = interp.outputs()[o].id.0;
            real_values(&view, per_tensor_params(model, interp.subgraph(), id)).ok_or_else(|| {
                Error::TensorMismatch {
                    what: format!("output {o}"),
                    tensor: view.name.to_string(),
                    expected: "FLOAT32 or a per-tensor quantized integer type".into(),
                    got: format!("{:?}", view.dtype),
                }
            })
        })
        .collect()
}
