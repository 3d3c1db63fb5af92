//! The last pass: redundant QUANTIZE / DEQUANTIZE removed, and the tensors that leaves unused.
//!
//! A DEQUANTIZE of an integer activation whose float result feeds QUANTIZE operators (where
//! integer parts of a model meet: an op kept int16 next to int8 ones, or a model that was
//! already partly quantized) does not need the float detour for them (the DEQUANTIZE stays when
//! float operators also read its result):
//!
//! - same type and the same scale and zero point on both sides: the QUANTIZE's readers read the
//!   integer tensor directly and both operators go;
//! - otherwise, where LiteRT's QUANTIZE requantizes integers directly (int8/uint8 → int8/uint8,
//!   int16 → int8, int16 → int16 with zero points 0): the QUANTIZE reads the integer tensor and
//!   the DEQUANTIZE goes (one rounding instead of two);
//! - int8 → int16 stays DEQUANTIZE → QUANTIZE (LiteRT's QUANTIZE does not widen integers).
//!
//! The float tensors left without readers are dropped and tensor indices renumbered (operators,
//! subgraph inputs/outputs, signatures and the [`Report`]). A model without such a pair is left
//! exactly as it is.

use std::collections::{HashMap, HashSet};

use super::report::Report;
use crate::graph::{BuiltinOperator as Op, Model, Quantization, TensorType};

fn per_tensor(q: Option<&Quantization>) -> Option<(u32, i64)> {
    let q = q?;
    match (q.scales(), q.zero_points()) {
        ([s], [z]) => Some((s.to_bits(), *z)),
        ([s], []) => Some((s.to_bits(), 0)),
        _ => None,
    }
}

/// Whether LiteRT's QUANTIZE takes `from` → `to` as a direct requantization.
fn requantizes(from: TensorType, to: TensorType, zero_points: (i64, i64)) -> bool {
    use TensorType as T;
    match (from, to) {
        (T::INT8 | T::UINT8, T::INT8 | T::UINT8) | (T::INT16, T::INT8) => true,
        (T::INT16, T::INT16) => zero_points == (0, 0),
        _ => false,
    }
}

/// Whether `name` is one TF's quantizer gives a QUANTIZE result: `tfl.quantize`,
/// `tfl.quantize1`, `tfl.quantize2`, ….
pub(crate) fn is_tf_quantize_name(name: &str) -> bool {
    name.strip_prefix("tfl.quantize")
        .is_some_and(|rest| rest.chars().all(|c| c.is_ascii_digit()))
}

/// Renames the results of subgraph 0's QUANTIZE operators that quantize a float operator's
/// output and carry TF's `tfl.quantize…` names, in operator order, continuing TF's count after
/// the QUANTIZE operators of the graph inputs (`tfl.quantize`, `tfl.quantize1`, …; the
/// [`Report`] too). A model quantized again after `--float-ops` keeps the QUANTIZE operators the
/// first pass wrote after its float operators, numbered in that pass's count (which also counted
/// the conversions the second pass removed); this gives them the names TF's all-at-once model
/// has. Returns whether any name changed.
pub fn renumber_tf_quantize_names(model: &mut Model, report: &mut Report) -> bool {
    let Some(sg) = model.subgraphs.first_mut() else {
        return false;
    };
    let graph_inputs: HashSet<i32> = sg.inputs.iter().copied().collect();
    let named = |t: i32| {
        usize::try_from(t).ok().filter(|&t| {
            sg.tensors
                .get(t)
                .is_some_and(|x| is_tf_quantize_name(&x.name))
        })
    };
    let mut from_inputs = 0usize;
    let mut targets = Vec::new();
    for op in sg
        .operators
        .iter()
        .filter(|op| op.code.op() == Op::QUANTIZE)
    {
        let (Some(&i), Some(o)) = (
            op.inputs.first(),
            op.outputs.first().and_then(|&o| named(o)),
        ) else {
            continue;
        };
        if graph_inputs.contains(&i) {
            from_inputs += 1;
        } else {
            targets.push(o);
        }
    }
    let mut changed = false;
    for (k, &t) in targets.iter().enumerate() {
        let n = from_inputs + k;
        let name = if n == 0 {
            "tfl.quantize".to_string()
        } else {
            format!("tfl.quantize{n}")
        };
        if sg.tensors[t].name != name {
            changed = true;
            sg.tensors[t].name = name.clone();
            for r in report.tensors.iter_mut().filter(|r| r.index == t) {
                r.name = name.clone();
            }
        }
    }
    changed
}

/// Removes the redundant pairs of subgraph 0 (see the module documentation), then the tensors in
/// `orphans` or left by the removal that nothing refers to any more. Returns one note per change.
pub fn remove_redundant_pairs(
    model: &mut Model,
    report: &mut Report,
    orphans: &[usize],
) -> Vec<String> {
    let mut notes = Vec::new();
    let n_tensors = model.subgraphs.first().map_or(0, |s| s.tensors.len());
    let constant: Vec<bool> = (0..n_tensors)
        .map(|t| model.tensor_data(0, t).is_some())
        .collect();
    let Some(sg) = model.subgraphs.first_mut() else {
        return notes;
    };
    let n_ops = sg.operators.len();
    let mut producer: HashMap<i32, usize> = HashMap::new();
    let mut readers: HashMap<i32, Vec<usize>> = HashMap::new();
    for (i, op) in sg.operators.iter().enumerate() {
        for &t in &op.outputs {
            producer.insert(t, i);
        }
        for &t in &op.inputs {
            readers.entry(t).or_default().push(i);
        }
    }
    let outputs: HashSet<i32> = sg.outputs.iter().copied().collect();
    let tensor = |t: i32| usize::try_from(t).ok().and_then(|t| sg.tensors.get(t));
    let mut dropped = vec![false; n_ops];
    // Tensor replacements (b → a) for the readers of removed QUANTIZE outputs.
    let mut replace: HashMap<i32, i32> = HashMap::new();
    let mut rewire: Vec<(usize, i32)> = Vec::new();
    let mut candidates: Vec<usize> = orphans.to_vec();
    for (d, op) in sg.operators.iter().enumerate() {
        if op.code.op() != Op::DEQUANTIZE || op.inputs.len() != 1 || op.outputs.len() != 1 {
            continue;
        }
        let (a, f) = (op.inputs[0], op.outputs[0]);
        let (Some(at), Some(ft)) = (tensor(a), tensor(f)) else {
            continue;
        };
        let a_integer = matches!(
            at.dtype,
            TensorType::INT8 | TensorType::UINT8 | TensorType::INT16
        );
        let a_constant = usize::try_from(a).is_ok_and(|a| constant[a]);
        if !a_integer || a_constant || ft.dtype != TensorType::FLOAT32 {
            continue;
        }
        let Some(ap) = per_tensor(at.quantization.as_ref()) else {
            continue;
        };
        let rs = readers.get(&f).map(Vec::as_slice).unwrap_or(&[]);
        let is_quantize = |q: &usize| sg.operators[*q].code.op() == Op::QUANTIZE;
        if !rs.iter().any(is_quantize) {
            continue;
        }
        // The DEQUANTIZE itself stays for float readers (an op kept float next to the integer
        // ones) and for a float graph output; its QUANTIZE readers are handled all the same.
        let mut all_removed = rs.iter().all(is_quantize) && !outputs.contains(&f);
        for &q in rs.iter().filter(|q| is_quantize(q)) {
            let b = sg.operators[q].outputs.first().copied().unwrap_or(-1);
            let Some(bt) = tensor(b) else {
                all_removed = false;
                continue;
            };
            let Some(bp) = per_tensor(bt.quantization.as_ref()) else {
                all_removed = false;
                continue;
            };
            if at.dtype == bt.dtype && ap == bp && !outputs.contains(&b) {
                replace.insert(b, a);
                dropped[q] = true;
                notes.push(format!(
                    "DEQUANTIZE → QUANTIZE of '{}' removed: '{}' has the same parameters",
                    at.name, bt.name
                ));
            } else if requantizes(at.dtype, bt.dtype, (ap.1, bp.1)) {
                rewire.push((q, a));
                notes.push(format!(
                    "DEQUANTIZE → QUANTIZE of '{}' into '{}' replaced by one requantizing QUANTIZE",
                    at.name, bt.name
                ));
            } else {
                all_removed = false;
            }
            if let Ok(b) = usize::try_from(b)
                && dropped[q]
            {
                candidates.push(b);
            }
        }
        if all_removed {
            dropped[d] = true;
            if let Ok(f) = usize::try_from(f) {
                candidates.push(f);
            }
        }
    }
    // A QUANTIZE from an integer tensor to the same type and parameters copies it.
    for (q, op) in sg.operators.iter().enumerate() {
        if op.code.op() != Op::QUANTIZE
            || op.inputs.len() != 1
            || op.outputs.len() != 1
            || dropped[q]
        {
            continue;
        }
        let (a, b) = (op.inputs[0], op.outputs[0]);
        let (Some(at), Some(bt)) = (tensor(a), tensor(b)) else {
            continue;
        };
        let integer = matches!(
            at.dtype,
            TensorType::INT8 | TensorType::UINT8 | TensorType::INT16
        );
        if integer
            && at.dtype == bt.dtype
            && !outputs.contains(&b)
            && per_tensor(at.quantization.as_ref()).is_some()
            && per_tensor(at.quantization.as_ref()) == per_tensor(bt.quantization.as_ref())
        {
            replace.insert(b, a);
            dropped[q] = true;
            if let Ok(b) = usize::try_from(b) {
                candidates.push(b);
            }
            notes.push(format!(
                "QUANTIZE '{}' → '{}' removed: the same type and parameters",
                at.name, bt.name
            ));
        }
    }
    if notes.is_empty() && candidates.is_empty() {
        return notes;
    }
    for (q, a) in rewire {
        sg.operators[q].inputs[0] = a;
    }
    // Chains of replacements resolve to their first tensor.
    let resolve = |mut t: i32| {
        let mut hops = 0;
        while let Some(&n) = replace.get(&t) {
            t = n;
            hops += 1;
            if hops > replace.len() {
                break;
            }
        }
        t
    };
    for op in &mut sg.operators {
        for x in &mut op.inputs {
            *x = resolve(*x);
        }
    }
    let mut op_map: Vec<Option<usize>> = vec![None; n_ops];
    let old_ops = std::mem::take(&mut sg.operators);
    for (i, op) in old_ops.into_iter().enumerate() {
        if !dropped[i] {
            op_map[i] = Some(sg.operators.len());
            sg.operators.push(op);
        }
    }
    // Drop the candidates nothing refers to.
    let mut used: HashSet<i32> = sg.inputs.iter().chain(&sg.outputs).copied().collect();
    for op in &sg.operators {
        used.extend(op.inputs.iter().chain(&op.outputs).copied());
        used.extend(op.intermediates.iter().flatten().copied());
    }
    let gone: HashSet<usize> = candidates
        .into_iter()
        .filter(|&t| {
            i32::try_from(t).is_ok_and(|x| !used.contains(&x))
                && sg.tensors.get(t).is_some_and(|t| !t.is_variable)
        })
        .collect();
    let mut tensor_map: Vec<Option<i32>> = Vec::with_capacity(sg.tensors.len());
    let mut kept = Vec::with_capacity(sg.tensors.len());
    for (i, t) in std::mem::take(&mut sg.tensors).into_iter().enumerate() {
        if gone.contains(&i) {
            tensor_map.push(None);
        } else {
            tensor_map.push(i32::try_from(kept.len()).ok());
            kept.push(t);
        }
    }
    sg.tensors = kept;
    let re = |x: &mut i32| {
        if let Some(Some(n)) = usize::try_from(*x).ok().and_then(|t| tensor_map.get(t)) {
            *x = *n;
        }
    };
    for op in &mut sg.operators {
        op.inputs.iter_mut().for_each(re);
        op.outputs.iter_mut().for_each(re);
        op.intermediates.iter_mut().flatten().for_each(re);
    }
    sg.inputs.iter_mut().for_each(re);
    sg.outputs.iter_mut().for_each(re);
    for s in model.signatures.iter_mut().filter(|s| s.subgraph == 0) {
        for m in s.inputs.iter_mut().chain(s.outputs.iter_mut()) {
            if let Some(Some(n)) = tensor_map.get(m.tensor as usize) {
                m.tensor = u32::try_from(*n).unwrap_or(m.tensor);
            }
        }
    }
    report
        .tensors
        .retain_mut(|t| match tensor_map.get(t.index) {
            Some(Some(n)) => {
                t.index = usize::try_from(*n).unwrap_or(t.index);
                true
            }
            _ => false,
        });
    report.ops.retain_mut(|o| match op_map.get(o.index) {
        Some(Some(n)) => {
            o.index = *n;
            true
        }
        _ => false,
    });
    notes
}
