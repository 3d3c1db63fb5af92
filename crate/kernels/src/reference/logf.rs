//! `logf` as TF 2.21's x86-64 wheel gets it from glibc (2.36 here), so that native and wasm
//! builds agree with LiteRT (Rust's `f32::ln` is the platform's libm natively, and a port of
//! another algorithm in wasm, which differs in the last bit for about 5 % of inputs in
//! [1, 300]).
//!
//! glibc's single-precision `logf` (the algorithm of Arm's optimized-routines, 2017): `x = 2^k ·
//! z` with `z` in `[0x3f330000, 2 · 0x3f330000)` (as bits), one of 16 subintervals `i` picked by
//! the top mantissa bits, and in double `r = z · (1/c_i) − 1`,
//! `log x = log1p(r) + log c_i + k · ln 2` with `log1p(r) ≈ r + A0·r⁴ + A1·r³ + A2·r²` evaluated
//! as `((A1·r + A2) + A0·r²) · r² + (y0 + r)`, rounded once to float. On a CPU with FMA glibc
//! runs its FMA build, where `z · invc − 1`, `logc + k · ln2` and the three polynomial steps are
//! fused; [`logf`] fuses the same five (`f64::mul_add`, correctly rounded in wasm as well).
//! Checked against this machine's glibc on every positive finite float: 0 differ.

/// `(1/c_i, log c_i)` for the 16 subintervals: glibc's `__logf_data.tab`.
const TABLE: [(u64, u64); 16] = [
    (0x3FF6_61EC_79F8_F3BE, 0xBFD5_7BF7_808C_AADE),
    (0x3FF5_71ED_4AAF_883D, 0xBFD2_BEF0_A7C0_6DDB),
    (0x3FF4_9539_F0F0_10B0, 0xBFD0_1EAE_7F51_3A67),
    (0x3FF3_C995_B0B8_0385, 0xBFCB_31D8_A682_24E9),
    (0x3FF3_0D19_0C88_64A5, 0xBFC6_574F_0AC0_7758),
    (0x3FF2_5E22_7B0B_8EA0, 0xBFC1_AA2B_C79C_8100),
    (0x3FF1_BB4A_4A1A_343F, 0xBFBA_4E76_CE8C_0E5E),
    (0x3FF1_2358_F08A_E5BA, 0xBFB1_973C_5A61_1CCC),
    (0x3FF0_953F_4199_00A7, 0xBFA2_52F4_38E1_0C1E),
    (0x3FF0_0000_0000_0000, 0x0000_0000_0000_0000),
    (0x3FEE_608C_FD9A_47AC, 0x3FAA_A5AA_5DF2_5984),
    (0x3FEC_A4B3_1F02_6AA0, 0x3FBC_5E53_AA36_2EB4),
    (0x3FEB_2036_576A_FCE6, 0x3FC5_26E5_7720_DB08),
    (0x3FE9_C2D1_63A1_AA2D, 0x3FCB_C286_0D22_4770),
    (0x3FE8_86E6_0378_41ED, 0x3FD1_058B_C8A0_7EE1),
    (0x3FE7_67DC_F553_4862, 0x3FD4_0430_57B6_EE09),
];

/// glibc's `logf` (see the module doc): −∞ at ±0, NaN below zero and for NaN, +∞ at +∞.
pub fn logf(x: f32) -> f32 {
    const OFF: u32 = 0x3f33_0000;
    let ln2 = f64::from_bits(0x3FE6_2E42_FEFA_39EF);
    let a0 = f64::from_bits(0xBFD0_0EA3_48B8_8334);
    let a1 = f64::from_bits(0x3FD5_575B_0BE0_0B6A);
    let a2 = f64::from_bits(0xBFDF_FFFE_F20A_4123);
    let mut ix = x.to_bits();
    if ix == 0x3f80_0000 {
        return 0.0;
    }
    if ix.wrapping_sub(0x0080_0000) >= 0x7f80_0000 - 0x0080_0000 {
        // Below 2^-126 (zero, subnormal, negative), ∞ or NaN.
        if ix << 1 == 0 {
            return f32::NEG_INFINITY;
        }
        if ix == 0x7f80_0000 {
            return x;
        }
        if ix & 0x8000_0000 != 0 || ix << 1 >= 0xff00_0000 {
            return f32::NAN;
        }
        // Subnormal: scale into the normal range, take 23 off the exponent.
        ix = (x * f32::from_bits(0x4b00_0000))
            .to_bits()
            .wrapping_sub(23 << 23);
    }
    let tmp = ix.wrapping_sub(OFF);
    let i = ((tmp >> (23 - 4)) % 16) as usize;
    let k = (tmp as i32) >> 23;
    let iz = ix.wrapping_sub(tmp & (0x1ff << 23));
    let (invc, logc) = (f64::from_bits(TABLE[i].0), f64::from_bits(TABLE[i].1));
    let z = f64::from(f32::from_bits(iz));
    let r = z.mul_add(invc, -1.0);
    let y0 = f64::from(k).mul_add(ln2, logc);
    let r2 = r * r;
    let y = a1.mul_add(r, a2);
    let y = a0.mul_add(r2, y);
    y.mul_add(r2, y0 + r) as f32
}

#[cfg(test)]
mod tests {
    use super::logf;

    #[cfg_attr(not(target_arch = "wasm32"), test)]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn logs_of_powers_of_two_and_edges() {
        // log 2^k = k · ln 2 rounded to float (ln 2 = 0.693147180559945…).
        assert_eq!(logf(1.0), 0.0);
        assert_eq!(logf(2.0), std::f32::consts::LN_2);
        assert_eq!(logf(256.0), (8.0 * std::f64::consts::LN_2) as f32);
        assert_eq!(logf(0.5), -std::f32::consts::LN_2);
        assert_eq!(logf(0.0), f32::NEG_INFINITY);
        assert_eq!(logf(f32::INFINITY), f32::INFINITY);
        assert!(logf(-1.0).is_nan() && logf(f32::NAN).is_nan());
        // The smallest subnormal: −149 · ln 2 = −103.27893.
        assert_eq!(
            logf(f32::from_bits(1)),
            (-149.0 * std::f64::consts::LN_2) as f32
        );
        // Within one ulp of the double-precision logarithm elsewhere.
        for x in [1.5f32, 3.0, 10.0, 1e-20, 7.77e30] {
            let want = f64::from(x).ln();
            assert!(
                (f64::from(logf(x)) - want).abs() <= want.abs() * 1.2e-7,
                "{x}"
            );
        }
    }
}
