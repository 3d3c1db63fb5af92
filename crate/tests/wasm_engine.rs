//! The float engine inside WebAssembly (Node, through wasm-bindgen-test-runner, SIMD on): the
//! page's example model runs in wasm on the golden inputs and matches the outputs that the
//! native engine reproduces bit for bit (LiteRT's reference kernels, `tests/golden/example_cnn`).
//!
//! Natively this file compiles to nothing; it runs with
//! `cargo test --target wasm32-unknown-unknown --features wasm`.
#![cfg(target_arch = "wasm32")]

mod wasm_common;

use wasm_bindgen_test::wasm_bindgen_test;
use wasm_common::EXAMPLE;
use zeropoint::engine::Interpreter;
use zeropoint::tflite;

/// Four input samples and LiteRT's float outputs for them.
const INPUTS: &[u8] = include_bytes!("../../tests/golden/example_cnn/input_0.npy");
const EXPECTED: &[u8] =
    include_bytes!("../../tests/golden/example_cnn/expected_float_output_0.npy");

/// Relative tolerance: wasm's `exp` (Rust's libm port) may differ from glibc's by an ulp; the
/// native engine is bit-exact, so this only admits last-bit differences in SOFTMAX.
const FLOAT_REL: f32 = 1e-5;
/// Absolute floor for near-zero outputs.
const FLOAT_ABS: f32 = 1e-6;

/// The float32 values of an `.npy` file, read with the crate's one `.npy` reader.
fn npy_f32(bytes: &[u8]) -> Vec<f32> {
    zeropoint::npy::read("golden", bytes)
        .expect(".npy parses")
        .to_f32()
        .expect("float .npy")
}

#[wasm_bindgen_test]
fn example_model_matches_the_native_engine() {
    let model = tflite::read(EXAMPLE).expect("example reads");
    let mut interp = Interpreter::new(&model).expect("example prepares");
    let inputs = npy_f32(INPUTS);
    let expected = npy_f32(EXPECTED);
    let per_in = interp.inputs()[0].num_elements();
    let per_out = interp.outputs()[0].num_elements();
    assert_eq!(inputs.len() / per_in, expected.len() / per_out);
    for (sample, want) in inputs
        .chunks_exact(per_in)
        .zip(expected.chunks_exact(per_out))
    {
        interp.set_input_f32(0, sample).expect("input fits");
        interp.invoke().expect("the model runs");
        let out = interp.output(0).expect("output");
        let got = out.as_f32().expect("float output");
        for (g, w) in got.iter().zip(want) {
            assert!(
                (g - w).abs() <= FLOAT_ABS.max(FLOAT_REL * w.abs()),
                "got {g}, expected {w}"
            );
        }
    }
}

#[wasm_bindgen_test]
fn wrong_input_size_is_an_error_not_a_crash() {
    let model = tflite::read(EXAMPLE).expect("example reads");
    let mut interp = Interpreter::new(&model).expect("example prepares");
    let err = interp.set_input(0, &[0u8; 3]).expect_err("wrong size");
    assert!(
        err.to_string().contains("expected 1×32×32×3 FLOAT32"),
        "{err}"
    );
}

/// Keras recurrent models (WHILE over cond/body subgraphs, `tests/realworld/`) load through the
/// page's `Runner` (fast kernels, as the page runs) and give LiteRT's outputs on every sample:
/// within an ulp-scale tolerance, as above (LOGISTIC / TANH / SOFTMAX use wasm's libm; natively
/// they are bit-exact, `tests/rust/realworld.rs`).
#[wasm_bindgen_test]
fn while_models_run_through_the_page_runner() {
    let cases: [(&[u8], &[u8], &[u8]); 2] = [
        (
            include_bytes!("../../tests/realworld/lstm_classifier/model.tflite"),
            include_bytes!("../../tests/realworld/lstm_classifier/input_0.npy"),
            include_bytes!("../../tests/realworld/lstm_classifier/expected_output_0.npy"),
        ),
        (
            include_bytes!("../../tests/realworld/gru_kws/model.tflite"),
            include_bytes!("../../tests/realworld/gru_kws/input_0.npy"),
            include_bytes!("../../tests/realworld/gru_kws/expected_output_0.npy"),
        ),
    ];
    for (k, (model, input, expected)) in cases.into_iter().enumerate() {
        let mut runner =
            zeropoint::wasm::run::Runner::new(model, Some("fast".into()), None, None, None, None)
                .expect("prepares");
        // The token ids (int32) or features (float32) as little-endian bytes, 3 samples.
        let input = zeropoint::npy::read("input", input).expect(".npy parses");
        let expected = npy_f32(expected);
        let per_in = input.data.len() / 3;
        let per_out = expected.len() / 3;
        for s in 0..3 {
            runner
                .set_input_bytes(0, &input.data[s * per_in..(s + 1) * per_in])
                .expect("input fits");
            runner.invoke().expect("the model runs");
            let got = runner.output_float(0).expect("output");
            let want = &expected[s * per_out..(s + 1) * per_out];
            for (g, w) in got.iter().zip(want) {
                assert!(
                    (g - w).abs() <= FLOAT_ABS.max(FLOAT_REL * w.abs()),
                    "model {k} sample {s}: got {g}, expected {w}"
                );
            }
        }
    }
}

/// The streaming keyword spotter (resource variables, `tests/realworld/streaming_kws`) through
/// the page's `Runner`: 10 consecutive `invoke`s carry the state and give LiteRT's outputs of 10
/// frames on one interpreter; after `resetState`, frames 5.. give what a re-created LiteRT
/// interpreter gave. Bit for bit: the model has no transcendental functions.
#[wasm_bindgen_test]
fn streaming_model_keeps_state_in_the_page_runner_until_reset() {
    let model = include_bytes!("../../tests/realworld/streaming_kws/model.tflite");
    let input = npy_f32(include_bytes!(
        "../../tests/realworld/streaming_kws/input_0.npy"
    ));
    let stream = npy_f32(include_bytes!(
        "../../tests/realworld/streaming_kws/expected_output_0.npy"
    ));
    let fresh = npy_f32(include_bytes!(
        "../../tests/realworld/streaming_kws/expected_reset_output_0.npy"
    ));
    let mut runner =
        zeropoint::wasm::run::Runner::new(model, Some("fast".into()), None, None, None, None)
            .expect("prepares");
    assert!(runner.is_stateful());
    let (per_in, per_out) = (input.len() / 10, stream.len() / 10);
    let frame = |runner: &mut zeropoint::wasm::run::Runner, f: usize| {
        runner
            .set_input(0, &input[f * per_in..(f + 1) * per_in])
            .expect("input fits");
        runner.invoke().expect("the model runs");
        runner.output_float(0).expect("output")
    };
    for f in 0..10 {
        let got = frame(&mut runner, f);
        let want = &stream[f * per_out..(f + 1) * per_out];
        assert_eq!(got.as_slice(), want, "frame {f}");
    }
    runner.reset_state();
    for f in 5..10 {
        let got = frame(&mut runner, f);
        let want = &fresh[(f - 5) * per_out..(f - 4) * per_out];
        assert_eq!(got.as_slice(), want, "frame {f} after the reset");
    }
}
