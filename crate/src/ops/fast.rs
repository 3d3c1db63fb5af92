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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::Region;

    /// Doubles its input and counts its runs in its scratch.
    struct Double;

    impl PackedKernel for Double {
        type Elem = f32;
        type Scratch = usize;

        fn run(&self, input: &[f32], output: &mut [f32], runs: &mut usize) {
            for (o, i) in output.iter_mut().zip(input) {
                *o = 2.0 * i;
            }
            *runs += 1;
        }
    }

    #[test]
    fn runs_the_kernel_on_input_0_with_its_own_scratch() {
        let mut k = Fast::new(Double, 0);
        let mut words = [0u64; 4];
        let arena: &mut [u8] = bytemuck::cast_slice_mut(&mut words);
        arena[..16].copy_from_slice(bytemuck::cast_slice(&[1.0f32, -2.5, 3.0, 0.0]));
        let inputs = [Some(Region::Arena { start: 0, len: 16 })];
        for _ in 0..2 {
            let mut io = OpIo::new(arena, &[], &inputs, (16, 16));
            k.eval(&mut io);
            assert_eq!(io.f32_out(), [2.0, -5.0, 6.0, 0.0]);
        }
        assert_eq!(k.scratch, 2);
        // The per-operator profile (`scripts/profile-ops.mjs`) counts a kernel as fast by `::Fast`.
        assert!(k.type_name().contains("::Fast<"), "{}", k.type_name());
    }
}
