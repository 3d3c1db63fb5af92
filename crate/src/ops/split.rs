//! SPLIT, SPLIT_V and UNPACK: operators with several outputs, each a slice of the input along
//! one axis (the engine evaluates the kernel once per output, [`OpIo::output_index`] saying
//! which). They only move elements, so they run on every type LiteRT's kernels take (FLOAT32,
//! UINT8, INT8, INT16, INT32, and INT64 for SPLIT_V, BOOL for UNPACK); quantized outputs must be
//! quantized exactly like the input (TF's same-scale rule; anything else is "unsupported").
//! The copies are [`crate::kernels::reference::split`].

use super::shape::require_same_quantization;
use super::{
    Kernel, OpIo, OutputSpec, PrepareCtx, PrepareResult, Prepared, TensorInfo, elem_size, options,
};
use crate::graph::TensorType;
use crate::kernels::reference::split::{SplitPart, split_part};
use crate::tflite::schema::{SplitOptionsT, SplitVOptionsT, UnpackOptionsT};

/// One kernel for the three operators: which input holds the data, the element size and each
/// output's part of the input.
struct Split {
    input: usize,
    size: usize,
    parts: Vec<SplitPart>,
}

impl Kernel for Split {
    fn eval(&mut self, io: &mut OpIo<'_>) {
        let Some(p) = self.parts.get(io.output_index()) else {
            return;
        };
        let input = io.input(self.input);
        let output = io.output();
        match self.size {
            1 => split_part::<u8>(p, input, output),
            2 => split_part::<u16>(
                p,
                bytemuck::cast_slice(input),
                bytemuck::cast_slice_mut(output),
            ),
            4 => split_part::<u32>(
                p,
                bytemuck::cast_slice(input),
                bytemuck::cast_slice_mut(output),
            ),
            _ => split_part::<u64>(
                p,
                bytemuck::cast_slice(input),
                bytemuck::cast_slice_mut(output),
            ),
        }
    }
}

/// The input types of SPLIT (LiteRT `split.cc`).
const SPLIT_TYPES: &[TensorType] = &[
    TensorType::FLOAT32,
    TensorType::UINT8,
    TensorType::INT8,
    TensorType::INT16,
    TensorType::INT32,
];

/// The input types of SPLIT_V (LiteRT `split_v.cc`).
const SPLIT_V_TYPES: &[TensorType] = &[
    TensorType::FLOAT32,
    TensorType::UINT8,
    TensorType::INT8,
    TensorType::INT16,
    TensorType::INT32,
    TensorType::INT64,
];

/// The input types of UNPACK (LiteRT `unpack.cc`).
const UNPACK_TYPES: &[TensorType] = &[
    TensorType::FLOAT32,
    TensorType::UINT8,
    TensorType::INT8,
    TensorType::INT16,
    TensorType::INT32,
    TensorType::BOOL,
];

/// The operator's option count (`num_splits`, `num`) checked against its outputs.
fn count(ctx: &PrepareCtx<'_>, what: &str, n: i32) -> PrepareResult<usize> {
    match usize::try_from(n) {
        Ok(n) if n > 0 && n == ctx.outputs.len() => Ok(n),
        _ => Err(ctx.invalid(
            String::new(),
            format!(
                "{what} {n} but the operator has {} output(s)",
                ctx.outputs.len()
            ),
        )),
    }
}

/// The single value of a constant axis tensor, resolved against `rank`.
fn const_axis(ctx: &PrepareCtx<'_>, t: &TensorInfo<'_>, rank: usize) -> PrepareResult<usize> {
    match ctx.const_ints(t)?.as_slice() {
        [a] => ctx.axis(t, *a, rank),
        v => Err(ctx.invalid(
            t.describe(),
            format!("expected one axis, got {} values", v.len()),
        )),
    }
}

/// Output `k`'s type and quantization must be the input's.
fn check_outputs(ctx: &PrepareCtx<'_>, input: &TensorInfo<'_>) -> PrepareResult<()> {
    for k in 0..ctx.outputs.len() {
        ctx.require_output_dtype(k, input.dtype)?;
        require_same_quantization(ctx, input, &ctx.output(k)?)?;
    }
    Ok(())
}

/// Splits `input` along `axis` into parts of `sizes` elements of the axis; `keep_axis` false
/// drops the axis from the output shapes (UNPACK). The data is input `data`; the sizes sum to
/// the axis dim.
fn split_kernel(
    data: usize,
    input: &TensorInfo<'_>,
    size: usize,
    axis: usize,
    sizes: &[usize],
    keep_axis: bool,
) -> (Split, Vec<OutputSpec>) {
    let outer: usize = input.shape[..axis].iter().product();
    let inner: usize = input.shape[axis + 1..].iter().product();
    let row = input.shape[axis] * inner;
    let mut begin = 0;
    let mut parts = Vec::with_capacity(sizes.len());
    let mut specs = Vec::with_capacity(sizes.len());
    for &s in sizes {
        parts.push(SplitPart {
            outer,
            row,
            begin: begin * inner,
            len: s * inner,
        });
        begin += s;
        let mut shape = input.shape.to_vec();
        if keep_axis {
            shape[axis] = s;
        } else {
            shape.remove(axis);
        }
        specs.push(OutputSpec {
            shape,
            dtype: input.dtype,
        });
    }
    (
        Split {
            input: data,
            size,
            parts,
        },
        specs,
    )
}

/// Output 0 and the rest, for [`Prepared::multi`].
fn first_and_rest(mut specs: Vec<OutputSpec>) -> (OutputSpec, Vec<OutputSpec>) {
    let rest = specs.split_off(1.min(specs.len()));
    let first = specs.pop().unwrap_or(OutputSpec {
        shape: Vec::new(),
        dtype: TensorType::FLOAT32,
    });
    (first, rest)
}

/// SPLIT (inputs: axis, value; option `num_splits`): `num_splits` equal parts along the
/// constant axis, whose dim must be divisible by `num_splits`, as LiteRT's `split.cc`
/// requires.
pub fn prepare_split(ctx: &PrepareCtx<'_>) -> PrepareResult<Prepared> {
    ctx.expect_inputs(2, 2)?;
    let o = options!(ctx, SplitOptions, SplitOptionsT)?;
    let n = count(ctx, "num_splits", o.num_splits)?;
    let (axis_t, input) = (ctx.input(0)?, ctx.input(1)?);
    ctx.require_dtype(&input, SPLIT_TYPES)?;
    let size = elem_size(ctx, &input)?;
    let axis = const_axis(ctx, &axis_t, input.shape.len())?;
    let dim = input.shape[axis];
    if dim % n != 0 {
        return Err(ctx.invalid(
            input.describe(),
            format!("dimension {dim} along axis {axis} is not a multiple of num_splits {n}"),
        ));
    }
    check_outputs(ctx, &input)?;
    let (kernel, specs) = split_kernel(1, &input, size, axis, &vec![dim / n; n], true);
    let (first, rest) = first_and_rest(specs);
    Ok(Prepared::multi(first, rest, kernel))
}

/// SPLIT_V (inputs: value, size_splits, axis; option `num_splits`): parts of the constant
/// `size_splits` along the constant axis; one entry may be -1 (the rest of the axis). The sizes
/// must sum to the axis dim, as in LiteRT's `split_v.cc` (which also refuses two -1 entries).
pub fn prepare_split_v(ctx: &PrepareCtx<'_>) -> PrepareResult<Prepared> {
    ctx.expect_inputs(3, 3)?;
    let o = options!(ctx, SplitVOptions, SplitVOptionsT)?;
    let n = count(ctx, "num_splits", o.num_splits)?;
    let (input, sizes_t, axis_t) = (ctx.input(0)?, ctx.input(1)?, ctx.input(2)?);
    ctx.require_dtype(&input, SPLIT_V_TYPES)?;
    let size = elem_size(ctx, &input)?;
    let axis = const_axis(ctx, &axis_t, input.shape.len())?;
    let dim = input.shape[axis];
    let raw = ctx.const_ints(&sizes_t)?;
    if sizes_t.shape.len() != 1 || raw.len() != n {
        return Err(ctx.invalid(
            sizes_t.describe(),
            format!(
                "shape {:?}: expected a vector of num_splits {n} sizes",
                sizes_t.shape
            ),
        ));
    }
    let mut inferred = None;
    let mut sum = 0usize;
    let mut sizes = Vec::with_capacity(n);
    for (k, &s) in raw.iter().enumerate() {
        if s == -1 {
            if inferred.replace(k).is_some() {
                return Err(ctx.invalid(sizes_t.describe(), "more than one -1 in size_splits"));
            }
            sizes.push(0);
            continue;
        }
        let s = usize::try_from(s)
            .ok()
            .filter(|&s| s <= dim)
            .ok_or_else(|| {
                ctx.invalid(
                    sizes_t.describe(),
                    format!("size {s} out of range for dimension {dim} along axis {axis}"),
                )
            })?;
        sum = sum.saturating_add(s);
        sizes.push(s);
    }
    match inferred {
        Some(k) if sum <= dim => sizes[k] = dim - sum,
        None if sum == dim => {}
        _ => {
            return Err(ctx.invalid(
                sizes_t.describe(),
                format!("sizes {raw:?} do not sum to dimension {dim} along axis {axis}"),
            ));
        }
    }
    check_outputs(ctx, &input)?;
    let (kernel, specs) = split_kernel(0, &input, size, axis, &sizes, true);
    let (first, rest) = first_and_rest(specs);
    Ok(Prepared::multi(first, rest, kernel))
}

/// UNPACK (options `num`, `axis`): the input's `num` slices along the axis, each with the axis
/// removed; `num` must equal the axis dim, as LiteRT's `unpack.cc` requires.
pub fn prepare_unpack(ctx: &PrepareCtx<'_>) -> PrepareResult<Prepared> {
    ctx.expect_inputs(1, 1)?;
    let o = options!(ctx, UnpackOptions, UnpackOptionsT)?;
    let n = count(ctx, "num", o.num)?;
    let input = ctx.input(0)?;
    ctx.require_dtype(&input, UNPACK_TYPES)?;
    let size = elem_size(ctx, &input)?;
    let axis = ctx.axis(&input, i64::from(o.axis), input.shape.len())?;
    let dim = input.shape[axis];
    if dim != n {
        return Err(ctx.invalid(
            input.describe(),
            format!("num {n} but the dimension along axis {axis} is {dim}"),
        ));
    }
    check_outputs(ctx, &input)?;
    let (kernel, specs) = split_kernel(0, &input, size, axis, &vec![1; n], false);
    let (first, rest) = first_and_rest(specs);
    Ok(Prepared::multi(first, rest, kernel))
}

#[cfg(test)]
mod tests {
    use crate::engine::{Interpreter, TensorId};
    use crate::graph::{
        Buffer, BuiltinOperator as Op, BuiltinOptionsT, CustomOptionsFormat, Model, OpCode,
        Operator, Quantization, Subgraph, Tensor, TensorType,
    };
    use crate::tflite::schema::{SplitOptionsT, SplitVOptionsT, UnpackOptionsT};

    const F32: TensorType = TensorType::FLOAT32;

    /// One tensor: name, type, shape, constant INT32 contents.
    type T<'a> = (&'a str, TensorType, &'a [i32], Option<&'a [i32]>);

    /// A model of `tensors` running `ops` (code, options, inputs, outputs) in order; graph inputs
    /// are the non-constant tensors no operator computes.
    fn model(
        tensors: &[T<'_>],
        ops: Vec<(Op, BuiltinOptionsT, &[i32], &[i32])>,
        outputs: &[i32],
    ) -> Model {
        let mut buffers = vec![Buffer::default()];
        let mut ts = Vec::new();
        for (name, dtype, shape, data) in tensors {
            let mut t = Tensor::new((*name).to_string(), *dtype, shape.to_vec());
            if let Some(d) = data {
                t.buffer = buffers.len() as u32;
                buffers.push(Buffer {
                    data: bytemuck::cast_slice(d).to_vec(),
                });
            }
            ts.push(t);
        }
        let computed: Vec<i32> = ops.iter().flat_map(|o| o.3.iter().copied()).collect();
        let inputs = (0..tensors.len() as i32)
            .filter(|t| tensors[*t as usize].3.is_none() && !computed.contains(t))
            .collect();
        let operators = ops
            .into_iter()
            .map(|(code, options, inputs, outputs)| Operator {
                code: OpCode::builtin(code, 1),
                inputs: inputs.to_vec(),
                outputs: outputs.to_vec(),
                intermediates: None,
                options,
                options_2: Default::default(),
                custom_options: None,
                custom_options_format: CustomOptionsFormat::FLEXBUFFERS,
                mutating_variable_inputs: None,
                debug_metadata_index: -1,
            })
            .collect();
        Model {
            version: 3,
            subgraphs: vec![Subgraph {
                tensors: ts,
                inputs,
                outputs: outputs.to_vec(),
                operators,
                ..Default::default()
            }],
            buffers,
            ..Default::default()
        }
    }

    fn split(n: i32) -> BuiltinOptionsT {
        BuiltinOptionsT::SplitOptions(Box::new(SplitOptionsT { num_splits: n }))
    }

    fn split_v(n: i32) -> BuiltinOptionsT {
        BuiltinOptionsT::SplitVOptions(Box::new(SplitVOptionsT { num_splits: n }))
    }

    fn unpack(num: i32, axis: i32) -> BuiltinOptionsT {
        BuiltinOptionsT::UnpackOptions(Box::new(UnpackOptionsT { num, axis }))
    }

    fn error(m: &Model) -> String {
        match Interpreter::new(m) {
            Ok(_) => panic!("expected a prepare error"),
            Err(e) => e.to_string(),
        }
    }

    fn floats(it: &Interpreter, i: usize) -> Vec<f32> {
        it.output(i)
            .expect("output")
            .as_f32()
            .expect("f32")
            .to_vec()
    }

    #[test]
    fn split_outputs_live_until_their_last_reader() {
        // x [2, 6] → SPLIT axis 1 → a, b, c [2, 2]; e = RELU(c); d = ADD(e, a); outputs d, b.
        // `a` must survive RELU (its buffer may not be reused for `e`).
        let m = model(
            &[
                ("axis", TensorType::INT32, &[], Some(&[-1])),
                ("x", F32, &[2, 6], None),
                ("a", F32, &[2, 2], None),
                ("b", F32, &[2, 2], None),
                ("c", F32, &[2, 2], None),
                ("e", F32, &[2, 2], None),
                ("d", F32, &[2, 2], None),
            ],
            vec![
                (Op::SPLIT, split(3), &[0, 1], &[2, 3, 4]),
                (Op::RELU, BuiltinOptionsT::NONE, &[4], &[5]),
                (Op::ADD, BuiltinOptionsT::NONE, &[5, 2], &[6]),
            ],
            &[6, 3],
        );
        let mut it = Interpreter::new(&m).expect("prepares");
        let x: Vec<f32> = (0..12).map(|v| v as f32 - 9.0).collect();
        it.set_input_f32(0, &x).expect("fits");
        let mut seen = Vec::new();
        it.invoke_with(&mut |id: TensorId, v| seen.push((id.0, v.shape.to_vec())))
            .expect("the model runs");
        // a = [-9, -8, -3, -2], b = [-7, -6, -1, 0], c = [-5, -4, 1, 2].
        assert_eq!(floats(&it, 0), [-9.0, -8.0, -2.0, 0.0]);
        assert_eq!(floats(&it, 1), [-7.0, -6.0, -1.0, 0.0]);
        // The observer hears every output of SPLIT, in order, then RELU's and ADD's.
        let ids: Vec<usize> = seen.iter().map(|s| s.0).collect();
        assert_eq!(ids, [1, 2, 3, 4, 5, 6]);
        assert!(seen.iter().skip(1).all(|s| s.1 == [2, 2]));
        assert_eq!(it.num_kernels(), 3);
    }

    #[test]
    fn split_v_infers_the_minus_one_and_unpack_drops_the_axis() {
        let m = model(
            &[
                ("x", F32, &[3, 4], None),
                ("sizes", TensorType::INT32, &[2], Some(&[-1, 1])),
                ("axis", TensorType::INT32, &[1], Some(&[0])),
                ("p", F32, &[2, 4], None),
                ("q", F32, &[1, 4], None),
                ("u0", F32, &[4], None),
            ],
            vec![
                (Op::SPLIT_V, split_v(2), &[0, 1, 2], &[3, 4]),
                (Op::UNPACK, unpack(1, 0), &[4], &[5]),
            ],
            &[3, 5],
        );
        let mut it = Interpreter::new(&m).expect("prepares");
        let x: Vec<f32> = (0..12).map(|v| v as f32).collect();
        it.set_input_f32(0, &x).expect("fits");
        it.invoke().expect("the model runs");
        assert_eq!(floats(&it, 0), x[..8]);
        assert_eq!(it.outputs()[1].shape, [4]);
        assert_eq!(floats(&it, 1), x[8..]);
    }

    #[test]
    fn unpack_along_an_inner_axis() {
        let m = model(
            &[
                ("x", F32, &[2, 3], None),
                ("u0", F32, &[2], None),
                ("u1", F32, &[2], None),
                ("u2", F32, &[2], None),
            ],
            vec![(Op::UNPACK, unpack(3, -1), &[0], &[1, 2, 3])],
            &[1, 2, 3],
        );
        let mut it = Interpreter::new(&m).expect("prepares");
        it.set_input_f32(0, &[0.0, 1.0, 2.0, 3.0, 4.0, 5.0])
            .expect("fits");
        it.invoke().expect("the model runs");
        assert_eq!(floats(&it, 0), [0.0, 3.0]);
        assert_eq!(floats(&it, 1), [1.0, 4.0]);
        assert_eq!(floats(&it, 2), [2.0, 5.0]);
    }

    /// SPLIT of x [2, 6] into `outs` outputs with `num_splits` n.
    fn split_model(n: i32, outs: usize) -> Model {
        let names = ["o0", "o1", "o2", "o3", "o4"];
        let mut tensors: Vec<T<'_>> = vec![
            ("axis", TensorType::INT32, &[], Some(&[1])),
            ("x", F32, &[2, 6], None),
        ];
        tensors.extend(names[..outs].iter().map(|n| (*n, F32, &[2, 2][..], None)));
        let outputs: Vec<i32> = (2..2 + outs as i32).collect();
        model(
            &tensors,
            vec![(Op::SPLIT, split(n), &[0, 1], &outputs)],
            &outputs,
        )
    }

    #[test]
    fn bad_counts_and_sizes_are_typed_errors() {
        let e = error(&split_model(2, 3));
        assert!(
            e.contains("SPLIT") && e.contains("num_splits 2 but the operator has 3 output(s)"),
            "{e}"
        );
        let e = error(&split_model(5, 5));
        assert!(
            e.contains("dimension 6 along axis 1 is not a multiple of num_splits 5"),
            "{e}"
        );
        let sv = |sizes: &[i32]| {
            let s = sizes.to_vec().leak();
            model(
                &[
                    ("x", F32, &[6], None),
                    ("sizes", TensorType::INT32, &[2], Some(s)),
                    ("axis", TensorType::INT32, &[], Some(&[0])),
                    ("a", F32, &[3], None),
                    ("b", F32, &[3], None),
                ],
                vec![(Op::SPLIT_V, split_v(2), &[0, 1, 2], &[3, 4])],
                &[3, 4],
            )
        };
        assert!(error(&sv(&[-1, -1])).contains("more than one -1"));
        assert!(error(&sv(&[2, 3])).contains("do not sum to dimension 6"));
        assert!(error(&sv(&[-1, 7])).contains("size 7 out of range"));
        assert!(error(&sv(&[-3, 9])).contains("size -3 out of range"));
        assert!(Interpreter::new(&sv(&[4, 2])).is_ok());
        let m = model(
            &[("x", F32, &[2, 3], None), ("a", F32, &[3], None)],
            vec![(Op::UNPACK, unpack(1, 0), &[0], &[1])],
            &[1],
        );
        assert!(error(&m).contains("num 1 but the dimension along axis 0 is 2"));
        let m = model(
            &[("x", F32, &[2, 3], None), ("a", F32, &[3], None)],
            vec![(Op::UNPACK, unpack(1, 5), &[0], &[1])],
            &[1],
        );
        assert!(error(&m).contains("axis 5 out of range for rank 2"));
    }

    #[test]
    fn an_output_quantized_otherwise_gets_the_same_integers_as_in_litert() {
        let mut m = model(
            &[
                ("axis", TensorType::INT32, &[], Some(&[0])),
                ("x", TensorType::INT8, &[4], None),
                ("a", TensorType::INT8, &[2], None),
                ("b", TensorType::INT8, &[2], None),
            ],
            vec![(Op::SPLIT, split(2), &[0, 1], &[2, 3])],
            &[2, 3],
        );
        for (t, s) in [(1, 0.5), (2, 0.5), (3, 0.25)] {
            m.subgraphs[0].tensors[t].quantization = Some(Quantization {
                scale: Some(vec![s]),
                zero_point: Some(vec![0]),
                ..Default::default()
            });
        }
        // LiteRT 2.3 runs SPLIT so (`moves_integers_unchecked`): b holds x's integers.
        let mut it = Interpreter::new(&m).expect("prepares");
        it.set_input(0, &[1, 0xff, 3, 0x80]).expect("fits");
        it.invoke().expect("the model runs");
        assert_eq!(it.output(0).expect("a").bytes, [1, 0xff]);
        assert_eq!(it.output(1).expect("b").bytes, [3, 0x80]);
        let warnings = crate::graph::lint::warnings(&m);
        assert!(
            warnings.len() == 1
                && warnings[0].contains(
                    "operator 0 (SPLIT): output 'b' (scale 2.50000e-1 zero point 0) is quantized \
                     otherwise than input 1 'x' (scale 5.00000e-1 zero point 0)"
                ),
            "{warnings:?}"
        );
    }
}
