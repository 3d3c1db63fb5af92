//! MediaPipe's landmark custom operators (version 2, as `face_landmark_with_attention.tflite`
//! uses them), computed in the order and precision MediaPipe's CPU kernels
//! (`mediapipe/util/tflite/operations/landmarks_to_transform_matrix.cc`,
//! `transform_tensor_bilinear.cc`, `transform_landmarks.cc`) use:
//!
//! - [`landmarks_to_transform_matrix`]: a 4×4 matrix (row-major) mapping a crop's pixel
//!   coordinates to the landmarks' space, from a rotation (two landmarks) and a box (a subset);
//! - [`transform_tensor_bilinear`]: samples a feature map at the matrix-mapped coordinates of each
//!   output pixel (bilinear, zero outside);
//! - [`transform_landmarks`]: maps each landmark's x and y by the matrix's first two rows.
//!
//! Float32 throughout except where MediaPipe's C++ mixes in `double` constants (`1.0 - w`, the
//! align-corners correction): those steps are computed in `f64` and rounded once, as C++ does.
//! The matrix products sum from `0.0` in index order, as MediaPipe's `Mat3`/`Mat4` loops do.

/// A 4-element dot product `((l0·r0 + l1·r1) + l2·r2) + l3·r3` in float32 (MediaPipe's
/// `DotProduct` of two `float4`s).
fn dot4(l: [f32; 4], r: [f32; 4]) -> f32 {
    l[0] * r[0] + l[1] * r[1] + l[2] * r[2] + l[3] * r[3]
}

/// Row-major `N×N` product `a · b`, each entry summed from `0.0` over `k` in order.
fn matmul<const S: usize>(a: &[f32; S], b: &[f32; S], n: usize) -> [f32; S] {
    let mut out = [0.0f32; S];
    for r in 0..n {
        for c in 0..n {
            let mut sum = 0.0f32;
            for k in 0..n {
                sum += a[r * n + k] * b[k * n + c];
            }
            out[r * n + c] = sum;
        }
    }
    out
}

/// `m · v` for a row-major 3×3 `m`, each entry summed from `0.0`.
fn mat3_vec(m: &[f32; 9], v: [f32; 3]) -> [f32; 3] {
    let mut out = [0.0f32; 3];
    for (r, o) in out.iter_mut().enumerate() {
        let mut sum = 0.0f32;
        for (k, vk) in v.iter().enumerate() {
            sum += m[r * 3 + k] * vk;
        }
        *o = sum;
    }
    out
}

/// The options of `Landmarks2TransformMatrix` version 2 (its FlexBuffers map's keys).
#[derive(Debug, Clone, PartialEq)]
pub struct LandmarksToMatrixParams {
    /// Pairs of landmark indices whose points bound the box (`subset_idxs` read two at a time; an
    /// odd last index is paired with itself).
    pub subset: Vec<[usize; 2]>,
    /// The landmarks whose direction (left to right) gives the rotation.
    pub left_rotation_idx: usize,
    /// See `left_rotation_idx`.
    pub right_rotation_idx: usize,
    /// The rotation the crop is aligned to.
    pub target_rotation_radians: f32,
    /// The crop's size in pixels.
    pub output_height: i32,
    /// See `output_height`.
    pub output_width: i32,
    /// The box's scale relative to the subset's extent.
    pub scale_x: f32,
    /// See `scale_x`.
    pub scale_y: f32,
}

/// `Landmarks2TransformMatrix` v2: `landmarks` holds `[x, y, z]` triples (every index in
/// `p` must be below `landmarks.len() / 3`); writes the 16 entries of the matrix.
pub fn landmarks_to_transform_matrix(
    p: &LandmarksToMatrixParams,
    landmarks: &[f32],
    out: &mut [f32],
) {
    let xyz = |i: usize| [landmarks[3 * i], landmarks[3 * i + 1], landmarks[3 * i + 2]];
    let (left, right) = (xyz(p.left_rotation_idx), xyz(p.right_rotation_idx));
    let rotation = p.target_rotation_radians - (right[1] - left[1]).atan2(right[0] - left[0]);

    let r = rotation;
    let rot = [r.cos(), -r.sin(), 0.0, r.sin(), r.cos(), 0.0, 0.0, 0.0, 1.0];
    let rot_inv = [
        (-r).cos(),
        -(-r).sin(),
        0.0,
        (-r).sin(),
        (-r).cos(),
        0.0,
        0.0,
        0.0,
        1.0,
    ];
    let mut max = [0.0f32; 3];
    let mut min = [0.0f32; 3];
    let points = p.subset.iter().flat_map(|pair| pair.iter());
    for (n, &i) in points.enumerate() {
        let [x, y, _] = xyz(i);
        let q = mat3_vec(&rot, [x, y, 1.0]);
        if n == 0 {
            (max, min) = (q, q);
            continue;
        }
        // MediaPipe's strict comparisons (a NaN never replaces the running bound).
        if max[0] < q[0] {
            max[0] = q[0];
        }
        if max[1] < q[1] {
            max[1] = q[1];
        }
        if min[0] > q[0] {
            min[0] = q[0];
        }
        if min[1] > q[1] {
            min[1] = q[1];
        }
    }
    let crop_w = max[0] - min[0];
    let crop_h = max[1] - min[1];
    let centre = mat3_vec(
        &rot_inv,
        [(min[0] + max[0]) / 2.0, (min[1] + max[1]) / 2.0, min[2]],
    );

    let mut t = [0.0f32; 16];
    for k in 0..4 {
        t[k * 5] = 1.0;
    }
    let mut step = |m: [f32; 16]| t = matmul(&t, &m, 4);
    let translate = |x: f32, y: f32| {
        [
            1.0, 0.0, 0.0, x, 0.0, 1.0, 0.0, y, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0,
        ]
    };
    step(translate(centre[0], centre[1]));
    let r = -rotation;
    step([
        r.cos(),
        -r.sin(),
        0.0,
        0.0,
        r.sin(),
        r.cos(),
        0.0,
        0.0,
        0.0,
        0.0,
        1.0,
        0.0,
        0.0,
        0.0,
        0.0,
        1.0,
    ]);
    let scale_x = p.scale_x * crop_w / p.output_width as f32;
    let scale_y = p.scale_y * crop_h / p.output_height as f32;
    step([
        scale_x, 0.0, 0.0, 0.0, 0.0, scale_y, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0,
    ]);
    // `-1.0 * (output_width / 2.0)` in double (the same as negating), stored as float.
    let shift = |v: i32| (-(f64::from(v) / 2.0)) as f32;
    step(translate(shift(p.output_width), shift(p.output_height)));
    out[..16].copy_from_slice(&t);
}

/// The first two rows of a 4×4 row-major matrix.
fn two_rows(matrix: &[f32]) -> ([f32; 4], [f32; 4]) {
    (
        [matrix[0], matrix[1], matrix[2], matrix[3]],
        [matrix[4], matrix[5], matrix[6], matrix[7]],
    )
}

/// `TransformTensorBilinear` v2: `input` is `[in_h, in_w, c]` (batch 0), `out` is
/// `[out_h, out_w, c]`; output pixel (x, y) samples the input at the matrix's image of
/// (x + ½, y + ½) − ½ (MediaPipe's align-corners correction), bilinearly, neighbours outside the
/// input reading 0 and points outside `[0, in_w − 1] × [0, in_h − 1]` giving 0. A NaN coordinate
/// (MediaPipe: undefined, a float-to-int conversion of NaN) gives 0 here.
pub fn transform_tensor_bilinear(
    input: &[f32],
    (in_h, in_w, c): (usize, usize, usize),
    matrix: &[f32],
    out: &mut [f32],
    (out_h, out_w): (usize, usize),
) {
    let (mut xt, mut yt) = two_rows(matrix);
    // `t[3] += t[0] * 0.5 + t[1] * 0.5 - 0.5` with double constants: float = float + double.
    for t in [&mut xt, &mut yt] {
        t[3] = (f64::from(t[3]) + (f64::from(t[0]) * 0.5 + f64::from(t[1]) * 0.5 - 0.5)) as f32;
    }
    let read = |h: i64, w: i64, z: usize| -> f32 {
        if h < 0 || w < 0 || h >= in_h as i64 || w >= in_w as i64 {
            0.0
        } else {
            input[(h as usize * in_w + w as usize) * c + z]
        }
    };
    let (max_x, max_y) = ((in_w as i64 - 1) as f32, (in_h as i64 - 1) as f32);
    for oy in 0..out_h {
        for ox in 0..out_w {
            let coord = [ox as f32, oy as f32, 0.0, 1.0];
            let (tx, ty) = (dot4(xt, coord), dot4(yt, coord));
            let px = &mut out[(oy * out_w + ox) * c..][..c];
            let inside = tx >= 0.0 && tx <= max_x && ty >= 0.0 && ty <= max_y;
            if !inside {
                px.fill(0.0);
                continue;
            }
            let (fx, fy) = (tx.floor(), ty.floor());
            let (x0, y0) = (fx as i64, fy as i64);
            let right = tx - fx;
            let lower_w = ty - fy;
            for (z, o) in px.iter_mut().enumerate() {
                let (q11, q21) = (read(y0, x0, z), read(y0, x0 + 1, z));
                let (q12, q22) = (read(y0 + 1, x0, z), read(y0 + 1, x0 + 1, z));
                // `(1.0 - right) * q + right * q'`: the first product in double, the second in
                // float, summed in double, stored as float.
                let mix = |a: f32, b: f32, w: f32| {
                    ((1.0 - f64::from(w)) * f64::from(a) + f64::from(w * b)) as f32
                };
                let upper = mix(q11, q21, right);
                let lower = mix(q12, q22, right);
                // `lower_w * lower + (1.0 - lower_w) * upper`.
                *o = (f64::from(lower_w * lower) + (1.0 - f64::from(lower_w)) * f64::from(upper))
                    as f32;
            }
        }
    }
}

/// `TransformLandmarks` v2: `landmarks` holds `dims`-element points (`dims` 2 or 3); x and y of
/// each go through the matrix's first two rows (as the point `(x, y, 0, 1)`), z is copied.
pub fn transform_landmarks(landmarks: &[f32], dims: usize, matrix: &[f32], out: &mut [f32]) {
    let (xt, yt) = two_rows(matrix);
    for (src, dst) in landmarks.chunks_exact(dims).zip(out.chunks_exact_mut(dims)) {
        let v = [src[0], src[1], 0.0, 1.0];
        dst[0] = dot4(xt, v);
        dst[1] = dot4(yt, v);
        dst[2..].copy_from_slice(&src[2..]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identity_matrix_keeps_landmarks_and_samples_pixels() {
        let mut id = [0.0f32; 16];
        for k in 0..4 {
            id[k * 5] = 1.0;
        }
        let pts = [1.5f32, -2.0, 7.0, 0.25, 3.0, -1.0];
        let mut out = [0.0f32; 6];
        transform_landmarks(&pts, 3, &id, &mut out);
        assert_eq!(out, pts);
        // The identity samples each pixel centre exactly (the ±½ correction cancels).
        let img: Vec<f32> = (0..12).map(|v| v as f32).collect();
        let mut got = vec![0.0f32; 12];
        transform_tensor_bilinear(&img, (3, 2, 2), &id, &mut got, (3, 2));
        assert_eq!(got, img);
    }

    #[test]
    fn the_bilinear_weights_and_the_border() {
        // x ↦ x/2: with the centre correction output x samples input x/2 − ¼.
        let mut m = [0.0f32; 16];
        (m[0], m[5], m[10], m[15]) = (0.5, 1.0, 1.0, 1.0);
        let img = [0.0f32, 10.0];
        let mut got = [9.0f32; 3];
        transform_tensor_bilinear(&img, (1, 2, 1), &m, &mut got, (1, 3));
        // x = −0.25 (outside: 0), 0.25 and 0.75 (weights ¾/¼ and ¼/¾ of 0 and 10).
        assert_eq!(got, [0.0, 2.5, 7.5]);
    }
}
