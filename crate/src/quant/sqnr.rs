//! The error the quantization causes, for the report: the quantized model and the float model
//! run side by side on the first [`ERROR_SAMPLES`] calibration samples, and per tensor (matched
//! by name) and per operator output the SQNR in dB and the largest absolute error in float units
//! ([`crate::engine::compare`]).
//!
//! The float model runs on the calibration kernels ([`CALIBRATION_KERNELS`], the arithmetic the
//! ranges were recorded with, the same on every platform), the quantized model on the fast
//! kernels (bit-identical to LiteRT's reference kernels), so `zeropoint quantize --data … --report`
//! and the page write the same numbers for the same samples.

use super::calibrate::CALIBRATION_KERNELS;
use super::report::{OpError, Report};
use crate::engine::compare::compare_models_kernels;
use crate::error::Result;
use crate::graph::Model;
use crate::kernels::KernelSet;

/// How many calibration samples (the first ones) the report's errors are measured on.
pub const ERROR_SAMPLES: usize = 16;

/// The first [`ERROR_SAMPLES`] calibration samples, kept while calibrating: set the inputs of a
/// sample, then [`ErrorSamples::commit`] it once the calibrator accepted it (or
/// [`ErrorSamples::discard`] it).
#[derive(Debug, Clone, Default)]
pub struct ErrorSamples {
    pending: Vec<Option<Vec<f32>>>,
    kept: Vec<Vec<Vec<f32>>>,
    /// Samples kept beyond [`ERROR_SAMPLES`] (for `--auto`), `0` for the default.
    limit: usize,
}

impl ErrorSamples {
    /// Nothing kept yet.
    pub fn new() -> Self {
        ErrorSamples::default()
    }

    /// Keeps up to `limit` samples (at least [`ERROR_SAMPLES`]); the report's errors are still
    /// measured on the first [`ERROR_SAMPLES`].
    pub fn with_limit(limit: usize) -> Self {
        ErrorSamples {
            limit,
            ..ErrorSamples::default()
        }
    }

    /// How many samples it keeps: the limit, at least [`ERROR_SAMPLES`].
    pub fn cap(&self) -> usize {
        self.limit.max(ERROR_SAMPLES)
    }

    /// The samples kept (`[sample][input]`).
    pub fn samples(&self) -> &[Vec<Vec<f32>>] {
        &self.kept
    }

    /// Input `i` of the sample being built (copied only while fewer than [`ERROR_SAMPLES`] are
    /// kept).
    pub fn set_input(&mut self, i: usize, values: &[f32]) {
        if self.kept.len() >= self.cap() {
            return;
        }
        if self.pending.len() <= i {
            self.pending.resize(i + 1, None);
        }
        self.pending[i] = Some(values.to_vec());
    }

    /// The sample built since the last commit was accepted: keep it (if every input was set).
    pub fn commit(&mut self) {
        let pending = std::mem::take(&mut self.pending);
        if self.kept.len() < self.cap()
            && !pending.is_empty()
            && let Some(sample) = pending.into_iter().collect::<Option<Vec<_>>>()
        {
            self.kept.push(sample);
        }
    }

    /// The sample built since the last commit was refused: forget it.
    pub fn discard(&mut self) {
        self.pending.clear();
    }

    /// Measures `quant` against `float` on the kept samples and writes the errors into `report`
    /// (nothing when no sample was kept).
    ///
    /// # Errors
    /// What the engine refuses when preparing or running either model.
    pub fn measure(&self, float: &Model, quant: &Model, report: &mut Report) -> Result<()> {
        if self.kept.is_empty() {
            return Ok(());
        }
        let errors = compare_models_kernels(
            float,
            quant,
            &self.kept[..self.kept.len().min(ERROR_SAMPLES)],
            CALIBRATION_KERNELS,
            KernelSet::Fast,
        )?;
        let finite = |v: f64| v.is_finite().then_some(v);
        for e in &errors {
            if let Some(t) = report
                .tensors
                .iter_mut()
                .find(|t| t.index == e.quant_tensor)
            {
                t.sqnr_db = finite(e.sqnr_db);
                t.max_abs_error = Some(e.max_abs_error);
            }
        }
        report.op_errors.clear();
        if let Some(sg) = quant.subgraphs.first() {
            for (i, op) in sg.operators.iter().enumerate() {
                let Some(out) = op.output(0) else { continue };
                let Some(e) = errors.iter().find(|e| e.quant_tensor == out) else {
                    continue;
                };
                report.op_errors.push(OpError {
                    index: i,
                    op: op.code.name(),
                    output: e.name.clone(),
                    sqnr_db: finite(e.sqnr_db),
                    max_abs_error: e.max_abs_error,
                });
            }
        }
        report.error_samples = self.kept.len().min(ERROR_SAMPLES);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_first_complete_samples() {
        let mut e = ErrorSamples::new();
        e.set_input(0, &[1.0]);
        e.discard();
        e.set_input(1, &[2.0]);
        e.commit(); // input 0 missing: not kept
        assert!(e.samples().is_empty());
        for s in 0..ERROR_SAMPLES + 3 {
            e.set_input(0, &[s as f32]);
            e.commit();
        }
        assert_eq!(e.samples().len(), ERROR_SAMPLES);
        assert_eq!(
            e.samples()[ERROR_SAMPLES - 1],
            vec![vec![(ERROR_SAMPLES - 1) as f32]]
        );
    }
}
