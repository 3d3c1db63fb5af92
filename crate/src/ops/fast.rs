//! The one adapter between the fast kernels (`kernels::simd128` and the TF-exact SIMD float
//! kernels of `kernels::litert_optimized::simd`) and the engine: every [`PackedKernel`] runs as
//! a [`Fast`] kernel, which owns the packed kernel and its scratch memory.

use super::{Kernel, OpIo};
use crate::kernels::PackedKernel;

/// A [`PackedKernel`] and its scratch, as an engine [`Kernel`]: reads input 0, writes the
/// output. Its type name (`zeropoint::ops::fast::Fast<…>`) is what the per-operator profile
/// shows for an operator that runs a fast kernel.
pub(crate) struct Fast<K: PackedKernel> {
    kernel: K,
    scratch: K::Scratch,
}

impl<K: PackedKernel> Fast<K> {
    /// `kernel` with the scratch its constructor allocated (`()` when it needs none).
    pub(crate) fn new(kernel: K, scratch: K::Scratch) -> Self {
        Fast { kernel, scratch }
    }
}

impl<K: PackedKernel> Kernel for Fast<K> {
    fn eval(&mut self, io: &mut OpIo<'_>) {
        let input = io.in_as::<K::Elem>(0);
        self.kernel
            .run(input, io.out_as::<K::Elem>(), &mut self.scratch);
    }
}
