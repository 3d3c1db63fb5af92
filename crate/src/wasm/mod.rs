//! The WebAssembly face: the only `#[wasm_bindgen]` code in the crate (feature `wasm`).
//!
//! Typed arrays in and out; model summaries as plain JS objects whose TypeScript types are
//! generated from the Rust structs (tsify); every [`crate::Error`] becomes a JS `Error` with the
//! same message the CLI prints.
//!
//! Submodules: [`quantize`] (the quantizer with the CLI's options and files), [`auto`]
//! (`--auto` and the ranking of layers, on a calibrator's kept samples), [`run`] (a model
//! runner, float-vs-quantized comparison, and the panic test hook), [`limits`] (the user's size
//! limits, the model-size check, and a prepare-only check of a model).

mod bench;

use serde::Serialize;
use wasm_bindgen::prelude::*;

use crate::fixedpoint;
use crate::graph::summary::ModelSummary;
use crate::quant::calibrate::{self, InputDesc, Method};
use crate::quant::params;
use crate::quant::sqnr::ErrorSamples;
use crate::tflite::{self, WriteOptions};

pub mod auto;
pub mod limits;
pub mod quantize;
pub mod run;

/// Turns a crate error into a JS `Error` carrying the same message.
fn js_error(e: crate::Error) -> JsError {
    JsError::new(&e.to_string())
}

/// Installs the panic hook once, so a Rust panic shows its message in the console.
#[wasm_bindgen(start)]
pub fn start() {
    console_error_panic_hook::set_once();
}

/// The crate version.
#[wasm_bindgen]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_string()
}

/// Whether this module was built with SIMD128 kernels.
#[wasm_bindgen(js_name = simdEnabled)]
pub fn simd_enabled() -> bool {
    crate::SIMD128
}

/// How the int8 convolutions use the relaxed dot product in this build on this engine:
/// `unsigned` or `signed` (one dot product per 16 products, the engine's exact behaviour found
/// by the probe), `split` (two per 16, exact everywhere), or `none` (a build without relaxed
/// SIMD: int16 pairs).
#[wasm_bindgen(js_name = relaxedDotScheme)]
pub fn relaxed_dot_scheme() -> String {
    use crate::kernels::simd128::{conv_int, dot_scheme};
    if conv_int::RELAXED {
        dot_scheme::name(dot_scheme::detected()).to_string()
    } else {
        "none".to_string()
    }
}

/// Reads a `.tflite` file and returns its summary.
#[wasm_bindgen(js_name = inspectModel, unchecked_return_type = "ModelSummary")]
pub fn inspect_model(bytes: &[u8]) -> Result<JsValue, JsError> {
    let model = tflite::read(bytes).map_err(js_error)?;
    let summary = ModelSummary::of(&model);
    // Absent options become `undefined`, as the tsify-generated types declare (`T | undefined`).
    summary
        .serialize(&serde_wasm_bindgen::Serializer::new())
        .map_err(|e| JsError::new(&format!("cannot convert the summary to JS: {e}")))
}

/// Reads a `.tflite` file and writes it back through the IR. With `external_buffers`, constant
/// data is stored after the flatbuffer (`Buffer.offset/size`).
#[wasm_bindgen(js_name = rewriteModel)]
pub fn rewrite_model(bytes: &[u8], external_buffers: bool) -> Result<Vec<u8>, JsError> {
    let model = tflite::read(bytes).map_err(js_error)?;
    tflite::write_with(&model, &WriteOptions { external_buffers }).map_err(js_error)
}

/// Serialises a value for JS: absent options become `undefined`, as tsify declares.
fn to_js<T: Serialize>(value: &T, what: &str) -> Result<JsValue, JsError> {
    value
        .serialize(&serde_wasm_bindgen::Serializer::new())
        .map_err(|e| JsError::new(&format!("cannot convert the {what} to JS: {e}")))
}

/// Calibration in the page: set the inputs of one sample, add it, repeat; then read the
/// statistics with the range-selection method of your choice.
#[wasm_bindgen]
pub struct Calibrator {
    inner: calibrate::Calibrator,
    /// The first samples, for the quantization report's errors ([`Calibrator::measure_errors`]).
    errors: ErrorSamples,
    /// The float model, to measure against (and to recognise it).
    model: crate::graph::Model,
    /// FNV-1a hash and length of the model's bytes.
    fingerprint: (u64, usize),
    /// Where the time of the profiled samples went ([`Calibrator::add_sample_profiled`]).
    profile: calibrate::CalibrationProfile,
    /// The float kernels it calibrates with: TF's arithmetic on the CPU `tfCaches` names (`--auto`
    /// calibrates its changed models with them too).
    kernels: crate::kernels::KernelSet,
}

/// The calibration kernels for the caches a page names (`golden` when absent or empty).
fn calibration_kernels(tf_caches: Option<&str>) -> Result<crate::kernels::KernelSet, JsError> {
    Ok(match tf_caches.map(str::trim) {
        None | Some("") => calibrate::CALIBRATION_KERNELS,
        Some(text) => crate::kernels::KernelSet::LiteRtOptimized(
            text.parse()
                .map_err(|reason: String| JsError::new(&format!("TF's CPU caches: {reason}")))?,
        ),
    })
}

/// FNV-1a over `bytes`, and their length: which model a calibrator belongs to.
fn fingerprint(bytes: &[u8]) -> (u64, usize) {
    let h = bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    (h, bytes.len())
}

#[wasm_bindgen]
impl Calibrator {
    /// Reads a float `.tflite` model and prepares the float engine for it with `limits` (the
    /// engine's size limits; default if absent) and `shapes` (the input shapes for a model with
    /// dynamic dims; the stored shapes if absent). The statistics are by tensor, so they quantize
    /// the model as stored whatever the shapes.
    ///
    /// A model with several signatures is calibrated one signature at a time, as `zeropoint
    /// calibrate --signature-data` does: `signature` names the one whose samples this
    /// calibrator records ([`crate::quant::signature_model`]: its subgraph as a model of its
    /// own; its inputs in the subgraph's order), and `quantizeSignatures`
    /// ([`quantize::quantize_signatures`]) quantizes from every signature's statistics. Without `signature`
    /// such a model is refused, naming what to do.
    ///
    /// `tfCaches` names the CPU whose TF calibration to reproduce, as `--tf-caches` does: its
    /// data caches `L1,L2,L3` in KiB (what `zeropoint tf-caches` prints on that machine) or
    /// `golden` (the default: [`CacheSizes::GOLDEN`](crate::kernels::litert_optimized::caches::CacheSizes::GOLDEN);
    /// a page cannot read `cpuid`). TF's sums of convolutions with long reductions, and so the
    /// last bits of their ranges, depend on them.
    #[wasm_bindgen(constructor)]
    pub fn new(
        model: &[u8],
        #[wasm_bindgen(unchecked_optional_param_type = "EngineLimits")] limits: Option<JsValue>,
        #[wasm_bindgen(unchecked_optional_param_type = "InputShapes")] shapes: Option<JsValue>,
        #[wasm_bindgen(unchecked_optional_param_type = "string")] signature: Option<String>,
        #[wasm_bindgen(unchecked_optional_param_type = "string", js_name = tfCaches)]
        tf_caches: Option<String>,
    ) -> Result<Calibrator, JsError> {
        let kernels = calibration_kernels(tf_caches.as_deref())?;
        let limits = limits::limits_or_default(limits)?;
        let shapes = limits::shapes_or_default(shapes)?;
        // Measured errors compare the float and quantized models at the stored shapes, for a
        // model of one signature: a calibration at other shapes, or of one signature of several
        // (the CLI's --report refuses those), records none (see `measure_errors`).
        let fp = if shapes.is_empty() && signature.is_none() {
            fingerprint(model)
        } else {
            (0, usize::MAX)
        };
        let model = match &signature {
            None => {
                let model = limits::read_shaped(model, &shapes)?;
                // The statistics serve full-integer quantization: several signatures are
                // calibrated one by one.
                crate::engine::signatures::refuse_full_integer(&model).map_err(js_error)?;
                model
            }
            Some(key) => {
                let whole = tflite::read(model).map_err(js_error)?;
                let mut part = crate::quant::signature_model(&whole, key).map_err(js_error)?;
                shapes.apply(&mut part).map_err(js_error)?;
                part
            }
        };
        let inner =
            calibrate::Calibrator::with_options(&model, &limits, kernels).map_err(js_error)?;
        Ok(Calibrator {
            inner,
            errors: ErrorSamples::new(),
            model,
            fingerprint: fp,
            profile: calibrate::CalibrationProfile::default(),
            kernels,
        })
    }

    /// Model inputs: InputDesc[] = { name: string, shape: number[], dtype: string }[]
    #[wasm_bindgen(unchecked_return_type = "InputDesc[]")]
    pub fn inputs(&self) -> Result<JsValue, JsError> {
        let descs: Vec<InputDesc> = self.inner.inputs().iter().map(InputDesc::from).collect();
        to_js(&descs, "inputs")
    }

    /// Sets model input `index` for the next sample (f32 values, length must match the input's
    /// element count).
    #[wasm_bindgen(js_name = setInput)]
    pub fn set_input(&mut self, index: usize, data: &[f32]) -> Result<(), JsError> {
        self.inner.set_input(index, data).map_err(js_error)?;
        self.errors.set_input(index, data);
        Ok(())
    }

    /// Runs the model on the inputs set and records statistics; sample indices count from 0.
    #[wasm_bindgen(js_name = addSample)]
    pub fn add_sample(&mut self) -> Result<(), JsError> {
        let recorded = self.inner.add_sample();
        self.keep_for_errors(recorded)
    }

    /// Measures `quantized` (made from `model`) against the float model on the first
    /// calibration samples and adds the errors to its report, as `zeropoint quantize --data …
    /// --report` does. Returns false (and changes nothing) when `model` is not the model this
    /// calibrator ran.
    #[wasm_bindgen(js_name = measureErrors)]
    pub fn measure_errors(
        &self,
        model: &[u8],
        quantized: &mut quantize::QuantizedModel,
    ) -> Result<bool, JsError> {
        if fingerprint(model) != self.fingerprint {
            return Ok(false);
        }
        quantized
            .measure_errors(&self.model, &self.errors)
            .map_err(js_error)?;
        Ok(true)
    }

    /// [`Calibrator::add_sample`], timing each kernel and the statistics recording with
    /// `performance.now()` into the profile ([`Calibrator::profile`]).
    #[wasm_bindgen(js_name = addSampleProfiled)]
    pub fn add_sample_profiled(&mut self) -> Result<(), JsError> {
        let recorded = self
            .inner
            .add_sample_profiled(&mut crate::clock::now_ms, &mut self.profile);
        self.keep_for_errors(recorded)
    }

    /// Where the time of the profiled samples went (milliseconds).
    #[wasm_bindgen(unchecked_return_type = "CalibrationProfile")]
    pub fn profile(&self) -> Result<JsValue, JsError> {
        to_js(&self.profile, "profile")
    }

    /// Samples recorded so far.
    pub fn samples(&self) -> usize {
        self.inner.samples()
    }

    /// Makes this calibrator record the slice of a split calibration that starts at sample
    /// `firstSample` (each slice on its own calibrator, e.g. one per Web Worker): errors number
    /// its samples from there, and its [`Calibrator::export_state`] can be merged after the
    /// previous slice's. Only before the first sample.
    #[wasm_bindgen(js_name = forSlice)]
    pub fn for_slice(&mut self, first_sample: usize) -> Result<(), JsError> {
        self.inner.for_slice(first_sample).map_err(js_error)
    }

    /// Why this model must be calibrated on one calibrator, sample after sample (state carried
    /// from one sample to the next: LSTM, RNN, variables), or `undefined` when its samples may
    /// be split across calibrators.
    #[wasm_bindgen(js_name = carriesState)]
    pub fn carries_state(&self) -> Option<String> {
        calibrate::carries_state(&self.model)
    }

    /// The statistics so far as bytes, for [`Calibrator::merge_state`] in another instance.
    #[wasm_bindgen(js_name = exportState)]
    pub fn export_state(&self) -> Vec<u8> {
        self.inner.state().to_bytes()
    }

    /// Adds the statistics of the next slice of the samples ([`Calibrator::export_state`] of a
    /// calibrator set up with [`Calibrator::for_slice`]): merged in sample order, the statistics
    /// are exactly those of one calibrator over every sample. The last step of a calibration.
    #[wasm_bindgen(js_name = mergeState)]
    pub fn merge_state(&mut self, state: &[u8]) -> Result<(), JsError> {
        let state = calibrate::CalibrationState::from_bytes(state).map_err(js_error)?;
        self.inner.merge(&state).map_err(js_error)
    }

    /// Statistics with ranges chosen by `method` ("minmax" | "percentile:99.99" | "mse" |
    /// "moving-average").
    #[wasm_bindgen(unchecked_return_type = "CalibrationStats")]
    pub fn stats(&self, method: &str) -> Result<JsValue, JsError> {
        let method = Method::parse(method).map_err(js_error)?;
        let stats = self.inner.stats(method).map_err(js_error)?;
        to_js(&stats, "statistics")
    }
}

impl Calibrator {
    /// Keeps the sample just added for the report's errors if the calibrator recorded it.
    fn keep_for_errors(&mut self, recorded: crate::Result<()>) -> Result<(), JsError> {
        match recorded {
            Ok(()) => {
                self.errors.commit();
                Ok(())
            }
            Err(e) => {
                self.errors.discard();
                Err(js_error(e))
            }
        }
    }
}

/// The statistics of every signature of a model with several, each recorded by a [`Calibrator`]
/// made for that signature: `signatures` is `{ key, stats }[]` in the model's signature order.
/// Returns the file `zeropoint calibrate --signature-data` writes
/// ([`calibrate::SignatureStats`]; `zeropoint quantize --stats` reads it).
#[wasm_bindgen(js_name = signatureStatsJson)]
pub fn signature_stats_json(
    #[wasm_bindgen(unchecked_param_type = "{ key: string; stats: CalibrationStats }[]")]
    signatures: JsValue,
) -> Result<String, JsError> {
    crate::quant::pipeline::json_text(&signature_stats_of(signatures)?).map_err(js_error)
}

/// Per-signature statistics from JS `{ key, stats }[]`.
fn signature_stats_of(signatures: JsValue) -> Result<calibrate::SignatureStats, JsError> {
    let parts: Vec<calibrate::SignatureCalibration> = serde_wasm_bindgen::from_value(signatures)
        .map_err(|e| JsError::new(&format!("per-signature calibration statistics: {e}")))?;
    Ok(calibrate::SignatureStats::new(
        parts.into_iter().map(|p| (p.key, p.stats)).collect(),
    ))
}

/// Seeded random calibration data: `n` values uniform in [lo, hi).
#[wasm_bindgen(js_name = randomData)]
pub fn random_data(n: usize, lo: f32, hi: f32, seed: u32) -> Vec<f32> {
    crate::quant::inputs::random_data(n, lo, hi, u64::from(seed))
}

/// The steps from a recorded `(min, max)` to a tensor's scale and zero point, for the page's
/// "ranges and zero points" view. Every number is what the quantizer itself computes
/// ([`crate::quant::params`]); the final `scale` / `zero_point` are checked against
/// [`params::activation_params_int8`] / [`params::activation_params_int16`].
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
pub struct QuantSteps {
    /// `int8` (asymmetric, `[−128, 127]`) or `int16` (symmetric, zero point 0).
    pub dtype: String,
    /// The range asked for.
    pub min: f32,
    /// The range asked for.
    pub max: f32,
    /// Step 1: the range widened to include 0, `min(min, 0)`.
    pub widened_min: f64,
    /// Step 1: the range widened to include 0, `max(max, 0)`.
    pub widened_max: f64,
    /// Step 2 (int8): whether the range was narrower than 1e-6 and moved out by 1e-6 each side
    /// (int16: whether an all-zero range was replaced by ±1e-6).
    pub near_zero_widened: bool,
    /// The range the scale is computed from (after steps 1–2).
    pub rmin: f64,
    /// The range the scale is computed from (after steps 1–2).
    pub rmax: f64,
    /// Lowest quantized value the scale formula uses (int8 −128, int16 −32767).
    pub qmin: i64,
    /// Highest quantized value (int8 127, int16 32767).
    pub qmax: i64,
    /// Lowest storable value (int8 −128, int16 −32768).
    pub storage_min: i64,
    /// Step 3 (int8): the f64 scale `(rmax − rmin) / (qmax − qmin)` of MLIR's `fakeQuantAttrsToType`.
    pub scale_f64: f64,
    /// Step 3 (int8): the real zero point solved from the min side, `qmin − rmin/scale`.
    pub zp_from_min: f64,
    /// Its error estimate `|qmin| + |rmin/scale|`.
    pub zp_from_min_error: f64,
    /// Step 3 (int8): the real zero point solved from the max side, `qmax − rmax/scale`.
    pub zp_from_max: f64,
    /// Its error estimate `|qmax| + |rmax/scale|`.
    pub zp_from_max_error: f64,
    /// Which side has the smaller error (`min` | `max`; `max` on a tie).
    pub zp_side: String,
    /// Step 3 (int8): that zero point clamped or rounded ("nudged").
    pub zp_nudged_f64: i64,
    /// Step 4: the final f32 scale (int8: `(f32(rmax) − f32(rmin)) / 255` in f32, TF's
    /// `DownCastScale`; int16: `max(|min|, |max|) / 32767` in f32).
    pub scale: f32,
    /// Step 4 (int8): the real zero point recomputed from the f32 scale, `f32(qmin − rmin/scale)`,
    /// before rounding.
    pub zp_real: f64,
    /// The final zero point.
    pub zero_point: i32,
    /// The represented range `scale · (qmin_storage − zero_point)`.
    pub nudged_min: f64,
    /// The represented range `scale · (qmax − zero_point)`.
    pub nudged_max: f64,
}

/// The steps of [`params::activation_params_int8`] / [`params::activation_params_int16`] for
/// one range, computed with the public functions of [`crate::quant::params`]; `dtype` is `int8`
/// or `int16`.
///
/// # Errors
/// What the quantizer refuses (non-finite range, `min > max`, an overflowing scale), an unknown
/// `dtype`, or (a bug) intermediate steps that do not reproduce the quantizer's result.
pub fn quant_steps(min: f32, max: f32, dtype: &str) -> crate::Result<QuantSteps> {
    match dtype {
        "int8" => quant_steps_int8(min, max),
        "int16" => quant_steps_int16(min, max),
        other => Err(crate::Error::Quantization {
            what: "activation".into(),
            reason: format!("unknown type '{other}': expected int8 or int16"),
        }),
    }
}

fn disagree(what: &str, steps: &QuantSteps, want: params::QuantParams) -> crate::Error {
    crate::Error::Quantization {
        what: what.into(),
        reason: format!(
            "the displayed steps give scale {} zero point {}, the quantizer {} {}",
            steps.scale, steps.zero_point, want.scale, want.zero_point
        ),
    }
}

fn quant_steps_int8(min: f32, max: f32) -> crate::Result<QuantSteps> {
    // The quantizer validates the range and is the reference for the final numbers.
    let want = params::activation_params_int8(min, max)?;
    let (widened_min, widened_max) = (f64::from(min).min(0.0), f64::from(max).max(0.0));
    let near_zero_widened = (widened_max - widened_min).abs() < params::NEAR_ZERO_TOLERANCE;
    let (rmin, rmax) = if near_zero_widened {
        (
            widened_min - params::NEAR_ZERO_TOLERANCE,
            widened_max + params::NEAR_ZERO_TOLERANCE,
        )
    } else {
        (widened_min, widened_max)
    };
    let (qmin, qmax) = (i64::from(params::INT8_MIN), i64::from(params::INT8_MAX));
    let (scale_f64, zp_nudged_f64) = params::fake_quant_params(rmin, rmax, qmin, qmax);
    // The two candidates `fake_quant_params` compares (i64 → f64 exact for int8 bounds).
    let (qmin_f, qmax_f) = (qmin as f64, qmax as f64);
    let zp_from_min = qmin_f - rmin / scale_f64;
    let zp_from_min_error = qmin_f.abs() + (rmin / scale_f64).abs();
    let zp_from_max = qmax_f - rmax / scale_f64;
    let zp_from_max_error = qmax_f.abs() + (rmax / scale_f64).abs();
    let zp_side = if zp_from_min_error < zp_from_max_error {
        "min"
    } else {
        "max"
    };
    let (scale, zero_point) = params::down_cast_scale(rmin, rmax, qmin, qmax, zp_nudged_f64);
    let zp_real = f64::from((qmin_f - rmin / f64::from(scale)) as f32);
    let zero_point = i32::try_from(zero_point).unwrap_or(params::INT8_MIN);
    let s = f64::from(scale);
    let steps = QuantSteps {
        dtype: "int8".into(),
        min,
        max,
        widened_min,
        widened_max,
        near_zero_widened,
        rmin,
        rmax,
        qmin,
        qmax,
        storage_min: qmin,
        scale_f64,
        zp_from_min,
        zp_from_min_error,
        zp_from_max,
        zp_from_max_error,
        zp_side: zp_side.into(),
        zp_nudged_f64,
        scale,
        zp_real,
        zero_point,
        nudged_min: s * (qmin_f - f64::from(zero_point)),
        nudged_max: s * (qmax_f - f64::from(zero_point)),
    };
    if steps.scale != want.scale || steps.zero_point != want.zero_point {
        return Err(disagree("int8 activation", &steps, want));
    }
    Ok(steps)
}

fn quant_steps_int16(min: f32, max: f32) -> crate::Result<QuantSteps> {
    let want = params::activation_params_int16(min, max)?;
    let (wmin, wmax) = (min.min(0.0), max.max(0.0));
    let mut half = wmax.abs().max(wmin.abs());
    let near_zero_widened = half == 0.0;
    if near_zero_widened {
        half = params::NEAR_ZERO_TOLERANCE as f32;
    }
    let qmax = i64::from(params::INT16_MAX);
    let scale = half / params::INT16_MAX as f32;
    let s = f64::from(scale);
    let steps = QuantSteps {
        dtype: "int16".into(),
        min,
        max,
        widened_min: f64::from(wmin),
        widened_max: f64::from(wmax),
        near_zero_widened,
        rmin: -f64::from(half),
        rmax: f64::from(half),
        qmin: -qmax,
        qmax,
        storage_min: -qmax - 1,
        scale_f64: s,
        zp_from_min: 0.0,
        zp_from_min_error: 0.0,
        zp_from_max: 0.0,
        zp_from_max_error: 0.0,
        zp_side: "symmetric".into(),
        zp_nudged_f64: 0,
        scale,
        zp_real: 0.0,
        zero_point: 0,
        nudged_min: s * (-qmax - 1) as f64,
        nudged_max: s * qmax as f64,
    };
    if steps.scale != want.scale || steps.zero_point != want.zero_point {
        return Err(disagree("int16 activation", &steps, want));
    }
    Ok(steps)
}

/// The steps of [`params::activation_params_int8`] (`dtype` = `"int8"`) or
/// [`params::activation_params_int16`] (`"int16"`) for the range `[min, max]`: widened range,
/// f64 scale and both zero-point candidates, the final f32 scale and zero point, and the
/// represented (nudged) range.
#[wasm_bindgen(js_name = quantParams, unchecked_return_type = "QuantSteps")]
pub fn quant_params(min: f32, max: f32, dtype: &str) -> Result<JsValue, JsError> {
    let steps = quant_steps(min, max, dtype).map_err(js_error)?;
    to_js(&steps, "quantization steps")
}

/// A real requantization multiplier split as LiteRT's `QuantizeMultiplier` does:
/// `multiplier ≈ m0 · 2^(shift − 31)`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
pub struct MultiplierSteps {
    /// The real multiplier, in f64.
    pub multiplier: f64,
    /// Q31 mantissa in `[2^30, 2^31)` (0 for a zero or too small multiplier).
    pub m0: i32,
    /// Power-of-two exponent: `multiplier ≈ m0 · 2^(shift − 31)`.
    pub shift: i32,
    /// What `m0 · 2^(shift − 31)` gives back, in f64.
    pub represented: f64,
}

/// Splits `m` as [`fixedpoint::quantize_multiplier`] does.
pub fn multiplier_steps(m: f64) -> MultiplierSteps {
    let (m0, shift) = fixedpoint::quantize_multiplier(m);
    MultiplierSteps {
        multiplier: m,
        m0,
        shift,
        represented: f64::from(m0) * (f64::from(shift) - 31.0).exp2(),
    }
}

/// The requantization multipliers of a CONV_2D / DEPTHWISE_CONV_2D / FULLY_CONNECTED op, one per
/// weight scale: `M = f64(s_in) · f64(s_w[c]) / f64(s_out)` (LiteRT's per-channel
/// `PopulateConvolutionQuantizationParams`), each split into `m0` and `shift`.
#[wasm_bindgen(js_name = requantMultipliers, unchecked_return_type = "MultiplierSteps[]")]
pub fn requant_multipliers(
    input_scale: f32,
    weight_scales: &[f32],
    output_scale: f32,
) -> Result<JsValue, JsError> {
    let steps: Vec<MultiplierSteps> = weight_scales
        .iter()
        .map(|&w| multiplier_steps(f64::from(input_scale) * f64::from(w) / f64::from(output_scale)))
        .collect();
    to_js(&steps, "multipliers")
}

/// Splits a real multiplier into LiteRT's Q31 mantissa and exponent.
#[wasm_bindgen(js_name = quantizeMultiplier, unchecked_return_type = "MultiplierSteps")]
pub fn quantize_multiplier(m: f64) -> Result<JsValue, JsError> {
    to_js(&multiplier_steps(m), "multiplier")
}

/// Per-channel int8 scales the full-integer quantizer would give the float weight tensor
/// `tensor` (subgraph 0) of the model `bytes` along `axis` (CONV_2D / FULLY_CONNECTED 0,
/// DEPTHWISE_CONV_2D 3): `max|w| / 127` per channel, as [`params::per_channel_weights_int8`]
/// with [`params::WeightRule::FullInteger`] computes it.
#[wasm_bindgen(js_name = weightScales)]
pub fn weight_scales(bytes: &[u8], tensor: usize, axis: usize) -> Result<Vec<f32>, JsError> {
    let model = tflite::read(bytes).map_err(js_error)?;
    weight_scales_of(&model, tensor, axis).map_err(js_error)
}

fn weight_scales_of(
    model: &crate::graph::Model,
    tensor: usize,
    axis: usize,
) -> crate::Result<Vec<f32>> {
    let refuse = |reason: String| crate::Error::Quantization {
        what: format!("weights (tensor {tensor})"),
        reason,
    };
    let t = model
        .subgraphs
        .first()
        .and_then(|sg| sg.tensors.get(tensor))
        .ok_or_else(|| refuse("no such tensor in subgraph 0".into()))?;
    if t.dtype != crate::graph::TensorType::FLOAT32 {
        return Err(refuse(format!(
            "'{}' is {}, not float32",
            t.name,
            crate::graph::dtype::dtype_name(t.dtype)
        )));
    }
    let data = model
        .tensor_data(0, tensor)
        .ok_or_else(|| refuse(format!("'{}' has no constant data", t.name)))?;
    let values: Vec<f32> = data
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let shape: Vec<usize> = t
        .dims()
        .iter()
        .map(|&d| usize::try_from(d).unwrap_or(0))
        .collect();
    let q =
        params::per_channel_weights_int8(&values, &shape, axis, params::WeightRule::FullInteger)?;
    Ok(q.scales)
}

#[cfg(all(test, target_arch = "wasm32"))]
mod tests {
    use super::*;
    use wasm_bindgen_test::wasm_bindgen_test;

    #[wasm_bindgen_test]
    fn int8_steps_reach_the_quantizer_result() {
        // [-1, 3]: scale 4/255, zero point from the min side: -128 + 1/(4/255) = -64.25 → -64.
        let s = quant_steps(-1.0, 3.0, "int8").expect("steps");
        assert_eq!(s.scale, 4.0f32 / 255.0);
        assert_eq!(s.zero_point, -64);
        assert_eq!((s.widened_min, s.widened_max), (-1.0, 3.0));
        assert!((s.zp_real - -64.25).abs() < 1e-4);
        assert!(!s.near_zero_widened);
        // 0.0 is exactly representable: q = zero_point.
        assert!((s.nudged_min + 64.0 * f64::from(s.scale)).abs() < 1e-12);
    }

    #[wasm_bindgen_test]
    fn int8_positive_range_is_widened_to_zero() {
        let s = quant_steps(0.5, 2.0, "int8").expect("steps");
        assert_eq!((s.widened_min, s.widened_max), (0.0, 2.0));
        assert_eq!(s.zero_point, -128);
        assert_eq!(s.zp_side, "min");
        let z = quant_steps(0.0, 0.0, "int8").expect("steps");
        assert!(z.near_zero_widened);
        assert_eq!(z.zero_point, 0);
    }

    #[wasm_bindgen_test]
    fn int16_is_symmetric() {
        let s = quant_steps(-0.5, 2.0, "int16").expect("steps");
        assert_eq!(s.zero_point, 0);
        assert_eq!(s.scale, 2.0f32 / 32767.0);
        assert!(quant_steps(1.0, 0.0, "int8").is_err());
        assert!(quant_steps(0.0, 1.0, "uint8").is_err());
    }

    #[wasm_bindgen_test]
    fn multiplier_split() {
        // 0.75 = 0.75 · 2^0 → m0 = 0.75 · 2^31, shift 0.
        let m = multiplier_steps(0.75);
        assert_eq!((m.m0, m.shift), (1_610_612_736, 0));
        assert_eq!(m.represented, 0.75);
        // 3.0 = 0.75 · 2^2.
        assert_eq!(multiplier_steps(3.0).shift, 2);
        assert_eq!(multiplier_steps(0.0).m0, 0);
    }
}
