//! How the int8 convolutions use `i32x4.relaxed_dot_i8x16_i7x16_add_s` (relaxed-SIMD builds).
//!
//! The relaxed dot product multiplies 16 int8 values `a` by 16 values `b` and adds each group of
//! four products to one int32 lane. The specification fixes the result only when every byte of
//! `b` is in `0..=127`; otherwise each engine picks one behaviour for its CPU:
//! - x86-64 with AVX-VNNI (V8: `vpdpbusd`): `b` read as *unsigned* bytes, exact 32-bit sums;
//! - x86-64 without it (V8: `pmaddubsw` + `pmaddwd`): `b` unsigned, but pairs of products
//!   saturate at int16, so some results are not the exact sums;
//! - arm64 (V8: `sdot`): `b` read as *signed* bytes, exact sums.
//!
//! [`detected`] runs the instruction once on operands that tell these apart (the probe's inputs
//! go through [`core::hint::black_box`], so the compiler cannot fold it). When the engine is
//! exact with unsigned or signed `b`, the convolutions take one dot product per 16 products
//! ([`DotScheme::Unsigned`], [`DotScheme::Signed`]); otherwise they split every weight into two
//! 7-bit halves, exact everywhere, at two dot products per 16 ([`DotScheme::Split`]). The page
//! runs the same probe before it picks the relaxed build (`www/src/engine/loader.ts`), and the
//! bench checks the relaxed build's outputs against LiteRT's.
//!
//! An engine must give one instruction the same behaviour for its whole run (Chromium 156 on
//! x86-64 with AVX-VNNI does, in its baseline and optimizing compilers alike). Node 20's
//! experimental relaxed SIMD does not (its baseline compiler gives a third answer), so there the
//! probe matches neither exact scheme and the kernels keep [`DotScheme::Split`].

use core::hint::black_box;

use super::v128::V128;

/// How [`super::conv_int::Conv2dInt8`] feeds the relaxed int8 dot product.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DotScheme {
    /// Every weight `w` split as `max(w, 0) − max(−w, 0)`, both halves in `0..=127` as the
    /// second operand, the input as the first: exact on every engine, two dot products per 16
    /// products (a weight of −128 cannot be split; such a filter keeps the int16 pairs).
    Split,
    /// The engine reads the second operand as unsigned bytes with exact sums (x86-64 AVX-VNNI):
    /// the weights are the first operand, the input with its sign bit flipped (`x + 128`) the
    /// second, and `128 · Σ w` comes off the folded bias. One dot product per 16 products.
    Unsigned,
    /// The engine reads both operands as signed bytes with exact sums (arm64 `sdot`): weights
    /// first, input second, as they are. One dot product per 16 products.
    Signed,
}

/// The probe's operands: lane by lane, bytes that separate the three behaviours (−128 × 255
/// pairs overflow int16; 255 is −1 read signed).
const PROBE_A: [[i8; 16]; 2] = [
    [-128; 16],
    [
        127, -128, -1, 5, 64, -64, 3, -7, 100, -100, 0, 1, -2, 2, -127, 127,
    ],
];
/// See [`PROBE_A`].
const PROBE_B: [[u8; 16]; 2] = [
    [255; 16],
    [
        255, 128, 127, 0, 200, 1, 129, 254, 77, 180, 9, 255, 130, 131, 66, 255,
    ],
];

/// The exact sums of `a · b` per group of four, `b` read unsigned or signed.
fn exact_sums(a: &[i8; 16], b: &[u8; 16], unsigned: bool) -> [i32; 4] {
    let byte = |j: usize| {
        if unsigned {
            i32::from(b[j])
        } else {
            i32::from(b[j] as i8)
        }
    };
    [0, 1, 2, 3].map(|i| {
        (0..4)
            .map(|j| i32::from(a[4 * i + j]) * byte(4 * i + j))
            .sum()
    })
}

/// Which scheme a dot product with these results on the probe's operands allows.
fn classify(results: &[[i32; 4]; 2]) -> DotScheme {
    let matches = |unsigned: bool| {
        (0..2).all(|t| results[t] == exact_sums(&PROBE_A[t], &PROBE_B[t], unsigned))
    };
    if matches(true) {
        DotScheme::Unsigned
    } else if matches(false) {
        DotScheme::Signed
    } else {
        DotScheme::Split
    }
}

/// The scheme this engine allows, probed once (relaxed-SIMD wasm builds). Natively, and in
/// builds without relaxed SIMD, [`DotScheme::Split`]: the lane emulation can run every scheme,
/// and the tests pick each one explicitly.
pub fn detected() -> DotScheme {
    #[cfg(all(
        target_arch = "wasm32",
        target_feature = "simd128",
        target_feature = "relaxed-simd"
    ))]
    {
        use std::sync::OnceLock;
        static SCHEME: OnceLock<DotScheme> = OnceLock::new();
        *SCHEME.get_or_init(probe)
    }
    #[cfg(not(all(
        target_arch = "wasm32",
        target_feature = "simd128",
        target_feature = "relaxed-simd"
    )))]
    DotScheme::Split
}

/// Runs the instruction on the probe's operands and classifies the results.
pub fn probe() -> DotScheme {
    let results = [0, 1].map(|t| {
        let a = V128::load_i8(black_box(&PROBE_A[t]));
        let b = V128::load_i8(black_box(&PROBE_B[t].map(|v| v as i8)));
        black_box(a.relaxed_dot_i8x16_i7x16_add(b, V128::zero(), false)).to_i32()
    });
    classify(&results)
}

/// A scheme's name as the engine reports it (`split`, `unsigned`, `signed`).
pub fn name(scheme: DotScheme) -> &'static str {
    match scheme {
        DotScheme::Split => "split",
        DotScheme::Unsigned => "unsigned",
        DotScheme::Signed => "signed",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg_attr(not(target_arch = "wasm32"), test)]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn the_probe_tells_the_three_behaviours_apart() {
        let unsigned = [0, 1].map(|t| exact_sums(&PROBE_A[t], &PROBE_B[t], true));
        let signed = [0, 1].map(|t| exact_sums(&PROBE_A[t], &PROBE_B[t], false));
        assert_eq!(classify(&unsigned), DotScheme::Unsigned);
        assert_eq!(classify(&signed), DotScheme::Signed);
        // pmaddubsw: unsigned b, each pair of products saturated to int16 before the sum.
        let saturated = [0, 1].map(|t| {
            let (a, b) = (&PROBE_A[t], &PROBE_B[t]);
            [0, 1, 2, 3].map(|i| {
                (0..2)
                    .map(|h| {
                        let j = 4 * i + 2 * h;
                        let pair = i32::from(a[j]) * i32::from(b[j])
                            + i32::from(a[j + 1]) * i32::from(b[j + 1]);
                        pair.clamp(i32::from(i16::MIN), i32::from(i16::MAX))
                    })
                    .sum()
            })
        });
        assert_ne!(saturated, unsigned);
        assert_eq!(classify(&saturated), DotScheme::Split);
        // Node 20's baseline compiler: −131072 for −128 · 255 × 4.
        assert_eq!(classify(&[[-131_072; 4], unsigned[1]]), DotScheme::Split);
    }

    #[cfg_attr(not(target_arch = "wasm32"), test)]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn the_probe_finds_the_emulated_instruction_signed() {
        // The lane emulation reads `b` signed, like arm64's `sdot`.
        #[cfg(not(target_arch = "wasm32"))]
        assert_eq!(probe(), DotScheme::Signed);
        // A build without relaxed SIMD never uses the one-dot schemes; a relaxed one uses what
        // its probe found (in Node 20, `Split`: its two compilers disagree, see the module docs).
        if super::super::conv_int::RELAXED {
            assert_eq!(detected(), probe());
        } else {
            assert_eq!(detected(), DotScheme::Split);
        }
    }
}
