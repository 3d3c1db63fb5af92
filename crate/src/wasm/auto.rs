//! Beyond TF in the page: `--auto` ([`Calibrator::auto_quantize`]) and the ranking of layers by
//! sensitivity a person accepts step by step ([`LayerRanker`]), both measured on the samples the
//! page's [`Calibrator`] kept from its calibration.

use serde::{Deserialize, Serialize};
use wasm_bindgen::prelude::*;

use super::quantize::{QuantizeSettings, QuantizedModel};
use super::{Calibrator, fingerprint, js_error, to_js};
use crate::quant::auto::rank::{Fix, LayerCandidate, Ranker};
use crate::quant::auto::{AUTO_SAMPLES, AutoOptions, DEFAULT_BUDGET, auto_quantize};
use crate::quant::calibrate::{self, Method};
use crate::quant::passes::Ranges;
use crate::quant::pipeline::parse_stats_json;
use crate::quant::sqnr::ERROR_SAMPLES;
use crate::{Error, tflite};

#[wasm_bindgen]
extern "C" {
    /// `(scored: number) => void`: told the count of candidate models scored so far.
    #[wasm_bindgen(typescript_type = "(scored: number) => void")]
    pub type ScoredCallback;

    #[wasm_bindgen(method, catch)]
    fn call(this: &ScoredCallback, this_arg: &JsValue, scored: u32) -> Result<JsValue, JsValue>;
}

fn settings_of(settings: JsValue) -> Result<QuantizeSettings, JsError> {
    serde_wasm_bindgen::from_value(settings)
        .map_err(|e| JsError::new(&format!("quantize settings: {e}")))
}

/// The `--auto` options of `zeropoint quantize`, as the page sends them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, tsify::Tsify)]
#[serde(rename_all = "camelCase")]
pub struct AutoSettings {
    /// Move operators to int16 until the output SQNR reaches this many dB (`--target-sqnr`).
    #[serde(default)]
    pub target_sqnr_db: Option<f64>,
    /// Move operators until the top-1 accuracy is at most this many percentage points below
    /// the float model's (`--target-accuracy-drop`; needs `labels`).
    #[serde(default)]
    pub target_accuracy_drop: Option<f64>,
    /// The class of each calibration sample, in order (`--labels`): one per sample.
    #[serde(default)]
    pub labels: Option<Vec<usize>>,
    /// The output whose largest element is the class (`--label-output`; default 0).
    #[serde(default)]
    pub label_output: Option<usize>,
    /// At most this many candidate models are scored, weight clipping's not counted
    /// (`--auto-budget`; default [`DEFAULT_BUDGET`]).
    #[serde(default)]
    pub budget: Option<usize>,
    /// Stop searching after about this many seconds and judge the best found by then
    /// (`--auto-time-limit`; none if absent).
    #[serde(default)]
    pub time_limit: Option<f64>,
}

impl Calibrator {
    /// The float model of `model`'s bytes, if this calibrator ran it (at its stored shapes, as
    /// the only signature): otherwise the error says what to do.
    fn same_model(&self, model: &[u8], what: &str) -> crate::Result<crate::graph::Model> {
        if fingerprint(model) != self.fingerprint || self.errors.samples().is_empty() {
            return Err(Error::Calibration {
                reason: format!(
                    "{what} measures the output error on the calibration samples: calibrate this \
                     model in the page first (at its stored input shapes, not by signature)"
                ),
            });
        }
        tflite::read(model)
    }
}

/// Samples a calibrator keeps for `--auto` hold at most this many values (256 MiB of `f32`):
/// beyond that it keeps the first [`AUTO_SAMPLES`] only.
pub const KEPT_VALUES: usize = 1 << 26;

#[wasm_bindgen]
impl Calibrator {
    /// Keeps every sample of this calibration (not only the first few the report's errors use),
    /// as `zeropoint quantize --auto --data` has them: [`Calibrator::auto_quantize`] searches on
    /// the first [`AUTO_SAMPLES`] and calibrates a changed model again on all of them. Beyond
    /// [`KEPT_VALUES`] values in all, the first [`AUTO_SAMPLES`]. Only before the first sample.
    #[wasm_bindgen(js_name = keepSamples)]
    pub fn keep_samples(&mut self) -> Result<(), JsError> {
        if self.inner.samples() > 0 {
            return Err(js_error(Error::Calibration {
                reason: "keepSamples is called before the first sample".into(),
            }));
        }
        let per_sample: usize = self
            .inner
            .inputs()
            .iter()
            .map(|d| d.shape.iter().product::<usize>())
            .sum();
        let limit = (KEPT_VALUES / per_sample.max(1)).max(AUTO_SAMPLES);
        self.errors = crate::quant::sqnr::ErrorSamples::with_limit(limit);
        Ok(())
    }

    /// `zeropoint quantize --auto` on this calibration ([`auto_quantize`]): the statistics
    /// recorded, searched and guarded on the first [`AUTO_SAMPLES`] samples, with `auto`'s
    /// targets and budget ([`AutoSettings`]); `onScored` is called with the count after each
    /// candidate model scored. The report's `auto` says what was chosen.
    ///
    /// Cross-layer equalization calibrates the changed model again on the same data: the
    /// calibrator must have kept every sample ([`Calibrator::keep_samples`], on one calibrator
    /// for the whole calibration); otherwise equalization is left out and the report's warnings
    /// say so (the CLI with the same `--data` includes it). With every sample kept the file and
    /// report equal `zeropoint quantize --auto --data` on the same samples.
    #[wasm_bindgen(js_name = autoQuantize)]
    pub fn auto_quantize(
        &self,
        model: &[u8],
        #[wasm_bindgen(unchecked_param_type = "QuantizeSettings")] settings: JsValue,
        #[wasm_bindgen(unchecked_param_type = "AutoSettings")] auto: JsValue,
        #[wasm_bindgen(unchecked_param_type = "(scored: number) => void")] on_scored: Option<
            ScoredCallback,
        >,
    ) -> Result<QuantizedModel, JsError> {
        let settings = settings_of(settings)?;
        let auto: AutoSettings = serde_wasm_bindgen::from_value(auto)
            .map_err(|e| JsError::new(&format!("--auto settings: {e}")))?;
        let run = || self.auto_quantize_with(model, &settings, &auto);
        match on_scored {
            // A search is one call: the count of candidate models goes out as it grows.
            Some(f) => {
                let mut scored = 0u32;
                let hook = move || {
                    scored += 1;
                    // A throwing callback only loses progress, never the search.
                    let _ = f.call(&JsValue::NULL, scored);
                };
                crate::quant::auto::score::with_progress(hook, run)
            }
            None => run(),
        }
        .map_err(js_error)
    }
}

impl Calibrator {
    /// [`Calibrator::auto_quantize`] without the JS conversions.
    ///
    /// # Errors
    /// Another model than the one calibrated, labels that are not one per calibration sample,
    /// or what [`auto_quantize`] refuses.
    pub fn auto_quantize_with(
        &self,
        model: &[u8],
        settings: &QuantizeSettings,
        auto: &AutoSettings,
    ) -> crate::Result<QuantizedModel> {
        let float = self.same_model(model, "--auto")?;
        let opts = settings.options()?;
        let stats = self.inner.stats(Method::MinMax)?;
        let kept = self.errors.samples();
        let samples = &kept[..kept.len().min(AUTO_SAMPLES)];
        let mut labels = auto.labels.clone().unwrap_or_default();
        if auto.labels.is_some() && labels.len() != self.inner.samples() {
            return Err(Error::Quantization {
                what: "--labels".into(),
                reason: format!(
                    "{} labels for the {} calibration samples: one class per sample, in order",
                    labels.len(),
                    self.inner.samples()
                ),
            });
        }
        // The labels of the samples --auto is given (the first ones), as the CLI's.
        labels.truncate(samples.len());
        let auto = AutoOptions {
            target_sqnr_db: auto.target_sqnr_db,
            target_accuracy_drop: auto.target_accuracy_drop,
            labels,
            label_output: auto.label_output.unwrap_or(0),
            budget: auto.budget.unwrap_or(DEFAULT_BUDGET),
            time_limit: auto.time_limit,
            ..AutoOptions::default()
        };
        let whole_data = kept.len() == self.inner.samples();
        let kernels = self.kernels;
        let mut recalibrate = |changed: &crate::graph::Model| {
            let mut c = calibrate::Calibrator::with_options(changed, &Default::default(), kernels)?;
            for sample in kept {
                for (i, x) in sample.iter().enumerate() {
                    c.set_input(i, x)?;
                }
                c.add_sample()?;
            }
            c.stats(Method::MinMax)
        };
        let (q, mut report, summary) = auto_quantize(
            &float,
            &stats,
            samples,
            &opts,
            &auto,
            whole_data.then_some(&mut recalibrate as crate::quant::auto::Recalibrate<'_>),
        )?;
        if !whole_data {
            report.warnings.push(format!(
                "--auto: cross-layer equalization was not tried (it calibrates the changed \
                 model again on the same data, and {} of the {} samples were kept; the CLI \
                 with the same --data tries it)",
                kept.len(),
                self.inner.samples()
            ));
        }
        report.auto = Some(summary);
        Ok(QuantizedModel::new(tflite::write(&q)?, report))
    }
}

/// "Fix the worst layers": each operator's output SQNR with it alone moved to int16 (or kept
/// float where it has no 16x8 kernel), on the first [`ERROR_SAMPLES`] calibration samples,
/// with the page's statistics and settings otherwise. Free it (`free()`) when done.
#[wasm_bindgen]
pub struct LayerRanker {
    inner: Ranker,
}

#[wasm_bindgen]
impl LayerRanker {
    /// A ranker for `model` (the float model `calibrator` ran) quantized from `statsJson` (the
    /// statistics the page quantizes with) and `settings`.
    #[wasm_bindgen(constructor)]
    pub fn new(
        calibrator: &Calibrator,
        model: &[u8],
        stats_json: &str,
        #[wasm_bindgen(unchecked_param_type = "QuantizeSettings")] settings: JsValue,
    ) -> Result<LayerRanker, JsError> {
        let settings = settings_of(settings)?;
        Self::with(calibrator, model, stats_json, &settings).map_err(js_error)
    }

    /// The operators that can be moved, in model order.
    #[wasm_bindgen(unchecked_return_type = "LayerCandidate[]")]
    pub fn candidates(&self) -> Result<JsValue, JsError> {
        let c: Vec<LayerCandidate> = self.inner.candidates();
        to_js(&c, "candidates")
    }

    /// Samples scored on.
    pub fn samples(&self) -> usize {
        self.inner.samples()
    }

    /// Output SQNR in dB with the settings as given (`Infinity` when exact).
    pub fn base(&mut self) -> Result<f64, JsError> {
        self.inner.base().map_err(js_error)
    }

    /// Output SQNR in dB with operator `index` moved by `fix` (`int16` | `float`) as well.
    pub fn score(&mut self, index: usize, fix: &str) -> Result<f64, JsError> {
        let fix = Fix::parse(fix).map_err(js_error)?;
        self.inner.score(index, fix).map_err(js_error)
    }
}

impl LayerRanker {
    /// [`LayerRanker::new`] without the JS conversions.
    ///
    /// # Errors
    /// Another model than the one calibrated, unreadable statistics or settings, or what the
    /// engine refuses running the float model.
    pub fn with(
        calibrator: &Calibrator,
        model: &[u8],
        stats_json: &str,
        settings: &QuantizeSettings,
    ) -> crate::Result<LayerRanker> {
        let float = calibrator.same_model(model, "ranking layers")?;
        let stats = parse_stats_json(stats_json.as_bytes())?;
        let ranges = Ranges::from_calibration(&float, &stats)?;
        let samples = calibrator.errors.samples();
        let samples = &samples[..samples.len().min(ERROR_SAMPLES)];
        let inner = Ranker::new(float, ranges, settings.options()?, samples)?;
        Ok(LayerRanker { inner })
    }
}
