//! Prepare-time tests of CONV_2D, DEPTHWISE_CONV_2D and TRANSPOSE_CONV: the shapes, quantizations
//! and options refused (with which typed issue) as LiteRT refuses them, in both arithmetics.

use super::*;

/// An output shape that is a graph input (values known only at run time) is refused with a
/// typed error naming it; the same shape as a constant prepares.
#[test]
fn transpose_conv_output_shape_from_values_is_named() {
    use crate::ops::shape::test_model::{T, act, error, ints, single_op};
    let options = || {
        BuiltinOptionsT::TransposeConvOptions(Box::new(TransposeConvOptionsT {
            padding: Padding::SAME,
            stride_w: 2,
            stride_h: 2,
            ..Default::default()
        }))
    };
    let filter = || T {
        dtype: TensorType::FLOAT32,
        shape: vec![2, 3, 3, 1],
        q: None,
        data: Some(bytemuck::cast_slice(&[0.5f32; 18]).to_vec()),
    };
    let out = || act(TensorType::FLOAT32, &[1, 4, 4, 2], None);
    let m = single_op(
        BuiltinOperator::TRANSPOSE_CONV,
        options(),
        vec![
            act(TensorType::INT32, &[4], None),
            filter(),
            act(TensorType::FLOAT32, &[1, 2, 2, 1], None),
            out(),
        ],
    );
    let e = error(&m);
    assert!(
        e.contains("input 0 't0'") && e.contains("depends on tensor values at run time"),
        "{e}"
    );
    let m = single_op(
        BuiltinOperator::TRANSPOSE_CONV,
        options(),
        vec![
            ints(&[4], &[1, 4, 4, 2]),
            filter(),
            act(TensorType::FLOAT32, &[1, 2, 2, 1], None),
            out(),
        ],
    );
    assert!(crate::engine::Interpreter::new(&m).is_ok());
}

/// As LiteRT's prepare: the input must be what a conv of the output gives under the
/// padding, and strides are at most `i16::MAX` (mutation-harness mutants 7492, 9690).
#[test]
fn transpose_conv_refuses_what_litert_refuses() {
    use crate::ops::shape::test_model::{T, act, error, ints, single_op};
    let model = |padding: Padding, stride_w: i32| {
        single_op(
            BuiltinOperator::TRANSPOSE_CONV,
            BuiltinOptionsT::TransposeConvOptions(Box::new(TransposeConvOptionsT {
                padding,
                stride_w,
                stride_h: 2,
                ..Default::default()
            })),
            vec![
                ints(&[4], &[1, 4, 4, 2]),
                T {
                    dtype: TensorType::FLOAT32,
                    shape: vec![2, 3, 3, 1],
                    q: None,
                    data: Some(bytemuck::cast_slice(&[0.5f32; 18]).to_vec()),
                },
                act(TensorType::FLOAT32, &[1, 2, 2, 1], None),
                act(TensorType::FLOAT32, &[1, 4, 4, 2], None),
            ],
        )
    };
    assert!(crate::engine::Interpreter::new(&model(Padding::SAME, 2)).is_ok());
    // VALID: (4 - 3 + 2) / 2 = 1, not the input's 2.
    let e = error(&model(Padding::VALID, 2));
    assert!(e.contains("input 2") && e.contains("1x1"), "{e}");
    let e = error(&model(Padding::SAME, 32768));
    assert!(e.contains("stride_w 32768"), "{e}");
    let e = error(&model(Padding::SAME, i32::MAX));
    assert!(e.contains("stride_w 2147483647"), "{e}");
}
use crate::error::IssueKind;
use crate::graph::{BuiltinOperator, BuiltinOptionsT, OpCode, Operator, Quantization};
use crate::ops::{Role, TensorInfo};

fn operator(code: BuiltinOperator, options: BuiltinOptionsT, inputs: usize) -> Operator {
    Operator::new(
        OpCode::builtin(code, 1),
        (0..inputs as i32).collect(),
        vec![inputs as i32],
        options,
    )
}

fn quant(scales: &[f32], zero_points: &[i64], axis: i32) -> Quantization {
    Quantization {
        scale: Some(scales.to_vec()),
        zero_point: Some(zero_points.to_vec()),
        quantized_dimension: axis,
        ..Default::default()
    }
}

/// A 1x3x3x2 input, 2x1x1x2 (or depthwise 1x1x1x2) filter, bias of `bias_dtype`, 1x3x3x2
/// output; `act` the input/output type with zero point `zp`.
fn prepare_with(
    code: BuiltinOperator,
    act: TensorType,
    zp: i64,
    filter_dtype: TensorType,
    bias_dtype: TensorType,
    filter_shape: &[usize],
) -> PrepareResult<Prepared> {
    prepare_in(
        code,
        act,
        zp,
        (filter_dtype, filter_shape, &[0.25, 0.125]),
        bias_dtype,
        Arithmetic::Reference,
    )
}

/// [`prepare_with`] with the filter's per-channel scales and the engine's arithmetic given.
fn prepare_in(
    code: BuiltinOperator,
    act: TensorType,
    zp: i64,
    (filter_dtype, filter_shape, w_scales): (TensorType, &[usize], &[f32]),
    bias_dtype: TensorType,
    arithmetic: Arithmetic,
) -> PrepareResult<Prepared> {
    let options = match code {
        BuiltinOperator::DEPTHWISE_CONV_2D => {
            BuiltinOptionsT::DepthwiseConv2DOptions(Box::new(DepthwiseConv2DOptionsT {
                stride_h: 1,
                stride_w: 1,
                dilation_h_factor: 1,
                dilation_w_factor: 1,
                padding: Padding::SAME,
                ..Default::default()
            }))
        }
        _ => BuiltinOptionsT::Conv2DOptions(Box::new(Conv2DOptionsT {
            stride_h: 1,
            stride_w: 1,
            dilation_h_factor: 1,
            dilation_w_factor: 1,
            padding: Padding::SAME,
            ..Default::default()
        })),
    };
    let op = operator(code, options, 3);
    let q_act = quant(&[0.5], &[zp], 0);
    let q_w = quant(w_scales, &[0, 0], if filter_shape[0] == 1 { 3 } else { 0 });
    let q_b = quant(&[0.125, 0.0625], &[0, 0], 0);
    let inputs = [
        Some(TensorInfo {
            role: Role::Input(0),
            name: "x",
            dtype: act,
            shape: &[1, 3, 3, 2],
            data: None,
            quantization: Some(&q_act),
        }),
        Some(TensorInfo {
            role: Role::Input(1),
            name: "w",
            dtype: filter_dtype,
            shape: filter_shape,
            data: None,
            quantization: Some(&q_w),
        }),
        Some(TensorInfo {
            role: Role::Input(2),
            name: "b",
            dtype: bias_dtype,
            shape: &[2],
            data: None,
            quantization: Some(&q_b),
        }),
    ];
    let out_dtype = if act == TensorType::FLOAT32 {
        TensorType::FLOAT32
    } else {
        act
    };
    let outputs = [TensorInfo {
        role: Role::Output(0),
        name: "y",
        dtype: out_dtype,
        shape: &[1, 3, 3, 2],
        data: None,
        quantization: Some(&q_act),
    }];
    let ctx = PrepareCtx {
        kernels: crate::kernels::KernelSet::Reference,
        arithmetic,
        op_index: 0,
        op_name: "CONV_2D",
        op: &op,
        inputs: &inputs,
        outputs: &outputs,
        intermediates: &[],
        subgraphs: &crate::ops::control_flow::NoSubgraphs,
    };
    match code {
        BuiltinOperator::DEPTHWISE_CONV_2D => prepare_depthwise_conv2d(&ctx),
        _ => prepare_conv2d(&ctx),
    }
}

fn issue(r: PrepareResult<Prepared>) -> (IssueKind, String) {
    match r {
        Ok(_) => panic!("expected an issue"),
        Err(e) => (e.kind, e.tensor),
    }
}

#[test]
fn integer_and_hybrid_conv_prepare_and_refuse_with_typed_issues() {
    const CONV_2D: BuiltinOperator = BuiltinOperator::CONV_2D;
    const DEPTHWISE_CONV_2D: BuiltinOperator = BuiltinOperator::DEPTHWISE_CONV_2D;
    const FLOAT32: TensorType = TensorType::FLOAT32;
    const INT8: TensorType = TensorType::INT8;
    const INT16: TensorType = TensorType::INT16;
    const INT32: TensorType = TensorType::INT32;
    const INT64: TensorType = TensorType::INT64;
    const UINT8: TensorType = TensorType::UINT8;
    let conv_w: &[usize] = &[2, 1, 1, 2];
    let dw_w: &[usize] = &[1, 1, 1, 2];
    // Supported: int8 (zero point −128), 16x8 (int64 or int32 bias), hybrid.
    for (code, act, zp, bias, w) in [
        (CONV_2D, INT8, -128, INT32, conv_w),
        (CONV_2D, INT16, 0, INT64, conv_w),
        (CONV_2D, INT16, 0, INT32, conv_w),
        (DEPTHWISE_CONV_2D, INT16, 0, INT64, dw_w),
        (CONV_2D, FLOAT32, 0, FLOAT32, conv_w),
        (DEPTHWISE_CONV_2D, FLOAT32, 0, FLOAT32, dw_w),
    ] {
        let p = prepare_with(code, act, zp, INT8, bias, w).expect("prepares");
        assert_eq!(p.dtype, act);
        assert_eq!(p.shape, vec![1, 3, 3, 2]);
    }
    // int16 with a non-zero zero point: unsupported, naming the input.
    let (kind, t) = issue(prepare_with(CONV_2D, INT16, 3, INT8, INT64, conv_w));
    assert_eq!((kind, t.as_str()), (IssueKind::Unsupported, "input 0 'x'"));
    // int8 zero point outside int8: invalid.
    let (kind, _) = issue(prepare_with(CONV_2D, INT8, 200, INT8, INT32, conv_w));
    assert_eq!(kind, IssueKind::Invalid);
    // uint8 activations, int64 bias with int8, int32 bias for depthwise 16x8, int16
    // weights: unsupported, naming the tensor.
    let (kind, t) = issue(prepare_with(CONV_2D, UINT8, 0, INT8, INT32, conv_w));
    assert_eq!((kind, t.as_str()), (IssueKind::Unsupported, "input 0 'x'"));
    let (kind, t) = issue(prepare_with(CONV_2D, INT8, 0, INT8, INT64, conv_w));
    assert_eq!((kind, t.as_str()), (IssueKind::Unsupported, "input 2 'b'"));
    let (kind, t) = issue(prepare_with(DEPTHWISE_CONV_2D, INT16, 0, INT8, INT32, dw_w));
    assert_eq!((kind, t.as_str()), (IssueKind::Unsupported, "input 2 'b'"));
    let (kind, t) = issue(prepare_with(CONV_2D, INT16, 0, INT16, INT64, conv_w));
    assert_eq!((kind, t.as_str()), (IssueKind::Unsupported, "input 1 'w'"));
    // Hybrid with int32 bias: the float path wants a float bias.
    let (kind, t) = issue(prepare_with(CONV_2D, FLOAT32, 0, INT8, INT32, conv_w));
    assert_eq!((kind, t.as_str()), (IssueKind::Unsupported, "input 2 'b'"));
    // Hybrid grouped convolution (filter depth 1 of input depth 2): unsupported.
    let (kind, t) = issue(prepare_with(
        CONV_2D,
        FLOAT32,
        0,
        INT8,
        FLOAT32,
        &[2, 1, 1, 1],
    ));
    assert_eq!((kind, t.as_str()), (IssueKind::Unsupported, "input 1 'w'"));
}

#[test]
fn xnnpack_arithmetic_refuses_a_scale_xnnpack_refuses() {
    let conv_w: &[usize] = &[2, 1, 1, 2];
    let int8 = TensorType::INT8;
    // s_in 0.5 · s_w 1024 / s_out 0.5 = 1024: XNNPACK takes scales below 256 only.
    let big = (int8, conv_w, &[1024.0f32, 0.125][..]);
    let in_arith = |a| {
        prepare_in(
            BuiltinOperator::CONV_2D,
            int8,
            -128,
            big,
            TensorType::INT32,
            a,
        )
    };
    assert!(in_arith(Arithmetic::Reference).is_ok());
    let (kind, t) = issue(in_arith(Arithmetic::Xnnpack));
    assert_eq!((kind, t.as_str()), (IssueKind::Unsupported, "input 1 'w'"));
    // 16x8 keeps the reference arithmetic under `xnnpack` (XNNPACK has no 16x8 kernels).
    let p = prepare_in(
        BuiltinOperator::CONV_2D,
        TensorType::INT16,
        0,
        big,
        TensorType::INT64,
        Arithmetic::Xnnpack,
    );
    assert!(p.is_ok());
}
