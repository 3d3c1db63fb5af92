//! TRANSPOSE_CONV as LiteRT's optimized float kernel computes it (`transpose_conv.cc`,
//! `kGenericOptimized` → `optimized_ops::TransposeConvV2`, read from the TF 2.21 wheel's
//! disassembly): the output is zeroed; per batch, one `cpu_backend_gemm` product (Eigen) of the
//! filter transposed to `[filter_h, filter_w, out_c] × in_c` (row-major) and the input
//! (`in_c × pixels`) gives every input pixel's contribution to each tap
//! ([`eigen::gemm_element`]); `Col2im` adds those into the output, input pixels in row-major
//! order (so each output element sums its contributions in that order, starting from 0); then
//! the bias is added to every output element and the activation clamps.

use super::eigen;
use crate::reference::conv::ConvParams;

/// TRANSPOSE_CONV (float). `filter` is `[out_c, filter_h, filter_w, in_c]`; `pad_top` /
/// `pad_left` are the rows / columns cropped from the start of the full transposed output.
pub fn transpose_conv2d(
    p: &ConvParams,
    input: &[f32],
    filter: &[f32],
    bias: Option<&[f32]>,
    output: &mut [f32],
) {
    output.fill(0.0);
    let ic = p.in_c;
    let rows = p.filter_h * p.filter_w * p.out_c;
    let cols = p.in_h * p.in_w;
    for b in 0..p.batches {
        for in_y in 0..p.in_h {
            for in_x in 0..p.in_w {
                let j = in_y * p.in_w + in_x;
                let x = &input[((b * p.in_h + in_y) * p.in_w + in_x) * ic..][..ic];
                for fy in 0..p.filter_h {
                    let out_y = (in_y * p.stride_h + fy) as isize - p.pad_top as isize;
                    if out_y < 0 || out_y >= p.out_h as isize {
                        continue;
                    }
                    for fx in 0..p.filter_w {
                        let out_x = (in_x * p.stride_w + fx) as isize - p.pad_left as isize;
                        if out_x < 0 || out_x >= p.out_w as isize {
                            continue;
                        }
                        let o_base =
                            ((b * p.out_h + out_y as usize) * p.out_w + out_x as usize) * p.out_c;
                        for oc in 0..p.out_c {
                            let w =
                                &filter[((oc * p.filter_h + fy) * p.filter_w + fx) * ic..][..ic];
                            let r = (fy * p.filter_w + fx) * p.out_c + oc;
                            output[o_base + oc] += eigen::gemm_element(w, x, r, rows, j, cols);
                        }
                    }
                }
            }
        }
    }
    for pixel in output.chunks_exact_mut(p.out_c.max(1)) {
        for (oc, v) in pixel.iter_mut().enumerate() {
            let with_bias = bias.map_or(*v, |bias| *v + bias[oc]);
            *v = p.act.apply(with_bias);
        }
    }
}
