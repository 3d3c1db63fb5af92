//! Kernels: arithmetic over slices and parameter structs, with no knowledge of the graph.
//!
//! - [`reference`](mod@reference): scalar float kernels, written to read like LiteRT's / tflite-micro's
//!   reference ops. They are the specification the faster kernels must reproduce.
//! - [`simd128`]: the fast kernels (WebAssembly SIMD128, with a portable lane emulation on
//!   other targets), bit-identical to the reference; selected at prepare time by
//!   [`crate::engine::KernelSet::Fast`].
//!
//! The integer reference kernels live beside the float ones in `reference`, one family per file;
//! their requantization arithmetic is [`crate::fixedpoint`].

pub mod litert_optimized;
pub mod reference;
pub mod simd128;
