//! RESIZE_BILINEAR (float32, and INT8 / INT16 in LiteRT's fixed point) and
//! RESIZE_NEAREST_NEIGHBOR (any element type). Quantized inputs and outputs must share their
//! parameters: neither op requantizes.

use super::fast::Fast;
use super::shape::require_same_quantization;
use super::{Kernel, Node, OpIo, PrepareCtx, PrepareResult, Prepared, elem_size, options};
use crate::graph::{BuiltinOperator, TensorType};
use crate::kernels::reference::bytes;
use crate::kernels::reference::int_elem::IntElem;
use crate::kernels::reference::resize::{self, ResizeParams};
use crate::kernels::simd128::resize_int::ResizeBilinearInt8;
use crate::kernels::{Arithmetic, KernelSet, litert_optimized, xnnpack};
use crate::tflite::schema::{ResizeBilinearOptionsT, ResizeNearestNeighborOptionsT};

struct Bilinear {
    p: ResizeParams,
    litert_optimized: bool,
}

impl Kernel for Bilinear {
    fn eval(&mut self, io: &mut OpIo<'_>) {
        let input = io.f32_in(0);
        let f = if self.litert_optimized {
            litert_optimized::resize::resize_bilinear
        } else {
            resize::resize_bilinear
        };
        f(&self.p, input, io.f32_out());
    }
}

/// Integer bilinear resize on `T` elements: `run` is the kernel's instance for `T`, made in the
/// kernels' crate (`resize::resize_bilinear_i8` / `_i16`).
struct IntBilinear<T> {
    p: ResizeParams,
    run: fn(&ResizeParams, &[T], &mut [T]),
}

impl<T: IntElem> Kernel for IntBilinear<T> {
    fn eval(&mut self, io: &mut OpIo<'_>) {
        let input = io.in_as::<T>(0);
        (self.run)(&self.p, input, io.out_as::<T>());
    }
}

/// int8 bilinear resize under [`Arithmetic::Xnnpack`] (XNNPACK's `s8_ibilinear`), its
/// coordinate tables built at prepare.
struct XnnpackBilinear(xnnpack::resize::ResizeBilinear);

impl Kernel for XnnpackBilinear {
    fn eval(&mut self, io: &mut OpIo<'_>) {
        let input = io.in_as::<i8>(0);
        xnnpack::resize::resize_bilinear(&self.0, input, io.out_as::<i8>());
    }
}

struct Nearest {
    size: usize,
    p: ResizeParams,
}

impl Kernel for Nearest {
    fn eval(&mut self, io: &mut OpIo<'_>) {
        let input = io.input(0);
        bytes::resize_nearest(self.size, &self.p, input, io.output());
    }
}

/// RESIZE_BILINEAR / RESIZE_NEAREST_NEIGHBOR: NHWC input, constant int32 `[new_h, new_w]`.
pub fn prepare_resize(ctx: &PrepareCtx<'_>) -> PrepareResult<Prepared> {
    ctx.expect_inputs(2, 2)?;
    let bilinear = ctx.op.code.op() == BuiltinOperator::RESIZE_BILINEAR;
    let (align_corners, half_pixel_centers) = if bilinear {
        let o = options!(ctx, ResizeBilinearOptions, ResizeBilinearOptionsT)?;
        (o.align_corners, o.half_pixel_centers)
    } else {
        let o = options!(
            ctx,
            ResizeNearestNeighborOptions,
            ResizeNearestNeighborOptionsT
        )?;
        (o.align_corners, o.half_pixel_centers)
    };
    // LiteRT's RESIZE_BILINEAR refuses both; its RESIZE_NEAREST_NEIGHBOR applies both (the
    // rounding of align_corners to the half-pixel coordinate), and so does `resize::nearest`.
    if bilinear && align_corners && half_pixel_centers {
        return Err(ctx.invalid(
            String::new(),
            "align_corners and half_pixel_centers are both set",
        ));
    }
    let (input, size_t) = (ctx.input(0)?, ctx.input(1)?);
    ctx.require_rank(&input, 4)?;
    // LiteRT's prepare: `NumDimensions(size) == 1` (both resizes).
    ctx.require_rank(&size_t, 1)?;
    let size = ctx.const_ints(&size_t)?;
    let (Ok([h, w]), true) = (
        <[i64; 2]>::try_from(size.as_slice()),
        size.iter().all(|&d| d > 0 && d <= i64::from(i32::MAX)),
    ) else {
        return Err(ctx.invalid(
            size_t.describe(),
            format!("new size {size:?} is not two positive values"),
        ));
    };
    let [n, ih, iw, c] = [
        input.shape[0],
        input.shape[1],
        input.shape[2],
        input.shape[3],
    ];
    let p = ResizeParams {
        batches: n,
        in_h: ih,
        in_w: iw,
        channels: c,
        out_h: h as usize,
        out_w: w as usize,
        align_corners,
        half_pixel_centers,
    };
    if ih == 0 || iw == 0 {
        return Err(ctx.invalid(input.describe(), "cannot resize an empty image"));
    }
    let shape = vec![n, p.out_h, p.out_w, c];
    if bilinear {
        ctx.require_dtype(
            &input,
            &[TensorType::FLOAT32, TensorType::INT8, TensorType::INT16],
        )?;
        ctx.require_output_dtype(0, input.dtype)?;
        if input.dtype == TensorType::FLOAT32 {
            let litert_optimized = ctx.litert_optimized();
            return Ok(Prepared::f32(
                shape,
                Bilinear {
                    p,
                    litert_optimized,
                },
            ));
        }
        let output = ctx.output(0)?;
        require_same_quantization(ctx, &input, &output)?;
        let fast = ctx.kernels == KernelSet::Fast;
        // XNNPACK does not requantize: the delegate takes an int8 resize whose input and
        // output parameters are equal (others stay on the reference arithmetic).
        if ctx.arithmetic == Arithmetic::Xnnpack
            && input.dtype == TensorType::INT8
            && ctx.per_tensor_qparams(&input)? == ctx.per_tensor_qparams(&output)?
        {
            let r = xnnpack::resize::ResizeBilinear::new(p);
            if fast && let Some(k) = ResizeBilinearInt8::xnnpack(&r) {
                return Ok(Prepared::new(shape, input.dtype, Fast::new(k, ())));
            }
            return Ok(Prepared::new(shape, input.dtype, XnnpackBilinear(r)));
        }
        if !resize::resize_bilinear_int_supported(&p) {
            return Err(ctx.unsupported(
                size_t.describe(),
                format!(
                    "integer resize {ih}x{iw} → {}x{} leaves LiteRT's 10-bit fixed-point range",
                    p.out_h, p.out_w
                ),
            ));
        }
        if input.dtype == TensorType::INT8
            && fast
            && let Some(k) = ResizeBilinearInt8::litert(&p)
        {
            return Ok(Prepared::new(shape, input.dtype, Fast::new(k, ())));
        }
        Ok(if input.dtype == TensorType::INT8 {
            Prepared::new(
                shape,
                input.dtype,
                IntBilinear::<i8> {
                    p,
                    run: resize::resize_bilinear_i8,
                },
            )
        } else {
            Prepared::new(
                shape,
                input.dtype,
                IntBilinear::<i16> {
                    p,
                    run: resize::resize_bilinear_i16,
                },
            )
        })
    } else {
        let size = elem_size(ctx, &input)?;
        if !matches!(size, 1 | 2 | 4 | 8) || input.dtype == TensorType::BOOL && size != 1 {
            return Err(ctx.unsupported(input.describe(), "element type"));
        }
        ctx.require_output_dtype(0, input.dtype)?;
        require_same_quantization(ctx, &input, &ctx.output(0)?)?;
        Ok(Prepared {
            shape,
            dtype: input.dtype,
            node: Node::Kernel(Box::new(Nearest { size, p })),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::shape::test_model::{act, error, i8s, ints, run, single_op};
    use crate::graph::{BuiltinOperator as Op, BuiltinOptionsT, TensorType};

    fn bilinear(out_w: i32, out_q: (f32, i64)) -> crate::graph::Model {
        single_op(
            Op::RESIZE_BILINEAR,
            BuiltinOptionsT::NONE,
            vec![
                act(TensorType::INT8, &[1, 1, 2, 1], Some((0.1, 0))),
                ints(&[2], &[1, out_w]),
                act(TensorType::INT8, &[1, 1, out_w, 1], Some(out_q)),
            ],
        )
    }

    #[test]
    fn int8_bilinear_runs_in_fixed_point() {
        // Legacy coordinates x · 0.5: 0, 50.5 → 51, 101, 101.
        assert_eq!(
            run(&bilinear(4, (0.1, 0)), &[&i8s(&[0, 101])]),
            i8s(&[0, 51, 101, 101])
        );
    }

    #[test]
    fn int8_bilinear_keeps_integers_and_rejects_out_of_range_geometry() {
        // Another output scale: the same integers, as LiteRT 2.3 gives (it does not requantize).
        assert_eq!(
            run(&bilinear(4, (0.2, 0)), &[&i8s(&[0, 101])]),
            i8s(&[0, 51, 101, 101])
        );
        // 2 → 1200: scale_10 = (2048 + 600) / 1200 = 2, the last pixel maps to 2398/1024 ≥ 2.
        let e = error(&bilinear(1200, (0.1, 0)));
        assert!(e.contains("fixed-point range"), "{e}");
    }

    #[test]
    fn nearest_applies_align_corners_and_half_pixel_together_as_litert_does() {
        use crate::tflite::schema::{ResizeBilinearOptionsT, ResizeNearestNeighborOptionsT};
        let q = Some((0.1, 0));
        let m = single_op(
            Op::RESIZE_NEAREST_NEIGHBOR,
            BuiltinOptionsT::ResizeNearestNeighborOptions(Box::new(
                ResizeNearestNeighborOptionsT {
                    align_corners: true,
                    half_pixel_centers: true,
                },
            )),
            vec![
                act(TensorType::INT8, &[1, 1, 3, 1], q),
                ints(&[2], &[1, 5]),
                act(TensorType::INT8, &[1, 1, 5, 1], q),
            ],
        );
        // LiteRT's GetNearestNeighbor: round((x + 0.5) · (3 − 1) / (5 − 1)) = 0, 1, 1, 2, 2.
        assert_eq!(run(&m, &[&i8s(&[10, 20, 30])]), i8s(&[10, 20, 20, 30, 30]));
        // LiteRT's RESIZE_BILINEAR refuses the pair ("If half_pixel_centers is True,
        // align_corners must be False").
        let m = single_op(
            Op::RESIZE_BILINEAR,
            BuiltinOptionsT::ResizeBilinearOptions(Box::new(ResizeBilinearOptionsT {
                align_corners: true,
                half_pixel_centers: true,
            })),
            vec![
                act(TensorType::INT8, &[1, 1, 3, 1], q),
                ints(&[2], &[1, 5]),
                act(TensorType::INT8, &[1, 1, 5, 1], q),
            ],
        );
        assert!(error(&m).contains("both set"), "{}", error(&m));
    }
}
