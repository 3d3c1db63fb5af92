//! Kernels: arithmetic over slices and parameter structs, with no knowledge of the graph.
//!
//! - [`reference`](mod@reference): scalar kernels (float, int8/int16 with LiteRT's fixed-point
//!   requantization, hybrid), written to read like LiteRT's / tflite-micro's reference ops. They are the specification the faster kernels must reproduce.
//! - [`simd128`]: the fast kernels (WebAssembly SIMD128, with a portable lane emulation on
//!   other targets), bit-identical to the reference; selected at prepare time by
//!   [`KernelSet::Fast`].
//! - [`litert_optimized`]: float kernels with the arithmetic of LiteRT's optimized kernels as TF's
//!   calibrator runs them ([`KernelSet::LiteRtOptimized`]).
//! - [`observe`]: calibration's per-element recording (min/max scan, histogram bins), SIMD128.
//! - [`xnnpack`]: the requantization of LiteRT's default CPU path (the XNNPACK delegate), for
//!   [`Arithmetic::Xnnpack`]: the int8 accumulators of the kernels above, requantized in `f32`.
//!
//! [`KernelSet`] names the three sets; the ops pick their kernels by it at prepare time, so
//! `engine` depends on `ops` and `ops` on `kernels`, never back.
//!
//! The integer reference kernels live beside the float ones in `reference`, one family per file;
//! their requantization arithmetic is [`fixedpoint`].
//!
//! A crate of its own (`zeropoint-kernels`, re-exported by `zeropoint` as `kernels` and
//! `fixedpoint`) so that the page's wasm build can compile everything around it — prepare, the
//! quantizer, the graph, the bindings — for size while the kernels keep opt-level 3 (the
//! workspace `Cargo.toml`'s `wasm-release` profile; README "Wasm size").
//!
//! Every fast kernel with packed weights (the SIMD128 conv, depthwise, fully connected and pool
//! kernels, and the TF-exact SIMD float ones in `litert_optimized::simd`) has one interface,
//! [`PackedKernel`]: a constructor that packs at prepare time and returns the kernel with its
//! scratch, and `run(input, output, scratch)`.

pub mod fixedpoint;
pub mod litert_optimized;
pub mod observe;
pub mod reference;
pub mod simd128;
pub mod xnnpack;

/// Which kernel set prepare picks for each operator. Both give the same bits for integer ops (the
/// fast set is checked against the reference on every golden); float kernels in the fast set keep
/// each output's summation order, so calibration statistics do not depend on the choice.
///
/// The default is [`KernelSet::Fast`]: every golden gives the same bits with either set (see
/// `tests/rust/int_goldens.rs` and `float_goldens.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum KernelSet {
    /// The scalar reference kernels (`kernels::reference`): the specification.
    Reference,
    /// The fast kernels (`kernels::simd128`) where an operator has one, falling back to the
    /// reference elsewhere.
    #[default]
    Fast,
    /// Float kernels that reproduce, bit for bit, the arithmetic of LiteRT's *optimized* builtin
    /// float kernels as TF 2.21's x86-64 pip wheel runs them (`kernels::litert_optimized`), the
    /// reference elsewhere: what TF's calibrator computes, so calibration records TF's min/max.
    /// Eigen blocks large float products by the CPU's cache sizes, so TF's sums depend on the
    /// CPU it ran on: these are that CPU's caches ([`litert_optimized::caches`]).
    LiteRtOptimized(litert_optimized::caches::CacheSizes),
}

impl std::str::FromStr for KernelSet {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        match s {
            "reference" | "ref" => Ok(KernelSet::Reference),
            "fast" => Ok(KernelSet::Fast),
            "litert-optimized" | "tf" => Ok(KernelSet::LiteRtOptimized(
                litert_optimized::caches::CacheSizes::GOLDEN,
            )),
            other => Err(format!(
                "unknown kernel set '{other}' (reference | fast | litert-optimized)"
            )),
        }
    }
}

/// Whose integer results the engine reproduces, bit for bit. Orthogonal to [`KernelSet`] (which
/// only chooses between implementations of the same bits).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Arithmetic {
    /// LiteRT's reference kernels (`BUILTIN_REF`): fixed-point double-rounding requantization.
    #[default]
    Reference,
    /// LiteRT's default interpreter, which hands int8 operators to the XNNPACK delegate:
    /// int8 CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED requantize in `f32` as XNNPACK does
    /// ([`xnnpack`]); every other operator keeps the reference arithmetic.
    Xnnpack,
}

impl std::str::FromStr for Arithmetic {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        match s {
            "reference" | "ref" => Ok(Arithmetic::Reference),
            "xnnpack" => Ok(Arithmetic::Xnnpack),
            other => Err(format!(
                "unknown arithmetic '{other}' (reference | xnnpack)"
            )),
        }
    }
}

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
