//! BIDIRECTIONAL_SEQUENCE_LSTM beyond the golden comparison (the `op_bidi_lstm_*` goldens,
//! hand-built by tests/tools/goldens/op_cases_bidi.py, hold the element-by-element comparison
//! with LiteRT BUILTIN_REF): a reset brings both directions' states back, the variants the
//! engine does not run are typed refusals naming the operator and the reason, and the int8
//! quantizer keeps the operator float as TF's calibrator does.

use zeropoint::engine::{Interpreter, Limits};
use zeropoint::graph::{BuiltinOptionsT, Model, TensorType};
use zeropoint::kernels::KernelSet;
use zeropoint::quant::calibrate::{Calibrator, Method};
use zeropoint::quant::{IoType, Mode, QuantizeOptions, Ranges, quantize};
use zeropoint::tflite::schema::BidirectionalSequenceLSTMOptionsT;
use zeropoint::{Error, tflite};
use zeropoint_tests::{NpyArray, golden_dir, load_npy};

fn read(case: &str) -> Model {
    let path = golden_dir().join(case).join("model_float.tflite");
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    tflite::read(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn npy(case: &str, file: &str) -> NpyArray {
    load_npy(&golden_dir().join(case).join(file))
}

/// Sample `s` of an array whose first axis is the samples, as little-endian bytes.
fn sample(a: &NpyArray, s: usize) -> Vec<u8> {
    let n = a.data.len() / a.samples();
    a.data.le_bytes(s * n..(s + 1) * n)
}

/// `op_bidi_lstm_split` (two outputs): samples 0 and 1 on one interpreter give LiteRT's rows
/// (the states carried), and after `reset_variables` sample 0 gives LiteRT's first row again,
/// both directions, with both kernel sets. Without the reset, the second run of sample 0 starts
/// from carried states and differs.
#[test]
fn reset_brings_both_directions_back() {
    const CASE: &str = "op_bidi_lstm_split";
    let m = read(CASE);
    let x = npy(CASE, "input_0.npy");
    let want = [
        npy(CASE, "expected_float_output_0.npy"),
        npy(CASE, "expected_float_output_1.npy"),
    ];
    for kernels in [KernelSet::Reference, KernelSet::default()] {
        let mut it = Interpreter::with_options(&m, &Limits::default(), kernels).expect("prepares");
        let run = |it: &mut Interpreter, s: usize| -> Vec<Vec<u8>> {
            it.set_input(0, &sample(&x, s)).expect("input");
            it.invoke().expect("invoke");
            (0..2)
                .map(|k| it.output(k).expect("output").bytes.to_vec())
                .collect()
        };
        for s in 0..2 {
            let got = run(&mut it, s);
            for k in 0..2 {
                assert_eq!(
                    got[k],
                    sample(&want[k], s),
                    "{kernels:?} sample {s} output {k}"
                );
            }
        }
        let carried = run(&mut it, 0);
        assert_ne!(
            carried[1],
            sample(&want[1], 0),
            "{kernels:?}: no state carried"
        );
        it.reset_variables();
        let fresh = run(&mut it, 0);
        for k in 0..2 {
            assert_eq!(
                fresh[k],
                sample(&want[k], 0),
                "{kernels:?} after reset, output {k}"
            );
        }
    }
}

/// Unsupported or broken copies of `op_bidi_lstm_relu_clip` (batch-major, batch 3, two
/// outputs): each refused at load with a typed error naming the operator and the reason.
#[test]
fn refuses_what_it_does_not_run() {
    let m = read("op_bidi_lstm_relu_clip");
    let at = m.subgraphs[0]
        .operators
        .iter()
        .position(|o| o.code.name() == "BIDIRECTIONAL_SEQUENCE_LSTM")
        .expect("the operator");
    fn options(op: &mut zeropoint::graph::Operator) -> &mut BidirectionalSequenceLSTMOptionsT {
        match &mut op.options {
            BuiltinOptionsT::BidirectionalSequenceLSTMOptions(o) => o,
            _ => panic!("options"),
        }
    }
    type Edit = fn(&mut zeropoint::graph::Operator);
    let cases: [(&str, Edit, &str); 9] = [
        (
            "peephole on one gate",
            |op| op.inputs[9] = op.inputs[12],
            "all three or none",
        ),
        (
            "projection",
            |op| op.inputs[33] = op.inputs[19],
            "projection",
        ),
        (
            "aux input",
            |op| op.inputs[39] = op.inputs[0],
            "auxiliary input",
        ),
        ("backward CIFG", |op| op.inputs[18] = -1, "backward LSTM"),
        (
            "negative clip",
            |op| options(op).cell_clip = -1.0,
            "cell_clip",
        ),
        (
            "merged, batch-major batch 3",
            |op| {
                options(op).merge_outputs = true;
                op.outputs.truncate(1);
            },
            "merged output of a batch-major sequence of batch 3",
        ),
        (
            "merged with two outputs",
            |op| options(op).merge_outputs = true,
            "expects 1 output(s)",
        ),
        (
            "float time-major batch 4",
            |op| options(op).time_major = true,
            "time-major float sequence of batch 4",
        ),
        ("47 inputs", |op| op.inputs.truncate(47), "48"),
    ];
    for (what, edit, says) in cases {
        let mut bad = m.clone();
        edit(&mut bad.subgraphs[0].operators[at]);
        match Interpreter::new(&bad) {
            Err(err @ Error::CannotRun { .. }) => {
                let text = err.to_string();
                assert!(
                    text.contains("BIDIRECTIONAL_SEQUENCE_LSTM") && text.contains(says),
                    "{what}: {text}"
                );
            }
            Err(other) => panic!("{what}: not a typed CannotRun: {other}"),
            Ok(_) => panic!("{what}: runs"),
        }
    }
}

/// Int8 quantization (float I/O) of `op_bidi_lstm_split` with our calibration of its
/// calibration samples keeps the operator float behind a DEQUANTIZE, as TF 2.21's calibrator
/// (`calibrate_and_quantize`, float fallback) writes this model: QUANTIZE, RESHAPE (int8),
/// DEQUANTIZE, BIDIRECTIONAL_SEQUENCE_LSTM (float, its weights float).
#[test]
fn int8_keeps_it_float_as_tf() {
    const CASE: &str = "op_bidi_lstm_split";
    let m = read(CASE);
    let calib = npy(CASE, "calib.npy");
    let mut cal = Calibrator::new(&m).expect("calibrator");
    for s in 0..calib.samples() {
        cal.set_input(0, &floats(&sample(&calib, s)))
            .expect("input");
        cal.add_sample().expect("sample");
    }
    let stats = cal.stats(Method::MinMax).expect("stats");
    let ranges = Ranges::from_calibration(&m, &stats).expect("ranges");
    let opts = QuantizeOptions {
        mode: Mode::Int8,
        io: IoType::Float,
        ..QuantizeOptions::default()
    };
    let (q, _) = quantize(&m, &ranges, &opts).expect("quantizes");
    let sg = &q.subgraphs[0];
    let names: Vec<String> = sg.operators.iter().map(|o| o.code.name()).collect();
    assert_eq!(
        names,
        [
            "QUANTIZE",
            "RESHAPE",
            "DEQUANTIZE",
            "BIDIRECTIONAL_SEQUENCE_LSTM"
        ]
    );
    let lstm = &sg.operators[3];
    for &t in lstm.inputs.iter().filter(|&&t| t >= 0) {
        assert_eq!(
            sg.tensors[t as usize].dtype,
            TensorType::FLOAT32,
            "input {t}"
        );
    }
    Interpreter::new(&q).expect("our int8 model runs");
}

/// Little-endian bytes back to floats.
fn floats(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// `--mode dynamic` of `op_bidi_lstm_large` (32 inputs, 32 units: 1024-element weights) writes
/// its sixteen weights as `op_bidi_lstm_large_hybrid_asym` has them (the same float weights,
/// quantized by the generator with TF's dynamic-range rule, max|w|/127 — the rule our LSTM
/// quantization matches on TF's own hybrid LSTM, tests/rust/realworld/lstm.rs), with
/// `asymmetric_quantize_inputs` on; every other input is unchanged. Our engine on our model then
/// gives LiteRT's outputs of the hybrid model bit for bit.
#[test]
fn dynamic_range_makes_it_hybrid() {
    let m = read("op_bidi_lstm_large");
    let want = read("op_bidi_lstm_large_hybrid_asym");
    let opts = QuantizeOptions {
        mode: Mode::Dynamic,
        ..QuantizeOptions::default()
    };
    let (q, _) = quantize(&m, &Ranges::new(), &opts).expect("quantizes");
    let op = |m: &Model| {
        m.subgraphs[0]
            .operators
            .iter()
            .find(|o| o.code.name() == "BIDIRECTIONAL_SEQUENCE_LSTM")
            .cloned()
            .expect("the operator")
    };
    let (a, b) = (op(&q), op(&want));
    assert_eq!(a.code.version, 3, "hybrid with asymmetric inputs");
    match &a.options {
        BuiltinOptionsT::BidirectionalSequenceLSTMOptions(o) => {
            assert!(o.asymmetric_quantize_inputs, "asymmetric_quantize_inputs");
        }
        _ => panic!("options"),
    }
    let mut int8 = 0;
    for (k, (&i, &j)) in a.inputs.iter().zip(&b.inputs).enumerate() {
        assert_eq!(i < 0, j < 0, "input {k} present");
        if i < 0 {
            continue;
        }
        let (ti, tj) = (
            &q.subgraphs[0].tensors[i as usize],
            &want.subgraphs[0].tensors[j as usize],
        );
        assert_eq!(ti.dtype, tj.dtype, "input {k} type");
        let scale =
            |t: &zeropoint::graph::Tensor| t.quantization.as_ref().and_then(|q| q.scale.clone());
        assert_eq!(scale(ti), scale(tj), "input {k} scale");
        assert_eq!(
            q.tensor_data(0, i as usize),
            want.tensor_data(0, j as usize),
            "input {k} data"
        );
        int8 += usize::from(ti.dtype == TensorType::INT8);
    }
    assert_eq!(int8, 16, "both directions' eight weights");
    let x = npy("op_bidi_lstm_large_hybrid_asym", "input_0.npy");
    let y = npy(
        "op_bidi_lstm_large_hybrid_asym",
        "expected_float_output_0.npy",
    );
    let mut it = Interpreter::new(&q).expect("prepares");
    for s in 0..x.samples() {
        it.set_input(0, &sample(&x, s)).expect("input");
        it.invoke().expect("invoke");
        assert_eq!(
            it.output(0).expect("output").bytes,
            &sample(&y, s)[..],
            "sample {s}: not LiteRT's bits"
        );
    }
}
