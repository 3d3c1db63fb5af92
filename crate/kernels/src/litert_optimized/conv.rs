//! CONV_2D and DEPTHWISE_CONV_2D as LiteRT's optimized float kernels compute them.
//!
//! - CONV_2D (`conv.cc`, `kMultithreadOptimized`: Eigen's spatial convolution, a tensor
//!   contraction on Eigen's thread pool; with dilation or a non-constant filter,
//!   `optimized_ops::Conv`: im2col + `cpu_backend_gemm`): Eigen's `gebp_kernel` over the
//!   `out_c × pixels` product of the filter (`out_c × k`) and the im2col matrix (`k × pixels`,
//!   `k` ordered filter row, filter column, input channel, padding taps included as zeros), each
//!   element summed as the [`Plan`] of the product says (how Eigen cuts `k` and the blocks; see
//!   [`super::contraction`]); then `AddBiasAndEvalActivationFunction` / `BiasAndClamp` adds the
//!   bias and clamps.
//! - DEPTHWISE_CONV_2D (`optimized_ops::DepthwiseConv`, the generic row accumulator on x86): the
//!   accumulator starts at the bias (`DepthwiseConvInitAccBuffer`), then adds each filter tap's
//!   product, filter rows outer, columns inner, skipping taps in the padding; then clamps.

use super::caches::CacheSizes;
use super::contraction::{CALIBRATOR_THREADS, Plan, Rhs};
use crate::reference::conv::ConvParams;

/// The summation plan of a CONV_2D under TF's calibrator on a CPU with `caches`: Eigen's
/// thread-pool contraction when LiteRT runs its multithreaded kernel (`filter_constant`,
/// dilation 1), otherwise the single-threaded im2col path's general product ([`Plan::gemm`]).
pub fn conv2d_plan(p: &ConvParams, filter_constant: bool, caches: &CacheSizes) -> Plan {
    let k = p.filter_h * p.filter_w * p.in_c;
    let pixels = p.batches * p.out_h * p.out_w;
    if !filter_constant || p.dilation_h != 1 || p.dilation_w != 1 {
        return Plan::gemm(k, p.out_c, pixels, caches);
    }
    let one_by_one = p.filter_h == 1 && p.filter_w == 1 && p.stride_h == 1 && p.stride_w == 1;
    let whole_input =
        p.filter_h == p.in_h && p.filter_w == p.in_w && p.pad_top == 0 && p.pad_left == 0;
    let rhs = if one_by_one || whole_input {
        Rhs::Matrix
    } else {
        Rhs::ImagePatches
    };
    Plan::tensor_contraction(p.out_c, pixels, k, rhs, CALIBRATOR_THREADS, caches)
}

/// CONV_2D (float, not grouped), each element summed as `plan` says ([`conv2d_plan`]).
/// `column` is scratch of at least `filter_h · filter_w · in_c` floats (one im2col column).
pub fn conv2d(
    p: &ConvParams,
    plan: &Plan,
    input: &[f32],
    filter: &[f32],
    bias: Option<&[f32]>,
    output: &mut [f32],
    column: &mut [f32],
) {
    let depth = p.filter_h * p.filter_w * p.in_c;
    let column = &mut column[..depth];
    let pixels = p.batches * p.out_h * p.out_w;
    let mut j = 0usize;
    for b in 0..p.batches {
        for out_y in 0..p.out_h {
            let in_y_origin = (out_y * p.stride_h) as isize - p.pad_top as isize;
            for out_x in 0..p.out_w {
                let in_x_origin = (out_x * p.stride_w) as isize - p.pad_left as isize;
                // im2col: this pixel's receptive field, zeros where it falls in the padding.
                for fy in 0..p.filter_h {
                    let in_y = in_y_origin + (p.dilation_h * fy) as isize;
                    for fx in 0..p.filter_w {
                        let in_x = in_x_origin + (p.dilation_w * fx) as isize;
                        let dst = &mut column[(fy * p.filter_w + fx) * p.in_c..][..p.in_c];
                        if in_y < 0
                            || in_y >= p.in_h as isize
                            || in_x < 0
                            || in_x >= p.in_w as isize
                        {
                            dst.fill(0.0);
                        } else {
                            let src =
                                ((b * p.in_h + in_y as usize) * p.in_w + in_x as usize) * p.in_c;
                            dst.copy_from_slice(&input[src..src + p.in_c]);
                        }
                    }
                }
                let out = &mut output[j * p.out_c..(j + 1) * p.out_c];
                for (oc, o) in out.iter_mut().enumerate() {
                    let row = &filter[oc * depth..(oc + 1) * depth];
                    let sum = plan.dot(row, column, (oc, p.out_c), (j, pixels));
                    let bias_value = bias.map_or(0.0, |bias| bias[oc]);
                    *o = p.act.apply(sum + bias_value);
                }
                j += 1;
            }
        }
    }
}

/// DEPTHWISE_CONV_2D (float): output channel `ic · depth_multiplier + m` is
/// `bias + Σ taps` in filter-row, filter-column order, clamped.
pub fn depthwise_conv2d(
    p: &ConvParams,
    depth_multiplier: usize,
    input: &[f32],
    filter: &[f32],
    bias: Option<&[f32]>,
    output: &mut [f32],
) {
    for b in 0..p.batches {
        for out_y in 0..p.out_h {
            let in_y_origin = (out_y * p.stride_h) as isize - p.pad_top as isize;
            for out_x in 0..p.out_w {
                let in_x_origin = (out_x * p.stride_w) as isize - p.pad_left as isize;
                for ic in 0..p.in_c {
                    for m in 0..depth_multiplier {
                        let oc = m + ic * depth_multiplier;
                        let mut acc = bias.map_or(0.0, |bias| bias[oc]);
                        for fy in 0..p.filter_h {
                            let in_y = in_y_origin + (p.dilation_h * fy) as isize;
                            if in_y < 0 || in_y >= p.in_h as isize {
                                continue;
                            }
                            for fx in 0..p.filter_w {
                                let in_x = in_x_origin + (p.dilation_w * fx) as isize;
                                if in_x < 0 || in_x >= p.in_w as isize {
                                    continue;
                                }
                                let iv = input[((b * p.in_h + in_y as usize) * p.in_w
                                    + in_x as usize)
                                    * p.in_c
                                    + ic];
                                acc += iv * filter[(fy * p.filter_w + fx) * p.out_c + oc];
                            }
                        }
                        output[((b * p.out_h + out_y) * p.out_w + out_x) * p.out_c + oc] =
                            p.act.apply(acc);
                    }
                }
            }
        }
    }
}
