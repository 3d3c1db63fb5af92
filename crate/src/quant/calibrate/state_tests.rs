//! Merging calibration states: slices of the samples, each calibrated on its own and merged in
//! order, equal one calibrator over every sample, bit for bit; the byte encoding round-trips
//! and refuses damaged input.

use super::test_models::{add_relu, square_relu};
use super::{CalibrationState, Calibrator, Method, carries_state};
use crate::graph::Model;

/// Values of many magnitudes, signed zeros and subnormals (finite through the test models).
fn value(rng: &mut fastrand::Rng) -> f32 {
    match rng.u8(0..16) {
        0 => 0.0,
        1 => -0.0,
        2 => [1e-45, -1e-45, 1e-40, 3e30, -3e30][rng.usize(0..5)],
        _ => {
            let scale = [1e-20f32, 1e-3, 1.0, 7.5, 1e4][rng.usize(0..5)];
            (rng.f32() * 2.0 - 1.0) * scale + [0.0f32, 3.0, -1000.0][rng.usize(0..3)]
        }
    }
}

/// A model and its samples' inputs (`[sample][input]`).
fn case(seed: u64) -> (Model, Vec<Vec<Vec<f32>>>) {
    let mut rng = fastrand::Rng::with_seed(seed);
    let n = rng.usize(0..14);
    if rng.bool() {
        let c = [value(&mut rng), 0.0, -0.0, value(&mut rng)];
        let samples = (0..n)
            .map(|_| vec![(0..4).map(|_| value(&mut rng)).collect()])
            .collect();
        (add_relu(c), samples)
    } else {
        // A WHILE loop: tensors recorded at every iteration, histograms growing within a sample.
        let m = crate::engine::control_flow_tests::counting_loop(1, 2, 5, 2);
        let samples = (0..n)
            .map(|_| vec![vec![0.0], (0..2).map(|_| value(&mut rng)).collect()])
            .collect();
        (m, samples)
    }
}

fn run(cal: &mut Calibrator, samples: &[Vec<Vec<f32>>]) {
    for s in samples {
        for (i, x) in s.iter().enumerate() {
            cal.set_input(i, x).expect("fits");
        }
        cal.add_sample().expect("finite");
    }
}

const METHODS: [&str; 5] = [
    "minmax",
    "percentile:99",
    "percentile:99.99",
    "mse",
    "moving-average",
];

fn check(seed: u64) {
    let (m, samples) = case(seed);
    let mut rng = fastrand::Rng::with_seed(seed ^ 0x5eed);
    let mut one = Calibrator::new(&m).expect("prepares");
    run(&mut one, &samples);
    let mut kept = Calibrator::new(&m).expect("prepares");
    kept.for_slice(0).expect("before the first sample");
    run(&mut kept, &samples);
    let n = samples.len();
    let mut cuts: Vec<usize> = (0..rng.usize(0..5)).map(|_| rng.usize(0..=n)).collect();
    cuts.extend([0, n]);
    cuts.sort_unstable();
    let mut merged = CalibrationState::default();
    // The page's way: the first slice's calibrator (no for_slice) merges the others.
    let mut head = Calibrator::new(&m).expect("prepares");
    for (k, w) in cuts.windows(2).enumerate() {
        let mut cal = Calibrator::new(&m).expect("prepares");
        cal.for_slice(w[0]).expect("before the first sample");
        run(&mut cal, &samples[w[0]..w[1]]);
        // Through bytes, as between Web Workers.
        let bytes = cal.state().to_bytes();
        let state = CalibrationState::from_bytes(&bytes).expect("reads back");
        assert_eq!(state, cal.state(), "seed {seed}: bytes round-trip");
        merged.merge(&state).expect("merges");
        if k == 0 {
            run(&mut head, &samples[w[0]..w[1]]);
        } else {
            head.merge(&state)
                .expect("merges into the first calibrator");
        }
    }
    assert_eq!(merged.samples(), n);
    assert_eq!(
        merged.to_bytes(),
        kept.state().to_bytes(),
        "seed {seed}: cuts {cuts:?}"
    );
    for method in METHODS {
        let method = Method::parse(method).expect("method");
        // `{:?}` tells -0.0 from 0.0, which `==` does not.
        let want = format!("{:?}", one.stats(method).expect("stats"));
        assert_eq!(
            format!("{:?}", merged.stats(method).expect("stats")),
            want,
            "seed {seed}: {method}, cuts {cuts:?}"
        );
        assert_eq!(format!("{:?}", kept.stats(method).expect("stats")), want);
        assert_eq!(
            format!("{:?}", head.stats(method).expect("stats")),
            want,
            "seed {seed}: {method} merged into the first calibrator"
        );
    }
}

#[test]
fn merged_slices_equal_one_calibrator() {
    for seed in 0..120 {
        check(seed);
    }
}

#[cfg(not(target_arch = "wasm32"))]
mod props {
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        #[test]
        fn merged_slices_equal_one_calibrator_prop(seed in any::<u64>()) {
            super::check(seed);
        }
    }
}

#[test]
fn a_slice_numbers_its_samples_from_its_start() {
    let mut cal = Calibrator::new(&square_relu()).expect("prepares");
    cal.for_slice(5).expect("before the first sample");
    cal.set_input(0, &[1.0, 2.0, 3.0, 4.0]).expect("fits");
    cal.add_sample().expect("finite");
    cal.set_input(0, &[1.0, f32::NAN, 3.0, 4.0]).expect("fits");
    let e = cal.add_sample().expect_err("NaN").to_string();
    assert_eq!(e, "calibration sample 6: NaN in input 0 'x' (element 1)");
    assert!(cal.for_slice(0).is_err(), "only before the first sample");
}

#[test]
fn a_later_slice_without_its_extremes_is_refused() {
    let m = add_relu([0.0; 4]);
    let mut a = Calibrator::new(&m).expect("prepares");
    let mut b = Calibrator::new(&m).expect("prepares");
    run(&mut a, &[vec![vec![1.0, 2.0, 3.0, 4.0]]]);
    run(&mut b, &[vec![vec![-1.0, 2.0, 3.0, 4.0]]]);
    let mut s = a.state();
    let e = s.merge(&b.state()).expect_err("no extremes").to_string();
    assert!(e.contains("tensor 'x'") && e.contains("for_slice"), "{e}");
    // Into an empty state it is the state itself.
    let mut empty = CalibrationState::default();
    empty.merge(&b.state()).expect("merges");
    assert_eq!(
        empty.stats(Method::MovingAverage).expect("stats"),
        b.stats(Method::MovingAverage).expect("stats")
    );
}

#[test]
fn damaged_bytes_are_refused_without_panicking() {
    let (m, samples) = case(3);
    let mut cal = Calibrator::new(&m).expect("prepares");
    cal.for_slice(0).expect("first");
    run(&mut cal, &samples);
    let bytes = cal.state().to_bytes();
    for cut in 0..bytes.len() {
        let e = CalibrationState::from_bytes(&bytes[..cut]).expect_err("truncated");
        assert!(
            e.to_string().contains("calibration statistics bytes"),
            "{e}"
        );
    }
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(CalibrationState::from_bytes(&longer).is_err());
    let mut rng = fastrand::Rng::with_seed(7);
    for k in 0..600 {
        let mut b = bytes.clone();
        let i = rng.usize(0..b.len());
        b[i] = rng.u8(..);
        // Anything but a panic: a changed count or value may still read.
        if let Ok(s) = CalibrationState::from_bytes(&b) {
            let method = if k % 8 == 0 {
                Method::Mse
            } else {
                Method::MinMax
            };
            let _ = s.stats(method);
        }
    }
}

#[test]
fn stateful_models_are_named() {
    assert_eq!(carries_state(&add_relu([0.0; 4])), None);
    let mut m = add_relu([0.0; 4]);
    m.subgraphs[0].tensors[2].is_variable = true;
    let why = carries_state(&m).expect("stateful");
    assert!(why.contains("variable tensor 'y'"), "{why}");
}
