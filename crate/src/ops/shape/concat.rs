//! CONCATENATION: UINT8 inputs whose parameters differ from the output's are requantized as
//! LiteRT's `ConcatenationWithScaling` does; INT16 values are copied as they are, whatever the
//! scales (as LiteRT does); INT8 needs the output's parameters on every input.

use super::{is_quantized_type, movable_size, quant_key, require_same_quantization};
use crate::graph::TensorType;
use crate::graph::dtype::dtype_name;
use crate::kernels::reference::bytes;
use crate::kernels::reference::int_elem::IntElem;
use crate::kernels::reference::shape::{self, ConcatRescale};
use crate::ops::{Kernel, Node, OpIo, PrepareCtx, PrepareResult, Prepared, options};
use crate::tflite::schema::{ActivationFunctionType, ConcatenationOptionsT};

/// One input's placement in a concatenation, and its requantization when its parameters differ
/// from the output's.
#[derive(Clone, Copy)]
struct Part {
    in_inner: usize,
    out_offset: usize,
    rescale: Option<ConcatRescale>,
}

struct Concat {
    size: usize,
    dtype: TensorType,
    outer: usize,
    out_inner: usize,
    parts: Vec<Part>,
}

/// Runs the requantizing concatenation of one part with `T` elements.
fn concat_rescaled<T: IntElem>(c: &Concat, part: &Part, r: &ConcatRescale, i: &[u8], o: &mut [u8]) {
    shape::concat_part_rescaled::<T>(
        c.outer,
        part.in_inner,
        c.out_inner,
        part.out_offset,
        r,
        bytemuck::cast_slice(i),
        bytemuck::cast_slice_mut(o),
    );
}

impl Kernel for Concat {
    fn eval(&mut self, io: &mut OpIo<'_>) {
        for (k, part) in self.parts.iter().enumerate() {
            let input = io.input(k);
            match (&part.rescale, self.dtype) {
                // Only UINT8 parts carry a rescale (see `prepare_concatenation`).
                (Some(r), _) => concat_rescaled::<u8>(self, part, r, input, io.output()),
                (None, _) => bytes::concat_part(
                    self.size,
                    [self.outer, part.in_inner, self.out_inner, part.out_offset],
                    input,
                    io.output(),
                ),
            }
        }
    }
}

/// CONCATENATION along `axis`: same type and rank, equal dims except along the axis. Mirrors
/// LiteRT's `concatenation.cc`: UINT8 inputs whose scale or zero point differ from the output's
/// are requantized as `reference_ops::ConcatenationWithScaling` does; INT8 inputs must have the
/// output's scale and zero point (LiteRT's Prepare refuses others); INT16 inputs and output need
/// zero point 0 and their values are copied unchanged even where the scales differ (LiteRT's
/// `Concatenation<int16_t>` does not rescale); everything else is copied.
pub fn prepare_concatenation(ctx: &PrepareCtx<'_>) -> PrepareResult<Prepared> {
    let o = options!(ctx, ConcatenationOptions, ConcatenationOptionsT)?;
    // Codes LiteRT does not clamp with (TANH, unknown numbers) read as NONE there too.
    let f = o.fused_activation_function;
    if f != ActivationFunctionType::NONE && crate::graph::lint::is_clamp_activation(f) {
        return Err(ctx.unsupported(String::new(), "fused activation on CONCATENATION"));
    }
    let first = ctx.input(0)?;
    let size = movable_size(ctx, &first)?;
    let rank = first.shape.len();
    let axis = ctx.axis(&first, i64::from(o.axis), rank)?;
    ctx.require_output_dtype(0, first.dtype)?;
    let out = ctx.output(0)?;
    let quantized = is_quantized_type(first.dtype) && quant_key(&out).is_some();
    let out_q = if quantized {
        Some(ctx.per_tensor_qparams(&out)?)
    } else {
        None
    };
    if first.dtype == TensorType::INT16 && out_q.is_some_and(|q| q.zero_point != 0) {
        return Err(ctx.invalid(out.describe(), "INT16 zero point must be 0"));
    }
    let mut shape = first.shape.to_vec();
    shape[axis] = 0;
    let inner_of = |s: &[usize]| s[axis..].iter().product::<usize>();
    let mut parts = Vec::with_capacity(ctx.inputs.len());
    for k in 0..ctx.inputs.len() {
        let t = ctx.input(k)?;
        if t.dtype != first.dtype {
            return Err(ctx.invalid(
                t.describe(),
                format!("type {} differs from input 0", dtype_name(t.dtype)),
            ));
        }
        if t.shape.len() != rank || (0..rank).any(|d| d != axis && t.shape[d] != first.shape[d]) {
            return Err(ctx.invalid(
                t.describe(),
                format!(
                    "shape {:?} does not concatenate with {:?} on axis {axis}",
                    t.shape, first.shape
                ),
            ));
        }
        let rescale = match out_q {
            Some(oq) => {
                let iq = ctx.per_tensor_qparams(&t)?;
                match t.dtype {
                    TensorType::INT16 if iq.zero_point != 0 => {
                        return Err(ctx.invalid(t.describe(), "INT16 zero point must be 0"));
                    }
                    TensorType::INT8 if iq != oq => {
                        return Err(ctx.invalid(
                            t.describe(),
                            format!(
                                "INT8 scale {:e} / zero point {} differ from the output's \
                                 ({:e} / {}); LiteRT requires them equal",
                                iq.scale, iq.zero_point, oq.scale, oq.zero_point
                            ),
                        ));
                    }
                    _ => {}
                }
                (t.dtype == TensorType::UINT8 && iq != oq)
                    .then(|| ConcatRescale::new(iq.scale, iq.zero_point, oq.scale, oq.zero_point))
            }
            None => {
                require_same_quantization(ctx, &t, &out)?;
                None
            }
        };
        let out_offset = inner_of(&shape);
        shape[axis] = shape[axis]
            .checked_add(t.shape[axis])
            .ok_or_else(|| ctx.invalid(t.describe(), "concatenated size overflows"))?;
        parts.push(Part {
            in_inner: inner_of(t.shape),
            out_offset,
            rescale,
        });
    }
    let outer = first.shape[..axis].iter().product();
    let out_inner = inner_of(&shape);
    Ok(Prepared {
        shape,
        dtype: first.dtype,
        node: Node::Kernel(Box::new(Concat {
            size,
            dtype: first.dtype,
            outer,
            out_inner,
            parts,
        })),
    })
}

#[cfg(test)]
mod tests {
    use crate::graph::{BuiltinOperator as Op, BuiltinOptionsT, TensorType};
    use crate::ops::shape::test_model::{act, error, i8s, run, single_op};
    use crate::tflite::schema::ConcatenationOptionsT;

    const I8: TensorType = TensorType::INT8;

    fn concat(axis: i32) -> BuiltinOptionsT {
        BuiltinOptionsT::ConcatenationOptions(Box::new(ConcatenationOptionsT {
            axis,
            ..Default::default()
        }))
    }

    #[test]
    fn uint8_concat_requantizes_only_the_input_with_other_parameters() {
        // in0 (0.5, 10) → out (0.25, 3): (q − 10) · 2 + 3; in1 shares the output's parameters.
        let u8t = |n, q| act(TensorType::UINT8, &[1, n], Some(q));
        let m = single_op(
            Op::CONCATENATION,
            concat(1),
            vec![u8t(2, (0.5, 10)), u8t(2, (0.25, 3)), u8t(4, (0.25, 3))],
        );
        let out = run(&m, &[&[10, 60], &[0, 255]]);
        assert_eq!(out, vec![3, 103, 0, 255]);
    }

    #[test]
    fn int8_concat_with_other_parameters_is_refused_as_litert_does() {
        let m = single_op(
            Op::CONCATENATION,
            concat(1),
            vec![
                act(I8, &[1, 2], Some((0.5, 10))),
                act(I8, &[1, 2], Some((0.25, -3))),
                act(I8, &[1, 4], Some((0.25, -3))),
            ],
        );
        let e = error(&m);
        assert!(e.contains("INT8 scale 5e-1 / zero point 10 differ"), "{e}");
        let same = single_op(
            Op::CONCATENATION,
            concat(1),
            vec![
                act(I8, &[1, 2], Some((0.25, -3))),
                act(I8, &[1, 2], Some((0.25, -3))),
                act(I8, &[1, 4], Some((0.25, -3))),
            ],
        );
        assert_eq!(
            run(&same, &[&i8s(&[10, 60]), &i8s(&[-128, 127])]),
            i8s(&[10, 60, -128, 127])
        );
    }

    #[test]
    fn int16_concat_copies_values_whatever_the_scales() {
        // LiteRT's int16 CONCATENATION copies the stored values (no rescale), so inputs of
        // scales 0.5 and 0.25 land unchanged in an output of scale 1 (mutation-harness mutant
        // 6107 of seed 2, checked against BUILTIN_REF).
        let i16t = |n, s| act(TensorType::INT16, &[n], Some((s, 0)));
        let m = single_op(
            Op::CONCATENATION,
            concat(0),
            vec![i16t(2, 0.5), i16t(2, 0.25), i16t(4, 1.0)],
        );
        let i16s = |v: &[i16]| bytemuck::cast_slice::<i16, u8>(v).to_vec();
        let out = run(&m, &[&i16s(&[1000, -7]), &i16s(&[3, 32767])]);
        assert_eq!(out, i16s(&[1000, -7, 3, 32767]));
    }

    #[test]
    fn int16_concat_needs_zero_point_zero() {
        let i16q = |zp| act(TensorType::INT16, &[2], Some((0.001, zp)));
        let m = single_op(
            Op::CONCATENATION,
            concat(0),
            vec![i16q(0), i16q(3), i16q(0)],
        );
        assert!(error(&m).contains("INT16 zero point must be 0"));
    }
}
