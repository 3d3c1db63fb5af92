//! `zeropoint quantize` as a user runs it: each calibration source, each mode, the report, and
//! one clear error line for bad input.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::{text, zeropoint};

fn golden(file: &str) -> String {
    common::arg(common::repo("tests/golden/example_cnn").join(file))
}

fn scratch(name: &str) -> String {
    common::arg(common::scratch_in("cli_quantize", name))
}

fn inspect(path: &str) -> String {
    let out = zeropoint(&["inspect", path]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    text(&out.stdout)
}

#[test]
fn tf_ranges_float_io_with_report() {
    let (model, report) = (scratch("floatio.tflite"), scratch("report.json"));
    let out = zeropoint(&[
        "quantize",
        &golden("model_float.tflite"),
        "--stats",
        &golden("model_calibrated.tflite"),
        "--io",
        "float",
        "--report",
        &report,
        "-o",
        &model,
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let s = inspect(&model);
    for needle in [
        "QUANTIZE",
        "DEQUANTIZE",
        "INT8",
        "per-axis(3)",
        "tfl.quantize",
    ] {
        assert!(s.contains(needle), "missing {needle} in:\n{s}");
    }
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).expect("report")).expect("json");
    assert_eq!(r["mode"], "int8");
    assert_eq!(r["io"], "float");
    let ops = r["ops"].as_array().expect("ops");
    // Six weighted ops (3 CONV_2D, 1 DEPTHWISE_CONV_2D, 2 FULLY_CONNECTED): one entry each.
    assert_eq!(ops.len(), 6, "{ops:?}");
    let first = &ops[0];
    assert_eq!(first["op"], "CONV_2D");
    assert_eq!(
        first["multipliers"].as_array().map(Vec::len),
        first["quantized"].as_array().map(Vec::len)
    );
    let tensors = r["tensors"].as_array().expect("tensors");
    assert!(tensors.iter().any(|t| t["source"] == "fixed (SOFTMAX)"));
}

#[test]
fn data_and_stats_json_sources() {
    let model = scratch("int8.tflite");
    let out = zeropoint(&[
        "quantize",
        &golden("model_float.tflite"),
        "--data",
        &golden("calib.npy"),
        "-o",
        &model,
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let s = inspect(&model);
    assert!(s.contains("input  0  INT8"), "{s}");

    let stats = scratch("stats.json");
    let out = zeropoint(&[
        "calibrate",
        &golden("model_float.tflite"),
        "--data",
        &golden("calib.npy"),
        "-o",
        &stats,
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let m16 = scratch("16x8.tflite");
    let out = zeropoint(&[
        "quantize",
        &golden("model_float.tflite"),
        "--stats",
        &stats,
        "--mode",
        "int16x8",
        "--io",
        "float",
        "-o",
        &m16,
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(inspect(&m16).contains("INT16"));
}

/// `--stats STATS.json --calibration M` re-chooses the ranges from the file's histograms,
/// extremes and moving average: the same model as calibrating again with `--data` and M.
#[test]
fn stats_json_rechosen_by_calibration_method() {
    let stats = scratch("stats-minmax.json");
    let out = zeropoint(&[
        "calibrate",
        &golden("model_float.tflite"),
        "--data",
        &golden("calib.npy"),
        "-o",
        &stats,
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let golden_float = golden("model_float.tflite");
    let quantize = |source: &[&str], method: Option<&str>, out_name: &str| -> Vec<u8> {
        let path = scratch(out_name);
        let mut args = vec!["quantize", &golden_float, "-o", &path];
        args.extend_from_slice(source);
        if let Some(m) = method {
            args.extend_from_slice(&["--calibration", m]);
        }
        let out = zeropoint(&args);
        assert!(out.status.success(), "{}", text(&out.stderr));
        std::fs::read(&path).expect("quantized model")
    };
    let calib = golden("calib.npy");
    let minmax = quantize(&["--stats", &stats], None, "mm.tflite");
    assert_eq!(
        minmax,
        quantize(&["--data", &calib], None, "mm-data.tflite")
    );
    for (i, m) in ["percentile:99", "mse", "moving-average"]
        .iter()
        .enumerate()
    {
        let from_data = quantize(&["--data", &calib], Some(m), &format!("d{i}.tflite"));
        let from_stats = quantize(&["--stats", &stats], Some(m), &format!("s{i}.tflite"));
        assert!(
            from_data == from_stats,
            "{m}: --stats + --calibration differs from --data"
        );
        if *m == "percentile:99" {
            assert!(
                from_data != minmax,
                "percentile:99 should narrow some range"
            );
        }
    }
    // A calibrated .tflite keeps only min/max.
    let out = zeropoint(&[
        "quantize",
        &golden("model_float.tflite"),
        "--stats",
        &golden("model_calibrated.tflite"),
        "--calibration",
        "mse",
        "-o",
        &scratch("bad.tflite"),
    ]);
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("needs a STATS.json"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn dynamic_and_float16_need_no_calibration() {
    for (mode, needle) in [("dynamic", "INT8"), ("float16", "FLOAT16")] {
        let model = scratch(&format!("{mode}.tflite"));
        let out = zeropoint(&[
            "quantize",
            &golden("model_float.tflite"),
            "--mode",
            mode,
            "-o",
            &model,
        ]);
        assert!(out.status.success(), "{mode}: {}", text(&out.stderr));
        assert!(inspect(&model).contains(needle), "{mode}");
    }
}

#[test]
fn float_ops_stay_float_with_a_warning() {
    let model = scratch("partial.tflite");
    let out = zeropoint(&[
        "quantize",
        &golden("model_float.tflite"),
        "--stats",
        &golden("model_calibrated.tflite"),
        "--float-ops",
        "1",
        "-o",
        &model,
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(
        err.contains("operator 1 (DEPTHWISE_CONV_2D) stays float"),
        "{err}"
    );
    assert!(inspect(&model).contains("DEQUANTIZE"));
}

#[test]
fn int16_ops_get_int16_activations_between_int8_ops() {
    let model = scratch("mixed.tflite");
    let out = zeropoint(&[
        "quantize",
        &golden("model_float.tflite"),
        "--stats",
        &golden("model_calibrated.tflite"),
        "--int16-ops",
        "2",
        "-o",
        &model,
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let s = inspect(&model);
    // Operator 2 (the 1×1 CONV_2D) writes int16 with an int64 bias; the others stay int8.
    assert!(
        s.contains("INT16") && s.contains("INT64") && s.contains("INT8"),
        "{s}"
    );
    assert!(text(&out.stderr).contains("operators 2 run with int16 activations"));
}

#[test]
fn bad_input_gives_one_clear_line() {
    let float = golden("model_float.tflite");
    let cal = golden("model_calibrated.tflite");
    let o = scratch("never.tflite");
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["quantize", &float, "-o", &o], "needs calibration"),
        (
            vec!["quantize", &float, "--mode", "int4", "-o", &o],
            "unknown mode 'int4'",
        ),
        (
            vec![
                "quantize",
                &float,
                "--mode",
                "dynamic",
                "--float-ops",
                "99",
                "-o",
                &o,
            ],
            "no operator 99",
        ),
        (
            vec![
                "quantize", &float, "--stats", &float, "--io", "bf16", "-o", &o,
            ],
            "unknown I/O type",
        ),
        (
            vec![
                "quantize",
                &float,
                "--stats",
                &cal,
                "--mode",
                "int16x8",
                "--int16-ops",
                "0",
                "-o",
                &o,
            ],
            "--int16-ops",
        ),
        (
            vec![
                "quantize",
                &float,
                "--stats",
                &cal,
                "--int16-ops",
                "0",
                "--float-ops",
                "0",
                "-o",
                &o,
            ],
            "operator 0 is named both",
        ),
        (
            vec![
                "quantize",
                &float,
                "--stats",
                &cal,
                "--int16-ops",
                "no_such_tensor",
                "-o",
                &o,
            ],
            "no operator index or output tensor named 'no_such_tensor'",
        ),
    ];
    for (args, needle) in cases {
        let out = zeropoint(&args);
        assert!(!out.status.success(), "{args:?} should fail");
        let err = text(&out.stderr);
        assert!(err.starts_with("error: "), "{err}");
        assert!(err.contains(needle), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    }
    // A STATS.json with an inverted range names the tensor.
    let stats = scratch("bad_stats.json");
    std::fs::write(
        &stats,
        r#"{"samples":1,"tensors":[{"index":0,"name":"serving_default_image:0","min":1.0,"max":0.0,"chosen_min":1.0,"chosen_max":0.0,"method":"minmax","histogram":{"lo":0.0,"hi":1.0,"counts":[1]}}]}"#,
    )
    .expect("write");
    let out = zeropoint(&["quantize", &float, "--stats", &stats, "-o", &o]);
    let err = text(&out.stderr);
    assert!(!out.status.success());
    assert!(err.contains("serving_default_image:0"), "{err}");
}

/// `--report` with `--data` measures the quantized model against the float model on the first 16
/// calibration samples; each operator's output error equals what `zeropoint compare` reports on
/// those samples (up to the float kernels: compare runs the fast ones, the report the
/// calibration ones, which differ in the last bits of some sums).
#[test]
fn report_has_the_errors_compare_measures_on_the_first_samples() {
    let (model, report, first, cmp) = (
        scratch("errors.tflite"),
        scratch("errors.json"),
        scratch("first16.npy"),
        scratch("compare.json"),
    );
    let float = golden("model_float.tflite");
    let out = zeropoint(&[
        "quantize",
        &float,
        "--data",
        &golden("calib.npy"),
        "--report",
        &report,
        "-o",
        &model,
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let r: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&report).expect("report")).expect("json");
    assert_eq!(r["error_samples"], 16);
    // The first 16 samples of calib.npy (float32, shape (32, 1, 32, 32, 3)) as their own .npy.
    let bytes = std::fs::read(golden("calib.npy")).expect("calib.npy");
    let header = 10 + usize::from(u16::from_le_bytes([bytes[8], bytes[9]]));
    let dict = String::from_utf8_lossy(&bytes[10..header]).into_owned();
    assert!(dict.contains("'shape': (32, 1, 32, 32, 3)"), "{dict}");
    let mut npy = bytes[..10].to_vec();
    npy.extend_from_slice(dict.replace("(32, 1,", "(16, 1,").as_bytes());
    npy.extend_from_slice(&bytes[header..header + 16 * 32 * 32 * 3 * 4]);
    std::fs::write(&first, npy).expect("write first16.npy");
    let out = zeropoint(&["compare", &float, &model, "--input", &first, "--json", &cmp]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let c: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&cmp).expect("compare json")).expect("json");
    let rows = c["tensors"].as_array().or(c.as_array()).expect("rows");
    let ops = r["op_errors"].as_array().expect("op_errors");
    assert_eq!(ops.len(), 10, "every operator's output: {ops:?}");
    for op in ops {
        let row = rows
            .iter()
            .find(|x| x["name"] == op["output"])
            .unwrap_or_else(|| panic!("{} not in compare's table", op["output"]));
        let (a, b) = (
            op["sqnr_db"].as_f64().expect("finite"),
            row["sqnr_db"].as_f64().expect("finite"),
        );
        assert!(
            a > 20.0 && (a - b).abs() < 0.01,
            "{}: report {a} dB, compare {b} dB",
            op["op"]
        );
    }
}

/// A model whose input is INT32 token ids (the fused-LSTM text classifier): the report runs the
/// float and quantized models on the ids as whole numbers (the comparison once fed them as
/// floats and failed "expected 1×10 INT32").
#[test]
fn report_on_token_id_input() {
    let dir = common::repo("tests/realworld/lstm_fused");
    let (model, report) = (scratch("tokens.tflite"), scratch("tokens.json"));
    let out = zeropoint(&[
        "quantize",
        dir.join("model.tflite").to_str().expect("utf-8 path"),
        "--data",
        dir.join("calib.npy").to_str().expect("utf-8 path"),
        "--io",
        "float",
        "--report",
        &report,
        "-o",
        &model,
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).expect("report")).expect("json");
    let errors = r["error_samples"].as_u64().unwrap_or(0);
    assert!(errors > 0, "no sample compared: {}", r["error_samples"]);
    assert!(!r["op_errors"].as_array().expect("op_errors").is_empty());
}
