//! The int32 sums of int8 groups that quantized MEAN reduces over (LiteRT's reference
//! `QuantizedMeanOrSum` and XNNPACK's `rsum` / `rdsum` both sum the raw int8 values of a group in
//! wrapping int32 and only then requantize), sixteen lanes at a time.
//!
//! Handled: reductions whose reduced dims, once size-1 dims are dropped, form one contiguous
//! block — the input viewed as `[outer, reduced, inner]`, the output as `[outer, inner]` (the
//! global average pool `[1,7,7,1280]` over axes 1, 2 is `[1, 49, 1280]`). Sixteen adjacent
//! `inner` lanes are summed down the reduced rows in `i16x8` (up to 256 rows, whose int8 sum
//! stays within `i16`), then added into `i32x4` sums; with `inner == 1` a contiguous row is
//! summed the same way and its lanes added. Integer sums are the same in any order (wrapping
//! `i32` addition is associative), so every sum equals the scalar fold's.

use super::v128::V128;

/// Rows summed in `i16` before the sums are widened: `256 · −128 = −32768` fits.
const I16_ROWS: usize = 256;

/// Prepared group sums of one reduction geometry, with the buffer they are written to.
#[derive(Debug, Clone)]
pub struct GroupSums {
    outer: usize,
    reduced: usize,
    inner: usize,
    sums: Vec<i32>,
}

impl GroupSums {
    /// The sums of reducing `dims` over `axes` (each below `dims.len()`; duplicates allowed), or
    /// `None` when a dim is 0 or the reduced dims are not one contiguous block.
    pub fn new(dims: &[usize], axes: &[usize]) -> Option<Self> {
        if dims.contains(&0) || axes.iter().any(|&a| a >= dims.len()) {
            return None;
        }
        // 0: before the reduced block, 1: in it, 2: after it.
        let (mut part, mut sizes) = (0usize, [1usize; 3]);
        for (i, &d) in dims.iter().enumerate() {
            if d == 1 {
                continue;
            }
            let reduced = axes.contains(&i);
            part = match (part, reduced) {
                (0 | 1, true) => 1,
                (0, false) => 0,
                (1 | 2, false) => 2,
                _ => return None,
            };
            sizes[part] = sizes[part].checked_mul(d)?;
        }
        let [outer, reduced, inner] = sizes;
        Some(Self {
            outer,
            reduced,
            inner,
            sums: vec![0; outer.checked_mul(inner)?],
        })
    }

    /// The wrapping int32 sum of each group of `input`, in output order.
    pub fn sums(&mut self, input: &[i8]) -> &[i32] {
        let (r, c) = (self.reduced, self.inner);
        for (o, sums) in self.sums.chunks_exact_mut(c).enumerate().take(self.outer) {
            let group = &input[o * r * c..(o + 1) * r * c];
            if c == 1 {
                sums[0] = sum_contiguous(group);
                continue;
            }
            let (chunks, _) = sums.as_chunks_mut::<16>();
            let lanes = chunks.len() * 16;
            for (k, out) in chunks.iter_mut().enumerate() {
                let mut acc = [V128::zero(); 4];
                for block in group.chunks(I16_ROWS * c) {
                    let (mut lo, mut hi) = (V128::zero(), V128::zero());
                    for row in block.chunks_exact(c) {
                        let v = V128::load_i8(&row.as_chunks::<16>().0[k]);
                        lo = lo.i16x8_add(v.i16x8_extend_low_i8x16());
                        hi = hi.i16x8_add(v.i16x8_extend_high_i8x16());
                    }
                    add_widened(&mut acc, lo, hi);
                }
                for (a, o) in acc.iter().zip(out.as_chunks_mut::<4>().0) {
                    a.store_i32(o);
                }
            }
            for (j, s) in sums.iter_mut().enumerate().skip(lanes) {
                *s = group
                    .chunks_exact(c)
                    .fold(0i32, |acc, row| acc.wrapping_add(row[j].into()));
            }
        }
        &self.sums
    }
}

/// `acc += (lo, hi)` widened from `i16x8` to four `i32x4`.
#[inline(always)]
fn add_widened(acc: &mut [V128; 4], lo: V128, hi: V128) {
    acc[0] = acc[0].i32x4_add(lo.i32x4_extend_low_i16x8());
    acc[1] = acc[1].i32x4_add(lo.i32x4_extend_high_i16x8());
    acc[2] = acc[2].i32x4_add(hi.i32x4_extend_low_i16x8());
    acc[3] = acc[3].i32x4_add(hi.i32x4_extend_high_i16x8());
}

/// The wrapping int32 sum of `x`.
fn sum_contiguous(x: &[i8]) -> i32 {
    let (chunks, tail) = x.as_chunks::<16>();
    let mut acc = [V128::zero(); 4];
    for block in chunks.chunks(I16_ROWS) {
        let (mut lo, mut hi) = (V128::zero(), V128::zero());
        for c in block {
            let v = V128::load_i8(c);
            lo = lo.i16x8_add(v.i16x8_extend_low_i8x16());
            hi = hi.i16x8_add(v.i16x8_extend_high_i8x16());
        }
        add_widened(&mut acc, lo, hi);
    }
    let lanes = acc
        .iter()
        .flat_map(|a| a.to_i32())
        .fold(0i32, i32::wrapping_add);
    tail.iter()
        .fold(lanes, |acc, &v| acc.wrapping_add(v.into()))
}
