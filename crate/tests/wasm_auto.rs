//! `--auto` and the ranking of layers in WebAssembly (Node, through wasm-bindgen-test-runner,
//! SIMD on), on the page's example model calibrated through the wasm `Calibrator`: the samples
//! kept for them, the refusals, and the report. That the page's `--auto` file equals the CLI's
//! on the same `.npy` is checked in the browser (tests/e2e/steps/quantize.mjs).
//!
//! Natively this file compiles to nothing; it runs with
//! `cargo test --target wasm32-unknown-unknown --features wasm`.
#![cfg(target_arch = "wasm32")]

mod wasm_common;

use wasm_bindgen::JsCast;
use wasm_bindgen_test::wasm_bindgen_test;
use wasm_common::{EXAMPLE, message};
use zeropoint::quant::calibrate::{CalibrationStats, InputDesc};
use zeropoint::wasm::auto::{AutoSettings, LayerRanker};
use zeropoint::wasm::quantize::QuantizeSettings;
use zeropoint::wasm::{Calibrator, random_data};

fn int8() -> QuantizeSettings {
    QuantizeSettings {
        mode: "int8".into(),
        io: "int8".into(),
        per_tensor: false,
        float_ops: Vec::new(),
        int16_ops: Vec::new(),
    }
}

/// `--auto --auto-budget n`.
fn budget(n: usize) -> AutoSettings {
    AutoSettings {
        budget: Some(n),
        ..AutoSettings::default()
    }
}

/// The example calibrated on `samples` seeded images in [0, 1), keeping every sample if `keep`.
fn calibrated(samples: u32, keep: bool) -> Calibrator {
    let mut cal = Calibrator::new(EXAMPLE, None, None, None, None).expect("example prepares");
    if keep {
        cal.keep_samples().expect("before the first sample");
    }
    let inputs: Vec<InputDesc> =
        serde_wasm_bindgen::from_value(cal.inputs().expect("inputs")).expect("InputDesc[]");
    let n: usize = inputs[0].shape.iter().product();
    for s in 0..samples {
        cal.set_input(0, &random_data(n, 0.0, 1.0, 7 + s))
            .expect("fits");
        cal.add_sample().expect("sample");
    }
    cal
}

#[wasm_bindgen_test]
fn auto_reports_what_it_chose_and_never_scores_below_tf_compatible() {
    let cal = calibrated(24, true);
    let q = cal
        .auto_quantize_with(EXAMPLE, &int8(), &budget(20))
        .expect("--auto");
    let report: serde_json::Value =
        serde_json::from_str(&q.report_json().expect("json")).expect("report");
    let auto = &report["auto"];
    assert!(auto.is_object(), "{report}");
    // 24 samples: every 4th held out, 18 searched on in 2 folds.
    assert_eq!(auto["samples"], 18, "{auto}");
    assert_eq!(auto["held_out_samples"], 6, "{auto}");
    assert_eq!(auto["folds"], 2, "{auto}");
    // The budget leaves weight clipping's candidates out: at most one per CONV_2D /
    // DEPTHWISE_CONV_2D / FULLY_CONNECTED, and one more.
    let weighted = zeropoint::tflite::read(EXAMPLE).expect("reads").subgraphs[0]
        .operators
        .iter()
        .filter(|o| {
            matches!(
                o.code.name().as_str(),
                "CONV_2D" | "DEPTHWISE_CONV_2D" | "FULLY_CONNECTED"
            )
        })
        .count() as u64;
    assert!(weighted > 0);
    let evaluations = auto["evaluations"].as_u64().expect("count");
    assert!(evaluations <= 20 + weighted + 1, "{auto}");
    let tf = auto["tf_compatible_sqnr_db"].as_f64().expect("measured");
    let ours = auto["sqnr_db"].as_f64().expect("measured");
    assert!(ours >= tf, "--auto {ours} dB < TF-compatible {tf} dB");
    // Every sample kept: equalization was tried (and measured), no warning about it.
    assert!(auto["equalization_sqnr_db"].is_number(), "{auto}");
    let warnings: Vec<String> = q.warnings();
    assert!(
        !warnings
            .iter()
            .any(|w| w.contains("equalization was not tried")),
        "{warnings:?}"
    );
    // The file is an int8 model that loads again.
    let summary = zeropoint::tflite::read(&q.bytes()).expect("readable");
    assert!(
        summary.subgraphs[0]
            .tensors
            .iter()
            .any(|t| t.dtype == zeropoint::graph::TensorType::INT8)
    );
}

#[wasm_bindgen_test]
fn the_callback_hears_every_candidate_model_scored() {
    let cal = calibrated(3, true);
    let f = js_sys::Function::new_with_args("n", "globalThis.__zpScored = n");
    let settings = serde_wasm_bindgen::to_value(&int8()).expect("settings");
    // As the page sends it (camelCase, absent fields left out).
    let auto = js_sys::JSON::parse(r#"{"budget": 6}"#).expect("json");
    let q = cal
        .auto_quantize(EXAMPLE, settings, auto, Some(f.unchecked_into()))
        .map_err(message)
        .expect("--auto");
    let scored = js_sys::Reflect::get(&js_sys::global(), &"__zpScored".into())
        .expect("set")
        .as_f64()
        .expect("a count");
    let report: serde_json::Value =
        serde_json::from_str(&q.report_json().expect("json")).expect("report");
    // Every candidate of the searches, and the guard's scores besides.
    let evaluations = report["auto"]["evaluations"].as_f64().expect("count");
    assert!(
        scored >= evaluations && evaluations > 0.0,
        "{scored} vs {evaluations}"
    );
}

#[wasm_bindgen_test]
fn without_every_sample_equalization_is_left_out_and_said() {
    // The default keeps the first 16 (the report's errors): 20 samples are not all there.
    let cal = calibrated(20, false);
    let q = cal
        .auto_quantize_with(EXAMPLE, &int8(), &budget(20))
        .expect("--auto");
    assert!(
        q.warnings()
            .iter()
            .any(|w| w.contains("equalization was not tried") && w.contains("16 of the 20")),
        "{:?}",
        q.warnings()
    );
}

#[wasm_bindgen_test]
fn an_accuracy_target_takes_one_label_per_calibration_sample() {
    let cal = calibrated(8, true);
    let labelled = |labels: Vec<usize>, output: usize| AutoSettings {
        target_accuracy_drop: Some(100.0),
        labels: Some(labels),
        label_output: Some(output),
        budget: Some(6),
        ..AutoSettings::default()
    };
    let q = cal
        .auto_quantize_with(EXAMPLE, &int8(), &labelled(vec![2; 8], 0))
        .expect("--auto");
    let report: serde_json::Value =
        serde_json::from_str(&q.report_json().expect("json")).expect("report");
    let auto = &report["auto"];
    assert_eq!(auto["target_accuracy_drop"], 100.0, "{auto}");
    assert_eq!(auto["label_output"], 0, "{auto}");
    assert_eq!(auto["target_reached"], true, "{auto}");
    assert!(auto["float_accuracy"].is_number(), "{auto}");
    // Not one label per calibration sample; a class the output does not have; no output 1.
    for (labels, output, says) in [
        (vec![2; 7], 0, "7 labels for the 8 calibration samples"),
        (vec![5; 8], 0, "a label is 5, but output 0 has 5 classes"),
        (vec![0; 8], 1, "the model has 1 output"),
    ] {
        let e = cal
            .auto_quantize_with(EXAMPLE, &int8(), &labelled(labels, output))
            .err()
            .expect("refused");
        assert!(e.to_string().contains(says), "{e}");
    }
}

#[wasm_bindgen_test]
fn refusals_name_what_to_do() {
    let mut cal = calibrated(2, false);
    let e = message(cal.keep_samples().expect_err("after samples"));
    assert!(e.contains("before the first sample"), "{e}");
    // Another model's bytes.
    let mut other = EXAMPLE.to_vec();
    other.push(0);
    let e = cal
        .auto_quantize_with(&other, &int8(), &AutoSettings::default())
        .err()
        .expect("refused");
    assert!(
        e.to_string()
            .contains("calibrate this model in the page first"),
        "{e}"
    );
    // Not int8.
    let e = cal
        .auto_quantize_with(
            EXAMPLE,
            &QuantizeSettings {
                mode: "dynamic".into(),
                io: "float".into(),
                ..int8()
            },
            &AutoSettings::default(),
        )
        .err()
        .expect("refused");
    assert!(e.to_string().contains("--mode int8"), "{e}");
}

#[wasm_bindgen_test]
fn the_ranker_scores_each_candidate_against_the_float_model() {
    let cal = calibrated(8, false);
    let stats: CalibrationStats =
        serde_wasm_bindgen::from_value(cal.stats("minmax").expect("stats"))
            .expect("CalibrationStats");
    let stats = serde_json::to_string(&stats).expect("json");
    let mut r = LayerRanker::with(&cal, EXAMPLE, &stats, &int8()).expect("ranker");
    assert_eq!(r.samples(), 8);
    let base = r.base().expect("base");
    assert!(base.is_finite() && base > 10.0, "base {base}");
    let candidates: Vec<zeropoint::quant::auto::rank::LayerCandidate> =
        serde_wasm_bindgen::from_value(r.candidates().expect("candidates"))
            .expect("LayerCandidate[]");
    assert!(candidates.len() >= 2, "{candidates:?}");
    for c in &candidates {
        let fix = serde_json::to_value(c.fix).expect("fix");
        let db = r
            .score(c.index, fix.as_str().expect("string"))
            .expect("scored");
        assert!(db.is_finite() || db == f64::INFINITY, "{c:?}: {db}");
    }
    assert!(message(r.score(0, "int4").expect_err("no such fix")).contains("int16 or float"));
}

#[wasm_bindgen_test]
fn a_time_limit_reads_the_pages_clock() {
    // `timeLimit` as the page sends it: 0 s has passed at once (`performance.now()`: a build
    // without that clock would never stop), so only the TF-compatible model is scored and it is
    // written; an hour is never reached and the search runs as without a limit.
    let cal = calibrated(24, true);
    let run = |json: &str| {
        let settings = serde_wasm_bindgen::to_value(&int8()).expect("settings");
        let auto = js_sys::JSON::parse(json).expect("json");
        let q = cal
            .auto_quantize(EXAMPLE, settings, auto, None)
            .map_err(message)
            .expect("--auto");
        let report: serde_json::Value =
            serde_json::from_str(&q.report_json().expect("json")).expect("report");
        report["auto"].clone()
    };
    let stopped = run(r#"{"budget": 20, "timeLimit": 0}"#);
    assert_eq!(stopped["time_limit_reached"], true, "{stopped}");
    assert_eq!(stopped["fell_back"], true, "{stopped}");
    assert_eq!(stopped["evaluations"], 1, "{stopped}");
    let free = run(r#"{"budget": 20, "timeLimit": 3600}"#);
    assert_eq!(free["time_limit_reached"], false, "{free}");
    assert_eq!(free, run(r#"{"budget": 20}"#));
}
