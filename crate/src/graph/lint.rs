//! Warnings about a model that reads, but carries something odd: fields that point nowhere and
//! that LiteRT ignores (metadata, `metadata_buffer`, signatures, `intermediates`), fused
//! activations LiteRT does not apply, sparsity parameters on tensors without data, absurd
//! quantization scales, versions LiteRT refuses, and constants an operator overwrites.
//!
//! [`warnings`] is the one source of these messages: `inspect`, `run`, `calibrate` and `quantize`
//! print them (CLI, through its model loader) and [`super::summary::ModelSummary::warnings`]
//! carries them to the page. Reading keeps every such field as found, so a rewrite is lossless.

use super::{BuiltinOptionsT, Model};
use crate::error::LIST_CAP;
use crate::tflite::schema::ActivationFunctionType;

/// Scales at or above this are warned about: no real tensor spans 10^12 per quantized step.
const SCALE_TOO_LARGE: f32 = 1e12;
/// Scales at or below this (and denormals) are warned about: requantization multipliers built
/// from them underflow.
const SCALE_TOO_SMALL: f32 = 1e-30;

/// The fused activation of an operator's builtin options, for the option tables whose
/// activation the engine (and LiteRT's kernels) apply as a clamp.
pub fn fused_activation(options: &BuiltinOptionsT) -> Option<ActivationFunctionType> {
    use BuiltinOptionsT as O;
    Some(match options {
        O::AddOptions(o) => o.fused_activation_function,
        O::SubOptions(o) => o.fused_activation_function,
        O::MulOptions(o) => o.fused_activation_function,
        O::DivOptions(o) => o.fused_activation_function,
        O::Conv2DOptions(o) => o.fused_activation_function,
        O::DepthwiseConv2DOptions(o) => o.fused_activation_function,
        O::FullyConnectedOptions(o) => o.fused_activation_function,
        O::Pool2DOptions(o) => o.fused_activation_function,
        O::TransposeConvOptions(o) => o.fused_activation_function,
        O::ConcatenationOptions(o) => o.fused_activation_function,
        O::L2NormOptions(o) => o.fused_activation_function,
        _ => return None,
    })
}

/// Whether LiteRT's fused-activation clamp knows `f` (NONE, RELU, RELU_N1_TO_1, RELU6). Every
/// other code (TANH, SIGN_BIT, unknown numbers) is applied as NONE by LiteRT's kernels (but
/// hybrid FULLY_CONNECTED's TANH and SIGN_BIT).
pub fn is_clamp_activation(f: ActivationFunctionType) -> bool {
    matches!(
        f,
        ActivationFunctionType::NONE
            | ActivationFunctionType::RELU
            | ActivationFunctionType::RELU_N1_TO_1
            | ActivationFunctionType::RELU6
    )
}

/// Whether a quantization scale is absurd (not finite, not positive, ≥ 10^12, ≤ 10^-30 or
/// denormal): such a model reads and may run, but its numbers are meaningless.
pub fn is_absurd_scale(s: f32) -> bool {
    !(s.is_finite() && s > SCALE_TOO_SMALL && s < SCALE_TOO_LARGE && s.is_normal())
}

/// Every warning about `model`, one sentence each, naming the item.
pub fn warnings(model: &Model) -> Vec<String> {
    let mut out = model.read_warnings.clone();
    if model.version != 3 {
        out.push(format!(
            "schema version {}: LiteRT loads only version 3 files (the engine and the quantizer \
             refuse it)",
            model.version
        ));
    }
    let nbuf = model.buffers.len();
    for (i, m) in model.metadata.iter().enumerate() {
        if m.buffer as usize >= nbuf {
            out.push(format!(
                "metadata {i} ('{}') points at buffer {} but the model has {nbuf} buffers: \
                 ignored, as LiteRT does, and kept as found",
                m.name.as_deref().unwrap_or(""),
                m.buffer
            ));
        }
    }
    let bad: Vec<i32> = model
        .metadata_buffer
        .iter()
        .flatten()
        .copied()
        .filter(|&b| usize::try_from(b).map_or(true, |b| b >= nbuf))
        .collect();
    if !bad.is_empty() {
        out.push(format!(
            "metadata_buffer lists {} but the model has {nbuf} buffers: ignored, as LiteRT does, \
             and kept as found",
            capped_list("buffer", &bad)
        ));
    }
    for (si, sig) in model.signatures.iter().enumerate() {
        if sig.key.is_none() {
            out.push(format!(
                "signature {si} has no signature_key: LiteRT refuses the file (\"Missing exported \
                 method name for SignatureDef\"); the engine reads it as key '' and the writer \
                 drops it"
            ));
        }
        let key = sig.key.as_deref().unwrap_or("");
        let Some(sg) = model.subgraphs.get(sig.subgraph as usize) else {
            out.push(format!(
                "signature {si} ('{key}') runs subgraph {} but the model has {} subgraphs: \
                 ignored and kept as found",
                sig.subgraph,
                model.subgraphs.len()
            ));
            continue;
        };
        for m in sig.inputs.iter().chain(&sig.outputs) {
            if m.tensor as usize >= sg.tensors.len() {
                out.push(format!(
                    "signature '{key}' maps '{}' to tensor {} but subgraph {} has {} tensors: \
                     ignored and kept as found",
                    m.name.as_deref().unwrap_or(""),
                    m.tensor,
                    sig.subgraph,
                    sg.tensors.len()
                ));
            }
        }
    }
    for (si, sg) in model.subgraphs.iter().enumerate() {
        let nt = sg.tensors.len();
        for (k, &t) in sg.inputs.iter().enumerate() {
            if sg.inputs[..k].contains(&t) && !sg.inputs[k + 1..].contains(&t) {
                let times = sg.inputs.iter().filter(|&&i| i == t).count();
                let name = usize::try_from(t)
                    .ok()
                    .and_then(|t| sg.tensors.get(t))
                    .map_or("?", |x| x.name.as_str());
                out.push(format!(
                    "subgraph {si}: graph input {t} ('{name}') is listed {times} times: one \
                     tensor, the last value given for it is used (as LiteRT does)"
                ));
            }
        }
        for (oi, op) in sg.operators.iter().enumerate() {
            let at = || format!("subgraph {si}, operator {oi} ({})", op.code.name());
            if let Some(why) = crate::ops::registry::version_refusal(&op.code) {
                out.push(format!(
                    "{}: {why} (the engine and the quantizer refuse it)",
                    at()
                ));
            }
            let bad: Vec<i32> = op
                .intermediates
                .iter()
                .flatten()
                .copied()
                .filter(|&t| usize::try_from(t).map_or(true, |t| t >= nt))
                .collect();
            if !bad.is_empty() {
                out.push(format!(
                    "{}: intermediates list {} but the subgraph has {nt} tensors: ignored (no \
                     kernel here uses them) and kept as found",
                    at(),
                    capped_list("tensor", &bad)
                ));
            }
            if let Some(why) = options_problem(op) {
                out.push(format!("{}: {why}", at()));
            }
            // FULLY_CONNECTED's TANH / SIGN_BIT: applied by the hybrid kernel, refused by the
            // others (as in LiteRT).
            let fc_function = op.code.op() == super::BuiltinOperator::FULLY_CONNECTED
                && matches!(
                    fused_activation(&op.options),
                    Some(ActivationFunctionType::TANH | ActivationFunctionType::SIGN_BIT)
                );
            if let Some(f) = fused_activation(&op.options)
                && !is_clamp_activation(f)
                && !fc_function
            {
                out.push(format!(
                    "{}: fused activation {} is not one LiteRT applies: run as NONE, as LiteRT \
                     does, and kept as found",
                    at(),
                    f.variant_name()
                        .map_or_else(|| format!("#{}", f.0), str::to_string)
                ));
            }
        }
        out.extend(moved_integers(sg, si));
        out.extend(ignored_weight_zero_points(sg, si));
        for (oi, op) in sg.operators.iter().enumerate() {
            if op.code.op() != super::BuiltinOperator::DEQUANTIZE {
                continue;
            }
            let declared = op
                .output(0)
                .and_then(|t| sg.tensors.get(t))
                .filter(|t| t.dtype != super::TensorType::FLOAT32);
            if let Some(t) = declared {
                out.push(format!(
                    "subgraph {si}, operator {oi} (DEQUANTIZE): output '{}' is declared {}: \
                     LiteRT's DEQUANTIZE writes FLOAT32 whatever the declared type, and so does \
                     the engine (the quantizer writes it as FLOAT32)",
                    t.name,
                    super::dtype::dtype_name(t.dtype)
                ));
            }
        }
        for r in super::rewrites::find(model, si) {
            out.push(format!(
                "subgraph {si}, tensor {} '{}': written by {} and again by {}: each reader sees \
                 the latest write and the graph outputs the last, as in LiteRT (the quantizer \
                 refuses it)",
                r.tensor,
                sg.tensors[r.tensor].name,
                super::rewrites::writer_name(model, si, r.before),
                super::rewrites::writer_name(model, si, Some(r.op))
            ));
        }
        for (ti, oi) in overwritten_constants(model, si) {
            out.push(format!(
                "subgraph {si}, tensor {ti} '{}': a constant that operator {oi} ({}) computes: \
                 its data is ignored and the computed value used, as LiteRT does (the quantizer \
                 drops the data)",
                sg.tensors[ti].name,
                sg.operators[oi].code.name()
            ));
        }
        for (ti, t) in sg.tensors.iter().enumerate() {
            let at = || format!("subgraph {si}, tensor {ti} '{}'", t.name);
            if t.sparsity.is_some() && model.tensor_data(si, ti).is_none() {
                out.push(format!(
                    "{}: sparsity parameters on a tensor without constant data: ignored, as \
                     LiteRT does, and kept as found",
                    at()
                ));
            }
            if let Some(q) = &t.quantization
                && let Some(&s) = q.scales().iter().find(|&&s| is_absurd_scale(s))
            {
                out.push(format!(
                    "{}: quantization scale {} is absurd (expected a normal number between \
                     {SCALE_TOO_SMALL:e} and {SCALE_TOO_LARGE:e}); its values mean nothing",
                    at(),
                    sci(s)
                ));
            }
            if let Some(q) = &t.quantization
                && let Some(&z) = q
                    .zero_points()
                    .iter()
                    .find(|&&z| i64::from(super::litert_zero_point(z)) != z)
            {
                out.push(format!(
                    "{}: zero point {z} does not fit in 32 bits: read as {}, its low 32 bits, as                      LiteRT does, and kept as found",
                    at(),
                    super::litert_zero_point(z)
                ));
            }
        }
    }
    out
}

/// Outputs and inputs of operators that move or compare integers unchanged
/// ([`crate::ops::shape::moves_integers_unchecked`]) quantized otherwise than their first such
/// input: LiteRT and the engine use the integers as they are, which then mean other values.
fn moved_integers(sg: &super::Subgraph, si: usize) -> Vec<String> {
    let quant = |t: &super::Tensor| {
        let q = t.quantization.as_ref()?;
        let zps: Vec<i32> = q
            .zero_points()
            .iter()
            .map(|&z| super::litert_zero_point(z))
            .collect();
        let zps = if zps.is_empty() {
            vec![0; q.scales().len()]
        } else {
            zps
        };
        Some((q.scales().to_vec(), zps))
    };
    let tensor = |i: i32| usize::try_from(i).ok().and_then(|i| sg.tensors.get(i));
    let mut out = Vec::new();
    for (oi, op) in sg.operators.iter().enumerate() {
        let Some(inputs) = crate::ops::shape::moves_integers_unchecked(op.code.op()) else {
            continue;
        };
        let k = inputs.start;
        let Some(input) = op.inputs.get(k).and_then(|&i| tensor(i)) else {
            continue;
        };
        if !crate::ops::shape::is_quantized_type(input.dtype) {
            continue;
        }
        let others = (k + 1..inputs.end)
            .filter_map(|j| Some((format!("input {j}"), op.inputs.get(j)?)))
            .chain(op.outputs.iter().map(|o| ("output".to_string(), o)))
            .filter_map(|(role, &t)| Some((role, tensor(t)?)));
        for (role, other) in others {
            let (a, b) = (quant(input), quant(other));
            if other.dtype == input.dtype && a != b {
                let show = |q: &Option<(Vec<f32>, Vec<i32>)>| match q {
                    Some((s, z)) => format!(
                        "scale {} zero point {}",
                        capped(&s.iter().map(|&v| sci(v)).collect::<Vec<_>>()),
                        capped(z)
                    ),
                    None => "no quantization".to_string(),
                };
                out.push(format!(
                    "subgraph {si}, operator {oi} ({}): {role} '{}' ({}) is quantized otherwise \
                     than input {k} '{}' ({}): the operator moves or compares the integers \
                     unchanged, which then mean other values, as in LiteRT",
                    op.code.name(),
                    other.name,
                    show(&b),
                    input.name,
                    show(&a)
                ));
            }
        }
    }
    out
}

/// Per-channel weights (input 1) with zero points other than 0 that LiteRT's kernel ignores
/// ([`crate::ops::ignores_channel_zero_points`]), and so does the engine.
fn ignored_weight_zero_points(sg: &super::Subgraph, si: usize) -> Vec<String> {
    let tensor = |i: Option<&i32>| {
        i.and_then(|&i| usize::try_from(i).ok())
            .and_then(|i| sg.tensors.get(i))
    };
    let mut out = Vec::new();
    for (oi, op) in sg.operators.iter().enumerate() {
        let input = tensor(op.inputs.first()).map(|t| t.dtype);
        let Some(w) = tensor(op.inputs.get(1)) else {
            continue;
        };
        let Some(q) = &w.quantization else {
            continue;
        };
        let nonzero = q
            .zero_points()
            .iter()
            .filter(|&&z| super::litert_zero_point(z) != 0)
            .count();
        if q.scales().len() > 1
            && nonzero > 0
            && crate::ops::ignores_channel_zero_points(op.code.op(), input)
        {
            out.push(format!(
                "subgraph {si}, operator {oi} ({}): per-channel weights '{}' have {nonzero} zero \
                 point(s) other than 0: ignored, as LiteRT's per-channel kernels do, and kept as \
                 found",
                op.code.name(),
                w.name
            ));
        }
    }
    out
}

/// What is odd about an operator's options table, as LiteRT reads it: one of another type than
/// the operator's own, or none where LiteRT's zeroed defaults differ from the schema's (see
/// [`crate::ops::litert_options`]). `None` when the table is the operator's own.
fn options_problem(op: &super::Operator) -> Option<String> {
    use crate::tflite::schema::BuiltinOptions as O;
    let kind = crate::ops::litert_options::options_kind(op.code.op())?;
    let found = op.options.builtin_options_type();
    let name = |k: O| {
        k.variant_name()
            .map_or_else(|| format!("#{}", k.0), str::to_string)
    };
    if found == kind {
        None
    } else if found == O::NONE {
        matches!(
            kind,
            O::Conv2DOptions | O::DepthwiseConv2DOptions | O::AddOptions | O::SubOptions
        )
        .then(|| {
            format!(
                "no {}: run with LiteRT's defaults (every field zero, which is not the \
                 schema's default here), as LiteRT does",
                name(kind)
            )
        })
    } else {
        Some(format!(
            "options of type {} where the operator reads {}: run with LiteRT's defaults (every \
             field zero), as LiteRT does, and kept as found",
            name(found),
            name(kind)
        ))
    }
}

/// The constants of subgraph `si` that an operator overwrites and that LiteRT runs consistently,
/// as `(tensor, first operator writing it)`: LiteRT's kernel writes into the constant's buffer,
/// so readers after it see the computed value and the data is never read, provided the tensor is
/// not a graph input and no operator reads it before that writer (such a reader would see the
/// constant at the first invocation and the computed value at the next; still refused). The
/// engine computes these tensors and ignores their data; the quantizer drops it.
pub fn overwritten_constants(model: &Model, si: usize) -> Vec<(usize, usize)> {
    let Some(sg) = model.subgraphs.get(si) else {
        return Vec::new();
    };
    let mut out: Vec<(usize, usize)> = Vec::new();
    for (oi, op) in sg.operators.iter().enumerate() {
        // LiteRT's CONCATENATION returns early when its output is constant (it folds all-constant
        // inputs at Prepare), leaving the data in place (mutant 4-720): kept refused.
        if op.code.op() == crate::graph::BuiltinOperator::CONCATENATION {
            continue;
        }
        for &o in &op.outputs {
            let Ok(t) = usize::try_from(o) else { continue };
            if model.tensor_data(si, t).is_none()
                || out.iter().any(|&(seen, _)| seen == t)
                || sg.inputs.contains(&o)
                || sg.operators[..=oi].iter().any(|r| r.inputs.contains(&o))
            {
                continue;
            }
            out.push((t, oi));
        }
    }
    out
}

/// A float in scientific notation with 6 significant digits (`3.40282e38`), the way errors and
/// warnings print scales.
pub fn sci(v: f32) -> String {
    if v.is_finite() {
        format!("{v:.5e}")
    } else {
        v.to_string()
    }
}

/// "buffer 172" or "buffers 172, 173, … and 40 more": at most [`LIST_CAP`] items named.
pub fn capped_list<T: std::fmt::Display>(noun: &str, items: &[T]) -> String {
    let plural = if items.len() == 1 { "" } else { "s" };
    format!("{noun}{plural} {}", capped(items))
}

/// Items joined by ", ", at most [`LIST_CAP`] of them, then "… and N more".
pub fn capped<T: std::fmt::Display>(items: &[T]) -> String {
    let shown: Vec<String> = items
        .iter()
        .take(LIST_CAP)
        .map(ToString::to_string)
        .collect();
    let mut s = shown.join(", ");
    if items.len() > LIST_CAP {
        s.push_str(&format!(", … and {} more", items.len() - LIST_CAP));
    }
    s
}
