//! A tensor written twice (issue 22): by two operators, or a graph input an operator writes.
//! LiteRT runs both writes over one buffer; checked with `ai_edge_litert` 2.3 (`BUILTIN_REF`) on
//! these graphs for x = [1, 2]:
//!
//! - y = x + x, z = y · x, y = x · x, w = y + z, outputs (w, y, z): [3, 12], [1, 4], [2, 8];
//! - y = x + x, x = y · y, w = x + y, outputs (w, x): [6, 20], [4, 16];
//! - y = x + x, then y = RESHAPE(x, [2]): LiteRT runs it with y of shape [2] (the last Prepare's),
//!   the engine refuses it naming both writers.
//!
//! The engine gives every write its own tensor (`graph::rewrites`), with a warning; the quantizer
//! refuses these models, naming both writers.
#![cfg(all(not(target_arch = "wasm32"), feature = "cli"))]

use std::path::{Path, PathBuf};
use std::process::Command;

use zeropoint::Error;
use zeropoint::engine::Interpreter;
use zeropoint::graph::{
    Buffer, BuiltinOperator, BuiltinOptionsT, Model, OpCode, Operator, Subgraph, Tensor, TensorType,
};
use zeropoint::tflite;

const ADD: BuiltinOperator = BuiltinOperator::ADD;
const MUL: BuiltinOperator = BuiltinOperator::MUL;

fn options(op: BuiltinOperator) -> BuiltinOptionsT {
    match op {
        BuiltinOperator::ADD => BuiltinOptionsT::AddOptions(Box::default()),
        BuiltinOperator::MUL => BuiltinOptionsT::MulOptions(Box::default()),
        _ => BuiltinOptionsT::NONE,
    }
}

/// Float32 [1, 2] tensors named `names`, the operators `(op, inputs, outputs)`, input 0.
fn graph(names: &[&str], ops: &[(BuiltinOperator, &[i32], &[i32])], outputs: &[i32]) -> Model {
    Model {
        version: 3,
        subgraphs: vec![Subgraph {
            tensors: names
                .iter()
                .map(|n| Tensor::new(*n, TensorType::FLOAT32, vec![1, 2]))
                .collect(),
            inputs: vec![0],
            outputs: outputs.to_vec(),
            operators: ops
                .iter()
                .map(|&(op, i, o)| {
                    Operator::new(OpCode::builtin(op, 1), i.to_vec(), o.to_vec(), options(op))
                })
                .collect(),
            ..Default::default()
        }],
        buffers: vec![Buffer::default()],
        ..Default::default()
    }
}

fn run(model: &Model) -> Result<Vec<Vec<f32>>, Error> {
    let mut it = Interpreter::new(model)?;
    it.set_input_f32(0, &[1.0, 2.0])?;
    it.invoke()?;
    (0..it.outputs().len())
        .map(|k| Ok(it.output(k)?.as_f32().expect("float32").to_vec()))
        .collect()
}

fn two_writers() -> Model {
    graph(
        &["x", "y", "z", "w"],
        &[
            (ADD, &[0, 0], &[1]),
            (MUL, &[1, 0], &[2]),
            (MUL, &[0, 0], &[1]),
            (ADD, &[1, 2], &[3]),
        ],
        &[3, 1, 2],
    )
}

#[test]
fn two_operators_writing_one_tensor_run_as_litert_runs_them() {
    let m = two_writers();
    assert_eq!(
        run(&m).expect("runs"),
        [vec![3.0, 12.0], vec![1.0, 4.0], vec![2.0, 8.0]]
    );
    let warnings = zeropoint::graph::lint::warnings(&m);
    assert!(
        warnings.len() == 1
            && warnings[0].contains(
                "tensor 1 'y': written by operator 0 (ADD) and again by operator 2 (MUL)"
            ),
        "{warnings:?}"
    );
    // Several invocations: the same answer each time.
    let mut it = Interpreter::new(&m).expect("prepares");
    for _ in 0..3 {
        it.set_input_f32(0, &[1.0, 2.0]).expect("input");
        it.invoke().expect("runs");
        assert_eq!(it.output(1).expect("y").as_f32(), Some(&[1.0f32, 4.0][..]));
    }
}

#[test]
fn a_graph_input_an_operator_writes_runs_as_litert_runs_it() {
    let m = graph(
        &["x", "y", "w"],
        &[
            (ADD, &[0, 0], &[1]),
            (MUL, &[1, 1], &[0]),
            (ADD, &[0, 1], &[2]),
        ],
        &[2, 0],
    );
    assert_eq!(run(&m).expect("runs"), [vec![6.0, 20.0], vec![4.0, 16.0]]);
    let warnings = zeropoint::graph::lint::warnings(&m);
    assert!(
        warnings.len() == 1
            && warnings[0]
                .contains("tensor 0 'x': written by the graph input and again by operator 1 (MUL)"),
        "{warnings:?}"
    );
}

#[test]
fn a_second_write_of_another_shape_is_refused_naming_both_writers() {
    let mut m = graph(&["x", "y", "s"], &[(ADD, &[0, 0], &[1])], &[1]);
    let sg = &mut m.subgraphs[0];
    sg.tensors[2] = Tensor::new("s", TensorType::INT32, vec![1]);
    sg.tensors[2].buffer = 1;
    m.buffers.push(Buffer {
        data: 2i32.to_le_bytes().to_vec(),
    });
    m.subgraphs[0].operators.push(Operator::new(
        OpCode::builtin(BuiltinOperator::RESHAPE, 1),
        vec![0, 2],
        vec![1],
        BuiltinOptionsT::NONE,
    ));
    let Err(Error::CannotRun { issues }) = Interpreter::new(&m) else {
        panic!("a second write of another shape must be refused");
    };
    assert!(
        issues.len() == 1
            && issues[0].op_index == 1
            && issues[0].reason.contains(
                "operator 0 (ADD) writes this tensor too, with shape [1, 2] where this one \
                 computes [2]"
            ),
        "{issues:?}"
    );
}

#[test]
fn an_operator_writing_its_own_input_stays_refused() {
    // LiteRT: "Tensor 1 is both input 0 and output 0".
    let m = graph(
        &["x", "y"],
        &[(ADD, &[0, 0], &[1]), (MUL, &[1, 1], &[1])],
        &[1],
    );
    let Err(Error::CannotRun { issues }) = Interpreter::new(&m) else {
        panic!("must be refused");
    };
    assert!(
        issues.len() == 1 && issues[0].reason.contains("already has a value"),
        "{issues:?}"
    );
}

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("written_twice");
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir.join(name)
}

#[test]
fn the_quantizer_refuses_a_tensor_written_twice_in_every_mode() {
    let path = scratch("two_writers.tflite");
    std::fs::write(&path, tflite::write(&two_writers()).expect("writes")).expect("write");
    let data = scratch("x.npy");
    let mut npy_bytes = Vec::new();
    let x: Vec<u8> = [1.0f32, 2.0].iter().flat_map(|v| v.to_le_bytes()).collect();
    zeropoint::npy::write(&mut npy_bytes, zeropoint::npy::Dtype::F32, &[1, 1, 2], &x).expect("npy");
    std::fs::write(&data, npy_bytes).expect("write npy");
    for mode in ["float16", "dynamic", "int8"] {
        let out = scratch(&format!("two_writers.{mode}.tflite"));
        let _ = std::fs::remove_file(&out);
        let result = Command::new(env!("CARGO_BIN_EXE_zeropoint"))
            .args(["quantize", "--mode", mode, "--data"])
            .arg(&data)
            .arg(&path)
            .arg("-o")
            .arg(&out)
            .output()
            .expect("runs");
        let err = String::from_utf8_lossy(&result.stderr);
        assert!(!result.status.success(), "{mode}: quantized");
        assert!(
            err.contains(
                "operator 2 (MUL): unsupported at output 'y': operator 0 (ADD) writes this \
                 tensor too"
            ),
            "{mode}: {err}"
        );
        assert!(!out.exists(), "{mode}: wrote a file");
    }
}
