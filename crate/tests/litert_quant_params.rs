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

/// y = W·x: x int8 (or float32) [1, 2], W = [[1, 2], [3, 4]] int8 per-channel (scales 1, zero
/// points `w_zp`), y of x's type; FULLY_CONNECTED without a bias, or CONV_2D over a 1×1 image
/// with a zero bias (LiteRT's CONV_2D refuses an omitted one).
fn weighted(conv: bool, input: TensorType, w_zp: [i64; 2]) -> Model {
    use zeropoint::tflite::schema::{Conv2DOptionsT, Padding};
    let q = |s: Vec<f32>, z: Vec<i64>| {
        Some(Quantization {
            scale: Some(s),
            zero_point: Some(z),
            ..Default::default()
        })
    };
    let shape = |s: &[i32]| if conv { s.to_vec() } else { vec![s[0], s[3]] };
    let mut x = Tensor::new("x", input, shape(&[1, 1, 1, 2]));
    let mut y = Tensor::new("y", input, shape(&[1, 1, 1, 2]));
    if input == TensorType::INT8 {
        x.quantization = q(vec![1.0], vec![0]);
        y.quantization = q(vec![1.0], vec![0]);
    }
    let mut w = Tensor::new("w", TensorType::INT8, shape(&[2, 1, 1, 2]));
    w.buffer = 1;
    w.quantization = q(vec![1.0, 1.0], w_zp.to_vec());
    let (code, options) = if conv {
        let mut o = Conv2DOptionsT::default();
        (o.padding, o.stride_w, o.stride_h) = (Padding::VALID, 1, 1);
        (o.dilation_w_factor, o.dilation_h_factor) = (1, 1);
        (
            BuiltinOperator::CONV_2D,
            BuiltinOptionsT::Conv2DOptions(Box::new(o)),
        )
    } else {
        (
            BuiltinOperator::FULLY_CONNECTED,
            BuiltinOptionsT::FullyConnectedOptions(Box::default()),
        )
    };
    let mut b = Tensor::new(
        "b",
        if input == TensorType::INT8 {
            TensorType::INT32
        } else {
            TensorType::FLOAT32
        },
        vec![2],
    );
    b.buffer = 2;
    let version = if input == TensorType::INT8 { 3 } else { 2 };
    Model {
        version: 3,
        subgraphs: vec![Subgraph {
            tensors: vec![x, w, y, b],
            inputs: vec![0],
            outputs: vec![2],
            operators: vec![Operator::new(
                OpCode::builtin(code, version),
                vec![0, 1, if conv { 3 } else { -1 }],
                vec![2],
                options,
            )],
            ..Default::default()
        }],
        buffers: vec![
            Buffer::default(),
            Buffer {
                data: vec![1, 2, 3, 4],
            },
            Buffer { data: vec![0; 8] },
        ],
        ..Default::default()
    }
}

fn run_bytes(model: &Model, x: &[u8]) -> Result<Vec<u8>, zeropoint::Error> {
    let mut it = Interpreter::new(model)?;
    it.set_input(0, x)?;
    it.invoke()?;
    Ok(it.output(0)?.bytes.to_vec())
}

#[test]
fn per_channel_weight_zero_points_are_ignored_where_litert_ignores_them() {
    let x8 = [1u8, 2];
    let xf: Vec<u8> = [1.0f32, 2.0].iter().flat_map(|v| v.to_le_bytes()).collect();
    // Zero points [0, 5] give what [0, 0] gives (LiteRT 2.3 measured so): y = [5, 11] in int8;
    // the hybrid conv's product of its int8-quantized input is ≈ [5, 11].
    let hybrid = |w_zp| run_bytes(&weighted(true, TensorType::FLOAT32, w_zp), &xf);
    let symmetric = hybrid([0, 0]).expect("hybrid conv runs");
    assert_eq!(hybrid([0, 5]).expect("hybrid conv runs"), symmetric);
    for w_zp in [[0, 0], [0, 5]] {
        let fc = weighted(false, TensorType::INT8, w_zp);
        assert_eq!(run_bytes(&fc, &x8).expect("int8 FC runs"), [5, 11]);
    }
    let warnings = zeropoint::graph::lint::warnings(&weighted(false, TensorType::INT8, [0, 5]));
    assert!(
        warnings.len() == 1
            && warnings[0].contains(
                "operator 0 (FULLY_CONNECTED): per-channel weights 'w' have 1 zero point(s) \
                 other than 0: ignored"
            ),
        "{warnings:?}"
    );
    // LiteRT's integer CONV_2D refuses them (conv.cc), and so does the engine.
    let conv = weighted(true, TensorType::INT8, [0, 0]);
    assert_eq!(run_bytes(&conv, &x8).expect("int8 conv runs"), [5, 11]);
    let e = run_bytes(&weighted(true, TensorType::INT8, [0, 5]), &x8)
        .expect_err("refused")
        .to_string();
    assert!(e.contains("non-zero weight zero point"), "{e}");
    assert!(zeropoint::graph::lint::warnings(&weighted(true, TensorType::INT8, [0, 5])).is_empty());
}
