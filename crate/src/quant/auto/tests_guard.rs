//! The rule against overfitting (every fold, then the held-out guard) and cross-layer
//! equalization, each on a model built to need it.

use super::cv::CrossValidated;
use super::score::{Score, Scorer};
use super::tests::{calibrate, fc_systematic, ordinary, outlier_calibrated, unit};
use super::*;
use crate::engine::control_flow_tests::op;
use crate::graph::{
    ActivationFunctionType, Buffer, BuiltinOperator, BuiltinOptionsT, Subgraph, Tensor, TensorType,
};
use crate::tflite::schema::{Conv2DOptionsT, DepthwiseConv2DOptionsT, Padding};

#[test]
fn a_step_must_be_better_on_every_fold() {
    let s = |total: f64, folds: &[f64]| Score {
        total,
        folds: folds.to_vec(),
        noise: Vec::new(),
        correct: None,
    };
    let base = s(30.0, &[30.0, 30.0]);
    assert!(s(31.0, &[31.0, 30.5]).beats(&base));
    // Better in total, worse on one fold: overfitting to the other fold's samples.
    assert!(!s(31.0, &[34.0, 29.9]).beats(&base));
    assert!(!s(30.0, &[30.0, 30.0]).beats(&base), "equal is not better");
    let exact = s(f64::INFINITY, &[f64::INFINITY, f64::INFINITY]);
    assert!(exact.beats(&base) && !exact.beats(&exact));
}

#[test]
fn the_sign_test_is_the_binomial_tail() {
    // P(X ≥ w), X ~ Binomial(n, 1/2): C(n, k) summed by hand over 2^n.
    assert_eq!(score::sign_test_p(4, 4), 1.0 / 16.0);
    assert_eq!(score::sign_test_p(3, 3), 1.0 / 8.0);
    assert_eq!(score::sign_test_p(7, 8), (8.0 + 1.0) / 256.0);
    assert_eq!(score::sign_test_p(6, 8), (28.0 + 8.0 + 1.0) / 256.0);
    let p = score::sign_test_p(12, 16);
    assert!(
        (p - (1820.0 + 560.0 + 120.0 + 16.0 + 1.0) / 65536.0).abs() < 1e-15,
        "{p}"
    );
    assert_eq!(score::sign_test_p(0, 5), 1.0);
    assert_eq!(score::sign_test_p(0, 0), 1.0);
    assert_eq!(score::sign_test_p(6, 5), 0.0);
}

#[test]
fn the_final_guard_wants_a_gain_on_enough_single_samples() {
    // Output signal 1 per sample; the TF-compatible model has error 0.01 on each sample.
    let score = |noise: &[f64]| Score {
        total: score::sqnr_db(noise.len() as f64, noise.iter().sum()),
        folds: Vec::new(),
        noise: noise.to_vec(),
        correct: None,
    };
    let tf = score(&[0.01; 4]);
    // Better on all 4 samples (and by more than the margin in total): holds up.
    assert!(score(&[0.009, 0.008, 0.009, 0.005]).holds_up_against(&tf, GUARD_MARGIN_DB));
    // A large total gain carried by one sample, worse on the other three: does not.
    let one = score(&[0.0001, 0.011, 0.011, 0.011]);
    assert!(one.total > tf.total + 0.5, "{} vs {}", one.total, tf.total);
    assert!(!one.holds_up_against(&tf, GUARD_MARGIN_DB));
    // Better on every one of 3 samples: a coin does that 1 time in 8, too often.
    let tf3 = score(&[0.01; 3]);
    assert!(!score(&[0.005; 3]).holds_up_against(&tf3, GUARD_MARGIN_DB));
    // Better on every sample but by less than the margin in total.
    assert!(!score(&[0.0099; 4]).holds_up_against(&tf, GUARD_MARGIN_DB));
    // Samples with the same error on both are left out: 4 wins of 4 decided of 5.
    let tf5 = score(&[0.01; 5]);
    assert!(score(&[0.005, 0.005, 0.005, 0.005, 0.01]).holds_up_against(&tf5, GUARD_MARGIN_DB));
}

/// `add_relu` with x calibrated up to 1000 (one calibration sample) and `n` scoring samples in
/// [−1, 1], `outliers` of them with x[3] = 900: the calibration statistics and the samples.
fn clipping_case(n: u32, outliers: &[usize]) -> (Model, CalibrationStats, Samples) {
    let (model, stats, _) = outlier_calibrated();
    let mut scoring: Vec<_> = (1000..1000 + n).map(ordinary).collect();
    for &k in outliers {
        scoring[k][0][3] = 900.0;
    }
    (model, stats, scoring)
}

#[test]
fn with_few_samples_the_guard_cross_validates() {
    // Clipping x helps on every sample in [−1, 1] (as in
    // `an_outlier_makes_a_clipping_range_win_over_min_max`). 8 samples: a single split would
    // leave 2 held out, too few for the sign test (1/4 > 1/16); cross-validated, each of the 8 is
    // scored by the search on the 6 samples outside its quarter, which clips too: less error on
    // all 8 (p = 1/256), and the search on all 8 samples is written.
    let (model, stats, scoring) = clipping_case(8, &[]);
    let opts = QuantizeOptions::default();
    let auto = AutoOptions::default();
    let (q, report, rep) =
        auto_quantize(&model, &stats, &scoring, &opts, &auto, None).expect("quantizes");
    assert!(rep.cross_validated, "{rep:?}");
    assert_eq!(
        (rep.samples, rep.folds, rep.held_out_samples),
        (8, 2, 8),
        "{rep:?}"
    );
    assert_eq!(rep.held_out_better, Some(8), "{rep:?}");
    assert!(!rep.fell_back && !rep.guard_dropped_search, "{rep:?}");
    assert!(rep.ranges.iter().any(|c| c.name == "x"), "{rep:?}");
    // The model written is the one the search on all 8 samples scored.
    let mut all = Scorer::new(&model, &scoring, &auto.shapes, FOLDS).expect("float");
    assert_eq!(Some(all.score(&q).expect("runs").total), rep.sqnr_db);
    assert!(
        report
            .warnings
            .iter()
            .any(|w| w.contains("cross-validated"))
    );
}

#[test]
fn the_cross_validated_guard_scores_each_quarter_by_the_search_without_it() {
    // 16 samples; the 4 of quarter 3 (positions 3, 7, 11, 15) carry x[3] = 900. The search
    // without quarter 3 clips x and ruins those 4; the searches that see them do not clip (ties
    // at best). So at most 12 of 16 are better, and the total loses: TF's model is written.
    let (model, stats, scoring) = clipping_case(16, &[3, 7, 11, 15]);
    let opts = QuantizeOptions::default();
    let (q, _, rep) = auto_quantize(
        &model,
        &stats,
        &scoring,
        &opts,
        &AutoOptions::default(),
        None,
    )
    .expect("quantizes");
    assert!(rep.cross_validated && rep.fell_back, "{rep:?}");
    assert_eq!(rep.held_out_samples, 16, "{rep:?}");
    assert!(rep.held_out_better.is_some_and(|k| k <= 12), "{rep:?}");
    let (h, tf) = (
        rep.held_out_sqnr_db.expect("measured"),
        rep.held_out_tf_compatible_sqnr_db.expect("measured"),
    );
    assert!(h < tf, "the ruined quarter dominates: {h} vs {tf} dB");
    assert!(
        report::summary(&rep).contains(
            "(with 16 samples a gain is hard to confirm: --auto takes up to 64, 48 to search \
             and 16 to hold out)"
        ),
        "{}",
        report::summary(&rep)
    );
    let tf_ranges = Ranges::from_calibration(&model, &stats).expect("ranges");
    let (tf_model, _) = quantize(&model, &tf_ranges, &opts).expect("tf");
    assert_eq!(q, tf_model, "TF's model is written");
}

#[test]
fn the_report_keeps_the_held_out_figures_of_the_last_result_judged() {
    // Output signal 1 per sample, 16 held-out samples; the TF-compatible model has error 0.01
    // on each. The whole result: less error on 11 (0.005), more on 5 (0.012): +1.6 dB in all,
    // but a coin wins 11 of 16 too often (p ≈ 0.105 > 1/16), so it is not kept.
    let score = |noise: Vec<f64>| Score {
        total: score::sqnr_db(noise.len() as f64, noise.iter().sum()),
        folds: Vec::new(),
        noise,
        correct: None,
    };
    let tf = score(vec![0.01; 16]);
    let full = score(
        (0..16)
            .map(|k| if k < 11 { 0.005 } else { 0.012 })
            .collect(),
    );
    assert!(
        full.total > tf.total + 1.0,
        "{} vs {}",
        full.total,
        tf.total
    );
    let cv = CrossValidated {
        tf: tf.clone(),
        full: full.clone(),
        structural: tf.clone(),
        time_limit_reached: false,
    };
    // The result of steps 1–2 is the TF-compatible model (it did not beat it on the search
    // folds): nothing to judge, and the report says what the whole result did held out, not
    // the TF-compatible model against itself (0 of 16, equal dB: what face_detection_short_range
    // read before, for 11 of 16 and +1.76 dB).
    for second in [None, Some(false)] {
        let mut rep = AutoReport::default();
        assert_eq!(cv.judge(true, second, &mut rep), (false, false));
        assert!(rep.cross_validated);
        assert_eq!(rep.held_out_samples, 16);
        assert_eq!(rep.held_out_better, Some(11), "{second:?}");
        assert_eq!(rep.held_out_sqnr_db, Some(full.total));
        assert_eq!(rep.held_out_tf_compatible_sqnr_db, Some(tf.total));
        assert_eq!(rep.whole_held_out_better, None);
    }
    // A second choice that beat it on the search folds is judged, and reported.
    let second = score(
        (0..16)
            .map(|k| if k < 13 { 0.009 } else { 0.0101 })
            .collect(),
    );
    let cv = CrossValidated {
        structural: second.clone(),
        ..cv
    };
    let mut rep = AutoReport::default();
    assert_eq!(cv.judge(true, Some(true), &mut rep), (true, true));
    assert_eq!(rep.held_out_better, Some(13));
    assert_eq!(rep.held_out_sqnr_db, Some(second.total));
    // ... with the whole result's figures set aside.
    assert_eq!(rep.whole_held_out_better, Some(11));
    assert_eq!(rep.whole_held_out_sqnr_db, Some(full.total));
    assert!(
        report::summary(&rep).contains(&format!(
            "the whole result {:.2} dB, less error on 11; without the range search {:.2} dB",
            full.total, second.total
        )),
        "{}",
        report::summary(&rep)
    );
    // A whole result that holds up is kept whatever the second choice.
    let cv = CrossValidated {
        full: second.clone(),
        ..cv
    };
    assert_eq!(
        cv.judge(true, Some(true), &mut AutoReport::default()),
        (true, false)
    );
    // ... unless the search on all samples did not beat the TF-compatible model.
    assert_eq!(
        cv.judge(false, None, &mut AutoReport::default()),
        (false, false)
    );
}

#[test]
fn samples_are_split_into_search_and_held_out() {
    let samples: Vec<Vec<Vec<f32>>> = (0..9).map(|k| vec![vec![k as f32]]).collect();
    let (search, held) = split_samples(&samples);
    let ids = |v: &[Vec<Vec<f32>>]| v.iter().map(|s| s[0][0] as usize).collect::<Vec<_>>();
    assert_eq!(ids(&search), vec![0, 1, 2, 4, 5, 6, 8]);
    assert_eq!(ids(&held), vec![3, 7]);
    // Too few to hold any out: all search.
    let (search, held) = split_samples(&samples[..3]);
    assert_eq!((search.len(), held.len()), (3, 0));
}

#[test]
fn the_held_out_guard_keeps_the_tf_compatible_model() {
    // Calibration saw x[3] up to 1000. The search samples stay in [−1, 1], so clipping x's range
    // wins on both folds; the held-out samples (positions 3, 7, …, 23) carry x[3] = 900, which
    // clipping ruins: the guard must write TF's model.
    let (model, stats, _) = outlier_calibrated();
    // 24 samples: 18 search samples, a single split (fewer cross-validate).
    let mut scoring: Vec<_> = (1000..1024).map(ordinary).collect();
    for k in (3..24).step_by(4) {
        scoring[k][0][3] = 900.0;
    }
    let opts = QuantizeOptions::default();
    let (q, report, rep) = auto_quantize(
        &model,
        &stats,
        &scoring,
        &opts,
        &AutoOptions::default(),
        None,
    )
    .expect("quantizes");
    let tf_ranges = Ranges::from_calibration(&model, &stats).expect("ranges");
    let (tf, _) = quantize(&model, &tf_ranges, &opts).expect("tf");
    let (held_auto, held_tf) = (
        rep.held_out_sqnr_db.expect("measured"),
        rep.held_out_tf_compatible_sqnr_db.expect("measured"),
    );
    assert!(!rep.ranges.is_empty(), "the search clipped: {rep:?}");
    assert!(held_auto < held_tf, "{held_auto} vs {held_tf} dB");
    assert!(rep.fell_back, "{rep:?}");
    assert_eq!(q, tf, "TF's model is written");
    assert_eq!(rep.sqnr_db, rep.tf_compatible_sqnr_db);
    // A single split: 18 searched + 6 held out of the 24 given.
    assert!(
        report::summary(&rep).contains("(with 24 samples a gain is hard to confirm"),
        "{}",
        report::summary(&rep)
    );
    let enough = AutoReport {
        samples: 48,
        held_out_samples: 16,
        ..rep.clone()
    };
    assert!(!report::summary(&enough).contains("hard to confirm"));
    assert!(report.warnings.iter().any(|w| w.contains("held-out")));
}

#[test]
fn the_guard_drops_an_overfitted_range_search_but_keeps_bias_correction() {
    // The FC's weights err systematically (bias correction helps any input near E[x]). The
    // calibration saw x[5] = 60 once; the search samples stay in [0.9, 1.1), so clipping x wins
    // there; the held-out samples carry x[5] = 50, which clipping ruins.
    let (model, _) = fc_systematic();
    let ordinary =
        |k: u32| -> Vec<Vec<f32>> { vec![(0..64).map(|j| 0.9 + 0.2 * unit(k * 64 + j)).collect()] };
    let mut calib: Vec<_> = (0..40).map(ordinary).collect();
    calib[20][0][5] = 60.0;
    let stats = calibrate(&model, &calib);
    // 24 samples: 18 search samples, a single split (fewer cross-validate).
    let mut scoring: Vec<_> = (100..124).map(ordinary).collect();
    for k in (3..24).step_by(4) {
        scoring[k][0][5] = 50.0;
    }
    let opts = QuantizeOptions::default();
    let (_, _, rep) = auto_quantize(
        &model,
        &stats,
        &scoring,
        &opts,
        &AutoOptions::default(),
        None,
    )
    .expect("quantizes");
    assert!(rep.guard_dropped_search, "{rep:?}");
    assert!(rep.ranges.is_empty() && !rep.fell_back, "{rep:?}");
    assert_eq!(rep.bias_corrected.len(), 1, "{rep:?}");
    let (h, tf) = (
        rep.held_out_sqnr_db.expect("measured"),
        rep.held_out_tf_compatible_sqnr_db.expect("measured"),
    );
    assert!(h > tf + GUARD_MARGIN_DB, "{h} vs {tf} dB");
    // 6 held-out samples: the sign test passes only with less error on all 6 (5 of 6: 7/64).
    assert_eq!(rep.held_out_better, Some(6), "{rep:?}");
}

/// x [1, 4, 4, 4] → DEPTHWISE_CONV_2D 3×3 (`act`) → y → CONV_2D 1×1 → z [1, 4, 4, 2]. The
/// depthwise channels have weight ranges 8, 1, 0.05 and 0.5, so y's channels differ by ~100×,
/// and the 1×1 conv's input channels the other way round.
fn separable(act: ActivationFunctionType) -> Model {
    let gain = [8.0f32, 1.0, 0.05, 0.5];
    let w1: Vec<f32> = (0..36)
        .map(|k| gain[k % 4] * (0.25 + 0.75 * unit(k as u32 + 7)))
        .collect();
    let b1: Vec<f32> = (0..4).map(|c| 0.1 * gain[c]).collect();
    // The conv undoes the gains: every channel of y matters as much to z.
    let w2: Vec<f32> = (0..8)
        .map(|k| (2.0 * unit(k as u32 + 99) - 1.0) / gain[k % 4])
        .collect();
    let b2 = [0.05f32, -0.05];
    let t = |name: &str, shape: Vec<i32>, buffer: u32| {
        let mut t = Tensor::new(name, TensorType::FLOAT32, shape);
        t.buffer = buffer;
        t
    };
    let data = |v: &[f32]| Buffer {
        data: bytemuck::cast_slice(v).to_vec(),
    };
    Model {
        version: 3,
        subgraphs: vec![Subgraph {
            tensors: vec![
                t("x", vec![1, 4, 4, 4], 0),
                t("w1", vec![1, 3, 3, 4], 1),
                t("b1", vec![4], 2),
                t("y", vec![1, 4, 4, 4], 0),
                t("w2", vec![2, 1, 1, 4], 3),
                t("b2", vec![2], 4),
                t("z", vec![1, 4, 4, 2], 0),
            ],
            inputs: vec![0],
            outputs: vec![6],
            operators: vec![
                op(
                    BuiltinOperator::DEPTHWISE_CONV_2D,
                    &[0, 1, 2],
                    &[3],
                    BuiltinOptionsT::DepthwiseConv2DOptions(Box::new(DepthwiseConv2DOptionsT {
                        stride_h: 1,
                        stride_w: 1,
                        dilation_h_factor: 1,
                        dilation_w_factor: 1,
                        depth_multiplier: 1,
                        padding: Padding::SAME,
                        fused_activation_function: act,
                    })),
                ),
                op(
                    BuiltinOperator::CONV_2D,
                    &[3, 4, 5],
                    &[6],
                    BuiltinOptionsT::Conv2DOptions(Box::new(Conv2DOptionsT {
                        stride_h: 1,
                        stride_w: 1,
                        dilation_h_factor: 1,
                        dilation_w_factor: 1,
                        padding: Padding::SAME,
                        ..Default::default()
                    })),
                ),
            ],
            ..Default::default()
        }],
        buffers: vec![
            Buffer::default(),
            data(&w1),
            data(&b1),
            data(&w2),
            data(&b2),
        ],
        ..Default::default()
    }
}

fn floats(m: &Model, t: usize) -> Vec<f32> {
    super::floats(m.tensor_data(0, t).expect("constant"))
}

fn inputs(n: u32) -> Vec<Vec<Vec<f32>>> {
    (0..n)
        .map(|k| {
            vec![
                (0..64)
                    .map(|j| 2.0 * unit(k * 64 + j + 5000) - 1.0)
                    .collect(),
            ]
        })
        .collect()
}

#[test]
fn equalization_gives_both_layers_the_geometric_mean_range_and_keeps_the_function() {
    let model = separable(ActivationFunctionType::RELU);
    let (eq, pairs) = equalize::equalized(&model)
        .expect("runs")
        .expect("the pair applies");
    assert_eq!(pairs, vec![(0, 1)]);
    let (w1, w2) = (floats(&model, 1), floats(&model, 4));
    let (e1, e2) = (floats(&eq, 1), floats(&eq, 4));
    for c in 0..4 {
        let r = |w: &[f32]| {
            w.iter()
                .skip(c)
                .step_by(4)
                .fold(0.0f64, |m, &v| m.max(f64::from(v.abs())))
        };
        let want = (r(&w1) * r(&w2)).sqrt();
        for (got, what) in [(r(&e1), "depthwise"), (r(&e2), "conv input")] {
            assert!(
                (got - want).abs() <= 1e-5 * want,
                "channel {c} {what}: {got} vs {want}"
            );
        }
    }
    // Same float function (up to float rounding): SQNR of the equalized float model's outputs
    // against the original's.
    let samples = inputs(4);
    let mut scorer = Scorer::new(&model, &samples, &ShapeOverrides::default(), 1).expect("float");
    let same = scorer.score(&eq).expect("runs").total;
    assert!(same > 100.0, "{same} dB");
}

#[test]
fn relu6_between_or_a_second_reader_is_not_equalized() {
    let model = separable(ActivationFunctionType::RELU6);
    assert!(equalize::equalized(&model).expect("runs").is_none());
    let mut model = separable(ActivationFunctionType::RELU);
    model.subgraphs[0].outputs.push(3);
    assert!(equalize::equalized(&model).expect("runs").is_none());
}

#[test]
fn auto_keeps_equalization_when_it_scores_better() {
    let model = separable(ActivationFunctionType::RELU);
    let calib = inputs(40);
    let stats = calibrate(&model, &calib);
    let mut recalibrate = |m: &Model| Ok(calibrate(m, &calib));
    let opts = QuantizeOptions::default();
    let (q, _, rep) = auto_quantize(
        &model,
        &stats,
        &calib[..16],
        &opts,
        &AutoOptions::default(),
        Some(&mut recalibrate),
    )
    .expect("quantizes");
    assert_eq!(rep.equalized.len(), 1, "{rep:?}");
    let eq = rep.equalization_sqnr_db.expect("measured");
    let tf = rep.tf_compatible_sqnr_db.expect("measured");
    assert!(eq > tf + 3.0, "equalized {eq} dB vs {tf} dB");
    assert!(!rep.fell_back);
    // On samples auto never saw, too.
    let unseen = inputs(60)[40..].to_vec();
    let mut scorer = Scorer::new(&model, &unseen, &ShapeOverrides::default(), 1).expect("float");
    let tf_ranges = Ranges::from_calibration(&model, &stats).expect("ranges");
    let tf_model = quantize(&model, &tf_ranges, &opts).expect("tf").0;
    let (ours, theirs) = (
        scorer.score(&q).expect("runs").total,
        scorer.score(&tf_model).expect("runs").total,
    );
    assert!(ours > theirs + 3.0, "{ours} vs {theirs} dB");
}

#[test]
fn a_time_limit_stops_the_search_and_the_guard_judges_what_was_found() {
    // The outlier model of `an_outlier_makes_a_clipping_range_win_over_min_max`: without a
    // limit the range search wins by > 20 dB.
    let (model, stats, calib) = outlier_calibrated();
    let opts = QuantizeOptions::default();
    let run = |samples: &[Vec<Vec<f32>>], time_limit: Option<f64>| {
        let auto = AutoOptions {
            time_limit,
            ..AutoOptions::default()
        };
        auto_quantize(&model, &stats, samples, &opts, &auto, None).expect("quantizes")
    };
    let tf = quantize(
        &model,
        &Ranges::from_calibration(&model, &stats).expect("ranges"),
        &opts,
    )
    .expect("tf")
    .0;
    // 24 samples (a single split) and 8 (cross-validated: five searches, each stopped).
    for n in [24, 8] {
        let scoring: Vec<_> = (1000..1000 + n).map(ordinary).collect();
        let (free, _, free_rep) = run(&scoring, None);
        assert!(
            !free_rep.fell_back && !free_rep.time_limit_reached,
            "{free_rep:?}"
        );
        // A limit already passed: only the TF-compatible model is scored, and it is written.
        let (q, report, rep) = run(&scoring, Some(0.0));
        assert!(rep.time_limit_reached && rep.fell_back, "{rep:?}");
        assert_eq!(rep.evaluations, 1);
        assert_eq!(rep.cross_validated, n == 8);
        assert_eq!(q, tf);
        assert!(
            report.warnings.iter().any(|w| w.contains("time limit")),
            "{:?}",
            report.warnings
        );
        // A limit never reached: the same model and report as without one.
        let (q, _, rep) = run(&scoring, Some(3600.0));
        assert_eq!((q, rep), (free.clone(), free_rep));
    }
    for bad in [-1.0, f64::NAN, f64::INFINITY] {
        let auto = AutoOptions {
            time_limit: Some(bad),
            ..AutoOptions::default()
        };
        let e = auto_quantize(&model, &stats, &calib[..8], &opts, &auto, None)
            .expect_err("not a time limit");
        assert!(e.to_string().contains("--auto-time-limit"), "{e}");
    }
}

#[test]
fn search_deadlines_share_the_limit_in_order() {
    assert_eq!(search_deadlines(None, 3), vec![None; 3]);
    let d = search_deadlines(Some(10.0), 5);
    let ms: Vec<f64> = d.iter().map(|d| d.expect("limited").ms()).collect();
    // Each a fifth of 90 % of 10 s after the one before.
    for w in ms.windows(2) {
        assert!((w[1] - w[0] - 1800.0).abs() < 1e-6, "{ms:?}");
    }
    assert!(!d[0].expect("limited").passed());
    assert!(search_deadlines(Some(0.0), 1)[0].expect("limited").passed());
}
