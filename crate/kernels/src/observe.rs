//! The per-element work of calibration, vectorized: one tensor's min, max and first non-finite
//! element ([`scan`]), and its histogram bins ([`bin_counts`]), four values per SIMD128 vector
//! ([`V128`]: the real intrinsics on wasm32 with SIMD128, lane emulation elsewhere).
//!
//! Each has a scalar specification next to it ([`scan_scalar`], [`bin_counts_scalar`]) that the
//! tests compare it with bit for bit: the vector code must record exactly what the scalar code
//! records, down to the sign of a zero extreme (the tests are the calibrator's,
//! `zeropoint::quant::observe_tests`, which pick the histogram grids it uses).

use crate::simd128::v128::V128;

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

/// [`scan_scalar`], eight values (two vectors) at a time: per-lane extremes by `pmin` / `pmax`
/// (`v < lo ? v : lo`, the comparison the scalar scan makes), in two independent pairs of
/// accumulators, reduced; a zero extreme takes the sign of the first zero; any non-finite value
/// sends the tensor to the scalar scan (which finds the first one).
pub fn scan(values: &[f32]) -> (f32, f32, Option<usize>) {
    let chunks = values.chunks_exact(8);
    let rest = chunks.remainder();
    let inf = V128::splat_f32(f32::INFINITY);
    let (mut lo0, mut hi0) = (inf, V128::splat_f32(f32::NEG_INFINITY));
    let (mut lo1, mut hi1) = (lo0, hi0);
    let mut finite = V128::splat_i32(-1);
    for c in chunks {
        let (Some(a), Some(b)) = (c.first_chunk::<4>(), c.last_chunk::<4>()) else {
            continue;
        };
        let (a, b) = (V128::load_f32(a), V128::load_f32(b));
        lo0 = lo0.f32x4_pmin(a);
        hi0 = hi0.f32x4_pmax(a);
        lo1 = lo1.f32x4_pmin(b);
        hi1 = hi1.f32x4_pmax(b);
        // |v| < inf is false for ±inf and NaN.
        finite = finite
            .and(a.f32x4_abs().f32x4_lt(inf))
            .and(b.f32x4_abs().f32x4_lt(inf));
    }
    if finite.to_i32().contains(&0) || rest.iter().any(|v| !v.is_finite()) {
        return scan_scalar(values);
    }
    let (mut l, mut h) = (f32::INFINITY, f32::NEG_INFINITY);
    for &v in lo0.to_f32().iter().chain(&lo1.to_f32()).chain(rest) {
        if v < l {
            l = v;
        }
    }
    for &v in hi0.to_f32().iter().chain(&hi1.to_f32()).chain(rest) {
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
/// the calibrator's `zeropoint::quant::calibrate::GrowingHistogram::bin`): on a grid of width
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

/// [`bin_counts_scalar`], vectorized: in `f32`, four values at a time, where that is provably
/// the same arithmetic (`bin_counts_f32`), else in `f64`, two at a time (`bin_counts_f64`).
/// The values must be finite.
pub fn bin_counts(values: &[f32], scale: f64, base: f64, counts: &mut [u32]) {
    let Some(last) = counts.len().checked_sub(1) else {
        return;
    };
    // 2^22: with |base| and last below it, every bound and sum below is an integer under 2^24.
    const LIMIT: f64 = 4_194_304.0;
    let power_of_two = scale.to_bits() & ((1 << 52) - 1) == 0;
    if power_of_two
        && (1.0..=2f64.powi(126)).contains(&scale)
        && base.abs() < LIMIT
        && (last as f64) < LIMIT
    {
        bin_counts_f32(values, scale as f32, base as f32, counts);
    } else if i32::try_from(last).is_ok() {
        bin_counts_f64(values, scale, base, counts);
    } else {
        bin_counts_scalar(values, scale, base, counts);
    }
}

/// [`bin_counts_scalar`] in `f32` lanes, for a power-of-two `scale` in `[1, 2^126]`, an integer
/// `|base| < 2^22` and fewer than `2^22` bins (the conditions [`bin_counts`] checks), finite
/// values. Why the bins are the same:
/// - `v · scale` is exact in `f32` (a power-of-two scaling up cannot underflow, and `f32` has
///   the same mantissa as `v`) unless it overflows to `±inf`, where the `f64` product is beyond
///   every bin anyway; so `floor` gives the same integer `q` as in `f64`.
/// - `q` clamped to `[base, base + last]` (`pmax` / `pmin`, exact bounds under `2^24`) is the
///   `f64` clamp of `q − base` to `[0, last]`, shifted by `base`.
/// - `q + (2^23 − base)` is an integer in `[2^23, 2^23 + last]`, exact, whose `f32` bits are
///   `0x4B00_0000 +` the bin.
pub fn bin_counts_f32(values: &[f32], scale: f32, base: f32, counts: &mut [u32]) {
    const MAGIC: f32 = 8_388_608.0; // 2^23
    let last = (counts.len() - 1) as f32;
    let (s4, lo, hi) = (
        V128::splat_f32(scale),
        V128::splat_f32(base),
        V128::splat_f32(base + last),
    );
    let shift = V128::splat_f32(MAGIC - base);
    let bits = V128::splat_i32(MAGIC.to_bits() as i32);
    let quads = values.chunks_exact(4);
    let rest = quads.remainder();
    for c in quads {
        let Some(c) = c.first_chunk::<4>() else {
            continue;
        };
        let q = V128::load_f32(c).f32x4_mul(s4).f32x4_floor();
        let q = q.f32x4_pmax(lo).f32x4_pmin(hi).f32x4_add(shift);
        let i = q.i32x4_sub(bits).to_i32();
        for b in i {
            counts[b as u32 as usize] += 1;
        }
    }
    bin_counts_scalar(rest, f64::from(scale), f64::from(base), counts);
}

/// [`bin_counts_scalar`] two `f64` lanes at a time: the same product, floor and subtraction (so
/// the same integer `q`), then `q` clamped to `[0, last]`. The integer is read from the low word
/// of `q + 2^52` (exact for `0 ≤ q < 2^31`): cheaper in V8 than `i32x4.trunc_sat_f64x2_s_zero`.
/// `counts.len()` must be at most `2^31`.
fn bin_counts_f64(values: &[f32], scale: f64, base: f64, counts: &mut [u32]) {
    /// `2^52`: adding it to an integer-valued `f64` below `2^52` leaves the integer in the low
    /// mantissa bits.
    const MAGIC: f64 = 4_503_599_627_370_496.0;
    let last = counts.len() - 1;
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
