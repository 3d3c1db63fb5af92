//! End-to-end tests of [`quantize`] on small hand-built models: full integer (by hand-computed
//! parameters, float and uint8 I/O, float operators, missing ranges, same-scale requantizes),
//! dynamic range and float16, and the option parsers.

use super::edit::simple_op;
use super::*;
use crate::fixedpoint::quantize_multiplier;
use crate::graph::{Buffer, BuiltinOptionsT, OpCode, Subgraph, Tensor, TensorType};
use crate::quant::params::QuantParams;

fn f32_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// x[1,4] → FULLY_CONNECTED(w[2,4], b[2]) → y[1,2] → `last` → z[1,2].
fn tiny(last: OpCode) -> Model {
    let mut sg = Subgraph::default();
    let mut t = |name: &str, shape: Vec<i32>, buffer: u32| {
        let mut x = Tensor::new(name, TensorType::FLOAT32, shape);
        x.buffer = buffer;
        sg.tensors.push(x);
    };
    t("x", vec![1, 4], 0);
    t("w", vec![2, 4], 1);
    t("b", vec![2], 2);
    t("y", vec![1, 2], 0);
    t("z", vec![1, 2], 0);
    sg.inputs = vec![0];
    sg.outputs = vec![4];
    let mut fc = simple_op(Op::FULLY_CONNECTED, 1, 0, 3);
    fc.inputs = vec![0, 1, 2];
    fc.options = BuiltinOptionsT::FullyConnectedOptions(Box::default());
    let mut sm = simple_op(Op::SOFTMAX, 1, 3, 4);
    sm.code = last;
    sg.operators = vec![fc, sm];
    Model {
        version: 3,
        subgraphs: vec![sg],
        buffers: vec![
            Buffer::default(),
            Buffer {
                data: f32_bytes(&[1.0, -0.5, 0.25, 0.0, 0.0, 0.0, 0.0, 2.0]),
            },
            Buffer {
                data: f32_bytes(&[0.5, -1.0]),
            },
        ],
        ..Model::default()
    }
}

fn ranges(m: &Model) -> Ranges {
    let mut r = Ranges::new();
    for (i, lo, hi) in [(0, -1.0, 1.0), (3, -2.0, 6.0), (4, 0.0, 1.0)] {
        r.insert(i, &m.subgraphs[0].tensors[i].name, lo, hi)
            .expect("finite");
    }
    r
}

fn q(t: &Tensor) -> (Vec<f32>, Vec<i64>) {
    let q = t.quantization.as_ref().expect("quantized");
    (q.scales().to_vec(), q.zero_points().to_vec())
}

#[test]
fn fully_connected_then_softmax_by_hand() {
    let m = tiny(OpCode::builtin(Op::SOFTMAX, 1));
    let (out, report) = quantize(&m, &ranges(&m), &QuantizeOptions::default()).expect("ok");
    let sg = &out.subgraphs[0];
    let by = |n: &str| sg.tensors.iter().position(|t| t.name == n).expect(n);
    // x: [-1, 1] → scale 2/255, zero point round(-128 + 127.5) = -1 (half away from zero).
    assert_eq!(q(&sg.tensors[by("x")]), (vec![2.0 / 255.0], vec![-1]));
    assert_eq!(sg.tensors[by("x")].dtype, TensorType::INT8);
    // y: [-2, 6] → scale 8/255, zero point round(-128 + 63.75) = -64.
    assert_eq!(q(&sg.tensors[by("y")]), (vec![8.0 / 255.0], vec![-64]));
    // z: SOFTMAX's fixed 1/256, -128 whatever its range.
    assert_eq!(q(&sg.tensors[by("z")]), (vec![1.0 / 256.0], vec![-128]));
    // Weights per output channel: scales 1/127, 2/127; -0.5·127 = -63.5 → -64, 31.75 → 32.
    let w = by("w");
    assert_eq!(q(&sg.tensors[w]).0, vec![1.0 / 127.0, 2.0 / 127.0]);
    let wv: Vec<i8> = out
        .tensor_data(0, w)
        .expect("w")
        .iter()
        .map(|&b| b as i8)
        .collect();
    assert_eq!(wv, vec![127, -64, 32, 0, 0, 0, 0, 127]);
    // Bias: 0.5 / (2/255 · 1/127) = 8096.25 → 8096; -1 / (2/255 · 2/127) → -8096.
    let b = by("b");
    assert_eq!(sg.tensors[b].dtype, TensorType::INT32);
    let bv: Vec<i32> = out
        .tensor_data(0, b)
        .expect("b")
        .chunks_exact(4)
        .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    assert_eq!(bv, vec![8096, -8096]);
    let versions: Vec<i32> = sg.operators.iter().map(|o| o.code.version).collect();
    assert_eq!(versions, vec![4, 2]);
    // The report's multiplier: s_x · s_w[0] / s_y = (2/255)(1/127)/(8/255) = 1/508.
    let m0 = report.ops[0].multipliers[0];
    assert!((m0 - 1.0 / 508.0).abs() < 1e-9, "{m0}");
    assert_eq!(report.ops[0].quantized[0], quantize_multiplier(m0));
}

#[test]
fn float_io_adds_quantize_and_dequantize_named_as_tf() {
    let m = tiny(OpCode::builtin(Op::SOFTMAX, 1));
    let opts = QuantizeOptions {
        io: IoType::Float,
        ..QuantizeOptions::default()
    };
    let (out, _) = quantize(&m, &ranges(&m), &opts).expect("ok");
    let sg = &out.subgraphs[0];
    let names: Vec<String> = sg.operators.iter().map(|o| o.code.name()).collect();
    assert_eq!(
        names,
        ["QUANTIZE", "FULLY_CONNECTED", "SOFTMAX", "DEQUANTIZE"]
    );
    let name = |t: i32| sg.tensors[t as usize].name.as_str();
    assert_eq!(name(sg.operators[0].outputs[0]), "tfl.quantize");
    assert_eq!(name(sg.operators[2].outputs[0]), "z1");
    assert_eq!(name(sg.outputs[0]), "z");
    assert_eq!(
        sg.tensors[sg.outputs[0] as usize].dtype,
        TensorType::FLOAT32
    );
    assert_eq!(sg.tensors[sg.inputs[0] as usize].dtype, TensorType::FLOAT32);
}

#[test]
fn uint8_io_shifts_the_zero_point() {
    let m = tiny(OpCode::builtin(Op::SOFTMAX, 1));
    let opts = QuantizeOptions {
        io: IoType::Uint8,
        ..QuantizeOptions::default()
    };
    let (out, _) = quantize(&m, &ranges(&m), &opts).expect("ok");
    let sg = &out.subgraphs[0];
    let x = &sg.tensors[sg.inputs[0] as usize];
    assert_eq!(x.dtype, TensorType::UINT8);
    assert_eq!(q(x), (vec![2.0 / 255.0], vec![127]));
    let z = &sg.tensors[sg.outputs[0] as usize];
    assert_eq!(q(z), (vec![1.0 / 256.0], vec![0]));
}

#[test]
fn unsupported_op_stays_float_between_dequantize_and_quantize() {
    let custom = OpCode {
        custom_code: Some("MyOp".into()),
        ..OpCode::builtin(Op::CUSTOM, 1)
    };
    let m = tiny(custom);
    let (out, report) = quantize(&m, &ranges(&m), &QuantizeOptions::default()).expect("ok");
    assert!(
        report
            .warnings
            .iter()
            .any(|w| w.contains("operator 1 (MyOp) stays float")),
        "{:?}",
        report.warnings
    );
    let sg = &out.subgraphs[0];
    let names: Vec<String> = sg.operators.iter().map(|o| o.code.name()).collect();
    // With int8 I/O the float op's result is quantized into the model output, as TF does
    // around the ops it keeps float (goldens op_neg, op_square, op_floor).
    assert_eq!(names, ["FULLY_CONNECTED", "DEQUANTIZE", "MyOp", "QUANTIZE"]);
    assert_eq!(sg.tensors[sg.outputs[0] as usize].dtype, TensorType::INT8);
    // The custom op reads the DEQUANTIZE output, a float tensor.
    let input = sg.operators[2].inputs[0] as usize;
    assert_eq!(sg.tensors[input].dtype, TensorType::FLOAT32);
    assert_eq!(sg.operators[1].outputs[0] as usize, input);
}

#[test]
fn missing_or_bad_ranges_are_typed_errors() {
    let m = tiny(OpCode::builtin(Op::SOFTMAX, 1));
    let mut r = Ranges::new();
    r.insert(0, "x", -1.0, 1.0).expect("finite");
    // y has no range (z's is fixed by SOFTMAX): named in the error.
    let e = quantize(&m, &r, &QuantizeOptions::default()).expect_err("missing y");
    assert!(e.to_string().contains("tensor 3 'y'"), "{e}");
    assert!(r.insert(3, "y", f32::NAN, 1.0).is_err());
    let e = r.insert(3, "y", 2.0, 1.0).expect_err("inverted");
    assert!(e.to_string().contains("'y'"), "{e}");
    // Dynamic range and float16 need no ranges; small weights stay float in dynamic mode.
    let dynamic = QuantizeOptions {
        mode: Mode::Dynamic,
        ..QuantizeOptions::default()
    };
    let (out, _) = quantize(&m, &Ranges::new(), &dynamic).expect("ok");
    assert_eq!(out.subgraphs[0].tensors[1].dtype, TensorType::FLOAT32);
    let fp16 = QuantizeOptions {
        mode: Mode::Float16,
        ..QuantizeOptions::default()
    };
    let (out, _) = quantize(&m, &Ranges::new(), &fp16).expect("ok");
    assert_eq!(out.subgraphs[0].tensors[1].dtype, TensorType::FLOAT16);
    assert_eq!(out.subgraphs[0].operators[0].code.name(), "DEQUANTIZE");
    // A replaced constant must be a float32 constant of its size (--auto's weight changes).
    for (t, len) in [(1, 4), (0, 12), (99, 12)] {
        let bad = QuantizeOptions {
            constants: vec![(t, vec![0; len])],
            ..QuantizeOptions::default()
        };
        let e = quantize(&m, &Ranges::new(), &bad).expect_err("refused");
        assert!(e.to_string().contains(&format!("tensor {t}")), "{e}");
    }
}

/// x[1,3] → LOGISTIC → s; CONCATENATION(s, x) → c[1,6].
fn concat_of_logistic() -> Model {
    let mut sg = Subgraph::default();
    for (name, shape) in [("x", vec![1, 3]), ("s", vec![1, 3]), ("c", vec![1, 6])] {
        sg.tensors
            .push(Tensor::new(name, TensorType::FLOAT32, shape));
    }
    sg.inputs = vec![0];
    sg.outputs = vec![2];
    let mut cat = simple_op(Op::CONCATENATION, 1, 1, 2);
    cat.inputs = vec![1, 0];
    sg.operators = vec![simple_op(Op::LOGISTIC, 1, 0, 1), cat];
    Model {
        version: 3,
        subgraphs: vec![sg],
        buffers: vec![Buffer::default()],
        ..Model::default()
    }
}

#[test]
fn concat_shares_its_result_range_and_requantizes_a_fixed_input() {
    let m = concat_of_logistic();
    let mut r = Ranges::new();
    r.insert(0, "x", -4.0, 4.0).expect("finite");
    r.insert(1, "s", 0.02, 0.98).expect("finite");
    r.insert(2, "c", -4.0, 4.0).expect("finite");
    let (out, _) = quantize(&m, &r, &QuantizeOptions::default()).expect("ok");
    let sg = &out.subgraphs[0];
    let names: Vec<String> = sg.operators.iter().map(|o| o.code.name()).collect();
    assert_eq!(names, ["LOGISTIC", "QUANTIZE", "CONCATENATION"]);
    // c's range [-4, 4]: scale 8/255, zero point round(-128 + 127.5) = -1; x (an operand of
    // the concatenation) takes it instead of its own range.
    let c = QuantParams {
        scale: 8.0 / 255.0,
        zero_point: -1,
    };
    let params = |t: i32| {
        let q = sg.tensors[t as usize].quantization.as_ref().expect("q");
        QuantParams {
            scale: q.scales()[0],
            zero_point: q.zero_points()[0] as i32,
        }
    };
    assert_eq!(params(sg.inputs[0]), c);
    assert_eq!(params(sg.outputs[0]), c);
    // LOGISTIC writes 1/256, -128 into 's'; a requantize gives the concatenation 's1' in c's.
    let s = sg.operators[0].outputs[0];
    assert_eq!(sg.tensors[s as usize].name, "s");
    assert_eq!(
        params(s),
        QuantParams {
            scale: 1.0 / 256.0,
            zero_point: -128
        }
    );
    let s1 = sg.operators[1].outputs[0];
    assert_eq!(sg.tensors[s1 as usize].name, "s1");
    assert_eq!(params(s1), c);
    assert_eq!(sg.operators[2].inputs, vec![s1, sg.inputs[0]]);

    // 16x8: the result keeps its range, each input with other parameters is requantized.
    let opts = QuantizeOptions {
        mode: Mode::Int16x8,
        io: IoType::Float,
        ..QuantizeOptions::default()
    };
    r.insert(2, "c", -5.0, 4.0).expect("finite");
    let (out, _) = quantize(&m, &r, &opts).expect("ok");
    let sg = &out.subgraphs[0];
    let names: Vec<&str> = sg.tensors.iter().map(|t| t.name.as_str()).collect();
    for n in ["x_int16", "x_requantized", "s_requantized", "c_int16"] {
        assert!(names.contains(&n), "{n} in {names:?}");
    }
    let c16 = sg
        .tensors
        .iter()
        .find(|t| t.name == "c_int16")
        .expect("c_int16");
    let q = c16.quantization.as_ref().expect("q");
    // Symmetric: 5 / 32767, zero point 0, recorded range kept.
    assert_eq!(q.scales(), [5.0f32 / 32767.0]);
    assert_eq!(q.min.as_deref(), Some(&[-5.0f32][..]));
}

#[test]
fn options_parse() {
    assert_eq!(Mode::parse("16x8").expect("ok"), Mode::Int16x8);
    assert!(Mode::parse("int4").is_err());
    assert_eq!(IoType::parse("float").expect("ok"), IoType::Float);
    assert!(IoType::parse("bf16").is_err());
}

#[test]
fn shape_reads_the_integer_tensor_and_stays_int32() {
    // x → FULLY_CONNECTED → y → SHAPE → z (INT32 [2]), as Keras' dynamic-batch exports compute
    // reshape targets: TF's int8 model has SHAPE read the int8 tensor, with no DEQUANTIZE.
    let mut m = tiny(OpCode::builtin(Op::SHAPE, 1));
    let z = &mut m.subgraphs[0].tensors[4];
    z.dtype = TensorType::INT32;
    z.shape = Some(vec![2]);
    let mut r = Ranges::new();
    for (i, lo, hi) in [(0, -1.0, 1.0), (3, -2.0, 6.0)] {
        r.insert(i, &m.subgraphs[0].tensors[i].name, lo, hi)
            .expect("finite");
    }
    let (out, report) = quantize(&m, &r, &QuantizeOptions::default()).expect("ok");
    let sg = &out.subgraphs[0];
    let ops: Vec<Op> = sg.operators.iter().map(|o| o.code.op()).collect();
    assert_eq!(ops, [Op::FULLY_CONNECTED, Op::SHAPE], "{ops:?}");
    let shape = &sg.operators[1];
    let read = shape.input(0).expect("input");
    assert_eq!(sg.tensors[read].dtype, TensorType::INT8);
    let written = shape.outputs[0] as usize;
    assert_eq!(sg.tensors[written].dtype, TensorType::INT32);
    assert!(sg.tensors[written].quantization.is_none());
    assert!(
        report.warnings.iter().all(|w| !w.contains("SHAPE")),
        "{:?}",
        report.warnings
    );
}

#[test]
fn int8_writes_only_versions_litert_registers() {
    // x → RELU_N1_TO_1 → z, nothing to fuse it into: TF 2.21 writes the int8 kernel as
    // version 1, the only one LiteRT 2.3 registers (the table said 2: LiteRT refused the file,
    // "Didn't find op for builtin opcode 'RELU_N1_TO_1' version '2'").
    let mut sg = Subgraph::default();
    sg.tensors
        .push(Tensor::new("x", TensorType::FLOAT32, vec![1, 2]));
    sg.tensors
        .push(Tensor::new("z", TensorType::FLOAT32, vec![1, 2]));
    sg.inputs = vec![0];
    sg.outputs = vec![1];
    sg.operators = vec![simple_op(Op::RELU_N1_TO_1, 1, 0, 1)];
    let m = Model {
        version: 3,
        subgraphs: vec![sg],
        buffers: vec![Buffer::default()],
        ..Model::default()
    };
    let mut r = Ranges::new();
    r.insert(0, "x", -2.0, 2.0).expect("finite");
    r.insert(1, "z", -1.0, 1.0).expect("finite");
    let (out, _) = quantize(&m, &r, &QuantizeOptions::default()).expect("ok");
    let ops: Vec<(String, i32)> = out.subgraphs[0]
        .operators
        .iter()
        .map(|o| (o.code.name(), o.code.version))
        .collect();
    assert_eq!(ops, [("RELU_N1_TO_1".to_string(), 1)]);
}

/// x[1,2] → FULLY_CONNECTED(w, b) → y → FULLY_CONNECTED(w, b) → z → ADD(z, b) → u: one weight,
/// one bias, read three times.
fn shared_weights_and_bias() -> Model {
    let mut sg = Subgraph::default();
    for (name, shape, buffer) in [
        ("x", vec![1, 2], 0),
        ("w", vec![2, 2], 1),
        ("b", vec![2], 2),
        ("y", vec![1, 2], 0),
        ("z", vec![1, 2], 0),
        ("u", vec![1, 2], 0),
    ] {
        let mut t = Tensor::new(name, TensorType::FLOAT32, shape);
        t.buffer = buffer;
        sg.tensors.push(t);
    }
    sg.inputs = vec![0];
    sg.outputs = vec![5];
    let fc = |input: usize, output: usize| {
        let mut op = simple_op(Op::FULLY_CONNECTED, 1, input, output);
        op.inputs = vec![input as i32, 1, 2];
        op.options = BuiltinOptionsT::FullyConnectedOptions(Box::default());
        op
    };
    let mut add = simple_op(Op::ADD, 1, 4, 5);
    add.inputs = vec![4, 2];
    add.options = BuiltinOptionsT::AddOptions(Box::default());
    sg.operators = vec![fc(0, 3), fc(3, 4), add];
    Model {
        version: 3,
        subgraphs: vec![sg],
        buffers: vec![
            Buffer::default(),
            Buffer {
                data: f32_bytes(&[1.0, 0.0, 0.0, 2.0]),
            },
            Buffer {
                data: f32_bytes(&[0.5, -1.0]),
            },
        ],
        ..Model::default()
    }
}

#[test]
fn shared_weights_are_quantized_once_and_each_bias_use_gets_its_own() {
    let m = shared_weights_and_bias();
    let mut r = Ranges::new();
    for (i, lo, hi) in [
        (0, -1.0, 1.0),
        (3, -2.0, 6.0),
        (4, -4.0, 4.0),
        (5, -4.0, 4.0),
    ] {
        r.insert(i, &m.subgraphs[0].tensors[i].name, lo, hi)
            .expect("finite");
    }
    let (out, _) = quantize(&m, &r, &QuantizeOptions::default()).expect("ok");
    let sg = &out.subgraphs[0];
    let ops = &sg.operators;
    // As TF's MLIR quantizer (PreprocessConstantOps): the weights of both FULLY_CONNECTED ops
    // are one int8 tensor, each bias use its own int32 copy (the bias scale depends on the
    // op's input), and the ADD operand (a "weight" to TF: neither bias nor same-scale) one
    // int8 copy of b.
    assert_eq!(ops[0].inputs[1], ops[1].inputs[1]);
    let w = ops[0].inputs[1] as usize;
    assert_eq!(sg.tensors[w].dtype, TensorType::INT8);
    // Per channel: 1/127 and 2/127.
    assert_eq!(q(&sg.tensors[w]).0, vec![1.0 / 127.0, 2.0 / 127.0]);
    let (b0, b1, b2) = (
        ops[0].inputs[2] as usize,
        ops[1].inputs[2] as usize,
        ops[2].inputs[1] as usize,
    );
    assert!(b0 != b1 && b1 != b2 && b0 != b2, "{b0} {b1} {b2}");
    assert_eq!(sg.tensors[b0].dtype, TensorType::INT32);
    assert_eq!(sg.tensors[b1].dtype, TensorType::INT32);
    assert_eq!(sg.tensors[b2].dtype, TensorType::INT8);
    // Bias scales s_in · s_w: x's 2/255 for the first op, y's 8/255 for the second.
    let close = |t: usize, s_in: f64| {
        let got = q(&sg.tensors[t]).0;
        let want = [s_in / 127.0, s_in * 2.0 / 127.0];
        assert_eq!(got.len(), 2);
        for (g, w) in got.iter().zip(want) {
            assert!((f64::from(*g) / w - 1.0).abs() < 1e-6, "{g} vs {w}");
        }
    };
    close(b0, 2.0 / 255.0);
    close(b1, 8.0 / 255.0);
    // The first reader keeps the name, the copies take TF's `<name>1`, `<name>2`.
    let names: Vec<&str> = [b0, b1, b2]
        .iter()
        .map(|&t| sg.tensors[t].name.as_str())
        .collect();
    assert_eq!(names, ["b", "b1", "b2"]);
    // x, w, b, y, z, u and two copies of b.
    assert_eq!(sg.tensors.len(), 8);
}

#[test]
fn shared_weights_widened_for_one_ops_bias_are_copied_for_that_op() {
    // x → FC(w, b) → y → FC(w, b2) → z: the second op's input range is tiny, so its bias
    // b2 = [1, 1] overflows int32 at s_y · s_w: TF widens that op's weights on its own copy.
    let mut m = shared_weights_and_bias();
    let sg = &mut m.subgraphs[0];
    sg.operators.truncate(2);
    sg.outputs = vec![4];
    let mut b2 = Tensor::new("b2", TensorType::FLOAT32, vec![2]);
    b2.buffer = 3;
    sg.tensors.push(b2);
    sg.operators[1].inputs[2] = 6;
    m.buffers.push(Buffer {
        data: f32_bytes(&[1.0, 1.0]),
    });
    let mut r = Ranges::new();
    for (i, lo, hi) in [(0, -1.0, 1.0), (3, -1e-5, 1e-5), (4, -4.0, 4.0)] {
        r.insert(i, &m.subgraphs[0].tensors[i].name, lo, hi)
            .expect("finite");
    }
    let (out, report) = quantize(&m, &r, &QuantizeOptions::default()).expect("ok");
    let sg = &out.subgraphs[0];
    let (w, w1) = (
        sg.operators[0].inputs[1] as usize,
        sg.operators[1].inputs[1] as usize,
    );
    assert_ne!(w, w1);
    assert_eq!(sg.tensors[w].name, "w");
    assert_eq!(sg.tensors[w1].name, "w1");
    assert_eq!(q(&sg.tensors[w]).0, vec![1.0 / 127.0, 2.0 / 127.0]);
    // Channel 0: |1| / (s_y · 1/127) = 127 · 255 / 2e-5 ≈ 1.6e9 > 2^30 - 1 → bias scale
    // 1 / (2^30 - 1), weight scale that / s_y; channel 1 (8.1e8) keeps 2/127.
    let s_y = 2e-5f64 / 255.0;
    let want = 1.0 / 1_073_741_823.0 / s_y;
    let got = q(&sg.tensors[w1]).0;
    assert!((f64::from(got[0]) / want - 1.0).abs() < 1e-5, "{got:?}");
    assert_eq!(got[1], 2.0 / 127.0);
    // w[0][0] = 1 at that scale: round(1 / 0.011874) = 84.
    let data = out.tensor_data(0, w1).expect("w1");
    assert_eq!(data[0] as i8, 84);
    assert!(
        report
            .warnings
            .iter()
            .any(|x| x.contains("copy of the shared weights"))
    );
}

/// Mutation harness 4-6957 / 4-8215 (issue 22): an operator output declared with another shape
/// than it is computed at (here y declared [3, 1, 2, 7] and z rank 5 with a signature) runs in
/// LiteRT's reference kernels, which resize it at prepare, but its XNNPACK delegate takes the
/// declared shape and refuses the file. Every mode writes the computed shape, except where the
/// signature marks the dimensions dynamic (TF declares a placeholder there: realworld
/// `dynamic_shapes` declares [1, 1] with signature [-1, -1] for a tensor computed [144, 6]).
#[test]
fn operator_outputs_are_written_at_their_computed_shape() {
    let mut m = tiny(OpCode::builtin(Op::SOFTMAX, 1));
    m.subgraphs[0].tensors[3].shape = Some(vec![3, 1, 2, 7]);
    let z = &mut m.subgraphs[0].tensors[4];
    z.shape = Some(vec![1, 1, 1, 1, 2]);
    z.shape_signature = Some(vec![1, 1, 1, 1, 2]);
    m.subgraphs[0].tensors[0].shape_signature = Some(vec![-1, 4]);
    for mode in [Mode::Int8, Mode::Int16x8, Mode::Dynamic, Mode::Float16] {
        let opts = QuantizeOptions {
            mode,
            ..QuantizeOptions::default()
        };
        let (out, _) = quantize(&m, &ranges(&m), &opts).expect("quantizes");
        let sg = &out.subgraphs[0];
        let by = |n: &str| &sg.tensors[sg.tensors.iter().position(|t| t.name == n).expect(n)];
        assert_eq!(by("y").dims(), [1, 2], "{mode:?}");
        assert_eq!(by("z").dims(), [1, 2], "{mode:?}");
        assert_eq!(by("z").shape_signature.as_deref(), Some(&[1, 2][..]));
        // A graph input keeps what it declares (its dynamic batch included).
        assert_eq!(by("x").shape_signature.as_deref(), Some(&[-1, 4][..]));
    }
    let y = &mut m.subgraphs[0].tensors[3];
    y.shape = Some(vec![1, 1]);
    y.shape_signature = Some(vec![-1, -1]);
    let (out, _) = quantize(
        &m,
        &Ranges::new(),
        &QuantizeOptions {
            mode: Mode::Float16,
            ..QuantizeOptions::default()
        },
    )
    .expect("quantizes");
    let y = out.subgraphs[0]
        .tensors
        .iter()
        .find(|t| t.name == "y")
        .expect("y");
    assert_eq!(
        (y.dims(), y.shape_signature.as_deref()),
        (&[1, 1][..], Some(&[-1, -1][..]))
    );
}

/// The same inside WHILE / IF bodies: realworld `control_flow` (an IF, then a WHILE whose body
/// computes `while/mul` at [1, 4]) with that body output declared a garbage [3, 5, 2], and
/// `while/add_1` declared [1, 1] with the signature [-1, -1] (dynamic: kept as declared). Every
/// mode that writes without calibrating writes the body's computed shape, and the file runs.
#[test]
fn body_outputs_are_written_at_their_computed_shape() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/realworld/control_flow/model.tflite");
    let mut m = crate::tflite::read(&std::fs::read(path).expect("realworld model")).expect("reads");
    let body = m
        .subgraphs
        .iter()
        .position(|sg| sg.name.as_deref() == Some("while_body"))
        .expect("the WHILE body");
    let at = |m: &Model, name: &str| {
        m.subgraphs[body]
            .tensors
            .iter()
            .position(|t| t.name == name)
            .expect(name)
    };
    let (mul, add) = (at(&m, "while/mul"), at(&m, "while/add_1"));
    assert_eq!(
        m.subgraphs[body].tensors[mul].dims(),
        [1, 4],
        "the model as TF wrote it"
    );
    m.subgraphs[body].tensors[mul].shape = Some(vec![3, 5, 2]);
    let a = &mut m.subgraphs[body].tensors[add];
    a.shape = Some(vec![1, 1]);
    a.shape_signature = Some(vec![-1, -1]);
    for mode in [Mode::Dynamic, Mode::Float16] {
        let opts = QuantizeOptions {
            mode,
            ..QuantizeOptions::default()
        };
        let (out, _) = quantize(&m, &Ranges::new(), &opts).expect("quantizes");
        assert_eq!(
            out.subgraphs[body].tensors[at(&out, "while/mul")].dims(),
            [1, 4],
            "{mode:?}"
        );
        let a = &out.subgraphs[body].tensors[at(&out, "while/add_1")];
        assert_eq!(
            (a.dims(), a.shape_signature.as_deref()),
            (&[1, 1][..], Some(&[-1, -1][..])),
            "{mode:?}"
        );
        let written = crate::tflite::write(&out).expect("writes");
        let back = crate::tflite::read(&written).expect("reads back");
        crate::engine::Interpreter::new(&back).expect("the written file runs");
    }
}

/// Mutant 7818 of seed 4 (round seven): an int8 tensor of `int4_weights` given a denormal scale.
/// LiteRT's reference kernels run the file; its default XNNPACK path refuses it ("unsupported
/// scale value"), and its values mean nothing: every mode refuses to quantize it, naming the
/// tensor, rather than writing a copy as if it were valid.
#[test]
fn an_absurd_scale_is_refused_by_every_mode() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/realworld/int4_weights/model.tflite");
    let mut m = crate::tflite::read(&std::fs::read(path).expect("model")).expect("reads");
    let t = m.subgraphs[0]
        .tensors
        .iter_mut()
        .find(|t| t.dtype == TensorType::INT8 && t.quantization.is_some())
        .expect("an int8 tensor");
    let name = t.name.clone();
    if let Some(q) = t.quantization.as_mut() {
        q.scale = Some(vec![1e-45]);
    }
    for mode in [Mode::Int8, Mode::Int16x8, Mode::Dynamic, Mode::Float16] {
        let opts = QuantizeOptions {
            mode,
            ..QuantizeOptions::default()
        };
        let e = quantize(&m, &Ranges::new(), &opts)
            .expect_err("refused")
            .to_string();
        assert!(e.contains(&name) && e.contains("absurd"), "{mode:?}: {e}");
    }
}

/// Mutants 3560 and 9353 of seed 12: a float conv weight bit-flipped to about -5.3e37. The int8
/// weight scale of its channel becomes 4.2e35 (TF 2.21 writes the same scales), and LiteRT's
/// default XNNPACK path refuses the file ("failed to create XNNPACK runtime": a requantization
/// scale far above 256). Both integer modes refuse to write it, naming the weight; the same
/// model with its weight intact quantizes. (Dynamic range keeps this small weight float; the
/// check is on every mode's result.)
#[test]
fn an_absurd_scale_computed_from_the_weights_is_refused() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/golden/op_conv2d_s2_valid_relu6/model_float.tflite");
    let m = crate::tflite::read(&std::fs::read(path).expect("model")).expect("reads");
    let sg = &m.subgraphs[0];
    let conv = sg
        .operators
        .iter()
        .find(|op| op.code.op() == Op::CONV_2D)
        .expect("a CONV_2D");
    let w = conv.inputs[1] as usize;
    let name = sg.tensors[w].name.clone();
    let mut r = Ranges::new();
    for (i, t) in sg.tensors.iter().enumerate() {
        if t.dtype == TensorType::FLOAT32 && m.tensor_data(0, i).is_none() {
            r.insert(i, &t.name, -1.0, 1.0).expect("finite");
        }
    }
    let mut bad = m.clone();
    let buf = bad.subgraphs[0].tensors[w].buffer as usize;
    bad.buffers[buf].data[..4].copy_from_slice(&(-5.28e37f32).to_le_bytes());
    for mode in [Mode::Int8, Mode::Int16x8] {
        let opts = QuantizeOptions {
            mode,
            ..QuantizeOptions::default()
        };
        quantize(&m, &r, &opts).expect("the intact model quantizes");
        let e = quantize(&bad, &r, &opts).expect_err("refused").to_string();
        assert!(e.contains(&name) && e.contains("absurd"), "{mode:?}: {e}");
    }
}
