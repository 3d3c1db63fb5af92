//! The page's quantize / run / compare bindings inside WebAssembly (Node, through
//! wasm-bindgen-test-runner, SIMD on), against TF's and LiteRT's files in
//! `tests/golden/example_cnn`: quantizing with TF's recorded ranges gives TF's parameters; the
//! runner reproduces LiteRT's int8 outputs; float inputs fed to an int8 model give what TF's
//! float-I/O model (with its QUANTIZE op) gives in LiteRT; the comparison is exact for a model
//! against itself.
//!
//! Natively this file compiles to nothing; it runs with
//! `cargo test --target wasm32-unknown-unknown --features wasm`.
#![cfg(target_arch = "wasm32")]

mod wasm_common;

use std::collections::HashMap;
use wasm_common::message;

use wasm_bindgen::JsValue;
use wasm_bindgen_test::wasm_bindgen_test;
use zeropoint::engine::compare::TensorError;
use zeropoint::graph::{Model, TensorType};
use zeropoint::quant::Ranges;
use zeropoint::quant::calibrate::{CalibrationStats, Histogram, TensorStats};
use zeropoint::tflite;
use zeropoint::wasm::quantize::{QuantizeSettings, quantize_model, quantize_with, stats_json};
use zeropoint::wasm::run::{Runner, compare_with, debug_panic};

const FLOAT: &[u8] = include_bytes!("../../tests/golden/example_cnn/model_float.tflite");
/// TF's calibrated-only model: the float model with the calibrator's min/max on each tensor.
const CALIBRATED: &[u8] = include_bytes!("../../tests/golden/example_cnn/model_calibrated.tflite");
/// TF's full-integer model (int8 I/O) and its float-I/O twin, from the same calibration.
const TF_INT8: &[u8] = include_bytes!("../../tests/golden/example_cnn/model_int8.tflite");
const TF_INT8_FLOATIO: &[u8] =
    include_bytes!("../../tests/golden/example_cnn/model_int8_floatio.tflite");
const INPUT: &[u8] = include_bytes!("../../tests/golden/example_cnn/input_0.npy");
const INPUT_INT8: &[u8] = include_bytes!("../../tests/golden/example_cnn/input_int8_0.npy");
/// LiteRT BUILTIN_REF outputs of the two TF models.
const EXPECTED_INT8: &[u8] =
    include_bytes!("../../tests/golden/example_cnn/expected_int8_output_0.npy");
const EXPECTED_FLOATIO: &[u8] =
    include_bytes!("../../tests/golden/example_cnn/expected_int8_floatio_output_0.npy");

/// The payload (little-endian elements) of an `.npy` file, read with the crate's one reader.
fn npy_payload(bytes: &[u8]) -> Vec<u8> {
    zeropoint::npy::read("golden", bytes)
        .expect(".npy parses")
        .data
}

/// The float32 values of an `.npy` file.
fn npy_f32(bytes: &[u8]) -> Vec<f32> {
    zeropoint::npy::read("golden", bytes)
        .expect(".npy parses")
        .to_f32()
        .expect("float .npy")
}

fn settings(mode: &str, io: &str, float_ops: &[&str]) -> QuantizeSettings {
    QuantizeSettings {
        mode: mode.into(),
        io: io.into(),
        per_tensor: false,
        float_ops: float_ops.iter().map(|s| s.to_string()).collect(),
        int16_ops: Vec::new(),
    }
}

fn settings_js(s: &QuantizeSettings) -> JsValue {
    serde_wasm_bindgen::to_value(s).expect("settings to JS")
}

/// TF's recorded ranges as the statistics JSON the page and the CLI exchange.
fn tf_stats() -> CalibrationStats {
    let float = tflite::read(FLOAT).expect("float model");
    let cal = tflite::read(CALIBRATED).expect("calibrated model");
    let ranges = Ranges::from_calibrated_model(&float, &cal).expect("TF ranges");
    let tensors: Vec<TensorStats> = float.subgraphs[0]
        .tensors
        .iter()
        .enumerate()
        .filter_map(|(index, t)| {
            let (min, max) = ranges.get(index)?;
            Some(TensorStats {
                index,
                subgraph: 0,
                name: t.name.clone(),
                min,
                max,
                chosen_min: min,
                chosen_max: max,
                method: "minmax".into(),
                histogram: Histogram {
                    lo: f64::from(min),
                    hi: f64::from(max),
                    counts: vec![1],
                },
                true_min: None,
                true_max: None,
                moving_average: None,
            })
        })
        .collect();
    assert!(tensors.len() >= 5, "TF recorded {} ranges", tensors.len());
    CalibrationStats {
        samples: 32,
        tensors,
        nested: Vec::new(),
    }
}

fn by_name(model: &Model) -> HashMap<&str, usize> {
    model.subgraphs[0]
        .tensors
        .iter()
        .enumerate()
        .map(|(i, t)| (t.name.as_str(), i))
        .collect()
}

#[wasm_bindgen_test]
fn quantizing_with_tf_ranges_gives_tf_parameters() {
    let stats = tf_stats();
    let text =
        stats_json(serde_wasm_bindgen::to_value(&stats).expect("stats to JS")).expect("stats JSON");
    let q = quantize_model(
        FLOAT,
        Some(text),
        settings_js(&settings("int8", "int8", &[])),
    )
    .expect("quantizes");
    let ours = tflite::read(&q.bytes()).expect("the quantized model reads back");
    assert_eq!(q.size(), q.bytes().len());
    let tf = tflite::read(TF_INT8).expect("TF's model");
    let names = by_name(&ours);
    let mut compared = 0;
    for t in &tf.subgraphs[0].tensors {
        let Some(tq) = t.quantization.as_ref().filter(|q| !q.scales().is_empty()) else {
            continue;
        };
        let &i = names
            .get(t.name.as_str())
            .unwrap_or_else(|| panic!("no tensor '{}' in ours", t.name));
        let o = &ours.subgraphs[0].tensors[i];
        let oq = o.quantization.as_ref().expect("quantized");
        assert_eq!(o.dtype, t.dtype, "dtype of '{}'", t.name);
        assert_eq!(oq.scales(), tq.scales(), "scales of '{}'", t.name);
        assert_eq!(
            oq.zero_points(),
            tq.zero_points(),
            "zero points of '{}'",
            t.name
        );
        compared += 1;
    }
    assert!(compared >= 10, "only {compared} quantized tensors compared");
    // The report names the same parameters, and its JSON is the CLI's (compact + newline).
    let report: zeropoint::quant::Report =
        serde_wasm_bindgen::from_value(q.report().expect("report")).expect("Report");
    // Its JSON is the CLI's (`--report`: compact + newline), and the JS object carries the same.
    let json = q.report_json().expect("report JSON");
    assert_eq!(
        json,
        serde_json::to_string(&report).expect("serde_json") + "\n"
    );
    assert_eq!(report.mode, "int8");
    assert_eq!(report.tensors.len(), ours.subgraphs[0].tensors.len());
}

#[wasm_bindgen_test]
fn stats_json_survives_the_trip_through_js() {
    let stats = tf_stats();
    let text =
        stats_json(serde_wasm_bindgen::to_value(&stats).expect("stats to JS")).expect("stats JSON");
    assert_eq!(
        text,
        serde_json::to_string(&stats).expect("serde_json") + "\n"
    );
    // What the quantizer uses reads back exactly (serde_json without `float_roundtrip` may put
    // an f64 histogram edge one ulp off; the CLI reads the file with the same parser).
    let back: CalibrationStats = serde_json::from_str(&text).expect("reads back");
    assert_eq!(back.tensors.len(), stats.tensors.len());
    for (b, s) in back.tensors.iter().zip(&stats.tensors) {
        assert_eq!((b.index, &b.name, &b.method), (s.index, &s.name, &s.method));
        assert_eq!((b.min, b.max), (s.min, s.max));
        assert_eq!((b.chosen_min, b.chosen_max), (s.chosen_min, s.chosen_max));
        assert_eq!(b.histogram.counts, s.histogram.counts);
    }
}

#[wasm_bindgen_test]
fn a_kept_float_op_stays_float() {
    let stats = tf_stats();
    let float = tflite::read(FLOAT).expect("float model");
    let op0_out = float.subgraphs[0].operators[0].outputs[0] as usize;
    let name = float.subgraphs[0].tensors[op0_out].name.clone();
    let q =
        quantize_with(FLOAT, Some(&stats), &settings("int8", "int8", &["0"])).expect("quantizes");
    let ours = tflite::read(&q.bytes()).expect("reads back");
    let sg = &ours.subgraphs[0];
    let &i = by_name(&ours)
        .get(name.as_str())
        .expect("op 0's output is still there");
    assert_eq!(sg.tensors[i].dtype, TensorType::FLOAT32, "'{name}'");
    let ops: Vec<String> = sg.operators.iter().map(|o| o.code.name()).collect();
    assert!(ops.iter().any(|o| o == "QUANTIZE"), "{ops:?}");
    // By name, the same.
    let by_tensor =
        quantize_with(FLOAT, Some(&stats), &settings("int8", "int8", &[&name])).expect("quantizes");
    assert_eq!(by_tensor.bytes(), q.bytes());
    // Without keeping it, op 0's output is int8.
    let all = quantize_with(FLOAT, Some(&stats), &settings("int8", "int8", &[])).expect("all");
    let all_model = tflite::read(&all.bytes()).expect("reads");
    let &j = by_name(&all_model).get(name.as_str()).expect("output");
    assert_eq!(all_model.subgraphs[0].tensors[j].dtype, TensorType::INT8);
}

#[wasm_bindgen_test]
fn dynamic_and_float16_need_no_statistics() {
    for mode in ["dynamic", "float16"] {
        let q = quantize_with(FLOAT, None, &settings(mode, "float", &[])).expect(mode);
        assert!(q.size() < FLOAT.len(), "{mode}: {} bytes", q.size());
    }
}

#[wasm_bindgen_test]
fn errors_are_readable() {
    let err = |stats: Option<String>, s: QuantizeSettings| {
        message(
            quantize_model(FLOAT, stats, settings_js(&s))
                .err()
                .expect("an error"),
        )
    };
    assert!(err(None, settings("int8", "int8", &[])).contains("needs calibration statistics"));
    assert!(err(None, settings("int4", "int8", &[])).contains("unknown mode 'int4'"));
    assert!(
        err(Some("[1]".into()), settings("int8", "int8", &[]))
            .contains("not a calibration statistics JSON")
    );
    let mut other = tf_stats();
    other.tensors[0].name = "something else".into();
    let text = serde_json::to_string(&other).expect("json");
    assert!(err(Some(text), settings("int8", "int8", &[])).contains("another model"));
    let bad = quantize_model(FLOAT, None, JsValue::from_str("int8"))
        .err()
        .expect("error");
    assert!(message(bad).contains("quantize settings"));
}

#[wasm_bindgen_test]
fn the_runner_reproduces_litert_int8_outputs() {
    let mut r = Runner::new(TF_INT8, None, None, None, None, None).expect("prepares");
    let inputs = npy_payload(INPUT_INT8);
    let expected = npy_payload(EXPECTED_INT8);
    let (n_in, n_out) = (32 * 32 * 3, 5);
    assert_eq!(inputs.len() / n_in, expected.len() / n_out);
    for (x, want) in inputs.chunks_exact(n_in).zip(expected.chunks_exact(n_out)) {
        r.set_input_bytes(0, x).expect("input fits");
        r.invoke().expect("the model runs");
        assert_eq!(r.output_bytes(0).expect("output"), want);
    }
    assert!(Runner::new(TF_INT8, Some("fast".into()), None, None, None, None).is_ok());
    assert!(
        message(
            Runner::new(TF_INT8, Some("turbo".into()), None, None, None, None)
                .err()
                .expect("error")
        )
        .contains("unknown kernel set")
    );
}

/// An int8 depthwise convolution (ReLU6) with LiteRT's outputs on both of its paths: BUILTIN_REF
/// and the default interpreter (XNNPACK delegate), which differ on some elements.
const DW: &[u8] = include_bytes!("../../tests/golden/op_depthwise_m1_relu6/model_int8.tflite");
const DW_INPUT: &[u8] = include_bytes!("../../tests/golden/op_depthwise_m1_relu6/input_int8_0.npy");
const DW_REF: &[u8] =
    include_bytes!("../../tests/golden/op_depthwise_m1_relu6/expected_int8_output_0.npy");
const DW_XNNPACK: &[u8] =
    include_bytes!("../../tests/golden/op_depthwise_m1_relu6/expected_int8_xnnpack_output_0.npy");

#[wasm_bindgen_test]
fn the_runner_reproduces_the_litert_path_its_arithmetic_names() {
    let (inputs, reference, xnnpack) = (
        npy_payload(DW_INPUT),
        npy_payload(DW_REF),
        npy_payload(DW_XNNPACK),
    );
    // The two paths differ here, so a runner that ignored its arithmetic would fail below.
    assert_ne!(reference, xnnpack);
    let (n_in, n_out) = (inputs.len() / 2, reference.len() / 2);
    for (arithmetic, expected) in [
        (None, &reference),
        (Some("reference"), &reference),
        (Some("xnnpack"), &xnnpack),
    ] {
        for kernels in ["reference", "fast"] {
            let mut r = Runner::new(
                DW,
                Some(kernels.into()),
                None,
                None,
                None,
                arithmetic.map(JsValue::from_str),
            )
            .expect("prepares");
            for (x, want) in inputs.chunks_exact(n_in).zip(expected.chunks_exact(n_out)) {
                r.set_input_bytes(0, x).expect("input fits");
                r.invoke().expect("the model runs");
                assert_eq!(
                    r.output_bytes(0).expect("output"),
                    want,
                    "{arithmetic:?} {kernels}"
                );
            }
        }
    }
    let msg = message(
        Runner::new(DW, None, None, None, None, Some(JsValue::from_str("fixed")))
            .err()
            .expect("error"),
    );
    assert_eq!(msg, "unknown arithmetic 'fixed' (reference | xnnpack)");
}

#[wasm_bindgen_test]
fn float_inputs_to_an_int8_model_match_tfs_float_io_model() {
    // LiteRT's QUANTIZE op and DEQUANTIZE op in TF's float-I/O model do what the runner does at
    // the edges of the int8 model: the outputs must be identical.
    let mut r = Runner::new(TF_INT8, None, None, None, None, None).expect("prepares");
    let inputs = npy_f32(INPUT);
    let expected = npy_f32(EXPECTED_FLOATIO);
    for (x, want) in inputs
        .chunks_exact(32 * 32 * 3)
        .zip(expected.chunks_exact(5))
    {
        r.set_input_f32(0, x).expect("input fits");
        r.invoke().expect("the model runs");
        assert_eq!(r.output_float(0).expect("output"), want);
    }
    assert!(r.set_input_f32(0, &[0.0; 3]).is_err());
    assert!(r.output_float(1).is_err());
}

#[wasm_bindgen_test]
fn comparison_is_exact_against_itself_and_close_for_tfs_int8_model() {
    let data = npy_f32(INPUT);
    let same = compare_with(FLOAT, FLOAT, &data).expect("compares");
    assert!(same.len() >= 5);
    assert!(
        same.iter()
            .all(|r| r.sqnr_db == f64::INFINITY && r.max_abs_error == 0.0)
    );
    let rows: Vec<TensorError> = compare_with(FLOAT, TF_INT8_FLOATIO, &data).expect("compares");
    let ints: Vec<&TensorError> = rows.iter().filter(|r| r.dtype == "INT8").collect();
    assert!(ints.len() >= 5, "{} int8 tensors compared", ints.len());
    for r in &ints {
        assert!(r.scale.is_some() && r.max_abs_error_lsb.is_some());
        assert_eq!(r.elements % 4, 0, "four samples of '{}'", r.name);
        assert!(
            r.sqnr_db.is_finite() && r.sqnr_db > 10.0,
            "{}: {} dB",
            r.name,
            r.sqnr_db
        );
    }
    let err = compare_with(FLOAT, TF_INT8, &data[..100]).expect_err("not whole samples");
    assert!(err.to_string().contains("a multiple of 3072"), "{err}");
}

#[wasm_bindgen_test]
#[should_panic(expected = "debugPanic (test hook): boom")]
fn the_panic_hook_panics() {
    debug_panic("boom");
}
