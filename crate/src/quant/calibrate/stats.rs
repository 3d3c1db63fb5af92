//! What calibration produces: [`TensorStats`] per tensor and [`CalibrationStats`] per model
//! (what `zeropoint calibrate` writes and the page shows; [`TensorStats::with_method`] chooses
//! the ranges again by another method), [`InputDesc`] for the page, and `TensorAcc`, the
//! running statistics of one tensor inside the calibrator (TF's min/max, true extremes, moving
//! average, histogram: a [`TensorState`]) and the sample being recorded.

use serde::{Deserialize, Serialize};

use super::histogram::{HISTOGRAM_BINS, Histogram, PendingBins};
use super::method::{Method, choose_range};
use super::state::TensorState;
use crate::engine::TensorDesc;
use crate::error::{Error, Result};
use crate::graph::dtype::dtype_name;

/// Weight of the old average in the moving-average min/max (AI Edge Quantizer's default
/// `smoothing_factor`).
pub const MOVING_AVERAGE_SMOOTHING: f64 = 0.95;

/// What TF's `MinMax` starts its running max at (`std::numeric_limits<float>::min()`).
pub const TF_MAX_START: f32 = f32::MIN_POSITIVE;

/// Memory one float tensor's statistics take while calibrating (its histogram, this sample's
/// bin counts, the extremes): fixed, whatever the data. The calibrator refuses a model whose
/// float tensors would need more than the arena limit in all (a chain of 100,000 TANH ops
/// aborted out of memory after 12 s).
pub const STATS_BYTES_PER_TENSOR: usize =
    HISTOGRAM_BINS * (size_of::<u64>() + size_of::<u32>()) + size_of::<TensorAcc>();

/// The statistics of one tensor and the range chosen for it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
pub struct TensorStats {
    /// Tensor index in its subgraph ([`TensorStats::subgraph`]).
    pub index: usize,
    /// The subgraph the tensor is in: 0, or a subgraph WHILE / IF run (then listed in
    /// [`CalibrationStats::nested`]); absent in files of single-subgraph models.
    #[serde(default, skip_serializing_if = "is_zero")]
    #[cfg_attr(feature = "wasm", tsify(optional))]
    pub subgraph: usize,
    /// Tensor name.
    pub name: String,
    /// Global minimum over all samples, as TF's calibrator records it.
    pub min: f32,
    /// Global maximum over all samples, as TF's calibrator records it (never below
    /// [`TF_MAX_START`]).
    pub max: f32,
    /// Lower end of the range chosen by `method`.
    pub chosen_min: f32,
    /// Upper end of the range chosen by `method`.
    pub chosen_max: f32,
    /// The method that chose the range (`minmax`, `percentile:99.99`, `mse`, `moving-average`).
    pub method: String,
    /// The value distribution over all samples.
    pub histogram: Histogram,
    /// True smallest value seen (`min` without TF's start value); absent in older files.
    #[serde(default)]
    pub true_min: Option<f32>,
    /// True largest value seen (`max` may be TF's start value [`TF_MAX_START`]).
    #[serde(default)]
    pub true_max: Option<f32>,
    /// Moving-average `[min, max]` over the per-sample extremes (what `moving-average` chooses).
    #[serde(default)]
    pub moving_average: Option<[f32; 2]>,
}

impl TensorStats {
    /// The same statistics with the range chosen again by `method`, from what the statistics
    /// keep (histogram, extremes, moving average): how `quantize --stats S --calibration M` and
    /// the page switch methods without recalibrating. `moving-average` needs the per-sample
    /// average a statistics file written by this version carries.
    pub fn with_method(&self, method: Method) -> Result<TensorStats> {
        method.check()?;
        let true_min = self.true_min.unwrap_or(self.min);
        let true_max = self.true_max.unwrap_or(self.max);
        let ma = match (method, self.moving_average) {
            (Method::MovingAverage, None) => {
                return Err(Error::Calibration {
                    reason: format!(
                        "tensor '{}': the statistics carry no moving average (written by an \
                         older version): recalibrate to use moving-average",
                        self.name
                    ),
                });
            }
            (_, m) => m.unwrap_or([true_min, true_max]),
        };
        let (chosen_min, chosen_max) = choose_range(
            method,
            &self.histogram,
            (self.min, self.max),
            (true_min, true_max),
            (f64::from(ma[0]), f64::from(ma[1])),
        );
        Ok(TensorStats {
            chosen_min,
            chosen_max,
            method: method.to_string(),
            ..self.clone()
        })
    }
}

/// Calibration statistics of a model: what `zeropoint calibrate` writes and the page shows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
pub struct CalibrationStats {
    /// Number of samples recorded.
    pub samples: usize,
    /// One entry per float tensor of subgraph 0 the model computes or takes as input, by tensor
    /// index.
    pub tensors: Vec<TensorStats>,
    /// The float tensors inside the subgraphs WHILE and IF run, by subgraph then tensor index;
    /// a tensor of a loop body is recorded at every iteration (TF's calibrator keys its
    /// statistics by subgraph and tensor and updates them at every invocation of an operator).
    /// Empty, and absent from the file, for single-subgraph models.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(feature = "wasm", tsify(optional))]
    pub nested: Vec<TensorStats>,
}

/// Whether a subgraph index is 0 (serde's skip test for [`TensorStats::subgraph`]).
fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl CalibrationStats {
    /// Every tensor's range chosen again by `method` ([`TensorStats::with_method`]).
    pub fn with_method(&self, method: Method) -> Result<CalibrationStats> {
        Ok(CalibrationStats {
            samples: self.samples,
            tensors: self
                .tensors
                .iter()
                .map(|t| t.with_method(method))
                .collect::<Result<_>>()?,
            nested: self
                .nested
                .iter()
                .map(|t| t.with_method(method))
                .collect::<Result<_>>()?,
        })
    }
}

/// Name, shape and element type of a model input, as the page sees it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
pub struct InputDesc {
    /// Tensor name.
    pub name: String,
    /// Shape.
    pub shape: Vec<usize>,
    /// Element type (`FLOAT32`, …).
    pub dtype: String,
}

impl From<&TensorDesc> for InputDesc {
    fn from(d: &TensorDesc) -> Self {
        InputDesc {
            name: d.name.clone(),
            shape: d.shape.clone(),
            dtype: dtype_name(d.dtype),
        }
    }
}

/// One tensor inside the calibrator: its [`TensorState`] and the sample being recorded.
#[derive(Debug, Clone)]
pub(super) struct TensorAcc {
    pub(super) state: TensorState,
    /// This sample's bin counts, merged into the histogram when the sample succeeds.
    pub(super) pending: PendingBins,
    /// This sample's extremes.
    pub(super) s_min: f32,
    pub(super) s_max: f32,
    /// This sample's extremes of what TF's calibrator also recorded under this tensor (the
    /// output of an operator that overwrote it in place); `±inf` when nothing.
    pub(super) s_alias_min: f32,
    pub(super) s_alias_max: f32,
    /// Whether the current sample has recorded this tensor already (a loop body's tensors are
    /// recorded at every iteration).
    pub(super) in_sample: bool,
}

impl TensorAcc {
    pub(super) fn new(subgraph: usize, index: usize, name: &str, keep_extremes: bool) -> Self {
        TensorAcc {
            state: TensorState::new(subgraph, index, name, keep_extremes),
            pending: PendingBins::new(HISTOGRAM_BINS),
            s_min: 0.0,
            s_max: 0.0,
            s_alias_min: f32::INFINITY,
            s_alias_max: f32::NEG_INFINITY,
            in_sample: false,
        }
    }

    /// The accumulator continuing `state`.
    pub(super) fn from_state(state: TensorState) -> Self {
        TensorAcc {
            state,
            ..TensorAcc::new(0, 0, "", false)
        }
    }

    pub(super) fn commit(&mut self) {
        self.in_sample = false;
        let t = &mut self.state;
        t.min = t.min.min(self.s_min).min(self.s_alias_min);
        t.max = t.max.max(self.s_max).max(self.s_alias_max);
        t.true_min = t.true_min.min(self.s_min);
        t.true_max = t.true_max.max(self.s_max);
        t.step(self.s_min, self.s_max);
        t.hist.commit(&mut self.pending);
    }

    pub(super) fn discard(&mut self) {
        self.in_sample = false;
        self.pending.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::quant::calibrate::Calibrator;
    use crate::quant::calibrate::test_models::{add_relu, by_name};

    #[test]
    fn all_negative_tensor_gets_tf_max_start() {
        let mut cal = Calibrator::new(&add_relu([-10.0; 4])).expect("prepares");
        cal.set_input(0, &[-1.0, -2.0, -3.0, -4.0]).expect("fits");
        cal.add_sample().expect("finite");
        let s = cal.stats(Method::MinMax).expect("stats");
        let x = by_name(&s, "x");
        assert_eq!(x.min, -4.0);
        assert_eq!(
            x.max,
            f32::MIN_POSITIVE,
            "TF's MinMax starts max at FLT_MIN"
        );
        let p = cal.stats(Method::Percentile(100.0)).expect("stats");
        assert_eq!(
            by_name(&p, "x").chosen_max,
            -1.0,
            "percentile uses the true extremes"
        );
    }

    #[test]
    fn moving_average_on_a_known_sequence() {
        let mut cal = Calibrator::new(&add_relu([0.0; 4])).expect("prepares");
        let seq = [(-1.0f32, 1.0f32), (-3.0, 5.0), (0.0, 2.0)];
        for &(lo, hi) in &seq {
            cal.set_input(0, &[lo, hi, lo, hi]).expect("fits");
            cal.add_sample().expect("finite");
        }
        let s = cal.stats(Method::MovingAverage).expect("stats");
        let x = by_name(&s, "x");
        let (mut mn, mut mx) = (-1.0f64, 1.0f64);
        for &(lo, hi) in &seq[1..] {
            mn = 0.95 * mn + 0.05 * f64::from(lo);
            mx = 0.95 * mx + 0.05 * f64::from(hi);
        }
        assert_eq!((x.chosen_min, x.chosen_max), (mn as f32, mx as f32));
        assert!((x.chosen_min - -1.045).abs() < 1e-6, "{}", x.chosen_min);
        assert_eq!(x.method, "moving-average");
    }

    #[test]
    fn stats_serialise_with_snake_case_fields() {
        let mut cal = Calibrator::new(&add_relu([0.0; 4])).expect("prepares");
        cal.set_input(0, &[1.0, 2.0, 3.0, 4.0]).expect("fits");
        cal.add_sample().expect("finite");
        let s = cal.stats(Method::MinMax).expect("stats");
        let json = serde_json::to_string(&s).expect("json");
        for field in [
            "\"samples\"",
            "\"chosen_min\"",
            "\"chosen_max\"",
            "\"histogram\"",
            "\"counts\"",
        ] {
            assert!(json.contains(field), "{field} in {json}");
        }
        let back: CalibrationStats = serde_json::from_str(&json).expect("parses back");
        assert_eq!(back, s);
    }
}
