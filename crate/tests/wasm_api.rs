//! The wasm face, exercised inside WebAssembly (Node, through wasm-bindgen-test-runner, SIMD on).
//!
//! Natively this file compiles to nothing; `scripts/test.sh` runs it with
//! `cargo test --target wasm32-unknown-unknown --features wasm`.
#![cfg(target_arch = "wasm32")]

mod wasm_common;

use wasm_bindgen::JsValue;
use wasm_bindgen_test::wasm_bindgen_test;
use wasm_common::{EXAMPLE, message};
use zeropoint::tflite::{self, WriteOptions};
use zeropoint::wasm;

#[wasm_bindgen_test]
fn built_with_simd128() {
    assert!(wasm::simd_enabled(), "the test build must have SIMD128 on");
    assert_eq!(wasm::version(), env!("CARGO_PKG_VERSION"));
}

#[wasm_bindgen_test]
fn example_model_round_trips_in_wasm() {
    let model = tflite::read(EXAMPLE).expect("example reads");
    assert!(!model.subgraphs.is_empty());
    for external_buffers in [false, true] {
        let bytes = wasm::rewrite_model(EXAMPLE, external_buffers).expect("rewrite");
        let back = tflite::read(&bytes).expect("rewrite reads");
        assert_eq!(back, model, "external={external_buffers}");
        let again = tflite::write_with(&back, &WriteOptions { external_buffers }).expect("write");
        assert_eq!(again, bytes);
    }
}

#[wasm_bindgen_test]
fn summary_is_a_js_object() {
    let v = wasm::inspect_model(EXAMPLE).expect("inspect");
    assert!(v.is_object());
}

#[wasm_bindgen_test]
fn truncated_model_is_a_js_error_with_the_message() {
    let cut = &EXAMPLE[..EXAMPLE.len() / 2];
    let expected = tflite::read(cut).expect_err("truncated").to_string();
    assert!(expected.contains("not a valid .tflite model"), "{expected}");
    let err = wasm::inspect_model(cut).expect_err("truncated must fail");
    assert_eq!(message(err), expected);
}

/// Limits as the page sends them (a plain JS object of byte counts).
fn limits_js(tensor: usize, arena: usize) -> JsValue {
    let d = zeropoint::engine::Limits::default();
    serde_wasm_bindgen::to_value(&wasm::limits::EngineLimits {
        max_tensor_bytes: tensor,
        max_arena_bytes: arena,
        max_constant_bytes: d.max_constant_bytes,
        max_while_iterations: None,
    })
    .expect("to JS")
}

#[wasm_bindgen_test]
fn limits_reach_every_prepare_and_name_what_is_too_large() {
    // Defaults are the library's, the same as the CLI's.
    let d: serde_json::Value =
        serde_wasm_bindgen::from_value(wasm::limits::default_limits().expect("defaults"))
            .expect("from JS");
    let e = zeropoint::engine::Limits::default();
    assert_eq!(
        d["max_model_bytes"].as_u64(),
        Some(zeropoint::limits::DEFAULT_MAX_MODEL_BYTES)
    );
    assert_eq!(
        d["engine"]["max_tensor_bytes"].as_u64(),
        Some(e.max_tensor_bytes as u64)
    );
    assert_eq!(
        d["engine"]["max_arena_bytes"].as_u64(),
        Some(e.max_arena_bytes as u64)
    );

    // checkModel: what stops the model from running (absent when it runs), and the operators
    // at fault; it throws only when the model does not read.
    let check = |limits: Option<JsValue>| -> serde_json::Value {
        serde_wasm_bindgen::from_value(wasm::limits::check_model(EXAMPLE, limits).expect("reads"))
            .expect("from JS")
    };
    for runs in [check(None), check(Some(JsValue::UNDEFINED))] {
        assert!(runs["cannot_run"].is_null(), "the example runs: {runs}");
        assert_eq!(runs["ops"].as_array().map(Vec::len), Some(0), "{runs}");
    }
    let input = {
        let m = tflite::read(EXAMPLE).expect("reads");
        let sg = &m.subgraphs[0];
        sg.tensors[sg.inputs[0] as usize].name.clone()
    };
    // 32×32×3 float input = 12,288 bytes.
    let tiny = || Some(limits_js(1000, 1 << 30));
    let over = check(tiny());
    let msg = over["cannot_run"]
        .as_str()
        .expect("over the limit")
        .to_string();
    // The operators reading a tensor over the limit are marked; the graph input itself is
    // in the message, not on a node.
    let marked: Vec<u64> = over["ops"]
        .as_array()
        .expect("ops")
        .iter()
        .map(|o| o["op_index"].as_u64().expect("index"))
        .collect();
    assert_eq!(marked, [0, 4, 7], "{over}");
    assert!(
        msg.contains(&format!("'{input}'")) && msg.contains("tensor limit of 1000 bytes"),
        "{msg}"
    );
    let by_runner = message(
        wasm::run::Runner::new(EXAMPLE, None, tiny(), None, None, None)
            .err()
            .expect("refused"),
    );
    assert_eq!(by_runner, msg);
    let by_calibrator = message(
        wasm::Calibrator::new(EXAMPLE, tiny(), None, None, None)
            .err()
            .expect("refused"),
    );
    assert_eq!(by_calibrator, msg);
    let sample = vec![0.5f32; 32 * 32 * 3];
    let by_compare = message(
        wasm::run::compare_models(EXAMPLE, EXAMPLE, &sample, tiny(), None, None, None)
            .expect_err("refused"),
    );
    assert_eq!(by_compare, msg);
    let arena = check(Some(limits_js(1 << 30, 4096)));
    assert!(
        arena["cannot_run"]
            .as_str()
            .is_some_and(|m| m.contains("the activation arena is too large")),
        "{arena}"
    );
    assert_eq!(arena["ops"].as_array().map(Vec::len), Some(0), "{arena}");
    let bad = message(
        wasm::limits::check_model(EXAMPLE, Some(JsValue::from_str("big"))).expect_err("not limits"),
    );
    assert!(bad.starts_with("engine limits:"), "{bad}");

    wasm::limits::check_model_size_js("m.tflite", 10.0, 10.0).expect("at the limit");
    let size =
        message(wasm::limits::check_model_size_js("m.tflite", 11.0, 10.0).expect_err("over"));
    assert_eq!(
        size,
        zeropoint::limits::check_model_size("m.tflite", 11, 10)
            .expect_err("over")
            .to_string()
    );
}

/// The dynamic-batch export of tests/realworld (shape_signature −1 on the batch).
const DYNAMIC_BATCH: &[u8] = include_bytes!("../../tests/realworld/dynamic_batch/model.tflite");

/// The page's dims field: `InputShapes` prepares the runner and the calibrator at batch 2 (inputs
/// and outputs twice as long as at the stored batch 1), and a fixed dim is refused naming the
/// input and the dim.
#[wasm_bindgen_test]
fn input_shapes_resize_a_dynamic_batch() {
    let shapes = |dims: Vec<usize>| {
        serde_wasm_bindgen::to_value(&wasm::limits::InputShapes {
            shapes: vec![wasm::limits::InputShape {
                input: "0".into(),
                dims,
            }],
            batch: None,
        })
        .expect("to JS")
    };
    let mut r = wasm::run::Runner::new(
        DYNAMIC_BATCH,
        None,
        None,
        Some(shapes(vec![2, 12, 12, 3])),
        None,
        None,
    )
    .expect("batch 2 prepares");
    r.set_input(0, &vec![0.25f32; 2 * 12 * 12 * 3])
        .expect("batch-2 input");
    r.invoke().expect("the model runs");
    let out = r.output_float(0).expect("output");
    assert_eq!(out.len(), 2 * 10, "two rows of 10 probabilities");
    assert_eq!(
        out[..10],
        out[10..],
        "the same row twice gives the same probabilities"
    );
    let cal = wasm::Calibrator::new(
        DYNAMIC_BATCH,
        None,
        Some(shapes(vec![2, 12, 12, 3])),
        None,
        None,
    );
    assert!(cal.is_ok(), "the calibrator prepares at batch 2");
    let msg = message(
        wasm::run::Runner::new(
            DYNAMIC_BATCH,
            None,
            None,
            Some(shapes(vec![2, 13, 12, 3])),
            None,
            None,
        )
        .err()
        .expect("a fixed dim"),
    );
    assert!(msg.contains("dim 1 is fixed at 12"), "{msg}");
}

/// The signatures golden (tests/tools/realworld/signatures.py): encode / decode / score.
const SIGNATURES: &[u8] = include_bytes!("../../tests/realworld/signatures/model.tflite");

#[wasm_bindgen_test]
fn a_runner_runs_the_signature_it_is_given() {
    let key = |k: &str| Some(JsValue::from_str(k));
    let mut r = wasm::run::Runner::new(SIGNATURES, None, None, None, key("score"), None)
        .expect("score prepares");
    r.set_input(0, &[0.5f32; 64]).expect("candidate");
    r.set_input(1, &[0.5f32; 64]).expect("query");
    r.invoke().expect("score runs");
    // Outputs in the signature's order: query_code (2×48), similarity (2).
    let code = r.output_float(0).expect("query_code");
    let sim = r.output_float(1).expect("similarity");
    assert_eq!((code.len(), sim.len()), (96, 2));
    // Same query and candidate: similarity is the code's squared norm (row 0), up to rounding.
    let norm: f32 = code[..48].iter().map(|c| c * c).sum();
    assert!((sim[0] - norm).abs() <= 1e-4 * norm, "{} vs {norm}", sim[0]);
    let msg = message(
        wasm::run::Runner::new(SIGNATURES, None, None, None, key("serve"), None)
            .err()
            .expect("no such key"),
    );
    assert_eq!(
        msg,
        "no signature 'serve': the model has signatures 'decode', 'encode', 'score'"
    );
    // Per-tensor comparison of the signature: the model against itself is exact everywhere.
    let rows = wasm::run::compare_with_limits(
        SIGNATURES,
        SIGNATURES,
        &[0.25f32; 128],
        &zeropoint::engine::Limits::default(),
        &zeropoint::graph::ShapeOverrides::default(),
        Some("score"),
        zeropoint::kernels::Arithmetic::Reference,
    )
    .expect("compares");
    assert!(
        rows.iter().any(|r| r.name == "PartitionedCall_2:1"),
        "{rows:?}"
    );
    assert!(rows.iter().all(|r| r.sqnr_db == f64::INFINITY), "{rows:?}");
    let msg = message(
        wasm::Calibrator::new(SIGNATURES, None, None, None, None)
            .err()
            .expect("several signatures"),
    );
    assert!(msg.contains("3 signatures"), "{msg}");
    // One signature at a time: its subgraph's inputs (query before candidate in `score`'s).
    let cal = wasm::Calibrator::new(SIGNATURES, None, None, Some("score".into()), None)
        .expect("a signature calibrates");
    let inputs: Vec<zeropoint::quant::calibrate::InputDesc> =
        serde_wasm_bindgen::from_value(cal.inputs().expect("inputs")).expect("InputDesc[]");
    let names: Vec<&str> = inputs.iter().map(|i| i.name.as_str()).collect();
    assert_eq!(names.len(), 2, "{names:?}");
    assert!(names.iter().all(|n| n.starts_with("score_")), "{names:?}");
    let msg = message(
        wasm::Calibrator::new(SIGNATURES, None, None, Some("serve".into()), None)
            .err()
            .expect("an unknown key"),
    );
    assert!(msg.contains("serve") && msg.contains("encode"), "{msg}");
}
