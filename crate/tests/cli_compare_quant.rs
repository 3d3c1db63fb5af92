//! `zeropoint compare-quant` as a user runs it: our quantized model against TF's, tensor for
//! tensor, on the standalone-RELU golden (`tests/golden/fuse_residual_block`, TF's own output).
#![cfg(not(target_arch = "wasm32"))]

mod common;

use std::path::PathBuf;

use common::{text, zeropoint};

fn scratch(name: &str) -> PathBuf {
    common::scratch_in("cli_compare_quant", name)
}

fn case(file: &str) -> String {
    common::arg(common::repo("tests/golden/fuse_residual_block").join(file))
}

/// Our int8 model (float I/O) from TF's recorded ranges, `extra` flags added.
fn ours(name: &str, extra: &[&str]) -> String {
    let out_path = scratch(name);
    let out_s = out_path.to_str().expect("utf-8").to_string();
    let float = case("model_float.tflite");
    let stats = case("model_calibrated.tflite");
    let mut args = vec![
        "quantize", &float, "--stats", &stats, "--mode", "int8", "--io", "float", "-o", &out_s,
    ];
    args.extend_from_slice(extra);
    let out = zeropoint(&args);
    assert!(out.status.success(), "{}", text(&out.stderr));
    out_s
}

#[test]
fn compare_quant_finds_our_model_equal_to_tfs() {
    let ours = ours("fused.tflite", &[]);
    let json = scratch("equal.json");
    let out = zeropoint(&[
        "compare-quant",
        &ours,
        &case("model_int8_floatio.tflite"),
        "--float",
        &case("model_float.tflite"),
        "--input",
        &case("input_0.npy"),
        "--json",
        json.to_str().expect("utf-8"),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let s = text(&out.stdout);
    assert!(
        s.contains("0 differ; 0 only in ours, 0 only in the reference"),
        "{s}"
    );
    assert!(!s.contains("DIFF"), "{s}");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).expect("json")).expect("json");
    let tensors = v["tensors"].as_array().expect("tensors");
    // TF's fused ADD + RELU result, present in both with a measured SQNR, the same in both.
    let fused = tensors
        .iter()
        .find(|t| t["name"] == "activation_1;add_1")
        .unwrap_or_else(|| panic!("no fused tensor in {v}"));
    assert_eq!(fused["equal"], true);
    let (a, b) = (
        fused["sqnr_db"].as_f64(),
        fused["reference_sqnr_db"].as_f64(),
    );
    assert!(a.is_some_and(|x| x > 10.0), "{fused}");
    assert_eq!(a, b, "{fused}");
}

#[test]
fn compare_quant_shows_an_unfused_relu_in_one_look() {
    // The RELU (operator 3 of the float model) kept float: the ADD keeps its signed range and
    // the RELU stays, as before the fusion existed.
    let ours = ours("unfused.tflite", &["--float-ops", "3"]);
    let out = zeropoint(&["compare-quant", &ours, &case("model_int8_floatio.tflite")]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let s = text(&out.stdout);
    assert!(s.contains("  RELU: ours 1, reference 0"), "{s}");
    // The ADD's result is matched to TF's fused one by position: TF's is [0, max] (zero point
    // -128, half the scale), ours is the signed range.
    let add = s
        .lines()
        .find(|l| {
            l.starts_with("DIFF") && l.contains(" add_1 = ref 'activation_1;add_1' (position)")
        })
        .unwrap_or_else(|| panic!("no differing ADD result in:\n{s}"));
    let cols: Vec<&str> = add.split_whitespace().collect();
    // DIFF, dtype, our scale, "zp", our zp, TF's scale, "zp", TF's zp, …
    assert_eq!(cols[7], "-128", "{add}");
    assert_ne!(cols[4], "-128", "{add}");
    assert!(s.contains("only in ours: activation_1"), "{s}");
}

#[test]
fn compare_quant_needs_the_float_model_for_inputs() {
    let ours = ours("fused2.tflite", &[]);
    let out = zeropoint(&[
        "compare-quant",
        &ours,
        &case("model_int8_floatio.tflite"),
        "--input",
        &case("input_0.npy"),
    ]);
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("--input needs --float"),
        "{}",
        text(&out.stderr)
    );
}
