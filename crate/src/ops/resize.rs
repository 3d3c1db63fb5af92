//! RESIZE_BILINEAR (float32) and RESIZE_NEAREST_NEIGHBOR (any element type).

use super::{Kernel, Node, OpIo, PrepareCtx, PrepareResult, Prepared, elem_size, options};
use crate::graph::{BuiltinOperator, TensorType};
use crate::kernels::reference::resize::{self, ResizeParams};
use crate::tflite::schema::{ResizeBilinearOptionsT, ResizeNearestNeighborOptionsT};

struct Bilinear {
    p: ResizeParams,
}

impl Kernel for Bilinear {
    fn eval(&self, io: &mut OpIo<'_>) {
        let input = io.f32_in(0);
        resize::resize_bilinear(&self.p, input, io.f32_out());
    }
}

struct Nearest {
    size: usize,
    p: ResizeParams,
}

impl Kernel for Nearest {
    fn eval(&self, io: &mut OpIo<'_>) {
        let input = io.input(0);
        let out = io.output();
        match self.size {
            1 => resize::resize_nearest(&self.p, input, out),
            2 => resize::resize_nearest::<u16>(
                &self.p,
                bytemuck::cast_slice(input),
                bytemuck::cast_slice_mut(out),
            ),
            4 => resize::resize_nearest::<u32>(
                &self.p,
                bytemuck::cast_slice(input),
                bytemuck::cast_slice_mut(out),
            ),
            _ => resize::resize_nearest::<u64>(
                &self.p,
                bytemuck::cast_slice(input),
                bytemuck::cast_slice_mut(out),
            ),
        }
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
    if align_corners && half_pixel_centers {
        return Err(ctx.invalid(
            String::new(),
            "align_corners and half_pixel_centers are both set",
        ));
    }
    let (input, size_t) = (ctx.input(0)?, ctx.input(1)?);
    ctx.require_rank(&input, 4)?;
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
        ctx.require_f32(&input)?;
        Ok(Prepared::f32(shape, Bilinear { p }))
    } else {
        let size = elem_size(ctx, &input)?;
        if !matches!(size, 1 | 2 | 4 | 8) || input.dtype == TensorType::BOOL && size != 1 {
            return Err(ctx.unsupported(input.describe(), "element type"));
        }
        ctx.require_output_dtype(0, input.dtype)?;
        Ok(Prepared {
            shape,
            dtype: input.dtype,
            node: Node::Kernel(Box::new(Nearest { size, p })),
        })
    }
}
