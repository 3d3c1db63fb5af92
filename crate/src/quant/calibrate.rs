//! Calibration: stream samples through the float engine and record, for every float tensor the
//! model computes (graph inputs included, constants skipped), the statistics the quantizer needs.
//!
//! Per tensor, over all recorded samples:
//!
//! - **Global min/max exactly as TF's calibrator records them.** TF's logging interpreter
//!   (`tensorflow/lite/tools/optimize/calibration/`) logs every FLOAT32 input and output of every
//!   operator that has no constant buffer, and its `MinMax` keeps `min = min(min, x)` and
//!   `max = max(max, x)` in `float` over every invocation, starting from `min = FLT_MAX` and
//!   `max = FLT_MIN` — the smallest *positive* normal float, not the most negative one. So a
//!   tensor that is never positive is recorded with max = 1.1754944e-38; [`TensorStats::max`]
//!   reproduces that (it only matters for all-non-positive tensors, whose quantized range
//!   includes 0 anyway). TF skips NaN with a warning; we refuse NaN and ±Inf with
//!   [`Error::NonFinite`], naming the sample and the input or the first tensor where it appears.
//! - **TF's in-place aliasing.** LiteRT's arena planner (`ArenaPlanner::IdentifyInPlaceTensors`)
//!   lets an operator whose registration allows it write its output over an input's buffer, and
//!   TF's calibrator then records that input with the values the buffer holds after the operator
//!   ran: the input's min/max becomes the union of its own and the output's. [`tf_inplace_inputs`]
//!   reproduces the planner's choice (ADD, SUB, MUL, DIV on input 0 or 1, SOFTMAX on input 0;
//!   RESHAPE's data-unmodified sharing chains; the input must not be a graph input, the output not
//!   a graph output, both the same size and larger than 4 bytes, and the input — and the buffer it
//!   lives in — read by this operator only). Only the TF min/max ([`TensorStats::min`] /
//!   [`TensorStats::max`]) see it; the histogram, the true extremes and the moving average keep
//!   the tensor's own values.
//! - **A histogram of bounded size** ([`HISTOGRAM_BINS`] bins) for display and for percentile
//!   and MSE range selection, whatever the number of samples: see [`GrowingHistogram`].
//! - **Moving-average min/max**: the per-sample min and max, smoothed as AI Edge Quantizer's
//!   `moving_average_update` does: the first sample's value, then
//!   `avg = s·avg + (1 − s)·new` with `s =` [`MOVING_AVERAGE_SMOOTHING`] (0.95).
//!
//! A sample is recorded all or nothing: its histogram counts are binned into a per-tensor
//! pending buffer and merged only when every tensor of the sample was finite, so a failing sample
//! leaves the statistics as they were (except that a histogram's range may have grown, which
//! keeps every count).
//!
//! Nothing here touches the file system: the same code runs in the browser (the wasm
//! `Calibrator`) and in the CLI (`zeropoint calibrate`).

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::engine::{Interpreter, KernelSet, Limits, TensorDesc, TensorId, TensorView};
use crate::error::{Error, Result};
use crate::graph::{Model, TensorType};
use crate::quant::observe::{self, scan};
use crate::tflite::types::dtype_name;

/// Bins per tensor histogram (as TensorRT's entropy/percentile calibrators use).
pub const HISTOGRAM_BINS: usize = 2048;

/// Weight of the old average in the moving-average min/max (AI Edge Quantizer's default
/// `smoothing_factor`).
pub const MOVING_AVERAGE_SMOOTHING: f64 = 0.95;

/// Number of candidate ranges the MSE search tries (shrink factors `k / MSE_CANDIDATES`).
pub const MSE_CANDIDATES: usize = 128;

/// Quantization steps over a range in the MSE error model (int8: 256 levels).
const MSE_STEPS: f64 = 255.0;

/// What TF's `MinMax` starts its running max at (`std::numeric_limits<float>::min()`).
pub const TF_MAX_START: f32 = f32::MIN_POSITIVE;

/// The kernels [`Calibrator::new`] runs: LiteRT's optimized float kernels' arithmetic, which TF's
/// calibrator runs, so min/max equal TF's bit for bit (reference kernels differ in the last bits
/// of conv, FC, softmax, … outputs).
pub const CALIBRATION_KERNELS: KernelSet = KernelSet::LiteRtOptimized;

/// How a tensor's range is chosen from its statistics.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Method {
    /// Global min/max over all samples (TF's calibrator).
    MinMax,
    /// The histogram's `(100 − p)`-th and `p`-th percentiles, `50 ≤ p ≤ 100`: the outer edges of
    /// the bins where they fall, clamped to the min/max (so at most one bin wider than exact).
    Percentile(f64),
    /// The range (shrunk towards 0 from the min/max) minimising the expected squared int8
    /// quantization error over the histogram, clipping included.
    Mse,
    /// Moving-average min/max over the per-sample extremes.
    MovingAverage,
}

impl Method {
    /// Parses `minmax`, `percentile:P` (`50 ≤ P ≤ 100`), `mse` or `moving-average`.
    pub fn parse(text: &str) -> Result<Method> {
        let t = text.trim();
        let m = match t {
            "minmax" | "min-max" => Method::MinMax,
            "mse" => Method::Mse,
            "moving-average" | "moving_average" => Method::MovingAverage,
            _ => match t.strip_prefix("percentile:") {
                Some(p) => {
                    Method::Percentile(p.trim().parse::<f64>().map_err(|_| Error::Calibration {
                        reason: format!("percentile '{p}' is not a number"),
                    })?)
                }
                None => {
                    return Err(Error::Calibration {
                        reason: format!(
                            "unknown method '{text}': expected minmax, percentile:P, mse or \
                             moving-average"
                        ),
                    });
                }
            },
        };
        m.check()?;
        Ok(m)
    }

    fn check(&self) -> Result<()> {
        if let Method::Percentile(p) = *self
            && !(50.0..=100.0).contains(&p)
        {
            return Err(Error::Calibration {
                reason: format!("percentile {p} is outside [50, 100]"),
            });
        }
        Ok(())
    }
}

impl std::str::FromStr for Method {
    type Err = Error;
    fn from_str(s: &str) -> Result<Method> {
        Method::parse(s)
    }
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Method::MinMax => write!(f, "minmax"),
            Method::Percentile(p) => write!(f, "percentile:{p}"),
            Method::Mse => write!(f, "mse"),
            Method::MovingAverage => write!(f, "moving-average"),
        }
    }
}

/// A histogram snapshot: `counts.len()` equal bins over `[lo, hi)`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
pub struct Histogram {
    /// Lower edge of the first bin.
    pub lo: f64,
    /// Upper edge of the last bin.
    pub hi: f64,
    /// Values per bin (empty leading and trailing bins are trimmed).
    pub counts: Vec<u64>,
}

impl Histogram {
    /// Total number of values.
    pub fn total(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// Width of one bin (0 for an empty histogram).
    pub fn bin_width(&self) -> f64 {
        if self.counts.is_empty() {
            0.0
        } else {
            (self.hi - self.lo) / self.counts.len() as f64
        }
    }

    /// The bin where the cumulative count reaches a fraction `q` (0..=1) of all values. `None`
    /// for an empty histogram.
    pub fn bin_at(&self, q: f64) -> Option<usize> {
        let total = self.total();
        if total == 0 {
            return None;
        }
        let target = q.clamp(0.0, 1.0) * total as f64;
        let mut before = 0.0f64;
        for (i, &c) in self.counts.iter().enumerate() {
            before += c as f64;
            if c > 0 && before >= target {
                return Some(i);
            }
        }
        Some(self.counts.len() - 1)
    }

    /// The value below which a fraction `q` (0..=1) of the values lie, interpolating linearly
    /// inside the bin where it falls. `None` for an empty histogram.
    pub fn quantile(&self, q: f64) -> Option<f64> {
        let total = self.total();
        if total == 0 {
            return None;
        }
        let target = q.clamp(0.0, 1.0) * total as f64;
        let w = self.bin_width();
        let mut before = 0.0f64;
        for (i, &c) in self.counts.iter().enumerate() {
            let c = c as f64;
            if c > 0.0 && before + c >= target {
                let frac = ((target - before) / c).clamp(0.0, 1.0);
                return Some(self.lo + (i as f64 + frac) * w);
            }
            before += c;
        }
        Some(self.hi)
    }
}

/// A histogram of fixed size whose range grows by merging bins, so memory stays bounded
/// however many values it sees (the scheme of ONE's and TensorRT's histogram calibrators, here
/// with exact merges).
///
/// The first values set the range: `[min, max]` spread over `bins − 1` bins (so the max falls
/// strictly inside the last bin), or a span of `max(|v|/128, 1e-6)` centred on `v` when all are
/// equal. A value outside the range grows it: the bin width is multiplied by the smallest power
/// of two `F ≥ 2` that covers the old range and the new values, keeping the upper edge when only
/// the low side grows, else the lower edge (moved down by a whole number `a` of old bins when
/// both sides grow). Every new bin edge is an old bin edge, so old bin `i` goes entirely into
/// new bin `⌊(i + a) / F⌋`: every count is kept exactly. Since each growth at most doubles the
/// range beyond what the data needs, the range stays within about 4× the data's span (the
/// resolution within 4× of `span / bins`). Edges are kept in `f64`.
#[derive(Debug, Clone, PartialEq)]
pub struct GrowingHistogram {
    lo: f64,
    /// Bin width; 0 until the first value.
    width: f64,
    counts: Vec<u64>,
}

impl GrowingHistogram {
    /// An empty histogram of `bins` bins (at least 2).
    pub fn new(bins: usize) -> Self {
        GrowingHistogram {
            lo: 0.0,
            width: 0.0,
            counts: vec![0; bins.max(2)],
        }
    }

    /// Number of bins (fixed).
    pub fn bins(&self) -> usize {
        self.counts.len()
    }

    /// Lower edge of the first bin.
    pub fn lo(&self) -> f64 {
        self.lo
    }

    /// Upper edge of the last bin.
    pub fn hi(&self) -> f64 {
        self.lo + self.width * self.counts.len() as f64
    }

    /// The counts per bin.
    pub fn counts(&self) -> &[u64] {
        &self.counts
    }

    /// Total number of values added.
    pub fn total(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// Grows the range (merging bins, keeping every count) until it covers `[min, max]`.
    /// Both must be finite.
    pub fn cover(&mut self, min: f64, max: f64) {
        let b = self.counts.len() as f64;
        if self.width == 0.0 {
            if max > min {
                self.width = (max - min) / (b - 1.0);
                self.lo = min;
            } else {
                let span = (min.abs() / 128.0).max(1e-6);
                self.width = span / b;
                self.lo = min - span / 2.0;
            }
            return;
        }
        if min >= self.lo && max < self.hi() {
            return;
        }
        let w = self.width;
        let grow_left = min < self.lo;
        let grow_right = max >= self.hi();
        // `a`: old bins added below the old range; `factor`: new bin width in old widths.
        let (a, factor) = if grow_left && !grow_right {
            // Keep the upper edge: the range extends downwards only (mirror of growing up).
            let need = b + ((self.lo - min) / w).ceil();
            let mut f = 2.0f64;
            while b * f < need && f.is_finite() {
                f *= 2.0;
            }
            ((f - 1.0) * b, f)
        } else {
            let a = if grow_left {
                ((self.lo - min) / w).ceil()
            } else {
                0.0
            };
            // Keep the lower edge (moved down by `a` when both sides grow).
            let need = (a + b).max(a + ((max - self.lo) / w).floor() + 1.0);
            let mut f = 2.0f64;
            while b * f < need && f.is_finite() {
                f *= 2.0;
            }
            (a, f)
        };
        let mut merged = vec![0u64; self.counts.len()];
        let last = self.counts.len() - 1;
        for (i, &c) in self.counts.iter().enumerate() {
            if c > 0 {
                let j = ((i as f64 + a) / factor).floor();
                merged[(j.max(0.0) as usize).min(last)] += c;
            }
        }
        self.counts = merged;
        self.lo -= a * w;
        self.width = w * factor;
    }

    /// The bin of `v` (clamped to the range; call [`GrowingHistogram::cover`] first).
    pub fn bin(&self, v: f64) -> usize {
        if self.width == 0.0 {
            return 0;
        }
        let i = ((v - self.lo) / self.width).floor();
        (i.max(0.0) as usize).min(self.counts.len() - 1)
    }

    /// Adds one finite value (growing the range if needed).
    pub fn add(&mut self, v: f64) {
        self.cover(v, v);
        let i = self.bin(v);
        self.counts[i] += 1;
    }

    /// Adds `pending[i]` to bin `i` and clears `pending`.
    fn commit(&mut self, pending: &mut [u32]) {
        for (c, p) in self.counts.iter_mut().zip(pending.iter_mut()) {
            *c += u64::from(*p);
            *p = 0;
        }
    }

    /// Forgets the range when no value was ever counted (after a first sample that failed).
    fn reset_if_empty(&mut self) {
        if self.total() == 0 {
            self.width = 0.0;
            self.lo = 0.0;
        }
    }

    /// A snapshot with empty leading and trailing bins trimmed.
    pub fn snapshot(&self) -> Histogram {
        let first = self.counts.iter().position(|&c| c > 0);
        let last = self.counts.iter().rposition(|&c| c > 0);
        match (first, last) {
            (Some(f), Some(l)) => Histogram {
                lo: self.lo + f as f64 * self.width,
                hi: self.lo + (l + 1) as f64 * self.width,
                counts: self.counts[f..=l].to_vec(),
            },
            _ => Histogram {
                lo: self.lo,
                hi: self.lo,
                counts: Vec::new(),
            },
        }
    }
}

/// The statistics of one tensor and the range chosen for it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
pub struct TensorStats {
    /// Tensor index in subgraph 0.
    pub index: usize,
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
        })
    }
}

/// The range `method` chooses from a tensor's histogram, TF-style min/max, true extremes and
/// moving average.
fn choose_range(
    method: Method,
    histogram: &Histogram,
    (tf_min, tf_max): (f32, f32),
    (true_min, true_max): (f32, f32),
    (ma_min, ma_max): (f64, f64),
) -> (f32, f32) {
    let clamp = |v: f64| (v as f32).clamp(true_min, true_max);
    match method {
        Method::MinMax => (tf_min, tf_max),
        Method::MovingAverage => (ma_min as f32, ma_max as f32),
        Method::Percentile(p) => {
            let q = p / 100.0;
            if q >= 1.0 {
                (true_min, true_max)
            } else {
                // Bin edges, not interpolation: a spike (ReLU's zeros) inside a bin would
                // otherwise pull the range off the true extreme; at most one bin wider.
                match (histogram.bin_at(1.0 - q), histogram.bin_at(q)) {
                    (Some(i), Some(j)) => {
                        let w = histogram.bin_width();
                        let lo = histogram.lo + i as f64 * w;
                        let hi = histogram.lo + (j + 1) as f64 * w;
                        (clamp(lo), clamp(hi))
                    }
                    _ => (true_min, true_max),
                }
            }
        }
        Method::Mse => {
            let (lo, hi) = mse_range(histogram, f64::from(true_min), f64::from(true_max));
            (clamp(lo), clamp(hi))
        }
    }
}

/// Calibration statistics of a model: what `zeropoint calibrate` writes and the page shows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
pub struct CalibrationStats {
    /// Number of samples recorded.
    pub samples: usize,
    /// One entry per float tensor the model computes or takes as input, by tensor index.
    pub tensors: Vec<TensorStats>,
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

/// For every tensor of subgraph 0 that an operator's output overwrites in TF's calibrator, the
/// input whose buffer LiteRT's arena planner lets it reuse (by output tensor index; see the module
/// docs for the rules). TF records that input again with the output's values.
pub fn tf_inplace_inputs(model: &Model) -> Vec<Option<usize>> {
    use crate::graph::BuiltinOperator as B;
    let Some(sg) = model.subgraphs.first() else {
        return Vec::new();
    };
    let n = sg.tensors.len();
    let index = |t: i32| usize::try_from(t).ok().filter(|&t| t < n);
    let mut refcount = vec![0usize; n];
    for &t in sg.outputs.iter().chain(&sg.inputs) {
        if let Some(t) = index(t) {
            refcount[t] += 1;
        }
    }
    for op in &sg.operators {
        for &t in &op.inputs {
            if let Some(t) = index(t) {
                refcount[t] += 1;
            }
        }
    }
    let bytes = |t: usize| -> Option<usize> {
        let tensor = &sg.tensors[t];
        let elems = tensor.dims().iter().try_fold(1usize, |a, &d| {
            usize::try_from(d).ok().and_then(|d| a.checked_mul(d))
        })?;
        elems.checked_mul(crate::tflite::types::element_size(tensor.dtype)?)
    };
    let is_graph = |list: &[i32], t: usize| list.iter().any(|&x| index(x) == Some(t));
    let mut actual: Vec<usize> = (0..n).collect();
    let mut aliased = vec![None; n];
    for op in &sg.operators {
        // (shareable input positions, whether the operator changes the data)
        let (positions, changed): (&[usize], bool) = match op.code.op() {
            B::ADD | B::SUB | B::MUL | B::DIV => (&[0, 1], true),
            B::SOFTMAX => (&[0], true),
            B::RESHAPE => (&[0], false),
            _ => continue,
        };
        let Some(out) = op.outputs.first().and_then(|&t| index(t)) else {
            continue;
        };
        let shareable = |t: usize| {
            let arena = model.tensor_data(0, t).is_none() && !sg.tensors[t].is_variable;
            let sized = !changed
                || (bytes(t).is_some_and(|b| b > 4 && Some(b) == bytes(out)) && refcount[t] <= 1);
            arena && sized && !is_graph(&sg.inputs, t) && !is_graph(&sg.outputs, out)
        };
        let Some(input) = positions
            .iter()
            .filter_map(|&k| op.inputs.get(k).and_then(|&t| index(t)))
            .find(|&t| shareable(t))
        else {
            continue;
        };
        let root = actual[input];
        if changed && refcount[root] > 1 {
            continue;
        }
        actual[out] = root;
        if changed {
            aliased[out] = Some(input);
        }
    }
    aliased
}

/// Running statistics of one tensor.
#[derive(Debug, Clone)]
struct TensorAcc {
    index: usize,
    name: String,
    /// TF's running min/max (see the module docs for the start values).
    min: f32,
    max: f32,
    /// True extremes, for clamping chosen ranges.
    true_min: f32,
    true_max: f32,
    ma_min: f64,
    ma_max: f64,
    /// Samples recorded for this tensor.
    seen: usize,
    hist: GrowingHistogram,
    /// This sample's bin counts, merged into `hist` when the sample succeeds.
    pending: Vec<u32>,
    /// This sample's extremes.
    s_min: f32,
    s_max: f32,
    /// This sample's extremes of what TF's calibrator also recorded under this tensor (the
    /// output of an operator that overwrote it in place); `±inf` when nothing.
    s_alias_min: f32,
    s_alias_max: f32,
}

impl TensorAcc {
    fn new(index: usize, name: &str) -> Self {
        TensorAcc {
            index,
            name: name.to_string(),
            min: f32::MAX,
            max: TF_MAX_START,
            true_min: f32::INFINITY,
            true_max: f32::NEG_INFINITY,
            ma_min: 0.0,
            ma_max: 0.0,
            seen: 0,
            hist: GrowingHistogram::new(HISTOGRAM_BINS),
            pending: vec![0; HISTOGRAM_BINS],
            s_min: 0.0,
            s_max: 0.0,
            s_alias_min: f32::INFINITY,
            s_alias_max: f32::NEG_INFINITY,
        }
    }

    fn commit(&mut self) {
        self.min = self.min.min(self.s_min).min(self.s_alias_min);
        self.max = self.max.max(self.s_max).max(self.s_alias_max);
        self.true_min = self.true_min.min(self.s_min);
        self.true_max = self.true_max.max(self.s_max);
        let (lo, hi) = (f64::from(self.s_min), f64::from(self.s_max));
        if self.seen == 0 {
            (self.ma_min, self.ma_max) = (lo, hi);
        } else {
            let s = MOVING_AVERAGE_SMOOTHING;
            self.ma_min = s * self.ma_min + (1.0 - s) * lo;
            self.ma_max = s * self.ma_max + (1.0 - s) * hi;
        }
        self.seen += 1;
        self.hist.commit(&mut self.pending);
    }

    fn discard(&mut self) {
        self.pending.iter_mut().for_each(|p| *p = 0);
        self.hist.reset_if_empty();
    }

    fn stats(&self, method: Method) -> TensorStats {
        let histogram = self.hist.snapshot();
        let (chosen_min, chosen_max) = choose_range(
            method,
            &histogram,
            (self.min, self.max),
            (self.true_min, self.true_max),
            (self.ma_min, self.ma_max),
        );
        TensorStats {
            index: self.index,
            name: self.name.clone(),
            min: self.min,
            max: self.max,
            chosen_min,
            chosen_max,
            method: method.to_string(),
            histogram,
            true_min: Some(self.true_min),
            true_max: Some(self.true_max),
            moving_average: Some([self.ma_min as f32, self.ma_max as f32]),
        }
    }
}

/// The range `[α·m0, α·m1]` (`m0 = min(min, 0)`, `m1 = max(max, 0)`, `α = k / MSE_CANDIDATES`)
/// with the least expected squared error when the histogram's values (taken at bin centres) are
/// quantized to 256 levels over it: `step²/12` inside, the squared distance to the edge outside.
/// Ties go to the wider range.
pub fn mse_range(h: &Histogram, min: f64, max: f64) -> (f64, f64) {
    let (m0, m1) = (min.min(0.0), max.max(0.0));
    if h.counts.is_empty() || m1 <= m0 {
        return (min, max);
    }
    let w = h.bin_width();
    let mut best = (f64::INFINITY, min, max);
    for k in (1..=MSE_CANDIDATES).rev() {
        let alpha = k as f64 / MSE_CANDIDATES as f64;
        let (a, b) = (alpha * m0, alpha * m1);
        let step = (b - a) / MSE_STEPS;
        let inside = step * step / 12.0;
        let mut err = 0.0;
        for (i, &c) in h.counts.iter().enumerate() {
            if c == 0 {
                continue;
            }
            let x = h.lo + (i as f64 + 0.5) * w;
            let e = if x < a {
                (a - x) * (a - x)
            } else if x > b {
                (x - b) * (x - b)
            } else {
                inside
            };
            err += c as f64 * e;
        }
        if err < best.0 {
            best = (err, a, b);
        }
    }
    (best.1, best.2)
}

/// Where a non-finite value was found in one sample.
struct Failure {
    value: f32,
    tensor: usize,
    element: usize,
}

fn value_name(v: f32) -> &'static str {
    if v.is_nan() {
        "NaN"
    } else if v > 0.0 {
        "+Inf"
    } else {
        "-Inf"
    }
}

/// Streams samples through the float engine and records per-tensor statistics.
///
/// Set every input with [`Calibrator::set_input`], then call [`Calibrator::add_sample`]; repeat.
/// Sample indices (in errors) count `add_sample` calls from 0, failed ones included.
pub struct Calibrator {
    interp: Interpreter,
    /// [`tf_inplace_inputs`] of the model.
    inplace: Vec<Option<usize>>,
    /// Accumulator index of each tensor of subgraph 0 (`u32::MAX`: not seen yet).
    slot_of: Vec<u32>,
    accs: Vec<TensorAcc>,
    /// Accumulators touched by the current sample.
    touched: Vec<usize>,
    /// Which inputs were set since the last sample.
    set: Vec<bool>,
    samples: usize,
    attempts: usize,
    /// Operator name producing each tensor of subgraph 0 (for [`CalibrationProfile`]).
    producer: Vec<Option<String>>,
}

/// Where the time of profiled samples ([`Calibrator::add_sample_profiled`]) went: the float
/// kernels per operator type, and the statistics recording (min/max scan and histogram) of
/// every tensor. Times are in the clock's unit (milliseconds in the page).
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
    fn add_op(&mut self, op: &str, time: f64) {
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
type Profiling<'a> = (&'a mut dyn FnMut() -> f64, &'a mut CalibrationProfile);

impl Calibrator {
    /// Prepares the float engine for `model` (every unsupported operator listed at once) with
    /// [`CALIBRATION_KERNELS`]: the float arithmetic of TF's calibrator.
    pub fn new(model: &Model) -> Result<Self> {
        Self::with_kernels(model, CALIBRATION_KERNELS)
    }

    /// [`Calibrator::new`] with an explicit [`KernelSet`] (e.g. [`KernelSet::Reference`] to
    /// record what LiteRT's reference kernels compute).
    pub fn with_kernels(model: &Model, kernels: KernelSet) -> Result<Self> {
        Self::with_options(model, &Limits::default(), kernels)
    }

    /// [`Calibrator::new`] with explicit size [`Limits`] (the user's, from the CLI or the page).
    pub fn with_limits(model: &Model, limits: &Limits) -> Result<Self> {
        Self::with_options(model, limits, CALIBRATION_KERNELS)
    }

    /// [`Calibrator::new`] with explicit size [`Limits`] and [`KernelSet`].
    pub fn with_options(model: &Model, limits: &Limits, kernels: KernelSet) -> Result<Self> {
        let interp = Interpreter::with_options(model, limits, kernels)?;
        let n = model.subgraphs.first().map_or(0, |sg| sg.tensors.len());
        let inputs = interp.inputs().len();
        let mut producer = vec![None; n];
        for op in model.subgraphs.iter().take(1).flat_map(|sg| &sg.operators) {
            for &t in &op.outputs {
                if let Some(p) = usize::try_from(t).ok().and_then(|t| producer.get_mut(t)) {
                    *p = Some(op.code.name());
                }
            }
        }
        Ok(Calibrator {
            producer,
            interp,
            inplace: tf_inplace_inputs(model),
            slot_of: vec![u32::MAX; n],
            accs: Vec::new(),
            touched: Vec::new(),
            set: vec![false; inputs],
            samples: 0,
            attempts: 0,
        })
    }

    /// The model inputs, in the subgraph's order.
    pub fn inputs(&self) -> &[TensorDesc] {
        self.interp.inputs()
    }

    /// Samples recorded so far.
    pub fn samples(&self) -> usize {
        self.samples
    }

    /// Sets input `i` for the next sample; the element count must match the input
    /// ([`Error::TensorMismatch`] with expected vs got otherwise).
    pub fn set_input(&mut self, i: usize, values: &[f32]) -> Result<()> {
        self.interp.set_input_f32(i, values)?;
        self.set[i] = true;
        Ok(())
    }

    /// Runs the model on the inputs set and records every float tensor. A NaN or infinity in an
    /// input or in a computed tensor is an [`Error::NonFinite`] naming the sample and where it
    /// is; the sample is then not recorded.
    pub fn add_sample(&mut self) -> Result<()> {
        self.run_sample(None)
    }

    /// [`Calibrator::add_sample`], adding where the time went to `profile`, timed with `clock`
    /// (any monotonic clock; `performance.now()` in the page).
    pub fn add_sample_profiled(
        &mut self,
        clock: &mut dyn FnMut() -> f64,
        profile: &mut CalibrationProfile,
    ) -> Result<()> {
        let start = clock();
        let r = self.run_sample(Some((&mut *clock, &mut *profile)));
        profile.total += clock() - start;
        profile.samples += usize::from(r.is_ok());
        r
    }

    fn run_sample(&mut self, mut profiling: Option<Profiling<'_>>) -> Result<()> {
        let sample = self.attempts;
        self.attempts += 1;
        if let Some(i) = self.set.iter().position(|s| !s) {
            return Err(Error::Calibration {
                reason: format!(
                    "sample {sample}: input {i} '{}' was not set",
                    self.interp.inputs()[i].name
                ),
            });
        }
        self.set.iter_mut().for_each(|s| *s = false);
        // Inputs first, so that bad data is reported as the input's, before anything runs.
        for (i, d) in self.interp.inputs().iter().enumerate() {
            let Some(values) = self.interp.tensor(d.id).and_then(|v| v.as_f32()) else {
                continue;
            };
            if let (_, _, Some(e)) = scan(values) {
                return Err(Error::NonFinite {
                    sample,
                    value: value_name(values[e]).into(),
                    place: format!("input {i} '{}' (element {e})", d.name),
                });
            }
        }
        let Calibrator {
            interp,
            inplace,
            slot_of,
            accs,
            touched,
            producer,
            ..
        } = self;
        touched.clear();
        let mut failure: Option<Failure> = None;
        // Records one tensor of this sample (`failure` set on the first non-finite value).
        let mut record = |id: TensorId, view: TensorView<'_>, failure: &mut Option<Failure>| {
            if failure.is_some() || view.dtype != TensorType::FLOAT32 {
                return;
            }
            let Some(values) = view.as_f32() else { return };
            if values.is_empty() {
                return;
            }
            let (lo, hi, bad) = scan(values);
            if let Some(e) = bad {
                *failure = Some(Failure {
                    value: values[e],
                    tensor: id.0,
                    element: e,
                });
                return;
            }
            let Some(slot) = slot_of.get_mut(id.0) else {
                return;
            };
            if *slot == u32::MAX {
                *slot = u32::try_from(accs.len()).unwrap_or(u32::MAX - 1);
                accs.push(TensorAcc::new(id.0, view.name));
            }
            let k = *slot as usize;
            let acc = &mut accs[k];
            acc.s_min = lo;
            acc.s_max = hi;
            acc.s_alias_min = f32::INFINITY;
            acc.s_alias_max = f32::NEG_INFINITY;
            // TF records the input this output overwrote in place again, with these values.
            if let Some(&Some(input)) = inplace.get(id.0)
                && let Some(&a) = slot_of.get(input)
                && let Some(alias) = accs.get_mut(a as usize)
            {
                alias.s_alias_min = alias.s_alias_min.min(lo);
                alias.s_alias_max = alias.s_alias_max.max(hi);
            }
            let acc = &mut accs[k];
            acc.hist.cover(f64::from(lo), f64::from(hi));
            if acc.hist.width > 0.0 {
                observe::bin_counts(values, acc.hist.lo, acc.hist.width, &mut acc.pending);
            } else {
                acc.pending[0] += u32::try_from(values.len()).unwrap_or(u32::MAX);
            }
            touched.push(k);
        };
        let mut last = profiling.as_mut().map_or(0.0, |(clock, _)| clock());
        interp.invoke_with(&mut |id: TensorId, view: TensorView<'_>| {
            if let Some((clock, profile)) = profiling.as_mut() {
                let now = clock();
                let op = producer.get(id.0).and_then(Option::as_deref);
                profile.add_op(op.unwrap_or("(graph input)"), now - last);
                record(id, view, &mut failure);
                last = clock();
                profile.record += last - now;
            } else {
                record(id, view, &mut failure);
            }
        });
        if let Some(f) = failure {
            for &k in touched.iter() {
                accs[k].discard();
            }
            let inputs: Vec<String> = interp
                .inputs()
                .iter()
                .map(|d| format!("'{}'", d.name))
                .collect();
            let name = interp
                .tensor(TensorId(f.tensor))
                .map(|v| v.name.to_string())
                .unwrap_or_default();
            return Err(Error::NonFinite {
                sample,
                value: value_name(f.value).into(),
                place: format!(
                    "tensor {} '{name}' (element {}), the first computed tensor that holds one \
                     (input(s) {} are finite)",
                    f.tensor,
                    f.element,
                    inputs.join(", ")
                ),
            });
        }
        for &k in touched.iter() {
            accs[k].commit();
        }
        self.samples += 1;
        Ok(())
    }

    /// The statistics so far, with ranges chosen by `method`, by tensor index.
    pub fn stats(&self, method: Method) -> Result<CalibrationStats> {
        method.check()?;
        let mut tensors: Vec<TensorStats> = self
            .accs
            .iter()
            .filter(|a| a.seen > 0)
            .map(|a| a.stats(method))
            .collect();
        tensors.sort_by_key(|t| t.index);
        Ok(CalibrationStats {
            samples: self.samples,
            tensors,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{
        Buffer, BuiltinOperator, BuiltinOptionsT, CustomOptionsFormat, OpCode, Operator, Subgraph,
        Tensor,
    };

    fn op(
        code: BuiltinOperator,
        inputs: &[i32],
        outputs: &[i32],
        options: BuiltinOptionsT,
    ) -> Operator {
        Operator {
            code: OpCode::builtin(code, 1),
            inputs: inputs.to_vec(),
            outputs: outputs.to_vec(),
            intermediates: None,
            options,
            options_2: Default::default(),
            custom_options: None,
            custom_options_format: CustomOptionsFormat::FLEXBUFFERS,
            mutating_variable_inputs: None,
            debug_metadata_index: -1,
        }
    }

    /// `y = x + c` (c constant), `z = relu(y)`; x, y, z: [1, 4].
    fn add_relu(c: [f32; 4]) -> Model {
        let mut c_t = Tensor::new("c", TensorType::FLOAT32, vec![4]);
        c_t.buffer = 1;
        Model {
            version: 3,
            subgraphs: vec![Subgraph {
                tensors: vec![
                    Tensor::new("x", TensorType::FLOAT32, vec![1, 4]),
                    c_t,
                    Tensor::new("y", TensorType::FLOAT32, vec![1, 4]),
                    Tensor::new("z", TensorType::FLOAT32, vec![1, 4]),
                ],
                inputs: vec![0],
                outputs: vec![3],
                operators: vec![
                    op(
                        BuiltinOperator::ADD,
                        &[0, 1],
                        &[2],
                        BuiltinOptionsT::AddOptions(Box::default()),
                    ),
                    op(BuiltinOperator::RELU, &[2], &[3], BuiltinOptionsT::NONE),
                ],
                ..Default::default()
            }],
            buffers: vec![
                Buffer::default(),
                Buffer {
                    data: bytemuck::cast_slice(&c).to_vec(),
                },
            ],
            ..Default::default()
        }
    }

    fn by_name<'a>(s: &'a CalibrationStats, name: &str) -> &'a TensorStats {
        s.tensors
            .iter()
            .find(|t| t.name == name)
            .expect("tensor recorded")
    }

    #[test]
    fn global_min_max_over_samples_and_constants_skipped() {
        let mut cal = Calibrator::new(&add_relu([1.0, -1.0, 0.5, 0.0])).expect("prepares");
        for x in [
            [0.0, 1.0, 2.0, 3.0],
            [-4.0, 0.5, 0.0, 9.0],
            [1.0, 1.0, 1.0, 1.0],
        ] {
            cal.set_input(0, &x).expect("fits");
            cal.add_sample().expect("finite");
        }
        let s = cal.stats(Method::MinMax).expect("stats");
        assert_eq!(s.samples, 3);
        let names: Vec<&str> = s.tensors.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["x", "y", "z"], "constant c is not recorded");
        let x = by_name(&s, "x");
        assert_eq!((x.min, x.max), (-4.0, 9.0));
        assert_eq!((x.chosen_min, x.chosen_max), (-4.0, 9.0));
        let y = by_name(&s, "y");
        assert_eq!((y.min, y.max), (-3.0, 9.0));
        let z = by_name(&s, "z");
        assert_eq!((z.min, z.max), (0.0, 9.0));
        assert_eq!(x.histogram.counts.iter().sum::<u64>(), 12);
        assert_eq!(x.method, "minmax");
    }

    #[test]
    fn inplace_add_input_records_the_output_as_tf_does() {
        // y = relu(x); z = y + c; w = relu(z): ADD may overwrite y (its only reader, same size,
        // not a graph input; z is not a graph output), so TF records y's range ∪ z's.
        let mut m = add_relu([10.0, 10.0, 10.0, 10.0]);
        let sg = &mut m.subgraphs[0];
        sg.tensors
            .push(Tensor::new("w", TensorType::FLOAT32, vec![1, 4]));
        sg.operators = vec![
            op(BuiltinOperator::RELU, &[0], &[2], BuiltinOptionsT::NONE),
            op(
                BuiltinOperator::ADD,
                &[2, 1],
                &[3],
                BuiltinOptionsT::AddOptions(Box::default()),
            ),
            op(BuiltinOperator::RELU, &[3], &[4], BuiltinOptionsT::NONE),
        ];
        sg.outputs = vec![4];
        assert_eq!(tf_inplace_inputs(&m), [None, None, None, Some(2), None]);
        let mut cal = Calibrator::new(&m).expect("prepares");
        cal.set_input(0, &[-1.0, 0.0, 2.0, 3.0]).expect("fits");
        cal.add_sample().expect("finite");
        let s = cal.stats(Method::MinMax).expect("stats");
        let y = by_name(&s, "y");
        assert_eq!((y.min, y.max), (0.0, 13.0), "TF's union of y and z");
        assert_eq!(y.histogram.total(), 4, "the histogram keeps y's own values");
        assert_eq!((by_name(&s, "z").min, by_name(&s, "z").max), (10.0, 13.0));
        // A graph output is never shared.
        m.subgraphs[0].outputs = vec![3];
        m.subgraphs[0].operators.truncate(2);
        assert_eq!(tf_inplace_inputs(&m)[3], None);
    }

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
    fn nan_in_input_names_sample_and_input_and_records_nothing() {
        let mut cal = Calibrator::new(&add_relu([0.0; 4])).expect("prepares");
        cal.set_input(0, &[1.0, 2.0, 3.0, 4.0]).expect("fits");
        cal.add_sample().expect("finite");
        cal.set_input(0, &[1.0, f32::NAN, 3.0, 4.0]).expect("fits");
        let e = cal.add_sample().expect_err("NaN").to_string();
        assert_eq!(e, "calibration sample 1: NaN in input 0 'x' (element 1)");
        assert_eq!(cal.samples(), 1);
        cal.set_input(0, &[f32::NEG_INFINITY, 2.0, 3.0, 4.0])
            .expect("fits");
        let e = cal.add_sample().expect_err("Inf").to_string();
        assert!(
            e.starts_with("calibration sample 2: -Inf in input 0 'x'"),
            "{e}"
        );
        let s = cal.stats(Method::MinMax).expect("stats");
        assert_eq!((by_name(&s, "x").min, by_name(&s, "x").max), (1.0, 4.0));
    }

    #[test]
    fn inf_inside_names_the_first_tensor_and_rolls_back() {
        let mut cal = Calibrator::new(&add_relu([f32::MAX; 4])).expect("prepares");
        cal.set_input(0, &[-f32::MAX, 0.0, 0.0, 0.0]).expect("fits");
        cal.add_sample().expect("finite");
        let before = cal.stats(Method::MinMax).expect("stats");
        cal.set_input(0, &[0.0, 0.0, f32::MAX, 0.0]).expect("fits");
        let e = cal.add_sample().expect_err("overflow").to_string();
        assert!(
            e.starts_with("calibration sample 1: +Inf in tensor 2 'y' (element 2)"),
            "{e}"
        );
        assert!(e.contains("'x' are finite"), "{e}");
        // Nothing recorded (a histogram's range may have grown, keeping its counts).
        let after = cal.stats(Method::MinMax).expect("stats");
        assert_eq!(after.samples, 1);
        for (b, a) in before.tensors.iter().zip(&after.tensors) {
            assert_eq!((b.index, b.min, b.max), (a.index, a.min, a.max));
            assert_eq!(b.histogram.total(), a.histogram.total());
        }
        assert_eq!(before.tensors.len(), after.tensors.len());
    }

    #[test]
    fn wrong_size_and_unset_input_are_errors() {
        let mut cal = Calibrator::new(&add_relu([0.0; 4])).expect("prepares");
        let e = cal.set_input(0, &[1.0; 3]).expect_err("size").to_string();
        assert!(e.contains("expected 1×4 FLOAT32"), "{e}");
        assert!(e.contains("got 3 FLOAT32 values"), "{e}");
        let e = cal.add_sample().expect_err("unset").to_string();
        assert_eq!(e, "calibration: sample 0: input 0 'x' was not set");
        assert!(cal.set_input(1, &[1.0; 4]).is_err());
    }

    #[test]
    fn histogram_growth_keeps_counts_and_bounds_memory() {
        let mut h = GrowingHistogram::new(64);
        let mut n = 0u64;
        for k in 0..10_000u32 {
            // A range that keeps growing on both sides.
            let v = f64::from(k) * if k % 2 == 0 { 1.0 } else { -0.37 };
            h.add(v);
            n += 1;
            assert_eq!(h.total(), n);
            assert!(
                h.lo() <= v && v < h.hi(),
                "{v} outside [{}, {})",
                h.lo(),
                h.hi()
            );
        }
        assert_eq!(h.counts().len(), 64, "fixed size");
        // Each value is in the bin that holds it: rebinning from scratch at the final edges
        // gives the same counts (merges are exact).
        let mut fresh = vec![0u64; 64];
        for k in 0..10_000u32 {
            let v = f64::from(k) * if k % 2 == 0 { 1.0 } else { -0.37 };
            fresh[h.bin(v)] += 1;
        }
        assert_eq!(h.counts(), fresh.as_slice());
        // The resolution stays within a small factor of range / bins.
        let range = 9999.0 + 9999.0 * 0.37;
        assert!(
            h.hi() - h.lo() <= 4.5 * range,
            "{} vs {range}",
            h.hi() - h.lo()
        );
    }

    #[test]
    fn histogram_of_constant_values_then_growth() {
        let mut h = GrowingHistogram::new(16);
        for _ in 0..5 {
            h.add(0.0);
        }
        h.add(1e6);
        h.add(-3.0);
        assert_eq!(h.total(), 7);
        let snap = h.snapshot();
        assert_eq!(snap.total(), 7);
        assert!(
            snap.lo <= -3.0 && snap.hi > 1e6,
            "[{}, {})",
            snap.lo,
            snap.hi
        );
        // Extreme growth (1e-6 → f32::MAX) keeps every count.
        h.add(f64::from(f32::MAX));
        h.add(f64::from(-f32::MAX));
        assert_eq!(h.total(), 9);
        assert!(h.lo() <= f64::from(-f32::MAX) && h.hi() > f64::from(f32::MAX));
    }

    #[test]
    fn percentile_on_a_uniform_distribution() {
        let mut h = GrowingHistogram::new(HISTOGRAM_BINS);
        for k in 0..=100_000u32 {
            h.add(f64::from(k) / 100_000.0);
        }
        let s = h.snapshot();
        let w = s.bin_width();
        for q in [0.01, 0.5, 0.99, 0.9999] {
            let v = s.quantile(q).expect("non-empty");
            assert!((v - q).abs() <= w, "q {q}: {v}");
        }
    }

    #[test]
    fn percentile_clips_outliers() {
        let mut cal = Calibrator::new(&add_relu([0.0; 4])).expect("prepares");
        for k in 0..1000 {
            let v = (k % 100) as f32 / 100.0;
            let x = if k == 500 {
                [1000.0, v, v, v]
            } else {
                [v, v, v, -v]
            };
            cal.set_input(0, &x).expect("fits");
            cal.add_sample().expect("finite");
        }
        let s = cal
            .stats(Method::parse("percentile:99.9").expect("method"))
            .expect("stats");
        let x = by_name(&s, "x");
        assert_eq!(x.max, 1000.0);
        assert!(x.chosen_max < 1.5, "outlier clipped: {}", x.chosen_max);
        assert!(x.chosen_min > -1.5 && x.chosen_min >= x.min);
        assert_eq!(x.method, "percentile:99.9");
    }

    #[test]
    fn mse_on_known_distributions() {
        // Uniform on [-1, 1]: clipping costs more than rounding; the full range wins.
        let mut h = GrowingHistogram::new(HISTOGRAM_BINS);
        for k in 0..=20_000u32 {
            h.add(f64::from(k) / 10_000.0 - 1.0);
        }
        let (a, b) = mse_range(&h.snapshot(), -1.0, 1.0);
        assert!(a <= -0.97 && b >= 0.97, "[{a}, {b}]");
        // N values at 0 and n at 100: quantizing over [0, b] costs N·(b/255)²/12 in rounding and
        // n·(100 − b)² in clipping, least at b* = 100·n / (n + N / (12·255²)).
        for (big, n) in [(100_000u32, 1u32), (1_000_000, 1), (100_000, 5)] {
            let mut h = GrowingHistogram::new(HISTOGRAM_BINS);
            for _ in 0..big {
                h.add(0.0);
            }
            for _ in 0..n {
                h.add(100.0);
            }
            let (a, b) = mse_range(&h.snapshot(), 0.0, 100.0);
            let (big, n) = (f64::from(big), f64::from(n));
            let best = 100.0 * n / (n + big / (12.0 * 255.0 * 255.0));
            assert_eq!(a, 0.0);
            let step = 100.0 / MSE_CANDIDATES as f64;
            assert!((b - best).abs() <= step, "N {big}, n {n}: {b} vs {best}");
        }
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
    fn method_parse_and_display() {
        for t in ["minmax", "percentile:99.99", "mse", "moving-average"] {
            assert_eq!(Method::parse(t).expect("parses").to_string(), t);
        }
        assert!(Method::parse("percentile:101").is_err());
        assert!(Method::parse("percentile:x").is_err());
        assert!(Method::parse("kl").is_err());
        assert!(
            Calibrator::new(&add_relu([0.0; 4]))
                .expect("prepares")
                .stats(Method::Percentile(10.0))
                .is_err()
        );
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
