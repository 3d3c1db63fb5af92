//! Quantization parameters LiteRT reads its own way (issue 22, "files LiteRT runs that we
//! refuse"), each built here as a small IR graph and run through the library.
//!
//! Checked with `ai_edge_litert` 2.3's interpreter (`BUILTIN_REF`) on mutants of the golden
//! models (`tests/tools/mutate.py --seed 3`; mutants 596, 675 and 684): a zero point that does not
//! fit in 32 bits (-2^58, 2^40, -2^32 + 1) runs exactly as its low 32 bits (0, 0, 1) do; LiteRT
//! copies the schema's `int64` into a C `int`.
#![cfg(not(target_arch = "wasm32"))]

use zeropoint::engine::Interpreter;
use zeropoint::graph::{
    Buffer, BuiltinOperator, BuiltinOptionsT, Model, OpCode, Operator, Quantization, Subgraph,
    Tensor, TensorType,
};

/// x (float32 [1, 2]) → QUANTIZE → q (int8, `scale`, `zero_point`) → DEQUANTIZE → y.
fn quantize_dequantize(scale: f32, zero_point: i64) -> Model {
    let mut q = Tensor::new("q", TensorType::INT8, vec![1, 2]);
    q.quantization = Some(Quantization {
        scale: Some(vec![scale]),
        zero_point: Some(vec![zero_point]),
        ..Default::default()
    });
    let op = |code, i: i32, o: i32| {
        Operator::new(
            OpCode::builtin(code, 1),
            vec![i],
            vec![o],
            BuiltinOptionsT::NONE,
        )
    };
    Model {
        version: 3,
        subgraphs: vec![Subgraph {
            tensors: vec![
                Tensor::new("x", TensorType::FLOAT32, vec![1, 2]),
                q,
                Tensor::new("y", TensorType::FLOAT32, vec![1, 2]),
            ],
            inputs: vec![0],
            outputs: vec![2],
            operators: vec![
                op(BuiltinOperator::QUANTIZE, 0, 1),
                op(BuiltinOperator::DEQUANTIZE, 1, 2),
            ],
            ..Default::default()
        }],
        buffers: vec![Buffer::default()],
        ..Default::default()
    }
}

fn run(model: &Model, x: [f32; 2]) -> Vec<f32> {
    let mut it = Interpreter::new(model).expect("prepares");
    it.set_input_f32(0, &x).expect("input");
    it.invoke().expect("runs");
    it.output(0).expect("y").as_f32().expect("float32").to_vec()
}

#[test]
fn a_zero_point_beyond_32_bits_runs_as_its_low_32_bits() {
    // 2^40 + 120 reads as 120: q = round(x / 0.5) + 120 = [118, 140 → 127], y = 0.5 (q − 120).
    let m = quantize_dequantize(0.5, (1 << 40) + 120);
    assert_eq!(run(&m, [-1.0, 10.0]), [-1.0, 3.5]);
    // -2^32 + 1 reads as 1: q = [-1, 21], y = [-1, 10].
    let m = quantize_dequantize(0.5, -(1 << 32) + 1);
    assert_eq!(run(&m, [-1.0, 10.0]), [-1.0, 10.0]);
    let warnings = zeropoint::graph::lint::warnings(&m);
    assert!(
        warnings.len() == 1
            && warnings[0].contains(
                "tensor 1 'q': zero point -4294967295 does not fit in 32 bits: read as 1"
            ),
        "{warnings:?}"
    );
    // Kept as found when written back.
    let back =
        zeropoint::tflite::read(&zeropoint::tflite::write(&m).expect("writes")).expect("reads");
    let q = back.subgraphs[0].tensors[1].quantization.as_ref();
    assert_eq!(q.map(|q| q.zero_points()), Some(&[-(1i64 << 32) + 1][..]));
}
