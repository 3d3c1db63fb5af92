//! Zeropoint: a TFLite quantizer and int8 inference engine, one Rust core for the browser
//! (WebAssembly, SIMD128) and the command line.
//!
//! Module map (dependencies point one way: `error` ← `tflite` ← `graph` ← `kernels` ← `ops` ←
//! `engine` ← faces):
//!
//! | module | what lives there |
//! |---|---|
//! | [`error`] | the crate's one error enum and `Result` alias |
//! | [`clock`] | the one wall clock (`Instant` natively, `performance.now()` in the page) and deadlines |
//! | [`tflite`] | the format: generated schema, `read` (verify + build IR), `write` |
//! | [`fixedpoint`] | LiteRT's requantization arithmetic (Q31 multipliers, each rounding flavour); in the `zeropoint-kernels` crate (`crate/kernels/`), re-exported |
//! | [`graph`] | the format-agnostic IR: tensors, operators, buffers, element types (`graph::dtype`), sparse constants, summaries |
//! | [`kernels`] | arithmetic over slices: the scalar reference kernels (float, int8, int16, hybrid; the spec), the SIMD128 kernels with the same bits, the TF-exact float kernels for calibration, and [`kernels::KernelSet`]; the `zeropoint-kernels` crate (`crate/kernels/`), re-exported, so the page's build can compile the rest for size |
//! | [`ops`] | per-operator prepare (types, options, shapes) + eval, one family per file, and the one op table (`ops::registry::OPS`) |
//! | [`engine`] | the interpreter: prepare once, one planned arena, run without allocating (float, int8, 16x8, hybrid) |
//! | [`limits`] | limits a user sets: model file size, and the engine's size limits |
//! | `npy` | the one `.npy` reader and writer (feature `npy`, on with `data` and `cli`) |
//! | [`quant`] | the quantizer: calibration (`quant::calibrate`), TF-exact parameter rules (`quant::params`), the passes (`quant::passes`), one call for both faces (`quant::pipeline`) |
//! | `sort` | the one sort of the cold paths (planning, summaries, the quantizer): one instantiation of the standard sort for all of them (README "Wasm size") |
//! | `wasm` | the `#[wasm_bindgen]` face (feature `wasm`) |
//!
//! The CLI (`zeropoint`) lives in `src/bin/zeropoint/` (one file per subcommand) and only calls this library.

pub mod clock;
pub mod engine;
pub mod error;
pub use zeropoint_kernels::fixedpoint;
pub mod graph;
pub use zeropoint_kernels as kernels;
pub mod limits;
#[cfg(feature = "npy")]
pub mod npy;
pub mod ops;
pub mod quant;
mod sort;
pub mod tflite;
#[cfg(feature = "wasm")]
pub mod wasm;

pub use error::{Error, Result};
pub use graph::Model;

/// True when this build was compiled with WebAssembly SIMD128 enabled.
pub const SIMD128: bool = cfg!(all(target_arch = "wasm32", target_feature = "simd128"));
