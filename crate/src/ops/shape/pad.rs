//! PAD and PADV2 with constant paddings: the pad value is PADV2's constant, else the output's
//! zero point (0 for float).

use super::{is_quantized_type, movable_size, quant_key, same_type};
use crate::graph::{TensorType, litert_zero_point};
use crate::kernels::reference::bytes;
use crate::kernels::reference::shape::PadParams;
use crate::ops::{Kernel, OpIo, PrepareCtx, PrepareResult, Prepared, TensorInfo};

struct Pad {
    size: usize,
    p: PadParams,
    /// The pad value's bytes (one element).
    value: [u8; 8],
}

impl Kernel for Pad {
    fn eval(&mut self, io: &mut OpIo<'_>) {
        let input = io.input(0);
        bytes::pad(self.size, &self.p, &self.value, input, io.output())
    }
}

/// PAD / PADV2: constant `[rank, 2]` paddings; PADV2's constant pad value, else 0. As LiteRT's
/// `pad.cc`: quantized tensors (UINT8, and INT8/INT16 with a scale) pad with the output's zero
/// point, and a PADV2 constant must share the output's scale and zero point.
pub fn prepare_pad(ctx: &PrepareCtx<'_>) -> PrepareResult<Prepared> {
    ctx.expect_inputs(2, 3)?;
    let (input, pads_t) = (ctx.input(0)?, ctx.input(1)?);
    let size = movable_size(ctx, &input)?;
    ctx.require_max_rank(&input)?;
    let pads = ctx.const_ints(&pads_t)?;
    let rank = input.shape.len();
    if pads.len() != rank * 2 {
        return Err(ctx.invalid(
            pads_t.describe(),
            format!("{} values for rank {rank} (need {})", pads.len(), rank * 2),
        ));
    }
    let pairs: Vec<(usize, usize)> = pads
        .chunks_exact(2)
        .map(|p| match (usize::try_from(p[0]), usize::try_from(p[1])) {
            (Ok(a), Ok(b)) => Ok((a, b)),
            _ => Err(ctx.invalid(pads_t.describe(), format!("negative padding {pads:?}"))),
        })
        .collect::<PrepareResult<_>>()?;
    let p = PadParams::new(input.shape, &pairs)
        .ok_or_else(|| ctx.invalid(pads_t.describe(), "padded size overflows"))?;
    let out = ctx.output(0)?;
    let quantized = is_quantized_type(input.dtype) && quant_key(&input).is_some()
        || input.dtype == TensorType::UINT8;
    let mut value = [0u8; 8];
    match ctx.optional_input(2) {
        Some(v) => {
            let Some(data) = v.data else {
                return Err(ctx.unsupported(v.describe(), "pad value must be a constant"));
            };
            if v.dtype != input.dtype || data.len() != size {
                return Err(ctx.invalid(
                    v.describe(),
                    "pad value must be one element of the input's type",
                ));
            }
            if quantized && quant_key(&v) != quant_key(&out) {
                return Err(ctx.invalid(
                    v.describe(),
                    "a quantized pad value must have the output's scale and zero point",
                ));
            }
            value[..size].copy_from_slice(data);
        }
        None if quantized => {
            value = zero_point_pad_value(ctx, input.dtype, &out)?;
        }
        None => {}
    }
    same_type(ctx, &input, p.out_dims().to_vec(), Pad { size, p, value })
}

/// The pad value of a quantized `dtype` (INT8, UINT8 or INT16) as LiteRT takes it: the zero
/// point of `out` (0 when it has none), which must fit the type, as little-endian bytes.
pub(crate) fn zero_point_pad_value(
    ctx: &PrepareCtx<'_>,
    dtype: TensorType,
    out: &TensorInfo<'_>,
) -> PrepareResult<[u8; 8]> {
    let zp = out
        .quantization
        .and_then(|q| q.zero_points().first().copied())
        .map_or(0, |z| i64::from(litert_zero_point(z)));
    let fits = match dtype {
        TensorType::INT8 => i8::try_from(zp).is_ok(),
        TensorType::UINT8 => u8::try_from(zp).is_ok(),
        _ => i16::try_from(zp).is_ok(),
    };
    if !fits {
        return Err(ctx.invalid(
            out.describe(),
            format!("zero point {zp} outside the type's range"),
        ));
    }
    Ok(zp.to_le_bytes())
}

#[cfg(test)]
mod tests {
    use crate::graph::{BuiltinOperator as Op, BuiltinOptionsT, TensorType};
    use crate::ops::shape::test_model::{act, error, i8s, ints, run, single_op};

    const I8: TensorType = TensorType::INT8;

    #[test]
    fn pad_writes_the_output_zero_point_and_checks_padv2_constants() {
        // [1, 2] padded by one on each side of axis 1, zero point 127.
        let m = single_op(
            Op::PAD,
            BuiltinOptionsT::NONE,
            vec![
                act(I8, &[1, 2], Some((0.01, 127))),
                ints(&[2, 2], &[0, 0, 1, 1]),
                act(I8, &[1, 4], Some((0.01, 127))),
            ],
        );
        assert_eq!(run(&m, &[&i8s(&[-5, 6])]), i8s(&[127, -5, 6, 127]));
        // PADV2 with a constant whose scale is not the output's.
        let mut value = act(I8, &[], Some((0.02, 127)));
        value.data = Some(i8s(&[0]));
        let m = single_op(
            Op::PADV2,
            BuiltinOptionsT::NONE,
            vec![
                act(I8, &[1, 2], Some((0.01, 127))),
                ints(&[2, 2], &[0, 0, 1, 1]),
                value,
                act(I8, &[1, 4], Some((0.01, 127))),
            ],
        );
        assert!(error(&m).contains("output's scale and zero point"));
    }

    #[test]
    fn padv2_uses_its_constant() {
        let mut value = act(I8, &[], Some((0.01, -128)));
        value.data = Some(i8s(&[-100]));
        let m = single_op(
            Op::PADV2,
            BuiltinOptionsT::NONE,
            vec![
                act(I8, &[2], Some((0.01, -128))),
                ints(&[1, 2], &[1, 0]),
                value,
                act(I8, &[3], Some((0.01, -128))),
            ],
        );
        assert_eq!(run(&m, &[&i8s(&[1, 2])]), i8s(&[-100, 1, 2]));
    }
}
