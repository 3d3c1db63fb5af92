//! [`Ranges`]: the float range `(min, max)` calibration recorded for each tensor, the input of
//! the full-integer passes — from calibration statistics or from a calibrated model.

use std::collections::{BTreeMap, HashMap};

use crate::error::{Error, Result};
use crate::graph::Model;
use crate::quant::calibrate::CalibrationStats;

/// Per-tensor float ranges `(min, max)` of subgraph 0, by tensor index: what calibration recorded.
/// Those of the subgraphs WHILE / IF run are kept apart, by (subgraph, tensor index)
/// ([`Ranges::of_subgraph`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Ranges {
    ranges: BTreeMap<usize, (f32, f32)>,
    nested: BTreeMap<(usize, usize), (f32, f32)>,
}

impl Ranges {
    /// No ranges (enough for dynamic-range and float16 quantization).
    pub fn new() -> Self {
        Ranges::default()
    }

    /// Records the range of tensor `index` (named `name` in errors).
    ///
    /// # Errors
    /// [`Error::Quantization`] if an end is NaN or infinite or `min > max`.
    pub fn insert(&mut self, index: usize, name: &str, min: f32, max: f32) -> Result<()> {
        self.ranges.insert(index, checked(index, name, min, max)?);
        Ok(())
    }

    /// The recorded range of tensor `index`.
    pub fn get(&self, index: usize) -> Option<(f32, f32)> {
        self.ranges.get(&index).copied()
    }

    /// The ranges of subgraph `s`, keyed by its tensor indices (those of subgraph 0 for `s = 0`).
    pub fn of_subgraph(&self, s: usize) -> Ranges {
        if s == 0 {
            return Ranges {
                ranges: self.ranges.clone(),
                nested: BTreeMap::new(),
            };
        }
        Ranges {
            ranges: self
                .nested
                .range((s, 0)..(s + 1, 0))
                .map(|(&(_, t), &r)| (t, r))
                .collect(),
            nested: BTreeMap::new(),
        }
    }

    /// Number of tensors of subgraph 0 with a range.
    pub fn len(&self) -> usize {
        self.ranges.len()
    }

    /// Whether no tensor of subgraph 0 has a range.
    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    /// The ranges chosen by our calibration (`chosen_min`, `chosen_max` of each tensor) for
    /// `model`.
    ///
    /// # Errors
    /// [`Error::Quantization`] if a tensor index is not in the model, its name differs (statistics
    /// of another model), or a range is not finite.
    pub fn from_calibration(model: &Model, stats: &CalibrationStats) -> Result<Self> {
        let mut r = Ranges::new();
        for t in stats.tensors.iter().chain(&stats.nested) {
            let s = t.subgraph;
            let within = if s == 0 {
                String::new()
            } else {
                format!(" of subgraph {s}")
            };
            let tensors = model.subgraphs.get(s).map_or(&[][..], |s| &s.tensors);
            let Some(mt) = tensors.get(t.index) else {
                return Err(Error::Quantization {
                    what: format!("statistics of tensor {} '{}'{within}", t.index, t.name),
                    reason: format!("the model has only {} tensors there", tensors.len()),
                });
            };
            if mt.name != t.name {
                return Err(Error::Quantization {
                    what: format!("statistics of tensor {} '{}'{within}", t.index, t.name),
                    reason: format!(
                        "the model's tensor {} is named '{}': statistics of another model?",
                        t.index, mt.name
                    ),
                });
            }
            let range = checked(t.index, &t.name, t.chosen_min, t.chosen_max)?;
            if s == 0 {
                r.ranges.insert(t.index, range);
            } else {
                r.nested.insert((s, t.index), range);
            }
        }
        Ok(r)
    }

    /// The min/max TF's calibrator recorded in a calibrated-only model (`model_calibrated.tflite`:
    /// the float model whose tensors carry `quantization.min/max`), matched to `model`'s tensors by
    /// name (by index when names are not unique).
    ///
    /// # Errors
    /// [`Error::Quantization`] if a recorded range is not finite.
    pub fn from_calibrated_model(model: &Model, calibrated: &Model) -> Result<Self> {
        let (Some(sg), Some(csg)) = (model.subgraphs.first(), calibrated.subgraphs.first()) else {
            return Ok(Ranges::new());
        };
        let mut by_name: HashMap<&str, Option<usize>> = HashMap::new();
        for (i, t) in sg.tensors.iter().enumerate() {
            by_name
                .entry(t.name.as_str())
                .and_modify(|e| *e = None)
                .or_insert(Some(i));
        }
        let mut r = Ranges::new();
        for (ci, ct) in csg.tensors.iter().enumerate() {
            let Some(q) = &ct.quantization else { continue };
            let (Some([min]), Some([max])) = (q.min.as_deref(), q.max.as_deref()) else {
                continue;
            };
            let index = match by_name.get(ct.name.as_str()) {
                Some(Some(i)) => *i,
                _ if sg.tensors.get(ci).is_some_and(|t| t.name == ct.name) => ci,
                _ => continue,
            };
            r.insert(index, &ct.name, *min, *max)?;
        }
        Ok(r)
    }
}

/// `(min, max)` when both ends are finite and `min <= max`.
fn checked(index: usize, name: &str, min: f32, max: f32) -> Result<(f32, f32)> {
    if !min.is_finite() || !max.is_finite() || min > max {
        return Err(Error::Quantization {
            what: format!("tensor {index} '{name}'"),
            reason: format!("its calibration range [{min}, {max}] is not a finite range"),
        });
    }
    Ok((min, max))
}
