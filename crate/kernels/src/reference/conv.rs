//! Convolutions over NHWC float tensors: CONV_2D, DEPTHWISE_CONV_2D, TRANSPOSE_CONV.

use super::ActivationRange;

/// Geometry shared by the convolution kernels. All tensors are NHWC; the padding is the number
/// of implicit zero rows/columns before the first input row/column (LiteRT's
/// `padding_values.height/width`), already derived from SAME/VALID by the ops layer.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ConvParams {
    /// Batch size.
    pub batches: usize,
    /// Input height, width, channels.
    pub in_h: usize,
    /// Input width.
    pub in_w: usize,
    /// Input channels.
    pub in_c: usize,
    /// Output height.
    pub out_h: usize,
    /// Output width.
    pub out_w: usize,
    /// Output channels.
    pub out_c: usize,
    /// Filter height.
    pub filter_h: usize,
    /// Filter width.
    pub filter_w: usize,
    /// Vertical stride (≥ 1).
    pub stride_h: usize,
    /// Horizontal stride (≥ 1).
    pub stride_w: usize,
    /// Vertical dilation (≥ 1; 1 for TRANSPOSE_CONV).
    pub dilation_h: usize,
    /// Horizontal dilation (≥ 1; 1 for TRANSPOSE_CONV).
    pub dilation_w: usize,
    /// Implicit zero rows before the input (conv) or cropped rows of the output (transpose).
    pub pad_top: usize,
    /// Implicit zero columns before the input (conv) or cropped columns (transpose).
    pub pad_left: usize,
    /// Fused activation clamp.
    pub act: ActivationRange,
}

/// CONV_2D. Mirrors LiteRT `reference_ops::Conv` (float): for each output element, sum over
/// filter rows, filter columns, then input channels of its group (skipping taps that fall in the
/// padding), add the bias, clamp.
///
/// `filter` is `[out_c, filter_h, filter_w, filter_in_c]`; `in_c` must be a multiple of
/// `filter_in_c` (grouped convolution with `in_c / filter_in_c` groups).
pub fn conv2d(
    p: &ConvParams,
    filter_in_c: usize,
    input: &[f32],
    filter: &[f32],
    bias: Option<&[f32]>,
    output: &mut [f32],
) {
    let groups = p.in_c / filter_in_c.max(1);
    let filters_per_group = p.out_c / groups.max(1);
    for b in 0..p.batches {
        for out_y in 0..p.out_h {
            let in_y_origin = (out_y * p.stride_h) as isize - p.pad_top as isize;
            for out_x in 0..p.out_w {
                let in_x_origin = (out_x * p.stride_w) as isize - p.pad_left as isize;
                for oc in 0..p.out_c {
                    let group = oc / filters_per_group.max(1);
                    let mut total = 0.0f32;
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
                            let in_base = ((b * p.in_h + in_y as usize) * p.in_w + in_x as usize)
                                * p.in_c
                                + group * filter_in_c;
                            let f_base = ((oc * p.filter_h + fy) * p.filter_w + fx) * filter_in_c;
                            for ic in 0..filter_in_c {
                                total += input[in_base + ic] * filter[f_base + ic];
                            }
                        }
                    }
                    let bias_value = bias.map_or(0.0, |bias| bias[oc]);
                    output[((b * p.out_h + out_y) * p.out_w + out_x) * p.out_c + oc] =
                        p.act.apply(total + bias_value);
                }
            }
        }
    }
}

/// DEPTHWISE_CONV_2D. Mirrors LiteRT `reference_ops::DepthwiseConv` (float): output channel
/// `ic * depth_multiplier + m` sums filter rows then columns of input channel `ic`, adds the
/// bias, clamps.
///
/// `filter` is `[1, filter_h, filter_w, out_c]` with `out_c = in_c * depth_multiplier`.
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
                        let mut total = 0.0f32;
                        for fy in 0..p.filter_h {
                            let in_y = in_y_origin + (p.dilation_h * fy) as isize;
                            for fx in 0..p.filter_w {
                                let in_x = in_x_origin + (p.dilation_w * fx) as isize;
                                if in_y >= 0
                                    && in_y < p.in_h as isize
                                    && in_x >= 0
                                    && in_x < p.in_w as isize
                                {
                                    let iv = input[((b * p.in_h + in_y as usize) * p.in_w
                                        + in_x as usize)
                                        * p.in_c
                                        + ic];
                                    let fv = filter[(fy * p.filter_w + fx) * p.out_c + oc];
                                    total += iv * fv;
                                }
                            }
                        }
                        let bias_value = bias.map_or(0.0, |bias| bias[oc]);
                        output[((b * p.out_h + out_y) * p.out_w + out_x) * p.out_c + oc] =
                            p.act.apply(total + bias_value);
                    }
                }
            }
        }
    }
}

/// TRANSPOSE_CONV. Mirrors LiteRT `reference_ops::TransposeConv` (float): zero the output, then
/// scatter every input element times every filter tap into the output
/// ([`transpose_conv2d_scatter`]), then add the bias and clamp.
///
/// `filter` is `[out_c, filter_h, filter_w, in_c]`. `pad_top`/`pad_left` are the rows/columns
/// cropped from the start of the full (unpadded) transposed output.
pub fn transpose_conv2d(
    p: &ConvParams,
    input: &[f32],
    filter: &[f32],
    bias: Option<&[f32]>,
    output: &mut [f32],
) {
    output.fill(0.0);
    transpose_conv2d_scatter(p, input, filter, output);
    for pixel in output.chunks_exact_mut(p.out_c.max(1)) {
        for (oc, v) in pixel.iter_mut().enumerate() {
            let bias_value = bias.map_or(0.0, |bias| bias[oc]);
            *v = p.act.apply(*v + bias_value);
        }
    }
}

/// The scatter loop that LiteRT's reference TRANSPOSE_CONV and MediaPipe's
/// `Convolution2DTransposeBias` share: adds every input element times every filter tap into
/// `output` as it stands (input rows, columns, channels outermost; filter rows, columns, output
/// channels inside; taps that fall outside the output skipped). No bias, no clamp: each caller
/// sets `output`'s starting values and finishes it.
pub fn transpose_conv2d_scatter(p: &ConvParams, input: &[f32], filter: &[f32], output: &mut [f32]) {
    for b in 0..p.batches {
        for in_y in 0..p.in_h {
            for in_x in 0..p.in_w {
                for ic in 0..p.in_c {
                    let out_x_origin = (in_x * p.stride_w) as isize - p.pad_left as isize;
                    let out_y_origin = (in_y * p.stride_h) as isize - p.pad_top as isize;
                    let iv = input[((b * p.in_h + in_y) * p.in_w + in_x) * p.in_c + ic];
                    for fy in 0..p.filter_h {
                        let out_y = out_y_origin + fy as isize;
                        if out_y < 0 || out_y >= p.out_h as isize {
                            continue;
                        }
                        for fx in 0..p.filter_w {
                            let out_x = out_x_origin + fx as isize;
                            if out_x < 0 || out_x >= p.out_w as isize {
                                continue;
                            }
                            let o_base = ((b * p.out_h + out_y as usize) * p.out_w
                                + out_x as usize)
                                * p.out_c;
                            for oc in 0..p.out_c {
                                let fv = filter
                                    [((oc * p.filter_h + fy) * p.filter_w + fx) * p.in_c + ic];
                                output[o_base + oc] += iv * fv;
                            }
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(
        in_hw: (usize, usize),
        in_c: usize,
        out_hw: (usize, usize),
        out_c: usize,
    ) -> ConvParams {
        ConvParams {
            batches: 1,
            in_h: in_hw.0,
            in_w: in_hw.1,
            in_c,
            out_h: out_hw.0,
            out_w: out_hw.1,
            out_c,
            filter_h: 1,
            filter_w: 1,
            stride_h: 1,
            stride_w: 1,
            dilation_h: 1,
            dilation_w: 1,
            pad_top: 0,
            pad_left: 0,
            act: ActivationRange::NONE,
        }
    }

    #[test]
    fn conv_1x1_is_a_matmul_per_pixel_plus_bias() {
        let p = params((1, 2), 2, (1, 2), 1);
        let input = [1.0, 2.0, 3.0, 4.0];
        let filter = [10.0, 1.0];
        let mut out = [0.0; 2];
        conv2d(&p, 2, &input, &filter, Some(&[0.5]), &mut out);
        assert_eq!(out, [12.5, 34.5]);
    }

    #[test]
    fn conv_3x3_same_padding_stride_1_sums_the_valid_neighbourhood() {
        // 3x3 input of ones, 3x3 filter of ones, pad 1: corners see 4, edges 6, centre 9.
        let mut p = params((3, 3), 1, (3, 3), 1);
        p.filter_h = 3;
        p.filter_w = 3;
        p.pad_top = 1;
        p.pad_left = 1;
        let mut out = [0.0; 9];
        conv2d(&p, 1, &[1.0; 9], &[1.0; 9], None, &mut out);
        assert_eq!(out, [4.0, 6.0, 4.0, 6.0, 9.0, 6.0, 4.0, 6.0, 4.0]);
    }

    #[test]
    fn conv_stride_2_dilation_2_and_relu6() {
        // 5x5 input 0..25, 2x2 filter dilated by 2 (taps at (0,0),(0,2),(2,0),(2,2)), stride 2
        // → 2x2 output (VALID: (5 - 3) / 2 + 1 = 2).
        let input: Vec<f32> = (0..25).map(|v| v as f32).collect();
        let mut p = params((5, 5), 1, (2, 2), 1);
        p.filter_h = 2;
        p.filter_w = 2;
        p.stride_h = 2;
        p.stride_w = 2;
        p.dilation_h = 2;
        p.dilation_w = 2;
        let mut out = [0.0; 4];
        conv2d(&p, 1, &input, &[1.0; 4], None, &mut out);
        // (0,0): 0+2+10+12 = 24; (0,1): 2+4+12+14 = 32; (1,0): 10+12+20+22 = 64; (1,1): 72.
        assert_eq!(out, [24.0, 32.0, 64.0, 72.0]);
        p.act = ActivationRange::RELU6;
        conv2d(&p, 1, &input, &[1.0; 4], Some(&[-30.0]), &mut out);
        assert_eq!(out, [0.0, 2.0, 6.0, 6.0]);
    }

    #[test]
    fn grouped_conv_uses_each_groups_channels() {
        // 2 input channels, 2 groups of 1 channel, 2 output channels.
        let p = params((1, 1), 2, (1, 1), 2);
        let mut out = [0.0; 2];
        conv2d(&p, 1, &[3.0, 5.0], &[2.0, 7.0], None, &mut out);
        assert_eq!(out, [6.0, 35.0]);
    }

    #[test]
    fn depthwise_multiplier_2_with_padding() {
        // 1x2 input, 2 channels, multiplier 2 → 4 output channels; 1x3 filter, pad 1 (SAME).
        let mut p = params((1, 2), 2, (1, 2), 4);
        p.filter_w = 3;
        p.pad_left = 1;
        let input = [1.0, 2.0, 3.0, 4.0]; // x0: (1, 2), x1: (3, 4)
        // filter [1, 1, 3, 4]: tap t, channel oc = t * 4 + oc
        let filter: Vec<f32> = (0..12).map(|v| v as f32).collect();
        let mut out = [0.0; 8];
        depthwise_conv2d(
            &p,
            2,
            &input,
            &filter,
            Some(&[0.0, 0.0, 0.0, 100.0]),
            &mut out,
        );
        // x=0 taps: t=1 at x0, t=2 at x1. oc0 (ic0): 1*4 + 3*8 = 28; oc1 (ic0): 1*5 + 3*9 = 32;
        // oc2 (ic1): 2*6 + 4*10 = 52; oc3: 2*7 + 4*11 + 100 = 158.
        assert_eq!(&out[..4], &[28.0, 32.0, 52.0, 158.0]);
        // x=1 taps: t=0 at x0, t=1 at x1. oc0: 1*0 + 3*4 = 12; oc1: 1 + 15 = 16; oc2: 2*2 + 4*6 = 28;
        // oc3: 2*3 + 4*7 + 100 = 134.
        assert_eq!(&out[4..], &[12.0, 16.0, 28.0, 134.0]);
    }

    #[test]
    fn transpose_conv_stride_2_scatters_and_crops() {
        // 1x2 input, 1 channel, 1x3 filter, stride 2: full output width (2-1)*2+3 = 5;
        // with pad_left 1 and out_w 4 we see columns 1..5.
        let mut p = params((1, 2), 1, (1, 4), 1);
        p.filter_w = 3;
        p.stride_w = 2;
        p.pad_left = 1;
        let mut out = [0.0; 4];
        transpose_conv2d(&p, &[1.0, 10.0], &[1.0, 2.0, 3.0], Some(&[0.5]), &mut out);
        // full: x0 → cols 0,1,2 += 1,2,3; x1 → cols 2,3,4 += 10,20,30 → [1,2,13,20,30].
        assert_eq!(out, [2.5, 13.5, 20.5, 30.5]);
    }
}
