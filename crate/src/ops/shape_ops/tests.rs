//! Tests of SHAPE, PACK, CAST, FILL, ZEROS_LIKE and RANGE, and of a whole Keras-style
//! `SHAPE → STRIDED_SLICE → PACK → RESHAPE` chain resolved at prepare time.

use crate::engine::Interpreter;
use crate::graph::{
    Buffer, BuiltinOperator as Op, BuiltinOptionsT, CustomOptionsFormat, Model, OpCode, Operator,
    Subgraph, Tensor, TensorType,
};
use crate::ops::shape::test_model::{act, error, i8s, ints, run, single_op};
use crate::tflite::schema::{PackOptionsT, StridedSliceOptionsT};

const F32: TensorType = TensorType::FLOAT32;
const I32: TensorType = TensorType::INT32;
const I8: TensorType = TensorType::INT8;

fn f32s(v: &[f32]) -> Vec<u8> {
    bytemuck::cast_slice(v).to_vec()
}

fn pack_opts(n: i32, axis: i32) -> BuiltinOptionsT {
    BuiltinOptionsT::PackOptions(Box::new(PackOptionsT {
        values_count: n,
        axis,
    }))
}

#[test]
fn pack_stacks_on_a_new_axis() {
    let m = single_op(
        Op::PACK,
        pack_opts(2, 1),
        vec![
            act(F32, &[2, 2], None),
            act(F32, &[2, 2], None),
            act(F32, &[2, 2, 2], None),
        ],
    );
    let out = run(&m, &[&f32s(&[1., 2., 3., 4.]), &f32s(&[5., 6., 7., 8.])]);
    assert_eq!(out, f32s(&[1., 2., 5., 6., 3., 4., 7., 8.]));
    // Negative axis: -1 is the last axis of the output.
    let m = single_op(
        Op::PACK,
        pack_opts(2, -1),
        vec![
            act(F32, &[2], None),
            act(F32, &[2], None),
            act(F32, &[2, 2], None),
        ],
    );
    assert_eq!(
        run(&m, &[&f32s(&[1., 2.]), &f32s(&[3., 4.])]),
        f32s(&[1., 3., 2., 4.])
    );
}

#[test]
fn pack_checks_counts_shapes_and_quantization() {
    let m = single_op(
        Op::PACK,
        pack_opts(3, 0),
        vec![
            act(F32, &[2], None),
            act(F32, &[2], None),
            act(F32, &[2, 2], None),
        ],
    );
    assert!(error(&m).contains("values_count 3"), "{}", error(&m));
    let m = single_op(
        Op::PACK,
        pack_opts(2, 0),
        vec![
            act(F32, &[2], None),
            act(F32, &[3], None),
            act(F32, &[2, 2], None),
        ],
    );
    assert!(error(&m).contains("differs from input 0"), "{}", error(&m));
    let m = single_op(
        Op::PACK,
        pack_opts(2, 3),
        vec![
            act(F32, &[2], None),
            act(F32, &[2], None),
            act(F32, &[2, 2], None),
        ],
    );
    assert!(error(&m).contains("axis 3 out of range"), "{}", error(&m));
    let m = single_op(
        Op::PACK,
        pack_opts(2, 0),
        vec![
            act(I8, &[2], Some((0.5, 1))),
            act(I8, &[2], Some((0.25, 1))),
            act(I8, &[2, 2], Some((0.5, 1))),
        ],
    );
    assert!(error(&m).contains("unsupported"), "{}", error(&m));
    let m = single_op(
        Op::PACK,
        pack_opts(2, 0),
        vec![
            act(I8, &[2], Some((0.5, 1))),
            act(I8, &[2], Some((0.5, 1))),
            act(I8, &[2, 2], Some((0.5, 1))),
        ],
    );
    assert_eq!(
        run(&m, &[&i8s(&[1, -2]), &i8s(&[3, -4])]),
        i8s(&[1, -2, 3, -4])
    );
}

#[test]
fn cast_float_to_int_and_back() {
    let m = single_op(
        Op::CAST,
        BuiltinOptionsT::NONE,
        vec![act(F32, &[4], None), act(I32, &[4], None)],
    );
    let out = run(&m, &[&f32s(&[-1.5, 0.4, 2.9, -0.0])]);
    assert_eq!(out, bytemuck::cast_slice::<i32, u8>(&[-1, 0, 2, 0]));
    let m = single_op(
        Op::CAST,
        BuiltinOptionsT::NONE,
        vec![act(I32, &[2], None), act(F32, &[2], None)],
    );
    let input: Vec<u8> = bytemuck::cast_slice(&[7i32, -3]).to_vec();
    assert_eq!(run(&m, &[&input]), f32s(&[7.0, -3.0]));
    let m = single_op(
        Op::CAST,
        BuiltinOptionsT::NONE,
        vec![act(F32, &[2], None), act(TensorType::STRING, &[2], None)],
    );
    assert!(error(&m).contains("STRING"), "{}", error(&m));
}

#[test]
fn fill_and_zeros_like() {
    let value = crate::ops::shape::test_model::T {
        dtype: F32,
        shape: vec![],
        q: None,
        data: Some(f32s(&[2.5])),
    };
    let m = single_op(
        Op::FILL,
        BuiltinOptionsT::NONE,
        vec![ints(&[2], &[2, 3]), value, act(F32, &[2, 3], None)],
    );
    assert_eq!(run(&m, &[]), f32s(&[2.5; 6]));
    // A value computed at run time.
    let m = single_op(
        Op::FILL,
        BuiltinOptionsT::NONE,
        vec![ints(&[1], &[3]), act(F32, &[], None), act(F32, &[3], None)],
    );
    assert_eq!(run(&m, &[&f32s(&[-1.0])]), f32s(&[-1.0; 3]));
    let m = single_op(
        Op::FILL,
        BuiltinOptionsT::NONE,
        vec![ints(&[1], &[-3]), act(F32, &[], None), act(F32, &[3], None)],
    );
    assert!(error(&m).contains("negative dim"), "{}", error(&m));
    let m = single_op(
        Op::ZEROS_LIKE,
        BuiltinOptionsT::NONE,
        vec![act(F32, &[2, 2], None), act(F32, &[2, 2], None)],
    );
    assert_eq!(run(&m, &[&f32s(&[1., 2., 3., 4.])]), f32s(&[0.0; 4]));
}

#[test]
fn range_sizes_as_litert() {
    let scalar = |v: i32| {
        let mut t = ints(&[], &[v]);
        t.shape = vec![];
        t
    };
    let m = single_op(
        Op::RANGE,
        BuiltinOptionsT::NONE,
        vec![scalar(1), scalar(8), scalar(3), act(I32, &[3], None)],
    );
    assert_eq!(run(&m, &[]), bytemuck::cast_slice::<i32, u8>(&[1, 4, 7]));
    let m = single_op(
        Op::RANGE,
        BuiltinOptionsT::NONE,
        vec![scalar(5), scalar(0), scalar(-2), act(I32, &[3], None)],
    );
    assert_eq!(run(&m, &[]), bytemuck::cast_slice::<i32, u8>(&[5, 3, 1]));
    let m = single_op(
        Op::RANGE,
        BuiltinOptionsT::NONE,
        vec![scalar(0), scalar(4), scalar(-1), act(I32, &[3], None)],
    );
    assert!(error(&m).contains("no range"), "{}", error(&m));
}

/// A three-operator graph as Keras writes it for `Reshape((-1,))` on an input with a batch dim
/// kept dynamic in the graph: `SHAPE(x) → STRIDED_SLICE [0:1] shrink → PACK [batch, -1] →
/// RESHAPE(x, packed)`. The declared output shape of RESHAPE is left empty, so the new shape must
/// come from the folded chain.
fn keras_reshape_chain() -> Model {
    let buffers = vec![
        Buffer::default(),
        Buffer {
            data: bytemuck::cast_slice(&[0i32]).to_vec(),
        },
        Buffer {
            data: bytemuck::cast_slice(&[1i32]).to_vec(),
        },
        Buffer {
            data: bytemuck::cast_slice(&[-1i32]).to_vec(),
        },
    ];
    let t = |name: &str, dtype, shape: &[i32], buffer: u32| {
        let mut t = Tensor::new(name.to_string(), dtype, shape.to_vec());
        t.buffer = buffer;
        t
    };
    let tensors = vec![
        t("x", F32, &[1, 2, 3], 0),  // 0
        t("shape", I32, &[3], 0),    // 1
        t("begin", I32, &[1], 1),    // 2
        t("end", I32, &[1], 2),      // 3
        t("strides", I32, &[1], 2),  // 4
        t("batch", I32, &[], 0),     // 5
        t("minus_one", I32, &[], 3), // 6
        t("packed", I32, &[2], 0),   // 7
        t("y", F32, &[], 0),         // 8
    ];
    let op = |code: Op, inputs: Vec<i32>, output: i32, options| Operator {
        code: OpCode::builtin(code, 1),
        inputs,
        outputs: vec![output],
        intermediates: None,
        options,
        options_2: Default::default(),
        custom_options: None,
        custom_options_format: CustomOptionsFormat::FLEXBUFFERS,
        mutating_variable_inputs: None,
        debug_metadata_index: -1,
    };
    let slice = BuiltinOptionsT::StridedSliceOptions(Box::new(StridedSliceOptionsT {
        shrink_axis_mask: 1,
        ..Default::default()
    }));
    let operators = vec![
        op(Op::SHAPE, vec![0], 1, BuiltinOptionsT::NONE),
        op(Op::STRIDED_SLICE, vec![1, 2, 3, 4], 5, slice),
        op(Op::PACK, vec![5, 6], 7, pack_opts(2, 0)),
        op(Op::RESHAPE, vec![0, 7], 8, BuiltinOptionsT::NONE),
    ];
    Model {
        version: 3,
        subgraphs: vec![Subgraph {
            tensors,
            inputs: vec![0],
            outputs: vec![8],
            operators,
            ..Default::default()
        }],
        buffers,
        ..Default::default()
    }
}

#[test]
fn shape_slice_pack_reshape_chain_resolves_at_prepare() {
    let m = keras_reshape_chain();
    let mut it = Interpreter::new(&m).expect("prepares");
    // Only RESHAPE runs: SHAPE folds, STRIDED_SLICE and PACK of constants fold.
    assert_eq!(it.num_kernels(), 1);
    let x = f32s(&[1., 2., 3., 4., 5., 6.]);
    it.set_input(0, &x).expect("input fits");
    it.invoke().expect("the model runs");
    let out = it.output(0).expect("output");
    assert_eq!(out.shape, [1, 6]);
    assert_eq!(out.bytes, &x[..]);
}
