//! Input shapes chosen by the user: the one place where `--shape NAME=1,224,224,3`, `--batch N`
//! and the page's dims control become the shapes the engine prepares with.
//!
//! A model exported with a dynamic batch stores `shape_signature` −1 on that axis and (TF's
//! converter) 1 in `shape`; the engine prepares with `shape`, so dynamic dims default to the
//! stored value. [`ShapeOverrides::apply`] writes the chosen shapes into the graph inputs'
//! `shape` (the signature is kept), and the engine re-derives every downstream shape from them:
//! the SHAPE → STRIDED_SLICE → PACK chains that Keras exports compute reshape targets with then
//! fold to the new values at prepare.
//!
//! The rule is LiteRT's `resize_tensor_input(…, strict=True)` (`ResizeInputTensorStrict`): the
//! rank cannot change, and a dimension may take a new value only where `shape_signature` is −1;
//! a model without a signature has no dimension that may change (asking for the stored value is
//! allowed). Anything else is an [`Error::InputShape`] naming the input and the dimension.

use serde::{Deserialize, Serialize};

use super::Model;
use crate::error::{Error, Result};

/// The input shapes a user chose: explicit shapes by input (name or index) and a batch size for
/// every dynamic axis 0. Empty = the model's stored shapes.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShapeOverrides {
    /// `(input, dims)`: the input's tensor name or signature name, or its position among the
    /// graph inputs as a decimal number; the full shape it should have.
    #[serde(default)]
    pub shapes: Vec<(String, Vec<usize>)>,
    /// Sets axis 0 of every input whose `shape_signature` has −1 there (inputs named in
    /// [`ShapeOverrides::shapes`] keep their explicit shape).
    #[serde(default)]
    pub batch: Option<usize>,
}

/// One graph input's shape before and after the overrides, as `inspect` shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ResolvedInput {
    /// Position among the graph inputs.
    pub index: usize,
    /// Tensor name.
    pub name: String,
    /// The stored shape (TF writes 1 for a dynamic dim).
    pub stored: Vec<i32>,
    /// The `shape_signature` (−1 = dynamic), when the model has one.
    pub signature: Option<Vec<i32>>,
    /// The shape the engine prepares with.
    pub shape: Vec<i32>,
}

impl ResolvedInput {
    /// Whether any dim of this input may be chosen (signature −1).
    pub fn is_dynamic(&self) -> bool {
        self.signature.as_ref().is_some_and(|s| s.contains(&-1))
    }
}

/// Parses one `NAME=D0,D1,…` (`NAME=` alone is a scalar). The name is everything before the last
/// `=`, so tensor names containing `=` still work. Errors are plain text, for argument parsers.
pub fn parse_shape_arg(text: &str) -> std::result::Result<(String, Vec<usize>), String> {
    let (name, dims) = text
        .rsplit_once('=')
        .ok_or_else(|| format!("'{text}' is not NAME=D0,D1,… (e.g. input_1=1,224,224,3)"))?;
    if name.is_empty() {
        return Err(format!("'{text}': the input name (or index) is empty"));
    }
    let dims = dims.trim();
    let dims = if dims.is_empty() {
        Vec::new()
    } else {
        dims.split(',')
            .map(|d| {
                d.trim()
                    .parse::<usize>()
                    .map_err(|_| format!("'{text}': '{d}' is not a dimension (a whole number)"))
            })
            .collect::<std::result::Result<_, _>>()?
    };
    Ok((name.to_string(), dims))
}

impl ShapeOverrides {
    /// No shape chosen: the model's stored shapes.
    pub fn is_empty(&self) -> bool {
        self.shapes.is_empty() && self.batch.is_none()
    }

    /// Every graph input of subgraph 0 with the shape it gets.
    ///
    /// # Errors
    /// [`Error::InputShape`] for a name or index that is no graph input, an input named twice,
    /// another rank, a dimension of 0 or beyond `i32`, or a change to a dimension whose
    /// `shape_signature` is not −1; [`Error::InconsistentTable`] for a model without subgraphs.
    pub fn resolve(&self, model: &Model) -> Result<Vec<ResolvedInput>> {
        let sg = model
            .subgraphs
            .first()
            .ok_or_else(|| Error::InconsistentTable {
                reason: "the model has no subgraph".into(),
            })?;
        let mut resolved: Vec<ResolvedInput> = sg
            .inputs
            .iter()
            .enumerate()
            .map(|(index, &t)| {
                let tensor = usize::try_from(t).ok().and_then(|t| sg.tensors.get(t));
                let stored = tensor.map(|t| t.dims().to_vec()).unwrap_or_default();
                ResolvedInput {
                    index,
                    name: tensor.map(|t| t.name.clone()).unwrap_or_default(),
                    signature: tensor
                        .and_then(|t| t.shape_signature.clone())
                        .filter(|s| !s.is_empty()),
                    shape: stored.clone(),
                    stored,
                }
            })
            .collect();
        let mut explicit = vec![false; resolved.len()];
        for (which, dims) in &self.shapes {
            let i = find_input(model, &resolved, which)?;
            if explicit[i] {
                return Err(Error::InputShape {
                    input: resolved[i].name.clone(),
                    reason: format!("given twice ('{which}')"),
                });
            }
            explicit[i] = true;
            let r = &mut resolved[i];
            if dims.len() != r.stored.len() {
                return Err(Error::InputShape {
                    input: r.name.clone(),
                    reason: format!(
                        "shape {dims:?} has rank {}, the input has rank {} (stored shape {:?})",
                        dims.len(),
                        r.stored.len(),
                        r.stored
                    ),
                });
            }
            for (axis, &d) in dims.iter().enumerate() {
                set_dim(r, axis, d)?;
            }
        }
        if let Some(batch) = self.batch {
            let mut any_dynamic = false;
            for (r, _) in resolved.iter_mut().zip(&explicit).filter(|(_, e)| !**e) {
                if r.signature.as_ref().and_then(|s| s.first()) == Some(&-1) {
                    any_dynamic = true;
                    set_dim(r, 0, batch)?;
                }
            }
            if !any_dynamic
                && let Some(r) = resolved
                    .iter()
                    .zip(&explicit)
                    .find(|(r, e)| {
                        !**e && r.stored.first().map(|&d| d as i64) != Some(batch as i64)
                    })
                    .map(|(r, _)| r)
            {
                return Err(Error::InputShape {
                    input: r.name.clone(),
                    reason: format!(
                        "--batch {batch}: no input has a dynamic batch (shape_signature −1 on \
                         dim 0); this one's shape is {:?}, signature {:?}",
                        r.stored, r.signature
                    ),
                });
            }
        }
        Ok(resolved)
    }

    /// Writes the chosen shapes into `model`'s graph inputs (`shape`; `shape_signature` is
    /// kept), so that the engine prepares with them. Nothing changes when the overrides are
    /// empty.
    ///
    /// # Errors
    /// What [`ShapeOverrides::resolve`] refuses; the model is then unchanged.
    pub fn apply(&self, model: &mut Model) -> Result<()> {
        if self.is_empty() {
            return Ok(());
        }
        let resolved = self.resolve(model)?;
        let Some(sg) = model.subgraphs.first_mut() else {
            return Ok(());
        };
        for (r, &t) in resolved.iter().zip(&sg.inputs) {
            if let Some(tensor) = usize::try_from(t).ok().and_then(|t| sg.tensors.get_mut(t)) {
                tensor.shape = Some(r.shape.clone());
            }
        }
        Ok(())
    }
}

/// The graph input `which` names: a tensor name first, then a signature's input name
/// (`image` for `serving_default_image:0`), else a decimal position.
fn find_input(model: &Model, resolved: &[ResolvedInput], which: &str) -> Result<usize> {
    if let Some(i) = resolved.iter().position(|r| r.name == which) {
        return Ok(i);
    }
    let inputs = model.subgraphs.first().map_or(&[][..], |sg| &sg.inputs);
    let by_signature = model
        .signatures
        .iter()
        .filter(|s| s.subgraph == 0)
        .flat_map(|s| &s.inputs)
        .find(|m| m.name.as_deref() == Some(which))
        .and_then(|m| {
            inputs
                .iter()
                .position(|&t| i64::from(t) == i64::from(m.tensor))
        });
    if let Some(i) = by_signature {
        return Ok(i);
    }
    match which.parse::<usize>() {
        Ok(i) if i < resolved.len() => Ok(i),
        _ => {
            let inputs: Vec<String> = resolved
                .iter()
                .map(|r| format!("{} '{}'", r.index, r.name))
                .collect();
            Err(Error::InputShape {
                input: which.to_string(),
                reason: if inputs.is_empty() {
                    "the model has no graph inputs".into()
                } else {
                    format!(
                        "no graph input has this name or index (inputs: {})",
                        inputs.join(", ")
                    )
                },
            })
        }
    }
}

/// Sets dim `axis` of `r` to `d` under the strict rule (only −1 in the signature may change).
fn set_dim(r: &mut ResolvedInput, axis: usize, d: usize) -> Result<()> {
    let value = i32::try_from(d)
        .ok()
        .filter(|&v| v > 0)
        .ok_or_else(|| Error::InputShape {
            input: r.name.clone(),
            reason: format!(
                "dim {axis} = {d}: a dimension must be between 1 and {}",
                i32::MAX
            ),
        })?;
    let stored = r.stored[axis];
    let signature = r
        .signature
        .as_ref()
        .filter(|s| s.len() == r.stored.len())
        .map_or(stored, |s| s[axis]);
    if signature != -1 && value != stored {
        return Err(Error::InputShape {
            input: r.name.clone(),
            reason: format!(
                "dim {axis} is fixed at {stored} (shape_signature {}); only dims marked −1 may \
                 change, as in LiteRT's resize_tensor_input(strict=True)",
                r.signature
                    .as_ref()
                    .map_or_else(|| "absent".to_string(), |s| format!("{s:?}"))
            ),
        });
    }
    r.shape[axis] = value;
    Ok(())
}

#[cfg(test)]
mod tests;
