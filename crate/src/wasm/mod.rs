//! The WebAssembly face: the only `#[wasm_bindgen]` code in the crate (feature `wasm`).
//!
//! Typed arrays in and out; model summaries as plain JS objects whose TypeScript types are
//! generated from the Rust structs (tsify); every [`crate::Error`] becomes a JS `Error` with the
//! same message the CLI prints.

use serde::Serialize;
use wasm_bindgen::prelude::*;

use crate::graph::summary::ModelSummary;
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
