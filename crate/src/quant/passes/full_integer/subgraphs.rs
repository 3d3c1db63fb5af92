//! Full-integer quantization of models with several subgraphs: which subgraphs there are
//! ([`SubgraphRoles`]: WHILE / IF bodies, CALL_ONCE init subgraphs) and the pass run over each
//! WHILE / IF body ([`quantize_bodies`]).
//!
//! The layout is the one TF 2.21's MLIR quantizer writes when it does not crash on such a model
//! (measured on a `tf.function` with a `tf.while_loop` and a `tf.cond`): every subgraph's inputs
//! and outputs, and so WHILE's and IF's operands and results, stay float; inside a body the
//! operators are quantized with the ranges calibration recorded there (over every iteration),
//! with a QUANTIZE after each float input read by a quantized operator and a DEQUANTIZE before
//! each output a quantized operator writes — a body is quantized like a model with float I/O.
//! In the calling subgraph WHILE and IF are float operators: DEQUANTIZE before, QUANTIZE after
//! (the results have their own recorded ranges). CALL_ONCE init subgraphs stay float, as TF's
//! int8 quantizer keeps resource variables float.

use std::collections::BTreeSet;

use super::super::edit::qerr;
use super::super::{IoType, QuantizeOptions, Ranges};
use super::FullInteger;
use crate::error::Result;
use crate::graph::{BuiltinOperator as Op, BuiltinOptionsT, Model, TensorType};
use crate::quant::report::Report;

/// The subgraphs after the first, by what runs them.
#[derive(Debug, Default, PartialEq, Eq)]
pub(in crate::quant::passes) struct SubgraphRoles {
    /// Subgraphs a WHILE (cond, body) or an IF (then, else) runs, in index order.
    pub(in crate::quant::passes) bodies: Vec<usize>,
    /// Init subgraphs of a CALL_ONCE of subgraph 0.
    pub(in crate::quant::passes) init: Vec<usize>,
}

impl SubgraphRoles {
    /// The roles of `model`'s subgraphs, or why the full-integer modes cannot quantize it: a
    /// subgraph index out of range, a subgraph run both as a body and as an init subgraph, a
    /// CALL_ONCE outside subgraph 0, a CALL, or a subgraph nothing runs.
    pub(in crate::quant::passes) fn of(model: &Model) -> std::result::Result<Self, String> {
        let n = model.subgraphs.len();
        let mut bodies = BTreeSet::new();
        let mut init = BTreeSet::new();
        let index = |i: i32, what: &str, s: usize, o: usize| {
            usize::try_from(i)
                .ok()
                .filter(|&i| i > 0 && i < n)
                .ok_or_else(|| {
                    format!(
                        "operator {o} of subgraph {s} names {what} subgraph {i}, not one of 1..{n}"
                    )
                })
        };
        for (s, sg) in model.subgraphs.iter().enumerate() {
            for (o, op) in sg.operators.iter().enumerate() {
                match (op.code.op(), &op.options) {
                    (Op::WHILE, BuiltinOptionsT::WhileOptions(w)) => {
                        bodies.insert(index(w.cond_subgraph_index, "a cond", s, o)?);
                        bodies.insert(index(w.body_subgraph_index, "a body", s, o)?);
                    }
                    (Op::IF, BuiltinOptionsT::IfOptions(w)) => {
                        bodies.insert(index(w.then_subgraph_index, "a then", s, o)?);
                        bodies.insert(index(w.else_subgraph_index, "an else", s, o)?);
                    }
                    (Op::CALL_ONCE, BuiltinOptionsT::CallOnceOptions(c)) if s == 0 => {
                        init.insert(index(c.init_subgraph_index, "an init", s, o)?);
                    }
                    (Op::WHILE | Op::IF | Op::CALL_ONCE | Op::CALL, _) => {
                        return Err(format!(
                            "operator {o} of subgraph {s} ({}) runs a subgraph in a way the \
                             full-integer quantizer does not handle (CALL_ONCE outside \
                             subgraph 0, CALL, or options of the wrong type)",
                            op.code.name()
                        ));
                    }
                    _ => {}
                }
            }
        }
        if let Some(s) = bodies.intersection(&init).next() {
            return Err(format!(
                "subgraph {s} is both a WHILE / IF body and a CALL_ONCE init subgraph"
            ));
        }
        if let Some(s) = (1..n).find(|s| !bodies.contains(s) && !init.contains(s)) {
            return Err(format!("subgraph {s} is run by no WHILE, IF or CALL_ONCE"));
        }
        Ok(SubgraphRoles {
            bodies: bodies.into_iter().collect(),
            init: init.into_iter().collect(),
        })
    }
}

/// Quantizes each WHILE / IF body of `model` (already quantized in subgraph 0) with the ranges
/// recorded inside it, float I/O (see the module documentation). `opts.float_ops` and
/// `opts.int16_ops` name operators of subgraph 0 and do not apply here. The warnings of each body
/// are added to `report`, prefixed with the subgraph; the tensor and operator tables of `report`
/// stay those of subgraph 0. A body in which calibration recorded nothing (an IF branch no
/// sample took) stays float, with a warning.
///
/// # Errors
/// What the full-integer pass refuses in a body (a tensor read by a quantized operator without a
/// recorded range: a body the calibration samples never ran).
pub(in crate::quant::passes) fn quantize_bodies(
    mut model: Model,
    ranges: &Ranges,
    opts: &QuantizeOptions,
    bodies: &[usize],
    report: &mut Report,
) -> Result<Model> {
    let body_opts = QuantizeOptions {
        io: IoType::Float,
        float_ops: Vec::new(),
        int16_ops: Vec::new(),
        constants: Vec::new(),
        ..opts.clone()
    };
    for &s in bodies {
        let r = ranges.of_subgraph(s);
        let has_float = model.subgraphs[s]
            .tensors
            .iter()
            .any(|t| t.dtype == TensorType::FLOAT32);
        if r.is_empty() {
            // An IF branch no calibration sample took (or a loop body never entered): nothing
            // recorded, so it runs float (its I/O is float whatever happens inside).
            if has_float {
                report.warnings.push(format!(
                    "subgraph {s} stays float: no calibration sample ran it"
                ));
            }
            continue;
        }
        let (q, rep) = FullInteger::in_subgraph(&model, s, &r, &body_opts, None)
            .and_then(FullInteger::run)
            .map_err(|e| match e {
                crate::error::Error::Quantization { what, reason } => {
                    qerr(format!("subgraph {s}: {what}"), reason)
                }
                e => e,
            })?;
        model = q;
        report.warnings.extend(
            rep.warnings
                .into_iter()
                .map(|w| format!("subgraph {s}: {w}")),
        );
    }
    Ok(model)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::control_flow_tests::counting_loop;
    use crate::graph::Subgraph;

    #[test]
    fn roles_name_the_loop_subgraphs_and_refuse_the_others() {
        let m = counting_loop(1, 2, 5, 2);
        assert_eq!(
            SubgraphRoles::of(&m),
            Ok(SubgraphRoles {
                bodies: vec![1, 2],
                init: Vec::new(),
            })
        );
        // A subgraph nothing runs (another signature's): refused, named.
        let mut extra = m.clone();
        extra.subgraphs.push(Subgraph::default());
        assert_eq!(
            SubgraphRoles::of(&extra),
            Err("subgraph 3 is run by no WHILE, IF or CALL_ONCE".to_string())
        );
        // A body index out of range, or subgraph 0 itself.
        for bad in [7, 0] {
            let broken = counting_loop(1, bad, 5, 2);
            let why = SubgraphRoles::of(&broken).expect_err("bad index");
            assert!(why.contains(&format!("a body subgraph {bad}")), "{why}");
        }
    }
}
