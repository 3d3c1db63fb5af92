//! Full-integer quantization of a model with several signatures as a user runs it
//! (tests/realworld/signatures: encode / decode / score, one subgraph each, TF 2.21's int8 model
//! calibrated per signature): `quantize --signature-data`, and `calibrate --signature-data` then
//! `quantize --stats`, which write the same bytes; TF's calibrated-only model as `--stats`; one
//! `--data` for signatures that take the same inputs; `--report` with a section per signature;
//! what is refused, by name.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use std::path::{Path, PathBuf};
use std::process::Output;

use common::{text, zeropoint};

fn case(file: &str) -> String {
    common::arg(common::repo("tests/realworld/signatures").join(file))
}

fn scratch(name: &str) -> String {
    common::arg(common::scratch_in("cli_signatures", name))
}

fn npy_data(path: &Path) -> (Vec<usize>, Vec<u8>) {
    let f = std::fs::File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let a = zeropoint::npy::read(&path.display().to_string(), f).expect("npy reads");
    (a.shape, a.data)
}

/// Each signature's calibration inputs, in the signature's input order.
const INPUTS: [(&str, &str); 4] = [
    ("decode", "code"),
    ("encode", "features"),
    ("score", "candidate"),
    ("score", "query"),
];

/// `--signature-data KEY=sig_KEY_calib_NAME.npy` for each of `inputs`.
fn signature_data(inputs: &[(&str, &str)]) -> Vec<String> {
    inputs
        .iter()
        .map(|(key, name)| format!("{key}={}", case(&format!("sig_{key}_calib_{name}.npy"))))
        .collect()
}

/// `zeropoint <args…> --signature-data …` for each of `data`.
fn with_data(args: &[&str], data: &[String]) -> Output {
    let mut all: Vec<&str> = args.to_vec();
    for d in data {
        all.extend(["--signature-data", d.as_str()]);
    }
    zeropoint(&all)
}

/// The outputs of signature `key` of the model at `m` on `sig_KEY_in_*.npy` (one sample), as
/// `run --signature` writes them.
fn run_signature(m: &str, key: &str, tag: &str) -> Vec<(Vec<usize>, Vec<u8>)> {
    run_signature_on(m, key, key, tag)
}

/// [`run_signature`] on the inputs of signature `inputs_of` of tests/realworld/signatures.
fn run_signature_on(m: &str, key: &str, inputs_of: &str, tag: &str) -> Vec<(Vec<usize>, Vec<u8>)> {
    let mut files = Vec::new();
    for (_, name) in INPUTS.iter().filter(|(k, _)| *k == inputs_of) {
        let (shape, values) = npy_data(Path::new(&case(&format!("sig_{inputs_of}_in_{name}.npy"))));
        let path = scratch(&format!("{tag}_{key}_{name}.npy"));
        let mut with_samples = vec![1];
        with_samples.extend(shape);
        let f = std::fs::File::create(&path).expect("create");
        zeropoint::npy::write(f, zeropoint::npy::Dtype::F32, &with_samples, &values).expect("npy");
        files.push(path);
    }
    let dir = PathBuf::from(scratch(&format!("{tag}_{key}_out")));
    let mut args = vec!["run", m, "--signature", key];
    for p in &files {
        args.extend(["--input", p.as_str()]);
    }
    args.extend(["--out-dir", dir.to_str().expect("utf-8")]);
    let out = zeropoint(&args);
    assert!(out.status.success(), "{key}: {}", text(&out.stderr));
    let mut got = Vec::new();
    for k in 0.. {
        let p = dir.join(format!("output_{k}.npy"));
        if !p.is_file() {
            break;
        }
        got.push(npy_data(&p));
    }
    got
}

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
        let line = said
            .lines()
            .find(|l| l.starts_with(&format!("warning: signature '{key}': --auto:")))
            .unwrap_or_else(|| panic!("no --auto line for {key} in:\n{said}"));
        assert!(
            line.ends_with("the TF-compatible model was written"),
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
        let line = said
            .lines()
            .find(|l| l.starts_with(&format!("warning: signature '{key}': --auto:")))
            .unwrap_or_else(|| panic!("no --auto line for {key} in:\n{said}"));
        let (a, p) = (
            run_signature(&auto_path, key, "auto64"),
            run_signature(&plain_path, key, "plain64"),
        );
        if line.ends_with("the TF-compatible model was written") {
            assert_eq!(a, p, "{key}: fell back, so TF-compatible");
        } else {
            kept += 1;
        }
    }
    assert!(kept > 0, "{said}");
}

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
