//! Resource variables and CALL_ONCE through the engine on models built in the IR: state kept
//! across invocations and shared between subgraphs by name, CALL_ONCE running its init subgraph
//! once per lifetime and again after [`Interpreter::reset_variables`], and the typed refusals
//! (a read before any assignment, an assignment that changes a variable's shape, an init
//! subgraph with inputs). LiteRT's outputs on converted models are in `tests/rust/streaming.rs`.

use super::control_flow_tests::{cannot_run, op, subgraph, tensor};
use super::*;
use crate::graph::{Buffer, BuiltinOperator, BuiltinOptionsT, Model};
use crate::tflite::schema::{CallOnceOptionsT, VarHandleOptionsT};

fn var_handle(name: &str, out: i32) -> crate::graph::Operator {
    op(
        BuiltinOperator::VAR_HANDLE,
        &[],
        &[out],
        BuiltinOptionsT::VarHandleOptions(Box::new(VarHandleOptionsT {
            container: None,
            shared_name: Some(name.into()),
        })),
    )
}

fn call_once(init: i32) -> crate::graph::Operator {
    op(
        BuiltinOperator::CALL_ONCE,
        &[],
        &[],
        BuiltinOptionsT::CallOnceOptions(Box::new(CallOnceOptionsT {
            init_subgraph_index: init,
        })),
    )
}

fn f32_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// `total += x; return total` with `total` set to `init` (two floats) by CALL_ONCE's init
/// subgraph 1; `init_inputs` gives that subgraph an input (which LiteRT refuses).
fn accumulator(init: [f32; 2], init_inputs: bool) -> Model {
    let mut buffers = vec![Buffer::default()];
    let main = subgraph(
        &mut buffers,
        vec![
            tensor("x", TensorType::FLOAT32, &[2]),
            tensor("total", TensorType::RESOURCE, &[]),
            tensor("read", TensorType::FLOAT32, &[2]),
            tensor("sum", TensorType::FLOAT32, &[2]),
        ],
        vec![],
        vec![
            call_once(1),
            var_handle("total", 1),
            op(
                BuiltinOperator::READ_VARIABLE,
                &[1],
                &[2],
                BuiltinOptionsT::NONE,
            ),
            op(BuiltinOperator::ADD, &[2, 0], &[3], BuiltinOptionsT::NONE),
            op(
                BuiltinOperator::ASSIGN_VARIABLE,
                &[1, 3],
                &[],
                BuiltinOptionsT::NONE,
            ),
        ],
        &[0],
        &[3],
    );
    let init_sg = subgraph(
        &mut buffers,
        vec![
            tensor("total", TensorType::RESOURCE, &[]),
            tensor("start", TensorType::FLOAT32, &[2]),
            tensor("unused", TensorType::FLOAT32, &[1]),
        ],
        vec![(1, f32_bytes(&init))],
        vec![
            var_handle("total", 0),
            op(
                BuiltinOperator::ASSIGN_VARIABLE,
                &[0, 1],
                &[],
                BuiltinOptionsT::NONE,
            ),
        ],
        if init_inputs { &[2] } else { &[] },
        &[],
    );
    Model {
        version: 3,
        subgraphs: vec![main, init_sg],
        buffers,
        ..Default::default()
    }
}

fn step(it: &mut Interpreter, x: [f32; 2]) -> Vec<f32> {
    it.set_input_f32(0, &x).expect("input");
    it.invoke().expect("invoke");
    it.output(0)
        .expect("output")
        .as_f32()
        .expect("floats")
        .to_vec()
}

#[test]
fn state_persists_across_invocations_until_reset() {
    let m = accumulator([10.0, -1.0], false);
    let mut it = Interpreter::new(&m).expect("prepares");
    assert!(it.has_variables());
    // The init subgraph sets (10, -1) once; every call adds x.
    assert_eq!(step(&mut it, [1.0, 2.0]), [11.0, 1.0]);
    assert_eq!(step(&mut it, [1.0, 2.0]), [12.0, 3.0]);
    assert_eq!(step(&mut it, [0.5, 0.0]), [12.5, 3.0]);
    it.reset_variables();
    assert_eq!(step(&mut it, [1.0, 2.0]), [11.0, 1.0]);
    // A second interpreter of the same model has its own state.
    let mut other = Interpreter::new(&m).expect("prepares");
    assert_eq!(step(&mut other, [0.0, 0.0]), [10.0, -1.0]);
    assert_eq!(step(&mut it, [1.0, 2.0]), [12.0, 3.0]);
    // Operators without outputs are steps with no output tensor.
    let infos = it.step_infos();
    let assign = infos
        .iter()
        .find(|s| s.op_name == "ASSIGN_VARIABLE")
        .expect("assign step");
    assert!(assign.output.is_empty() && assign.shape.is_empty());
}

#[test]
fn an_init_subgraph_with_inputs_is_refused() {
    let text = cannot_run(&accumulator([0.0; 2], true));
    assert!(
        text.contains("CALL_ONCE") && text.contains("init subgraph 1"),
        "{text}"
    );
}

#[test]
fn a_read_before_any_assignment_is_refused() {
    let mut buffers = vec![Buffer::default()];
    let main = subgraph(
        &mut buffers,
        vec![
            tensor("v", TensorType::RESOURCE, &[]),
            tensor("read", TensorType::FLOAT32, &[2]),
        ],
        vec![],
        vec![
            var_handle("v", 0),
            op(
                BuiltinOperator::READ_VARIABLE,
                &[0],
                &[1],
                BuiltinOptionsT::NONE,
            ),
        ],
        &[],
        &[1],
    );
    let m = Model {
        version: 3,
        subgraphs: vec![main],
        buffers,
        ..Default::default()
    };
    let text = cannot_run(&m);
    assert!(
        text.contains("READ_VARIABLE") && text.contains("read before any ASSIGN_VARIABLE"),
        "{text}"
    );
}

#[test]
fn an_assignment_that_changes_the_shape_is_refused_naming_the_variable() {
    let mut buffers = vec![Buffer::default()];
    let main = subgraph(
        &mut buffers,
        vec![
            tensor("v", TensorType::RESOURCE, &[]),
            tensor("two", TensorType::FLOAT32, &[2]),
            tensor("three", TensorType::FLOAT32, &[3]),
        ],
        vec![
            (1, f32_bytes(&[1.0, 2.0])),
            (2, f32_bytes(&[1.0, 2.0, 3.0])),
        ],
        vec![
            var_handle("state", 0),
            op(
                BuiltinOperator::ASSIGN_VARIABLE,
                &[0, 1],
                &[],
                BuiltinOptionsT::NONE,
            ),
            op(
                BuiltinOperator::ASSIGN_VARIABLE,
                &[0, 2],
                &[],
                BuiltinOptionsT::NONE,
            ),
        ],
        &[],
        &[],
    );
    let m = Model {
        version: 3,
        subgraphs: vec![main],
        buffers,
        ..Default::default()
    };
    let text = cannot_run(&m);
    assert!(
        text.contains("variable 'state'") && text.contains("shape or type changes"),
        "{text}"
    );
}

/// Two recurrent operators naming the same state tensors (issue 22; mutants 7872 and 8351 of
/// round five): LiteRT updates the tensors in place, so each operator continues the state the
/// one before it left, across invocations. The goldens `op_*_shared_state` (the hand-built
/// models with a copy of the operator sharing the states, `share_state` in
/// `tests/tools/goldens/op_cases_bidi.py`) hold LiteRT 2.3 BUILTIN_REF's outputs over their
/// samples run one after the other; ours equal them bit for bit. After `reset_variables` every
/// shared state starts again from its initial value: the first invocation's outputs come back.
#[test]
fn recurrent_operators_sharing_a_state_tensor_run_as_litert_runs_them() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/golden");
    for case in [
        "op_lstm_shared_state",
        "op_lstm_shared_state_hybrid",
        "op_bidi_lstm_shared_state",
        "op_rnn_shared_state",
    ] {
        let dir = root.join(case);
        let read = |name: &str| std::fs::read(dir.join(name)).expect("golden file");
        let npy = |name: &str| crate::npy::read(name, &read(name)[..]).expect("npy");
        let m = crate::tflite::read(&read("model_float.tflite")).expect("golden model reads");
        let mut it = Interpreter::new(&m).expect("two operators sharing states prepare");
        let input = npy("input_0.npy");
        let outputs = it.outputs().len();
        assert!(outputs >= 2, "{case}: both operators' outputs");
        let expected: Vec<_> = (0..outputs)
            .map(|k| npy(&format!("expected_float_output_{k}.npy")))
            .collect();
        let samples = input.shape[0];
        assert!(
            samples >= 2,
            "{case}: the state carries over several invocations"
        );
        let per_in = input.data.len() / samples;
        let mut first = Vec::new();
        for s in 0..samples {
            it.set_input(0, &input.data[s * per_in..(s + 1) * per_in])
                .expect("input");
            it.invoke().expect("invoke");
            for (k, e) in expected.iter().enumerate() {
                let per_out = e.data.len() / samples;
                let ours = it.output(k).expect("output").bytes.to_vec();
                assert_eq!(
                    ours,
                    e.data[s * per_out..(s + 1) * per_out],
                    "{case}: sample {s}, output {k} bit for bit with LiteRT"
                );
                if s == 0 {
                    first.push(ours);
                }
            }
        }
        it.reset_variables();
        it.set_input(0, &input.data[..per_in]).expect("input");
        it.invoke().expect("invoke");
        for (k, want) in first.iter().enumerate() {
            assert_eq!(
                &it.output(k).expect("output").bytes.to_vec(),
                want,
                "{case}: output {k} after a reset equals the first invocation's"
            );
        }
    }
}

/// The integer LSTM the same way: realworld `lstm_fused`'s int8 edge model with a copy of its
/// first LSTM sharing the int8 output state and the int16 cell state
/// (`tests/tools/make_shared_state_int8.py`: LiteRT 2.3 BUILTIN_REF over the 3 samples on one
/// interpreter). Ours equal its outputs bit for bit at every sample.
#[test]
fn integer_lstms_sharing_states_run_as_litert_runs_them() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/shared_state_int8");
    let read = |name: &str| std::fs::read(dir.join(name)).expect("fixture");
    let npy = |name: &str| crate::npy::read(name, &read(name)[..]).expect("npy");
    let m = crate::tflite::read(&read("model.tflite")).expect("model");
    let mut it = Interpreter::new(&m).expect("prepares");
    let input = npy("input_0.npy");
    let samples = input.shape[0];
    let per_in = input.data.len() / samples;
    let expected: Vec<_> = (0..2)
        .map(|k| npy(&format!("litert_output_{k}.npy")))
        .collect();
    for s in 0..samples {
        it.set_input(0, &input.data[s * per_in..(s + 1) * per_in])
            .expect("input");
        it.invoke().expect("invoke");
        for (k, e) in expected.iter().enumerate() {
            let per_out = e.data.len() / samples;
            assert_eq!(
                it.output(k).expect("output").bytes,
                &e.data[s * per_out..(s + 1) * per_out],
                "sample {s}, output {k} bit for bit with LiteRT"
            );
        }
    }
}

/// One operator naming one tensor at two of its state positions: LiteRT would read and write
/// both states through one buffer within a step; refused, naming the operator and the tensor.
#[test]
fn one_operator_naming_a_state_tensor_twice_is_refused() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/golden");
    let bytes =
        std::fs::read(root.join("op_lstm_units5").join("model_float.tflite")).expect("golden");
    let mut m = crate::tflite::read(&bytes).expect("golden model reads");
    let op = m.subgraphs[0]
        .operators
        .iter_mut()
        .find(|o| o.code.name() == "UNIDIRECTIONAL_SEQUENCE_LSTM")
        .expect("the LSTM");
    op.inputs[19] = op.inputs[18];
    let text = cannot_run(&m);
    assert!(
        text.contains("UNIDIRECTIONAL_SEQUENCE_LSTM")
            && text.contains("the same state tensor as input 19"),
        "{text}"
    );
}

/// Mutation harness 4-2418 (issue 22): a bidirectional LSTM with cell clipping whose
/// input-to-forget weights hold ±inf, so inf − inf makes forget gates NaN. LiteRT's
/// `CwiseClipping` (`max(min(clip, c), -clip)`) turns the NaN cell into `+clip`; we kept NaN
/// (26 of 60 outputs differed). The fixture holds the kept mutant, the harness's input and
/// LiteRT 2.3 BUILTIN_REF's output (`tests/tools/mutation/make_fixture.py`).
#[test]
fn a_nan_cell_is_clipped_as_litert_clips_it() {
    let (_, _, ours, litert) = crate::ops::shape::test_model::run_mutant_fixture("4-2418");
    assert!(
        litert
            .chunks(4)
            .all(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]).is_finite()),
        "LiteRT's answer is finite"
    );
    assert_eq!(ours, litert, "bit for bit with LiteRT");
}

/// Mutation harness 7-8622 (issue 22): a hybrid bidirectional LSTM (asymmetric inputs) whose
/// backward recurrent-to-output weights were overwritten with the bytes of extreme floats, so
/// that int8 buffer holds −128s. LiteRT's x86 `MatrixBatchVectorMultiplyAccumulate` (SSSE3
/// sign transfer) negates a −128 weight's product with a negative input; we multiplied exactly
/// (62 of 192 outputs differed, every backward step after the first). The fixture holds the
/// kept mutant, the harness's input and LiteRT 2.3 BUILTIN_REF's output
/// (`tests/tools/mutation/make_fixture.py`).
#[test]
fn a_minus_128_hybrid_weight_multiplies_as_litert_x86_does() {
    let (_, _, ours, litert) = crate::ops::shape::test_model::run_mutant_fixture("7-8622");
    assert_eq!(ours, litert, "bit for bit with LiteRT");
}

/// Mutation harness 12-3655 (issue 22): a hybrid LSTM (asymmetric inputs, 7 units) whose
/// buffer 14 was filled with one byte, so the hidden state holds NaN after step 0. LiteRT's x86
/// range of a row shorter than 8 is not the "skip every NaN" we took: four lanes over the first
/// `len - len % 4` values, `std::minmax_element` over the rest, and a NaN in the last `len % 8`
/// values quantizes to 0 (72 of 84 outputs differed). The fixture holds the kept mutant, the
/// harness's input and LiteRT 2.3 BUILTIN_REF's output (`tests/tools/mutation/make_fixture.py`).
#[test]
fn a_nan_hidden_state_quantizes_as_litert_x86_does() {
    let (_, _, ours, litert) = crate::ops::shape::test_model::run_mutant_fixture("12-3655");
    assert_eq!(ours, litert, "bit for bit with LiteRT");
}
