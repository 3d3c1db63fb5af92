//! Fast kernels: WebAssembly SIMD128, bit-identical to [`super::reference`].
//!
//! Every kernel here gives exactly the bits of the reference kernel it replaces (integer ops:
//! the same wrapping sums and the same requantization arithmetic; float ops: the same summation
//! order for every output element), and is checked against it by property tests natively and
//! by the same comparisons compiled to wasm32 and run in Node with SIMD128 on.
//!
//! The kernels are written once over [`v128::V128`], which is the real `v128` with one intrinsic
//! per method on `wasm32` + `simd128` and a lane-by-lane emulation elsewhere, so the packing,
//! blocking and requantization logic is the same code natively and in the browser. Each
//! kernel's constructor runs at prepare time: it packs weights, folds `input_offset · Σ w` into
//! the bias, precomputes requantization constants and allocates its scratch memory, and returns
//! `None` when the fast form cannot reproduce the reference (the op then keeps the reference
//! kernel). `run` does not allocate.

mod conv_c4;
pub mod conv_float;
pub mod conv_int;
mod conv_quads;
mod depthwise_1x1;
pub mod depthwise_3x3;
pub mod depthwise_int;
pub mod dot_scheme;
pub mod elementwise_float;
pub mod elementwise_int;
pub mod elementwise_xnn;
pub mod fully_connected_int;
pub mod lut_int;
mod near;
pub mod pool_float;
pub mod pool_int;
pub mod quantize;
pub mod reduce_int;
pub mod requant;
pub mod resize_int;
pub mod v128;

#[cfg(test)]
mod lut_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_depthwise_pointwise;
#[cfg(test)]
mod tests_elementwise;
#[cfg(test)]
mod tests_near;
