//! Signatures: a model's named entry points, and running one as LiteRT's
//! `get_signature_runner(key)` does.
//!
//! A signature def names a subgraph and maps names (the keys a SavedModel function's arguments
//! and result dict had) to tensors of it. TF's converter writes one subgraph per signature, in an
//! order of its own (the `signatures` golden has `decode` as subgraph 0), and lists a
//! signature's inputs and outputs sorted by name, not in the subgraph's order.
//!
//! [`list`] describes every signature (a broken one as an error naming it: reading tolerates
//! them, as LiteRT does until one is run); [`resolve`] checks one by key; and
//! [`Interpreter::for_signature`] prepares its subgraph as the entry point, with the
//! interpreter's inputs and outputs in the signature's order and named by its keys, so every
//! caller of [`Interpreter::inputs`] / [`Interpreter::set_input`] / [`Interpreter::output`]
//! runs the signature unchanged.

use super::{Interpreter, Limits, TensorDesc, TensorId};
use crate::error::{Error, Result};
use crate::graph::{Model, SignatureDef, TensorMap, TensorType};
use crate::kernels::{Arithmetic, KernelSet};
use crate::ops::variables::SharedVariables;

/// One named input or output of a signature.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignatureTensor {
    /// The signature's name for it (what LiteRT's signature runner is called with).
    pub name: String,
    /// The tensor in the signature's subgraph.
    pub tensor: TensorId,
    /// The tensor's own name in the model.
    pub tensor_name: String,
    /// Its declared shape (−1 for a dynamic dimension).
    pub shape: Vec<i32>,
    /// Its element type.
    pub dtype: TensorType,
    /// Its position among the subgraph's inputs (outputs).
    pub position: usize,
}

/// A checked signature: its key, its subgraph, and every input and output of that subgraph
/// named once, in the signature's order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signature {
    /// The key (`serving_default`, `encode`, …; empty when the model gives none).
    pub key: String,
    /// The subgraph it runs.
    pub subgraph: usize,
    /// Named inputs, in the signature's order.
    pub inputs: Vec<SignatureTensor>,
    /// Named outputs, in the signature's order.
    pub outputs: Vec<SignatureTensor>,
}

/// The keys of `model`'s signatures, in the model's order.
pub fn keys(model: &Model) -> Vec<String> {
    model.signatures.iter().map(key_of).collect()
}

/// Every signature of `model`, in the model's order; a broken one is its [`Error::Signature`].
pub fn list(model: &Model) -> Vec<Result<Signature>> {
    model.signatures.iter().map(|s| check(model, s)).collect()
}

/// The signature `key` of `model`, checked.
///
/// # Errors
/// [`Error::UnknownSignature`] (listing the keys the model has) when no signature, or more than
/// one, has that key; [`Error::Signature`] when it points to a missing subgraph or tensor, names
/// a tensor that is not an input (output) of its subgraph, names one twice, or leaves one
/// unnamed.
pub fn resolve(model: &Model, key: &str) -> Result<Signature> {
    let mut found = model.signatures.iter().filter(|s| key_of(s) == key);
    match (found.next(), found.next()) {
        (Some(s), None) => check(model, s),
        (Some(_), Some(_)) => Err(Error::Signature {
            key: key.to_string(),
            reason: "the model has more than one signature with this key".to_string(),
        }),
        (None, _) => Err(Error::UnknownSignature {
            key: key.to_string(),
            known: keys(model),
        }),
    }
}

fn key_of(s: &SignatureDef) -> String {
    s.key.clone().unwrap_or_default()
}

/// Checks signature `s` against its subgraph (see [`resolve`]).
fn check(model: &Model, s: &SignatureDef) -> Result<Signature> {
    let key = key_of(s);
    let bad = |reason: String| Error::Signature {
        key: key.clone(),
        reason,
    };
    let index = s.subgraph as usize;
    let sg = model.subgraphs.get(index).ok_or_else(|| {
        bad(format!(
            "it runs subgraph {index}, but the model has {} subgraph(s)",
            model.subgraphs.len()
        ))
    })?;
    let side = |maps: &[TensorMap], ends: &[i32], what: &str| -> Result<Vec<SignatureTensor>> {
        let mut named = vec![false; ends.len()];
        let mut out = Vec::with_capacity(maps.len());
        for m in maps {
            let name = m.name.clone().unwrap_or_default();
            let t = m.tensor as usize;
            let tensor = sg.tensors.get(t).ok_or_else(|| {
                bad(format!(
                    "{what} '{name}' is tensor {t}, but subgraph {index} has {} tensors",
                    sg.tensors.len()
                ))
            })?;
            let position = ends
                .iter()
                .position(|&e| usize::try_from(e).ok() == Some(t))
                .ok_or_else(|| {
                    bad(format!(
                        "{what} '{name}' is tensor {t} '{}', which is not an {what} of subgraph \
                         {index}",
                        tensor.name
                    ))
                })?;
            if std::mem::replace(&mut named[position], true) {
                return Err(bad(format!(
                    "{what} {position} of subgraph {index} ('{}') is named twice",
                    tensor.name
                )));
            }
            out.push(SignatureTensor {
                name,
                tensor: TensorId(t),
                tensor_name: tensor.name.clone(),
                shape: tensor.dims().to_vec(),
                dtype: tensor.dtype,
                position,
            });
        }
        if let Some(p) = named.iter().position(|&n| !n) {
            let t = ends[p];
            let tname = usize::try_from(t)
                .ok()
                .and_then(|t| sg.tensors.get(t))
                .map_or_else(String::new, |x| format!(" '{}'", x.name));
            return Err(bad(format!(
                "{what} {p} of subgraph {index} (tensor {t}{tname}) has no name in the signature"
            )));
        }
        Ok(out)
    };
    let inputs = side(&s.inputs, &sg.inputs, "input")?;
    let outputs = side(&s.outputs, &sg.outputs, "output")?;
    Ok(Signature {
        key: key.clone(),
        subgraph: index,
        inputs,
        outputs,
    })
}

impl Interpreter {
    /// Prepares the subgraph of signature `key` as the entry point, as LiteRT's
    /// `get_signature_runner(key)` does: [`Interpreter::inputs`] and [`Interpreter::outputs`]
    /// are the signature's, in its order, each [`TensorDesc::name`] being the signature's name
    /// for the tensor. Resource variables belong to this interpreter alone.
    ///
    /// # Errors
    /// What [`resolve`] refuses, then what [`Interpreter::with_options`] refuses for that
    /// subgraph.
    pub fn for_signature(
        model: &Model,
        key: &str,
        limits: &Limits,
        kernels: KernelSet,
    ) -> Result<Self> {
        Self::for_signature_with(model, key, limits, kernels, Arithmetic::default())
    }

    /// [`Interpreter::for_signature`] reproducing the integer results of `arithmetic`.
    ///
    /// # Errors
    /// As [`Interpreter::for_signature`].
    pub fn for_signature_with(
        model: &Model,
        key: &str,
        limits: &Limits,
        kernels: KernelSet,
        arithmetic: Arithmetic,
    ) -> Result<Self> {
        let sig = resolve(model, key)?;
        let mut it = Self::prepare_subgraph(
            model,
            sig.subgraph,
            None,
            limits,
            kernels,
            arithmetic,
            &[],
            &super::prepare::Shared::new(false),
            &SharedVariables::default(),
            true,
        )?;
        let reorder = |descs: &[TensorDesc],
                       named: &[SignatureTensor]|
         -> Result<Vec<TensorDesc>> {
            named
                .iter()
                .map(|n| {
                    let d = descs.iter().find(|d| d.id == n.tensor).ok_or_else(|| {
                        Error::Signature {
                            key: sig.key.clone(),
                            reason: format!("tensor '{}' is not held by the engine", n.tensor_name),
                        }
                    })?;
                    Ok(TensorDesc {
                        name: n.name.clone(),
                        ..d.clone()
                    })
                })
                .collect()
        };
        it.inputs = reorder(&it.inputs, &sig.inputs)?;
        it.outputs = reorder(&it.outputs, &sig.outputs)?;
        Ok(it)
    }
}

/// Refuses full-integer quantization (int8, int16x8) of a model with more than one signature
/// calibrated as one entry point (`--data`, `calibrate --data`, the page): each signature needs
/// samples of its own, as TF's representative dataset gives them (`--signature-data` on
/// `quantize` or `calibrate`, whose statistics `quantize --stats` reads;
/// `quant::quantize_signatures`). Dynamic range and float16 need no calibration and keep every signature. A
/// model with one signature (or none) passes.
///
/// # Errors
/// [`Error::Quantization`] naming the signatures.
pub fn refuse_full_integer(model: &Model) -> Result<()> {
    if model.signatures.len() <= 1 {
        return Ok(());
    }
    let names: Vec<String> = keys(model).iter().map(|k| format!("'{k}'")).collect();
    Err(Error::Quantization {
        what: format!(
            "a model with {} signatures ({})",
            names.len(),
            names.join(", ")
        ),
        reason: "full-integer quantization of several signatures calibrates each on its own \
                 samples, as TF's representative dataset gives them: `--signature-data \
                 KEY=X.npy` on `zeropoint quantize`, or on `zeropoint calibrate` and then \
                 `quantize --stats` (or one --data when every signature takes the same inputs; \
                 on the page, the Calibrate tab takes samples for each signature); dynamic range \
                 and float16 keep every signature"
            .to_string(),
    })
}
