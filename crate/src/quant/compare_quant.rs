//! Two quantized models of the same float model side by side — ours and a reference (TF's) —
//! tensor for tensor: element type, scales, zero points, axis and constant data, equal or not,
//! and the operators one has and the other lacks. With the float model and samples, each
//! matched tensor's SQNR against the float model in both (so a scale twice as coarse shows up
//! as ~6 dB at the tensor that has it).
//!
//! Tensors are matched by name first; a tensor whose name the other model lacks is matched by
//! position: the k-th operator of a builtin code in one model with the k-th of that code in the
//! other, input and output slot by slot. What matches neither way is listed on its side.
//!
//! Used by `zeropoint compare-quant`; plain data in and out, so the page can call it too.

use std::collections::{BTreeMap, HashMap};

use crate::engine::compare::compare_models;
use crate::error::Result;
use crate::graph::dtype::dtype_name;
use crate::graph::{Model, Subgraph};

/// One tensor of ours matched with one of the reference.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct TensorMatch {
    /// Name in our model.
    pub name: String,
    /// Name in the reference model (differs when matched by position).
    pub reference_name: String,
    /// `"name"` or `"position"`.
    pub matched_by: &'static str,
    /// Index in our subgraph 0.
    pub tensor: usize,
    /// Index in the reference's subgraph 0.
    pub reference_tensor: usize,
    /// Our element type.
    pub dtype: String,
    /// The reference's element type.
    pub reference_dtype: String,
    /// Our scales (empty when not quantized).
    pub scales: Vec<f32>,
    /// The reference's scales.
    pub reference_scales: Vec<f32>,
    /// Our zero points.
    pub zero_points: Vec<i64>,
    /// The reference's zero points.
    pub reference_zero_points: Vec<i64>,
    /// Whether both are constants with equal bytes (`None` when either is not a constant).
    pub data_equal: Option<bool>,
    /// Type, scale bits, zero points, axis and (for constants) data all equal.
    pub equal: bool,
    /// SQNR (dB) of our tensor against the float model's, when samples were given.
    pub sqnr_db: Option<f64>,
    /// SQNR (dB) of the reference's tensor against the float model's.
    pub reference_sqnr_db: Option<f64>,
}

/// The comparison: matched tensors in our execution order, what is on one side only.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct QuantComparison {
    /// Every matched tensor.
    pub tensors: Vec<TensorMatch>,
    /// Names of our tensors without a match.
    pub only_ours: Vec<String>,
    /// Names of the reference's tensors without a match.
    pub only_reference: Vec<String>,
    /// Operator counts that differ: `(operator, ours, reference)`.
    pub op_counts: Vec<(String, usize, usize)>,
    /// Operators in our model / in the reference.
    pub ops: (usize, usize),
}

impl QuantComparison {
    /// Matched tensors with everything equal.
    pub fn equal_count(&self) -> usize {
        self.tensors.iter().filter(|t| t.equal).count()
    }
}

fn params(sg: &Subgraph, t: usize) -> (Vec<f32>, Vec<i64>, i32) {
    sg.tensors[t]
        .quantization
        .as_ref()
        .map_or((Vec::new(), Vec::new(), 0), |q| {
            (
                q.scales().to_vec(),
                q.zero_points().to_vec(),
                q.quantized_dimension,
            )
        })
}

/// Compares `ours` with `reference` (subgraph 0 of each), parameters only.
pub fn compare_quantized(ours: &Model, reference: &Model) -> QuantComparison {
    let (Some(a), Some(b)) = (ours.subgraphs.first(), reference.subgraphs.first()) else {
        return QuantComparison::default();
    };
    let mut pairs: Vec<(usize, usize, &'static str)> = Vec::new();
    let mut used_a = vec![false; a.tensors.len()];
    let mut used_b = vec![false; b.tensors.len()];
    let mut by_name_b: HashMap<&str, Option<usize>> = HashMap::new();
    for (i, t) in b.tensors.iter().enumerate() {
        by_name_b
            .entry(t.name.as_str())
            .and_modify(|e| *e = None)
            .or_insert(Some(i));
    }
    for (i, t) in a.tensors.iter().enumerate() {
        if let Some(Some(j)) = by_name_b.get(t.name.as_str()) {
            pairs.push((i, *j, "name"));
            used_a[i] = true;
            used_b[*j] = true;
        }
    }
    // By position: the k-th operator of each code in both, slot by slot.
    let mut seen_b: HashMap<String, Vec<usize>> = HashMap::new();
    for (o, op) in b.operators.iter().enumerate() {
        seen_b.entry(op.code.name()).or_default().push(o);
    }
    let mut k_a: HashMap<String, usize> = HashMap::new();
    for op in &a.operators {
        let name = op.code.name();
        let k = k_a.entry(name.clone()).or_default();
        let Some(&ob) = seen_b.get(&name).and_then(|v| v.get(*k)) else {
            *k += 1;
            continue;
        };
        *k += 1;
        let opb = &b.operators[ob];
        let slots = op
            .inputs
            .iter()
            .zip(&opb.inputs)
            .chain(op.outputs.iter().zip(&opb.outputs));
        for (&x, &y) in slots {
            let (Ok(x), Ok(y)) = (usize::try_from(x), usize::try_from(y)) else {
                continue;
            };
            if x < used_a.len() && y < used_b.len() && !used_a[x] && !used_b[y] {
                used_a[x] = true;
                used_b[y] = true;
                pairs.push((x, y, "position"));
            }
        }
    }
    // Our execution order: graph inputs, then each operator's inputs and outputs.
    let mut rank = vec![usize::MAX; a.tensors.len()];
    let mut next = 0usize;
    let order = a.inputs.iter().chain(
        a.operators
            .iter()
            .flat_map(|op| op.inputs.iter().chain(&op.outputs)),
    );
    for &t in order {
        if let Some(r) = usize::try_from(t).ok().and_then(|t| rank.get_mut(t))
            && *r == usize::MAX
        {
            *r = next;
            next += 1;
        }
    }
    crate::sort::stable_sort_by_key(&mut pairs, |p| (rank[p.0], p.0));
    let tensors = pairs
        .into_iter()
        .map(|(i, j, how)| {
            let (ta, tb) = (&a.tensors[i], &b.tensors[j]);
            let (sa, za, axa) = params(a, i);
            let (sb, zb, axb) = params(b, j);
            let data_equal = match (ours.tensor_data(0, i), reference.tensor_data(0, j)) {
                (Some(x), Some(y)) => Some(x == y),
                _ => None,
            };
            let bits = |s: &[f32]| s.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
            let equal = ta.dtype == tb.dtype
                && bits(&sa) == bits(&sb)
                && za == zb
                && (sa.len() <= 1 || axa == axb)
                && data_equal != Some(false)
                && (ours.tensor_data(0, i).is_some() == reference.tensor_data(0, j).is_some());
            TensorMatch {
                name: ta.name.clone(),
                reference_name: tb.name.clone(),
                matched_by: how,
                tensor: i,
                reference_tensor: j,
                dtype: dtype_name(ta.dtype).to_string(),
                reference_dtype: dtype_name(tb.dtype).to_string(),
                scales: sa,
                reference_scales: sb,
                zero_points: za,
                reference_zero_points: zb,
                data_equal,
                equal,
                sqnr_db: None,
                reference_sqnr_db: None,
            }
        })
        .collect();
    let unmatched = |sg: &Subgraph, used: &[bool]| {
        sg.tensors
            .iter()
            .zip(used)
            .filter(|(_, u)| !**u)
            .map(|(t, _)| t.name.clone())
            .collect::<Vec<_>>()
    };
    let count = |sg: &Subgraph| {
        let mut m: BTreeMap<String, usize> = BTreeMap::new();
        for op in &sg.operators {
            *m.entry(op.code.name()).or_default() += 1;
        }
        m
    };
    let (ca, cb) = (count(a), count(b));
    let names: std::collections::BTreeSet<&String> = ca.keys().chain(cb.keys()).collect();
    let op_counts: Vec<(String, usize, usize)> = names
        .into_iter()
        .map(|k| {
            (
                k.clone(),
                ca.get(k).copied().unwrap_or(0),
                cb.get(k).copied().unwrap_or(0),
            )
        })
        .filter(|(_, x, y)| x != y)
        .collect();
    QuantComparison {
        tensors,
        only_ours: unmatched(a, &used_a),
        only_reference: unmatched(b, &used_b),
        op_counts,
        ops: (a.operators.len(), b.operators.len()),
    }
}

/// [`compare_quantized`] plus each matched tensor's SQNR against `float` on `samples`
/// (`samples[s][i]`: float values of input `i`), for ours and for the reference (tensors matched
/// to the float model by name, as `zeropoint compare` does).
///
/// # Errors
/// What [`compare_models`] reports (a model the engine cannot run, inputs that do not fit).
pub fn compare_quantized_on(
    ours: &Model,
    reference: &Model,
    float: &Model,
    samples: &[Vec<Vec<f32>>],
) -> Result<QuantComparison> {
    let mut c = compare_quantized(ours, reference);
    let sqnr = |m: &Model| -> Result<HashMap<usize, f64>> {
        Ok(compare_models(float, m, samples)?
            .into_iter()
            .map(|e| (e.quant_tensor, e.sqnr_db))
            .collect())
    };
    let (sa, sb) = (sqnr(ours)?, sqnr(reference)?);
    for t in &mut c.tensors {
        t.sqnr_db = sa.get(&t.tensor).copied();
        t.reference_sqnr_db = sb.get(&t.reference_tensor).copied();
    }
    Ok(c)
}
