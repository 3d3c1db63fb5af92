//! Models as other tools write them (tests/realworld/, made by tests/tools/make_realworld.py
//! with TF 2.21's converter and flatbuffer utilities): only `deprecated_builtin_code` filled,
//! sparse weights behind DENSIFY, a custom op, resource variables, IF/WHILE subgraphs, no
//! signature, heavy metadata.
//!
//! For each: the reader sees the operators TF's tools list (manifest.json), the writer is
//! lossless (read → write → read gives the same model; `check_roundtrip.py` in `npm test` runs
//! LiteRT on the rewritten files), the engine either gives LiteRT's outputs bit for bit or a
//! typed error naming the operators it cannot run, and the quantizer either works or says
//! what it leaves alone.

use std::path::{Path, PathBuf};

use zeropoint::Error;
use zeropoint::engine::Interpreter;
use zeropoint::graph::{Model, TensorType};
use zeropoint::quant::calibrate::{Calibrator, Method};
use zeropoint::quant::{IoType, Mode, QuantizeOptions, Ranges, quantize};
use zeropoint::tflite;
use zeropoint_tests::{NpyData, load_npy};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("realworld")
}

struct Entry {
    name: String,
    ops: Vec<Vec<String>>,
    litert_runs: bool,
}

fn manifest() -> Vec<Entry> {
    let text = std::fs::read_to_string(root().join("manifest.json")).expect("manifest.json");
    let v: serde_json::Value = serde_json::from_str(&text).expect("manifest is JSON");
    let models = v["models"].as_object().expect("models");
    let out: Vec<Entry> = models
        .iter()
        .map(|(name, m)| Entry {
            name: name.clone(),
            ops: m["ops"]
                .as_array()
                .expect("ops")
                .iter()
                .map(|sg| {
                    sg.as_array()
                        .expect("subgraph ops")
                        .iter()
                        .map(|o| o.as_str().expect("op name").to_string())
                        .collect()
                })
                .collect(),
            litert_runs: m["litert_runs"].as_bool().expect("litert_runs"),
        })
        .collect();
    assert!(out.len() >= 7, "the manifest lists {} models", out.len());
    out
}

fn model(name: &str) -> (Vec<u8>, Model) {
    let bytes = std::fs::read(root().join(name).join("model.tflite")).expect("model file");
    let m = tflite::read(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
    (bytes, m)
}

fn input(name: &str) -> Vec<f32> {
    match load_npy(&root().join(name).join("input_0.npy")).data {
        NpyData::F32(v) => v,
        _ => panic!("{name}: input_0.npy must be float32"),
    }
}

/// Our name for an operator as TF's manifest writes it (`CUSTOM(code)` for custom ops).
fn op_label(m: &Model, sg: usize, i: usize) -> String {
    let op = &m.subgraphs[sg].operators[i];
    match &op.code.custom_code {
        Some(c) => format!("CUSTOM({c})"),
        None => op.code.name(),
    }
}

#[test]
fn reader_sees_the_operators_tf_wrote_and_the_writer_is_lossless() {
    for e in manifest() {
        let (_, m) = model(&e.name);
        let ours: Vec<Vec<String>> = (0..m.subgraphs.len())
            .map(|sg| {
                (0..m.subgraphs[sg].operators.len())
                    .map(|i| op_label(&m, sg, i))
                    .collect()
            })
            .collect();
        assert_eq!(ours, e.ops, "{}: operators", e.name);
        let again = tflite::write(&m).unwrap_or_else(|err| panic!("{}: write: {err}", e.name));
        let back = tflite::read(&again).unwrap_or_else(|err| panic!("{}: re-read: {err}", e.name));
        assert!(
            back == m,
            "{}: read → write → read changed the model",
            e.name
        );
        // The summary (what `inspect` prints) works on every one.
        let s = zeropoint::graph::summary::ModelSummary::of(&m);
        assert_eq!(s.subgraphs.len(), e.ops.len(), "{}", e.name);
    }
}

/// The engine runs subgraph-0 models of supported ops (sparse weights included) with LiteRT's
/// reference outputs bit for bit, and names every operator it cannot run otherwise.
#[test]
fn engine_matches_litert_or_names_what_it_cannot_run() {
    let cannot: &[(&str, &[&str])] = &[
        ("custom_op", &["ZpTestCustom"]),
        ("variables", &["CALL_ONCE", "VAR_HANDLE"]),
        ("control_flow", &["IF", "WHILE"]),
    ];
    let mut ran = 0;
    for e in manifest() {
        let (_, m) = model(&e.name);
        match Interpreter::new(&m) {
            Ok(mut it) => {
                assert!(e.litert_runs, "{}: LiteRT cannot run it, we can?", e.name);
                it.set_input_f32(0, &input(&e.name)).expect("input");
                it.invoke();
                let got = it.output(0).expect("output");
                let got = got.as_f32().expect("float output");
                let want = match load_npy(&root().join(&e.name).join("expected_output_0.npy")).data
                {
                    NpyData::F32(v) => v,
                    _ => panic!("{}: expected float output", e.name),
                };
                let same = got.len() == want.len()
                    && got
                        .iter()
                        .zip(&want)
                        .all(|(a, b)| a.to_bits() == b.to_bits());
                assert!(same, "{}: {got:?} vs LiteRT {want:?}", e.name);
                ran += 1;
            }
            Err(Error::CannotRun { issues }) => {
                let names = cannot
                    .iter()
                    .find(|(n, _)| *n == e.name)
                    .unwrap_or_else(|| panic!("{}: unexpectedly cannot run: {issues:?}", e.name))
                    .1;
                let text = format!("{}", Error::CannotRun { issues });
                for n in names {
                    assert!(
                        text.contains(n),
                        "{}: error does not name {n}: {text}",
                        e.name
                    );
                }
            }
            Err(other) => panic!("{}: not a typed CannotRun: {other}", e.name),
        }
    }
    assert_eq!(
        ran, 6,
        "deprecated_opcodes, sparse_fc, no_signature, metadata_heavy, dynamic_batch, \
         softmax16x8_huge_beta run"
    );
}

#[test]
fn quantizer_works_or_says_what_it_leaves() {
    let opts = |mode| QuantizeOptions {
        mode,
        io: IoType::Float,
        per_tensor: false,
        float_ops: Vec::new(),
        int16_ops: Vec::new(),
    };
    for e in manifest() {
        let (_, m) = model(&e.name);
        let multi = m.subgraphs.len() > 1;
        // Dynamic range needs no calibration.
        match quantize(&m, &Ranges::new(), &opts(Mode::Dynamic)) {
            Ok((q, rep)) => {
                assert!(!multi, "{}", e.name);
                let bytes = tflite::write(&q).expect("write");
                tflite::read(&bytes).expect("re-read");
                if e.name == "custom_op" {
                    let kept = (0..q.subgraphs[0].operators.len())
                        .any(|i| op_label(&q, 0, i) == "CUSTOM(ZpTestCustom)");
                    assert!(kept, "custom op kept");
                }
                if e.name == "sparse_fc" {
                    assert!(
                        rep.warnings.iter().any(|w| w.contains("DENSIFY")),
                        "{rep:?}"
                    );
                }
            }
            Err(err) => {
                assert!(multi, "{}: {err}", e.name);
                assert!(err.to_string().contains("subgraphs"), "{}: {err}", e.name);
            }
        }
        // Full integer with our calibration, where our engine can calibrate.
        let Ok(mut cal) = Calibrator::new(&m) else {
            continue;
        };
        cal.set_input(0, &input(&e.name)).expect("input");
        cal.add_sample().expect("sample");
        let stats = cal.stats(Method::MinMax).expect("stats");
        let ranges = Ranges::from_calibration(&m, &stats).expect("ranges");
        let (q, _) = quantize(&m, &ranges, &opts(Mode::Int8))
            .unwrap_or_else(|err| panic!("{}: int8: {err}", e.name));
        let bytes = tflite::write(&q).expect("write");
        let q = tflite::read(&bytes).expect("re-read");
        let mut it = Interpreter::new(&q).unwrap_or_else(|err| panic!("{}: {err}", e.name));
        it.set_input_f32(0, &input(&e.name)).expect("input");
        it.invoke();
        assert!(
            !(0..q.subgraphs[0].operators.len()).any(|i| op_label(&q, 0, i) == "DENSIFY"),
            "{}: DENSIFY folded",
            e.name
        );
        if e.name == "dynamic_batch" {
            // As TF: the batch stays dynamic and SHAPE reads the int8 tensor (no DEQUANTIZE),
            // its INT32 output and the shape arithmetic stay integer and unquantized.
            let sg = &q.subgraphs[0];
            let x = &sg.tensors[sg.inputs[0] as usize];
            assert_eq!(
                x.shape_signature.as_deref().and_then(|s| s.first()),
                Some(&-1)
            );
            let labels: Vec<String> = (0..sg.operators.len())
                .map(|i| op_label(&q, 0, i))
                .collect();
            assert_eq!(
                labels.iter().filter(|l| *l == "DEQUANTIZE").count(),
                1,
                "only the float output's DEQUANTIZE: {labels:?}"
            );
            let shape_op = labels
                .iter()
                .position(|l| l == "SHAPE")
                .expect("SHAPE kept");
            let read = sg.operators[shape_op].inputs[0] as usize;
            assert_eq!(sg.tensors[read].dtype, TensorType::INT8, "{labels:?}");
        }
        // Metadata (labels, model cards) survives quantization.
        let names = |m: &Model| -> Vec<Option<String>> {
            m.metadata.iter().map(|x| x.name.clone()).collect()
        };
        for n in names(&m) {
            assert!(names(&q).contains(&n), "{}: metadata {n:?} dropped", e.name);
        }
    }
}
