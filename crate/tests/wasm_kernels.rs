//! The fast kernels' real SIMD128 code path on every golden model, in Node.
//!
//! Compiled to wasm32 (SIMD128 on, from `.cargo/config.toml`) and run by
//! `wasm-bindgen-test-runner`, this reads `tests/golden/` through Node's `fs` module and runs
//! every case's integer, hybrid and float models on their golden inputs twice — with
//! [`KernelSet::Reference`] and [`KernelSet::Fast`] — and requires every tensor of every sample to
//! be byte-identical between the two; the `int8` variants' outputs must also equal LiteRT's
//! (`BUILTIN_REF`) exactly. (The native harness in `tests/rust/` does the same with the portable
//! lane emulation; this is the check that the intrinsics give the same bits.)
//!
//! Natively this file compiles to nothing; it runs with
//! `cargo test --target wasm32-unknown-unknown --no-default-features --features wasm`.
#![cfg(target_arch = "wasm32")]

use wasm_bindgen::prelude::*;
use wasm_bindgen_test::wasm_bindgen_test;
use zeropoint::engine::{Interpreter, Limits};
use zeropoint::kernels::{Arithmetic, KernelSet};
use zeropoint::tflite;

#[wasm_bindgen(module = "node:fs")]
extern "C" {
    #[wasm_bindgen(js_name = readFileSync, catch)]
    fn read_file_sync(path: &str) -> Result<Vec<u8>, JsValue>;
    #[wasm_bindgen(js_name = readdirSync)]
    fn readdir_sync(path: &str) -> Vec<String>;
    #[wasm_bindgen(js_name = existsSync)]
    fn exists_sync(path: &str) -> bool;
}

/// The variants run here, with the prefix of their input files.
const VARIANTS: [(&str, &str); 6] = [
    ("int8", "input_int8_"),
    ("int8_floatio", "input_"),
    ("16x8", "input_"),
    ("dynamic", "input_"),
    ("float", "input_"),
    ("fp16", "input_"),
];

/// The first dimension (the samples) and the payload of an `.npy` file, read with the crate's
/// one `.npy` reader.
fn npy(bytes: &[u8]) -> Option<(usize, Vec<u8>)> {
    let a = zeropoint::npy::read("golden", bytes).ok()?;
    Some((*a.shape.first()?, a.data))
}

/// Every sample's outputs and every tensor computed, for one kernel set.
fn run(model: &[u8], inputs: &[(usize, Vec<u8>)], kernels: KernelSet) -> (Vec<u8>, Vec<Vec<u8>>) {
    run_in(model, inputs, kernels, Arithmetic::Reference)
}

/// [`run`] reproducing `arithmetic`.
fn run_in(
    model: &[u8],
    inputs: &[(usize, Vec<u8>)],
    kernels: KernelSet,
    arithmetic: Arithmetic,
) -> (Vec<u8>, Vec<Vec<u8>>) {
    let model = tflite::read(model).expect("golden model reads");
    let mut interp = Interpreter::with_arithmetic(&model, &Limits::default(), kernels, arithmetic)
        .expect("prepares");
    let samples = inputs.first().map_or(0, |i| i.0);
    let (mut outputs, mut tensors) = (Vec::new(), Vec::new());
    for s in 0..samples {
        for (k, (_, data)) in inputs.iter().enumerate() {
            let n = interp.inputs()[k].byte_len();
            interp
                .set_input(k, &data[s * n..(s + 1) * n])
                .expect("input fits");
        }
        interp
            .invoke_with(&mut |_, view| tensors.push(view.bytes.to_vec()))
            .expect("the model runs");
        for o in 0..interp.outputs().len() {
            outputs.extend_from_slice(interp.output(o).expect("output").bytes);
        }
    }
    (outputs, tensors)
}

#[wasm_bindgen_test]
fn fast_kernels_give_the_reference_bits_on_every_golden_model() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/golden");
    let mut cases = readdir_sync(root);
    cases.sort();
    let (mut variants, mut tensors, mut litert) = (0usize, 0usize, 0usize);
    for case in &cases {
        let dir = format!("{root}/{case}");
        for (variant, prefix) in VARIANTS {
            let model_path = format!("{dir}/model_{variant}.tflite");
            if !exists_sync(&model_path) {
                continue;
            }
            let model = read_file_sync(&model_path).expect("model file");
            let files: Vec<Vec<u8>> = (0..)
                .map(|k| format!("{dir}/{prefix}{k}.npy"))
                .take_while(|p| exists_sync(p))
                .map(|p| read_file_sync(&p).expect("input file"))
                .collect();
            let inputs: Vec<(usize, Vec<u8>)> = files
                .iter()
                .map(|f| npy(f).expect("input .npy parses"))
                .collect();
            assert!(!inputs.is_empty(), "{case}/{variant}: no inputs");
            let reference = run(&model, &inputs, KernelSet::Reference);
            let fast = run(&model, &inputs, KernelSet::Fast);
            assert_eq!(
                reference.0, fast.0,
                "{case}/{variant}: fast outputs differ from the reference"
            );
            assert_eq!(reference.1.len(), fast.1.len(), "{case}/{variant}");
            for (t, (r, f)) in reference.1.iter().zip(&fast.1).enumerate() {
                assert_eq!(r, f, "{case}/{variant}: tensor #{t} (in order) differs");
            }
            variants += 1;
            tensors += fast.1.len();
            let expected = format!("{dir}/expected_{variant}_output_0.npy");
            if variant == "int8"
                && exists_sync(&expected)
                && !exists_sync(&format!("{dir}/expected_{variant}_output_1.npy"))
            {
                let bytes = read_file_sync(&expected).expect("expected file");
                let (_, want) = npy(&bytes).expect("expected .npy parses");
                assert_eq!(
                    fast.0, want,
                    "{case}/{variant}: fast outputs differ from LiteRT"
                );
                litert += 1;
            }
        }
    }
    assert!(variants > 250, "only {variants} golden variants found");
    assert!(
        litert > 50,
        "only {litert} int8 variants compared with LiteRT"
    );
    wasm_bindgen_test::console_log!(
        "{variants} golden variants: fast == reference in wasm ({tensors} tensors); {litert} int8 \
         variants == LiteRT"
    );
}

/// The inputs of `variant` in `dir` (files `<prefix><k>.npy`).
fn inputs_of(dir: &str, prefix: &str) -> Vec<(usize, Vec<u8>)> {
    (0..)
        .map(|k| format!("{dir}/{prefix}{k}.npy"))
        .take_while(|p| exists_sync(p))
        .map(|p| npy(&read_file_sync(&p).expect("input file")).expect("input .npy parses"))
        .collect()
}

#[wasm_bindgen_test]
fn xnnpack_arithmetic_fast_kernels_give_the_scalar_bits_on_every_int8_golden_model() {
    // `Arithmetic::Xnnpack` with the real intrinsics (f32x4 convert, multiply, pmin/pmax, the
    // magic-bias rounding) against the scalar kernels; where the golden stores its own LiteRT
    // XNNPACK output of a model made of covered ops only, that too (tests/rust/xnnpack_goldens.rs
    // has the full comparison natively).
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/golden");
    let mut cases = readdir_sync(root);
    cases.sort();
    let (mut variants, mut litert) = (0usize, 0usize);
    for case in &cases {
        let dir = format!("{root}/{case}");
        for (variant, prefix) in &VARIANTS[..2] {
            let model_path = format!("{dir}/model_{variant}.tflite");
            if !exists_sync(&model_path) {
                continue;
            }
            let model = read_file_sync(&model_path).expect("model file");
            let inputs = inputs_of(&dir, prefix);
            let scalar = run_in(&model, &inputs, KernelSet::Reference, Arithmetic::Xnnpack);
            let fast = run_in(&model, &inputs, KernelSet::Fast, Arithmetic::Xnnpack);
            assert_eq!(scalar, fast, "{case}/{variant}: xnnpack fast != scalar");
            variants += 1;
            let parsed = tflite::read(&model).expect("reads");
            let covered = parsed.subgraphs.iter().all(|sg| {
                sg.operators.iter().all(|op| {
                    let name = op.code.name();
                    let float_in = op
                        .inputs
                        .first()
                        .and_then(|&t| sg.tensors.get(usize::try_from(t).ok()?))
                        .is_some_and(|t| t.dtype == zeropoint::graph::TensorType::FLOAT32);
                    matches!(
                        name.as_str(),
                        "CONV_2D"
                            | "DEPTHWISE_CONV_2D"
                            | "FULLY_CONNECTED"
                            | "ADD"
                            | "SUB"
                            | "MUL"
                            | "MEAN"
                            | "BATCH_MATMUL"
                            | "TRANSPOSE_CONV"
                            | "LEAKY_RELU"
                            | "RESIZE_BILINEAR"
                            | "ROUND"
                            | "ELU"
                            | "SOFTMAX"
                            | "LOG_SOFTMAX"
                            | "RESHAPE"
                            | "DEQUANTIZE"
                    ) || (name == "QUANTIZE" && float_in)
                })
            });
            let expected = format!("{dir}/expected_{variant}_xnnpack_output_0.npy");
            if covered
                && exists_sync(&expected)
                && !exists_sync(&format!("{dir}/expected_{variant}_xnnpack_output_1.npy"))
            {
                let (_, want) = npy(&read_file_sync(&expected).expect("file")).expect("parses");
                assert_eq!(
                    fast.0, want,
                    "{case}/{variant}: differs from LiteRT XNNPACK"
                );
                litert += 1;
            }
        }
    }
    assert!(variants > 100, "only {variants} int8 golden variants found");
    assert!(
        litert > 5,
        "only {litert} variants compared with LiteRT XNNPACK"
    );
    wasm_bindgen_test::console_log!(
        "xnnpack arithmetic: {variants} int8 variants fast == scalar in wasm; {litert} == LiteRT \
         XNNPACK"
    );
}
