//! 8-bit activations of the fast kernel set as byte tables: an int8 / uint8 elementwise operator
//! has at most 256 inputs per element (PRELU: 256 × 256 pairs of input and alpha), so running
//! its reference kernel once over every input at prepare time gives a table whose lookups are
//! the reference kernel's bits by construction. RELU / RELU6 / RELU_N1_TO_1 (a requantization
//! per element), LEAKY_RELU (two multipliers) and HARD_SWISH (a chain of fixed-point steps)
//! become one byte load per element ([`ByteTable`]), PRELU one load from a 64 KiB table
//! indexed by the alpha and input bytes ([`PreluTable`]). There is no SIMD gather in wasm, so
//! the lookups are scalar; they are still several times cheaper than the arithmetic they replace.

use crate::PackedKernel;
use crate::reference::elementwise::{Broadcast, QuantPrelu, quantized_prelu};
use crate::reference::quantize::QuantInt;

/// A 256-entry table of an 8-bit unary operator: output byte = `table[input byte]`.
pub struct ByteTable {
    table: Box<[u8; 256]>,
}

impl ByteTable {
    /// The table of `op`, an 8-bit elementwise kernel (`op(input, output)` over slices of `T`,
    /// `i8` or `u8`), made by running `op` once on all 256 values.
    pub fn new<T: QuantInt>(op: impl FnOnce(&[T], &mut [T])) -> Self {
        debug_assert_eq!(size_of::<T>(), 1);
        let input: [u8; 256] = std::array::from_fn(|i| i as u8);
        let mut table = Box::new([0u8; 256]);
        op(
            bytemuck::cast_slice(&input),
            bytemuck::cast_slice_mut(&mut table[..]),
        );
        ByteTable { table }
    }
}

impl PackedKernel for ByteTable {
    type Elem = u8;
    type Scratch = ();

    fn run(&self, input: &[u8], output: &mut [u8], _: &mut ()) {
        for (o, &x) in output.iter_mut().zip(input) {
            *o = self.table[usize::from(x)];
        }
    }
}

/// Quantized PRELU (int8 / uint8) as a table of every (alpha, input) pair: output byte =
/// `table[alpha byte · 256 + input byte]`, made by [`quantized_prelu`] itself.
pub struct PreluTable {
    table: Box<[u8; 65536]>,
    shape: Broadcast,
    /// `Some(n)` when the output is the input's shape and alpha repeats every `n` elements
    /// (alpha's shape, without leading 1s, is the input's last dims: a per-channel alpha
    /// `[1, 1, C]` of an NHWC input, or an alpha of the input's shape).
    period: Option<usize>,
}

impl PreluTable {
    /// The table for `params` on `T` (`i8` or `u8`), with the broadcast of input shape `input`
    /// and alpha shape `alpha` (`shape`, their [`Broadcast`]).
    pub fn new<T: QuantInt>(
        params: &QuantPrelu,
        shape: Broadcast,
        input: &[usize],
        alpha: &[usize],
    ) -> Self {
        debug_assert_eq!(size_of::<T>(), 1);
        let mut table = Box::new([0u8; 65536]);
        let xs: Vec<u8> = (0..=u16::MAX).map(|i| i as u8).collect();
        let alphas: [u8; 256] = std::array::from_fn(|i| i as u8);
        if let Some(pairs) = Broadcast::new(&[256, 256], &[256, 1]) {
            quantized_prelu::<T>(
                params,
                &pairs,
                bytemuck::cast_slice(&xs),
                bytemuck::cast_slice(&alphas),
                bytemuck::cast_slice_mut(&mut table[..]),
            );
        }
        let trimmed = &alpha[alpha.iter().take_while(|&&d| d == 1).count()..];
        let period =
            (shape.dims() == input && input.ends_with(trimmed)).then(|| trimmed.iter().product());
        PreluTable {
            table,
            shape,
            period,
        }
    }

    /// Computes `output` from `input` and `alpha` (bytes of `T`). Does not allocate.
    pub fn run(&self, input: &[u8], alpha: &[u8], output: &mut [u8]) {
        let t = &self.table;
        let at = |a: u8, x: u8| t[(usize::from(a) << 8) | usize::from(x)];
        match self.period {
            Some(n) if n > 0 && alpha.len() >= n => {
                let alpha = &alpha[..n];
                for (o, x) in output.chunks_mut(n).zip(input.chunks(n)) {
                    for ((o, &x), &a) in o.iter_mut().zip(x).zip(alpha) {
                        *o = at(a, x);
                    }
                }
            }
            _ => self
                .shape
                .walk(|o, xi, ai| output[o] = at(alpha[ai], input[xi])),
        }
    }
}
