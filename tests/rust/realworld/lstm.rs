//! `lstm_fused`: a tf_keras text classifier whose two LSTM layers TF's converter fuses into
//! UNIDIRECTIONAL_SEQUENCE_LSTM (the first returns its sequences). The float model runs with
//! LiteRT's BUILTIN_REF outputs bit for bit on every sample (one interpreter, reset between
//! samples as LiteRT's were fresh; without the reset the state carries over, as in LiteRT);
//! TF's dynamic-range (hybrid LSTM) and integer models are refused with typed errors naming
//! what is missing.

use super::{model, model_file, npy_bytes, root};
use zeropoint::Error;
use zeropoint::engine::{Interpreter, Limits};
use zeropoint::kernels::KernelSet;

/// The model's folder.
pub const NAME: &str = "lstm_fused";

#[test]
fn fused_lstm_matches_litert_on_every_sample() {
    let (_, m) = model(NAME);
    let fused = m.subgraphs[0]
        .operators
        .iter()
        .filter(|o| o.code.name() == "UNIDIRECTIONAL_SEQUENCE_LSTM")
        .count();
    assert_eq!(fused, 2, "TF fused both LSTM layers");
    let dir = root().join(NAME);
    let (x, n_in) = npy_bytes(&dir.join("input_0.npy"));
    let (want, n_out) = npy_bytes(&dir.join("expected_output_0.npy"));
    let samples = 3;
    assert_eq!((n_in % samples, n_out % samples), (0, 0));
    let (x_len, y_len) = (x.len() / samples, want.len() / samples);
    for kernels in [KernelSet::Reference, KernelSet::default()] {
        let mut it = Interpreter::with_options(&m, &Limits::default(), kernels)
            .unwrap_or_else(|err| panic!("{NAME}: {err}"));
        assert!(it.has_variables(), "the LSTM states are kept between calls");
        let mut first = Vec::new();
        for s in 0..samples {
            it.reset_variables();
            it.set_input(0, &x[s * x_len..(s + 1) * x_len])
                .expect("input");
            it.invoke();
            let got = it.output(0).expect("output");
            assert_eq!(
                got.bytes,
                &want[s * y_len..(s + 1) * y_len],
                "{NAME} sample {s} ({kernels:?}): {:?}",
                got.as_f32()
            );
            if s == 0 {
                first = got.bytes.to_vec();
            }
        }
        // Without a reset the state of the last call carries over: sample 0 again differs.
        it.set_input(0, &x[..x_len]).expect("input");
        it.invoke();
        assert_ne!(
            it.output(0).expect("output").bytes,
            first,
            "state carried over"
        );
        it.reset_variables();
        it.set_input(0, &x[..x_len]).expect("input");
        it.invoke();
        assert_eq!(
            it.output(0).expect("output").bytes,
            first,
            "reset restores the zero state"
        );
    }
}

#[test]
fn fused_lstm_quantized_by_tf_is_refused_naming_what_is_missing() {
    for (file, says) in [
        ("model_dynamic.tflite", "hybrid LSTM"),
        ("model_int8.tflite", "integer LSTM"),
    ] {
        let (_, m) = model_file(NAME, file);
        match Interpreter::new(&m) {
            Err(err @ Error::CannotRun { .. }) => {
                let text = err.to_string();
                assert!(
                    text.contains("UNIDIRECTIONAL_SEQUENCE_LSTM") && text.contains(says),
                    "{file}: {text}"
                );
            }
            Err(other) => panic!("{file}: not a typed CannotRun: {other}"),
            Ok(_) => panic!("{file}: runs? (then compare it with LiteRT)"),
        }
    }
}
