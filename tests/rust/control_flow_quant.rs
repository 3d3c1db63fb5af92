//! Full-integer quantization of models with WHILE / IF subgraphs (tests/realworld, made by
//! tests/tools/make_realworld.py): every subgraph's boundary stays float, the operators inside
//! the bodies are quantized with the ranges calibration recorded there.
//!
//! * `control_flow` (tf.cond + tf.while_loop): TF 2.21 converts it (no WHILE input passes
//!   through the body, so tensorflow#75140 does not strike); our int8 model of the same
//!   calibration data equals TF's `model_int8.tflite` operator for operator in every subgraph.
//! * The Keras recurrent models (`lstm_classifier`, `gru_kws`, `bilstm`), where TF's converter
//!   crashes: our int8 and 16x8 models keep the float boundaries, quantize the cells inside the
//!   loop bodies, and score an SQNR against the float model (printed; a floor asserted). They
//!   are written to `target/quantized/realworld/<name>_{int8_floatio,16x8}.tflite`, where
//!   `tests/tools/check_quantized.py --zeropoint BIN` loads them in LiteRT (BUILTIN_REF) and
//!   requires our engine's outputs to equal LiteRT's bit for bit.

use std::path::{Path, PathBuf};

use zeropoint::engine::{Interpreter, Limits};
use zeropoint::graph::{BuiltinOperator as Op, Model, TensorType};
use zeropoint::kernels::KernelSet;
use zeropoint::quant::auto::score::sqnr_db;
use zeropoint::quant::calibrate::{Calibrator, Method};
use zeropoint::quant::{IoType, Mode, QuantizeOptions, Ranges, quantize};
use zeropoint::tflite;
use zeropoint_tests::{NpyArray, NpyData, load_npy};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("realworld")
}

fn read_model(path: &Path) -> Model {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    tflite::read(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The samples of a `.npy` stacked on its first axis, as the float values `set_input` takes
/// (int32 token ids converted exactly).
fn samples(a: &NpyArray) -> Vec<Vec<f32>> {
    let values: Vec<f32> = match &a.data {
        NpyData::F32(v) => v.clone(),
        NpyData::I32(v) => v.iter().map(|&t| t as f32).collect(),
        _ => panic!("expected float32 or int32 samples"),
    };
    let n = a.shape[0];
    let per = values.len() / n;
    values.chunks(per).map(<[f32]>::to_vec).collect()
}

fn f32s(path: &Path) -> Vec<f32> {
    match load_npy(path).data {
        NpyData::F32(v) => v,
        _ => panic!("{}: expected float32", path.display()),
    }
}

/// Our calibration (min/max) of `xs`, one sample after another.
fn calibrate(m: &Model, xs: &[Vec<f32>]) -> Ranges {
    let mut cal = Calibrator::new(m).expect("calibrates");
    for x in xs {
        cal.set_input(0, x).expect("input");
        cal.add_sample().expect("sample");
    }
    let stats = cal.stats(Method::MinMax).expect("stats");
    assert!(!stats.nested.is_empty(), "calibration walked the bodies");
    Ranges::from_calibration(m, &stats).expect("ranges")
}

/// `m`'s output 0 for each sample, by our engine.
fn run(m: &Model, xs: &[Vec<f32>], kernels: KernelSet) -> Vec<Vec<f32>> {
    let mut it = Interpreter::with_options(m, &Limits::default(), kernels).expect("prepares");
    xs.iter()
        .map(|x| {
            if it.inputs()[0].dtype == TensorType::INT32 {
                let bytes: Vec<u8> = x.iter().flat_map(|&v| (v as i32).to_le_bytes()).collect();
                it.set_input(0, &bytes).expect("input");
            } else {
                it.set_input_f32(0, x).expect("input");
            }
            it.invoke().expect("invoke");
            let out = it.output(0).expect("output");
            out.as_f32().expect("float output").to_vec()
        })
        .collect()
}

/// Operators of subgraph `s` as (code, version, and per operand: dtype, scale bits, zero
/// points, constant bytes): what must equal TF's, names aside (TF names the subgraphs' functions
/// and its inserted tensors with counters of its own).
fn layout(m: &Model, s: usize) -> Vec<String> {
    let sg = &m.subgraphs[s];
    let tensor = |t: i32| -> String {
        let Ok(t) = usize::try_from(t) else {
            return "-".into();
        };
        let x = &sg.tensors[t];
        let q = x.quantization.as_ref();
        let scales: Vec<u32> = q.map_or(Vec::new(), |q| {
            q.scales().iter().map(|s| s.to_bits()).collect()
        });
        let zps = q.map_or(Vec::new(), |q| q.zero_points().to_vec());
        let data = m.tensor_data(s, t).map(<[u8]>::to_vec);
        format!("{:?} {scales:?} {zps:?} {data:?}", x.dtype)
    };
    let mut out: Vec<String> = sg
        .operators
        .iter()
        .map(|op| {
            let ins: Vec<String> = op.inputs.iter().map(|&t| tensor(t)).collect();
            let outs: Vec<String> = op.outputs.iter().map(|&t| tensor(t)).collect();
            format!(
                "{} v{} {ins:?} -> {outs:?}",
                op.code.name(),
                op.code.version
            )
        })
        .collect();
    let io: Vec<String> = sg
        .inputs
        .iter()
        .chain(&sg.outputs)
        .map(|&t| tensor(t))
        .collect();
    out.push(format!("I/O {io:?}"));
    out
}

/// Our int8 (float I/O) quantization of `control_flow` from our calibration of TF's
/// representative data (`calib.npy`) equals TF 2.21's `model_int8.tflite` in every subgraph:
/// operators, versions, dtypes, scales, zero points and constants; IF / WHILE operands and
/// results float, QUANTIZE after each body input, DEQUANTIZE before each body output.
#[test]
fn control_flow_int8_equals_tf_in_every_subgraph() {
    let dir = root().join("control_flow");
    let m = read_model(&dir.join("model.tflite"));
    let tf = read_model(&dir.join("model_int8.tflite"));
    let ranges = calibrate(&m, &samples(&load_npy(&dir.join("calib.npy"))));
    let opts = QuantizeOptions {
        mode: Mode::Int8,
        io: IoType::Float,
        ..QuantizeOptions::default()
    };
    let (q, report) = quantize(&m, &ranges, &opts).expect("quantizes");
    let q = tflite::read(&tflite::write(&q).expect("writes")).expect("re-reads");
    assert_eq!(q.subgraphs.len(), tf.subgraphs.len());
    for s in 0..tf.subgraphs.len() {
        assert_eq!(layout(&q, s), layout(&tf, s), "subgraph {s}");
    }
    // Something was quantized inside each body that has float operators.
    assert!(
        q.subgraphs[4]
            .operators
            .iter()
            .any(|op| op.code.op() == Op::MUL),
        "the loop body"
    );
    assert!(
        !report
            .warnings
            .iter()
            .any(|w| w.contains("stays float: no calibration")),
        "both IF branches were calibrated: {:?}",
        report.warnings
    );
    // Our engine runs it; LiteRT's BUILTIN_REF output of this model is not a reference: its int8
    // SUM gives -1 here whatever the input (its optimized kernels give the sum).
    let x = samples(&load_npy(&dir.join("input_0.npy")));
    for kernels in [KernelSet::Reference, KernelSet::default()] {
        assert_eq!(run(&q, &x, kernels).concat().len(), 4, "{kernels:?}");
    }
}

/// An IF branch no calibration sample took stays float (its subgraph unchanged, a warning names
/// it); the branch that ran is quantized.
#[test]
fn an_uncalibrated_if_branch_stays_float() {
    let dir = root().join("control_flow");
    let m = read_model(&dir.join("model.tflite"));
    // input_0.npy: one sample, so one branch only.
    let ranges = calibrate(&m, &samples(&load_npy(&dir.join("input_0.npy"))));
    let opts = QuantizeOptions {
        mode: Mode::Int8,
        io: IoType::Float,
        ..QuantizeOptions::default()
    };
    let (q, report) = quantize(&m, &ranges, &opts).expect("quantizes");
    // A branch left float: the float model's operators, tensor types and parameters.
    let float_branches: Vec<usize> = [1, 2]
        .into_iter()
        .filter(|&s| {
            let (a, b) = (&q.subgraphs[s], &m.subgraphs[s]);
            a.operators.len() == b.operators.len()
                && a.operators.iter().zip(&b.operators).all(|(x, y)| {
                    x.code == y.code && x.inputs == y.inputs && x.outputs == y.outputs
                })
                && a.tensors.len() == b.tensors.len()
                && a.tensors
                    .iter()
                    .zip(&b.tensors)
                    .all(|(x, y)| x.dtype == y.dtype && x.quantization == y.quantization)
        })
        .collect();
    assert_eq!(float_branches.len(), 1, "one branch ran, one did not");
    let s = float_branches[0];
    let other = 3 - s;
    assert!(
        q.subgraphs[other]
            .operators
            .iter()
            .any(|op| op.code.op() == Op::QUANTIZE),
        "the branch that ran is quantized"
    );
    assert!(
        report
            .warnings
            .iter()
            .any(|w| w == &format!("subgraph {s} stays float: no calibration sample ran it")),
        "{:?}",
        report.warnings
    );
}

/// Our int8 and 16x8 quantization (float I/O) of the Keras recurrent WHILE models, calibrated on
/// their three samples: WHILE's operands and results and every body's inputs and outputs keep
/// the float model's types, the cells' FULLY_CONNECTED run integer inside the bodies, the output
/// scores at least 20 dB (int8) / 30 dB (16x8) SQNR against LiteRT's float output, and the
/// models are written for `check_quantized.py` (LiteRT loads and runs them; our engine must give
/// the same bits).
#[test]
fn recurrent_while_models_quantize_with_float_subgraph_boundaries() {
    let out = root().join("../../target/quantized/realworld");
    std::fs::create_dir_all(&out).expect("target/quantized/realworld");
    for name in ["lstm_classifier", "gru_kws", "bilstm", "control_flow"] {
        let dir = root().join(name);
        let m = read_model(&dir.join("model.tflite"));
        let xs = samples(&load_npy(&dir.join("input_0.npy")));
        let float: Vec<f32> = f32s(&dir.join("expected_output_0.npy"));
        let ranges = calibrate(&m, &xs);
        for (variant, mode, floor, q_type) in [
            ("int8_floatio", Mode::Int8, 20.0, TensorType::INT8),
            ("16x8", Mode::Int16x8, 30.0, TensorType::INT16),
        ] {
            let what = format!("{name} {variant}");
            let opts = QuantizeOptions {
                mode,
                io: IoType::Float,
                ..QuantizeOptions::default()
            };
            let (q, _) = quantize(&m, &ranges, &opts).unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_eq!(q.subgraphs.len(), m.subgraphs.len(), "{what}");
            for (s, (a, b)) in q.subgraphs.iter().zip(&m.subgraphs).enumerate() {
                let types = |sg: &zeropoint::graph::Subgraph, m: &[i32]| -> Vec<TensorType> {
                    m.iter().map(|&t| sg.tensors[t as usize].dtype).collect()
                };
                assert_eq!(
                    types(a, &a.inputs),
                    types(b, &b.inputs),
                    "{what}: subgraph {s} inputs"
                );
                assert_eq!(
                    types(a, &a.outputs),
                    types(b, &b.outputs),
                    "{what}: subgraph {s} outputs"
                );
                for op in a.operators.iter() {
                    if matches!(op.code.op(), Op::WHILE | Op::IF) {
                        for &t in op.inputs.iter().chain(&op.outputs).skip(1) {
                            let dt = a.tensors[t as usize].dtype;
                            assert!(
                                !matches!(dt, TensorType::INT8 | TensorType::INT16),
                                "{what}: subgraph {s}: {} operand {dt:?}",
                                op.code.name()
                            );
                        }
                    }
                }
            }
            if name != "control_flow" {
                let body_fc = q.subgraphs.iter().skip(1).any(|sg| {
                    sg.operators.iter().any(|op| {
                        op.code.op() == Op::FULLY_CONNECTED
                            && op.output(0).is_some_and(|t| sg.tensors[t].dtype == q_type)
                    })
                });
                assert!(body_fc, "{what}: an integer FULLY_CONNECTED in a loop body");
            }
            let got: Vec<f32> = run(&q, &xs, KernelSet::Reference).concat();
            assert_eq!(got.len(), float.len(), "{what}");
            let signal: f64 = float.iter().map(|&v| f64::from(v).powi(2)).sum();
            let noise: f64 = float
                .iter()
                .zip(&got)
                .map(|(&a, &b)| (f64::from(a) - f64::from(b)).powi(2))
                .sum();
            let db = sqnr_db(signal, noise);
            println!("{what}: SQNR {db:.2} dB against the float model");
            assert!(db >= floor, "{what}: SQNR {db:.2} dB < {floor} dB");
            let bytes = tflite::write(&q).expect("write");
            let path = out.join(format!("{name}_{variant}.tflite"));
            std::fs::write(&path, &bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        }
    }
}
