//! `zeropoint quantize --auto` as a user runs it, on golden models: the output SQNR against the
//! float model (measured with `zeropoint compare` on the golden's held-out test inputs, and as
//! the report gives it on the calibration samples `--auto` scored) is not below the default's. The `--auto` models
//! are left in `target/quantized/auto/`, where `tests/tools/check_quantized.py` loads and runs
//! them in stock LiteRT (BUILTIN_REF) and requires our engine's bits.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use std::path::PathBuf;

use common::{text, zeropoint};

fn path(p: PathBuf) -> String {
    common::arg(p)
}

fn repo() -> PathBuf {
    common::repo("")
}

/// The SQNR `zeropoint compare` measures on the last tensor computed (a graph output: the only
/// one of fuse_residual_block, the last of mlp's two).
fn output_sqnr(float: &str, quant: &str, input: &str, json: &str) -> f64 {
    let out = zeropoint(&["compare", float, quant, "--input", input, "--json", json]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let c: serde_json::Value =
        serde_json::from_slice(&std::fs::read(json).expect("compare json")).expect("json");
    let rows = c["tensors"].as_array().or(c.as_array()).expect("rows");
    // The graph output is the last tensor in execution order that exists in both models.
    let last = rows.last().expect("a row");
    last["sqnr_db"].as_f64().unwrap_or(f64::INFINITY)
}

fn check_case(case: &str) {
    let g = repo().join("tests/golden").join(case);
    let float = path(g.join("model_float.tflite"));
    let calib = path(g.join("calib.npy"));
    let held_out = path(g.join("input_0.npy"));
    let dir = repo().join("target/quantized/auto");
    std::fs::create_dir_all(&dir).expect("target/quantized/auto");
    let scratch = |name: String| common::scratch_in("cli_auto", &name);
    let default = path(scratch(format!("{case}_default.tflite")));
    let auto = path(dir.join(format!("{case}_int8_floatio.tflite")));
    let report = path(scratch(format!("{case}_auto.json")));
    let base = ["quantize", &float, "--data", &calib, "--io", "float"];
    let out = zeropoint(&[&base[..], &["-o", &default]].concat());
    assert!(out.status.success(), "{}", text(&out.stderr));
    let out = zeropoint(&[&base[..], &["--auto", "--report", &report, "-o", &auto]].concat());
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("--auto: output SQNR"),
        "{}",
        text(&out.stderr)
    );
    let r: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&report).expect("report")).expect("json");
    let a = &r["auto"];
    // The first 64 calibration samples (mlp has 64: every 4th held out for the final guard, the
    // others searched on in 2 folds; fuse_residual_block has 12: 9 search samples are too few for
    // a split, so the guard cross-validates, every sample held out once, and the search is on all).
    let (search, held) = (
        a["samples"].as_u64().unwrap_or(0),
        a["held_out_samples"].as_u64().unwrap_or(0),
    );
    let expected = if case == "mlp" {
        (48, 16, false)
    } else {
        (12, 12, true)
    };
    assert_eq!(
        (search, held, a["cross_validated"].as_bool() == Some(true)),
        expected,
        "{a}"
    );
    assert_eq!(a["folds"].as_u64(), Some(2), "{a}");
    assert_eq!(
        a["int16_ops"].as_array().map(Vec::len),
        Some(0),
        "int8 only"
    );
    let cmp = path(scratch(format!("{case}_cmp.json")));
    let (d, x) = (
        output_sqnr(&float, &default, &held_out, &cmp),
        output_sqnr(&float, &auto, &held_out, &cmp),
    );
    eprintln!("{case}: held-out output SQNR default {d:.2} dB, --auto {x:.2} dB; {a}");
    assert!(
        x >= d,
        "{case}: --auto {x} dB < default {d} dB on the held-out inputs"
    );
    // On the samples it scored, --auto never loses to the TF-compatible model; unless it fell
    // back, it beat it on the held-out samples too.
    let tf = a["tf_compatible_sqnr_db"].as_f64().expect("finite");
    let ours = a["sqnr_db"].as_f64().expect("finite");
    assert!(ours >= tf, "{ours} < {tf}");
    if a["fell_back"] == false {
        let held_tf = a["held_out_tf_compatible_sqnr_db"]
            .as_f64()
            .expect("finite");
        let held_ours = a["held_out_sqnr_db"].as_f64().expect("finite");
        assert!(held_ours > held_tf, "{held_ours} <= {held_tf}");
    }
}

#[test]
fn auto_is_never_below_the_default_on_golden_models() {
    for case in ["mlp", "fuse_residual_block"] {
        check_case(case);
    }
}

#[test]
fn auto_takes_token_ids() {
    // A text classifier whose input is INT32 token ids (the zoo's unrolled LSTM): `--auto` scores
    // every candidate against the float model run on the same ids. Its scorer once set the float
    // model's inputs as FLOAT32 and refused the model ("expected 1×16 INT32, got 16 FLOAT32").
    let z = repo().join("tests/zoo/lstm_text_unrolled");
    let float = path(z.join("model_float.tflite"));
    let ids = path(z.join("input_0.npy"));
    let o = path(common::scratch_in("cli_auto", "tokens.tflite"));
    let r = common::scratch_in("cli_auto", "tokens.json");
    let args = [
        "quantize",
        &float,
        "--data",
        &ids,
        "--io",
        "float",
        "--auto",
        "--auto-budget",
        "8",
        "--report",
        &path(r.clone()),
        "-o",
        &o,
    ];
    let out = zeropoint(&args);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let r: serde_json::Value =
        serde_json::from_slice(&std::fs::read(r).expect("report")).expect("json");
    assert!(r["auto"]["sqnr_db"].as_f64().is_some(), "{}", r["auto"]);
}

#[test]
fn resuming_from_saved_activations_writes_what_whole_runs_write() {
    // A convolutional golden model (arena regions reused between layers): the range search's
    // candidates resume from checkpoints; `--auto-whole-runs` scores each from the inputs.
    let g = repo().join("tests/golden/example_cnn");
    let float = path(g.join("model_float.tflite"));
    let calib = path(g.join("calib.npy"));
    let run = |extra: &[&str], name: &str| {
        let o = common::scratch_in("cli_auto", &format!("{name}.tflite"));
        let r = common::scratch_in("cli_auto", &format!("{name}.json"));
        let args = [
            "quantize",
            &float,
            "--data",
            &calib,
            "--io",
            "float",
            "--auto",
            "--auto-budget",
            "40",
            "--report",
            &path(r.clone()),
            "-o",
            &path(o.clone()),
        ];
        let out = zeropoint(&[&args[..], extra].concat());
        assert!(out.status.success(), "{}", text(&out.stderr));
        (
            std::fs::read(o).expect("model"),
            std::fs::read(r).expect("report"),
        )
    };
    let resumed = run(&[], "resumed");
    let whole = run(&["--auto-whole-runs"], "whole");
    assert!(resumed == whole, "the model or the report differ");
}

#[test]
fn auto_needs_data_and_int8() {
    let g = repo().join("tests/golden/mlp");
    let float = path(g.join("model_float.tflite"));
    let o = path(common::scratch_in("cli_auto", "auto_refused.tflite"));
    let out = zeropoint(&[
        "quantize",
        &float,
        "--stats",
        &path(g.join("model_calibrated.tflite")),
        "--auto",
        "-o",
        &o,
    ]);
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("--auto"),
        "{}",
        text(&out.stderr)
    );
    let out = zeropoint(&[
        "quantize",
        &float,
        "--data",
        &path(g.join("calib.npy")),
        "--mode",
        "int16x8",
        "--auto",
        "-o",
        &o,
    ]);
    assert!(!out.status.success());
    let err = text(&out.stderr);
    assert!(err.contains("--auto") && err.lines().count() <= 2, "{err}");
}

/// Writes `labels` as an int64 `.npy` of shape `[N]`.
fn labels_npy(name: &str, labels: &[i64]) -> String {
    let file = common::scratch_in("cli_auto", name);
    let data: Vec<u8> = labels.iter().flat_map(|l| l.to_le_bytes()).collect();
    let mut bytes = Vec::new();
    zeropoint::npy::write(
        &mut bytes,
        zeropoint::npy::Dtype::I64,
        &[labels.len()],
        &data,
    )
    .expect("npy");
    std::fs::write(&file, bytes).expect("write labels");
    path(file)
}

#[test]
fn an_accuracy_target_reads_one_label_per_sample() {
    let g = repo().join("tests/golden/mlp");
    let float = path(g.join("model_float.tflite"));
    let calib = path(g.join("calib.npy"));
    let samples = zeropoint::npy::read(
        "calib.npy",
        std::fs::File::open(g.join("calib.npy")).expect("calib"),
    )
    .expect("npy")
    .shape[0];
    let o = path(common::scratch_in("cli_auto", "accuracy.tflite"));
    let report = path(common::scratch_in("cli_auto", "accuracy.json"));
    let base = ["quantize", &float, "--data", &calib, "-o", &o];
    // Labels for every sample, all class 0 of output 1 (the mlp's 3 class scores; output 0 is
    // one element); a drop of 100 points always holds.
    let labels = labels_npy("labels.npy", &vec![0; samples]);
    let out = zeropoint(
        &[
            &base[..],
            &[
                "--target-accuracy-drop",
                "100",
                "--labels",
                &labels,
                "--label-output",
                "1",
                "--auto-budget",
                "8",
                "--report",
                &report,
            ],
        ]
        .concat(),
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let r: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&report).expect("report")).expect("json");
    let a = &r["auto"];
    assert_eq!(a["target_accuracy_drop"], 100.0, "{a}");
    assert_eq!(a["target_reached"], true, "{a}");
    assert_eq!(a["label_output"], 1, "{a}");
    let float_acc = a["float_accuracy"].as_f64().expect("measured");
    assert!((0.0..=1.0).contains(&float_acc), "{a}");
    assert!(
        text(&out.stderr).contains("top-1 accuracy"),
        "{}",
        text(&out.stderr)
    );
    // Refusals: the two flags go together; one label per sample; integer labels; an output of
    // class scores (output 0 is one element; there is no output 2; class 3 is not one of 3).
    let out = zeropoint(&[&base[..], &["--target-accuracy-drop", "1"]].concat());
    assert!(
        !out.status.success() && text(&out.stderr).contains("--labels"),
        "{}",
        text(&out.stderr)
    );
    let out = zeropoint(&[&base[..], &["--auto", "--label-output", "1"]].concat());
    assert!(
        !out.status.success() && text(&out.stderr).contains("--labels"),
        "{}",
        text(&out.stderr)
    );
    let with_labels = |labels: &str, output: &str| {
        let args = [
            "--target-accuracy-drop",
            "1",
            "--labels",
            labels,
            "--label-output",
            output,
        ];
        zeropoint(&[&base[..], &args].concat())
    };
    for (output, labels, says) in [
        ("0", &labels, "output 0 has 1 element"),
        ("2", &labels, "the model has 2 outputs"),
        (
            "1",
            &labels_npy("three.npy", &vec![3; samples]),
            "a label is 3, but output 1 has 3 classes (0 to 2)",
        ),
    ] {
        let out = with_labels(labels, output);
        assert!(
            !out.status.success() && text(&out.stderr).contains(says),
            "--label-output {output}: {}",
            text(&out.stderr)
        );
    }
    let short = labels_npy("short.npy", &[0]);
    let out = zeropoint(
        &[
            &base[..],
            &["--target-accuracy-drop", "1", "--labels", &short],
        ]
        .concat(),
    );
    assert!(
        !out.status.success() && text(&out.stderr).contains("one per sample"),
        "{}",
        text(&out.stderr)
    );
    let negative = labels_npy("negative.npy", &vec![-1; samples]);
    let out = zeropoint(
        &[
            &base[..],
            &["--target-accuracy-drop", "1", "--labels", &negative],
        ]
        .concat(),
    );
    assert!(
        !out.status.success() && text(&out.stderr).contains("classes count from 0"),
        "{}",
        text(&out.stderr)
    );
}
