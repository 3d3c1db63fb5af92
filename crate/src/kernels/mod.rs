//! Kernels: arithmetic over slices and parameter structs, with no knowledge of the graph.
//!
//! - [`reference`](mod@reference): scalar float kernels, written to read like LiteRT's / tflite-micro's
//!   reference ops. They are the specification the faster kernels must reproduce.
//!
//! The integer reference kernels live beside the float ones in `reference`, one family per file;
//! their requantization arithmetic is [`crate::fixedpoint`].

pub mod litert_optimized;
pub mod reference;
