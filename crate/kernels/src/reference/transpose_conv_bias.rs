//! MediaPipe's custom operator `Convolution2DTransposeBias` (float only), as MediaPipe's own
//! kernel computes it (`mediapipe/util/tflite/operations/transpose_conv_bias.cc`): a transposed
//! convolution whose output starts at the bias, then takes every input element times every
//! filter tap in LiteRT's reference scatter order. The bias is added first, not last as in
//! TRANSPOSE_CONV followed by ADD, so the float sums differ: that order is the spec here.

use super::conv::{ConvParams, transpose_conv2d_scatter};

/// The padding MediaPipe's kernel uses for one spatial dim: with SAME padding
/// `max(0, filter − (input − 1) mod stride − 1)`, 0 with VALID. Returns
/// `(output size, cropped leading rows/columns)`: the output is
/// `stride·(input − 1) + filter − padding` and its first `padding / 2` rows (columns) are cropped
/// (`stride ≥ 1`, `input ≥ 1`; `None` when the size overflows).
pub fn output_size_and_crop(
    same: bool,
    input: usize,
    filter: usize,
    stride: usize,
) -> Option<(usize, usize)> {
    let padding = if same {
        filter.saturating_sub((input - 1) % stride + 1)
    } else {
        0
    };
    let size = stride.checked_mul(input - 1)?.checked_add(filter)? - padding;
    Some((size, padding / 2))
}

/// `Convolution2DTransposeBias`: every output pixel set to `bias`, then
/// [`transpose_conv2d_scatter`] adds the products into it. No activation (`p.act` is ignored).
///
/// `filter` is `[out_c, filter_h, filter_w, in_c]`, `bias` has `out_c` values.
pub fn transpose_conv2d_bias(
    p: &ConvParams,
    input: &[f32],
    filter: &[f32],
    bias: &[f32],
    output: &mut [f32],
) {
    for pixel in output.chunks_exact_mut(p.out_c.max(1)) {
        pixel.copy_from_slice(&bias[..pixel.len()]);
    }
    transpose_conv2d_scatter(p, input, filter, output);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reference::ActivationRange;

    #[test]
    fn output_size_follows_mediapipe_padding() {
        // 128 → 256 with a 2×2 filter and stride 2 (selfie_segmentation): no padding.
        assert_eq!(output_size_and_crop(true, 128, 2, 2), Some((256, 0)));
        // 3×3 filter, stride 2, input 4: padding 3 − (3 mod 2) − 1 = 1, output 2·3 + 3 − 1 = 8.
        assert_eq!(output_size_and_crop(true, 4, 3, 2), Some((8, 0)));
        // 4×4 filter, stride 1: padding 3, crop 1, output 3 + 4 − 3 = 4.
        assert_eq!(output_size_and_crop(true, 4, 4, 1), Some((4, 1)));
        assert_eq!(output_size_and_crop(false, 4, 4, 1), Some((7, 0)));
        assert_eq!(output_size_and_crop(false, 2, 1, usize::MAX), None);
    }

    #[test]
    fn bias_comes_first_in_the_sum() {
        // Input [4, 4] (1×1×2×1), filter [1, 1] (1×1×2×1), stride 1, VALID: output width 3 and
        // output[1] takes both inputs. With bias 1e8 (f32 ulp 8), bias first gives
        // (1e8 + 4) + 4 = 1e8 (each tie rounds to even), TRANSPOSE_CONV's bias last gives
        // (4 + 4) + 1e8 = 1e8 + 8.
        let p = ConvParams {
            batches: 1,
            in_h: 1,
            in_w: 2,
            in_c: 1,
            out_h: 1,
            out_w: 3,
            out_c: 1,
            filter_h: 1,
            filter_w: 2,
            stride_h: 1,
            stride_w: 1,
            dilation_h: 1,
            dilation_w: 1,
            pad_top: 0,
            pad_left: 0,
            act: ActivationRange::NONE,
        };
        let (input, filter, bias) = ([4.0f32, 4.0], [1.0f32, 1.0], [1e8f32]);
        let mut out = [0.0f32; 3];
        transpose_conv2d_bias(&p, &input, &filter, &bias, &mut out);
        assert_eq!(out, [1e8, 1e8, 1e8]);
        let mut bias_last = [0.0f32; 3];
        crate::reference::conv::transpose_conv2d(&p, &input, &filter, Some(&bias), &mut bias_last);
        assert_eq!(bias_last[1], 1e8 + 8.0);
    }
}
