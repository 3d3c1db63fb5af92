//! Tensors written more than once: by two operators, or a graph input that an operator writes.
//!
//! LiteRT keeps one buffer per tensor and runs every write into it, so each reader sees the
//! latest write before it and a graph output the last one (checked with `ai_edge_litert` 2.3's
//! `BUILTIN_REF`: with y = x + x, z = y · x, y = x · x, w = y + z the outputs are w = x² + 2x²,
//! y = x², z = 2x²; with y = x + x, x = y · y, w = x + y the output x is 4x², w = 4x² + 2x).
//! [`split`] gives the engine the same answer on single-assignment tensors: each write after
//! the first gets a copy of the tensor's declaration, appended to the subgraph, and the readers
//! after it (and the graph outputs) read that copy. The engine refuses writes whose shapes differ
//! (LiteRT's one buffer then holds the last Prepare's shape, which the earlier writer does not
//! compute). Constants an operator overwrites are not counted here: see
//! [`super::lint::overwritten_constants`]. The quantizer refuses these models ([`refuse`]): its
//! ranges and parameters are per tensor, and such a tensor has two values.

use super::{Model, OpCode};
use crate::error::{Error, IssueKind, OpIssue, Result};

/// One write of a tensor that already had a value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rewrite {
    /// The tensor's index in its subgraph.
    pub tensor: usize,
    /// The operator that wrote it before, or `None` when it is a graph input.
    pub before: Option<usize>,
    /// The operator that writes it again.
    pub op: usize,
}

/// Every write in subgraph `si` of a tensor that an earlier operator wrote or that is a graph
/// input, in operator order (constants and an operator's own inputs excepted, and indices out of
/// range skipped: prepare reports those).
pub fn find(model: &Model, si: usize) -> Vec<Rewrite> {
    let Some(sg) = model.subgraphs.get(si) else {
        return Vec::new();
    };
    let n = sg.tensors.len();
    let mut writer: Vec<Option<Option<usize>>> = vec![None; n];
    for &t in &sg.inputs {
        if let Some(w) = usize::try_from(t).ok().and_then(|t| writer.get_mut(t)) {
            *w = Some(None);
        }
    }
    let mut out = Vec::new();
    for (oi, op) in sg.operators.iter().enumerate() {
        for &o in &op.outputs {
            let Some(t) = usize::try_from(o).ok().filter(|&t| t < n) else {
                continue;
            };
            // A constant (see above), or an operator writing its own input (LiteRT refuses it:
            // "Tensor t is both input k and output j"; so does prepare).
            if model.tensor_data(si, t).is_some() || op.inputs.contains(&o) {
                continue;
            }
            if let Some(before) = writer[t] {
                out.push(Rewrite {
                    tensor: t,
                    before,
                    op: oi,
                });
            }
            writer[t] = Some(Some(oi));
        }
    }
    out
}

/// "operator 3 (MUL)" or "the graph input".
pub fn writer_name(model: &Model, si: usize, op: Option<usize>) -> String {
    let code = |oi: usize| {
        model
            .subgraphs
            .get(si)
            .and_then(|sg| sg.operators.get(oi))
            .map_or_else(String::new, |o| o.code.name())
    };
    op.map_or_else(
        || "the graph input".to_string(),
        |oi| format!("operator {oi} ({})", code(oi)),
    )
}

/// A copy of `model` in which every [`Rewrite`] of subgraph `si` writes a new tensor (a copy of
/// the declaration, appended), read by the operators after it and by the graph outputs; with,
/// per rewrite, the new tensor's index. `None` when nothing is written twice.
pub fn split(model: &Model, si: usize) -> Option<(Model, Vec<(usize, Rewrite)>)> {
    let rewrites = find(model, si);
    if rewrites.is_empty() {
        return None;
    }
    let mut m = model.clone();
    let sg = &mut m.subgraphs[si];
    let mut current: Vec<i32> = (0..sg.tensors.len())
        .map(|t| i32::try_from(t).unwrap_or(i32::MAX))
        .collect();
    let mut pending = rewrites.into_iter().peekable();
    let mut made = Vec::new();
    for oi in 0..sg.operators.len() {
        for i in &mut sg.operators[oi].inputs {
            if let Some(&now) = usize::try_from(*i).ok().and_then(|t| current.get(t)) {
                *i = now;
            }
        }
        while let Some(r) = pending.next_if(|r| r.op == oi) {
            let copy = sg.tensors[r.tensor].clone();
            let Ok(new) = i32::try_from(sg.tensors.len()) else {
                return None;
            };
            sg.tensors.push(copy);
            current[r.tensor] = new;
            let original = i32::try_from(r.tensor).unwrap_or(i32::MAX);
            for o in &mut sg.operators[oi].outputs {
                if *o == original {
                    *o = new;
                }
            }
            made.push((sg.tensors.len() - 1, r));
        }
    }
    for o in &mut sg.outputs {
        if let Some(&now) = usize::try_from(*o).ok().and_then(|t| current.get(t)) {
            *o = now;
        }
    }
    Some((m, made))
}

/// The quantizer's refusal of a model with a tensor written twice, naming both writers.
///
/// # Errors
/// [`Error::CannotRun`] listing every such write (unsupported).
pub fn refuse(model: &Model) -> Result<()> {
    let mut issues = Vec::new();
    for si in 0..model.subgraphs.len() {
        for r in find(model, si) {
            let sg = &model.subgraphs[si];
            let op = &sg.operators[r.op];
            issues.push(OpIssue {
                op_index: r.op,
                op_name: OpCode::name(&op.code),
                tensor: format!("output '{}'", sg.tensors[r.tensor].name),
                kind: IssueKind::Unsupported,
                reason: format!(
                    "{} writes this tensor too (subgraph {si}): LiteRT runs both writes over one \
                     buffer, but the quantizer needs one value per tensor",
                    writer_name(model, si, r.before)
                ),
            });
        }
    }
    if issues.is_empty() {
        Ok(())
    } else {
        Err(Error::CannotRun { issues })
    }
}
