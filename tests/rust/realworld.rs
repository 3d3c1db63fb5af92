//! Models as other tools write them (tests/realworld/, made by tests/tools/make_realworld.py
//! with TF 2.21's converter and flatbuffer utilities): only `deprecated_builtin_code` filled,
//! sparse weights behind DENSIFY, a custom op, resource variables, IF/WHILE subgraphs, no
//! signature, several signatures (each run by key in `signatures.rs`), heavy metadata, dynamic
//! batch (also run at batch 3 with LiteRT's outputs), the custom `TFLite_Detection_PostProcess`
//! alone and at the end of a tiny SSD (`realworld/detection.rs`), INT4 weights
//! (`realworld/int4.rs`).
//!
//! For each: the reader sees the operators TF's tools list (manifest.json), the writer is
//! lossless (read → write → read gives the same model; `check_roundtrip.py` in `npm test` runs
//! LiteRT on the rewritten files), the engine either gives LiteRT's outputs bit for bit or a
//! typed error naming the operators it cannot run, and the quantizer either works or says
//! what it leaves alone.

use std::path::{Path, PathBuf};

use zeropoint::Error;
use zeropoint::engine::{Interpreter, Limits};
use zeropoint::graph::{Model, ShapeOverrides, TensorType};
use zeropoint::kernels::KernelSet;
use zeropoint::quant::calibrate::{Calibrator, Method};
use zeropoint::quant::{IoType, Mode, QuantizeOptions, Ranges, quantize};
use zeropoint::tflite;
use zeropoint_tests::{NpyData, load_npy};

#[path = "realworld/detection.rs"]
mod detection;
#[path = "realworld/int4.rs"]
mod int4;
#[path = "realworld/lstm.rs"]
mod lstm;
#[path = "realworld/lstm_quant.rs"]
mod lstm_quant;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("realworld")
}

struct Entry {
    name: String,
    ops: Vec<Vec<String>>,
    litert_runs: bool,
    /// Samples stacked in input_0.npy / expected_output_0.npy (the recurrent models), `None`
    /// for one unstacked sample.
    samples: Option<usize>,
    /// Consecutive frames stacked in input_0.npy (the streaming models, tests/rust/streaming.rs),
    /// `None` otherwise.
    frames: Option<usize>,
    /// The options of a `TFLite_Detection_PostProcess` op case (`detpp_*`: two inputs, four
    /// outputs, tested by `detection_postprocess_matches_litert`), `None` otherwise.
    detection: Option<serde_json::Value>,
    /// The INT4-weight variants (`int4_weights`, tests/rust/realworld/int4.rs), `None` otherwise.
    int4: Option<serde_json::Value>,
}

impl Entry {
    /// A model of one float input whose output 0 LiteRT computed (the generic tests' kind).
    fn generic(&self) -> bool {
        self.samples.is_none()
            && self.detection.is_none()
            && self.frames.is_none()
            && self.int4.is_none()
    }
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
            samples: m["samples"].as_u64().map(|n| n as usize),
            frames: m["frames"].as_u64().map(|n| n as usize),
            detection: m.get("detection_options").cloned(),
            int4: m.get("int4_variants").cloned(),
        })
        .collect();
    assert!(out.len() >= 7, "the manifest lists {} models", out.len());
    out
}

fn model(name: &str) -> (Vec<u8>, Model) {
    model_file(name, "model.tflite")
}

fn model_file(name: &str, file: &str) -> (Vec<u8>, Model) {
    let bytes = std::fs::read(root().join(name).join(file)).expect("model file");
    let m = tflite::read(&bytes).unwrap_or_else(|e| panic!("{name}/{file}: {e}"));
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
    let cannot: &[(&str, &[&str])] = &[("custom_op", &["ZpTestCustom"])];
    let mut ran = 0;
    for e in manifest().into_iter().filter(Entry::generic) {
        let (_, m) = model(&e.name);
        match Interpreter::new(&m) {
            Ok(mut it) => {
                assert!(e.litert_runs, "{}: LiteRT cannot run it, we can?", e.name);
                it.set_input_f32(0, &input(&e.name)).expect("input");
                it.invoke().expect("the model runs");
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
        ran, 10,
        "deprecated_opcodes, sparse_fc, no_signature, metadata_heavy, dynamic_batch, \
         dynamic_shapes, softmax16x8_huge_beta, control_flow, ssd_detector, signatures (its \
         subgraph 0, `decode`) run"
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
        constants: Vec::new(),
    };
    for e in manifest().into_iter().filter(Entry::generic) {
        let (_, m) = model(&e.name);
        let multi = m.subgraphs.len() > 1;
        // Dynamic range needs no calibration, and quantizes every subgraph.
        match quantize(&m, &Ranges::new(), &opts(Mode::Dynamic)) {
            Ok((q, rep)) => {
                assert_eq!(q.subgraphs.len(), m.subgraphs.len(), "{}", e.name);
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
            Err(err) => panic!("{}: dynamic: {err}", e.name),
        }
        // Full integer with our calibration, where our engine can calibrate.
        let Ok(mut cal) = Calibrator::new(&m) else {
            continue;
        };
        cal.set_input(0, &input(&e.name)).expect("input");
        cal.add_sample().expect("sample");
        let stats = cal.stats(Method::MinMax).expect("stats");
        let ranges = Ranges::from_calibration(&m, &stats).expect("ranges");
        // WHILE / IF bodies are quantized (control_flow_quant.rs); several signatures are
        // quantized each with its own ranges by quantize_signatures (signatures.rs), and
        // quantize() with one set of ranges is a typed refusal saying so.
        let runs_bodies = (0..m.subgraphs.len()).any(|s| {
            (0..m.subgraphs[s].operators.len())
                .any(|i| matches!(op_label(&m, s, i).as_str(), "WHILE" | "IF"))
        });
        if multi && !runs_bodies {
            let err = quantize(&m, &ranges, &opts(Mode::Int8)).expect_err("multi-subgraph");
            assert!(
                err.to_string()
                    .contains("signatures, each calibrated on its own samples"),
                "{}: {err}",
                e.name
            );
            continue;
        }
        let (q, _) = quantize(&m, &ranges, &opts(Mode::Int8))
            .unwrap_or_else(|err| panic!("{}: int8: {err}", e.name));
        let bytes = tflite::write(&q).expect("write");
        let q = tflite::read(&bytes).expect("re-read");
        let mut it = Interpreter::new(&q).unwrap_or_else(|err| panic!("{}: {err}", e.name));
        it.set_input_f32(0, &input(&e.name)).expect("input");
        it.invoke().expect("the model runs");
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

/// The element bytes of an .npy file (float32 or int32) and its element count.
fn npy_bytes(path: &Path) -> (Vec<u8>, usize) {
    match load_npy(path).data {
        NpyData::F32(v) => (v.iter().flat_map(|x| x.to_le_bytes()).collect(), v.len()),
        NpyData::I32(v) => (v.iter().flat_map(|x| x.to_le_bytes()).collect(), v.len()),
        NpyData::I8(v) => (v.iter().map(|&x| x as u8).collect(), v.len()),
        _ => panic!("{}: expected float32, int32 or int8", path.display()),
    }
}

/// Keras 3 recurrent models exported with `from_keras_model` (`unroll=False`: the LSTM / GRU is a
/// WHILE over cond and body subgraphs; the bidirectional LSTM two WHILEs), and TF's dynamic-range
/// conversion of each (int8 weights and hybrid FULLY_CONNECTED inside the LSTM and GRU bodies):
/// every sample's output is LiteRT's BUILTIN_REF output bit for bit, with the reference and the
/// fast kernels. TF's
/// full-integer converter crashes on these models (the manifest records it), so there is no TF
/// int8 model to compare with; calibration runs through the loops and records the tensors of
/// every subgraph, and the quantizer quantizes the bodies (`control_flow_quant.rs`).
#[test]
fn recurrent_models_match_litert_on_every_sample() {
    let text = std::fs::read_to_string(root().join("manifest.json")).expect("manifest.json");
    let v: serde_json::Value = serde_json::from_str(&text).expect("manifest is JSON");
    let mut seen = Vec::new();
    for e in manifest() {
        let Some(samples) = e.samples else { continue };
        if e.name == lstm::NAME {
            continue; // the fused LSTM: realworld/lstm.rs
        }
        seen.push(e.name.clone());
        assert!(e.litert_runs, "{}", e.name);
        let int8 = &v["models"][&e.name]["tf_int8"];
        assert!(
            int8["converts"].is_boolean(),
            "{}: TF int8 outcome recorded",
            e.name
        );
        assert!(
            e.ops.iter().flatten().any(|o| o == "WHILE"),
            "{}: a WHILE",
            e.name
        );
        let dir = root().join(&e.name);
        let (x, _) = npy_bytes(&dir.join("input_0.npy"));
        for (file, expected) in [
            ("model.tflite", "expected_output_0.npy"),
            ("model_dynamic.tflite", "expected_dynamic_output_0.npy"),
        ] {
            let bytes = std::fs::read(dir.join(file)).expect("model file");
            let m = tflite::read(&bytes).unwrap_or_else(|err| panic!("{}: {err}", e.name));
            let (want, n_out) = npy_bytes(&dir.join(expected));
            let (x_len, y_len) = (x.len() / samples, want.len() / samples);
            assert_eq!(n_out % samples, 0, "{}", e.name);
            for kernels in [KernelSet::Reference, KernelSet::default()] {
                let mut it = Interpreter::with_options(&m, &Limits::default(), kernels)
                    .unwrap_or_else(|err| panic!("{} {file}: {err}", e.name));
                for s in 0..samples {
                    it.set_input(0, &x[s * x_len..(s + 1) * x_len])
                        .expect("input");
                    it.invoke().expect("the model runs");
                    let got = it.output(0).expect("output");
                    assert_eq!(
                        got.bytes,
                        &want[s * y_len..(s + 1) * y_len],
                        "{} {file} sample {s} ({kernels:?}): {:?}",
                        e.name,
                        got.as_f32()
                    );
                }
            }
        }
    }
    assert_eq!(seen, ["bilstm", "gru_kws", "lstm_classifier"]);
}

/// Calibration runs the recurrent models' loops: statistics for the tensors of every loop body
/// (recorded at every iteration) beside subgraph 0's, which the int8 quantizer takes.
#[test]
fn recurrent_models_calibrate_through_their_loops() {
    for e in manifest() {
        let Some(samples) = e.samples else { continue };
        if e.name == lstm::NAME {
            continue; // no loops: realworld/lstm.rs
        }
        let (_, m) = model(&e.name);
        let x: Vec<f32> = match load_npy(&root().join(&e.name).join("input_0.npy")).data {
            NpyData::F32(v) => v,
            NpyData::I32(v) => v.iter().map(|&t| t as f32).collect(),
            _ => panic!("{}: input type", e.name),
        };
        let n = x.len() / samples;
        let mut cal = Calibrator::new(&m).unwrap_or_else(|err| panic!("{}: {err}", e.name));
        for s in 0..samples {
            cal.set_input(0, &x[s * n..(s + 1) * n]).expect("input");
            cal.add_sample().expect("sample");
        }
        let stats = cal.stats(Method::MinMax).expect("stats");
        // Every body subgraph (the subgraphs whose ops include FULLY_CONNECTED) has statistics
        // for its float tensors, e.g. its cell's LOGISTIC outputs.
        for (sg, ops) in e.ops.iter().enumerate().skip(1) {
            if !ops.iter().any(|o| o == "FULLY_CONNECTED") {
                continue;
            }
            let logistic: Vec<usize> = m.subgraphs[sg]
                .operators
                .iter()
                .filter(|o| o.code.name() == "LOGISTIC")
                .map(|o| o.outputs[0] as usize)
                .collect();
            assert!(!logistic.is_empty(), "{} subgraph {sg}", e.name);
            for t in logistic {
                let st = stats
                    .nested
                    .iter()
                    .find(|x| x.subgraph == sg && x.index == t)
                    .unwrap_or_else(|| panic!("{}: subgraph {sg} tensor {t}", e.name));
                assert!(
                    0.0 < st.min && st.min <= st.max && st.max < 1.0,
                    "{}: a sigmoid's range {st:?}",
                    e.name
                );
            }
        }
        let ranges = Ranges::from_calibration(&m, &stats).expect("ranges");
        let opts = QuantizeOptions {
            mode: Mode::Int8,
            io: IoType::Float,
            per_tensor: false,
            float_ops: Vec::new(),
            int16_ops: Vec::new(),
            constants: Vec::new(),
        };
        // The ranges recorded inside the bodies reach the quantizer (control_flow_quant.rs
        // checks the quantized models).
        let (q, _) = quantize(&m, &ranges, &opts).unwrap_or_else(|err| panic!("{}: {err}", e.name));
        assert_eq!(q.subgraphs.len(), m.subgraphs.len(), "{}", e.name);
    }
}

/// Our dynamic-range quantization of the recurrent models equals TF's, tensor by tensor in every
/// subgraph (the int8 weights of the FULLY_CONNECTEDs inside the loop bodies, their scales, the
/// operators' versions and options), and runs with LiteRT's outputs on TF's model bit for bit.
#[test]
fn recurrent_dynamic_range_equals_tfs() {
    let opts = QuantizeOptions {
        mode: Mode::Dynamic,
        io: IoType::Float,
        per_tensor: false,
        float_ops: Vec::new(),
        int16_ops: Vec::new(),
        constants: Vec::new(),
    };
    let mut int8_weights = std::collections::HashSet::new();
    for e in manifest() {
        if e.samples.is_none() || e.name == lstm::NAME {
            continue; // (the fused LSTM: realworld/lstm.rs)
        }
        let (_, m) = model(&e.name);
        let (ours, _) = quantize(&m, &Ranges::new(), &opts)
            .unwrap_or_else(|err| panic!("{}: dynamic: {err}", e.name));
        let ours = tflite::read(&tflite::write(&ours).expect("write")).expect("re-read");
        let bytes = std::fs::read(root().join(&e.name).join("model_dynamic.tflite")).expect("TF's");
        let tf = tflite::read(&bytes).expect("TF's model reads");
        assert_eq!(ours.subgraphs.len(), tf.subgraphs.len(), "{}", e.name);
        for (s, (a, b)) in ours.subgraphs.iter().zip(&tf.subgraphs).enumerate() {
            // TF's converter numbers and names the tensors its own way: compared operator by
            // operator, input and output position by position.
            assert_eq!(
                a.operators.len(),
                b.operators.len(),
                "{} subgraph {s}",
                e.name
            );
            for (i, (x, y)) in a.operators.iter().zip(&b.operators).enumerate() {
                let at = format!("{} subgraph {s} operator {i} ({})", e.name, y.code.name());
                assert_eq!(x.code, y.code, "{at}");
                assert_eq!(x.options, y.options, "{at}");
                assert_eq!(x.inputs.len(), y.inputs.len(), "{at}");
                let pairs = x
                    .inputs
                    .iter()
                    .zip(&y.inputs)
                    .chain(x.outputs.iter().zip(&y.outputs));
                for (&p, &q) in pairs {
                    let (Ok(p), Ok(q)) = (usize::try_from(p), usize::try_from(q)) else {
                        assert_eq!(p, q, "{at}: an omitted input in one only");
                        continue;
                    };
                    let (tp, tq) = (&a.tensors[p], &b.tensors[q]);
                    let at = format!("{at} tensor '{}'", tq.name);
                    assert_eq!(tp.dtype, tq.dtype, "{at}");
                    assert_eq!(tp.quantization, tq.quantization, "{at}");
                    assert_eq!(ours.tensor_data(s, p), tf.tensor_data(s, q), "{at}");
                    if tq.dtype == TensorType::INT8 {
                        int8_weights.insert((e.name.clone(), s, q));
                    }
                }
            }
        }
    }
    // LSTM and GRU bodies: a kernel and a recurrent kernel each.
    assert_eq!(int8_weights.len(), 4, "{int8_weights:?}");
}

/// `dynamic_shapes` (TRANSPOSE_CONV output shape, RESHAPE, BROADCAST_TO and a 3-D Dense all
/// computed from SHAPE): float, TF's int8 and TF's 16x8 give LiteRT's BUILTIN_REF bits at batch
/// 1 and at batch 3, the engine prepared with [`ShapeOverrides`] (`--batch 3`), with the
/// reference and the fast kernels.
#[test]
fn dynamic_shapes_match_litert_at_batch_1_and_3() {
    let dir = root().join("dynamic_shapes");
    for variant in ["float", "int8", "16x8"] {
        let bytes = std::fs::read(dir.join(format!("model_{variant}.tflite"))).expect("model");
        let stored = tflite::read(&bytes).expect("reads");
        for batch in [1usize, 3] {
            let x = load_npy(&dir.join(format!("input_{variant}_b{batch}.npy")));
            let want = load_npy(&dir.join(format!("expected_{variant}_b{batch}.npy")));
            assert_eq!(x.shape[0], batch, "{variant}: the generator's input");
            let mut m = stored.clone();
            let overrides = ShapeOverrides {
                shapes: Vec::new(),
                batch: Some(batch),
            };
            overrides.apply(&mut m).expect("the batch is dynamic");
            for kernels in [KernelSet::Reference, KernelSet::Fast] {
                let mut it = Interpreter::with_options(&m, &Limits::default(), kernels)
                    .unwrap_or_else(|e| panic!("{variant} batch {batch}: {e}"));
                assert_eq!(it.inputs()[0].shape, x.shape, "{variant} batch {batch}");
                it.set_input(0, &x.data.le_bytes(0..x.len()))
                    .expect("input");
                it.invoke().expect("the model runs");
                let out = it.output(0).expect("output");
                assert_eq!(out.shape, want.shape.as_slice(), "{variant} batch {batch}");
                assert!(
                    out.bytes == want.data.le_bytes(0..want.len()),
                    "{variant} batch {batch} ({kernels:?}): not LiteRT's bits"
                );
            }
        }
    }
}

/// The strict rule at the engine's door: a fixed dim cannot change, and the error names the
/// input and the dim; the stored model (no overrides) still prepares at batch 1.
#[test]
fn dynamic_shapes_refuse_a_fixed_dim() {
    let (_, m) = model("dynamic_shapes");
    let name = m.subgraphs[0].tensors[m.subgraphs[0].inputs[0] as usize]
        .name
        .clone();
    let bad = ShapeOverrides {
        shapes: vec![("image".into(), vec![2, 7, 6, 4])],
        batch: None,
    };
    let mut changed = m.clone();
    match bad.apply(&mut changed) {
        Err(Error::InputShape { input, reason }) => {
            assert_eq!(input, name);
            assert!(reason.contains("dim 1 is fixed at 6"), "{reason}");
        }
        other => panic!("expected InputShape, got {other:?}"),
    }
    assert_eq!(changed, m, "a refused override leaves the model unchanged");
    let it = Interpreter::new(&m).expect("prepares");
    assert_eq!(it.inputs()[0].shape, [1, 6, 6, 4]);
    assert_eq!(it.outputs()[0].shape, [1, 144, 5]);
}

/// Our int8 (float I/O) and 16x8 quantization of the dynamic-batch models keeps the dynamic
/// graph as TF does: `shape_signature` −1 on the input's batch, shape arithmetic INT32 (never
/// quantized). The models are written to `target/quantized/realworld/<name>_<variant>.tflite`,
/// where `check_quantized.py` loads them in LiteRT, resizes them to batch 2 and compares our
/// engine's `--batch 2` run with LiteRT's, bit for bit.
#[test]
fn quantized_dynamic_models_keep_the_dynamic_graph() {
    let dir = root().join("../../target/quantized/realworld");
    std::fs::create_dir_all(&dir).expect("target/quantized/realworld");
    for name in ["dynamic_batch", "dynamic_shapes"] {
        let (_, m) = model(name);
        let mut cal = Calibrator::new(&m).expect("calibrates");
        cal.set_input(0, &input(name)).expect("input");
        cal.add_sample().expect("sample");
        let stats = cal.stats(Method::MinMax).expect("stats");
        let ranges = Ranges::from_calibration(&m, &stats).expect("ranges");
        for (variant, mode) in [("int8_floatio", Mode::Int8), ("16x8", Mode::Int16x8)] {
            let opts = QuantizeOptions {
                mode,
                io: IoType::Float,
                per_tensor: false,
                float_ops: Vec::new(),
                int16_ops: Vec::new(),
                constants: Vec::new(),
            };
            let (q, _) = quantize(&m, &ranges, &opts)
                .unwrap_or_else(|err| panic!("{name} {variant}: {err}"));
            let sg = &q.subgraphs[0];
            let x = &sg.tensors[sg.inputs[0] as usize];
            assert_eq!(
                x.dims().first(),
                Some(&1),
                "{name} {variant}: stored batch 1"
            );
            assert_eq!(
                x.shape_signature.as_deref().and_then(|s| s.first()),
                Some(&-1),
                "{name} {variant}: the batch stays dynamic"
            );
            for (i, op) in sg.operators.iter().enumerate() {
                if op_label(&q, 0, i) == "SHAPE" {
                    let out = &sg.tensors[op.outputs[0] as usize];
                    assert_eq!(
                        out.dtype,
                        TensorType::INT32,
                        "{name} {variant}: SHAPE output"
                    );
                    assert!(
                        out.quantization
                            .as_ref()
                            .is_none_or(|q| q.scales().is_empty())
                    );
                }
            }
            if name == "dynamic_shapes" && mode == Mode::Int16x8 {
                same_scale_of_a_constant_as_tf(&q);
            }
            let bytes = tflite::write(&q).expect("write");
            std::fs::write(dir.join(format!("{name}_{variant}.tflite")), &bytes).expect("write");
            // Our engine runs it at batch 3 too.
            let mut q3 = tflite::read(&bytes).expect("re-read");
            ShapeOverrides {
                shapes: Vec::new(),
                batch: Some(3),
            }
            .apply(&mut q3)
            .expect("dynamic batch");
            let it = Interpreter::new(&q3).unwrap_or_else(|e| panic!("{name} {variant}: {e}"));
            assert_eq!(it.inputs()[0].shape[0], 3);
            assert_eq!(it.outputs()[0].shape[0], 3);
        }
    }
}

/// 16x8: BROADCAST_TO of the position table (a constant linspace in [−1, 1]) gets the constant's
/// own symmetric parameters, on the constant and on its result, as in TF's 16x8 model of the
/// same architecture (`model_16x8.tflite`; other weights and calibration data, the same table).
fn same_scale_of_a_constant_as_tf(ours: &Model) {
    let (_, tf) = model_file("dynamic_shapes", "model_16x8.tflite");
    let scale = |m: &Model, suffix: &str| {
        let t = m.subgraphs[0]
            .tensors
            .iter()
            .find(|t| t.name.ends_with(suffix))
            .unwrap_or_else(|| panic!("no tensor '…{suffix}'"));
        let q = t.quantization.as_ref().expect("quantized");
        (t.dtype, q.scales().to_vec(), q.zero_points().to_vec())
    };
    for suffix in ["pos_1/linspace/Slice", "pos_1/BroadcastTo"] {
        assert_eq!(scale(ours, suffix), scale(&tf, suffix), "'…{suffix}'");
    }
}
