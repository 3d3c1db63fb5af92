//! The calibrator's observation kernels ([`crate::kernels::observe`]) against their scalar
//! specifications, bit for bit, on the histogram grids the calibrator fits.

use crate::kernels::observe::*;

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

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn f32_bins_equal_the_scalar_ones_at_the_edges_of_their_domain() {
    // Overflow of v · scale, subnormals, signed zeros, values just below an integer, bases
    // at the limit of the f32 path.
    let mut v = vec![
        0.0f32,
        -0.0,
        1e-45,
        -1e-45,
        1.1754942e-38,
        -1.1754942e-38,
        f32::MAX,
        -f32::MAX,
        0.5,
        -0.5,
        1.0,
        -1.0,
        3.9999998,
        -3.9999998,
        4_194_303.0,
        -4_194_304.0,
        1e30,
        -1e30,
    ];
    v.extend(v.clone().iter().map(|x| x * 0.75));
    for k in [0, 1, 23, 24, 60, 126] {
        let scale = 2f64.powi(k);
        for base in [
            -4_194_303i64,
            -4_194_000,
            -1000,
            -1,
            0,
            1,
            4_194_000,
            4_194_303,
        ] {
            for bins in [2usize, 3, 2048] {
                let (mut x, mut y, mut z) = (vec![0u32; bins], vec![0u32; bins], vec![0u32; bins]);
                bin_counts(&v, scale, base as f64, &mut x);
                bin_counts_f32(&v, scale as f32, base as f32, &mut y);
                bin_counts_scalar(&v, scale, base as f64, &mut z);
                assert_eq!((&x, &y), (&z, &z), "scale 2^{k} base {base} bins {bins}");
            }
        }
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
