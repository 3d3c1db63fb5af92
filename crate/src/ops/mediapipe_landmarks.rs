//! MediaPipe's landmark custom operators, version 2 (the versions MediaPipe's op resolver
//! registers under these custom codes and `face_landmark_with_attention.tflite` uses), float32
//! only, computed as MediaPipe's CPU kernels do ([`crate::kernels::reference::landmarks`]):
//!
//! - `Landmarks2TransformMatrix`: landmarks `[1, N, 3]` → matrix `[1, 4, 4]`. Options: a
//!   FlexBuffers map `{subset_idxs: typed int vector, left_rotation_idx, right_rotation_idx,
//!   output_height, output_width: int, target_rotation_radians, scale_x, scale_y: float}`
//!   (`ParseLandmarksToTransformMatrixV2Attributes`; a missing key reads 0, as FlexBuffers does,
//!   and is then refused where MediaPipe's checks refuse 0). Version 1 (4-D input, other keys)
//!   is not supported.
//! - `TransformTensorBilinear`: features `[1, H, W, C]` and matrix `[1, 4, 4]` → the declared
//!   output `[1, h, w, C]` (MediaPipe's CPU kernel does not resize its output; the options map's
//!   `output_height` and `output_width` must agree with it). Version 1 is registered by
//!   MediaPipe under another code (`TransformTensor`).
//! - `TransformLandmarks`: landmarks `[1, N, D]` (D = 2 or 3, MediaPipe's `dimensions` is the
//!   output's last dim) and matrix `[1, 4, 4]` → `[1, N, D]`; version 2 has no options (any
//!   bytes are ignored, as MediaPipe does). Version 1 (4-D, `dimensions`/`scale` options) is
//!   not supported.
//!
//! Where MediaPipe leaves behaviour undefined (an index past the landmarks, a batch above 1,
//! whose other entries it never writes, an empty subset) the prepare step refuses the model.

use super::{Kernel, OpIo, PrepareCtx, PrepareResult, Prepared, TensorInfo};
use crate::graph::TensorType;
use crate::kernels::reference::landmarks::{
    LandmarksToMatrixParams, landmarks_to_transform_matrix, transform_landmarks,
    transform_tensor_bilinear,
};
use crate::tflite::flexbuffers::{Map, Scalar};

/// Checks the operator is version 2, has `inputs` float32 inputs and one float32 output.
fn common(ctx: &PrepareCtx<'_>, inputs: usize) -> PrepareResult<()> {
    let v = ctx.op.code.version;
    if v != 2 {
        return Err(ctx.unsupported(
            String::new(),
            format!("version {v} (MediaPipe's version 2 is supported)"),
        ));
    }
    ctx.expect_inputs(inputs, inputs)?;
    if ctx.outputs.len() != 1 {
        return Err(ctx.invalid(
            String::new(),
            format!("expects 1 output, has {}", ctx.outputs.len()),
        ));
    }
    for k in 0..inputs {
        ctx.require_dtype(&ctx.input(k)?, &[TensorType::FLOAT32])?;
    }
    ctx.require_output_dtype(0, TensorType::FLOAT32)
}

/// Requires `t` to be `[1, n, d]` with `d` in `dims`; returns `(n, d)`.
fn landmarks_shape(
    ctx: &PrepareCtx<'_>,
    t: &TensorInfo<'_>,
    dims: &[usize],
) -> PrepareResult<(usize, usize)> {
    match *t.shape {
        [1, n, d] if dims.contains(&d) => Ok((n, d)),
        _ => Err(ctx.invalid(
            t.describe(),
            format!(
                "shape {:?}: MediaPipe reads [1, landmarks, {}] (batch 1)",
                t.shape,
                dims.iter()
                    .map(|d| d.to_string())
                    .collect::<Vec<_>>()
                    .join(" or ")
            ),
        )),
    }
}

/// Requires the matrix input `k` to be `[1, 4, 4]`.
fn matrix_input(ctx: &PrepareCtx<'_>, k: usize) -> PrepareResult<()> {
    let m = ctx.input(k)?;
    if m.shape != [1, 4, 4] {
        return Err(ctx.invalid(
            m.describe(),
            format!("transform matrix shape {:?} (expected [1, 4, 4])", m.shape),
        ));
    }
    Ok(())
}

/// The options map (MediaPipe reads it with `flexbuffers::GetRoot(...).AsMap()`).
fn options_map<'a>(ctx: &PrepareCtx<'a>) -> PrepareResult<Map<'a>> {
    let bytes = ctx.op.custom_options.as_deref().unwrap_or(&[]);
    Map::root(bytes).map_err(|e| ctx.invalid(String::new(), format!("custom options: {e}")))
}

/// Option `key` converted by `conv` (`AsInt32`, `AsFloat`): a missing key or null reads 0, as
/// FlexBuffers' `operator[]` gives MediaPipe.
fn option<T: Default>(
    ctx: &PrepareCtx<'_>,
    map: &Map<'_>,
    key: &str,
    conv: fn(Scalar) -> Option<T>,
) -> PrepareResult<T> {
    let v = map
        .get(key)
        .map_err(|e| ctx.invalid(String::new(), format!("custom option '{key}': {e}")))?;
    Ok(v.and_then(conv).unwrap_or_default())
}

/// `AsInt32` of an option: the 64-bit value truncated to 32 bits, as C++'s cast does.
fn as_i32(s: Scalar) -> Option<i32> {
    s.as_i64().map(|v| v as i32)
}

/// A landmark index option or subset entry: `≥ 0` (MediaPipe's check) and below `n` (MediaPipe
/// would read past the landmarks).
fn index(ctx: &PrepareCtx<'_>, what: &str, v: i32, n: usize) -> PrepareResult<usize> {
    match usize::try_from(v) {
        Ok(i) if i < n => Ok(i),
        _ => Err(ctx.invalid(
            String::new(),
            format!("custom option {what} = {v} (must index one of the {n} landmarks)"),
        )),
    }
}

/// The prepared `Landmarks2TransformMatrix`.
struct LandmarksToMatrix {
    p: LandmarksToMatrixParams,
}

impl Kernel for LandmarksToMatrix {
    fn eval(&mut self, io: &mut OpIo<'_>) {
        let landmarks = io.f32_in(0);
        landmarks_to_transform_matrix(&self.p, landmarks, io.f32_out());
    }
}

/// `Landmarks2TransformMatrix` (version 2): see the module documentation.
pub fn prepare_landmarks_to_transform_matrix(ctx: &PrepareCtx<'_>) -> PrepareResult<Prepared> {
    common(ctx, 1)?;
    let (n, _) = landmarks_shape(ctx, &ctx.input(0)?, &[3])?;
    let map = options_map(ctx)?;
    let int = |key: &str| option(ctx, &map, key, as_i32);
    let float = |key: &str| option(ctx, &map, key, Scalar::as_f32);
    let idxs = map
        .get_ints("subset_idxs")
        .map_err(|e| ctx.invalid(String::new(), format!("custom option 'subset_idxs': {e}")))?
        .unwrap_or_default();
    if idxs.is_empty() {
        return Err(ctx.invalid(
            String::new(),
            "custom option subset_idxs is missing or empty (MediaPipe would read no landmarks)",
        ));
    }
    let idx: Vec<usize> = idxs
        .iter()
        .enumerate()
        .map(|(k, &v)| index(ctx, &format!("subset_idxs[{k}]"), v as i32, n))
        .collect::<PrepareResult<_>>()?;
    // Read two at a time; an odd last index is paired with itself.
    let subset = idx
        .chunks(2)
        .map(|c| [c[0], *c.last().unwrap_or(&c[0])])
        .collect();
    let positive = |key: &str, v: f64| {
        if v > 0.0 {
            Ok(())
        } else {
            Err(ctx.invalid(
                String::new(),
                format!("custom option {key} = {v} (must be positive)"),
            ))
        }
    };
    let p = LandmarksToMatrixParams {
        subset,
        left_rotation_idx: index(ctx, "left_rotation_idx", int("left_rotation_idx")?, n)?,
        right_rotation_idx: index(ctx, "right_rotation_idx", int("right_rotation_idx")?, n)?,
        target_rotation_radians: float("target_rotation_radians")?,
        output_height: int("output_height")?,
        output_width: int("output_width")?,
        scale_x: float("scale_x")?,
        scale_y: float("scale_y")?,
    };
    positive("output_height", f64::from(p.output_height))?;
    positive("output_width", f64::from(p.output_width))?;
    positive("scale_x", f64::from(p.scale_x))?;
    positive("scale_y", f64::from(p.scale_y))?;
    Ok(Prepared::f32(vec![1, 4, 4], LandmarksToMatrix { p }))
}

/// The prepared `TransformTensorBilinear`.
struct TensorBilinear {
    input_hwc: (usize, usize, usize),
    output_hw: (usize, usize),
}

impl Kernel for TensorBilinear {
    fn eval(&mut self, io: &mut OpIo<'_>) {
        let (input, matrix) = (io.f32_in(0), io.f32_in(1));
        transform_tensor_bilinear(input, self.input_hwc, matrix, io.f32_out(), self.output_hw);
    }
}

/// `TransformTensorBilinear` (version 2): see the module documentation.
pub fn prepare_transform_tensor_bilinear(ctx: &PrepareCtx<'_>) -> PrepareResult<Prepared> {
    common(ctx, 2)?;
    let input = ctx.input(0)?;
    let [1, h, w, c] = *input.shape else {
        return Err(ctx.invalid(
            input.describe(),
            format!(
                "shape {:?}: MediaPipe reads [1, height, width, channels] (batch 1)",
                input.shape
            ),
        ));
    };
    matrix_input(ctx, 1)?;
    let out = ctx.output(0)?;
    let [1, oh, ow, oc] = *out.shape else {
        return Err(ctx.invalid(
            out.describe(),
            format!(
                "declared shape {:?}: MediaPipe's kernel writes the declared output, which must \
                 be [1, height, width, {c}]",
                out.shape
            ),
        ));
    };
    let map = options_map(ctx)?;
    let int = |key: &str| option(ctx, &map, key, as_i32);
    let (opt_h, opt_w) = (int("output_height")?, int("output_width")?);
    if oc != c || i64::from(opt_h) != oh as i64 || i64::from(opt_w) != ow as i64 {
        return Err(ctx.invalid(
            out.describe(),
            format!(
                "declared shape {:?} disagrees with the input's {c} channels or the custom \
                 options' output_height {opt_h} × output_width {opt_w}",
                out.shape
            ),
        ));
    }
    if [h, w, c, oh, ow].contains(&0) {
        return Err(ctx.invalid(
            input.describe(),
            format!("empty input {:?} or output {:?}", input.shape, out.shape),
        ));
    }
    Ok(Prepared::f32(
        vec![1, oh, ow, c],
        TensorBilinear {
            input_hwc: (h, w, c),
            output_hw: (oh, ow),
        },
    ))
}

/// The prepared `TransformLandmarks`.
struct Landmarks {
    dims: usize,
}

impl Kernel for Landmarks {
    fn eval(&mut self, io: &mut OpIo<'_>) {
        let (landmarks, matrix) = (io.f32_in(0), io.f32_in(1));
        transform_landmarks(landmarks, self.dims, matrix, io.f32_out());
    }
}

/// `TransformLandmarks` (version 2): see the module documentation.
pub fn prepare_transform_landmarks(ctx: &PrepareCtx<'_>) -> PrepareResult<Prepared> {
    common(ctx, 2)?;
    let input = ctx.input(0)?;
    let (n, dims) = landmarks_shape(ctx, &input, &[2, 3])?;
    matrix_input(ctx, 1)?;
    Ok(Prepared::f32(vec![1, n, dims], Landmarks { dims }))
}
