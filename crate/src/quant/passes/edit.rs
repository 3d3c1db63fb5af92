//! The graph-editing helpers every pass shares: fresh TF-style names, new buffers, operators and
//! quantization records, operator versions unified per builtin code, unread buffers dropped,
//! DENSIFY of constants folded; and the per-tensor report of the simple passes.

use std::collections::{HashMap, HashSet};

use crate::error::{Error, Result};
use crate::graph::dtype::dtype_name;
use crate::graph::{
    BuiltinOperator as Op, BuiltinOptionsT, Model, OpCode, Operator, Quantization, Subgraph,
    Tensor, TensorType,
};
use crate::quant::params::QuantParams;
use crate::quant::report::{Report, TensorReport};

/// Sparse constants behind DENSIFY: each DENSIFY of a constant is removed and its output becomes
/// the dense constant (tensor indices unchanged, so ranges still apply), so the operators that
/// read it see ordinary weights. `None` when the model has no such DENSIFY. The sparse tensor
/// stays in the file, unread.
pub(super) fn fold_densify(model: &Model) -> Result<(Option<Model>, Vec<String>)> {
    let sg = &model.subgraphs[0];
    let foldable = |op: &crate::graph::Operator| {
        op.code.op() == Op::DENSIFY
            && op.inputs.len() == 1
            && op.outputs.len() == 1
            && usize::try_from(op.inputs[0])
                .ok()
                .is_some_and(|t| model.tensor_data(0, t).is_some())
    };
    if !sg.operators.iter().any(foldable) {
        return Ok((None, Vec::new()));
    }
    let mut m = model.clone();
    let mut notes = Vec::new();
    let mut kept = Vec::with_capacity(sg.operators.len());
    for op in &sg.operators {
        if !foldable(op) {
            kept.push(op.clone());
            continue;
        }
        let (i, o) = (op.inputs[0] as usize, op.outputs[0] as usize);
        let src = &sg.tensors[i];
        let Some(out) = sg.tensors.get(o) else {
            return Err(qerr("DENSIFY", format!("output {o} is not a tensor")));
        };
        let values = model.tensor_data(0, i).unwrap_or_default();
        let dense = match (&src.sparsity, crate::graph::dtype::element_size(src.dtype)) {
            (Some(sp), Some(elem)) => {
                let shape = dims(src);
                crate::graph::sparse::densify(values, elem, &shape, sp)
                    .map_err(|e| qerr(format!("sparse tensor '{}'", src.name), e))?
            }
            // A dense constant behind DENSIFY is already its own value.
            (None, _) => values.to_vec(),
            (Some(_), None) => {
                return Err(qerr(
                    format!("sparse tensor '{}'", src.name),
                    format!("type {} cannot be sparse", dtype_name(src.dtype)),
                ));
            }
        };
        m.buffers.push(crate::graph::Buffer { data: dense });
        let t = &mut m.subgraphs[0].tensors[o];
        t.buffer =
            u32::try_from(m.buffers.len() - 1).map_err(|_| qerr("model", "too many buffers"))?;
        t.dtype = src.dtype;
        notes.push(format!(
            "DENSIFY of '{}' folded: '{}' is stored dense in the quantized model",
            src.name, out.name
        ));
    }
    m.subgraphs[0].operators = kept;
    Ok((Some(m), notes))
}

pub(super) fn qerr(what: impl Into<String>, reason: impl Into<String>) -> Error {
    Error::Quantization {
        what: what.into(),
        reason: reason.into(),
    }
}

pub(super) fn f32s(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

pub(super) fn dims(t: &Tensor) -> Vec<usize> {
    t.dims()
        .iter()
        .map(|&d| usize::try_from(d).unwrap_or(0))
        .collect()
}

pub(super) fn per_tensor_q(p: QuantParams) -> Quantization {
    Quantization {
        scale: Some(vec![p.scale]),
        zero_point: Some(vec![i64::from(p.zero_point)]),
        ..Quantization::default()
    }
}

pub(super) fn per_axis_q(scales: Vec<f32>, zero_points: Vec<i64>, axis: usize) -> Quantization {
    Quantization {
        scale: Some(scales),
        zero_point: Some(zero_points),
        quantized_dimension: i32::try_from(axis).unwrap_or(0),
        ..Quantization::default()
    }
}

pub(super) fn simple_op(op: Op, version: i32, input: usize, output: usize) -> Operator {
    Operator::new(
        OpCode::builtin(op, version),
        vec![idx(input)],
        vec![idx(output)],
        BuiltinOptionsT::NONE,
    )
}

/// Tensor index as stored in operators (models never hold 2³¹ tensors; saturate regardless).
pub(super) fn idx(t: usize) -> i32 {
    i32::try_from(t).unwrap_or(i32::MAX)
}

/// Names already used in a subgraph, and TF-style fresh names (`name1`, `name2`, …).
pub(super) struct Names(HashSet<String>);

impl Names {
    pub(super) fn new(sg: &Subgraph) -> Self {
        Names(sg.tensors.iter().map(|t| t.name.clone()).collect())
    }
    /// Names already taken elsewhere (another subgraph of the model).
    pub(super) fn from_names(names: impl IntoIterator<Item = String>) -> Self {
        Names(names.into_iter().collect())
    }
    pub(super) fn fresh(&mut self, base: &str) -> String {
        let mut k = 1usize;
        loop {
            let name = format!("{base}{k}");
            if self.0.insert(name.clone()) {
                return name;
            }
            k += 1;
        }
    }
    pub(super) fn take(&mut self, name: &str) -> String {
        if self.0.insert(name.to_string()) {
            name.to_string()
        } else {
            self.fresh(name)
        }
    }
}

/// Appends a buffer with `data` and returns its index.
pub(super) fn push_buffer(model: &mut Model, data: Vec<u8>) -> u32 {
    model.buffers.push(crate::graph::Buffer { data });
    u32::try_from(model.buffers.len() - 1).unwrap_or(u32::MAX)
}

/// `model` with the float32 constants of subgraph 0 that `constants` names replaced
/// ([`super::QuantizeOptions::constants`]; a buffer shared with another tensor is copied first),
/// or `None` without any.
///
/// # Errors
/// [`crate::error::Error::Quantization`] for a tensor that is not a float32 constant of that
/// size.
pub(super) fn replace_constants(
    model: &Model,
    constants: &[(usize, Vec<u8>)],
) -> Result<Option<Model>> {
    if constants.is_empty() {
        return Ok(None);
    }
    let mut m = model.clone();
    for (t, data) in constants {
        let fits = model.subgraphs[0]
            .tensors
            .get(*t)
            .is_some_and(|x| x.dtype == TensorType::FLOAT32)
            && model
                .tensor_data(0, *t)
                .is_some_and(|d| d.len() == data.len());
        if !fits {
            return Err(qerr(
                format!("tensor {t}"),
                "a replaced constant must be a float32 constant of the same size (internal error)",
            ));
        }
        set_constant_data(&mut m, *t, data.clone());
    }
    Ok(Some(m))
}

/// Sets the data of constant `t` of subgraph 0; a buffer shared with another tensor is left to
/// it and `t` gets a new one.
pub(crate) fn set_constant_data(model: &mut Model, t: usize, data: Vec<u8>) {
    let buf = model.subgraphs[0].tensors[t].buffer;
    let shared = model
        .subgraphs
        .iter()
        .flat_map(|sg| sg.tensors.iter())
        .filter(|x| x.buffer == buf)
        .count()
        > 1;
    if shared {
        model.subgraphs[0].tensors[t].buffer = push_buffer(model, data);
    } else {
        model.buffers[buf as usize].data = data;
    }
}

/// Gives every operator of one builtin code the highest version among them, as TF's writer does
/// (its operator-code table has one entry per builtin op).
pub(super) fn unify_versions(model: &mut Model) {
    let mut max: HashMap<(Op, Option<String>), i32> = HashMap::new();
    let key = |op: &Operator| (op.code.op(), op.code.custom_code.clone());
    for sg in &model.subgraphs {
        for op in &sg.operators {
            let v = max.entry(key(op)).or_insert(op.code.version);
            *v = (*v).max(op.code.version);
        }
    }
    for sg in &mut model.subgraphs {
        for op in &mut sg.operators {
            if let Some(&v) = max.get(&key(op)) {
                op.code.version = v;
            }
        }
    }
}

/// Stores identical constant data once, as TF's writer does (buffer deduplication: tensors with
/// equal bytes share one buffer, whatever their types and parameters), then drops buffers no
/// tensor or metadata refers to any more (buffer 0 stays), renumbering the rest. Buffers that
/// metadata refers to are never shared.
pub(super) fn compact_buffers(model: &mut Model) {
    dedup_tensor_buffers(model);
    let mut used = vec![false; model.buffers.len()];
    if let Some(u) = used.first_mut() {
        *u = true;
    }
    let mark = |b: u32, used: &mut Vec<bool>| {
        if let Some(u) = used.get_mut(b as usize) {
            *u = true;
        }
    };
    for sg in &model.subgraphs {
        for t in &sg.tensors {
            mark(t.buffer, &mut used);
        }
    }
    for m in &model.metadata {
        mark(m.buffer, &mut used);
    }
    for &b in model.metadata_buffer.iter().flatten() {
        if let Ok(b) = u32::try_from(b) {
            mark(b, &mut used);
        }
    }
    let mut remap = vec![0u32; model.buffers.len()];
    let mut kept = Vec::new();
    for (i, b) in std::mem::take(&mut model.buffers).into_iter().enumerate() {
        if used[i] {
            remap[i] = u32::try_from(kept.len()).unwrap_or(u32::MAX);
            kept.push(b);
        }
    }
    model.buffers = kept;
    let re = |b: u32| remap.get(b as usize).copied().unwrap_or(0);
    for sg in &mut model.subgraphs {
        for t in &mut sg.tensors {
            t.buffer = re(t.buffer);
        }
    }
    // Metadata pointing past the buffer list (LiteRT ignores it; `graph::lint` warns) is kept
    // as found, not redirected to buffer 0.
    let n_old = remap.len();
    for m in &mut model.metadata {
        if (m.buffer as usize) < n_old {
            m.buffer = re(m.buffer);
        }
    }
    if let Some(mb) = &mut model.metadata_buffer {
        for b in mb.iter_mut() {
            if let Ok(u) = u32::try_from(*b)
                && (u as usize) < n_old
            {
                *b = i32::try_from(re(u)).unwrap_or(0);
            }
        }
    }
}

/// Points every tensor whose constant data equals an earlier tensor's at that tensor's buffer
/// (the first in subgraph and tensor order keeps its own).
fn dedup_tensor_buffers(model: &mut Model) {
    let mut meta: HashSet<u32> = model.metadata.iter().map(|m| m.buffer).collect();
    meta.extend(
        model
            .metadata_buffer
            .iter()
            .flatten()
            .filter_map(|&b| u32::try_from(b).ok()),
    );
    let mut canon: Vec<u32> = (0..model.buffers.len())
        .map(|b| u32::try_from(b).unwrap_or(u32::MAX))
        .collect();
    {
        let mut first: HashMap<&[u8], u32> = HashMap::new();
        for t in model.subgraphs.iter().flat_map(|sg| &sg.tensors) {
            let b = t.buffer;
            let Some(buf) = model.buffers.get(b as usize) else {
                continue;
            };
            if b == 0 || buf.data.is_empty() || meta.contains(&b) {
                continue;
            }
            canon[b as usize] = *first.entry(buf.data.as_slice()).or_insert(b);
        }
    }
    for t in model.subgraphs.iter_mut().flat_map(|sg| &mut sg.tensors) {
        if let Some(&c) = canon.get(t.buffer as usize) {
            t.buffer = c;
        }
    }
}

pub(super) fn report_tensors(mut report: Report, out: &Model) -> Report {
    for (i, t) in out.subgraphs[0].tensors.iter().enumerate() {
        let q = t.quantization.as_ref();
        report.tensors.push(TensorReport {
            index: i,
            name: t.name.clone(),
            dtype: dtype_name(t.dtype),
            role: if t.buffer != 0 {
                "constant"
            } else {
                "activation"
            }
            .into(),
            scales: q.map(|q| q.scales().to_vec()).unwrap_or_default(),
            zero_points: q.map(|q| q.zero_points().to_vec()).unwrap_or_default(),
            axis: q
                .filter(|q| q.scales().len() > 1)
                .map(|q| q.quantized_dimension),
            ..TensorReport::default()
        });
    }
    report
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::TensorType;

    #[test]
    fn fresh_names_follow_tf() {
        let mut sg = Subgraph::default();
        sg.tensors
            .push(Tensor::new("a", TensorType::FLOAT32, vec![1]));
        sg.tensors
            .push(Tensor::new("a1", TensorType::FLOAT32, vec![1]));
        let mut n = Names::new(&sg);
        assert_eq!(n.fresh("a"), "a2");
        assert_eq!(n.fresh("b"), "b1");
        assert_eq!(n.take("tfl.quantize"), "tfl.quantize");
        assert_eq!(n.take("tfl.quantize"), "tfl.quantize1");
    }

    #[test]
    fn compact_buffers_stores_equal_tensor_data_once_but_never_metadata() {
        use crate::graph::{Buffer, Metadata};
        let mut sg = Subgraph::default();
        for (name, buffer) in [("a", 1), ("b", 2), ("c", 3), ("x", 0), ("d", 5)] {
            let mut t = Tensor::new(name, TensorType::INT32, vec![1]);
            t.buffer = buffer;
            sg.tensors.push(t);
        }
        let data = |v: i32| Buffer {
            data: v.to_le_bytes().to_vec(),
        };
        let mut m = Model {
            subgraphs: vec![sg],
            // 4: unreferenced; 5: empty data (not a constant); 6: metadata, same bytes as 1.
            buffers: vec![
                Buffer::default(),
                data(7),
                data(7),
                data(8),
                data(7),
                Buffer::default(),
                data(7),
            ],
            metadata: vec![Metadata {
                name: Some("m".into()),
                buffer: 6,
            }],
            ..Model::default()
        };
        compact_buffers(&mut m);
        let bufs: Vec<u32> = m.subgraphs[0].tensors.iter().map(|t| t.buffer).collect();
        // a and b share buffer 1; c keeps its own; d's empty buffer is not merged with 0.
        assert_eq!(bufs, vec![1, 1, 2, 0, 3]);
        assert_eq!(m.buffers.len(), 5);
        assert_eq!(m.metadata[0].buffer, 4);
        assert_eq!(m.buffers[4].data, 7i32.to_le_bytes().to_vec());
    }
}
