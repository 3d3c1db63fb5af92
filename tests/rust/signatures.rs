//! Signatures (tests/realworld/signatures, made by tests/tools/realworld/signatures.py): a
//! tf.Module with `encode`, `decode` and `score` sharing one weight, converted by TF 2.21 with
//! `from_saved_model(signature_keys=…)` into one subgraph per signature (not in key order).
//!
//! Run by signature ([`Interpreter::for_signature`]), inputs and outputs named and ordered as
//! LiteRT's `get_signature_runner` has them, every output equals LiteRT 2.3 BUILTIN_REF's bit
//! for bit, for the float model and TF's dynamic-range one, with both kernel sets; our
//! dynamic-range and float16 quantization keep every signature, and ours in dynamic range runs
//! each signature with TF's outputs; full integer with each signature's ranges (our calibration,
//! our statistics file, or TF's calibrated-only model) gives TF's int8 model tensor for tensor;
//! unknown and broken signatures are typed errors.

use std::path::{Path, PathBuf};

use zeropoint::Error;
use zeropoint::engine::compare::compare_signature;
use zeropoint::engine::signatures::{self, refuse_full_integer, resolve};
use zeropoint::engine::{Interpreter, Limits};
use zeropoint::graph::Model;
use zeropoint::kernels::{Arithmetic, KernelSet};
use zeropoint::quant::calibrate::{
    CalibrationStats, Calibrator, Method, SignatureStats, StatsFile, parse_stats_file,
};
use zeropoint::quant::{
    IoType, Mode, QuantizeOptions, Ranges, assemble_signatures, quantize, quantize_signatures,
    signature_model, signature_ranges,
};
use zeropoint::tflite;
use zeropoint_tests::{NpyData, load_npy};

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("realworld")
        .join("signatures")
}

fn read(file: &str) -> Model {
    let bytes = std::fs::read(dir().join(file)).expect("model file");
    tflite::read(&bytes).expect("reads")
}

/// What LiteRT's get_signature_list said: (key, subgraph, input names, output names).
fn litert_signatures() -> Vec<(String, usize, Vec<String>, Vec<String>)> {
    let text = std::fs::read_to_string(dir().join("signatures.json")).expect("signatures.json");
    let v: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    let names = |x: &serde_json::Value| -> Vec<String> {
        x.as_array()
            .expect("names")
            .iter()
            .map(|n| n.as_str().expect("name").to_string())
            .collect()
    };
    v["signatures"]
        .as_array()
        .expect("signatures")
        .iter()
        .map(|s| {
            (
                s["key"].as_str().expect("key").to_string(),
                s["subgraph"].as_u64().expect("subgraph") as usize,
                names(&s["inputs"]),
                names(&s["outputs"]),
            )
        })
        .collect()
}

/// Runs every signature of `m` and compares each output with `sig_<key>_<outs>_<name>.npy`
/// byte for byte; returns how many output elements were compared.
fn run_every_signature(m: &Model, outs: &str, kernels: KernelSet) -> usize {
    let mut compared = 0;
    let all = litert_signatures();
    assert_eq!(all.len(), 3, "signatures.json");
    for (key, subgraph, ins, outputs) in all {
        let sig = resolve(m, &key).unwrap_or_else(|e| panic!("{key}: {e}"));
        assert_eq!(sig.subgraph, subgraph, "{key}");
        let mut it = Interpreter::for_signature(m, &key, &Limits::default(), kernels)
            .unwrap_or_else(|e| panic!("{key}: {e}"));
        let names = |d: &[zeropoint::engine::TensorDesc]| -> Vec<String> {
            d.iter().map(|d| d.name.clone()).collect()
        };
        assert_eq!(names(it.inputs()), ins, "{key}: inputs in LiteRT's order");
        assert_eq!(
            names(it.outputs()),
            outputs,
            "{key}: outputs in LiteRT's order"
        );
        for (i, name) in ins.iter().enumerate() {
            let x = load_npy(&dir().join(format!("sig_{key}_in_{name}.npy")));
            assert_eq!(x.shape, it.inputs()[i].shape, "{key} input {name}");
            it.set_input(i, &x.data.le_bytes(0..x.data.len()))
                .unwrap_or_else(|e| panic!("{key}: {e}"));
        }
        it.invoke().unwrap_or_else(|e| panic!("{key}: {e}"));
        for (k, name) in outputs.iter().enumerate() {
            let y = load_npy(&dir().join(format!("sig_{key}_{outs}_{name}.npy")));
            let got = it.output(k).expect("output");
            assert_eq!(got.shape, &y.shape[..], "{key} output {name}");
            assert_eq!(
                got.bytes,
                &y.data.le_bytes(0..y.data.len())[..],
                "{key} output {name} ({outs}, {kernels:?}): not LiteRT's bits"
            );
            compared += y.data.len();
        }
    }
    compared
}

#[test]
fn every_signature_runs_with_litert_bits() {
    let m = read("model.tflite");
    assert_eq!(signatures::keys(&m), ["decode", "encode", "score"]);
    for kernels in [KernelSet::Reference, KernelSet::default()] {
        // encode 48 + decode 32 + score 2 + 96.
        assert_eq!(run_every_signature(&m, "out", kernels), 178);
        let tf = read("model_dynamic.tflite");
        assert_eq!(run_every_signature(&tf, "dynamic_out", kernels), 178);
    }
}

#[test]
fn dynamic_range_and_float16_keep_every_signature() {
    let m = read("model.tflite");
    for mode in [Mode::Dynamic, Mode::Float16] {
        let (q, _) = quantize(&m, &Ranges::new(), &options(mode, false)).expect("quantizes");
        let q = tflite::read(&tflite::write(&q).expect("write")).expect("re-read");
        assert_eq!(q.signatures, m.signatures, "{mode:?}");
        for key in signatures::keys(&m) {
            Interpreter::for_signature(&q, &key, &Limits::default(), KernelSet::Reference)
                .unwrap_or_else(|e| panic!("{mode:?} {key}: {e}"));
        }
        if mode == Mode::Dynamic {
            // The shared weight is int8 as in TF's model, and every FULLY_CONNECTED reading it
            // quantizes its input asymmetrically as TF's do (`score` has two): every signature
            // gives the bits of TF's dynamic-range model.
            assert_eq!(
                run_every_signature(&q, "dynamic_out", KernelSet::Reference),
                178
            );
        }
    }
    let err = refuse_full_integer(&m).expect_err("three signatures");
    let text = err.to_string();
    assert!(matches!(err, Error::Quantization { .. }), "{text}");
    assert!(
        text.contains("3 signatures ('decode', 'encode', 'score')"),
        "{text}"
    );
}

#[test]
fn float_and_tfs_dynamic_model_compare_by_signature() {
    let (f, q) = (read("model.tflite"), read("model_dynamic.tflite"));
    let load = |name: &str| {
        let a = load_npy(&dir().join(format!("sig_score_in_{name}.npy")));
        match a.data {
            zeropoint_tests::NpyData::F32(v) => v,
            _ => panic!("float input"),
        }
    };
    let sample = vec![load("candidate"), load("query")];
    let rows = compare_signature(
        &f,
        &q,
        "score",
        &[sample],
        &Limits::default(),
        Arithmetic::Reference,
    )
    .expect("compares");
    // Every tensor of subgraph 2 both models name alike, in TF's dynamic model's order; the
    // hybrid FULLY_CONNECTEDs make the outputs differ a little from the float ones.
    let sim = rows
        .iter()
        .find(|r| r.name == "PartitionedCall_2:1")
        .expect("the similarity output");
    assert!(sim.sqnr_db.is_finite() && sim.sqnr_db > 20.0, "{rows:?}");
    let err = compare_signature(
        &f,
        &q,
        "serve",
        &[],
        &Limits::default(),
        Arithmetic::Reference,
    )
    .expect_err("unknown");
    assert!(matches!(err, Error::UnknownSignature { .. }), "{err}");
}

#[test]
fn unknown_and_broken_signatures_are_typed_errors() {
    let m = read("model.tflite");
    let err = Interpreter::for_signature(&m, "serve", &Limits::default(), KernelSet::Reference)
        .err()
        .expect("no such key");
    assert!(matches!(err, Error::UnknownSignature { .. }), "{err}");
    assert_eq!(
        err.to_string(),
        "no signature 'serve': the model has signatures 'decode', 'encode', 'score'"
    );
    let broken = |edit: &dyn Fn(&mut Model), want: &str| {
        let mut b = m.clone();
        edit(&mut b);
        let err = resolve(&b, "score").expect_err(want);
        assert!(matches!(err, Error::Signature { .. }), "{err}");
        assert!(err.to_string().contains(want), "{err}");
        // Listing still works, and names the broken one.
        let listed = signatures::list(&b);
        assert_eq!(listed.len(), 3);
        assert!(listed[0].is_ok() && listed[1].is_ok() && listed[2].is_err());
    };
    broken(
        &|b| b.signatures[2].subgraph = 9,
        "signature 'score': it runs subgraph 9, but the model has 3 subgraph(s)",
    );
    broken(
        &|b| b.signatures[2].inputs[0].tensor = 999,
        "input 'candidate' is tensor 999, but subgraph 2 has",
    );
    broken(
        &|b| b.signatures[2].outputs[1].tensor = b.signatures[2].inputs[0].tensor,
        "output 'similarity' is tensor",
    );
    broken(
        &|b| {
            b.signatures[2].inputs.pop();
        },
        "has no name in the signature",
    );
    broken(
        &|b| b.signatures[2].inputs[1].tensor = b.signatures[2].inputs[0].tensor,
        "is named twice",
    );
    let mut none = m.clone();
    none.signatures.clear();
    assert_eq!(
        resolve(&none, "encode").expect_err("none").to_string(),
        "no signature 'encode': the model has no signatures"
    );
    // A single signature is not refused.
    none.signatures.push(m.signatures[0].clone());
    refuse_full_integer(&none).expect("one signature");
}

/// Calibrates each signature on its own samples (`sig_KEY_calib_NAME.npy`, as TF's representative
/// dataset of `(key, inputs)` tuples feeds them) and returns `(key, ranges)` for
/// [`quantize_signatures`].
fn per_signature_ranges(m: &Model) -> Vec<(String, Ranges)> {
    per_signature_stats(m)
        .into_iter()
        .map(|(key, stats)| {
            let part = signature_model(m, &key).expect("part");
            let r = Ranges::from_calibration(&part, &stats).expect("ranges");
            (key, r)
        })
        .collect()
}

/// Each signature's min/max statistics on its own samples (see [`per_signature_ranges`]).
fn per_signature_stats(m: &Model) -> Vec<(String, CalibrationStats)> {
    litert_signatures()
        .into_iter()
        .map(|(key, _, ins, _)| {
            let part = signature_model(m, &key).unwrap_or_else(|e| panic!("{key}: {e}"));
            let sig = resolve(&part, &key).expect("the part keeps its signature");
            let mut cal = Calibrator::new(&part).unwrap_or_else(|e| panic!("{key}: {e}"));
            let calib: Vec<_> = ins
                .iter()
                .map(|name| {
                    let a = load_npy(&dir().join(format!("sig_{key}_calib_{name}.npy")));
                    match a.data {
                        NpyData::F32(v) => (a.shape[0], v),
                        _ => panic!("{key} {name}: float samples"),
                    }
                })
                .collect();
            let samples = calib[0].0;
            assert_eq!(samples, 8, "{key}");
            for k in 0..samples {
                for (name, (n, v)) in ins.iter().zip(&calib) {
                    let per = v.len() / n;
                    let slot = sig.inputs.iter().find(|t| &t.name == name).expect("input");
                    cal.set_input(slot.position, &v[k * per..(k + 1) * per])
                        .unwrap_or_else(|e| panic!("{key} {name}: {e}"));
                }
                cal.add_sample().unwrap_or_else(|e| panic!("{key}: {e}"));
            }
            (key, cal.stats(Method::MinMax).expect("stats"))
        })
        .collect()
}

/// A signature's key, subgraph, and (name, tensor name) of each input and output.
type NamedSignature = (String, usize, Vec<(String, String)>);

/// The float outputs of signature `key` of `m` (reference kernels) on `sig_KEY_in_*.npy`.
fn run_signature(m: &Model, key: &str, ins: &[String]) -> Vec<Vec<f32>> {
    let mut it = Interpreter::for_signature(m, key, &Limits::default(), KernelSet::Reference)
        .unwrap_or_else(|e| panic!("{key}: {e}"));
    for (i, name) in ins.iter().enumerate() {
        let x = load_npy(&dir().join(format!("sig_{key}_in_{name}.npy")));
        it.set_input(i, &x.data.le_bytes(0..x.data.len()))
            .unwrap_or_else(|e| panic!("{key}: {e}"));
    }
    it.invoke().unwrap_or_else(|e| panic!("{key}: {e}"));
    (0..it.outputs().len())
        .map(|k| {
            let y = it.output(k).expect("output");
            y.bytes
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect()
        })
        .collect()
}

/// The quantization of each tensor: dtype, scales, zero points and (for constants, with `data`)
/// the bytes.
fn tensor_facts(m: &Model, s: usize, t: usize, data: bool) -> String {
    let x = &m.subgraphs[s].tensors[t];
    let q = x.quantization.as_ref();
    let data = m.tensor_data(s, t).filter(|_| data).map(<[u8]>::to_vec);
    format!(
        "{:?} scales {:?} zero points {:?} data {:?}",
        x.dtype,
        q.and_then(|q| q.scale.clone()),
        q.and_then(|q| q.zero_point.clone()),
        data
    )
}

/// Asserts that `q` is TF's quantized model `tf`: the signature defs (keys, subgraphs, and each
/// name on the tensor of TF's name; the tensor indices are each writer's own), operator for
/// operator, and every tensor of TF's model (matched by name within its subgraph) with TF's type,
/// scales, zero points and constant bytes (`bad_data`: `(subgraph, name)` whose bytes are not
/// compared). Returns how many tensors were compared.
fn same_as_tf(q: &Model, tf: &Model, bad_data: &[(usize, &str)]) -> usize {
    let named = |m: &Model| -> Vec<NamedSignature> {
        signatures::list(m)
            .into_iter()
            .map(|s| {
                let s = s.expect("a valid signature");
                let ends = s.inputs.iter().chain(&s.outputs);
                let pairs = ends.map(|t| (t.name.clone(), t.tensor_name.clone()));
                (s.key, s.subgraph, pairs.collect())
            })
            .collect()
    };
    assert_eq!(named(q), named(tf), "signature defs as TF's");
    let mut compared = 0;
    for (s, (ours, theirs)) in q.subgraphs.iter().zip(&tf.subgraphs).enumerate() {
        let names = |sg: &zeropoint::graph::Subgraph| -> Vec<String> {
            sg.operators.iter().map(|op| op.code.name()).collect()
        };
        assert_eq!(names(ours), names(theirs), "subgraph {s} operators");
        for (t, x) in theirs.tensors.iter().enumerate() {
            let mine = ours
                .tensors
                .iter()
                .position(|y| y.name == x.name)
                .unwrap_or_else(|| panic!("subgraph {s}: no tensor '{}' in ours", x.name));
            let data = !bad_data.contains(&(s, x.name.as_str()));
            assert_eq!(
                tensor_facts(q, s, mine, data),
                tensor_facts(tf, s, t, data),
                "subgraph {s} tensor '{}'",
                x.name
            );
            compared += 1;
        }
    }
    compared
}

/// Options of the tests' quantizations: `mode` with float I/O (TF's models have it), per
/// channel unless `per_tensor`.
fn options(mode: Mode, per_tensor: bool) -> QuantizeOptions {
    QuantizeOptions {
        mode,
        io: IoType::Float,
        per_tensor,
        float_ops: Vec::new(),
        int16_ops: Vec::new(),
        constants: Vec::new(),
    }
}

/// What the int8 tests start from: the float model, TF's int8 model of it (calibrated per
/// signature), and the options that give TF's model.
fn int8_case() -> (Model, Model, QuantizeOptions) {
    (
        read("model.tflite"),
        read("model_int8.tflite"),
        options(Mode::Int8, false),
    )
}

#[test]
fn int8_quantizes_every_signature_with_its_own_ranges_as_tf() {
    let (m, tf, opts) = int8_case();
    let ranges = per_signature_ranges(&m);
    let (q, _) = quantize_signatures(&m, &ranges, &opts).expect("quantizes");
    let q = tflite::read(&tflite::write(&q).expect("write")).expect("re-read");
    assert_eq!(
        same_as_tf(&q, &tf, &[]),
        28,
        "tensors of TF's three subgraphs"
    );
    // And so each signature runs as TF's int8 model: ours and TF's give the same bits on our
    // engine, LiteRT's BUILTIN_REF bits where the generator ran BUILTIN_REF, and within 1 ulp of
    // LiteRT's optimized kernels for `score` (BUILTIN_REF's int8 SUM is wrong; the optimized
    // DEQUANTIZE multiplies in float where the reference one uses double).
    let table: serde_json::Value = serde_json::from_slice(
        &std::fs::read(dir().join("signatures.json")).expect("signatures.json"),
    )
    .expect("JSON");
    let mut elements = 0;
    for (key, _, ins, outs) in litert_signatures() {
        let ours = run_signature(&q, &key, &ins);
        assert_eq!(ours, run_signature(&tf, &key, &ins), "{key}: ours vs TF's");
        let resolver = table["signatures"]
            .as_array()
            .expect("signatures")
            .iter()
            .find(|s| s["key"] == key.as_str())
            .and_then(|s| s["tf_int8_resolver"].as_str())
            .expect("resolver")
            .to_string();
        for (name, got) in outs.iter().zip(&ours) {
            let want = match load_npy(&dir().join(format!("sig_{key}_int8_out_{name}.npy"))).data {
                NpyData::F32(v) => v,
                _ => panic!("float output"),
            };
            assert_eq!(got.len(), want.len(), "{key} {name}");
            for (g, w) in got.iter().zip(&want) {
                let ulps = (g.to_bits() as i64 - w.to_bits() as i64).abs();
                let allowed = if resolver == "BUILTIN_REF" { 0 } else { 1 };
                assert!(
                    ulps <= allowed,
                    "{key} {name}: {g} vs LiteRT {w} ({resolver})"
                );
            }
            elements += want.len();
        }
    }
    assert_eq!(elements, 178);
    // Ranges of one signature only are not enough; a subgraph no signature runs, and an unknown
    // key, are typed errors too.
    let err = quantize_signatures(&m, &ranges[..1], &opts).expect_err("two missing");
    assert!(matches!(err, Error::Quantization { .. }), "{err}");
    assert!(
        err.to_string()
            .contains("signature 'decode' has no calibration ranges"),
        "{err}"
    );
    let mut two = m.clone();
    two.signatures.pop();
    let err = quantize_signatures(&two, &ranges, &opts).expect_err("subgraph 2 unrun");
    assert!(
        err.to_string().contains("no signature runs subgraph 2"),
        "{err}"
    );
    let keep = QuantizeOptions {
        float_ops: vec!["0".into()],
        ..opts.clone()
    };
    let err = quantize_signatures(&m, &ranges, &keep).expect_err("--float-ops");
    assert!(err.to_string().contains("--float-ops"), "{err}");
    let err = signature_model(&m, "serve").expect_err("unknown");
    assert!(matches!(err, Error::UnknownSignature { .. }), "{err}");
}

#[test]
fn per_signature_statistics_file_gives_tfs_int8_model() {
    // The statistics `zeropoint calibrate --signature-data` writes, read back from their JSON,
    // give the ranges of calibrating directly, and so TF's int8 model.
    let (m, tf, opts) = int8_case();
    let file = SignatureStats::new(per_signature_stats(&m));
    let text = serde_json::to_vec(&file).expect("JSON");
    let StatsFile::Signatures(back) = parse_stats_file(&text).expect("reads") else {
        panic!("per-signature statistics read as one model's");
    };
    assert_eq!(back, file);
    let ranges = signature_ranges(&m, &back).expect("ranges");
    let (q, _) = quantize_signatures(&m, &ranges, &opts).expect("quantizes");
    let (direct, _) = quantize_signatures(&m, &per_signature_ranges(&m), &opts).expect("quantizes");
    let bytes = tflite::write(&q).expect("write");
    assert_eq!(
        bytes,
        tflite::write(&direct).expect("write"),
        "file vs direct"
    );
    let q = tflite::read(&bytes).expect("re-read");
    assert_eq!(
        same_as_tf(&q, &tf, &[]),
        28,
        "tensors of TF's three subgraphs"
    );
    // A key the model lacks, and one signature's statistics under another's key, are refused
    // naming the signature.
    let mut unknown = file.clone();
    unknown.signatures[0].key = "serve".into();
    let err = signature_ranges(&m, &unknown).expect_err("unknown key");
    assert!(matches!(err, Error::UnknownSignature { .. }), "{err}");
    let mut swapped = file.clone();
    swapped.signatures[0].stats = file.signatures[1].stats.clone();
    let err = signature_ranges(&m, &swapped).expect_err("another signature's statistics");
    assert!(matches!(err, Error::Quantization { .. }), "{err}");
    let want = format!(
        "signature '{}': statistics of tensor 0 '{}'",
        file.signatures[0].key, file.signatures[1].stats.tensors[0].name
    );
    assert!(err.to_string().contains(&want), "{err}");
}

#[test]
fn tfs_calibrated_model_gives_tfs_int8_model() {
    // TF's calibrated-only model (`model_calibrated.tflite`: its calibrator run on each
    // signature's samples) keeps one subgraph per signature, each carrying the min/max of its
    // signature's samples: each signature's ranges from its own subgraph give TF's int8 model,
    // as `zeropoint quantize --stats model_calibrated.tflite` takes them.
    let (m, tf, opts) = int8_case();
    let cal = read("model_calibrated.tflite");
    assert_eq!(signatures::keys(&cal), signatures::keys(&m));
    let ranges: Vec<(String, Ranges)> = signatures::keys(&m)
        .into_iter()
        .map(|key| {
            let part = signature_model(&m, &key).expect("part");
            let recorded = signature_model(&cal, &key).expect("calibrated part");
            let r = Ranges::from_calibrated_model(&part, &recorded).expect("ranges");
            (key, r)
        })
        .collect();
    let (q, _) = quantize_signatures(&m, &ranges, &opts).expect("quantizes");
    let q = tflite::read(&tflite::write(&q).expect("write")).expect("re-read");
    assert_eq!(
        same_as_tf(&q, &tf, &[]),
        28,
        "tensors of TF's three subgraphs"
    );
    // The ranges of one signature's subgraph are not another's: subgraph 0's for every
    // signature (what reading only the first subgraph would give) is not TF's model.
    let first = &ranges[0].1;
    let wrong: Vec<_> = ranges
        .iter()
        .map(|(key, _)| (key.clone(), first.clone()))
        .collect();
    let other = quantize_signatures(&m, &wrong, &opts);
    assert!(
        other.is_err() || other.is_ok_and(|(w, _)| w != q),
        "another signature's ranges"
    );
}

#[test]
fn assembled_signatures_keep_a_shared_constant_one_part_changed() {
    // The parts `quantize --auto` assembles may change a constant the signatures share (an
    // equalized weight, a corrected bias); here `encode` has per-tensor weights and the others
    // per-channel ones, so the weight `encode` and `score` share is quantized two ways. Each
    // signature of the assembled model must still compute exactly what its part computes alone.
    let m = read("model.tflite");
    let opts = |per_tensor| options(Mode::Int8, per_tensor);
    let ranges = per_signature_ranges(&m);
    let parts: Vec<_> = ranges
        .iter()
        .map(|(key, r)| {
            let part = signature_model(&m, key).expect("part");
            let (q, rep) = quantize(&part, r, &opts(key == "encode")).expect("quantizes");
            (key.clone(), q, rep)
        })
        .collect();
    let (q, _) = assemble_signatures(&m, parts.clone()).expect("assembles");
    let q = tflite::read(&tflite::write(&q).expect("write")).expect("re-read");
    let (same, _) = quantize_signatures(&m, &ranges, &opts(false)).expect("quantizes");
    assert!(
        q.buffers.len() > same.buffers.len(),
        "the shared weight is stored twice ({} vs {} buffers)",
        q.buffers.len(),
        same.buffers.len()
    );
    let mut differs = false;
    for (key, _, ins, _) in litert_signatures() {
        let part = &parts.iter().find(|(k, ..)| *k == key).expect("part").1;
        let got = run_signature(&q, &key, &ins);
        assert_eq!(got, run_signature(part, &key, &ins), "{key}: as its part");
        differs |= got != run_signature(&same, &key, &ins);
    }
    assert!(
        differs,
        "per-tensor encode computes otherwise than per-channel"
    );
    // A signature without a part, and a part of a signature the model lacks, are refused.
    let err = assemble_signatures(&m, parts[1..].to_vec()).expect_err("one missing");
    assert!(err.to_string().contains("was not quantized"), "{err}");
    let mut renamed = parts.clone();
    renamed[0].0 = "serve".into();
    let err = assemble_signatures(&m, renamed).expect_err("unknown");
    assert!(matches!(err, Error::UnknownSignature { .. }), "{err}");
}

#[test]
fn int16x8_quantizes_every_signature_as_tf_except_tfs_corrupt_shared_weight() {
    let m = read("model.tflite");
    let tf = read("model_16x8.tflite");
    let opts = options(Mode::Int16x8, false);
    let (q, _) = quantize_signatures(&m, &per_signature_ranges(&m), &opts).expect("quantizes");
    let q = tflite::read(&tflite::write(&q).expect("write")).expect("re-read");
    // TF 2.21's 16x8 model carries the weight `encode` and `score` share, and their int64
    // biases, corrupted in those subgraphs (mostly zeros; its output SQNR there is about 4 dB,
    // measured with LiteRT, against 46-49 dB for ours): their bytes are left out here.
    let corrupt = [
        (1, "MatMul1"),
        (1, "add"),
        (2, "arith.constant"),
        (2, "arith.constant1"),
    ];
    assert_eq!(
        same_as_tf(&q, &tf, &corrupt),
        27,
        "tensors of TF's three subgraphs"
    );
    for &(s, name) in &corrupt {
        let (ours, theirs) = (
            q.subgraphs[s].tensors.iter().position(|t| t.name == name),
            tf.subgraphs[s].tensors.iter().position(|t| t.name == name),
        );
        let (ours, theirs) = (ours.expect("ours"), theirs.expect("TF's"));
        assert_ne!(
            q.tensor_data(s, ours),
            tf.tensor_data(s, theirs),
            "TF's {name} is no longer corrupt: compare its bytes"
        );
    }
    // The shared weight is int8 per channel with the same scales in both modes: ours equals the
    // weight in TF's int8 model, which TF wrote intact.
    let int8 = read("model_int8.tflite");
    for (s, name) in [(1, "MatMul1"), (2, "arith.constant")] {
        let find = |m: &Model| {
            let t = m.subgraphs[s].tensors.iter().position(|t| t.name == name);
            m.tensor_data(s, t.expect(name)).map(<[u8]>::to_vec)
        };
        assert_eq!(find(&q), find(&int8), "subgraph {s} {name}");
    }
}
