//! Zeropoint: a TFLite quantizer and int8 inference engine, one Rust core for the browser
//! (WebAssembly, SIMD128) and the command line.
//!
//! Module map (dependencies point one way: `error` ← `tflite` ← `graph` ← `kernels` ← `ops` ←
//! `engine` ← faces):
//!
//! | module | what lives there |
//! |---|---|
//! | [`error`] | the crate's one error enum and `Result` alias |
//! | [`tflite`] | the format: generated schema, `read` (verify + build IR), `write` |
//! | [`fixedpoint`] | LiteRT's requantization arithmetic (Q31 multipliers, each rounding flavour) |
//! | [`graph`] | the format-agnostic IR: tensors, operators, buffers, summaries |
//! | [`kernels`] | float reference kernels over slices (`kernels::reference`), the spec |
//! | [`ops`] | per-operator prepare (types, options, shapes) + eval, and the op registry |
//! | [`engine`] | the interpreter: prepare once, one planned arena, run without allocating |
//! | [`limits`] | limits a user sets: model file size, and the engine's size limits |
//! | `npy` | the one `.npy` reader and writer (feature `npy`, on with `data` and `cli`) |
//! | [`quant`] | the quantizer: TF-exact scale/zero-point, weight and bias rules (`quant::params`) |
//! | `wasm` | the `#[wasm_bindgen]` face (feature `wasm`) |
//!
//! The CLI (`zeropoint`) lives in `src/bin/zeropoint/` (one file per subcommand) and only calls this library.

// The flatc-generated schema code names `alloc::` paths.
extern crate alloc;

pub mod engine;
pub mod error;
pub mod fixedpoint;
pub mod graph;
pub mod kernels;
pub mod limits;
#[cfg(feature = "npy")]
pub mod npy;
pub mod ops;
pub mod quant;
pub mod tflite;
#[cfg(feature = "wasm")]
pub mod wasm;

pub use error::{Error, Result};
pub use graph::Model;

/// True when this build was compiled with WebAssembly SIMD128 enabled.
pub const SIMD128: bool = cfg!(all(target_arch = "wasm32", target_feature = "simd128"));
