//! Models as people have them, made plain before the full-integer passes run.
//!
//! - **Constants behind DEQUANTIZE** (float16 weights, as TF's `float16` models store them, or
//!   int8/int16 constants with their scale and zero point): each such DEQUANTIZE is removed and
//!   its output becomes the float32 constant it computes (the same values LiteRT's DEQUANTIZE
//!   gives), so the operators reading it see ordinary float weights.
//! - **Hybrid weights** (a dynamic-range model: float activations, int8 weights): the int8
//!   weights of an operator whose activations are float are dequantized back to float32, so the
//!   operator is quantized like any other (its weights are re-quantized by the weight rule).
//!
//! Tensor indices never change here (outputs keep their index, the old constant stays in the
//! file unread until the writer's buffer compaction), so calibration ranges still apply. Integer
//! operators already in the model (a partly quantized model) are left as they are; the
//! redundant DEQUANTIZE → QUANTIZE pairs at their borders are removed after quantizing
//! ([`super::cleanup`]).

use crate::error::{Error, Result};
use crate::graph::dtype::dtype_name;
use crate::graph::{BuiltinOperator as Op, BuiltinOptionsT, Model, Tensor, TensorType};
use crate::kernels::reference::quantize::dequantize_f16;
use crate::ops::registry::properties;

fn qerr(what: impl Into<String>, reason: impl Into<String>) -> Error {
    Error::Quantization {
        what: what.into(),
        reason: reason.into(),
    }
}

fn shape(t: &Tensor) -> Vec<usize> {
    t.shape
        .as_deref()
        .unwrap_or(&[])
        .iter()
        .map(|&d| usize::try_from(d).unwrap_or(0))
        .collect()
}

/// The float32 values of an integer or float16 constant `t` with `data`, as LiteRT's DEQUANTIZE
/// computes them (per tensor: `scale · (q − zp)` in double, rounded once; per channel: in float).
///
/// # Errors
/// [`Error::Quantization`] for a type DEQUANTIZE does not take, missing parameters, or data of
/// the wrong size.
pub fn dequantized_values(t: &Tensor, data: &[u8]) -> Result<Vec<f32>> {
    let label = || format!("constant '{}'", t.name);
    let n: usize = shape(t).iter().product();
    if t.dtype == TensorType::FLOAT16 {
        if data.len() != 2 * n {
            return Err(qerr(
                label(),
                format!("{} bytes for {n} halves", data.len()),
            ));
        }
        let mut out = vec![0f32; n];
        dequantize_f16(data, &mut out);
        return Ok(out);
    }
    let ints: Vec<i32> = match t.dtype {
        TensorType::INT8 => data.iter().map(|&b| i32::from(b as i8)).collect(),
        TensorType::UINT8 => data.iter().map(|&b| i32::from(b)).collect(),
        TensorType::INT16 => data
            .chunks_exact(2)
            .map(|c| i32::from(i16::from_le_bytes([c[0], c[1]])))
            .collect(),
        other => {
            return Err(qerr(
                label(),
                format!("DEQUANTIZE of {} is not defined", dtype_name(other)),
            ));
        }
    };
    if ints.len() != n {
        return Err(qerr(
            label(),
            format!("{} values for shape {:?}", ints.len(), shape(t)),
        ));
    }
    let q = t
        .quantization
        .as_ref()
        .filter(|q| !q.scales().is_empty())
        .ok_or_else(|| qerr(label(), "an integer constant without scale"))?;
    let (scales, zps) = (q.scales(), q.zero_points());
    let zp = |c: usize| -> Result<i32> {
        let z = zps.get(c).or(zps.first()).copied().unwrap_or(0);
        i32::try_from(z).map_err(|_| qerr(label(), format!("zero point {z}")))
    };
    if scales.len() == 1 {
        let (s, z) = (f64::from(scales[0]), zp(0)?);
        return Ok(ints
            .iter()
            .map(|&v| (s * f64::from(v - z)) as f32)
            .collect());
    }
    let dims = shape(t);
    let axis = usize::try_from(q.quantized_dimension).unwrap_or(usize::MAX);
    if axis >= dims.len() || dims[axis] != scales.len() {
        return Err(qerr(
            label(),
            format!(
                "{} scales on axis {} of shape {dims:?}",
                scales.len(),
                q.quantized_dimension
            ),
        ));
    }
    let inner: usize = dims[axis + 1..].iter().product::<usize>().max(1);
    let zs = (0..scales.len()).map(zp).collect::<Result<Vec<i32>>>()?;
    Ok(ints
        .iter()
        .enumerate()
        .map(|(i, &v)| {
            let c = (i / inner) % scales.len();
            scales[c] * (v - zs[c]) as f32
        })
        .collect())
}

/// Folds every DEQUANTIZE of a constant into the float32 constant it computes, and dequantizes
/// the int8 weights of hybrid operators (float activations). Returns `None` when there is
/// nothing to change, and a note per change.
///
/// # Errors
/// What [`dequantized_values`] refuses.
pub fn dequantize_constants(model: &Model) -> Result<(Option<Model>, Vec<String>)> {
    let Some(sg) = model.subgraphs.first() else {
        return Ok((None, Vec::new()));
    };
    let mut m: Option<Model> = None;
    let mut notes = Vec::new();
    let mut folded = Vec::new();
    let mut kept = Vec::with_capacity(sg.operators.len());
    for op in &sg.operators {
        let foldable =
            op.code.op() == Op::DEQUANTIZE && op.inputs.len() == 1 && op.outputs.len() == 1;
        let input = usize::try_from(op.inputs.first().copied().unwrap_or(-1)).ok();
        let data = input.and_then(|i| model.tensor_data(0, i));
        let (true, Some(i), Some(data)) = (foldable, input, data) else {
            kept.push(op.clone());
            continue;
        };
        let o = usize::try_from(op.outputs[0]).unwrap_or(usize::MAX);
        let Some(out) = sg.tensors.get(o).filter(|t| t.dtype == TensorType::FLOAT32) else {
            kept.push(op.clone());
            continue;
        };
        let src = &sg.tensors[i];
        let values = dequantized_values(src, data)?;
        let mm = m.get_or_insert_with(|| model.clone());
        let b = push_f32(mm, &values)?;
        let t = &mut mm.subgraphs[0].tensors[o];
        t.buffer = b;
        t.quantization = None;
        folded.push(format!("'{}' ({})", out.name, dtype_name(src.dtype)));
    }
    if let Some(mm) = &mut m {
        mm.subgraphs[0].operators = kept;
        notes.push(format!(
            "{} DEQUANTIZE of constants folded into float32 constants before quantizing: {}",
            folded.len(),
            folded.join(", ")
        ));
    }
    // Hybrid weights: an operator with float activations and integer constant weights.
    let base = m.as_ref().unwrap_or(model);
    let sg = &base.subgraphs[0];
    let mut changes: Vec<(usize, usize, Vec<f32>)> = Vec::new();
    for (k, op) in sg.operators.iter().enumerate() {
        let Some(p) = properties(op.code.op()) else {
            continue;
        };
        let Some(ws) = p.weights else { continue };
        let act = p.bias.map_or(0, |b| b.activation);
        let float_act = op
            .input(act)
            .and_then(|t| sg.tensors.get(t))
            .is_some_and(|t| t.dtype == TensorType::FLOAT32);
        let Some(w) = op.input(ws.input) else {
            continue;
        };
        let wt = &sg.tensors[w];
        if !float_act
            || !matches!(wt.dtype, TensorType::INT8 | TensorType::UINT8)
            || changes.iter().any(|c| c.1 == w)
        {
            continue;
        }
        let Some(data) = base.tensor_data(0, w) else {
            continue;
        };
        changes.push((k, w, dequantized_values(wt, data)?));
    }
    if changes.is_empty() {
        return Ok((m, notes));
    }
    let mut mm = m.unwrap_or_else(|| model.clone());
    for (k, w, values) in changes {
        let b = push_f32(&mut mm, &values)?;
        let sg = &mut mm.subgraphs[0];
        let t = &mut sg.tensors[w];
        notes.push(format!(
            "hybrid weights '{}' of operator {k} ({}) dequantized to float32 before quantizing",
            t.name,
            sg.operators[k].code.name()
        ));
        t.dtype = TensorType::FLOAT32;
        t.quantization = None;
        t.buffer = b;
        if let BuiltinOptionsT::FullyConnectedOptions(o) = &mut sg.operators[k].options {
            o.asymmetric_quantize_inputs = false;
        }
    }
    Ok((Some(mm), notes))
}

/// Appends a buffer holding `values` (little-endian float32) and returns its index.
fn push_f32(model: &mut Model, values: &[f32]) -> Result<u32> {
    model.buffers.push(crate::graph::Buffer {
        data: values.iter().flat_map(|v| v.to_le_bytes()).collect(),
    });
    u32::try_from(model.buffers.len() - 1).map_err(|_| qerr("model", "too many buffers"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::Quantization;

    fn tensor(dtype: TensorType, shape: Vec<i32>, q: Option<Quantization>) -> Tensor {
        let mut t = Tensor::new("w", dtype, shape);
        t.quantization = q;
        t
    }

    #[test]
    fn per_tensor_int8_is_scale_times_offset() {
        let q = Quantization {
            scale: Some(vec![0.5]),
            zero_point: Some(vec![-3]),
            ..Quantization::default()
        };
        let t = tensor(TensorType::INT8, vec![3], Some(q));
        let v = dequantized_values(&t, &[(-3i8) as u8, 1, 127]).expect("values");
        assert_eq!(v, vec![0.0, 2.0, 65.0]);
    }

    #[test]
    fn per_channel_uses_the_axis() {
        let q = Quantization {
            scale: Some(vec![1.0, 0.25]),
            zero_point: Some(vec![0, 0]),
            quantized_dimension: 1,
            ..Quantization::default()
        };
        let t = tensor(TensorType::INT8, vec![2, 2], Some(q));
        let v = dequantized_values(&t, &[4, 4, 8, 8]).expect("values");
        assert_eq!(v, vec![4.0, 1.0, 8.0, 2.0]);
    }

    #[test]
    fn halves_and_refusals() {
        let t = tensor(TensorType::FLOAT16, vec![2], None);
        let v = dequantized_values(&t, &[0x00, 0x3c, 0x00, 0xc0]).expect("halves");
        assert_eq!(v, vec![1.0, -2.0]);
        assert!(dequantized_values(&t, &[0, 0, 0]).is_err());
        let t = tensor(TensorType::INT8, vec![2], None);
        assert!(dequantized_values(&t, &[1, 2]).is_err(), "no scale");
        let t = tensor(TensorType::INT32, vec![1], None);
        assert!(dequantized_values(&t, &[0, 0, 0, 0]).is_err());
    }
}
