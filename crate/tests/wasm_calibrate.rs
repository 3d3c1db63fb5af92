//! Calibration inside WebAssembly (Node, through wasm-bindgen-test-runner, SIMD on): the page's
//! example model is calibrated through the wasm `Calibrator` with `randomData`, and the
//! statistics are sane (every tensor recorded, ranges ordered, histograms holding every value)
//! and deterministic (same seed, same statistics).
//!
//! Natively this file compiles to nothing; it runs with
//! `cargo test --target wasm32-unknown-unknown --features wasm`.
#![cfg(target_arch = "wasm32")]

mod wasm_common;

use wasm_bindgen_test::wasm_bindgen_test;
use wasm_common::{EXAMPLE, message};
use zeropoint::quant::calibrate::{CalibrationStats, InputDesc};
use zeropoint::wasm::{Calibrator, random_data};

fn calibrate(seed: u32, samples: u32, method: &str) -> CalibrationStats {
    let mut cal = Calibrator::new(EXAMPLE, None, None, None, None).expect("example prepares");
    let inputs: Vec<InputDesc> =
        serde_wasm_bindgen::from_value(cal.inputs().expect("inputs")).expect("InputDesc[]");
    assert_eq!(inputs.len(), 1);
    assert_eq!(inputs[0].dtype, "FLOAT32");
    let n: usize = inputs[0].shape.iter().product();
    for s in 0..samples {
        cal.set_input(0, &random_data(n, -1.0, 1.0, seed + s))
            .expect("input fits");
        cal.add_sample().expect("finite sample");
    }
    assert_eq!(cal.samples(), samples as usize);
    serde_wasm_bindgen::from_value(cal.stats(method).expect("stats")).expect("CalibrationStats")
}

#[wasm_bindgen_test]
fn random_data_is_seeded_and_in_range() {
    let a = random_data(1000, -2.0, 3.0, 7);
    assert_eq!(a, random_data(1000, -2.0, 3.0, 7));
    assert_ne!(a, random_data(1000, -2.0, 3.0, 8));
    assert!(a.iter().all(|&v| (-2.0..3.0).contains(&v)));
}

#[wasm_bindgen_test]
fn example_model_stats_are_sane_and_deterministic() {
    let stats = calibrate(1, 4, "minmax");
    assert_eq!(stats.samples, 4);
    assert!(stats.tensors.len() >= 5, "{} tensors", stats.tensors.len());
    let input = &stats.tensors[0];
    assert!(input.min >= -1.0 && input.max < 1.0 && input.min < input.max);
    for t in &stats.tensors {
        assert!(t.min <= t.max, "tensor {} '{}'", t.index, t.name);
        assert_eq!((t.chosen_min, t.chosen_max), (t.min, t.max));
        assert!(
            t.histogram.total() > 0,
            "tensor {} has an empty histogram",
            t.index
        );
        assert!(t.histogram.lo <= f64::from(t.min) && t.histogram.hi >= f64::from(t.max));
        assert!(t.histogram.counts.len() <= 2048);
    }
    let indices: Vec<usize> = stats.tensors.iter().map(|t| t.index).collect();
    let mut sorted = indices.clone();
    sorted.sort_unstable();
    assert_eq!(indices, sorted, "by tensor index");
    assert_eq!(
        calibrate(1, 4, "minmax"),
        stats,
        "same seed, same statistics"
    );
    for method in ["percentile:99.9", "mse", "moving-average"] {
        let other = calibrate(1, 4, method);
        for (a, b) in other.tensors.iter().zip(&stats.tensors) {
            assert_eq!(a.method, method);
            assert_eq!((a.min, a.max), (b.min, b.max));
            assert!(a.chosen_min >= b.min - 1e-6 && a.chosen_max <= b.max + 1e-6);
        }
    }
}

#[wasm_bindgen_test]
fn bad_data_and_methods_are_js_errors() {
    let mut cal = Calibrator::new(EXAMPLE, None, None, None, None).expect("example prepares");
    let e = message(cal.set_input(0, &[0.0; 3]).expect_err("wrong size"));
    assert!(e.contains("expected 1×32×32×3 FLOAT32"), "{e}");
    let mut data = random_data(32 * 32 * 3, 0.0, 1.0, 3);
    data[5] = f32::NAN;
    cal.set_input(0, &data).expect("size fits");
    let e = message(cal.add_sample().expect_err("NaN"));
    assert!(
        e.starts_with("calibration sample 0: NaN in input 0 '"),
        "{e}"
    );
    assert_eq!(cal.samples(), 0);
    let e = message(cal.stats("kl").expect_err("unknown method"));
    assert!(e.contains("unknown method 'kl'"), "{e}");
    assert!(Calibrator::new(&EXAMPLE[..100], None, None, None, None).is_err());
}

/// Calibrators over slices of the samples (as the page's Web Workers run them: each its own
/// instance, `forSlice`, `exportState`), merged into the first slice's with `mergeState`, give
/// exactly the statistics of one calibrator over every sample, for every method.
#[wasm_bindgen_test]
fn slices_merged_through_bytes_equal_one_calibrator() {
    let n = 32 * 32 * 3;
    let sample = |s: u32| random_data(n, -1.5, 2.0, 40 + s);
    let mut one = Calibrator::new(EXAMPLE, None, None, None, None).expect("example prepares");
    for s in 0..7 {
        one.set_input(0, &sample(s)).expect("fits");
        one.add_sample().expect("finite");
    }
    for cuts in [[0u32, 2, 5, 7], [0, 0, 6, 7], [0, 3, 3, 7]] {
        let mut first = Calibrator::new(EXAMPLE, None, None, None, None).expect("example prepares");
        let mut states = Vec::new();
        for (k, w) in cuts.windows(2).enumerate() {
            let mut cal =
                Calibrator::new(EXAMPLE, None, None, None, None).expect("example prepares");
            let slice = if k == 0 { &mut first } else { &mut cal };
            if k > 0 {
                slice
                    .for_slice(w[0] as usize)
                    .expect("before the first sample");
            }
            for s in w[0]..w[1] {
                slice.set_input(0, &sample(s)).expect("fits");
                slice.add_sample().expect("finite");
            }
            if k > 0 {
                states.push(slice.export_state());
            }
        }
        for bytes in &states {
            first.merge_state(bytes).expect("merges");
        }
        assert_eq!(first.samples(), 7);
        for method in ["minmax", "percentile:99.9", "mse", "moving-average"] {
            let stats = |c: &Calibrator| -> CalibrationStats {
                serde_wasm_bindgen::from_value(c.stats(method).expect("stats")).expect("stats")
            };
            // `{:?}` tells -0.0 from 0.0.
            assert_eq!(
                format!("{:?}", stats(&first)),
                format!("{:?}", stats(&one)),
                "{method}, cuts {cuts:?}"
            );
        }
    }
    let e = message(one.merge_state(&[1, 2, 3]).expect_err("not a state"));
    assert!(e.contains("calibration statistics bytes"), "{e}");
    assert_eq!(one.carries_state(), None);
}
