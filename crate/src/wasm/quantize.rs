//! Quantization in the page: the float model's bytes, the calibration statistics as the CLI's
//! `--stats` JSON, and the CLI's options in, the quantized `.tflite`, the report and its JSON out.
//!
//! Everything goes through [`crate::quant::pipeline`], the functions `zeropoint quantize` calls,
//! so the page's files equal the CLI's byte for byte for the same statistics and options.

use serde::{Deserialize, Serialize};
use wasm_bindgen::prelude::*;

use super::{js_error, to_js};
use crate::graph::Model;
use crate::quant::calibrate::{CalibrationStats, SignatureStats};
use crate::quant::pipeline::{self, json_text, parse_stats_json};
use crate::quant::sqnr::ErrorSamples;
use crate::quant::{IoType, Mode, QuantizeOptions, Report};
use crate::tflite;

/// The options of `zeropoint quantize`, as the page sends them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, tsify::Tsify)]
pub struct QuantizeSettings {
    /// `int8`, `int16x8`, `dynamic` or `float16` (`--mode`).
    pub mode: String,
    /// `int8` (the mode's integer type), `uint8` or `float` (`--io`).
    pub io: String,
    /// Per-tensor weights instead of per-channel (`--per-tensor`).
    pub per_tensor: bool,
    /// Operators kept float: indices or output tensor names (`--float-ops`).
    pub float_ops: Vec<String>,
    /// Operators with int16 activations in an int8 model (`--int16-ops`).
    #[serde(default)]
    pub int16_ops: Vec<String>,
}

impl QuantizeSettings {
    /// The library's options (the CLI parses its flags the same way).
    ///
    /// # Errors
    /// [`crate::Error::Quantization`] for an unknown mode or I/O type.
    pub fn options(&self) -> crate::Result<QuantizeOptions> {
        Ok(QuantizeOptions {
            mode: Mode::parse(&self.mode)?,
            io: IoType::parse(&self.io)?,
            per_tensor: self.per_tensor,
            float_ops: self.float_ops.clone(),
            int16_ops: self.int16_ops.clone(),
            constants: Vec::new(),
        })
    }
}

/// A quantized model: the `.tflite` bytes, the report, and the report as the CLI's `--report`
/// JSON. Free it (`free()`) when done.
#[wasm_bindgen]
pub struct QuantizedModel {
    bytes: Vec<u8>,
    report: Report,
}

#[wasm_bindgen]
impl QuantizedModel {
    /// The quantized `.tflite` file.
    pub fn bytes(&self) -> Vec<u8> {
        self.bytes.clone()
    }

    /// Size of the quantized file in bytes.
    pub fn size(&self) -> usize {
        self.bytes.len()
    }

    /// The report: per tensor range, dtype, scale(s), zero point(s); per op the multipliers.
    #[wasm_bindgen(unchecked_return_type = "Report")]
    pub fn report(&self) -> Result<JsValue, JsError> {
        to_js(&self.report, "report")
    }

    /// The report as `zeropoint quantize --report` writes it.
    #[wasm_bindgen(js_name = reportJson)]
    pub fn report_json(&self) -> Result<String, JsError> {
        json_text(&self.report).map_err(js_error)
    }

    /// Warnings (ops kept float, …), as the CLI prints them.
    pub fn warnings(&self) -> Vec<String> {
        self.report.warnings.clone()
    }
}

impl QuantizedModel {
    /// A quantized file and its report.
    pub(crate) fn new(bytes: Vec<u8>, report: Report) -> Self {
        QuantizedModel { bytes, report }
    }

    /// Adds the errors against `float` on `samples` to the report (see [`ErrorSamples::measure`]).
    ///
    /// # Errors
    /// What the engine refuses when running either model.
    pub fn measure_errors(&mut self, float: &Model, samples: &ErrorSamples) -> crate::Result<()> {
        let quant = tflite::read(&self.bytes)?;
        samples.measure(float, &quant, &mut self.report)
    }
}

/// Quantizes the float model `model` as `zeropoint quantize MODEL --stats STATS.json` does:
/// `stats_json` is the statistics JSON (`zeropoint calibrate`'s output, or the page's; may be
/// absent for `dynamic` and `float16`; a model with several signatures takes
/// [`quantize_signatures`]), `settings` the CLI's options.
#[wasm_bindgen(js_name = quantizeModel)]
pub fn quantize_model(
    model: &[u8],
    stats_json: Option<String>,
    #[wasm_bindgen(unchecked_param_type = "QuantizeSettings")] settings: JsValue,
) -> Result<QuantizedModel, JsError> {
    let settings: QuantizeSettings = serde_wasm_bindgen::from_value(settings)
        .map_err(|e| JsError::new(&format!("quantize settings: {e}")))?;
    let stats = stats_json
        .map(|text| parse_stats_json(text.as_bytes()))
        .transpose()
        .map_err(js_error)?;
    quantize_with(model, stats.as_ref(), &settings).map_err(js_error)
}

/// Quantizes the float model `model` with several signatures from each signature's statistics
/// (`signatures`: `{ key, stats }[]`, each recorded by a `Calibrator` made for that signature),
/// as `zeropoint quantize --signature-data` / `--stats SIGNATURE_STATS.json` does
/// ([`quantize_signatures_with`]); `settings` the CLI's options (int8 or int16x8).
#[wasm_bindgen(js_name = quantizeSignatures)]
pub fn quantize_signatures(
    model: &[u8],
    #[wasm_bindgen(unchecked_param_type = "{ key: string; stats: CalibrationStats }[]")]
    signatures: JsValue,
    #[wasm_bindgen(unchecked_param_type = "QuantizeSettings")] settings: JsValue,
) -> Result<QuantizedModel, JsError> {
    let settings: QuantizeSettings = serde_wasm_bindgen::from_value(settings)
        .map_err(|e| JsError::new(&format!("quantize settings: {e}")))?;
    let stats = super::signature_stats_of(signatures)?;
    quantize_signatures_with(model, &stats, &settings).map_err(js_error)
}

/// [`quantize_signatures`] without the JS conversions: what `zeropoint quantize --stats
/// SIGNATURE_STATS.json` does ([`pipeline::quantize_signatures_to_bytes`]). The report is that
/// of the signature running subgraph 0, with every signature's warnings.
///
/// # Errors
/// An unreadable model, unknown options, a mode other than int8 / int16x8 (dynamic range and
/// float16 take no statistics), or what [`pipeline::quantize_signatures_to_bytes`] refuses.
pub fn quantize_signatures_with(
    model: &[u8],
    stats: &SignatureStats,
    settings: &QuantizeSettings,
) -> crate::Result<QuantizedModel> {
    let opts = settings.options()?;
    if !matches!(opts.mode, Mode::Int8 | Mode::Int16x8) {
        return Err(crate::Error::Quantization {
            what: format!("mode {}", opts.mode.name()),
            reason: "per-signature calibration statistics are for int8 / int16x8 (dynamic range \
                     and float16 take none)"
                .into(),
        });
    }
    let model = tflite::read(model)?;
    let (bytes, report) = pipeline::quantize_signatures_to_bytes(&model, stats, &opts)?;
    Ok(QuantizedModel { bytes, report })
}

/// [`quantize_model`] without the JS conversions.
///
/// # Errors
/// An unreadable model, unknown options, missing or mismatched statistics, or what the
/// quantizer refuses.
pub fn quantize_with(
    model: &[u8],
    stats: Option<&CalibrationStats>,
    settings: &QuantizeSettings,
) -> crate::Result<QuantizedModel> {
    let opts = settings.options()?;
    let model = tflite::read(model)?;
    if matches!(opts.mode, Mode::Int8 | Mode::Int16x8) {
        // As the CLI: several signatures would be calibrated through one only.
        crate::engine::signatures::refuse_full_integer(&model)?;
    }
    let ranges = pipeline::ranges_from_stats(&model, stats, opts.mode)?;
    let (bytes, report) = pipeline::quantize_to_bytes(&model, &ranges, &opts)?;
    Ok(QuantizedModel { bytes, report })
}

/// The statistics as `zeropoint calibrate -o STATS.json` writes them (and `--stats` reads).
#[wasm_bindgen(js_name = statsJson)]
pub fn stats_json(
    #[wasm_bindgen(unchecked_param_type = "CalibrationStats")] stats: JsValue,
) -> Result<String, JsError> {
    let stats: CalibrationStats = serde_wasm_bindgen::from_value(stats)
        .map_err(|e| JsError::new(&format!("calibration statistics: {e}")))?;
    json_text(&stats).map_err(js_error)
}
