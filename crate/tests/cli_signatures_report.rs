//! Quantizing a model with several signatures, continued (tests/realworld/signatures):
//! `--report` with a section per signature; one `--data` for signatures that take the same
//! inputs; TF's calibrated-only model as `--stats`.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::signatures::*;
use common::{text, zeropoint};

/// Checks the `--report` at `json` of the quantized model at `q` (several signatures): one
/// section per signature, in the model's order, naming the signature and its subgraph, with every
/// tensor of that subgraph (index, name, scales and zero points as the model carries them); with
/// `measured`, each signature's errors over its 8 calibration samples.
fn check_report(json: &str, q: &str, measured: bool) {
    use zeropoint::engine::signatures::resolve;
    let m = zeropoint::tflite::read(&std::fs::read(q).expect("model")).expect("reads");
    let r: serde_json::Value =
        serde_json::from_slice(&std::fs::read(json).expect("report")).expect("JSON");
    assert_eq!(r["mode"], "int8");
    let sections = r["signatures"].as_array().expect("signatures");
    let keys: Vec<&str> = sections
        .iter()
        .map(|s| s["key"].as_str().expect("key"))
        .collect();
    assert_eq!(keys, ["decode", "encode", "score"]);
    let mut compared = 0;
    for sec in sections {
        let key = sec["key"].as_str().expect("key");
        let s = resolve(&m, key).expect("signature").subgraph;
        assert_eq!(sec["subgraph"], s, "{key}");
        let sg = &m.subgraphs[s];
        let tensors = sec["tensors"].as_array().expect("tensors");
        assert_eq!(tensors.len(), sg.tensors.len(), "{key}: every tensor");
        for (i, (t, x)) in tensors.iter().zip(&sg.tensors).enumerate() {
            assert_eq!(t["index"], i, "{key}");
            assert_eq!(t["name"], x.name.as_str(), "{key} tensor {i}");
            let q = x.quantization.as_ref();
            // Written as f32 (shortest form), read back as f32.
            let scales: Vec<f32> = t["scales"]
                .as_array()
                .expect("scales")
                .iter()
                .map(|v| v.as_f64().expect("a number") as f32)
                .collect();
            assert_eq!(
                scales,
                q.and_then(|q| q.scale.clone()).unwrap_or_default(),
                "{key} '{}'",
                x.name
            );
            let zeros = q.and_then(|q| q.zero_point.clone()).unwrap_or_default();
            assert_eq!(
                t["zero_points"],
                serde_json::json!(zeros),
                "{key} '{}'",
                x.name
            );
            compared += 1;
        }
        if measured {
            assert_eq!(sec["error_samples"], 8, "{key}");
            let errs = sec["op_errors"].as_array().expect("op_errors");
            assert!(
                !errs.is_empty()
                    && errs
                        .iter()
                        .all(|e| e["sqnr_db"].as_f64().is_some_and(|db| db > 20.0)),
                "{key}: {errs:?}"
            );
        } else {
            assert!(
                sec.get("error_samples").is_none(),
                "{key}: nothing measured"
            );
        }
    }
    // decode 5 + encode 7 + score 16.
    assert_eq!(compared, 28);
}

#[test]
fn report_covers_every_signature() {
    let model = case("model.tflite");
    let (q, r) = (scratch("report.tflite"), scratch("report.json"));
    let out = with_data(
        &[
            "quantize", &model, "--io", "float", "--report", &r, "-o", &q,
        ],
        &signature_data(&INPUTS),
    );
    let said = text(&out.stderr);
    assert!(out.status.success(), "{said}");
    check_report(&r, &q, true);
    for key in ["decode", "encode", "score"] {
        assert!(
            said.contains(&format!("signature '{key}': worst output SQNR")),
            "{said}"
        );
    }
    // The report does not change the model.
    let plain = scratch("report_plain.tflite");
    let out = with_data(
        &["quantize", &model, "--io", "float", "-o", &plain],
        &signature_data(&INPUTS),
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(std::fs::read(&plain).ok(), std::fs::read(&q).ok());
    // From statistics (no samples, so no errors), and with --auto.
    let (qs, rs) = (scratch("report_stats.tflite"), scratch("report_stats.json"));
    let out = zeropoint(&[
        "quantize",
        &model,
        "--stats",
        &case("model_calibrated.tflite"),
        "--io",
        "float",
        "--report",
        &rs,
        "-o",
        &qs,
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    check_report(&rs, &qs, false);
    let (qa, ra) = (scratch("report_auto.tflite"), scratch("report_auto.json"));
    let out = with_data(
        &[
            "quantize", &model, "--auto", "--io", "float", "--report", &ra, "-o", &qa,
        ],
        &signature_data(&INPUTS),
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    check_report(&ra, &qa, true);
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&ra).expect("report")).expect("JSON");
    for sec in json["signatures"].as_array().expect("signatures") {
        assert!(sec["auto"].is_object(), "{}: what --auto chose", sec["key"]);
    }
}

/// A model of two signatures that take the same input: `encode`'s subgraph of
/// tests/realworld/signatures twice, as `encode` and `encode_again`.
fn same_inputs_model(path: &str) {
    let m = zeropoint::tflite::read(&std::fs::read(case("model.tflite")).expect("model"))
        .expect("reads");
    let sig = m
        .signatures
        .iter()
        .find(|s| s.key.as_deref() == Some("encode"))
        .expect("encode")
        .clone();
    let sg = m.subgraphs[sig.subgraph as usize].clone();
    let first = zeropoint::graph::SignatureDef {
        subgraph: 0,
        ..sig.clone()
    };
    let again = zeropoint::graph::SignatureDef {
        key: Some("encode_again".into()),
        subgraph: 1,
        ..sig
    };
    let two = zeropoint::graph::Model {
        subgraphs: vec![sg.clone(), sg],
        signatures: vec![first, again],
        ..m
    };
    std::fs::write(path, zeropoint::tflite::write(&two).expect("writes")).expect("write");
}

#[test]
fn one_data_feeds_every_signature_when_their_inputs_match() {
    let model = scratch("same_inputs.tflite");
    same_inputs_model(&model);
    let x = case("sig_encode_calib_features.npy");
    // One --data: both signatures calibrated on encode's samples, as --signature-data with the
    // same file for each; each then runs as TF's int8 `encode` (calibrated on those samples).
    let shared = scratch("same_inputs_data.tflite");
    let out = zeropoint(&[
        "quantize", &model, "--data", &x, "--io", "float", "-o", &shared,
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let per = scratch("same_inputs_per.tflite");
    let data = [format!("encode={x}"), format!("encode_again={x}")];
    let out = with_data(&["quantize", &model, "--io", "float", "-o", &per], &data);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let bytes = std::fs::read(&shared).expect("model");
    assert_eq!(
        bytes,
        std::fs::read(&per).expect("model"),
        "--data vs --signature-data"
    );
    let tf = run_signature(&case("model_int8.tflite"), "encode", "same_tf");
    assert!(!tf.is_empty());
    for key in ["encode", "encode_again"] {
        assert_eq!(
            run_signature_on(&shared, key, "encode", "same"),
            tf,
            "{key}: TF's int8 encode"
        );
    }
    // calibrate --data writes the per-signature file, which quantize --stats reads back.
    let stats = scratch("same_inputs.json");
    let out = zeropoint(&["calibrate", &model, "--data", &x, "-o", &stats]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let via = scratch("same_inputs_stats.tflite");
    let out = zeropoint(&[
        "quantize", &model, "--stats", &stats, "--io", "float", "-o", &via,
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(std::fs::read(&via).expect("model"), bytes, "via --stats");
    // Random data: the same samples run through each signature, so the same statistics.
    let random = scratch("same_inputs_random.json");
    let out = zeropoint(&[
        "calibrate",
        &model,
        "--random",
        "3",
        "--range",
        "-1,1",
        "-o",
        &random,
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&random).expect("stats")).expect("JSON");
    let sigs = json["signatures"].as_array().expect("per signature");
    assert_eq!(sigs.len(), 2);
    assert_eq!(sigs[0]["stats"]["samples"], 3);
    assert_eq!(sigs[0]["stats"], sigs[1]["stats"], "the same samples");
    // --auto with one --data equals --auto with --signature-data.
    let (a, b) = (
        scratch("same_auto_data.tflite"),
        scratch("same_auto_per.tflite"),
    );
    let out = zeropoint(&[
        "quantize", &model, "--auto", "--data", &x, "--io", "float", "-o", &a,
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let out = with_data(
        &["quantize", &model, "--auto", "--io", "float", "-o", &b],
        &data,
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(std::fs::read(&a).ok(), std::fs::read(&b).ok(), "--auto");
}

#[test]
fn tfs_calibrated_model_gives_tfs_int8_model_per_signature() {
    // TF 2.21's calibrated-only model of the three signatures (its calibrator run on each
    // signature's samples) as --stats: every signature of ours runs as TF's int8 model, and the
    // bytes are those of calibrating the same samples here (int8 and 16x8).
    let model = case("model.tflite");
    let calibrated = case("model_calibrated.tflite");
    for mode in ["int8", "int16x8"] {
        let via = scratch(&format!("tf_calibrated_{mode}.tflite"));
        let out = zeropoint(&[
            "quantize",
            &model,
            "--mode",
            mode,
            "--stats",
            &calibrated,
            "--io",
            "float",
            "-o",
            &via,
        ]);
        assert!(out.status.success(), "{mode}: {}", text(&out.stderr));
        let direct = scratch(&format!("tf_calibrated_direct_{mode}.tflite"));
        let out = with_data(
            &[
                "quantize", &model, "--mode", mode, "--io", "float", "-o", &direct,
            ],
            &signature_data(&INPUTS),
        );
        assert!(out.status.success(), "{mode}: {}", text(&out.stderr));
        assert_eq!(
            std::fs::read(&via).expect("via"),
            std::fs::read(&direct).expect("direct"),
            "{mode}: TF's calibration vs ours"
        );
        if mode == "int8" {
            for key in ["decode", "encode", "score"] {
                assert_eq!(
                    run_signature(&via, key, "tf_cal"),
                    run_signature(&case("model_int8.tflite"), key, "tf_cal_tf"),
                    "{key}"
                );
            }
        }
    }
    // It carries min/max only; a calibrated model of another model is not these signatures'.
    let q = scratch("tf_calibrated_bad.tflite");
    let out = zeropoint(&[
        "quantize",
        &model,
        "--stats",
        &calibrated,
        "--calibration",
        "mse",
        "-o",
        &q,
    ]);
    assert!(
        text(&out.stderr).contains("a calibrated .tflite carries only min/max"),
        "{}",
        text(&out.stderr)
    );
    let other = common::arg(common::repo(
        "tests/golden/example_cnn/model_calibrated.tflite",
    ));
    let out = zeropoint(&["quantize", &model, "--stats", &other, "-o", &q]);
    let e = text(&out.stderr);
    assert!(!out.status.success());
    assert!(
        e.contains("not a calibrated model of these signatures"),
        "{e}"
    );
}
