//! Side-by-side runs: a float model and its quantized version on the same float samples, and the
//! error of every tensor that exists in both (matched by name; a fused `<activation>;<producer>`
//! result by its activation's name), so the layer that hurts can be found.
//!
//! Per matched tensor, over all samples: SQNR in dB (`10·log10(Σ f² / Σ (f − q̂)²)`, with `q̂`
//! the quantized tensor dequantized with its own scale and zero point), the largest absolute
//! error in float units, and for integer tensors the same in LSB (`max |f − q̂| / scale`).
//! Float samples are fed to the quantized model as it takes them: float inputs unchanged,
//! integer inputs quantized with the input's scale and zero point (`round(x / scale) + zp`,
//! clamped, LiteRT's `AffineQuantize`).
//!
//! Used by `zeropoint compare` and the page's compare view. Allocates freely (it copies every
//! tensor of the float run); it is a debugging aid, not the inference path.

use std::collections::HashMap;

use super::{Interpreter, Limits, TensorId, TensorView};
use crate::error::{Error, Result};
use crate::graph::dtype::dtype_name;
use crate::graph::{Model, TensorType};
use crate::kernels::{Arithmetic, KernelSet};

/// The error of one tensor of the quantized model against the float model (what the CLI's
/// `compare --json` writes, with `sqnr_db` `null` for identical tensors, and what the page's
/// `compareModels` returns, with `Infinity`).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
pub struct TensorError {
    /// Tensor name (the same in both models).
    pub name: String,
    /// Index in the float model's subgraph 0.
    pub float_tensor: usize,
    /// Index in the quantized model's subgraph 0.
    pub quant_tensor: usize,
    /// Element type in the quantized model (`INT8`, `INT16`, `FLOAT32`, …).
    pub dtype: String,
    /// Scale used to dequantize (absent for float tensors).
    pub scale: Option<f32>,
    /// Zero point used to dequantize (absent for float tensors).
    pub zero_point: Option<i64>,
    /// Elements compared (over all samples).
    pub elements: usize,
    /// Signal-to-quantization-noise ratio in dB (`inf` when identical, written as `null` in
    /// JSON, which has no infinity).
    pub sqnr_db: f64,
    /// Largest `|float − dequantized|`.
    pub max_abs_error: f64,
    /// `max_abs_error / scale` for integer tensors.
    pub max_abs_error_lsb: Option<f64>,
}

/// Running sums for one tensor.
#[derive(Default, Clone)]
struct Acc {
    signal: f64,
    noise: f64,
    max_abs: f64,
    elements: usize,
}

/// Per-tensor (scale, zero point) of tensor `t` of subgraph `sg` (per-tensor quantized tensors
/// only).
pub(crate) fn per_tensor_params(model: &Model, sg: usize, t: usize) -> Option<(f32, i64)> {
    let q = model
        .subgraphs
        .get(sg)?
        .tensors
        .get(t)?
        .quantization
        .as_ref()?;
    match (q.scales(), q.zero_points()) {
        ([s], [z]) => Some((*s, *z)),
        ([s], []) => Some((*s, 0)),
        _ => None,
    }
}

/// Elements of `view` as real numbers, dequantized with `params` for integer types. `None` for
/// types that cannot be compared (or integer tensors without per-tensor parameters).
pub(crate) fn real_values(view: &TensorView<'_>, params: Option<(f32, i64)>) -> Option<Vec<f64>> {
    let deq = |q: i64| params.map(|(s, z)| f64::from(s) * (q - z) as f64);
    let b = view.bytes;
    Some(match view.dtype {
        TensorType::FLOAT32 => b
            .chunks_exact(4)
            .map(|c| f64::from(f32::from_le_bytes([c[0], c[1], c[2], c[3]])))
            .collect(),
        TensorType::INT8 => b
            .iter()
            .map(|&v| deq(i64::from(v as i8)))
            .collect::<Option<_>>()?,
        TensorType::UINT8 => b
            .iter()
            .map(|&v| deq(i64::from(v)))
            .collect::<Option<_>>()?,
        TensorType::INT16 => b
            .chunks_exact(2)
            .map(|c| deq(i64::from(i16::from_le_bytes([c[0], c[1]]))))
            .collect::<Option<_>>()?,
        TensorType::INT32 => b
            .chunks_exact(4)
            .map(|c| deq(i64::from(i32::from_le_bytes([c[0], c[1], c[2], c[3]]))))
            .collect::<Option<_>>()?,
        _ => return None,
    })
}

/// Quantizes float `x` into the bytes of an integer input (`round(x / scale) + zp`, clamped).
pub(crate) fn quantize_input(x: &[f32], dtype: TensorType, scale: f32, zp: i64) -> Option<Vec<u8>> {
    let q = |v: f32, lo: i64, hi: i64| ((v / scale).round() as i64 + zp).clamp(lo, hi);
    Some(match dtype {
        TensorType::INT8 => x.iter().map(|&v| q(v, -128, 127) as i8 as u8).collect(),
        TensorType::UINT8 => x.iter().map(|&v| q(v, 0, 255) as u8).collect(),
        TensorType::INT16 => x
            .iter()
            .flat_map(|&v| (q(v, -32768, 32767) as i16).to_le_bytes())
            .collect(),
        _ => return None,
    })
}

/// Sets input `i` of `qi` (prepared from `model`) from float values as the model takes them:
/// float inputs unchanged, INT32/INT64 inputs (token ids) as whole numbers, other integer inputs
/// quantized with the input's scale and zero point ([`quantize_input`]).
pub(crate) fn set_input_real(
    qi: &mut Interpreter,
    model: &Model,
    i: usize,
    x: &[f32],
) -> Result<()> {
    let Some(d) = qi.inputs().get(i).cloned() else {
        return qi.set_input_f32(i, x);
    };
    if d.dtype == TensorType::FLOAT32 {
        return qi.set_input_f32(i, x);
    }
    if matches!(d.dtype, TensorType::INT32 | TensorType::INT64) {
        // Token ids and other integer inputs: whole values, taken as they are.
        let wide = d.dtype == TensorType::INT64;
        let mut bytes = Vec::with_capacity(x.len() * if wide { 8 } else { 4 });
        for &v in x {
            let whole = v.is_finite() && v.fract() == 0.0;
            if !whole || (!wide && (v < i32::MIN as f32 || v >= i32::MAX as f32)) {
                return Err(Error::TensorMismatch {
                    what: format!("input {i}"),
                    tensor: d.name.clone(),
                    expected: format!("whole numbers for a {} input", dtype_name(d.dtype)),
                    got: format!("{v}"),
                });
            }
            if wide {
                bytes.extend_from_slice(&(v as i64).to_le_bytes());
            } else {
                bytes.extend_from_slice(&(v as i32).to_le_bytes());
            }
        }
        return qi.set_input(i, &bytes);
    }
    let (scale, zp) =
        per_tensor_params(model, qi.subgraph(), d.id.0).ok_or_else(|| Error::TensorMismatch {
            what: format!("input {i}"),
            tensor: d.name.clone(),
            expected: "per-tensor quantization parameters".into(),
            got: "none".into(),
        })?;
    let bytes = quantize_input(x, d.dtype, scale, zp).ok_or_else(|| Error::TensorMismatch {
        what: format!("input {i}"),
        tensor: d.name.clone(),
        expected: "FLOAT32, INT8, UINT8 or INT16".into(),
        got: format!("{:?}", d.dtype),
    })?;
    if x.len() != d.num_elements() {
        return Err(Error::TensorMismatch {
            what: format!("input {i}"),
            tensor: d.name.clone(),
            expected: d.describe(),
            got: format!("{} values", x.len()),
        });
    }
    qi.set_input(i, &bytes)
}

/// Runs `float` and `quant` on each sample (`samples[s][i]` = float values of input `i`) and
/// returns the error of every tensor present in both, in the quantized model's execution order.
pub fn compare_models(
    float: &Model,
    quant: &Model,
    samples: &[Vec<Vec<f32>>],
) -> Result<Vec<TensorError>> {
    compare_models_with(float, quant, samples, KernelSet::default())
}

/// [`compare_models`] with an explicit [`KernelSet`] for both models.
pub fn compare_models_with(
    float: &Model,
    quant: &Model,
    samples: &[Vec<Vec<f32>>],
    kernels: KernelSet,
) -> Result<Vec<TensorError>> {
    compare_models_kernels(float, quant, samples, kernels, kernels)
}

/// [`compare_models_with`] running the quantized model with `arithmetic` (whose integer results
/// it reproduces: LiteRT's reference kernels or its default XNNPACK path).
pub fn compare_models_in(
    float: &Model,
    quant: &Model,
    samples: &[Vec<Vec<f32>>],
    kernels: KernelSet,
    arithmetic: Arithmetic,
) -> Result<Vec<TensorError>> {
    let fi = Interpreter::with_options(float, &Limits::default(), kernels)?;
    let qi = Interpreter::with_arithmetic(quant, &Limits::default(), kernels, arithmetic)?;
    compare_prepared(fi, qi, float, quant, samples)
}

/// [`compare_models`] with one [`KernelSet`] for the float model and one for the quantized
/// model.
pub fn compare_models_kernels(
    float: &Model,
    quant: &Model,
    samples: &[Vec<Vec<f32>>],
    float_kernels: KernelSet,
    quant_kernels: KernelSet,
) -> Result<Vec<TensorError>> {
    let fi = Interpreter::with_options(float, &Limits::default(), float_kernels)?;
    let qi = Interpreter::with_options(quant, &Limits::default(), quant_kernels)?;
    compare_prepared(fi, qi, float, quant, samples)
}

/// [`compare_models`] for signature `key` of both models (each prepared with
/// [`Interpreter::for_signature_with`]; `samples[s][i]` is input `i` in the signature's order),
/// the quantized model with `arithmetic`.
///
/// # Errors
/// An unknown or broken signature in either model, and what [`compare_models`] refuses.
pub fn compare_signature(
    float: &Model,
    quant: &Model,
    key: &str,
    samples: &[Vec<Vec<f32>>],
    limits: &Limits,
    arithmetic: Arithmetic,
) -> Result<Vec<TensorError>> {
    let fi = Interpreter::for_signature(float, key, limits, KernelSet::default())?;
    let qi = Interpreter::for_signature_with(quant, key, limits, KernelSet::default(), arithmetic)?;
    compare_prepared(fi, qi, float, quant, samples)
}

/// The comparison itself, on two prepared interpreters (`float` is `fi`'s model, `quant` `qi`'s).
fn compare_prepared(
    mut fi: Interpreter,
    mut qi: Interpreter,
    float: &Model,
    quant: &Model,
    samples: &[Vec<Vec<f32>>],
) -> Result<Vec<TensorError>> {
    let qs = qi.subgraph();
    if fi.inputs().len() != qi.inputs().len() {
        return Err(Error::TensorMismatch {
            what: "model inputs".into(),
            tensor: String::new(),
            expected: format!("{} inputs (float model)", fi.inputs().len()),
            got: format!("{} inputs (quantized model)", qi.inputs().len()),
        });
    }
    let float_names: HashMap<String, usize> = fi
        .slots
        .iter()
        .enumerate()
        .map(|(t, s)| (s.name.clone(), t))
        .collect();
    let mut order: Vec<usize> = Vec::new();
    let mut acc: HashMap<usize, (usize, Acc)> = HashMap::new();
    for (s, sample) in samples.iter().enumerate() {
        if sample.len() != fi.inputs().len() {
            return Err(Error::TensorMismatch {
                what: format!("sample {s}"),
                tensor: String::new(),
                expected: format!("{} inputs", fi.inputs().len()),
                got: format!("{} arrays", sample.len()),
            });
        }
        for (i, x) in sample.iter().enumerate() {
            set_input_real(&mut fi, float, i, x)?;
            set_input_real(&mut qi, quant, i, x)?;
        }
        let mut reference: HashMap<usize, Vec<f64>> = HashMap::new();
        fi.invoke_with(&mut |TensorId(t), view| {
            if let Some(v) = real_values(&view, None) {
                reference.insert(t, v);
            }
        })?;
        qi.invoke_with(&mut |TensorId(t), view| {
            // TF names an operator an activation was fused into `<activation>;<producer>`: it
            // holds the activation's values.
            let fused = view.name.split(';').next().unwrap_or(view.name);
            let Some(&ft) = float_names
                .get(view.name)
                .or_else(|| float_names.get(fused))
            else {
                return;
            };
            let Some(r) = reference.get(&ft) else { return };
            let Some(q) = real_values(&view, per_tensor_params(quant, qs, t)) else {
                return;
            };
            if q.len() != r.len() {
                return;
            }
            let entry = acc.entry(t).or_insert_with(|| {
                order.push(t);
                (ft, Acc::default())
            });
            let a = &mut entry.1;
            for (&f, &g) in r.iter().zip(&q) {
                a.signal += f * f;
                a.noise += (f - g) * (f - g);
                a.max_abs = a.max_abs.max((f - g).abs());
            }
            a.elements += r.len();
        })?;
    }
    Ok(order
        .into_iter()
        .filter_map(|t| {
            let (ft, a) = acc.remove(&t)?;
            let slot = &qi.slots[t];
            let params =
                per_tensor_params(quant, qs, t).filter(|_| slot.dtype != TensorType::FLOAT32);
            let sqnr_db = if a.noise == 0.0 {
                f64::INFINITY
            } else {
                10.0 * (a.signal / a.noise).log10()
            };
            Some(TensorError {
                name: slot.name.clone(),
                float_tensor: ft,
                quant_tensor: t,
                dtype: crate::graph::dtype::dtype_name(slot.dtype).to_string(),
                scale: params.map(|p| p.0),
                zero_point: params.map(|p| p.1),
                elements: a.elements,
                sqnr_db,
                max_abs_error: a.max_abs,
                max_abs_error_lsb: params.map(|(s, _)| a.max_abs / f64::from(s)),
            })
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn input_quantization_rounds_and_clamps_like_affine_quantize() {
        let b = quantize_input(&[0.0, 0.26, -0.25, 100.0, -100.0], TensorType::INT8, 0.5, 3)
            .expect("int8");
        let q: Vec<i8> = b.iter().map(|&v| v as i8).collect();
        // 0.26/0.5 = 0.52 → 1; −0.25/0.5 = −0.5 → −1 (half away from zero); clamps at ±.
        assert_eq!(q, vec![3, 4, 2, 127, -128]);
    }

    #[test]
    fn dequantization_uses_scale_and_zero_point() {
        let bytes = [0u8, 2, 254]; // int8 0, 2, −2
        let view = TensorView {
            name: "t",
            dtype: TensorType::INT8,
            shape: &[3],
            bytes: &bytes,
        };
        assert_eq!(
            real_values(&view, Some((0.5, 2))),
            Some(vec![-1.0, 0.0, -2.0])
        );
        assert_eq!(real_values(&view, None), None);
    }
}
