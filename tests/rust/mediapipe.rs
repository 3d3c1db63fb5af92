//! MediaPipe's custom operators (`Convolution2DTransposeBias`; version 2 of
//! `Landmarks2TransformMatrix`, `TransformTensorBilinear`, `TransformLandmarks`): the single-op
//! models in `tests/mediapipe/` (written by `tests/tools/mediapipe/make_goldens.py`, whose
//! expected outputs come from MediaPipe itself: the 0.10.14 wheel's InferenceCalculator with
//! MediaPipe's op resolver) run by our engine give MediaPipe's outputs bit for bit, and malformed
//! options or shapes are typed errors that name the operator.

use std::path::PathBuf;

use zeropoint::engine::Interpreter;
use zeropoint::tflite;
use zeropoint_tests::{NpyData, load_npy, repo_root};

fn root() -> PathBuf {
    repo_root().join("tests").join("mediapipe")
}

/// Each case's name, operator and number of graph inputs.
fn cases() -> Vec<(String, String, usize)> {
    let listing: serde_json::Value = serde_json::from_slice(
        &std::fs::read(root().join("cases.json")).expect("tests/mediapipe/cases.json"),
    )
    .expect("cases.json");
    listing["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .map(|c| {
            let inputs = c["inputs"].as_array().map_or(1, Vec::len);
            let s = |k: &str| c[k].as_str().expect(k).to_string();
            (s("name"), s("op"), inputs)
        })
        .collect()
}

fn f32s(name: &str, file: &str) -> (Vec<usize>, Vec<f32>) {
    let a = load_npy(&root().join(name).join(file));
    let shape = a.shape.clone();
    match a.data {
        NpyData::F32(v) => (shape, v),
        _ => panic!("{name}/{file}: expected float32"),
    }
}

/// Runs every case of operator `op` (at least `at_least` of them) and compares bit for bit.
fn matches_mediapipe(op: &str, at_least: usize) {
    let cases: Vec<_> = cases().into_iter().filter(|c| c.1 == op).collect();
    assert!(cases.len() >= at_least, "{op}: {} cases", cases.len());
    for (name, _, n_inputs) in &cases {
        let bytes = std::fs::read(root().join(name).join("model.tflite")).expect("model");
        let m = tflite::read(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        let mut it = Interpreter::new(&m).unwrap_or_else(|e| panic!("{name}: {e}"));
        let inputs: Vec<_> = (0..*n_inputs)
            .map(|k| match k {
                0 => f32s(name, "input.npy"),
                k => f32s(name, &format!("input{k}.npy")),
            })
            .collect();
        let (out_shape, want) = f32s(name, "expected.npy");
        let samples = out_shape[0];
        let n_out = want.len() / samples;
        for s in 0..samples {
            for (k, (shape, x)) in inputs.iter().enumerate() {
                assert_eq!(shape[0], samples, "{name}: input {k} samples");
                let n = x.len() / samples;
                it.set_input_f32(k, &x[s * n..(s + 1) * n]).expect("input");
            }
            it.invoke().expect("invoke");
            let out = it.output(0).expect("output");
            assert_eq!(out.shape, &out_shape[1..], "{name}: output shape");
            let got = out.as_f32().expect("float output");
            let want = &want[s * n_out..(s + 1) * n_out];
            let differ: Vec<usize> = (0..n_out)
                .filter(|&i| got[i].to_bits() != want[i].to_bits())
                .collect();
            let worst = differ
                .iter()
                .map(|&i| (got[i] - want[i]).abs())
                .fold(0.0f32, f32::max);
            assert!(
                differ.is_empty(),
                "{name} sample {s}: {} of {n_out} elements differ from MediaPipe (max abs {worst}; \
                 first at {:?})",
                differ.len(),
                differ.first()
            );
        }
    }
}

#[test]
fn transpose_conv_bias_matches_mediapipe() {
    matches_mediapipe("Convolution2DTransposeBias", 4);
}

#[test]
fn landmarks_to_transform_matrix_matches_mediapipe() {
    matches_mediapipe("Landmarks2TransformMatrix", 2);
}

#[test]
fn transform_tensor_bilinear_matches_mediapipe() {
    matches_mediapipe("TransformTensorBilinear", 3);
}

#[test]
fn transform_landmarks_matches_mediapipe() {
    matches_mediapipe("TransformLandmarks", 2);
}

/// The selfie case's model with its custom options (padding SAME, strides 2 and 2) replaced:
/// `replacement` is the options vector's length (12 as written) and its three int32s.
fn with_options(replacement: &[u8]) -> Result<(), String> {
    let bytes =
        std::fs::read(root().join("tconv_bias_selfie").join("model.tflite")).expect("model");
    // The options vector as stored: its length (12), then the three int32s.
    let options: Vec<u8> = [12i32, 1, 2, 2]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let at: Vec<usize> = (0..bytes.len() - 16)
        .filter(|&i| bytes[i..i + 16] == options[..])
        .collect();
    assert_eq!(at.len(), 1, "the options occur once in the model");
    let mut patched = bytes.clone();
    patched[at[0]..at[0] + 16].copy_from_slice(replacement);
    let m = tflite::read(&patched).map_err(|e| e.to_string())?;
    Interpreter::new(&m).map(|_| ()).map_err(|e| e.to_string())
}

#[test]
fn bad_options_are_typed_errors() {
    let words = |v: [i32; 4]| -> Vec<u8> { v.iter().flat_map(|w| w.to_le_bytes()).collect() };
    assert_eq!(
        with_options(&words([12, 2, 2, 2])),
        Ok(()),
        "VALID is accepted"
    );
    for (bad, says) in [
        ([12, 1, 0, 2], "stride_w must be positive"),
        ([12, 1, 2, -1], "stride_h must be positive"),
        ([12, 7, 2, 2], "padding = 7"),
        // The options vector cut to 8 bytes: MediaPipe would read past it.
        ([8, 1, 2, 2], "custom options have 8 bytes"),
    ] {
        let err = with_options(&words(bad)).expect_err("rejected");
        assert!(
            err.contains("Convolution2DTransposeBias") && err.contains(says),
            "{bad:?}: {err}"
        );
    }
}

/// Loads case `name`'s model, changes it with `edit`, and returns what loading it gives.
fn edited(name: &str, edit: impl FnOnce(&mut zeropoint::graph::Model)) -> Result<(), String> {
    let bytes = std::fs::read(root().join(name).join("model.tflite")).expect("model");
    let mut m = tflite::read(&bytes).expect("model");
    edit(&mut m);
    Interpreter::new(&m).map(|_| ()).map_err(|e| e.to_string())
}

/// Tensor `t` of the single-op model's subgraph gets shape `shape`.
fn reshape(m: &mut zeropoint::graph::Model, t: usize, shape: &[i32]) {
    m.subgraphs[0].tensors[t].shape = Some(shape.to_vec());
}

#[test]
fn landmark_ops_reject_bad_options_and_shapes() {
    type Edit = Box<dyn FnOnce(&mut zeropoint::graph::Model)>;
    let ttb_options = {
        let bytes = std::fs::read(root().join("ttb_crop").join("model.tflite")).expect("ttb model");
        let m = tflite::read(&bytes).expect("ttb model");
        m.subgraphs[0].operators[0].custom_options.clone()
    };
    let cases: Vec<(&str, &str, Edit, &str)> = vec![
        // Version 1 is another operator (4-D input, other options).
        (
            "l2m_lips",
            "Landmarks2TransformMatrix",
            Box::new(|m| m.subgraphs[0].operators[0].code.version = 1),
            "version 1",
        ),
        (
            "l2m_lips",
            "Landmarks2TransformMatrix",
            Box::new(|m| m.subgraphs[0].operators[0].custom_options = None),
            "custom options: 0 bytes",
        ),
        // A map without subset_idxs (TransformTensorBilinear's options).
        (
            "l2m_lips",
            "Landmarks2TransformMatrix",
            Box::new(move |m| m.subgraphs[0].operators[0].custom_options = ttb_options),
            "subset_idxs is missing",
        ),
        // 10 landmarks: subset index 17 would be read past them.
        (
            "l2m_lips",
            "Landmarks2TransformMatrix",
            Box::new(|m| reshape(m, 0, &[1, 10, 3])),
            "subset_idxs[1] = 17",
        ),
        (
            "l2m_lips",
            "Landmarks2TransformMatrix",
            Box::new(|m| reshape(m, 0, &[1, 40, 2])),
            "[1, landmarks, 3]",
        ),
        // The declared output disagrees with output_height 16.
        (
            "ttb_crop",
            "TransformTensorBilinear",
            Box::new(|m| reshape(m, 2, &[1, 15, 16, 8])),
            "output_height 16",
        ),
        (
            "ttb_crop",
            "TransformTensorBilinear",
            Box::new(|m| reshape(m, 1, &[1, 3, 4])),
            "transform matrix shape [1, 3, 4]",
        ),
        (
            "ttb_crop",
            "TransformTensorBilinear",
            Box::new(|m| reshape(m, 0, &[2, 24, 20, 8])),
            "(batch 1)",
        ),
        (
            "tl_xyz",
            "TransformLandmarks",
            Box::new(|m| reshape(m, 0, &[1, 30, 4])),
            "[1, landmarks, 2 or 3]",
        ),
        (
            "tl_xyz",
            "TransformLandmarks",
            Box::new(|m| m.subgraphs[0].operators[0].code.version = 1),
            "version 1",
        ),
    ];
    for (name, op, edit, says) in cases {
        let err = edited(name, edit).expect_err("rejected");
        assert!(err.contains(op) && err.contains(says), "{name}: {err}");
    }
    assert_eq!(
        edited("l2m_lips", |_| ()),
        Ok(()),
        "the unedited model loads"
    );
}
