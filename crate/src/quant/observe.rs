//! The per-element work of calibration, vectorized: one tensor's min, max and first non-finite
//! element ([`scan`]), and its histogram bins ([`bin_counts`]), four values per SIMD128 vector
//! ([`V128`]: the real intrinsics on wasm32 with SIMD128, lane emulation elsewhere).
//!
//! Each has a scalar specification next to it ([`scan_scalar`], [`bin_counts_scalar`]) that the
//! tests compare it with bit for bit: the vector code must record exactly what the scalar code
//! records, down to the sign of a zero extreme.

use crate::kernels::simd128::v128::V128;

/// One pass over a tensor's values (the specification): the minimum and maximum — the *first*
/// element holding each, so a zero extreme keeps the sign of the first zero, as TF's
/// `std::min_element` / `max_element` do — and the index of the first non-finite element (then
/// the extremes are those before it). Empty: `(+inf, −inf, None)`.
pub fn scan_scalar(values: &[f32]) -> (f32, f32, Option<usize>) {
    let mut lo = f32::INFINITY;
    let mut hi = f32::NEG_INFINITY;
    for (i, &v) in values.iter().enumerate() {
        if !v.is_finite() {
            return (lo, hi, Some(i));
        }
        if v < lo {
            lo = v;
        }
        if v > hi {
            hi = v;
        }
    }
    (lo, hi, None)
}

/// [`scan_scalar`], four lanes at a time: per-lane extremes by comparison, reduced; a zero
/// extreme takes the sign of the first zero; any non-finite value sends the tensor to the scalar
/// scan (which finds the first one).
pub fn scan(values: &[f32]) -> (f32, f32, Option<usize>) {
    let chunks = values.chunks_exact(4);
    let rest = chunks.remainder();
    let inf = V128::splat_f32(f32::INFINITY);
    let (mut lo, mut hi) = (inf, V128::splat_f32(f32::NEG_INFINITY));
    let mut finite = V128::splat_i32(-1);
    for c in chunks {
        let Some(c) = c.first_chunk::<4>() else {
            continue;
        };
        let v = V128::load_f32(c);
        lo = v.bitselect(lo, v.f32x4_lt(lo));
        hi = v.bitselect(hi, hi.f32x4_lt(v));
        // |v| < inf is false for ±inf and NaN.
        finite = finite.and(v.f32x4_abs().f32x4_lt(inf));
    }
    if finite.to_i32().contains(&0) || rest.iter().any(|v| !v.is_finite()) {
        return scan_scalar(values);
    }
    let (mut l, mut h) = (f32::INFINITY, f32::NEG_INFINITY);
    for &v in lo.to_f32().iter().chain(rest) {
        if v < l {
            l = v;
        }
    }
    for &v in hi.to_f32().iter().chain(rest) {
        if v > h {
            h = v;
        }
    }
    // Equal non-zero floats have equal bits; only a zero extreme can differ (±0) from the first
    // occurrence, and that one is the first zero.
    let first_zero = || values.iter().copied().find(|&v| v == 0.0).unwrap_or(0.0);
    if l == 0.0 {
        l = first_zero();
    }
    if h == 0.0 {
        h = first_zero();
    }
    (l, h, None)
}

/// Histogram bins of `values` (the specification, as
/// [`GrowingHistogram::bin`](super::calibrate::GrowingHistogram::bin)): on a grid of width
/// `2^e` whose first bin starts at `base · 2^e`, with `scale = 2^-e`, bin
/// `⌊v · scale⌋ − base` in `f64` (both steps exact), clamped to `[0, counts.len() − 1]`;
/// `counts[bin] += 1`. `counts` must be non-empty.
pub fn bin_counts_scalar(values: &[f32], scale: f64, base: f64, counts: &mut [u32]) {
    let last = counts.len() - 1;
    for &v in values {
        let i = (f64::from(v) * scale).floor() - base;
        counts[(i.max(0.0) as usize).min(last)] += 1;
    }
}

/// [`bin_counts_scalar`], the bin arithmetic two `f64` lanes at a time: the same product,
/// floor and subtraction (so the same integer `q`), then `q` clamped to `[0, last]`. The integer
/// is read from the low word of `q + 2^52` (exact for `0 ≤ q < 2^31`): cheaper in V8 than
/// `i32x4.trunc_sat_f64x2_s_zero`.
pub fn bin_counts(values: &[f32], scale: f64, base: f64, counts: &mut [u32]) {
    /// `2^52`: adding it to an integer-valued `f64` below `2^52` leaves the integer in the low
    /// mantissa bits.
    const MAGIC: f64 = 4_503_599_627_370_496.0;
    let Some(last) = counts.len().checked_sub(1) else {
        return;
    };
    if i32::try_from(last).is_err() {
        return bin_counts_scalar(values, scale, base, counts);
    }
    let (s2, b2) = (V128::splat_f64(scale), V128::splat_f64(base));
    let (zero, top) = (V128::splat_f64(0.0), V128::splat_f64(last as f64));
    let magic = V128::splat_f64(MAGIC);
    let pairs = values.chunks_exact(2);
    let rest = pairs.remainder();
    for c in pairs {
        let x = V128::splat_f64(f64::from(c[0])).low_i64s(V128::splat_f64(f64::from(c[1])));
        let q = x.f64x2_mul(s2).f64x2_floor().f64x2_sub(b2);
        let q = zero.bitselect(q, q.f64x2_lt(zero));
        let q = top.bitselect(q, top.f64x2_lt(q));
        let i = q.f64x2_add(magic).to_i32();
        counts[i[0] as u32 as usize] += 1;
        counts[i[2] as u32 as usize] += 1;
    }
    bin_counts_scalar(rest, scale, base, counts);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(rng: &mut fastrand::Rng, n: usize, specials: bool) -> Vec<f32> {
        let scale = [1e-3f32, 1.0, 6.0, 1e4][rng.usize(0..4)];
        let offset = [0.0f32, 3.0, -5.0][rng.usize(0..3)];
        (0..n)
            .map(|_| match rng.u8(0..50) {
                0 if specials => [f32::NAN, f32::INFINITY, f32::NEG_INFINITY][rng.usize(0..3)],
                1..=4 => 0.0,
                5..=8 => -0.0,
                9 => 1e-40,
                _ => (rng.f32() * 2.0 - 1.0) * scale + offset,
            })
            .collect()
    }

    fn check(n: usize, seed: u64) {
        let mut rng = fastrand::Rng::with_seed(seed);
        let specials = rng.u8(0..3) == 0;
        let v = values(&mut rng, n, specials);
        let (a, b) = (scan(&v), scan_scalar(&v));
        assert_eq!(
            (a.0.to_bits(), a.1.to_bits(), a.2),
            (b.0.to_bits(), b.1.to_bits(), b.2),
            "n {n} seed {seed}"
        );
        let (lo, hi, None) = b else { return };
        if v.is_empty() {
            return;
        }
        // The calibrator's histogram grid: the one the values fit, or a coarser or finer one
        // (clamping).
        let bins = [2usize, 7, 2048][rng.usize(0..3)];
        let g = crate::quant::calibrate::Grid::fit(f64::from(lo), f64::from(hi), bins);
        let exp = g.exp + [0, 1, -1, 3][rng.usize(0..4)];
        let base = (g.base >> 1) * 2 + [0, -3, 5][rng.usize(0..3)];
        let scale = (-f64::from(exp)).exp2();
        let (mut x, mut y) = (vec![0u32; bins], vec![0u32; bins]);
        bin_counts(&v, scale, base as f64, &mut x);
        bin_counts_scalar(&v, scale, base as f64, &mut y);
        assert_eq!(x, y, "n {n} seed {seed}");
    }

    #[cfg_attr(not(target_arch = "wasm32"), test)]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn vector_scan_and_bins_equal_the_scalar_ones() {
        let mut rng = fastrand::Rng::with_seed(0x0b5e);
        for n in 0..40 {
            check(n, n as u64);
        }
        for _ in 0..400 {
            check(rng.usize(0..3000), rng.u64(..));
        }
        // Zero extremes: the first zero's sign wins.
        for v in [[0.0f32, -0.0, 1.0, 2.0, 3.0], [-0.0, 0.0, 1.0, 2.0, 3.0]] {
            assert_eq!(scan(&v).0.to_bits(), v[0].to_bits());
            let neg = v.map(|x| -x);
            assert_eq!(scan(&neg).1.to_bits(), neg[0].to_bits());
        }
    }

    #[cfg(not(target_arch = "wasm32"))]
    mod props {
        use super::*;
        use proptest::prelude::*;

        proptest! {
            #[test]
            fn vector_observation_equals_scalar(n in 0usize..5000, seed in any::<u64>()) {
                check(n, seed);
            }
        }
    }
}
