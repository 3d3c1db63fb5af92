//! `int8` with some operators int16 (`--int16-ops`): the full-integer pass twice, first int8 with
//! those operators kept float, then those operators alone as 16x8, and the joints between them.

use std::collections::{HashMap, HashSet};

use super::edit::qerr;
use super::full_integer::{FullInteger, resolve_ops};
use super::{IoType, Mode, QuantizeOptions, Ranges};
use crate::error::Result;
use crate::graph::{BuiltinOperator as Op, Model, TensorType};
use crate::ops::registry::properties;
use crate::quant::report::Report;

/// `int8` with some operators int16 (see [`quantize`](super::quantize)).
pub(super) fn mixed_int16(
    model: &Model,
    ranges: &Ranges,
    opts: &QuantizeOptions,
    fused_names: HashMap<usize, String>,
) -> Result<(Model, Report)> {
    let sg = &model.subgraphs[0];
    let int16 = resolve_ops(sg, &opts.int16_ops, "--int16-ops")?;
    let float = resolve_ops(sg, &opts.float_ops, "--float-ops")?;
    if let Some(i) = int16.intersection(&float).min() {
        return Err(qerr(
            "--int16-ops",
            format!("operator {i} is named both in --float-ops and in --int16-ops"),
        ));
    }
    // Pass 1: int8, with the int16 operators kept float.
    let mut first = opts.clone();
    first.float_ops = float.union(&int16).map(usize::to_string).collect();
    first.int16_ops = Vec::new();
    let (m1, r1) = FullInteger::new(model, ranges, &first, None)?
        .with_fused_names(fused_names)
        .run()?;
    // The int16 operators in the new model: found by their outputs, whose indices pass 1 keeps
    // (tensors are only appended, and a float operator's outputs are not rewired).
    let keys: HashSet<i32> = int16
        .iter()
        .filter_map(|&i| sg.operators[i].outputs.first().copied())
        .collect();
    let sg1 = &m1.subgraphs[0];
    let only: HashSet<usize> = sg1
        .operators
        .iter()
        .enumerate()
        .filter(|(_, op)| op.outputs.first().is_some_and(|o| keys.contains(o)))
        .map(|(i, _)| i)
        .collect();
    // The float copies pass 1 made of int8 tensors (DEQUANTIZE outputs) get the range 16x8
    // would give the original: its own, or, for the result of a single-input same-scale op, that
    // of the tensor the chain starts from (TF's older quantizer's rule).
    let producer: HashMap<usize, usize> = sg
        .operators
        .iter()
        .enumerate()
        .flat_map(|(i, op)| {
            op.outputs
                .iter()
                .filter_map(|&t| usize::try_from(t).ok())
                .map(move |t| (t, i))
        })
        .collect();
    let origin = |mut t: usize| {
        for _ in 0..sg.operators.len() {
            let Some(&p) = producer.get(&t) else { break };
            let op = &sg.operators[p];
            let same =
                properties(op.code.op()).is_some_and(|p| p.same_scale && p.fixed_output.is_none());
            let floats: Vec<usize> = op
                .inputs
                .iter()
                .filter_map(|&x| usize::try_from(x).ok())
                .filter(|&x| {
                    sg.tensors
                        .get(x)
                        .is_some_and(|x| x.dtype == TensorType::FLOAT32)
                })
                .filter(|&x| model.tensor_data(0, x).is_none())
                .collect();
            match (same, floats.as_slice()) {
                (true, [x]) => t = *x,
                _ => break,
            }
        }
        t
    };
    let mut ranges2 = ranges.clone();
    for op in sg1
        .operators
        .iter()
        .filter(|op| op.code.op() == Op::DEQUANTIZE)
    {
        if let (Some(a), Some(f)) = (op.input(0), op.output(0))
            && a < sg.tensors.len()
            && let Some((min, max)) = ranges.get(origin(a)).or(ranges.get(a))
            && ranges2.get(f).is_none()
        {
            ranges2.insert(f, &sg1.tensors[f].name, min, max)?;
        }
    }
    // Pass 2: those operators alone, 16x8, float at their borders; model inputs and outputs
    // still float (read or written only by int16 operators) become int16 with int8 I/O.
    let second = QuantizeOptions {
        mode: Mode::Int16x8,
        io: if opts.io == IoType::Native {
            IoType::Native
        } else {
            IoType::Float
        },
        per_tensor: opts.per_tensor,
        float_ops: Vec::new(),
        int16_ops: Vec::new(),
        constants: Vec::new(),
    };
    let (m2, mut r2) = FullInteger::new(&m1, &ranges2, &second, Some(&only))?.run()?;
    // One report: pass 2's tensors where it decided, pass 1's elsewhere; pass 2's multipliers
    // (computed on the final model) and both passes' warnings, minus those about the int16
    // operators being float in pass 1.
    for t in &mut r2.tensors {
        if matches!(t.source.as_str(), "" | "inserted")
            && let Some(t1) = r1.tensors.get(t.index).filter(|t1| t1.name == t.name)
        {
            *t = t1.clone();
        }
    }
    let mut ops16: Vec<usize> = int16.iter().copied().collect();
    crate::sort::sort(&mut ops16);
    let about_int16 = |w: &String| {
        ops16.iter().any(|i| {
            w.starts_with(&format!("operator {i} (")) || w.ends_with(&format!("float operator {i}"))
        })
    };
    let mut warnings: Vec<String> = r1
        .warnings
        .into_iter()
        .filter(|w| !about_int16(w))
        .collect();
    warnings.extend(
        r2.warnings
            .into_iter()
            .filter(|w| !w.contains("is quantized after float operator")),
    );
    warnings.push(format!(
        "operators {} run with int16 activations (16x8); QUANTIZE / DEQUANTIZE join them to the \
         int8 operators",
        ops16
            .iter()
            .map(usize::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    ));
    let report = Report {
        mode: Mode::Int8.name().into(),
        io: r1.io,
        tensors: r2.tensors,
        ops: r2.ops,
        warnings,
        ..Report::default()
    };
    Ok((m2, report))
}
