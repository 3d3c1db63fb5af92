//! The measure every `--auto` decision is taken on: the SQNR of a quantized model's outputs
//! against the float model's, over a fixed set of float samples.
//!
//! `SQNR = 10·log10(Σ f² / Σ (f − q̂)²)` summed over every element of every graph output and every
//! sample (`q̂` the quantized output dequantized with its own scale and zero point), the same
//! definition as the zoo's and the quality table's (`tests/tools/zoo/measure.py`). The float
//! outputs are computed once, on the calibration kernels ([`CALIBRATION_KERNELS`]); each
//! candidate runs on the fast integer kernels (bit-identical to LiteRT's reference kernels), so
//! the score is what LiteRT would give.

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
    signal: f64,
    evaluations: usize,
}

impl Scorer {
    /// Runs `float` (with `shapes` applied) on every sample (`samples[s][i]` = values of input
    /// `i`) and keeps its outputs.
    ///
    /// # Errors
    /// [`Error::Quantization`] without samples or when the float outputs are all zero (no SQNR
    /// can be measured); what the engine refuses.
    pub fn new(float: &Model, samples: &[Vec<Vec<f32>>], shapes: &ShapeOverrides) -> Result<Self> {
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
        let signal: f64 = reference.iter().flatten().flatten().map(|f| f * f).sum();
        if signal == 0.0 || !signal.is_finite() {
            return Err(Error::Quantization {
                what: "--auto".into(),
                reason: "the float model's outputs are all zero on the calibration samples: no \
                         output error can be measured"
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

    /// The output SQNR in dB of `quant` (`f64::INFINITY` when its outputs equal the float
    /// model's).
    ///
    /// # Errors
    /// What the engine refuses when preparing or running `quant`; [`Error::TensorMismatch`] if
    /// its outputs do not have the float model's sizes.
    pub fn score(&mut self, quant: &Model) -> Result<f64> {
        self.evaluations += 1;
        let mut q = quant.clone();
        self.shapes.apply(&mut q)?;
        let mut qi = Interpreter::with_options(&q, &Limits::default(), KernelSet::Fast)?;
        let mut noise = 0.0;
        for (sample, reference) in self.samples.iter().zip(&self.reference) {
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
                noise += g.iter().zip(r).map(|(g, f)| (f - g) * (f - g)).sum::<f64>();
            }
        }
        Ok(sqnr_db(self.signal, noise))
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
