//! Float kernels that reproduce LiteRT's *optimized* builtin float kernels bit for bit, as the
//! TF 2.21 x86-64 pip wheel runs them — the kernels TF's calibrator
//! (`tensorflow/lite/tools/optimize/calibration/`) logs its min/max from.
//!
//! That wheel builds LiteRT's kernels for AVX without FMA (Eigen's `gebp_kernel` and every
//! float path here use separate `vmulps`/`vaddps`: each multiply and each add rounds), with Eigen
//! (not ruy) behind `cpu_backend_gemm` for float. Where an optimized kernel sums in another order
//! than the reference one, the difference is in *where partial sums start and how they are
//! combined*: Eigen keeps 8-lane (AVX) packet accumulators that are reduced pairwise at the end,
//! the depthwise kernel starts its accumulator at the bias, and so on. Each file names the
//! LiteRT kernel it mirrors and the order it reproduces; operators whose optimized kernel computes
//! the same bits as the reference one are not here (the engine uses the reference kernel).
//!
//! TF's calibrator runs LiteRT with its default thread count, which gives Eigen a pool of 4
//! threads: a CONV_2D with a constant filter is then summed in the order Eigen's thread-pool
//! tensor contraction gives it, which [`contraction`] reproduces from the shape alone.
//!
//! These kernels exist for calibration only (`KernelSet::LiteRtOptimized`); the reference
//! kernels stay the specification of the float engine.

pub mod activations;
pub mod caches;
pub mod contraction;
pub mod conv;
pub mod eigen;
pub mod fully_connected;
pub mod reduce;
pub mod resize;
pub mod simd;
pub mod transpose_conv;
