//! The WebAssembly face: the only `#[wasm_bindgen]` code in the crate (feature `wasm`).
//!
//! Typed arrays in and out; model summaries as plain JS objects whose TypeScript types are
//! generated from the Rust structs (tsify); every [`crate::Error`] becomes a JS `Error` with the
//! same message the CLI prints.

use serde::Serialize;
use wasm_bindgen::prelude::*;

use crate::graph::summary::ModelSummary;
use crate::quant::calibrate::{self, InputDesc, Method};
use crate::tflite::{self, WriteOptions};

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
}

#[wasm_bindgen]
impl Calibrator {
    /// Reads a float `.tflite` model and prepares the float engine for it.
    #[wasm_bindgen(constructor)]
    pub fn new(model: &[u8]) -> Result<Calibrator, JsError> {
        let model = tflite::read(model).map_err(js_error)?;
        let inner = calibrate::Calibrator::new(&model).map_err(js_error)?;
        Ok(Calibrator { inner })
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
        self.inner.set_input(index, data).map_err(js_error)
    }

    /// Runs the model on the inputs set and records statistics; sample indices count from 0.
    #[wasm_bindgen(js_name = addSample)]
    pub fn add_sample(&mut self) -> Result<(), JsError> {
        self.inner.add_sample().map_err(js_error)
    }

    /// Samples recorded so far.
    pub fn samples(&self) -> usize {
        self.inner.samples()
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

/// Seeded random calibration data: `n` values uniform in [lo, hi).
#[wasm_bindgen(js_name = randomData)]
pub fn random_data(n: usize, lo: f32, hi: f32, seed: u32) -> Vec<f32> {
    crate::quant::inputs::random_data(n, lo, hi, u64::from(seed))
}
