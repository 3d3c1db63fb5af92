//! Kernels: arithmetic over slices and parameter structs, with no knowledge of the graph.
//!
//! - [`reference`](mod@reference): scalar float kernels, written to read like LiteRT's / tflite-micro's
//!   reference ops. They are the specification the faster kernels must reproduce.
//!
//! The int8 reference kernels and the `simd128` twins come with the int8 engine; they will live
//! beside these with the same function names.

pub mod reference;
