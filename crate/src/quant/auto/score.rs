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

use crate::engine::compare::{per_tensor_params, real_values, set_input_real};
use crate::engine::{Interpreter, Limits};
use crate::error::{Error, Result};
use crate::graph::{Model, ShapeOverrides};
use crate::kernels::KernelSet;
use crate::quant::calibrate::CALIBRATION_KERNELS;

/// Float reference outputs of a set of samples, and the scoring of quantized candidates on them.
pub struct Scorer {
    samples: Vec<Vec<Vec<f32>>>,
    shapes: ShapeOverrides,
    /// `[sample][output]` float outputs.
    reference: Vec<Vec<Vec<f64>>>,
    /// `Σ f²` per fold.
    signal: Vec<f64>,
    evaluations: usize,
}

/// A candidate's output SQNR in dB: over all samples, and per fold.
#[derive(Debug, Clone, PartialEq)]
pub struct Score {
    /// Over every sample.
    pub total: f64,
    /// Fold `f`: the samples `k` with `k mod folds == f`.
    pub folds: Vec<f64>,
}

impl Score {
    /// Whether `self` is strictly better than `other` on every fold (and so in total too, up to
    /// rounding: checked as well). Equal infinite scores (exact outputs) are not better.
    pub fn beats(&self, other: &Score) -> bool {
        self.folds.len() == other.folds.len()
            && self.total > other.total
            && self.folds.iter().zip(&other.folds).all(|(a, b)| a > b)
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
                fi.set_input_f32(i, x)?;
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
        })
    }

    /// Number of samples scored on.
    pub fn samples(&self) -> usize {
        self.samples.len()
    }

    /// Number of candidate models scored so far.
    pub fn evaluations(&self) -> usize {
        self.evaluations
    }

    /// The output SQNR in dB of `quant`, in total and per fold (`f64::INFINITY` when its
    /// outputs equal the float model's).
    ///
    /// # Errors
    /// What the engine refuses when preparing or running `quant`; [`Error::TensorMismatch`] if
    /// its outputs do not have the float model's sizes.
    pub fn score(&mut self, quant: &Model) -> Result<Score> {
        self.evaluations += 1;
        let mut q = quant.clone();
        self.shapes.apply(&mut q)?;
        let mut qi = Interpreter::with_options(&q, &Limits::default(), KernelSet::Fast)?;
        let folds = self.signal.len();
        let mut noise = vec![0.0; folds];
        for (k, (sample, reference)) in self.samples.iter().zip(&self.reference).enumerate() {
            for (i, x) in sample.iter().enumerate() {
                set_input_real(&mut qi, &q, i, x)?;
            }
            qi.invoke()?;
            let got = outputs(&qi, &q)?;
            if got.len() != reference.len() {
                return Err(mismatch(
                    "outputs",
                    reference.len().to_string(),
                    got.len().to_string(),
                ));
            }
            for (o, (g, r)) in got.iter().zip(reference).enumerate() {
                if g.len() != r.len() {
                    return Err(mismatch(
                        &format!("output {o}"),
                        format!("{} elements", r.len()),
                        format!("{} elements", g.len()),
                    ));
                }
                noise[k % folds] += g.iter().zip(r).map(|(g, f)| (f - g) * (f - g)).sum::<f64>();
            }
        }
        Ok(Score {
            total: sqnr_db(self.signal.iter().sum(), noise.iter().sum()),
            folds: self
                .signal
                .iter()
                .zip(&noise)
                .map(|(&s, &n)| sqnr_db(s, n))
                .collect(),
        })
    }
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
