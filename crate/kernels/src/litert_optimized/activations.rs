//! TANH, LOGISTIC, SOFTMAX and HARD_SWISH as LiteRT's optimized float kernels compute them in
//! TF 2.21's x86-64 wheel. The first three are Eigen's vectorized `ptanh_float`, logistic and
//! `pexp_float` (AVX, no FMA, so every `pmadd` is a multiply then an add, each rounded),
//! evaluated lane by lane; HARD_SWISH is [`hard_swish`]'s two formulas.
//!
//! For the Eigen ones every element goes through the 8-lane packet formula — the wheel loads the unaligned head and
//! the tail of a buffer with masked packet loads (`vmaskmovps`), so there is no scalar path with
//! other arithmetic. The constants are the `f32` values the kernels load, given as bit
//! patterns; the formulas were read from the disassembly of `libpywrap_tflite_common.so`
//! (`activations::TanhEval<kGenericOptimized>`, `SigmoidEval<kGenericOptimized>`,
//! `optimized_ops::SoftmaxImpl`) and checked bit for bit against TF 2.21's interpreter on the
//! golden cases and on random and edge inputs (365 000 per elementwise operator, 102 SOFTMAX
//! shapes and betas).
//!
//! Only IEEE basic operations (and `floor`, which is exact) are used, so wasm and native agree,
//! with one exception: [`erfc_f32_tf`] (TF's exact GELU, for calibration) starts from the CPU's
//! reciprocal estimate (`rcpss`), which only x86 has and which differs between CPU makers; where
//! there is none it divides, as LiteRT's [`erfc_f32`] does.

use super::eigen;

/// `x < y ? x : y` — `minps`' operand order (the second operand when either is NaN).
#[inline(always)]
fn min_ps(a: f32, b: f32) -> f32 {
    if a < b { a } else { b }
}

/// `x > y ? x : y` — `maxps`' operand order (the second operand when either is NaN).
#[inline(always)]
fn max_ps(a: f32, b: f32) -> f32 {
    if a > b { a } else { b }
}

/// `2^e` for `-126 ≤ e ≤ 127`, built from its exponent bits.
#[inline(always)]
fn pow2(e: i32) -> f32 {
    f32::from_bits(((e + 127) as u32) << 23)
}

/// `y · 2^m` rounded once (Eigen's `pldexp` / the fast exponent-bits path, which agree here):
/// the partial scalings by powers of two are exact, only the last one rounds (to a subnormal, or
/// to infinity).
#[inline(always)]
fn ldexp(y: f32, m: i32) -> f32 {
    if m > 127 {
        y * pow2(127) * pow2((m - 127).min(127))
    } else if m < -126 {
        y * pow2((m + 126).max(-126)) * pow2(-126)
    } else {
        y * pow2(m)
    }
}

/// Eigen's `ptanh_float` (AVX, no FMA): clamp to ±7.90738964, then the [9/8] odd/even rational
/// `(x + x³·p(x²)) / q(x²)`.
#[inline(always)]
pub fn tanh_f32(x: f32) -> f32 {
    const CLAMP: f32 = f32::from_bits(0x40fd_0956); // 7.90738964
    const A9: f32 = f32::from_bits(0x326f_951e);
    const A7: f32 = f32::from_bits(0x37b0_63dc);
    const A5: f32 = f32::from_bits(0x3b66_bc7f);
    const A3: f32 = f32::from_bits(0x3e09_3cf6);
    const B8: f32 = f32::from_bits(0x3557_2c00);
    const B6: f32 = f32::from_bits(0x39ae_6d96);
    const B4: f32 = f32::from_bits(0x3cd4_c460);
    const B2: f32 = f32::from_bits(0x3eef_4922);
    let x = max_ps(-CLAMP, min_ps(CLAMP, x));
    let x2 = x * x;
    let x3 = x2 * x;
    let p = ((A9 * x2 + A7) * x2 + A5) * x2 + A3;
    let q = (((B8 * x2 + B6) * x2 + B4) * x2 + B2) * x2 + 1.0;
    (x + x3 * p) / q
}

/// Eigen's float logistic (AVX, no FMA): with `x' = min(x, 16.6355324) / 2`, `e = exp(x')²` by
/// the Cephes-style range reduction (`m = ⌊x'·log₂e + ½⌋`, `r = x' − m·ln2` in two steps) and a
/// degree-4 polynomial, `e / (1 + e)`; 0 below −104.
#[inline(always)]
pub fn logistic_f32(x: f32) -> f32 {
    const CUTOFF_UPPER: f32 = f32::from_bits(0x4185_1592); // 16.6355324
    const CUTOFF_LOWER: f32 = -104.0;
    const LOG2E: f32 = f32::from_bits(0x3fb8_aa3b);
    const C1: f32 = -0.693_359_4; // -0.693359375
    const C2: f32 = f32::from_bits(0x395e_8083); // 2.12194440e-4
    const P4: f32 = f32::from_bits(0x3d2b_9df0);
    const P2: f32 = f32::from_bits(0x3eff_fee0);
    const P3: f32 = f32::from_bits(0x3c08_8e52);
    const P1: f32 = f32::from_bits(0x3e2a_ab38);
    let h = min_ps(CUTOFF_UPPER, x) * 0.5;
    let m = (h * LOG2E + 0.5).floor();
    let r = m * C2 + (h + m * C1);
    let r2 = r * r;
    let even = r2 * P4 + P2;
    let odd = r * (r2 * P3 + P1);
    let poly = (r + 1.0) + r2 * (even + odd);
    // 2^m from exponent bits, the biased exponent clamped to [0, 255].
    let biased = (m + 127.0).clamp(0.0, 255.0) as u32;
    let e = poly * f32::from_bits(biased << 23);
    let e = e * e;
    let v = e / (e + 1.0);
    if x < CUTOFF_LOWER { 0.0 } else { v }
}

/// Eigen's `pexp_float` (AVX, no FMA): `x` clamped above at 88.723, `m = ⌊x·log₂e + ½⌋`,
/// `r = x − m·ln2` (two steps), a degree-6 polynomial in even/odd halves, `y·2^m` rounded once,
/// `max(x, ·)`; 0 below −104.
#[inline(always)]
pub fn exp_f32(x: f32) -> f32 {
    const HI: f32 = f32::from_bits(0x42b1_722d); // 88.723
    const LO: f32 = -104.0;
    const LOG2E: f32 = f32::from_bits(0x3fb8_aa3b);
    const C1: f32 = -0.693_359_4;
    const C2: f32 = f32::from_bits(0x395e_8083);
    const P6: f32 = f32::from_bits(0x3ab4_2872);
    const P5: f32 = f32::from_bits(0x3c09_1de6);
    const P4: f32 = f32::from_bits(0x3d2a_adcc);
    const P3: f32 = f32::from_bits(0x3e2a_aa47);
    const P2: f32 = f32::from_bits(0x3eff_fffc);
    let c = min_ps(HI, x);
    let m = (c * LOG2E + 0.5).floor();
    let r = m * C2 + (m * C1 + c);
    let r2 = r * r;
    let even = r2 * (r2 * P6 + P4) + P2;
    let odd = r2 * P5 + P3;
    let y = (r + 1.0) + r2 * (r * odd + even);
    // `m` is in [-150, 128] for x in [-104, 88.723]; NaN casts to 0 and stays NaN through `y`.
    let v = max_ps(x, ldexp(y, (m as i32).clamp(-278, 278)));
    if x < LO { 0.0 } else { v }
}

/// Horner's rule as Eigen's `ppolevl` without FMA: `coeffs[0]` is the highest degree, each step
/// a multiply then an add, each rounded.
#[inline(always)]
fn polevl(x: f32, coeffs: &[f32]) -> f32 {
    coeffs[1..].iter().fold(coeffs[0], |p, &c| p * x + c)
}

/// Eigen's `generic_fast_erfc<float>` (no FMA): `x` clamped to ±11; for `x² ≤ 1`,
/// `1 + x·S(x²)`; otherwise `exp(−x²)·(1 − x²_lo) · P(1/x²) / (x·Q(1/x²))` (+2 for negative
/// `x`), with `x²_lo` the exact rounding error of `x²` and [`exp_f32`] for the exponential, and
/// `1/x²` a division. What LiteRT's float GELU (exact form) computes; checked bit for bit against
/// `BUILTIN_REF` on 4099 inputs over [−6, 6] (`tiny_vit` and a dense grid).
pub fn erfc_f32(x_in: f32) -> f32 {
    erfc_with(x_in, |a| 1.0 / a)
}

/// [`erfc_f32`] as TF 2.21's wheel computes it, which TF's calibrator runs: that build has
/// AVX and Eigen's `EIGEN_FAST_MATH`, so `1/x²` is `preciprocal<Packet8f>`, the CPU's `rcpps`
/// estimate refined by one Newton step ([`reciprocal_rcp_newton`]). It differs from LiteRT's
/// in the last bit for some `|x| > 1` (89 of the 4096 GELU outputs of the zoo's `tiny_vit` on
/// one sample, all equal to TF's interpreter with this).
pub fn erfc_f32_tf(x_in: f32) -> f32 {
    erfc_with(x_in, reciprocal_rcp_newton)
}

/// Eigen's AVX `preciprocal` under `EIGEN_FAST_MATH` without FMA
/// (`generic_reciprocal_newton_step<Packet8f, 1>` on `_mm256_rcp_ps`): `r = rcp(a)`,
/// `t = 1 − a·r`, then `r·t + r` (each step rounded), or `r` itself when `t` is NaN (`a` is ±0 or
/// ±∞). The estimate is the CPU's own (`rcpss`: Intel's and AMD's differ in the last bits of the
/// estimate, and so TF's results do); without x86 there is none, and the exact quotient stands in.
pub fn reciprocal_rcp_newton(a: f32) -> f32 {
    let r = rcp_estimate(a);
    let t = 1.0 - a * r;
    if t.is_nan() { r } else { r * t + r }
}

#[cfg(target_arch = "x86_64")]
fn rcp_estimate(a: f32) -> f32 {
    use std::arch::x86_64::{_mm_cvtss_f32, _mm_rcp_ss, _mm_set_ss};
    // SAFETY: SSE is part of the x86-64 baseline, so these instructions exist on every CPU
    // this code runs on.
    unsafe { _mm_cvtss_f32(_mm_rcp_ss(_mm_set_ss(a))) }
}

#[cfg(not(target_arch = "x86_64"))]
fn rcp_estimate(a: f32) -> f32 {
    1.0 / a
}

/// [`erfc_f32`]'s formula with `recip` computing `1/x²`.
#[inline(always)]
fn erfc_with(x_in: f32, recip: impl Fn(f32) -> f32) -> f32 {
    // Eigen's coefficients, written as their exact float bits.
    const ALPHA: [f32; 6] = [
        f32::from_bits(0x3a13_45ea),
        f32::from_bits(0xbba1_0415),
        f32::from_bits(0x3cda_c9b8),
        f32::from_bits(0xbde7_03be),
        f32::from_bits(0x3ec0_9330),
        f32::from_bits(0xbf90_6eba),
    ];
    const GAMMA: [f32; 4] = [
        f32::from_bits(0x3dd1_0fee),
        f32::from_bits(0x3edb_c0fa),
        f32::from_bits(0x3ea5_c7e8),
        f32::from_bits(0x3d5d_11b8),
    ];
    const DELTA: [f32; 5] = [
        f32::from_bits(0x3c8d_5364),
        f32::from_bits(0x3ec8_61dd),
        1.0,
        f32::from_bits(0x3f1f_29db),
        f32::from_bits(0x3dc3_eae4),
    ];
    let x = min_ps(max_ps(x_in, -11.0), 11.0);
    let x2 = x * x;
    // `1 < x²` is false for NaN too: the small branch, as Eigen's mask.
    if x2.partial_cmp(&1.0) != Some(std::cmp::Ordering::Greater) {
        return x * polevl(x2, &ALPHA) + 1.0;
    }
    // The product of two floats is exact in f64, so this is the exact low part.
    let x2_lo = (f64::from(x) * f64::from(x) - f64::from(x2)) as f32;
    let e = exp_f32(-x2);
    let z = e - e * x2_lo;
    let q2 = recip(x2);
    let r = polevl(q2, &GAMMA) / (x * polevl(q2, &DELTA));
    z * r + if x < 0.0 { 2.0 } else { 0.0 }
}

/// TANH (float), element by element.
pub fn tanh(input: &[f32], output: &mut [f32]) {
    for (o, &x) in output.iter_mut().zip(input) {
        *o = tanh_f32(x);
    }
}

/// LOGISTIC (float), element by element.
pub fn logistic(input: &[f32], output: &mut [f32]) {
    for (o, &x) in output.iter_mut().zip(input) {
        *o = logistic_f32(x);
    }
}

/// HARD_SWISH (float) as `optimized_ops::HardSwish` (its NEON loop, which the x86 build runs
/// through NEON_2_SSE): in groups of 4 elements, `(x · ⅙) · min(6, max(0, x + 3))`; the last
/// `len mod 4` elements go through the scalar loop, `(x · min(6, max(0, x + 3))) · ⅙` (the
/// compiler turned its `/ 6` into a multiply by the `f32` nearest ⅙).
pub fn hard_swish(input: &[f32], output: &mut [f32]) {
    const SIXTH: f32 = 1.0 / 6.0;
    let grouped = input.len() / 4 * 4;
    for (i, (o, &x)) in output.iter_mut().zip(input).enumerate() {
        let r = x + 3.0;
        if i < grouped {
            let r = min_ps(6.0, max_ps(0.0, r));
            *o = (x * SIXTH) * r;
        } else {
            // std::max(0.0f, r) / std::min(6.0f, ·): `maxss r, 0` and `minss ·, 6`.
            let r = max_ps(r, 0.0);
            let r = min_ps(r, 6.0);
            *o = (x * r) * SIXTH;
        }
    }
}

/// SOFTMAX along the last axis (`depth` elements per row), as `optimized_ops::Softmax`
/// (`SoftmaxImpl`, Eigen): `(x − row max) · beta`, [`exp_f32`], the row sum as Eigen reduces it
/// (its packet alignment taken from the row's offset in the tensor), `1 / sum`, and each
/// exponential times that reciprocal.
pub fn softmax(beta: f32, depth: usize, input: &[f32], output: &mut [f32]) {
    if depth == 0 {
        return;
    }
    for (row, (row_in, row_out)) in input
        .chunks_exact(depth)
        .zip(output.chunks_exact_mut(depth))
        .enumerate()
    {
        let max = row_in[1..]
            .iter()
            .fold(row_in[0], |m, &x| if x > m { x } else { m });
        for (o, &x) in row_out.iter_mut().zip(row_in) {
            *o = exp_f32((x - max) * beta);
        }
        let head = eigen::head_to_alignment(row * depth);
        let scale = 1.0 / eigen::aligned_sum(row_out, head);
        for o in row_out.iter_mut() {
            *o *= scale;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (input bits, output bits) from TF 2.21's interpreter (the tensorflow-cpu 2.21.0 wheel,
    /// `BUILTIN_WITHOUT_DEFAULT_DELEGATES`), on inputs chosen at the kernels' cut-offs.
    const TANH_TF: &[(u32, u32)] = &[
        (0x0000_0000, 0x0000_0000),
        (0x8000_0000, 0x8000_0000),
        (0x0da2_4260, 0x0da2_4260),
        (0x399d_4952, 0x399d_4952),
        (0x39d1_b717, 0x39d1_b715),
        (0xbebd_70a4, 0xbeb5_3e67),
        (0x3f00_0000, 0x3eec_9a9e),
        (0x3f80_0000, 0x3f42_f7d6),
        (0xc020_0000, 0xbf7c_92c2),
        (0x4080_0000, 0x3f7f_d40b),
        (0x40fd_0955, 0x3f7f_fffb),
        (0x40fd_0956, 0x3f80_0000),
        (0x40fd_0957, 0x3f80_0000),
        (0xc110_0000, 0xbf80_0000),
        (0x41a0_0000, 0x3f80_0000),
        (0xf149_f2ca, 0xbf80_0000),
    ];
    const LOGISTIC_TF: &[(u32, u32)] = &[
        (0x0000_0000, 0x3f00_0000),
        (0x8000_0000, 0x3f00_0000),
        (0x0da2_4260, 0x3f00_0000),
        (0x3f00_0000, 0x3f1f_597f),
        (0xbf80_0000, 0x3e89_b2b0),
        (0x4053_3333, 0x3f76_e4cf),
        (0xc0e0_0000, 0x3a6e_d39d),
        (0xc118_0000, 0x389c_f6c3),
        (0xc1a0_0000, 0x310d_a435),
        (0xc250_0000, 0x19fc_7361),
        (0xc2af_0000, 0x006c_b2bb),
        (0xc2cf_cccd, 0x0000_0001),
        (0xc2cf_ffff, 0x0000_0000),
        (0xc2d0_0000, 0x0000_0000),
        (0xc2d0_0001, 0x0000_0000),
        (0xc348_0000, 0x0000_0000),
        (0x4185_1591, 0x3f7f_ffff),
        (0x4185_1592, 0x3f80_0000),
        (0x41f0_0000, 0x3f80_0000),
    ];

    #[test]
    fn tanh_matches_tf() {
        for &(x, y) in TANH_TF {
            assert_eq!(
                tanh_f32(f32::from_bits(x)).to_bits(),
                y,
                "tanh({})",
                f32::from_bits(x)
            );
        }
    }

    #[test]
    fn logistic_matches_tf() {
        for &(x, y) in LOGISTIC_TF {
            let got = logistic_f32(f32::from_bits(x)).to_bits();
            assert_eq!(got, y, "logistic({})", f32::from_bits(x));
        }
    }

    /// TF 2.21's SOFTMAX (beta 1) of 2 rows of 20, `x_i = ((7·i) mod 23)/4 − 2`: row 0 sums
    /// two packet pairs and a 4-element tail, row 1 (offset 20) a 4-element head first.
    const SOFTMAX_TF: [u32; 40] = [
        0x3a7c_cd80,
        0x3bb5_d8f0,
        0x3d02_ceb5,
        0x3e3c_2fac,
        0x3b5c_9792,
        0x3c9e_ad6e,
        0x3de4_480b,
        0x3b05_cbbd,
        0x3c40_7c49,
        0x3d8a_75ae,
        0x3aa2_4d75,
        0x3be9_7f28,
        0x3d27_f5c8,
        0x3e71_a2ca,
        0x3b8d_9f77,
        0x3ccb_bef3,
        0x3e12_8f41,
        0x3b2b_cc1a,
        0x3c77_2800,
        0x3db1_c928,
        0x3ad9_56a2,
        0x3c1c_5647,
        0x3d60_ea15,
        0x3a83_d28a,
        0x3bbd_a57b,
        0x3d08_6adf,
        0x3e44_41d0,
        0x3b66_0d7f,
        0x3ca5_7b95,
        0x3dee_1265,
        0x3b0b_88b6,
        0x3c48_bda0,
        0x3d90_65dc,
        0x3aa9_436a,
        0x3bf3_82c4,
        0x3d2f_29da,
        0x3e7b_ffc3,
        0x3b93_b260,
        0x3cd4_7beb,
        0x3e18_d85d,
    ];

    #[test]
    fn softmax_matches_tf() {
        let x: Vec<f32> = (0..40)
            .map(|i| ((i * 7) % 23) as f32 * 0.25 - 2.0)
            .collect();
        let mut y = vec![0.0f32; 40];
        softmax(1.0, 20, &x, &mut y);
        let got: Vec<u32> = y.iter().map(|v| v.to_bits()).collect();
        assert_eq!(got, SOFTMAX_TF);
    }

    /// TF 2.21's HARD_SWISH of 7 elements: the last 3 repeat the first 3 but go through the
    /// scalar loop, and come out one ulp away.
    #[test]
    fn hard_swish_matches_tf() {
        let x: [u32; 7] = [
            0x401a_40a6,
            0xbf08_f4be,
            0x3ff0_34fe,
            0xc060_0000,
            0x401a_40a6,
            0xbf08_f4be,
            0x3ff0_34fe,
        ];
        let y_tf: [u32; 7] = [
            0x400b_16e3,
            0xbe61_10d9,
            0x3fc3_3ba2,
            0x8000_0000,
            0x400b_16e4,
            0xbe61_10da,
            0x3fc3_3ba3,
        ];
        let x = x.map(f32::from_bits);
        let mut y = [0.0f32; 7];
        hard_swish(&x, &mut y);
        assert_eq!(y.map(f32::to_bits), y_tf);
    }
}
