//! `lstm_fused`: a tf_keras text classifier whose two LSTM layers TF's converter fuses into
//! UNIDIRECTIONAL_SEQUENCE_LSTM (the first returns its sequences). On every sample, each LSTM's
//! output sequence and the model's output are LiteRT's BUILTIN_REF values bit for bit — for the
//! float model and for TF's dynamic-range model (its first LSTM hybrid: int8 weights, asymmetric
//! run-time quantization of the input and the output state; its second keeps float weights
//! below TF's 1024-element threshold), for TF's full-integer model (int8 activations, int16
//! cell state, intermediates), and for the generator's edge copy of it (inputs 64x larger, so
//! the gates saturate, and cell states at 2^-12, where LiteRT's int16 tanh of the cell runs:
//! TF's calibrated 2^-19 / 2^-20 are outside the range it handles, and LiteRT then multiplies
//! the output gate by the input gate instead, which saturates every output of TF's model).
//! Every element of every LSTM output and of the model output, with the reference and the
//! default kernel sets. One interpreter runs the samples, reset between them as LiteRT's were
//! fresh; without the reset the state carries over, as in LiteRT.

use super::{model_file, npy_bytes, root};
use zeropoint::Error;
use zeropoint::engine::{Interpreter, Limits};
use zeropoint::kernels::KernelSet;

/// The model's folder.
pub const NAME: &str = "lstm_fused";
const SAMPLES: usize = 3;

#[test]
fn fused_lstm_matches_litert_on_every_sample() {
    for (file, prefix) in [
        ("model.tflite", "expected_"),
        ("model_dynamic.tflite", "expected_dynamic_"),
        ("model_int8_edge.tflite", "expected_int8_edge_"),
    ] {
        matches_litert(file, prefix, true);
    }
    // Every output of TF's int8 model saturates (see the module doc), whatever the state: the
    // carried-over state is not visible in its output.
    matches_litert("model_int8.tflite", "expected_int8_", false);
}

/// One sample's slice of a stacked `.npy` file.
fn sample(all: &[u8], s: usize) -> &[u8] {
    let n = all.len() / SAMPLES;
    &all[s * n..(s + 1) * n]
}

fn matches_litert(file: &str, prefix: &str, state_visible: bool) {
    let (_, m) = model_file(NAME, file);
    let lstm_outputs: Vec<usize> = m.subgraphs[0]
        .operators
        .iter()
        .filter(|o| o.code.name() == "UNIDIRECTIONAL_SEQUENCE_LSTM")
        .map(|o| o.outputs[0] as usize)
        .collect();
    assert_eq!(lstm_outputs.len(), 2, "{file}: TF fused both LSTM layers");
    let dir = root().join(NAME);
    let (x, _) = npy_bytes(&dir.join("input_0.npy"));
    let (want, _) = npy_bytes(&dir.join(format!("{prefix}output_0.npy")));
    let want_lstm: Vec<Vec<u8>> = (0..lstm_outputs.len())
        .map(|k| npy_bytes(&dir.join(format!("{prefix}lstm_{k}.npy"))).0)
        .collect();
    for kernels in [KernelSet::Reference, KernelSet::default()] {
        let mut it = Interpreter::with_options(&m, &Limits::default(), kernels)
            .unwrap_or_else(|err| panic!("{NAME} {file}: {err}"));
        assert!(it.has_variables(), "the LSTM states are kept between calls");
        let mut first = Vec::new();
        for s in 0..SAMPLES {
            it.reset_variables();
            it.set_input(0, sample(&x, s)).expect("input");
            let mut seen = vec![Vec::new(); lstm_outputs.len()];
            it.invoke_with(&mut |id, v| {
                if let Some(k) = lstm_outputs.iter().position(|&t| t == id.0) {
                    seen[k] = v.bytes.to_vec();
                }
            })
            .expect("invoke");
            for (k, got) in seen.iter().enumerate() {
                assert!(
                    got == sample(&want_lstm[k], s),
                    "{NAME} {file} sample {s} ({kernels:?}): LSTM {k}'s output differs"
                );
            }
            let got = it.output(0).expect("output");
            assert_eq!(
                got.bytes,
                sample(&want, s),
                "{NAME} {file} sample {s} ({kernels:?}): {:?}",
                got.as_f32()
            );
            assert!(
                seen.iter().all(|v| !v.is_empty()),
                "{file}: every LSTM output observed"
            );
            if s == 0 {
                first = got.bytes.to_vec();
            }
        }
        // Without a reset the state of the last call carries over: sample 0 again differs.
        it.set_input(0, sample(&x, 0)).expect("input");
        it.invoke().expect("invoke");
        if state_visible {
            assert_ne!(
                it.output(0).expect("output").bytes,
                first,
                "state carried over"
            );
        }
        it.reset_variables();
        it.set_input(0, sample(&x, 0)).expect("input");
        it.invoke().expect("invoke");
        assert_eq!(
            it.output(0).expect("output").bytes,
            first,
            "reset restores the zero state"
        );
    }
}

/// Broken or unsupported copies of the float model: each refused at load with a typed error
/// naming the operator and the feature.
#[test]
fn fused_lstm_refuses_what_it_does_not_run() {
    use zeropoint::graph::BuiltinOptionsT;
    let (_, m) = model_file(NAME, "model.tflite");
    let first = m.subgraphs[0]
        .operators
        .iter()
        .position(|o| o.code.name() == "UNIDIRECTIONAL_SEQUENCE_LSTM")
        .expect("an LSTM");
    type Edit = fn(&mut zeropoint::graph::Operator);
    let cases: [(&str, Edit, &str); 5] = [
        (
            "a state read as weights",
            |op| op.inputs[1] = op.inputs[18],
            "variable (stateful) tensors are supported only as the state",
        ),
        ("CIFG", |op| op.inputs[1] = -1, "CIFG"),
        (
            "peephole on one gate",
            |op| op.inputs[9] = op.inputs[12],
            "all three or none",
        ),
        (
            "negative clip",
            |op| {
                if let BuiltinOptionsT::UnidirectionalSequenceLSTMOptions(o) = &mut op.options {
                    o.cell_clip = -1.0;
                }
            },
            "cell_clip",
        ),
        (
            "cell activation",
            |op| {
                if let BuiltinOptionsT::UnidirectionalSequenceLSTMOptions(o) = &mut op.options {
                    o.fused_activation_function =
                        zeropoint::tflite::schema::ActivationFunctionType::SIGN_BIT;
                }
            },
            "cell activation",
        ),
    ];
    for (what, edit, says) in cases {
        let mut bad = m.clone();
        edit(&mut bad.subgraphs[0].operators[first]);
        match Interpreter::new(&bad) {
            Err(err @ Error::CannotRun { .. }) => {
                let text = err.to_string();
                assert!(
                    text.contains("UNIDIRECTIONAL_SEQUENCE_LSTM") && text.contains(says),
                    "{what}: {text}"
                );
            }
            Err(other) => panic!("{what}: not a typed CannotRun: {other}"),
            Ok(_) => panic!("{what}: runs"),
        }
    }
}

/// Broken or unsupported copies of TF's integer model: each refused at load with a typed error
/// naming the operator and what is wrong.
#[test]
fn fused_int8_lstm_refuses_what_it_does_not_run() {
    let (_, m) = model_file(NAME, "model_int8.tflite");
    let first = m.subgraphs[0]
        .operators
        .iter()
        .position(|o| o.code.name() == "UNIDIRECTIONAL_SEQUENCE_LSTM")
        .expect("an LSTM");
    type Edit = fn(&mut zeropoint::graph::Model, usize);
    let cases: [(&str, Edit, &str); 5] = [
        (
            "peephole",
            |m, op| {
                let o = &mut m.subgraphs[0].operators[op];
                (o.inputs[9], o.inputs[10], o.inputs[11]) =
                    (o.inputs[12], o.inputs[13], o.inputs[15]);
            },
            "peephole connections in the integer LSTM",
        ),
        (
            "cell scale not a power of two",
            |m, op| {
                let t = m.subgraphs[0].operators[op].inputs[19] as usize;
                if let Some(q) = &mut m.subgraphs[0].tensors[t].quantization {
                    q.scale = Some(vec![3e-6]);
                }
            },
            "not a power of two",
        ),
        (
            "no intermediates",
            |m, op| m.subgraphs[0].operators[op].intermediates = None,
            "5 intermediate tensors",
        ),
        (
            "int16 output state",
            |m, op| {
                let t = m.subgraphs[0].operators[op].inputs[18] as usize;
                m.subgraphs[0].tensors[t].dtype = zeropoint::graph::TensorType::INT16;
            },
            "state",
        ),
        (
            "projection",
            |m, op| {
                let o = &mut m.subgraphs[0].operators[op];
                o.inputs[16] = o.inputs[1];
            },
            "projection",
        ),
    ];
    for (what, edit, says) in cases {
        let mut bad = m.clone();
        edit(&mut bad, first);
        match Interpreter::new(&bad) {
            Err(err @ Error::CannotRun { .. }) => {
                let text = err.to_string();
                assert!(
                    text.contains("UNIDIRECTIONAL_SEQUENCE_LSTM") && text.contains(says),
                    "{what}: {text}"
                );
            }
            Err(other) => panic!("{what}: not a typed CannotRun: {other}"),
            Ok(_) => panic!("{what}: runs"),
        }
    }
}

/// `--mode dynamic` of the float model writes both LSTMs as TF 2.21's dynamic-range model has
/// them: the 32-unit one hybrid (its eight weights int8, one symmetric scale each, version 3,
/// `asymmetric_quantize_inputs`), the 16-unit one float (512-element weights, under TF's
/// threshold). Every input of both operators is compared with TF's: type, scales, zero points
/// and bytes. (TF's model also quantizes the embedding table's GATHER; ours keeps it float.)
#[test]
fn dynamic_range_writes_tf_hybrid_lstm() {
    use zeropoint::graph::{BuiltinOptionsT, Model};
    use zeropoint::quant::{Mode, QuantizeOptions, Ranges, quantize};
    let (_, m) = model_file(NAME, "model.tflite");
    let (_, tf) = model_file(NAME, "model_dynamic.tflite");
    let opts = QuantizeOptions {
        mode: Mode::Dynamic,
        ..QuantizeOptions::default()
    };
    let (ours, _) = quantize(&m, &Ranges::new(), &opts).expect("quantizes");
    let lstms = |m: &Model| -> Vec<zeropoint::graph::Operator> {
        m.subgraphs[0]
            .operators
            .iter()
            .filter(|o| o.code.name() == "UNIDIRECTIONAL_SEQUENCE_LSTM")
            .cloned()
            .collect()
    };
    let (a, b) = (lstms(&ours), lstms(&tf));
    assert_eq!(a.len(), 2);
    assert_eq!(b.len(), 2);
    let mut int8 = 0;
    for (n, (x, y)) in a.iter().zip(&b).enumerate() {
        assert_eq!(x.code.version, y.code.version, "LSTM {n} version");
        let asym = |o: &zeropoint::graph::Operator| match &o.options {
            BuiltinOptionsT::UnidirectionalSequenceLSTMOptions(o) => o.asymmetric_quantize_inputs,
            _ => panic!("options"),
        };
        assert_eq!(asym(x), asym(y), "LSTM {n} asymmetric_quantize_inputs");
        for (k, (&i, &j)) in x.inputs.iter().zip(&y.inputs).enumerate() {
            assert_eq!(i < 0, j < 0, "LSTM {n} input {k} present");
            if i < 0 {
                continue;
            }
            let (ti, tj) = (
                &ours.subgraphs[0].tensors[i as usize],
                &tf.subgraphs[0].tensors[j as usize],
            );
            let what = format!("LSTM {n} input {k}");
            assert_eq!(ti.dtype, tj.dtype, "{what} type");
            let q = |t: &zeropoint::graph::Tensor| {
                t.quantization
                    .as_ref()
                    .map(|q| (q.scale.clone(), q.zero_point.clone()))
            };
            assert_eq!(q(ti), q(tj), "{what} scale / zero point");
            assert_eq!(
                ours.tensor_data(0, i as usize),
                tf.tensor_data(0, j as usize),
                "{what} data"
            );
            int8 += usize::from(ti.dtype == zeropoint::graph::TensorType::INT8);
        }
    }
    assert_eq!(int8, 8, "the first LSTM's eight weights int8");
}
