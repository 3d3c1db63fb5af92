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
//!   [`Error::NonFinite`](crate::error::Error::NonFinite), naming the sample and the input or
//!   the first tensor where it appears.
//! - **TF's in-place aliasing.** LiteRT's arena planner (`ArenaPlanner::IdentifyInPlaceTensors`)
//!   lets an operator whose registration allows it write its output over an input's buffer, and
//!   TF's calibrator then records that input with the values the buffer holds after the operator
//!   ran: the input's min/max becomes the union of its own and the output's. [`tf_inplace_inputs`]
//!   reproduces the planner's choice (its docs give the rules). Only the TF min/max
//!   ([`TensorStats::min`] / [`TensorStats::max`]) see it; the histogram, the true extremes and
//!   the moving average keep the tensor's own values.
//! - **A histogram of bounded size** ([`HISTOGRAM_BINS`] bins) for display and for percentile
//!   and MSE range selection, whatever the number of samples: see [`GrowingHistogram`]. Its bins
//!   are a function of the extremes of the values counted alone (a power-of-two grid), so the
//!   histogram does not depend on the order of the samples.
//! - **Moving-average min/max**: the per-sample min and max, smoothed as AI Edge Quantizer's
//!   `moving_average_update` does: the first sample's value, then
//!   `avg = s·avg + (1 − s)·new` with `s =` [`MOVING_AVERAGE_SMOOTHING`] (0.95).
//!
//! A sample is recorded all or nothing: its histogram counts are binned into a per-tensor
//! pending buffer (on its own grid) and merged only when every tensor of the sample was finite,
//! so a failing sample leaves the statistics exactly as they were.
//!
//! Nothing here touches the file system: the same code runs in the browser (the wasm
//! `Calibrator`) and in the CLI (`zeropoint calibrate`).
//!
//! # In which order
//!
//! [`Calibrator::add_sample`] records one sample in this order:
//!
//! 1. Every input must have been set ([`Calibrator::set_input`]) since the last sample. The
//!    inputs are scanned first, so that bad data is reported as the input's before anything runs.
//! 2. The float engine (on [`CALIBRATION_KERNELS`] unless told otherwise) runs and hands over
//!    the graph inputs, in the subgraph's order, then each operator's output as soon as it is
//!    computed, in execution order. Each FLOAT32 tensor is scanned once (its sample min, max and
//!    first non-finite element); a tensor seen for the first time gets its accumulator then.
//!    Its sample extremes are noted, and also noted under the input it overwrote in place, if
//!    any (that input was computed before it); then the pending counts' grid widens to cover
//!    them and the values are binned into it. After the first non-finite value,
//!    nothing more is recorded.
//!    Then the states stateful kernels keep between runs (UNIDIRECTIONAL_SEQUENCE_LSTM's output
//!    and cell states, `kept_states.rs`) are recorded as their variable tensors, with the values
//!    after the run.
//! 3. If a tensor held a NaN or ±Inf, every tensor of the sample drops its pending counts and
//!    the error names that first tensor. Otherwise each tensor commits: TF's min/max (with what was noted under it in
//!    place), the true extremes, the moving average, and the pending counts into the histogram.
//!
//! [`Calibrator::stats`] then lists every tensor recorded at least once, by tensor index, with
//! the range its [`Method`] chooses.
//!
//! # In parallel
//!
//! The samples may be cut into contiguous slices, each recorded by its own [`Calibrator`] (a
//! thread in `zeropoint calibrate --threads N`, a Web Worker with its own wasm instance in the
//! page): every slice but the first is set up with [`Calibrator::for_slice`], and the slices'
//! [`CalibrationState`]s are merged in sample order ([`CalibrationState::merge`],
//! [`Calibrator::merge`]), which gives exactly, bit for bit, the statistics of one calibrator
//! over every sample (`state.rs` says why). A model that carries state from one sample to the
//! next ([`carries_state`]: LSTM and RNN states, variable tensors, ASSIGN_VARIABLE) is
//! calibrated on one calibrator, as TF's calibrator runs every sample on one interpreter.
//!
//! The code follows those stages: `histogram.rs` ([`GrowingHistogram`], [`Histogram`]),
//! `stats.rs` (one tensor's accumulator and the [`TensorStats`] / [`CalibrationStats`] it
//! produces), `tf_inplace.rs` ([`tf_inplace_inputs`]), `method.rs` ([`Method`] and the range
//! choice), `calibrator.rs` ([`Calibrator`], the sample loop) and `profile.rs`
//! ([`CalibrationProfile`]); `state.rs` ([`CalibrationState`], merging and its bytes);
//! `signature_stats.rs` ([`SignatureStats`]: one [`CalibrationStats`] per signature of a model
//! with several, and the versioned file that holds them).
//!
//! # How to add a calibration method
//!
//! 1. Add a variant to [`Method`] (`method.rs`); give it a name in `Method::parse` and the same
//!    name in its `Display` (the name is stored in [`TensorStats::method`] and read back from
//!    statistics files), and check its parameter, if it has one, in `Method::check`.
//! 2. Choose its range in `choose_range` (`method.rs`) from what a tensor's statistics keep: the
//!    histogram snapshot, TF's min/max, the true extremes and the moving average. Anything else
//!    it needs per tensor is accumulated in `TensorAcc` (`stats.rs`) and carried in
//!    [`TensorStats`] as an `Option` with `#[serde(default)]`, so that older statistics files
//!    still load; [`TensorStats::with_method`] must refuse the method when it is missing.
//! 3. The name reaches [`Method::parse`] unchanged from the CLI (`zeropoint calibrate --method`,
//!    `zeropoint quantize --calibration` in `bin/zeropoint/calibrate.rs` and `quantize.rs`, whose help
//!    texts list the names)
//!    and from the page (the wasm `Calibrator::stats`). The page builds the name in
//!    `www/src/calibration/types.ts` (`CalibrationMethod`, `methodString`, `validateMethod`)
//!    and offers it in the method pickers of `www/src/ui/calibration.ts`, `ranges.ts` and
//!    `quantize.ts`.
//! 4. Tests: extend `method_parse_and_display` and add one on a known distribution next to
//!    `mse_on_known_distributions` (`method.rs`); `crate/tests/wasm_calibrate.rs` and
//!    `crate/tests/cli_quantize.rs` loop over the method names (add it there too).

mod calibrator;
mod histogram;
mod kept_states;
mod method;
mod profile;
mod signature_stats;
mod state;
#[cfg(test)]
mod state_tests;
mod stats;
#[cfg(test)]
mod test_models;
mod tf_inplace;

pub use calibrator::{CALIBRATION_KERNELS, Calibrator};
pub use histogram::{Grid, GrowingHistogram, HISTOGRAM_BINS, Histogram};
pub use kept_states::carries_state;
pub use method::{MSE_CANDIDATES, Method, mse_range};
pub use profile::{CalibrationProfile, OpTime};
pub use signature_stats::{
    SIGNATURE_STATS_FORMAT, SIGNATURE_STATS_VERSION, SignatureCalibration, SignatureStats,
    StatsFile, parse_stats_file,
};
pub use state::{CalibrationState, TensorState};
pub use stats::{CalibrationStats, InputDesc, MOVING_AVERAGE_SMOOTHING, TF_MAX_START, TensorStats};
pub use tf_inplace::tf_inplace_inputs;
