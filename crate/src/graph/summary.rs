//! A serialisable summary of a model: what `zeropoint inspect --json` prints and what the page shows.
//!
//! It describes the model's meaning (operators, tensors, quantization, signatures, metadata) and
//! nothing about its byte layout, so a model and its rewrite summarise identically.

use std::collections::BTreeMap;

use serde::Serialize;

use super::{Model, Tensor};
use crate::graph::dtype::dtype_name;

/// Summary of a whole model.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
pub struct ModelSummary {
    /// Schema version.
    pub version: u32,
    /// Description string.
    pub description: Option<String>,
    /// Subgraphs, main graph first.
    pub subgraphs: Vec<SubgraphSummary>,
    /// Operator counts over all subgraphs, most frequent first (ties by name).
    pub operator_counts: Vec<OpCount>,
    /// Signatures.
    pub signatures: Vec<SignatureSummary>,
    /// Metadata entries with their sizes.
    pub metadata: Vec<MetadataSummary>,
    /// Number of buffers.
    pub buffers: usize,
    /// Total bytes of constant data.
    pub constant_bytes: usize,
    /// What reads but is odd ([`super::lint::warnings`]): fields pointing nowhere that LiteRT
    /// ignores, fused activations run as NONE, absurd scales, versions LiteRT refuses.
    pub warnings: Vec<String>,
}

/// How many operators of one kind the model has.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
pub struct OpCount {
    /// Operator name (`CONV_2D`, or the custom code).
    pub op: String,
    /// Count.
    pub count: usize,
}

/// Summary of one subgraph.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
pub struct SubgraphSummary {
    /// Name.
    pub name: Option<String>,
    /// Input tensor indices.
    pub inputs: Vec<i32>,
    /// Output tensor indices.
    pub outputs: Vec<i32>,
    /// Every tensor.
    pub tensors: Vec<TensorSummary>,
    /// Every operator, in execution order.
    pub operators: Vec<OperatorSummary>,
}

/// Summary of one tensor.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
pub struct TensorSummary {
    /// Index in its subgraph.
    pub index: usize,
    /// Name.
    pub name: String,
    /// Static shape.
    pub shape: Vec<i32>,
    /// Shape signature (-1 = dynamic), if the model has one.
    pub shape_signature: Option<Vec<i32>>,
    /// Element type name (`FLOAT32`, `INT8`, …).
    pub dtype: String,
    /// Whether it holds constant data.
    pub is_constant: bool,
    /// Whether it is a variable tensor.
    pub is_variable: bool,
    /// Bytes of constant data.
    pub data_bytes: usize,
    /// Quantization parameters, if any.
    pub quantization: Option<QuantSummary>,
}

/// Quantization parameters of a tensor.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
pub struct QuantSummary {
    /// Scales (one per channel for per-axis quantization).
    pub scale: Vec<f32>,
    /// Zero points.
    pub zero_point: Vec<i64>,
    /// Per-axis dimension.
    pub quantized_dimension: i32,
    /// Recorded minima.
    pub min: Vec<f32>,
    /// Recorded maxima.
    pub max: Vec<f32>,
}

/// Summary of one operator.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
pub struct OperatorSummary {
    /// Index in its subgraph.
    pub index: usize,
    /// Operator name.
    pub op: String,
    /// Operator version.
    pub version: i32,
    /// Custom code, for custom operators.
    pub custom_code: Option<String>,
    /// Input tensor indices (-1 = omitted).
    pub inputs: Vec<i32>,
    /// Output tensor indices.
    pub outputs: Vec<i32>,
}

/// Summary of a signature.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
pub struct SignatureSummary {
    /// Signature key.
    pub key: String,
    /// Subgraph index.
    pub subgraph: u32,
    /// Named inputs.
    pub inputs: Vec<NamedTensor>,
    /// Named outputs.
    pub outputs: Vec<NamedTensor>,
}

/// A named tensor of a signature.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
pub struct NamedTensor {
    /// Name in the signature.
    pub name: String,
    /// Tensor index.
    pub tensor: u32,
}

/// A metadata entry.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
pub struct MetadataSummary {
    /// Name.
    pub name: String,
    /// Size of its buffer in bytes.
    pub bytes: usize,
}

fn tensor_summary(model: &Model, sg: usize, index: usize, t: &Tensor) -> TensorSummary {
    let data_bytes = model.tensor_data(sg, index).map_or(0, <[u8]>::len);
    TensorSummary {
        index,
        name: t.name.clone(),
        shape: t.dims().to_vec(),
        shape_signature: t.shape_signature.clone(),
        dtype: dtype_name(t.dtype),
        is_constant: data_bytes > 0,
        is_variable: t.is_variable,
        data_bytes,
        quantization: t.quantization.as_ref().map(|q| QuantSummary {
            scale: q.scales().to_vec(),
            zero_point: q.zero_points().to_vec(),
            quantized_dimension: q.quantized_dimension,
            min: q.min.clone().unwrap_or_default(),
            max: q.max.clone().unwrap_or_default(),
        }),
    }
}

impl ModelSummary {
    /// Summarises `model`.
    pub fn of(model: &Model) -> Self {
        let mut counts: BTreeMap<String, usize> = BTreeMap::new();
        let subgraphs = model
            .subgraphs
            .iter()
            .enumerate()
            .map(|(si, sg)| SubgraphSummary {
                name: sg.name.clone(),
                inputs: sg.inputs.clone(),
                outputs: sg.outputs.clone(),
                tensors: sg
                    .tensors
                    .iter()
                    .enumerate()
                    .map(|(ti, t)| tensor_summary(model, si, ti, t))
                    .collect(),
                operators: sg
                    .operators
                    .iter()
                    .enumerate()
                    .map(|(oi, op)| {
                        let name = op.code.name();
                        *counts.entry(name.clone()).or_default() += 1;
                        OperatorSummary {
                            index: oi,
                            op: name,
                            version: op.code.version,
                            custom_code: op.code.custom_code.clone(),
                            inputs: op.inputs.clone(),
                            outputs: op.outputs.clone(),
                        }
                    })
                    .collect(),
            })
            .collect();
        let mut operator_counts: Vec<OpCount> = counts
            .into_iter()
            .map(|(op, count)| OpCount { op, count })
            .collect();
        // Stable sort keeps the BTreeMap's name order among equal counts.
        crate::sort::stable_sort_by_key(&mut operator_counts, |c| std::cmp::Reverse(c.count));
        let named = |v: &[super::TensorMap]| {
            v.iter()
                .map(|m| NamedTensor {
                    name: m.name.clone().unwrap_or_default(),
                    tensor: m.tensor,
                })
                .collect()
        };
        ModelSummary {
            version: model.version,
            description: model.description.clone(),
            subgraphs,
            operator_counts,
            signatures: model
                .signatures
                .iter()
                .map(|s| SignatureSummary {
                    key: s.key.clone().unwrap_or_default(),
                    subgraph: s.subgraph,
                    inputs: named(&s.inputs),
                    outputs: named(&s.outputs),
                })
                .collect(),
            metadata: model
                .metadata
                .iter()
                .map(|m| MetadataSummary {
                    name: m.name.clone().unwrap_or_default(),
                    bytes: model
                        .buffers
                        .get(m.buffer as usize)
                        .map_or(0, |b| b.data.len()),
                })
                .collect(),
            buffers: model.buffers.len(),
            constant_bytes: model.constant_bytes(),
            warnings: super::lint::warnings(model),
        }
    }
}
