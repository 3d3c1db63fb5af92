//! Full-integer quantization of a model with several signatures as a user runs it
//! (tests/realworld/signatures: encode / decode / score, one subgraph each, TF 2.21's int8 model
//! calibrated per signature): `quantize --signature-data`, and `calibrate --signature-data` then
//! `quantize --stats`, which write the same bytes; `--auto` per signature; what is refused, by
//! name. `cli_signatures_report.rs` has `--report`, one `--data` and TF's calibrated-only model.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::signatures::*;
use common::{text, zeropoint};

#[test]
fn int8_of_several_signatures_calibrates_each_on_its_own_samples() {
    // Each signature's calibration samples, and TF's int8 model calibrated on them (a
    // representative dataset of (key, inputs) tuples).
    let model = case("model.tflite");
    let q = scratch("sig_int8.tflite");
    let data = signature_data(&INPUTS);
    let quantize = |data: &[String]| {
        with_data(
            &["quantize", &model, "--io", "float", "-o", q.as_str()],
            data,
        )
    };
    let out = quantize(&data);
    assert!(out.status.success(), "{}", text(&out.stderr));
    // Every signature of ours gives the outputs TF's int8 model gives on our engine (the library
    // test, tests/rust/signatures.rs, compares the two models tensor by tensor, and TF's with
    // LiteRT).
    let tf = case("model_int8.tflite");
    for key in ["decode", "encode", "score"] {
        let ours = run_signature(&q, key, "ours");
        assert!(!ours.is_empty(), "{key}");
        assert_eq!(
            ours,
            run_signature(&tf, key, "tf"),
            "{key}: ours vs TF's int8"
        );
    }
    // A signature without samples and an unknown key are refused by name.
    let out = quantize(&data[..2]);
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains(
            "signature 'score' has 2 input(s) (candidate, query): give --signature-data \
             score=X.npy for each, in that order (0 given)"
        ),
        "{}",
        text(&out.stderr)
    );
    let out = quantize(&["serve=x.npy".to_string()]);
    assert!(
        text(&out.stderr).contains("no signature 'serve'"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn calibrate_per_signature_then_quantize_with_stats_writes_the_same_bytes() {
    let model = case("model.tflite");
    let data = signature_data(&INPUTS);
    let stats = scratch("sig_stats.json");
    let out = with_data(&["calibrate", &model, "-o", &stats], &data);
    assert!(out.status.success(), "{}", text(&out.stderr));
    // One line per tensor, the signature first; the file is the versioned per-signature format.
    let lines = text(&out.stdout);
    assert!(
        lines.contains("encode     0  [") && lines.contains("encode_features:0"),
        "{lines}"
    );
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&stats).expect("stats")).expect("JSON");
    assert_eq!(json["format"], "zeropoint-signature-stats");
    assert_eq!(json["version"], 1);
    let keys: Vec<&str> = json["signatures"]
        .as_array()
        .expect("signatures")
        .iter()
        .map(|s| s["key"].as_str().expect("key"))
        .collect();
    assert_eq!(keys, ["decode", "encode", "score"]);
    assert!(
        json["signatures"]
            .as_array()
            .expect("signatures")
            .iter()
            .all(|s| s["stats"]["samples"] == 8),
        "8 samples each"
    );
    for mode in ["int8", "int16x8"] {
        let direct = scratch(&format!("sig_direct_{mode}.tflite"));
        let out = with_data(
            &[
                "quantize", &model, "--mode", mode, "--io", "float", "-o", &direct,
            ],
            &data,
        );
        assert!(out.status.success(), "{mode}: {}", text(&out.stderr));
        let via = scratch(&format!("sig_stats_{mode}.tflite"));
        let out = zeropoint(&[
            "quantize", &model, "--mode", mode, "--io", "float", "--stats", &stats, "-o", &via,
        ]);
        assert!(out.status.success(), "{mode}: {}", text(&out.stderr));
        assert_eq!(
            std::fs::read(&via).expect("via stats"),
            std::fs::read(&direct).expect("direct"),
            "{mode}: --stats vs --signature-data"
        );
        if mode == "int8" {
            // So the model from the statistics gives TF's int8 outputs too.
            for key in ["decode", "encode", "score"] {
                assert_eq!(
                    run_signature(&via, key, "via"),
                    run_signature(&case("model_int8.tflite"), key, "tf_via"),
                    "{key}"
                );
            }
        }
    }
    // A range method chosen again from the file equals calibrating with it.
    let direct = scratch("sig_direct_pct.tflite");
    let out = with_data(
        &[
            "quantize",
            &model,
            "--calibration",
            "percentile:99",
            "--io",
            "float",
            "-o",
            &direct,
        ],
        &data,
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let via = scratch("sig_stats_pct.tflite");
    let out = zeropoint(&[
        "quantize",
        &model,
        "--stats",
        &stats,
        "--calibration",
        "percentile:99",
        "--io",
        "float",
        "-o",
        &via,
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let (direct, via) = (std::fs::read(&direct), std::fs::read(&via));
    let via = via.expect("via");
    assert_eq!(via, direct.expect("direct"), "percentile:99");
    let minmax = std::fs::read(scratch("sig_stats_int8.tflite")).expect("min/max model");
    assert_ne!(
        via, minmax,
        "percentile:99 chooses other ranges than min/max"
    );
}

#[test]
fn per_signature_calibration_refuses_bad_input_by_name() {
    let model = case("model.tflite");
    let data = signature_data(&INPUTS);
    let out_path = scratch("sig_bad.json");
    let refused = |args: &[&str], data: &[String]| {
        let out = with_data(args, data);
        assert!(!out.status.success(), "{args:?} {data:?}");
        text(&out.stderr)
    };
    let calibrate = ["calibrate", model.as_str(), "-o", out_path.as_str()];
    // A key the model lacks.
    let mut unknown = data.clone();
    unknown.push(format!("serve={}", case("sig_decode_calib_code.npy")));
    let e = refused(&calibrate, &unknown);
    assert!(
        e.contains("no signature 'serve': the model has signatures 'decode', 'encode', 'score'"),
        "{e}"
    );
    // A signature with no data.
    let e = refused(&calibrate, &data[1..]);
    assert!(
        e.contains("signature 'decode' has 1 input(s) (code): give --signature-data"),
        "{e}"
    );
    // Data of the wrong shape: encode's samples given to decode.
    let mut wrong = data.clone();
    wrong[0] = format!("decode={}", case("sig_encode_calib_features.npy"));
    let e = refused(&calibrate, &wrong);
    assert!(
        e.contains("signature 'decode': input 0")
            && e.contains("'decode_code:0'")
            && e.contains("got shape 8×1×32"),
        "{e}"
    );
    // Not KEY=X.npy; with another source; one --data for signatures whose inputs differ.
    let e = refused(&calibrate, &["decode".to_string()]);
    assert!(
        e.contains("--signature-data decode: expected KEY=X.npy"),
        "{e}"
    );
    let e = refused(
        &[
            "calibrate",
            &model,
            "--data",
            &case("sig_decode_calib_code.npy"),
            "-o",
            &out_path,
        ],
        &data,
    );
    assert!(e.contains("exactly one source of samples"), "{e}");
    let e = refused(
        &[
            "calibrate",
            &model,
            "--data",
            &case("sig_decode_calib_code.npy"),
            "-o",
            &out_path,
        ],
        &[],
    );
    assert!(
        e.contains(
            "one source of samples for all 3 signatures needs the same inputs in each: signature \
             'encode' takes (features [1, 32] FLOAT32), signature 'decode' takes (code [1, 48] \
             FLOAT32); give each signature its samples with --signature-data KEY=X.npy"
        ),
        "{e}"
    );
    // A model with one subgraph has no signatures to calibrate apart.
    let single = common::repo("tests/golden/example_cnn");
    let single_model = single.join("model_float.tflite");
    let single_model = single_model.to_str().expect("utf-8");
    let e = refused(
        &["calibrate", single_model, "-o", &out_path],
        &["serving_default=x.npy".to_string()],
    );
    assert!(
        e.contains("--signature-data is for a model with several signatures; this one has"),
        "{e}"
    );

    // quantize: no calibration, statistics of one subgraph, --stats with --signature-data,
    // --auto.
    let e = refused(&["quantize", &model, "-o", &scratch("sig_bad.tflite")], &[]);
    assert!(
        e.contains(
            "--mode int8 of a model with 3 signatures ('decode', 'encode', 'score') needs \
             calibration: --signature-data KEY=X.npy for every signature"
        ),
        "{e}"
    );
    let q = scratch("sig_bad.tflite");
    let one = scratch("sig_one_subgraph.json");
    std::fs::write(&one, "{\"samples\":1,\"tensors\":[]}\n").expect("write");
    let e = refused(&["quantize", &model, "--stats", &one, "-o", &q], &[]);
    assert!(
        e.contains("statistics of one subgraph; the model has 3 signatures"),
        "{e}"
    );
    let stats = scratch("sig_good.json");
    let out = with_data(&["calibrate", &model, "-o", &stats], &data);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let e = refused(&["quantize", &model, "--stats", &stats, "-o", &q], &data);
    assert!(
        e.contains("give either --signature-data (or --data) or --stats, not both"),
        "{e}"
    );
    let e = refused(
        &["quantize", &model, "--auto", "--stats", &stats, "-o", &q],
        &[],
    );
    assert!(
        e.contains("give --signature-data (or --data), without --stats"),
        "{e}"
    );
    let e = refused(
        &[
            "quantize",
            &model,
            "--auto",
            "--calibration",
            "mse",
            "-o",
            &q,
        ],
        &data,
    );
    assert!(e.contains("without --stats or --calibration"), "{e}");
    let e = refused(
        &[
            "quantize",
            &model,
            "--data",
            &case("sig_encode_calib_features.npy"),
            "-o",
            &q,
        ],
        &data,
    );
    assert!(
        e.contains("give either --data (the same samples for every signature) or --signature-data"),
        "{e}"
    );
    // Per-signature statistics for a model of one subgraph, or for dynamic range.
    let e = refused(
        &["quantize", single_model, "--stats", &stats, "-o", &q],
        &[],
    );
    assert!(
        e.contains("statistics per signature (calibrate --signature-data)"),
        "{e}"
    );
    // Statistics of another file format version.
    let mut json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&stats).expect("stats")).expect("JSON");
    json["version"] = 2.into();
    let v2 = scratch("sig_v2.json");
    std::fs::write(&v2, json.to_string()).expect("write");
    let e = refused(&["quantize", &model, "--stats", &v2, "-o", &q], &[]);
    assert!(
        e.contains("zeropoint-signature-stats version 2: this zeropoint reads version 1"),
        "{e}"
    );
    // Statistics of the wrong signature under a key: the tensors are not that subgraph's.
    json["version"] = 1.into();
    let swapped = json["signatures"][1]["stats"].clone();
    json["signatures"][0]["stats"] = swapped;
    let mixed = scratch("sig_mixed.json");
    std::fs::write(&mixed, json.to_string()).expect("write");
    let e = refused(&["quantize", &model, "--stats", &mixed, "-o", &q], &[]);
    assert!(
        e.contains("signature 'decode': statistics of tensor"),
        "{e}"
    );
}

/// `n` samples of shape `dims` (after the samples axis), heavy-tailed (Student's t with 2
/// degrees of freedom, scaled by 0.3) from a fixed seed: data whose min/max ranges are wide, so
/// that `--auto`'s range search has something to find.
fn heavy_tailed(path: &str, n: usize, dims: &[usize], seed: u64) {
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut uniform = || {
        // xorshift64*, then 53 bits in (0, 1).
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        let x = state.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11;
        (x as f64 + 0.5) / (1u64 << 53) as f64
    };
    let mut normal = || {
        let (u, v) = (uniform(), uniform());
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    };
    let count: usize = n * dims.iter().product::<usize>();
    let mut bytes = Vec::with_capacity(count * 4);
    for _ in 0..count {
        let z = normal();
        let chi2 = normal().powi(2) + normal().powi(2);
        let t = z / (chi2 / 2.0).sqrt();
        bytes.extend_from_slice(&((0.3 * t) as f32).to_le_bytes());
    }
    let mut shape = vec![n];
    shape.extend_from_slice(dims);
    let f = std::fs::File::create(path).expect("create");
    zeropoint::npy::write(f, zeropoint::npy::Dtype::F32, &shape, &bytes).expect("npy");
}

/// The `--auto` summary line of signature `key` in the CLI's stderr `said`.
fn auto_line<'a>(said: &'a str, key: &str) -> &'a str {
    said.lines()
        .find(|l| l.starts_with(&format!("warning: signature '{key}': --auto:")))
        .unwrap_or_else(|| panic!("no --auto line for {key} in:\n{said}"))
}

#[test]
fn auto_searches_each_signature_on_its_own_samples() {
    let model = case("model.tflite");
    let quantize = |data: &[String], auto: bool, out: &str| {
        let mut args = vec!["quantize", model.as_str(), "--io", "float", "-o", out];
        if auto {
            args.push("--auto");
        }
        let o = with_data(&args, data);
        assert!(o.status.success(), "{}", text(&o.stderr));
        (std::fs::read(out).expect("model"), text(&o.stderr))
    };
    // The model's 8 calibration samples per signature: each signature's guard keeps its
    // TF-compatible model (too few samples to show a gain), so --auto writes the bytes of
    // --signature-data.
    let data = signature_data(&INPUTS);
    let (plain, _) = quantize(&data, false, &scratch("auto_plain8.tflite"));
    let (auto, said) = quantize(&data, true, &scratch("auto8.tflite"));
    for key in ["decode", "encode", "score"] {
        let line = auto_line(&said, key);
        assert!(
            line.contains("the TF-compatible model was written")
                && line.ends_with("(with 8 samples a gain is hard to confirm: --auto takes up to 64, 48 to search and 16 to hold out)"),
            "{line}"
        );
    }
    assert_eq!(auto, plain, "8 samples: the TF-compatible model");
    // --target-sqnr moves operators of each signature to int16 on its own (decode reaches 45 dB
    // with one); every signature of the mixed model runs.
    let mixed = scratch("auto_target.tflite");
    let out = with_data(
        &[
            "quantize",
            &model,
            "--target-sqnr",
            "45",
            "--io",
            "float",
            "-o",
            &mixed,
        ],
        &data,
    );
    let said = text(&out.stderr);
    assert!(out.status.success(), "{said}");
    assert!(
        said.contains("warning: signature 'decode': operators 0 run with int16 activations")
            && said.contains("1 operators moved to int16 for target 45 dB (reached)"),
        "{said}"
    );
    for key in ["decode", "encode", "score"] {
        assert!(!run_signature(&mixed, key, "mixed").is_empty(), "{key}");
    }

    // 64 heavy-tailed samples per signature: where a signature's search holds up, its subgraph
    // changes; where its guard falls back, that signature computes exactly what the
    // TF-compatible model computes. (With these seeds `score`'s range search holds up, 19.70 vs
    // 14.19 dB on its search samples, and `decode` / `encode` fall back; seeds 1 and 21 found
    // nothing that held up in any signature, and the test asks for at least one.)
    let dims = |key: &str| -> Vec<usize> {
        match key {
            "decode" => vec![1, 48],
            "encode" => vec![1, 32],
            _ => vec![2, 32],
        }
    };
    let data: Vec<String> = INPUTS
        .iter()
        .enumerate()
        .map(|(i, (key, name))| {
            let path = scratch(&format!("auto_{key}_{name}.npy"));
            heavy_tailed(&path, 64, &dims(key), i as u64 + 5);
            format!("{key}={path}")
        })
        .collect();
    let plain_path = scratch("auto_plain64.tflite");
    let auto_path = scratch("auto64.tflite");
    let (plain, _) = quantize(&data, false, &plain_path);
    let (auto, said) = quantize(&data, true, &auto_path);
    assert_ne!(auto, plain, "some signature's search holds up:\n{said}");
    let mut kept = 0;
    for key in ["decode", "encode", "score"] {
        let line = auto_line(&said, key);
        let (a, p) = (
            run_signature(&auto_path, key, "auto64"),
            run_signature(&plain_path, key, "plain64"),
        );
        if line.contains("the TF-compatible model was written") {
            assert_eq!(a, p, "{key}: fell back, so TF-compatible");
        } else {
            kept += 1;
        }
    }
    assert!(kept > 0, "{said}");

    // A time limit is for the whole command, shared by the signatures: 0 s stops every
    // signature's search at once, so each writes its TF-compatible model and says why.
    let limited = scratch("auto64_limit0.tflite");
    let out = with_data(
        &[
            "quantize",
            &model,
            "--auto",
            "--auto-time-limit",
            "0",
            "--io",
            "float",
            "-o",
            &limited,
        ],
        &data,
    );
    let said = text(&out.stderr);
    assert!(out.status.success(), "{said}");
    for key in ["decode", "encode", "score"] {
        let line = auto_line(&said, key);
        assert!(
            line.contains("the time limit stopped the search")
                && line.contains("the TF-compatible model was written"),
            "{line}"
        );
    }
    assert_eq!(std::fs::read(&limited).expect("model"), plain);
    let out = with_data(
        &[
            "quantize",
            &model,
            "--auto",
            "--auto-time-limit",
            "inf",
            "-o",
            &limited,
        ],
        &data,
    );
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("--auto-time-limit: inf is not a number of seconds"),
        "{}",
        text(&out.stderr)
    );
}
