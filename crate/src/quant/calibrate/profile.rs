//! Where the time of calibration goes: [`CalibrationProfile`], per operator type and for the
//! statistics recording, filled by profiled samples.

use serde::{Deserialize, Serialize};

/// Where the time of profiled samples
/// ([`Calibrator::add_sample_profiled`](super::Calibrator::add_sample_profiled)) went: the
/// float kernels per operator type, and the statistics recording (min/max scan and histogram)
/// of every tensor. Times are in the clock's unit (milliseconds in the page).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
pub struct CalibrationProfile {
    /// Samples profiled.
    pub samples: usize,
    /// Per operator type, in order of first appearance.
    pub ops: Vec<OpTime>,
    /// Recording the statistics of every tensor (scan, histogram binning, commit).
    pub record: f64,
    /// The whole of `add_sample` (kernels + recording + the rest).
    pub total: f64,
}

/// Time spent in the kernels of one operator type.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
pub struct OpTime {
    /// Operator type (`CONV_2D`, …).
    pub op: String,
    /// Kernels of this type run (over all profiled samples).
    pub kernels: usize,
    /// Time in them.
    pub time: f64,
}

impl CalibrationProfile {
    pub(super) fn add_op(&mut self, op: &str, time: f64) {
        match self.ops.iter_mut().find(|o| o.op == op) {
            Some(o) => {
                o.kernels += 1;
                o.time += time;
            }
            None => self.ops.push(OpTime {
                op: op.to_string(),
                kernels: 1,
                time,
            }),
        }
    }
}

/// The clock and the profile a profiled sample records into.
pub(super) type Profiling<'a> = (&'a mut dyn FnMut() -> f64, &'a mut CalibrationProfile);
