//! Engine tests on small models built directly in the IR: results, observers, errors that list
//! every problem at once, hostile shapes and options, arena reuse, constant folding.

use super::*;
use crate::engine::control_flow_tests::op;
use crate::error::IssueKind;
use crate::graph::{
    Buffer, BuiltinOperator, BuiltinOptionsT, Model, Operator, Quantization, Subgraph, Tensor,
};
use crate::tflite::schema::{ActivationFunctionType, AddOptionsT, Conv2DOptionsT, Padding};

fn f32_tensor(name: &str, shape: &[i32]) -> Tensor {
    Tensor::new(name, TensorType::FLOAT32, shape.to_vec())
}

/// A model whose constants are `(tensor, bytes)` pairs.
fn model(
    tensors: Vec<Tensor>,
    consts: Vec<(usize, Vec<u8>)>,
    ops: Vec<Operator>,
    inputs: &[i32],
    outputs: &[i32],
) -> Model {
    let mut tensors = tensors;
    let mut buffers = vec![Buffer::default()];
    for (t, data) in consts {
        tensors[t].buffer = buffers.len() as u32;
        buffers.push(Buffer { data });
    }
    Model {
        version: 3,
        subgraphs: vec![Subgraph {
            tensors,
            inputs: inputs.to_vec(),
            outputs: outputs.to_vec(),
            operators: ops,
            ..Default::default()
        }],
        buffers,
        ..Default::default()
    }
}

fn f32_bytes(v: &[f32]) -> Vec<u8> {
    bytemuck::cast_slice(v).to_vec()
}

fn add_relu() -> BuiltinOptionsT {
    BuiltinOptionsT::AddOptions(Box::new(AddOptionsT {
        fused_activation_function: ActivationFunctionType::RELU,
        ..Default::default()
    }))
}

#[test]
fn add_with_broadcast_constant_and_observer() {
    // out = relu(x + [1, -10]) on x: [2, 2]
    let m = model(
        vec![
            f32_tensor("x", &[2, 2]),
            f32_tensor("c", &[2]),
            f32_tensor("y", &[2, 2]),
        ],
        vec![(1, f32_bytes(&[1.0, -10.0]))],
        vec![op(BuiltinOperator::ADD, &[0, 1], &[2], add_relu())],
        &[0],
        &[2],
    );
    let mut it = Interpreter::new(&m).expect("prepares");
    assert_eq!(it.inputs()[0].shape, vec![2, 2]);
    assert_eq!(it.outputs()[0].name, "y");
    it.set_input_f32(0, &[1.0, 20.0, 3.0, 4.0]).expect("fits");
    let mut seen = Vec::new();
    it.invoke_with(&mut |id, v| {
        seen.push((id, v.name.to_string(), v.as_f32().map(<[f32]>::to_vec)))
    })
    .expect("the model runs");
    assert_eq!(seen.len(), 2);
    assert_eq!(seen[0].1, "x");
    assert_eq!(
        seen[1],
        (TensorId(2), "y".into(), Some(vec![2.0, 10.0, 4.0, 0.0]))
    );
    let out = it.output(0).expect("output");
    assert_eq!(out.as_f32(), Some(&[2.0, 10.0, 4.0, 0.0][..]));
    assert_eq!(out.shape, &[2, 2]);
    // Constants stay readable; inputs survive invocation.
    assert_eq!(
        it.tensor(TensorId(1))
            .and_then(|v| v.as_f32().map(<[f32]>::to_vec)),
        Some(vec![1.0, -10.0])
    );
    assert_eq!(
        it.tensor(TensorId(0))
            .and_then(|v| v.as_f32().map(|s| s[1])),
        Some(20.0)
    );
}

#[test]
fn every_unsupported_operator_is_listed_at_once() {
    let m = model(
        vec![
            f32_tensor("x", &[4]),
            f32_tensor("a", &[4]),
            f32_tensor("b", &[4]),
            f32_tensor("c", &[4]),
        ],
        vec![],
        vec![
            op(
                BuiltinOperator::SKIP_GRAM,
                &[0],
                &[1],
                BuiltinOptionsT::NONE,
            ),
            op(BuiltinOperator::RELU, &[1], &[2], BuiltinOptionsT::NONE),
            op(
                BuiltinOperator::LSH_PROJECTION,
                &[2],
                &[3],
                BuiltinOptionsT::NONE,
            ),
        ],
        &[0],
        &[3],
    );
    let Err(Error::CannotRun { issues }) = Interpreter::new(&m) else {
        panic!("must fail with CannotRun");
    };
    assert_eq!(issues.len(), 2, "{issues:?}");
    assert_eq!(
        (issues[0].op_index, issues[0].op_name.as_str()),
        (0, "SKIP_GRAM")
    );
    assert_eq!(
        (issues[1].op_index, issues[1].op_name.as_str()),
        (2, "LSH_PROJECTION")
    );
    assert_eq!(issues[1].tensor, "output 0 'c'");
    let text = Error::CannotRun { issues }.to_string();
    assert!(
        text.contains("operator 0 (SKIP_GRAM)") && text.contains("operator 2 (LSH_PROJECTION)"),
        "{text}"
    );
}

#[test]
fn hostile_options_and_shapes_are_typed_errors() {
    // CONV_2D with stride 0, and FULLY_CONNECTED whose weights do not fit the input.
    let conv = BuiltinOptionsT::Conv2DOptions(Box::new(Conv2DOptionsT {
        padding: Padding::SAME,
        stride_w: 0,
        stride_h: 1,
        ..Default::default()
    }));
    let m = model(
        vec![
            f32_tensor("x", &[1, 3, 3, 1]),
            f32_tensor("w", &[1, 1, 1, 1]),
            f32_tensor("y", &[1, 3, 3, 1]),
            f32_tensor("fw", &[2, 4]),
            f32_tensor("z", &[1, 2]),
            f32_tensor("b", &[1]),
        ],
        vec![
            (1, f32_bytes(&[1.0])),
            (3, f32_bytes(&[0.0; 8])),
            (5, f32_bytes(&[0.0])),
        ],
        vec![
            op(BuiltinOperator::CONV_2D, &[0, 1, 5], &[2], conv),
            op(
                BuiltinOperator::FULLY_CONNECTED,
                &[2, 3, -1],
                &[4],
                BuiltinOptionsT::FullyConnectedOptions(Box::default()),
            ),
        ],
        &[0],
        &[4],
    );
    let Err(Error::CannotRun { issues }) = Interpreter::new(&m) else {
        panic!("must fail");
    };
    assert_eq!(issues.len(), 2, "{issues:?}");
    assert!(
        issues[0].reason.contains("stride_w must be positive"),
        "{}",
        issues[0]
    );
    assert_eq!(issues[1].kind, IssueKind::Invalid);
    assert!(
        issues[1].reason.contains("do not split into rows of 4"),
        "{}",
        issues[1]
    );

    // A graph input too large to hold is refused, not allocated.
    let m = model(
        vec![
            f32_tensor("huge", &[i32::MAX, i32::MAX]),
            f32_tensor("y", &[1]),
        ],
        vec![],
        vec![op(BuiltinOperator::RELU, &[0], &[1], BuiltinOptionsT::NONE)],
        &[0],
        &[1],
    );
    assert!(matches!(Interpreter::new(&m), Err(Error::CannotRun { .. })));
}

#[test]
fn wrong_input_size_names_the_tensor() {
    let m = model(
        vec![f32_tensor("features", &[1, 4]), f32_tensor("y", &[1, 4])],
        vec![],
        vec![op(BuiltinOperator::RELU, &[0], &[1], BuiltinOptionsT::NONE)],
        &[0],
        &[1],
    );
    let mut it = Interpreter::new(&m).expect("prepares");
    let e = it
        .set_input_f32(0, &[1.0; 3])
        .expect_err("too short")
        .to_string();
    assert!(
        e.contains("'features'") && e.contains("expected 1×4 FLOAT32 (16 bytes)"),
        "{e}"
    );
    assert!(matches!(
        it.set_input(3, &[]),
        Err(Error::NoSuchIndex {
            what: "input",
            index: 3,
            count: 1
        })
    ));
    assert!(it.output(1).is_err());
}

#[test]
fn a_chain_reuses_the_arena() {
    // x → relu → relu → … → y: with inputs and outputs pinned, intermediates ping-pong.
    let len = 10;
    let mut tensors = vec![f32_tensor("x", &[256])];
    let mut ops = Vec::new();
    for i in 1..=len {
        tensors.push(f32_tensor(&format!("t{i}"), &[256]));
        ops.push(op(
            BuiltinOperator::RELU6,
            &[i - 1],
            &[i],
            BuiltinOptionsT::NONE,
        ));
    }
    let m = model(tensors, vec![], ops, &[0], &[len]);
    let mut it = Interpreter::new(&m).expect("prepares");
    // x, y and two alternating intermediates.
    assert_eq!(it.arena_bytes(), 4 * 1024);
    it.set_input_f32(0, &[7.0; 256]).expect("fits");
    it.invoke().expect("the model runs");
    assert!(
        it.output(0)
            .expect("y")
            .as_f32()
            .expect("f32")
            .iter()
            .all(|&v| v == 6.0)
    );
}

#[test]
fn timed_invocation_reports_every_step_and_computes_the_same() {
    // x → relu6 → relu6 → relu6 → y, timed with a fake clock that advances by 1 per read.
    let mut tensors = vec![f32_tensor("x", &[8])];
    let mut ops = Vec::new();
    for i in 1..=3 {
        tensors.push(f32_tensor(&format!("t{i}"), &[8]));
        ops.push(op(
            BuiltinOperator::RELU6,
            &[i - 1],
            &[i],
            BuiltinOptionsT::NONE,
        ));
    }
    let m = model(tensors, vec![], ops, &[0], &[3]);
    let mut it = Interpreter::new(&m).expect("prepares");
    let infos = it.step_infos();
    assert_eq!(infos.len(), 3);
    assert_eq!(
        infos.iter().map(|s| s.op_index).collect::<Vec<_>>(),
        [0, 1, 2]
    );
    assert!(infos.iter().all(|s| s.op_name == "RELU6" && s.shape == [8]));
    assert!(
        infos
            .iter()
            .all(|s| s.inputs == [32] && !s.kernel.is_empty())
    );
    assert_eq!(infos[2].output, "t3");
    it.set_input_f32(0, &[-1.0, 0.5, 9.0, 6.0, 0.0, 3.0, -7.0, 100.0])
        .expect("fits");
    let mut clock = 0.0;
    let mut times = [0.0; 3];
    it.invoke_timed(
        &mut || {
            clock += 1.0;
            clock
        },
        &mut times,
    )
    .expect("the model runs");
    assert_eq!(times, [1.0; 3]);
    // A shorter array leaves later steps untimed; the run is still complete.
    let mut one = [0.0; 1];
    it.invoke_timed(&mut || 0.0, &mut one)
        .expect("the model runs");
    assert_eq!(
        it.output(0).expect("y").as_f32().expect("f32"),
        [0.0, 0.5, 6.0, 6.0, 0.0, 3.0, 0.0, 6.0]
    );
}

#[test]
fn constant_int8_per_channel_dequantize_is_folded() {
    // w_q: int8 [2, 2] per-channel on axis 0, scales [0.5, 2], zero points [0, 1]
    // → w = [[1, -1], [2, 4]]; y = x · wᵀ.
    let mut wq = Tensor::new("w_q", TensorType::INT8, vec![2, 2]);
    wq.quantization = Some(Quantization {
        scale: Some(vec![0.5, 2.0]),
        zero_point: Some(vec![0, 1]),
        quantized_dimension: 0,
        ..Default::default()
    });
    let m = model(
        vec![
            f32_tensor("x", &[1, 2]),
            wq,
            f32_tensor("w", &[2, 2]),
            f32_tensor("y", &[1, 2]),
        ],
        vec![(1, vec![2u8, (-2i8) as u8, 2, 3])],
        vec![
            op(
                BuiltinOperator::DEQUANTIZE,
                &[1],
                &[2],
                BuiltinOptionsT::NONE,
            ),
            op(
                BuiltinOperator::FULLY_CONNECTED,
                &[0, 2, -1],
                &[3],
                BuiltinOptionsT::FullyConnectedOptions(Box::default()),
            ),
        ],
        &[0],
        &[3],
    );
    let mut it = Interpreter::new(&m).expect("prepares");
    assert_eq!(it.num_kernels(), 1, "DEQUANTIZE runs at prepare time");
    it.set_input_f32(0, &[1.0, 10.0]).expect("fits");
    it.invoke().expect("the model runs");
    assert_eq!(it.output(0).expect("y").as_f32(), Some(&[-9.0, 42.0][..]));
    assert_eq!(
        it.tensor(TensorId(2))
            .and_then(|v| v.as_f32().map(<[f32]>::to_vec)),
        Some(vec![1.0, -1.0, 2.0, 4.0])
    );
}

#[test]
fn an_operator_writing_its_own_input_is_refused() {
    // RELU reading and writing the graph input (LiteRT: "Tensor 0 is both input 0 and output
    // 0"). The constant `c` overwritten by the next operator, unread before it, is computed as
    // LiteRT computes it (tests/tolerated.rs); only the first operator is refused.
    let m = model(
        vec![
            f32_tensor("x", &[2]),
            f32_tensor("c", &[2]),
            f32_tensor("y", &[2]),
        ],
        vec![(1, f32_bytes(&[1.0, 2.0]))],
        vec![
            op(BuiltinOperator::RELU, &[0], &[0], BuiltinOptionsT::NONE),
            op(BuiltinOperator::RELU, &[0], &[1], BuiltinOptionsT::NONE),
            op(BuiltinOperator::RELU, &[1], &[2], BuiltinOptionsT::NONE),
        ],
        &[0],
        &[2],
    );
    let Err(Error::CannotRun { issues }) = Interpreter::new(&m) else {
        panic!("must fail");
    };
    assert_eq!(issues.len(), 1, "{issues:?}");
    assert_eq!(issues[0].op_index, 0, "{issues:?}");
    assert!(
        issues[0].reason.contains("already has a value"),
        "{issues:?}"
    );
}

#[test]
fn a_constant_with_an_impossible_shape_is_reported_not_skipped() {
    let m = model(
        vec![
            f32_tensor("x", &[2]),
            f32_tensor("c", &[-3]),
            f32_tensor("y", &[2]),
        ],
        vec![(1, f32_bytes(&[1.0, 2.0]))],
        vec![op(BuiltinOperator::ADD, &[0, 1], &[2], add_relu())],
        &[0],
        &[2],
    );
    let Err(Error::CannotRun { issues }) = Interpreter::new(&m) else {
        panic!("must fail");
    };
    assert_eq!(issues.len(), 1, "{issues:?}");
    assert_eq!(issues[0].tensor, "input 1 'c'");
}

fn i32_bytes(v: &[i32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// Runs a one-operator model: input 0 is the graph input `x`, further inputs are int32
/// constants; returns the output's shape and values.
fn run_one(
    code: BuiltinOperator,
    options: BuiltinOptionsT,
    x_shape: &[i32],
    x: &[f32],
    consts: &[(&[i32], &[i32])],
    declared_out: &[i32],
) -> (Vec<usize>, Vec<f32>) {
    let mut tensors = vec![f32_tensor("x", x_shape)];
    let mut data = Vec::new();
    let mut inputs = vec![0];
    for (k, (shape, values)) in consts.iter().enumerate() {
        let t = tensors.len();
        tensors.push(Tensor::new(
            format!("c{k}"),
            TensorType::INT32,
            shape.to_vec(),
        ));
        data.push((t, i32_bytes(values)));
        inputs.push(t as i32);
    }
    let out = tensors.len() as i32;
    tensors.push(f32_tensor("y", declared_out));
    let m = model(
        tensors,
        data,
        vec![op(code, &inputs, &[out], options)],
        &[0],
        &[out],
    );
    let mut it = Interpreter::new(&m).expect("prepares");
    it.set_input_f32(0, x).expect("fits");
    it.invoke().expect("the model runs");
    let y = it.output(0).expect("output");
    (y.shape.to_vec(), y.as_f32().expect("f32").to_vec())
}

#[test]
fn shape_ops_through_the_engine() {
    use crate::tflite::schema::{ReducerOptionsT, StridedSliceOptionsT};
    let x: Vec<f32> = (0..6).map(|v| v as f32).collect();
    // RESHAPE [2, 3] → [3, -1]
    let r = run_one(
        BuiltinOperator::RESHAPE,
        BuiltinOptionsT::NONE,
        &[2, 3],
        &x,
        &[(&[2], &[3, -1])],
        &[3, 2],
    );
    assert_eq!(r, (vec![3, 2], x.clone()));
    // TRANSPOSE [2, 3] by [1, 0]
    let r = run_one(
        BuiltinOperator::TRANSPOSE,
        BuiltinOptionsT::NONE,
        &[2, 3],
        &x,
        &[(&[2], &[1, 0])],
        &[3, 2],
    );
    assert_eq!(r, (vec![3, 2], vec![0.0, 3.0, 1.0, 4.0, 2.0, 5.0]));
    // PAD [2, 3] by [[0, 1], [1, 0]]
    let r = run_one(
        BuiltinOperator::PAD,
        BuiltinOptionsT::NONE,
        &[2, 3],
        &x,
        &[(&[2, 2], &[0, 1, 1, 0])],
        &[3, 4],
    );
    assert_eq!(r.0, vec![3, 4]);
    assert_eq!(
        r.1,
        vec![0.0, 0.0, 1.0, 2.0, 0.0, 3.0, 4.0, 5.0, 0.0, 0.0, 0.0, 0.0]
    );
    // STRIDED_SLICE x[:, ::-2] → [[2, 0], [5, 3]]
    let ss = BuiltinOptionsT::StridedSliceOptions(Box::new(StridedSliceOptionsT {
        begin_mask: 3,
        end_mask: 3,
        ..Default::default()
    }));
    let r = run_one(
        BuiltinOperator::STRIDED_SLICE,
        ss,
        &[2, 3],
        &x,
        &[(&[2], &[0, 0]), (&[2], &[0, 0]), (&[2], &[1, -2])],
        &[2, 2],
    );
    assert_eq!(r, (vec![2, 2], vec![2.0, 0.0, 5.0, 3.0]));
    // SLICE begin [1, 1] size [1, -1]
    let r = run_one(
        BuiltinOperator::SLICE,
        BuiltinOptionsT::NONE,
        &[2, 3],
        &x,
        &[(&[2], &[1, 1]), (&[2], &[1, -1])],
        &[1, 2],
    );
    assert_eq!(r, (vec![1, 2], vec![4.0, 5.0]));
    // MEAN over axis -1, keep_dims
    let keep = BuiltinOptionsT::ReducerOptions(Box::new(ReducerOptionsT { keep_dims: true }));
    let r = run_one(
        BuiltinOperator::MEAN,
        keep,
        &[2, 3],
        &x,
        &[(&[1], &[-1])],
        &[2, 1],
    );
    assert_eq!(r, (vec![2, 1], vec![1.0, 4.0]));
    // REDUCE_MAX over axis 0, no keep_dims
    let r = run_one(
        BuiltinOperator::REDUCE_MAX,
        BuiltinOptionsT::NONE,
        &[2, 3],
        &x,
        &[(&[1], &[0])],
        &[3],
    );
    assert_eq!(r, (vec![3], vec![3.0, 4.0, 5.0]));
    // RESIZE_NEAREST_NEIGHBOR [1, 1, 2, 1] → [1, 2, 4, 1]
    let r = run_one(
        BuiltinOperator::RESIZE_NEAREST_NEIGHBOR,
        BuiltinOptionsT::NONE,
        &[1, 1, 2, 1],
        &[1.0, 2.0],
        &[(&[2], &[2, 4])],
        &[1, 2, 4, 1],
    );
    assert_eq!(
        r,
        (
            vec![1, 2, 4, 1],
            vec![1.0, 1.0, 2.0, 2.0, 1.0, 1.0, 2.0, 2.0]
        )
    );
}

#[test]
fn hostile_shape_arguments_are_errors() {
    use crate::tflite::schema::StridedSliceOptionsT;
    /// (shape, values) of each int32 constant input.
    type Consts = Vec<(Vec<i32>, Vec<i32>)>;
    let cases: Vec<(BuiltinOperator, BuiltinOptionsT, Consts)> = vec![
        // Two -1s in a new shape; a shape holding the wrong count.
        (
            BuiltinOperator::RESHAPE,
            BuiltinOptionsT::NONE,
            vec![(vec![2], vec![-1, -1])],
        ),
        (
            BuiltinOperator::RESHAPE,
            BuiltinOptionsT::NONE,
            vec![(vec![1], vec![7])],
        ),
        // A repeated axis in a permutation.
        (
            BuiltinOperator::TRANSPOSE,
            BuiltinOptionsT::NONE,
            vec![(vec![2], vec![0, 0])],
        ),
        // Negative and overflowing paddings.
        (
            BuiltinOperator::PAD,
            BuiltinOptionsT::NONE,
            vec![(vec![2, 2], vec![-1, 0, 0, 0])],
        ),
        // Stride 0.
        (
            BuiltinOperator::STRIDED_SLICE,
            BuiltinOptionsT::StridedSliceOptions(Box::default()),
            vec![
                (vec![2], vec![0, 0]),
                (vec![2], vec![1, 1]),
                (vec![2], vec![1, 0]),
            ],
        ),
        // Shrinking an out-of-range index.
        (
            BuiltinOperator::STRIDED_SLICE,
            BuiltinOptionsT::StridedSliceOptions(Box::new(StridedSliceOptionsT {
                shrink_axis_mask: 1,
                ..Default::default()
            })),
            vec![
                (vec![2], vec![5, 0]),
                (vec![2], vec![6, 1]),
                (vec![2], vec![1, 1]),
            ],
        ),
        // A slice running past the end; a reduction over a missing axis.
        (
            BuiltinOperator::SLICE,
            BuiltinOptionsT::NONE,
            vec![(vec![2], vec![1, 0]), (vec![2], vec![2, 1])],
        ),
        (
            BuiltinOperator::MEAN,
            BuiltinOptionsT::NONE,
            vec![(vec![1], vec![5])],
        ),
        (
            BuiltinOperator::RESIZE_BILINEAR,
            BuiltinOptionsT::NONE,
            vec![(vec![2], vec![0, i32::MAX])],
        ),
    ];
    for (code, options, consts) in cases {
        let mut tensors = vec![f32_tensor("x", &[2, 3])];
        let mut data = Vec::new();
        let mut inputs = vec![0];
        for (k, (shape, values)) in consts.iter().enumerate() {
            let t = tensors.len();
            tensors.push(Tensor::new(
                format!("c{k}"),
                TensorType::INT32,
                shape.clone(),
            ));
            data.push((t, i32_bytes(values)));
            inputs.push(t as i32);
        }
        let out = tensors.len() as i32;
        tensors.push(f32_tensor("y", &[6]));
        let m = model(
            tensors,
            data,
            vec![op(code, &inputs, &[out], options)],
            &[0],
            &[out],
        );
        match Interpreter::new(&m) {
            Err(Error::CannotRun { issues }) => assert_eq!(issues.len(), 1, "{code:?}: {issues:?}"),
            Err(e) => panic!("{code:?}: unexpected error {e}"),
            Ok(_) => panic!("{code:?} with {consts:?} must be refused"),
        }
    }
}

#[test]
fn limits_are_checked_before_allocation() {
    // out = x + x on [1, 1024]: 4 KiB per tensor, 8 KiB arena (input and output both live).
    let m = model(
        vec![f32_tensor("x", &[1, 1024]), f32_tensor("y", &[1, 1024])],
        vec![],
        vec![op(BuiltinOperator::ADD, &[0, 0], &[1], add_relu())],
        &[0],
        &[1],
    );
    assert!(Interpreter::new(&m).is_ok());
    let tight_tensor = Limits {
        max_tensor_bytes: 4095,
        ..Limits::default()
    };
    match Interpreter::with_limits(&m, &tight_tensor) {
        Err(Error::CannotRun { issues }) => {
            assert!(issues[0].to_string().contains("'x'"), "{issues:?}");
            assert!(issues[0].to_string().contains("4095"), "{issues:?}");
        }
        other => panic!("expected CannotRun, got {:?}", other.err()),
    }
    let tight_arena = Limits {
        max_arena_bytes: 8191,
        ..Limits::default()
    };
    match Interpreter::with_limits(&m, &tight_arena) {
        Err(e @ Error::TooLarge { .. }) => {
            assert!(e.to_string().contains("arena"), "{e}");
            assert!(e.to_string().contains("8191"), "{e}");
        }
        other => panic!("expected TooLarge, got {:?}", other.err()),
    }
    let exact = Limits {
        max_tensor_bytes: 4096,
        max_arena_bytes: 8192,
        max_constant_bytes: 0,
        max_while_iterations: 0,
    };
    assert!(Interpreter::with_limits(&m, &exact).is_ok());
}

#[test]
fn a_constant_longer_than_its_shape_is_read_as_litert_reads_it() {
    // The ADD constant [1, -10] followed by 2 stray bytes (half an element): LiteRT takes the
    // two elements the shape needs and ignores the tail; so do we (no cast panic).
    let mut bytes = f32_bytes(&[1.0, -10.0]);
    bytes.extend([0xAB, 0xCD]);
    let m = model(
        vec![
            f32_tensor("x", &[2, 2]),
            f32_tensor("c", &[2]),
            f32_tensor("y", &[2, 2]),
        ],
        vec![(1, bytes)],
        vec![op(BuiltinOperator::ADD, &[0, 1], &[2], add_relu())],
        &[0],
        &[2],
    );
    let mut it = Interpreter::new(&m).expect("prepares");
    it.set_input_f32(0, &[1.0, 20.0, 3.0, 4.0]).expect("fits");
    it.invoke().expect("the model runs");
    let out = it.output(0).expect("output");
    assert_eq!(out.as_f32(), Some(&[2.0, 10.0, 4.0, 0.0][..]));
}

#[test]
fn a_declared_output_type_the_operator_does_not_produce_is_invalid() {
    let mut y = f32_tensor("y", &[2, 2]);
    y.dtype = TensorType::INT32;
    let m = model(
        vec![f32_tensor("x", &[2, 2]), f32_tensor("c", &[2]), y],
        vec![(1, f32_bytes(&[1.0, -10.0]))],
        vec![op(BuiltinOperator::ADD, &[0, 1], &[2], add_relu())],
        &[0],
        &[2],
    );
    let Err(Error::CannotRun { issues }) = Interpreter::new(&m) else {
        panic!("a float ADD declared INT32 must not prepare");
    };
    let text = format!("{}", Error::CannotRun { issues });
    assert!(
        text.contains("output 0 'y'")
            && text.contains("type INT32 but the operator produces FLOAT32"),
        "{text}"
    );
}

#[test]
fn a_constant_that_concatenation_writes_is_refused() {
    // Mutant 4-720: LiteRT's CONCATENATION returns early when its output is a constant (it folds
    // all-constant inputs at Prepare), so the constant's data stays and readers see it, not the
    // concatenation (95 of 96 outputs differed when we computed it). Refused, as an output
    // that already has a value, unlike the RELU writer above.
    let m = model(
        vec![
            f32_tensor("x", &[2]),
            f32_tensor("c", &[4]),
            f32_tensor("y", &[4]),
        ],
        vec![(1, f32_bytes(&[1.0, 2.0, 3.0, 4.0]))],
        vec![
            op(
                BuiltinOperator::CONCATENATION,
                &[0, 0],
                &[1],
                BuiltinOptionsT::ConcatenationOptions(Box::default()),
            ),
            op(BuiltinOperator::RELU, &[1], &[2], BuiltinOptionsT::NONE),
        ],
        &[0],
        &[2],
    );
    let Err(Error::CannotRun { issues }) = Interpreter::new(&m) else {
        panic!("must fail");
    };
    assert_eq!(issues.len(), 1, "{issues:?}");
    assert_eq!(issues[0].op_index, 0, "{issues:?}");
    assert!(
        issues[0].reason.contains("already has a value"),
        "{issues:?}"
    );
}
