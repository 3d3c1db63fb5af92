//! `TFLite_Detection_PostProcess`, the custom operator that ends SSD exports (TF Object
//! Detection API, MediaPipe-style detectors): box decoding against constant anchors and
//! non-maximum suppression, in float, as LiteRT's `detection_postprocess.cc`.
//!
//! Inputs: box encodings `[1, N, ≥4]` (`y, x, h, w`), class predictions `[1, N, C']` (`C'` =
//! `num_classes`, or one more with the background first), anchors `[N, 4]`. Box encodings and
//! class predictions are FLOAT32 or UINT8 (dequantized inside the op, as LiteRT does; UINT8 box
//! encodings take UINT8 anchors); LiteRT has no INT8 path. Outputs, all FLOAT32: boxes
//! `[1, M, 4]`, classes `[1, M]`, scores `[1, M]`, number of detections `[1]`, with
//! `M = max_detections · max_classes_per_detection`. Options come from the custom options, a
//! FlexBuffers map ([`crate::tflite::flexbuffers`]).
//!
//! Where LiteRT fails the invocation (a decoded box with `ymin > ymax`, which needs an anchor of
//! negative height or width), the outputs here are zeros with no detections. LiteRT leaves the
//! output slots past the detections of fast NMS unwritten; they are zeros here.

use super::{Kernel, OpIo, OutputSpec, PrepareCtx, PrepareResult, Prepared, TensorInfo};
use crate::graph::{QuantParams, TensorType};
use crate::kernels::reference::detection::{
    DetectionParams, Outputs, Scratch, boxes_valid, decode_box, non_max_suppression,
};
use crate::kernels::reference::quantize::dequantize;
use crate::tflite::flexbuffers::{Map, Scalar};

/// LiteRT's default `detections_per_class` when the options do not set it.
const DEFAULT_DETECTIONS_PER_CLASS: i64 = 100;

/// The most output slots (`max_detections · max_classes_per_detection`) accepted: the outputs and
/// the kernel's copies of them are sized by it before the engine checks tensor sizes.
const MAX_DETECTIONS: usize = 1 << 24;

/// How an input is stored: float, or UINT8 with its parameters.
#[derive(Debug, Clone, Copy)]
enum Storage {
    Float,
    Uint8(QuantParams),
}

/// The prepared operator: options, sizes, scratch and the results of the current run (computed
/// when output 0 is evaluated, copied out for the others).
struct DetectionPostProcess {
    params: DetectionParams,
    num_boxes: usize,
    /// Elements per box encoding (≥ 4; only the first 4 are read).
    box_len: usize,
    classes_with_background: usize,
    boxes_in: Storage,
    anchors_in: Storage,
    scores_in: Storage,
    decoded: Vec<f32>,
    scores: Vec<f32>,
    scratch: Scratch,
    out_boxes: Vec<f32>,
    out_classes: Vec<f32>,
    out_scores: Vec<f32>,
    num_detections: f32,
}

/// Element `k` of a `[·, len]` row-major tensor's row `row`, dequantized with LiteRT's
/// `Dequantizer` (`(float(q) − zero_point) · scale` in float) when UINT8.
fn coords(io: &OpIo<'_>, input: usize, storage: Storage, row: usize, len: usize) -> [f32; 4] {
    let at = row * len;
    match storage {
        Storage::Float => {
            let v = &io.f32_in(input)[at..at + 4];
            [v[0], v[1], v[2], v[3]]
        }
        Storage::Uint8(q) => {
            let v = &io.in_as::<u8>(input)[at..at + 4];
            let zp = q.zero_point as f32;
            [v[0], v[1], v[2], v[3]].map(|x| (f32::from(x) - zp) * q.scale)
        }
    }
}

impl DetectionPostProcess {
    fn run(&mut self, io: &OpIo<'_>) {
        for i in 0..self.num_boxes {
            let enc = coords(io, 0, self.boxes_in, i, self.box_len);
            let anchor = coords(io, 2, self.anchors_in, i, 4);
            let b = decode_box(enc, anchor, self.params.scale);
            self.decoded[4 * i..4 * i + 4].copy_from_slice(&b);
        }
        let scores: &[f32] = match self.scores_in {
            Storage::Float => io.f32_in(1),
            Storage::Uint8(q) => {
                dequantize(q.scale, q.zero_point, io.in_as::<u8>(1), &mut self.scores);
                &self.scores
            }
        };
        let mut out = Outputs {
            boxes: &mut self.out_boxes,
            classes: &mut self.out_classes,
            scores: &mut self.out_scores,
        };
        if !boxes_valid(&self.decoded) {
            out.boxes.fill(0.0);
            out.classes.fill(0.0);
            out.scores.fill(0.0);
            self.num_detections = 0.0;
            return;
        }
        let n = non_max_suppression(
            &self.decoded,
            scores,
            self.classes_with_background,
            &self.params,
            &mut self.scratch,
            &mut out,
        );
        self.num_detections = n as f32;
    }
}

impl Kernel for DetectionPostProcess {
    fn eval(&mut self, io: &mut OpIo<'_>) {
        match io.output_index() {
            0 => {
                self.run(io);
                io.f32_out().copy_from_slice(&self.out_boxes);
            }
            1 => io.f32_out().copy_from_slice(&self.out_classes),
            2 => io.f32_out().copy_from_slice(&self.out_scores),
            _ => io.f32_out().fill(self.num_detections),
        }
    }
}

/// The options map's entry `key`, converted by `conv`; a missing key (or null) is `default`, or
/// an error when there is none.
fn option<T>(
    ctx: &PrepareCtx<'_>,
    map: &Map<'_>,
    key: &str,
    default: Option<T>,
    conv: fn(Scalar) -> Option<T>,
) -> PrepareResult<T> {
    let v = map
        .get(key)
        .map_err(|e| ctx.invalid(String::new(), format!("custom option '{key}': {e}")))?;
    match v.and_then(conv).or(default) {
        Some(v) => Ok(v),
        None => Err(ctx.invalid(
            String::new(),
            format!("custom options lack '{key}' (LiteRT would read 0)"),
        )),
    }
}

/// A non-negative count option, `positive` requiring ≥ 1 (LiteRT's checks).
fn count(ctx: &PrepareCtx<'_>, key: &str, v: i64, positive: bool) -> PrepareResult<usize> {
    match usize::try_from(v) {
        Ok(n) if n > 0 || !positive => Ok(n),
        _ => Err(ctx.invalid(
            String::new(),
            format!(
                "custom option {key} = {v} (must be {})",
                if positive { "positive" } else { "≥ 0" }
            ),
        )),
    }
}

/// Reads and checks the options.
fn params(ctx: &PrepareCtx<'_>) -> PrepareResult<DetectionParams> {
    let bytes = ctx.op.custom_options.as_deref().unwrap_or(&[]);
    let map =
        Map::root(bytes).map_err(|e| ctx.invalid(String::new(), format!("custom options: {e}")))?;
    let int = |key: &str, default: Option<i64>| option(ctx, &map, key, default, Scalar::as_i64);
    let float = |key: &str| option(ctx, &map, key, None, Scalar::as_f32);
    // LiteRT reads the counts as int32.
    let i32v = |v: i64| i64::from(v as i32);
    let p = DetectionParams {
        max_detections: count(
            ctx,
            "max_detections",
            i32v(int("max_detections", None)?),
            false,
        )?,
        max_classes_per_detection: count(
            ctx,
            "max_classes_per_detection",
            i32v(int("max_classes_per_detection", None)?),
            true,
        )?,
        detections_per_class: count(
            ctx,
            "detections_per_class",
            i32v(int(
                "detections_per_class",
                Some(DEFAULT_DETECTIONS_PER_CLASS),
            )?),
            true,
        )?,
        score_threshold: float("nms_score_threshold")?,
        iou_threshold: float("nms_iou_threshold")?,
        num_classes: count(ctx, "num_classes", i32v(int("num_classes", None)?), true)?,
        use_regular_nms: option(ctx, &map, "use_regular_nms", Some(false), Scalar::as_bool)?,
        scale: [
            float("y_scale")?,
            float("x_scale")?,
            float("h_scale")?,
            float("w_scale")?,
        ],
    };
    if p.use_regular_nms && p.max_detections == 0 {
        return Err(ctx.invalid(
            String::new(),
            "regular NMS with max_detections 0 (LiteRT requires min(detections_per_class, \
             max_detections) > 0)",
        ));
    }
    if !(p.iou_threshold > 0.0 && p.iou_threshold <= 1.0) {
        return Err(ctx.invalid(
            String::new(),
            format!(
                "nms_iou_threshold {} must be in (0, 1] (LiteRT fails the invocation)",
                p.iou_threshold
            ),
        ));
    }
    Ok(p)
}

/// FLOAT32, or UINT8 with per-tensor parameters; LiteRT's kernel takes nothing else.
fn storage(ctx: &PrepareCtx<'_>, t: &TensorInfo<'_>) -> PrepareResult<Storage> {
    match t.dtype {
        TensorType::FLOAT32 => Ok(Storage::Float),
        TensorType::UINT8 => Ok(Storage::Uint8(ctx.per_tensor_qparams(t)?)),
        _ => {
            ctx.require_dtype(t, &[TensorType::FLOAT32, TensorType::UINT8])?;
            Ok(Storage::Float)
        }
    }
}

/// `TFLite_Detection_PostProcess`: see the module documentation.
pub fn prepare_detection_postprocess(ctx: &PrepareCtx<'_>) -> PrepareResult<Prepared> {
    ctx.expect_inputs(3, 3)?;
    if ctx.outputs.len() != 4 {
        return Err(ctx.invalid(
            String::new(),
            format!("expects 4 outputs, has {}", ctx.outputs.len()),
        ));
    }
    let params = params(ctx)?;
    let (boxes, classes, anchors) = (ctx.input(0)?, ctx.input(1)?, ctx.input(2)?);
    ctx.require_rank(&boxes, 3)?;
    ctx.require_rank(&classes, 3)?;
    ctx.require_rank(&anchors, 2)?;
    let num_boxes = boxes.shape[1];
    if boxes.shape[0] != 1 || boxes.shape[2] < 4 {
        return Err(ctx.invalid(
            boxes.describe(),
            format!("shape {:?} (expected [1, N, ≥4])", boxes.shape),
        ));
    }
    if classes.shape[0] != 1 || classes.shape[1] != num_boxes {
        return Err(ctx.invalid(
            classes.describe(),
            format!(
                "shape {:?} (expected [1, {num_boxes}, classes])",
                classes.shape
            ),
        ));
    }
    let cb = classes.shape[2];
    if !(cb == params.num_classes || cb == params.num_classes + 1) {
        return Err(ctx.invalid(
            classes.describe(),
            format!(
                "{cb} classes for num_classes {} (expected it, or one more for the background)",
                params.num_classes
            ),
        ));
    }
    if anchors.shape != [num_boxes, 4] {
        return Err(ctx.invalid(
            anchors.describe(),
            format!("shape {:?} (expected [{num_boxes}, 4])", anchors.shape),
        ));
    }
    let boxes_in = storage(ctx, &boxes)?;
    let scores_in = storage(ctx, &classes)?;
    let anchors_in = storage(ctx, &anchors)?;
    // LiteRT reads the anchors as the box encodings' type.
    if matches!(boxes_in, Storage::Float) != matches!(anchors_in, Storage::Float) {
        return Err(ctx.unsupported(
            anchors.describe(),
            "anchors must have the box encodings' type (LiteRT reads them as that type)",
        ));
    }
    let m = params
        .max_detections
        .checked_mul(params.max_classes_per_detection)
        .filter(|&m| m <= MAX_DETECTIONS)
        .ok_or_else(|| {
            ctx.invalid(
                String::new(),
                format!(
                    "max_detections × max_classes_per_detection is over {MAX_DETECTIONS} \
                     (the outputs would not fit)"
                ),
            )
        })?;
    for k in 0..4 {
        ctx.require_output_dtype(k, TensorType::FLOAT32)?;
    }
    let scratch_len = num_boxes.checked_mul(params.num_classes.max(cb));
    if scratch_len.is_none_or(|n| n > i32::MAX as usize) {
        return Err(ctx.invalid(classes.describe(), "too many boxes × classes"));
    }
    let kernel = DetectionPostProcess {
        params,
        num_boxes,
        box_len: boxes.shape[2],
        classes_with_background: cb,
        boxes_in,
        anchors_in,
        scores_in,
        decoded: vec![0.0; num_boxes * 4],
        scores: vec![0.0; num_boxes * cb],
        scratch: Scratch::new(num_boxes, &params),
        out_boxes: vec![0.0; m * 4],
        out_classes: vec![0.0; m],
        out_scores: vec![0.0; m],
        num_detections: 0.0,
    };
    let spec = |shape: Vec<usize>| OutputSpec {
        shape,
        dtype: TensorType::FLOAT32,
    };
    Ok(Prepared::multi(
        spec(vec![1, m, 4]),
        vec![spec(vec![1, m]), spec(vec![1, m]), spec(vec![1])],
        kernel,
    ))
}
