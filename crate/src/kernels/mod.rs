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
//!
//! Every fast kernel with packed weights (the SIMD128 conv, depthwise, fully connected and pool
//! kernels, and the TF-exact SIMD float ones in `litert_optimized::simd`) has one interface,
//! [`PackedKernel`]: a constructor that packs at prepare time and returns the kernel with its
//! scratch, and `run(input, output, scratch)`.

pub mod litert_optimized;
pub mod reference;
pub mod simd128;

/// A fast kernel whose constants were prepared once (packed weights, folded bias,
/// requantization constants): it maps one input tensor to one output tensor of the shapes given
/// to its constructor, using scratch memory allocated with it. The ops run every such kernel
/// through one adapter (`ops::fast::Fast`), which owns the kernel and its scratch.
pub trait PackedKernel {
    /// Element type of the input and the output (`i8`, `f32`).
    type Elem: bytemuck::Pod;
    /// Scratch memory the kernel writes while it runs (`()` when it needs none), allocated at
    /// prepare time by the kernel's constructor.
    type Scratch;

    /// Computes `output` from `input`. Does not allocate.
    fn run(&self, input: &[Self::Elem], output: &mut [Self::Elem], scratch: &mut Self::Scratch);
}
