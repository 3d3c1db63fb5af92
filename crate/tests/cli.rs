//! The `zeropoint` binary as a user runs it: exit codes, stdout, and error messages.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use std::path::{Path, PathBuf};

use common::{text, zeropoint};

fn example() -> PathBuf {
    common::repo("www/assets/example.tflite")
}

fn scratch(name: &str) -> PathBuf {
    common::scratch_in("cli", name)
}

#[test]
fn inspect_prints_operators_and_io() {
    let out = zeropoint(&["inspect", example().to_str().expect("utf-8 path")]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let s = text(&out.stdout);
    for needle in [
        "CONV_2D",
        "DEPTHWISE_CONV_2D",
        "SOFTMAX",
        "input",
        "[1, 32, 32, 3]",
        "FLOAT32",
    ] {
        assert!(s.contains(needle), "missing {needle} in:\n{s}");
    }
}

#[test]
fn inspect_says_from_the_op_table_what_runs_and_what_does_not() {
    let model = common::repo("tests/realworld/custom_op/model.tflite");
    let out = zeropoint(&["inspect", model.to_str().expect("utf-8 path")]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let s = text(&out.stdout);
    let line = |op: &str| {
        s.lines()
            .find(|l| l.contains(&format!("× {op} ")))
            .unwrap_or_else(|| panic!("no operator line for {op} in:\n{s}"))
            .to_string()
    };
    assert!(
        line("FULLY_CONNECTED").contains("Runs float, int8, int16, hybrid · quantizer: weights")
    );
    assert!(line("SOFTMAX").contains("quantizer: fixed output int8 1/256"));
    assert!(line("ZpTestCustom").contains("Not in the op table: no kernel"));
}

#[test]
fn inspect_lists_every_operator_it_cannot_run_first() {
    let model = common::repo("tests/realworld/custom_op/model.tflite");
    let path = model.to_str().expect("utf-8 path");
    let out = zeropoint(&["inspect", path]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let s = text(&out.stdout);
    let line = "cannot run: 1 operator(s) of 1 type(s) without a kernel: 1 × ZpTestCustom";
    let at = s
        .find(line)
        .unwrap_or_else(|| panic!("no '{line}' in:\n{s}"));
    assert!(at < s.find("operators:").expect("operator list"), "{s}");

    let out = zeropoint(&["inspect", "--json", path]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let ops: Vec<(&str, u64)> = v["cannot_run"]["no_kernel"]
        .as_array()
        .expect("no_kernel list")
        .iter()
        .map(|e| {
            (
                e["op"].as_str().expect("op"),
                e["count"].as_u64().expect("count"),
            )
        })
        .collect();
    assert_eq!(ops, [("ZpTestCustom", 1)]);

    let out = zeropoint(&["inspect", example().to_str().expect("utf-8 path")]);
    assert!(text(&out.stdout).contains("the engine can run every operator"));
}

#[test]
fn rewrite_then_inspect_json_is_identical() {
    let src = example();
    let out_path = scratch("rewritten.tflite");
    let out = zeropoint(&[
        "rewrite",
        src.to_str().expect("utf-8 path"),
        "-o",
        out_path.to_str().expect("utf-8 path"),
        "--external-buffers",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let a = zeropoint(&["inspect", "--json", src.to_str().expect("utf-8 path")]);
    let b = zeropoint(&["inspect", "--json", out_path.to_str().expect("utf-8 path")]);
    assert!(a.status.success() && b.status.success());
    assert!(text(&a.stdout).contains("\"operator_counts\""));
    assert_eq!(text(&a.stdout), text(&b.stdout));
}

#[test]
fn malformed_files_fail_with_one_clear_line() {
    let bytes = std::fs::read(example()).expect("example");
    let cases: [(&str, Vec<u8>, &str); 3] = [
        (
            "truncated.tflite",
            bytes[..bytes.len() / 3].to_vec(),
            "not a valid .tflite model",
        ),
        (
            "random.tflite",
            (0..5000u32)
                .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
                .collect(),
            "not a valid .tflite model",
        ),
        ("empty.tflite", Vec::new(), "too short"),
    ];
    for (name, data, needle) in cases {
        let p = scratch(name);
        std::fs::write(&p, data).expect("write");
        let out = zeropoint(&["inspect", p.to_str().expect("utf-8 path")]);
        assert_eq!(out.status.code(), Some(1), "{name}");
        let err = text(&out.stderr);
        assert!(
            err.starts_with("error: ") && err.contains(needle),
            "{name}: {err}"
        );
        assert!(
            err.contains(name),
            "{name}: message should name the file: {err}"
        );
        assert_eq!(err.trim_end().lines().count(), 1, "{name}: {err}");
    }
    let missing = zeropoint(&["inspect", "no/such/model.tflite"]);
    assert_eq!(missing.status.code(), Some(1));
    assert!(text(&missing.stderr).contains("no/such/model.tflite"));
}

#[test]
fn run_dump_writes_every_tensor_of_sample_zero() {
    let case = common::repo("tests/golden/example_cnn");
    let dump = scratch("dump");
    let _ = std::fs::remove_dir_all(&dump);
    let out = zeropoint(&[
        "run",
        case.join("model_float.tflite").to_str().expect("utf-8"),
        "--input",
        case.join("input_0.npy").to_str().expect("utf-8"),
        "--out-dir",
        scratch("dump_out").to_str().expect("utf-8"),
        "--dump",
        dump.to_str().expect("utf-8"),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let index: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dump.join("tensors.json")).expect("tensors.json"),
    )
    .expect("json");
    let entries = index.as_array().expect("array");
    // One graph input plus one output per operator.
    let model =
        zeropoint::tflite::read(&std::fs::read(case.join("model_float.tflite")).expect("model"))
            .expect("reads");
    let ops = model.subgraphs[0].operators.len();
    assert!(ops > 5);
    assert_eq!(entries.len(), 1 + ops, "{index}");
    for e in entries {
        let f = e["file"].as_str().expect("file");
        assert!(dump.join(f).exists(), "{f} missing");
    }
    // The dumped graph output equals the written output's first sample.
    let last = entries.last().expect("entries");
    assert!(
        std::fs::metadata(dump.join(last["file"].as_str().expect("file")))
            .expect("file")
            .len()
            > 0
    );
}

#[test]
fn compare_reports_every_shared_tensor_worst_first() {
    let case = common::repo("tests/golden/example_cnn");
    let json = scratch("compare.json");
    let out = zeropoint(&[
        "compare",
        case.join("model_float.tflite").to_str().expect("utf-8"),
        case.join("model_fp16.tflite").to_str().expect("utf-8"),
        "--input",
        case.join("calib.npy").to_str().expect("utf-8"),
        "--json",
        json.to_str().expect("utf-8"),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let rows: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).expect("json")).expect("json");
    let rows = rows.as_array().expect("array");
    assert!(!rows.is_empty());
    for r in rows {
        // fp16 weights: float tensors, finite positive SQNR well above 30 dB, small errors.
        assert_eq!(r["dtype"], "FLOAT32");
        // null = identical (the graph input, fed the same floats to both).
        match r["sqnr_db"].as_f64() {
            Some(sqnr) => {
                assert!(sqnr > 30.0, "{r}");
                assert!(r["max_abs_error"].as_f64().expect("err") > 0.0, "{r}");
            }
            None => assert_eq!(r["max_abs_error"].as_f64(), Some(0.0), "{r}"),
        }
    }
    let stdout = text(&out.stdout);
    assert!(stdout.contains("worst SQNR first"), "{stdout}");
}

/// The one error line of a failed run (exit code 1).
fn refused(args: &[&str]) -> String {
    let out = zeropoint(args);
    assert_eq!(out.status.code(), Some(1), "{args:?} succeeded");
    let err = text(&out.stderr);
    assert!(err.starts_with("error: "), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    err
}

#[test]
fn limits_apply_to_every_read_and_every_prepare() {
    let case = common::repo("tests/golden/example_cnn");
    let float = case.join("model_float.tflite");
    let float = float.to_str().expect("utf-8");
    let fp16 = case.join("model_fp16.tflite");
    let fp16 = fp16.to_str().expect("utf-8");
    let calib = case.join("calib.npy");
    let calib = calib.to_str().expect("utf-8");
    let out_dir = scratch("limits_out");
    let out_dir = out_dir.to_str().expect("utf-8");
    let stats = scratch("limits_stats.json");
    let stats = stats.to_str().expect("utf-8");
    let size = std::fs::metadata(case.join("model_float.tflite"))
        .expect("model")
        .len();
    let model =
        zeropoint::tflite::read(&std::fs::read(case.join("model_float.tflite")).expect("model"))
            .expect("reads");
    let sg = &model.subgraphs[0];
    let input = &sg.tensors[usize::try_from(sg.inputs[0]).expect("index")].name;

    // The model size is checked before reading, by every subcommand (global option, either side
    // of the subcommand); 0.01 MB = 10485 bytes.
    assert!(size > 10_485);
    for args in [
        vec!["--max-model-mb", "0.01", "inspect", float],
        vec!["rewrite", float, "-o", out_dir, "--max-model-mb", "0.01"],
        vec![
            "--max-model-mb",
            "0.01",
            "run",
            float,
            "--input",
            calib,
            "--out-dir",
            out_dir,
        ],
    ] {
        let err = refused(&args);
        assert!(
            err.contains(&format!(
                "the model file {float} is too large: {size} bytes, more than the model size limit of 10485 bytes"
            )),
            "{args:?}: {err}"
        );
    }
    // A tensor limit below the input's 12,288 bytes names the input, in run, calibrate, quantize
    // and compare (0.001 MB = 1048 bytes).
    for args in [
        vec![
            "--max-tensor-mb",
            "0.001",
            "run",
            float,
            "--input",
            calib,
            "--out-dir",
            out_dir,
        ],
        vec![
            "--max-tensor-mb",
            "0.001",
            "calibrate",
            float,
            "--data",
            calib,
            "-o",
            stats,
        ],
        vec![
            "--max-tensor-mb",
            "0.001",
            "quantize",
            float,
            "--data",
            calib,
            "-o",
            stats,
        ],
        vec![
            "--max-tensor-mb",
            "0.001",
            "compare",
            float,
            fp16,
            "--input",
            calib,
        ],
    ] {
        let err = refused(&args);
        assert!(
            err.contains(&format!("'{input}'")) && err.contains("tensor limit of 1048 bytes"),
            "{args:?}: {err}"
        );
    }
    let err = refused(&[
        "run",
        float,
        "--input",
        calib,
        "--out-dir",
        out_dir,
        "--max-arena-mb",
        "0.01",
    ]);
    assert!(
        err.contains("the activation arena is too large: more than the limit of 10485 bytes"),
        "{err}"
    );
    // Unusable values are refused by the argument parser, naming the option.
    let bad = zeropoint(&["--max-tensor-mb", "0", "inspect", float]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        text(&bad.stderr).contains("--max-tensor-mb"),
        "{}",
        text(&bad.stderr)
    );
    // Generous limits change nothing.
    let ok = zeropoint(&[
        "--max-model-mb",
        "1",
        "--max-tensor-mb",
        "1",
        "--max-arena-mb",
        "1",
        "run",
        float,
        "--input",
        calib,
        "--out-dir",
        out_dir,
    ]);
    assert!(ok.status.success(), "{}", text(&ok.stderr));
}

#[test]
fn run_and_compare_with_either_kernel_set_give_the_same_bytes() {
    // The int8 MobileNetV2 golden (conv, depthwise, FC: the fast kernels' ops) and its float
    // model; `--kernels reference` and `--kernels fast` must write identical files.
    let case = common::repo("tests/golden/mobilenet_v2");
    let model = case.join("model_int8.tflite");
    let input = case.join("input_int8_0.npy");
    let mut outputs = Vec::new();
    for kernels in ["reference", "fast"] {
        let dir = scratch(&format!("kernels_{kernels}"));
        let out = zeropoint(&[
            "run",
            model.to_str().expect("utf-8"),
            "--input",
            input.to_str().expect("utf-8"),
            "--out-dir",
            dir.to_str().expect("utf-8"),
            "--kernels",
            kernels,
        ]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        outputs.push(std::fs::read(dir.join("output_0.npy")).expect("output_0.npy"));
    }
    assert!(outputs[0].len() > 128, "an output was written");
    assert_eq!(outputs[0], outputs[1]);

    let mut tables = Vec::new();
    for kernels in ["reference", "fast"] {
        let json = scratch(&format!("compare_{kernels}.json"));
        let out = zeropoint(&[
            "compare",
            case.join("model_float.tflite").to_str().expect("utf-8"),
            case.join("model_int8_floatio.tflite")
                .to_str()
                .expect("utf-8"),
            "--input",
            case.join("input_0.npy").to_str().expect("utf-8"),
            "--json",
            json.to_str().expect("utf-8"),
            "--kernels",
            kernels,
        ]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        tables.push(std::fs::read_to_string(&json).expect("json"));
    }
    assert!(tables[0].contains("sqnr_db"), "{}", tables[0]);
    assert_eq!(tables[0], tables[1]);

    // An unknown kernel set is a usage error naming the choices.
    let bad = zeropoint(&[
        "run",
        model.to_str().expect("utf-8"),
        "--input",
        input.to_str().expect("utf-8"),
        "--out-dir",
        scratch("kernels_bad").to_str().expect("utf-8"),
        "--kernels",
        "turbo",
    ]);
    assert!(!bad.status.success());
    assert!(
        text(&bad.stderr).contains("reference | fast"),
        "{}",
        text(&bad.stderr)
    );
}

#[test]
fn run_reproduces_either_litert_path_with_arithmetic() {
    // A golden whose LiteRT BUILTIN_REF and default (XNNPACK) outputs differ: `--arithmetic
    // reference` (the default) writes the one, `--arithmetic xnnpack` the other.
    let case = common::repo("tests/golden/op_conv2d_1x1_nobias_neg");
    let model = case.join("model_int8.tflite");
    let input = case.join("input_int8_0.npy");
    let run = |extra: &[&str], dir: &str| {
        let dir = scratch(dir);
        let mut args = vec![
            "run",
            model.to_str().expect("utf-8"),
            "--input",
            input.to_str().expect("utf-8"),
            "--out-dir",
            dir.to_str().expect("utf-8"),
        ];
        args.extend_from_slice(extra);
        let out = zeropoint(&args);
        assert!(out.status.success(), "{}", text(&out.stderr));
        npy_data(&dir.join("output_0.npy"))
    };
    let reference = npy_data(&case.join("expected_int8_output_0.npy"));
    let xnnpack = npy_data(&case.join("expected_int8_xnnpack_output_0.npy"));
    assert_ne!(reference, xnnpack, "the golden tells the two paths apart");
    assert_eq!(run(&[], "arith_default"), reference);
    assert_eq!(run(&["--arithmetic", "reference"], "arith_ref"), reference);
    for kernels in ["reference", "fast"] {
        let got = run(
            &["--arithmetic", "xnnpack", "--kernels", kernels],
            &format!("arith_xnn_{kernels}"),
        );
        assert_eq!(got, xnnpack, "--kernels {kernels}");
    }
    // An unknown arithmetic is a usage error naming the choices.
    let bad = zeropoint(&[
        "run",
        model.to_str().expect("utf-8"),
        "--input",
        input.to_str().expect("utf-8"),
        "--out-dir",
        scratch("arith_bad").to_str().expect("utf-8"),
        "--arithmetic",
        "gpu",
    ]);
    assert!(!bad.status.success());
    assert!(
        text(&bad.stderr).contains("reference | xnnpack"),
        "{}",
        text(&bad.stderr)
    );
}

/// The data of an `.npy` file (element bytes) and its shape.
fn npy_data(path: &Path) -> (Vec<usize>, Vec<u8>) {
    let f = std::fs::File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let a = zeropoint::npy::read(&path.display().to_string(), f).expect("npy reads");
    (a.shape, a.data)
}

#[test]
fn run_streams_samples_through_a_stateful_model_with_resets() {
    // The streaming keyword spotter (resource variables): 10 frames on one interpreter give
    // LiteRT's outputs of 10 frames on one interpreter; `--reset-every 5` gives, for frames
    // 5..9, what a re-created LiteRT interpreter gave (tests/tools/make_realworld.py).
    let case = common::repo("tests/realworld/streaming_kws");
    let model = case.join("model.tflite");
    let input = case.join("input_0.npy");
    for (reset, expected) in [
        (None, "expected_output_0.npy"),
        (Some("5"), "expected_reset_output_0.npy"),
    ] {
        let dir = scratch(&format!("stream_{}", reset.unwrap_or("none")));
        let mut args = vec![
            "run",
            model.to_str().expect("utf-8"),
            "--input",
            input.to_str().expect("utf-8"),
            "--out-dir",
            dir.to_str().expect("utf-8"),
        ];
        if let Some(n) = reset {
            args.extend(["--reset-every", n]);
        }
        let out = zeropoint(&args);
        assert!(out.status.success(), "{}", text(&out.stderr));
        assert!(
            text(&out.stderr).contains("keeps state between calls"),
            "{}",
            text(&out.stderr)
        );
        let (shape, got) = npy_data(&dir.join("output_0.npy"));
        let (want_shape, want) = npy_data(&case.join(expected));
        assert_eq!(shape[0], 10);
        // Without resets all 10 frames; with them, the frames after the reset at sample 5.
        let skip = got.len() - want.len();
        assert_eq!(shape[1..], want_shape[1..]);
        assert_eq!(&got[skip..], &want[..], "reset {reset:?}");
    }
    // Zero is not a stream length.
    let bad = zeropoint(&[
        "run",
        model.to_str().expect("utf-8"),
        "--input",
        input.to_str().expect("utf-8"),
        "--out-dir",
        scratch("stream_bad").to_str().expect("utf-8"),
        "--reset-every",
        "0",
    ]);
    assert!(!bad.status.success());
    assert!(
        text(&bad.stderr).contains("--reset-every"),
        "{}",
        text(&bad.stderr)
    );
}

#[test]
fn signatures_are_listed_run_by_key_and_an_unknown_key_is_refused() {
    // tests/realworld/signatures: encode / decode / score, one subgraph each; LiteRT's outputs
    // through get_signature_runner (tests/tools/realworld/signatures.py).
    let case = common::repo("tests/realworld/signatures");
    let model = case.join("model.tflite");
    let model = model.to_str().expect("utf-8");
    let out = zeropoint(&["inspect", model]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let s = text(&out.stdout);
    for needle in [
        "signature 'encode' (subgraph 1):",
        "signature 'decode' (subgraph 0):",
        "inputs:  candidate = tensor 0 'score_candidate:0' [2,32] FLOAT32; query = tensor 1",
    ] {
        assert!(s.contains(needle), "missing {needle} in:\n{s}");
    }
    let out = zeropoint(&["inspect", "--signature", "score", model]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let s = text(&out.stdout);
    assert!(
        s.contains("output 0 'query_code': 2×48") && s.contains("output 1 'similarity': 2"),
        "{s}"
    );

    // Run `score`: one .npy per input key in the signature's order (candidate, query), each
    // with a leading samples axis; outputs in the signature's order.
    let mut inputs = Vec::new();
    for name in ["candidate", "query"] {
        let (shape, data) = npy_data(&case.join(format!("sig_score_in_{name}.npy")));
        let path = scratch(&format!("sig_score_{name}.npy"));
        let mut with_samples = vec![1];
        with_samples.extend(shape);
        let f = std::fs::File::create(&path).expect("create");
        zeropoint::npy::write(f, zeropoint::npy::Dtype::F32, &with_samples, &data).expect("npy");
        inputs.push(path);
    }
    let dir = scratch("sig_score_out");
    let run = |key: &str, inputs: &[PathBuf]| {
        let mut args = vec!["run", model, "--signature", key];
        for p in inputs {
            args.extend(["--input", p.to_str().expect("utf-8")]);
        }
        args.extend(["--out-dir", dir.to_str().expect("utf-8")]);
        zeropoint(&args)
    };
    let out = run("score", &inputs);
    assert!(out.status.success(), "{}", text(&out.stderr));
    for (k, name) in ["query_code", "similarity"].iter().enumerate() {
        let (shape, got) = npy_data(&dir.join(format!("output_{k}.npy")));
        let (want_shape, want) = npy_data(&case.join(format!("sig_score_out_{name}.npy")));
        assert_eq!(shape[1..], want_shape[..], "{name}");
        assert_eq!(got, want, "{name}: LiteRT's bits");
    }
    // The same files in the other order are another run (not LiteRT's answer): the order is
    // the signature's, not the subgraph's or the file names'.
    let swapped = [inputs[1].clone(), inputs[0].clone()];
    assert!(run("score", &swapped).status.success());
    let (_, got) = npy_data(&dir.join("output_0.npy"));
    let (_, want) = npy_data(&case.join("sig_score_out_query_code.npy"));
    assert_ne!(got, want);

    // Unknown key: one line naming the known ones; a wrong input count names the inputs.
    let out = run("serving_default", &inputs);
    assert!(!out.status.success());
    assert_eq!(
        text(&out.stderr).trim(),
        "error: no signature 'serving_default': the model has signatures 'decode', 'encode', \
         'score'"
    );
    let out = run("encode", &inputs);
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("1 input given too many"),
        "{}",
        text(&out.stderr)
    );
    let out = zeropoint(&["inspect", "--signature", "nope", model]);
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("no signature 'nope'"),
        "{}",
        text(&out.stderr)
    );

    // Full-integer quantization of several signatures: a typed refusal naming them; dynamic
    // range keeps all three.
    let q = scratch("sig_dynamic.tflite");
    let q = q.to_str().expect("utf-8");
    let out = zeropoint(&["quantize", model, "--mode", "int8", "--output", q]);
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("3 signatures ('decode', 'encode', 'score')"),
        "{}",
        text(&out.stderr)
    );
    let out = zeropoint(&[
        "quantize", model, "--mode", "dynamic", "--io", "float", "-o", q,
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let out = zeropoint(&["inspect", "--signature", "score", q]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("signature 'encode' (subgraph 1):"));
}
