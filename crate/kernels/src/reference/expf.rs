//! `expf` as TF 2.21's x86-64 wheel gets it from glibc, so that native and wasm builds agree
//! with LiteRT (Rust's `f32::exp` is the platform's libm natively, and a port of another
//! algorithm in wasm, which differs in the last bit for about 0.7 % of inputs in [-20, 17]).
//!
//! glibc's single-precision `expf` (the algorithm of Arm's optimized-routines, 2017): in double,
//! `z = x · 32/ln2`, `k = round(z)` to nearest even (by adding and subtracting `1.5 · 2^52`),
//! `r = z − k` and `2^(k/32) = T[k mod 32]` with `k` added to the exponent bits, then the cubic
//! `s · (C0·r³ + C1·r² + C2·r + 1)`, rounded once to float. On a CPU with FMA, as here, glibc runs
//! its FMA build, where `x · 32/ln2 − k` and the polynomial's three multiply-adds are fused;
//! [`expf`] fuses the same four (`f64::mul_add`, correctly rounded in wasm as well). Checked
//! against glibc on all 2^32 float bit patterns: 0 differ (an unfused polynomial differed on 2).

/// `2^(i/32)`'s bits with `i << 47` subtracted (the exponent adjustment), `i = 0..32`: glibc's
/// `__exp2f_data.tab`.
const TABLE: [u64; 32] = [
    4607182418800017408,
    4607140297302181236,
    4607100335213349135,
    4607062579818421073,
    4607027079437701499,
    4606993883449571754,
    4606963042313658936,
    4606934607594512097,
    4606908631985796885,
    4606885169335019979,
    4606864274668794914,
    4606846004218661165,
    4606830415447468583,
    4606817567076339586,
    4606807519112221737,
    4606800332876043653,
    4606796071031487437,
    4606794797614391156,
    4606796578062795143,
    4606801479247646227,
    4606809569504174299,
    4606820918663955941,
    4606835598087680144,
    4606853680698631517,
    4606875241016906669,
    4606900355194379847,
    4606929101050434204,
    4606961558108475497,
    4606997807633245319,
    4607037932668951391,
    4607082018078232794,
    4607130150581978432,
];

/// glibc's `expf` (see the module doc).
pub fn expf(x: f32) -> f32 {
    let inv_ln2_32 = f64::from_bits(0x4047_1547_652B_82FE); // 32 / ln 2
    let c0 = f64::from_bits(0x3EBC_6AF8_4B91_2394);
    let c1 = f64::from_bits(0x3F2E_BFCE_50FA_C4F3);
    let c2 = f64::from_bits(0x3F96_2E42_FF0C_52D6);
    let shift = f64::from_bits(0x4338_0000_0000_0000); // 1.5 · 2^52
    let top = |v: f32| (v.to_bits() >> 20) & 0x7ff;
    if top(x) >= top(88.0) {
        // |x| ≥ 88, or NaN.
        if x == f32::NEG_INFINITY {
            return 0.0;
        }
        if top(x) >= top(f32::INFINITY) {
            return x + x;
        }
        if x > f32::from_bits(0x42b1_7217) {
            return f32::INFINITY; // above ln(2^128)
        }
        if x < f32::from_bits(0xc2cf_f1b4) {
            return 0.0; // below ln(2^-150)
        }
    }
    let xd = f64::from(x);
    let shifted = inv_ln2_32 * xd + shift;
    let ki = shifted.to_bits();
    let kd = shifted - shift;
    let r = inv_ln2_32.mul_add(xd, -kd);
    let s = f64::from_bits(TABLE[(ki % 32) as usize].wrapping_add(ki << 47));
    let z = c0.mul_add(r, c1);
    let y = c2.mul_add(r, 1.0);
    let y = z.mul_add(r * r, y);
    (y * s) as f32
}

// Not in wasm, where `f32::exp` is another algorithm.
#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;

    /// Against the C library natively (glibc, whose FMA build the module reproduces), on every
    /// 4099th bit pattern, the special values and the two inputs an unfused polynomial misses.
    #[test]
    fn equals_the_c_library() {
        let mut checked = 0;
        for b in (0..=u32::MAX).step_by(4099).chain([
            0x7f80_0000,
            0xff80_0000,
            0x42b1_7217,
            0x42b1_7218,
            0xc2cf_f1b4,
            0xc2cf_f1b5,
            0x4202_422f,
            0xc27c_65d9,
        ]) {
            let x = f32::from_bits(b);
            let (want, got) = (x.exp(), expf(x));
            assert!(
                want.to_bits() == got.to_bits() || (want.is_nan() && got.is_nan()),
                "expf({x:e}) = {got:e}, libm {want:e}"
            );
            checked += 1;
        }
        assert!(checked > 1_000_000);
    }
}
