//! Tiny quantized models for the end-to-end tests of this file and of `pool`, `reduce` and
//! `resize`: one operator, activation inputs, optional constants, per-tensor quantization.

use crate::engine::Interpreter;
use crate::graph::{
    Buffer, BuiltinOperator, BuiltinOptionsT, Model, OpCode, Operator, Quantization, Subgraph,
    Tensor, TensorType,
};

/// One tensor of a test model.
pub(crate) struct T {
    pub dtype: TensorType,
    pub shape: Vec<i32>,
    /// `(scale, zero point)`, when quantized.
    pub q: Option<(f32, i64)>,
    /// Constant bytes, when constant.
    pub data: Option<Vec<u8>>,
}

/// An activation tensor.
pub(crate) fn act(dtype: TensorType, shape: &[i32], q: Option<(f32, i64)>) -> T {
    T {
        dtype,
        shape: shape.to_vec(),
        q,
        data: None,
    }
}

/// A constant INT32 tensor.
pub(crate) fn ints(shape: &[i32], v: &[i32]) -> T {
    T {
        dtype: TensorType::INT32,
        shape: shape.to_vec(),
        q: None,
        data: Some(bytemuck::cast_slice(v).to_vec()),
    }
}

/// A model running `code` on `tensors` (the last one is the output; constants are inputs
/// too, in order; the rest are graph inputs).
pub(crate) fn single_op(code: BuiltinOperator, options: BuiltinOptionsT, tensors: Vec<T>) -> Model {
    let n = tensors.len();
    let mut buffers = vec![Buffer::default()];
    let mut graph_inputs = Vec::new();
    let mut ts = Vec::new();
    for (i, t) in tensors.into_iter().enumerate() {
        let mut tensor = Tensor::new(format!("t{i}"), t.dtype, t.shape);
        tensor.quantization = t.q.map(|(s, z)| Quantization {
            scale: Some(vec![s]),
            zero_point: Some(vec![z]),
            ..Default::default()
        });
        match t.data {
            Some(d) => {
                tensor.buffer = buffers.len() as u32;
                buffers.push(Buffer { data: d });
            }
            None if i + 1 < n => graph_inputs.push(i as i32),
            None => {}
        }
        ts.push(tensor);
    }
    // The lowest version LiteRT registers (2 for BROADCAST_TO, 1 for the others).
    let version = crate::ops::registry::entry(code).map_or(1, |e| e.versions.0);
    let op = Operator::new(
        OpCode::builtin(code, version),
        (0..n as i32 - 1).collect(),
        vec![n as i32 - 1],
        options,
    );
    Model {
        version: 3,
        subgraphs: vec![Subgraph {
            tensors: ts,
            inputs: graph_inputs,
            outputs: vec![n as i32 - 1],
            operators: vec![op],
            ..Default::default()
        }],
        buffers,
        ..Default::default()
    }
}

/// Runs `m` on the given raw inputs; returns the output bytes.
pub(crate) fn run(m: &Model, inputs: &[&[u8]]) -> Vec<u8> {
    let mut it = Interpreter::new(m).expect("prepares");
    for (i, b) in inputs.iter().enumerate() {
        it.set_input(i, b).expect("input fits");
    }
    it.invoke().expect("the model runs");
    it.output(0).expect("output").bytes.to_vec()
}

/// Runs `m` (fast kernels) with XNNPACK's arithmetic on `inputs`; output 0's bytes.
pub(crate) fn run_xnnpack(m: &Model, inputs: &[&[u8]]) -> Vec<u8> {
    use crate::engine::Limits;
    use crate::kernels::{Arithmetic, KernelSet};
    let mut it =
        Interpreter::with_arithmetic(m, &Limits::default(), KernelSet::Fast, Arithmetic::Xnnpack)
            .expect("prepares");
    for (i, b) in inputs.iter().enumerate() {
        it.set_input(i, b).expect("input fits");
    }
    it.invoke().expect("the model runs");
    it.output(0).expect("output").bytes.to_vec()
}

/// The prepare error of `m`, as text.
pub(crate) fn error(m: &Model) -> String {
    match Interpreter::new(m) {
        Ok(_) => panic!("expected a prepare error"),
        Err(e) => e.to_string(),
    }
}

/// `i8` values as bytes.
pub(crate) fn i8s(v: &[i8]) -> Vec<u8> {
    bytemuck::cast_slice(v).to_vec()
}

/// A fixture of `tests/fixtures/<name>` made by a script from LiteRT (`model.tflite`,
/// `input_0.npy` with samples on the first axis, `litert_output_0.npy` with one output per
/// sample): runs every sample through the engine on one interpreter and requires LiteRT's bytes.
/// Returns the model for further checks.
pub(crate) fn equals_litert_fixture(name: &str) -> Model {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures")
        .join(name);
    let read = |f: &str| std::fs::read(dir.join(f)).expect("fixture file");
    let npy = |f: &str| crate::npy::read(f, &read(f)[..]).expect("npy");
    let m = crate::tflite::read(&read("model.tflite")).expect("model");
    let mut it = Interpreter::new(&m).expect("prepares");
    let (inputs, expected) = (npy("input_0.npy"), npy("litert_output_0.npy"));
    let samples = inputs.shape[0];
    assert_eq!(expected.shape[0], samples, "{name}");
    let (n_in, n_out) = (inputs.data.len() / samples, expected.data.len() / samples);
    for s in 0..samples {
        it.set_input(0, &inputs.data[s * n_in..(s + 1) * n_in])
            .expect("input");
        it.invoke().expect("invoke");
        let ours = it.output(0).expect("output").bytes.to_vec();
        assert_eq!(
            ours,
            expected.data[s * n_out..(s + 1) * n_out],
            "{name}, sample {s}: bit for bit with LiteRT"
        );
    }
    m
}

/// A kept mutant of the mutation harness, `tests/fixtures/mutants/<name>`
/// (`tests/tools/mutation/make_fixture.py`: `model.tflite`, the harness's `input_<i>.npy` for
/// every input, LiteRT 2.3's `litert_output_0.npy`): runs it once on those inputs and returns
/// the model, our output 0 (shape and bytes) and LiteRT's bytes.
pub(crate) fn run_mutant_fixture(name: &str) -> (Model, Vec<usize>, Vec<u8>, Vec<u8>) {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/mutants")
        .join(name);
    let read = |f: &str| std::fs::read(dir.join(f)).expect("fixture file");
    let npy = |f: &str| crate::npy::read(f, &read(f)[..]).expect("npy").data;
    let m = crate::tflite::read(&read("model.tflite")).expect("model");
    let mut it = Interpreter::new(&m).expect("prepares");
    for i in 0..it.inputs().len() {
        it.set_input(i, &npy(&format!("input_{i}.npy")))
            .expect("input");
    }
    it.invoke().expect("invoke");
    let out = it.output(0).expect("output");
    let (shape, ours) = (out.shape.to_vec(), out.bytes.to_vec());
    (m, shape, ours, npy("litert_output_0.npy"))
}
