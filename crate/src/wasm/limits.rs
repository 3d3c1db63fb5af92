//! The page's "Limits" settings: the engine's size [`Limits`] and the largest model file, as
//! plain JS objects (bytes), with the library's defaults and its model-size check.
//!
//! Every binding that prepares a model ([`super::Calibrator`], [`super::run::Runner`],
//! [`super::run::compare_models`], [`check_model`]) takes an optional [`EngineLimits`]; absent
//! means [`Limits::default`]. The runner and the calibrator also take optional [`InputShapes`]
//! (the page's dims control for inputs with dynamic dims; absent = the stored shapes).

use serde::{Deserialize, Serialize};
use wasm_bindgen::prelude::*;

use super::{js_error, to_js};
use crate::engine::{Interpreter, Limits};
use crate::graph::{Model, ShapeOverrides};
use crate::limits::{DEFAULT_MAX_MODEL_BYTES, check_model_size};
use crate::tflite;

/// The engine's size limits, in bytes (see [`Limits`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, tsify::Tsify)]
pub struct EngineLimits {
    /// Largest single tensor.
    pub max_tensor_bytes: usize,
    /// Largest activation arena (all intermediate tensors, with reuse).
    pub max_arena_bytes: usize,
    /// Largest constant store (weights the kernels read, folded constants).
    pub max_constant_bytes: usize,
    /// Most iterations one WHILE may run per invocation (absent: the library's default).
    #[serde(default)]
    #[tsify(optional)]
    pub max_while_iterations: Option<u64>,
}

impl From<EngineLimits> for Limits {
    fn from(l: EngineLimits) -> Self {
        Limits {
            max_tensor_bytes: l.max_tensor_bytes,
            max_arena_bytes: l.max_arena_bytes,
            max_constant_bytes: l.max_constant_bytes,
            max_while_iterations: l
                .max_while_iterations
                .unwrap_or(Limits::default().max_while_iterations),
        }
    }
}

/// The limits a binding was given (an [`EngineLimits`] object), or the defaults when absent
/// (`undefined` or `null`).
///
/// # Errors
/// A JS `Error` when the value is not an [`EngineLimits`] of whole byte counts.
pub fn limits_or_default(limits: Option<JsValue>) -> Result<Limits, JsError> {
    match limits {
        Some(v) if !v.is_undefined() && !v.is_null() => {
            let l: EngineLimits = serde_wasm_bindgen::from_value(v)
                .map_err(|e| JsError::new(&format!("engine limits: {e}")))?;
            Ok(l.into())
        }
        _ => Ok(Limits::default()),
    }
}

/// One input's full shape, by tensor (or signature) name or index.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, tsify::Tsify)]
pub struct InputShape {
    /// The input's tensor name, signature name, or position as a decimal number.
    pub input: String,
    /// Its shape.
    pub dims: Vec<usize>,
}

/// Input shapes for a model with dynamic dims (`zeropoint … --shape/--batch`; the library's
/// [`ShapeOverrides`]): only dims whose `shape_signature` is −1 may change.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, tsify::Tsify)]
pub struct InputShapes {
    /// Full shapes of some inputs.
    #[serde(default)]
    pub shapes: Vec<InputShape>,
    /// Batch for every input with a dynamic dim 0 (those not in `shapes`).
    #[serde(default)]
    #[tsify(optional)]
    pub batch: Option<usize>,
}

/// The shapes a binding was given (an [`InputShapes`] object), or none (`undefined`/`null`).
///
/// # Errors
/// A JS `Error` when the value is not an [`InputShapes`].
pub fn shapes_or_default(shapes: Option<JsValue>) -> Result<ShapeOverrides, JsError> {
    match shapes {
        Some(v) if !v.is_undefined() && !v.is_null() => {
            let s: InputShapes = serde_wasm_bindgen::from_value(v)
                .map_err(|e| JsError::new(&format!("input shapes: {e}")))?;
            Ok(ShapeOverrides {
                shapes: s.shapes.into_iter().map(|s| (s.input, s.dims)).collect(),
                batch: s.batch,
            })
        }
        _ => Ok(ShapeOverrides::default()),
    }
}

/// Reads `model` and applies `shapes` ([`ShapeOverrides::apply`]).
///
/// # Errors
/// The reader's error, or [`crate::Error::InputShape`] for a shape the model does not allow.
pub fn read_shaped(model: &[u8], shapes: &ShapeOverrides) -> Result<Model, JsError> {
    let mut model = tflite::read(model).map_err(js_error)?;
    shapes.apply(&mut model).map_err(js_error)?;
    Ok(model)
}

/// The library's default limits, in bytes (what the CLI uses without `--max-…-mb`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, tsify::Tsify)]
pub struct DefaultLimits {
    /// Largest model file read.
    pub max_model_bytes: usize,
    /// The engine's limits.
    pub engine: EngineLimits,
}

/// The library's default limits (model file, tensor, arena, constants), in bytes.
#[wasm_bindgen(js_name = defaultLimits, unchecked_return_type = "DefaultLimits")]
pub fn default_limits() -> Result<JsValue, JsError> {
    let l = Limits::default();
    let defaults = DefaultLimits {
        max_model_bytes: usize::try_from(DEFAULT_MAX_MODEL_BYTES).unwrap_or(usize::MAX),
        engine: EngineLimits {
            max_tensor_bytes: l.max_tensor_bytes,
            max_arena_bytes: l.max_arena_bytes,
            max_constant_bytes: l.max_constant_bytes,
            max_while_iterations: Some(l.max_while_iterations),
        },
    };
    to_js(&defaults, "default limits")
}

/// Refuses a model file `name` of `size` bytes larger than `max` bytes, before it is read: the
/// CLI's `--max-model-mb` check and message (a JS number is converted with saturation).
#[wasm_bindgen(js_name = checkModelSize)]
pub fn check_model_size_js(name: &str, size: f64, max: f64) -> Result<(), JsError> {
    check_model_size(name, size as u64, max as u64).map_err(js_error)
}

/// One operator the engine cannot run, as `checkModel` reports it to the page's graph.
#[derive(Debug, Clone, PartialEq, Serialize, tsify::Tsify)]
pub struct UnrunnableOp {
    /// Operator index in subgraph 0 (the graph's node).
    pub op_index: usize,
    /// Operator name (`WHILE`, or the custom code).
    pub op_name: String,
    /// Whether the engine has no kernel for it (`false`: it has one, but this use is invalid).
    pub unsupported: bool,
    /// The whole issue, in the CLI's words (`operator 3 (WHILE): unsupported at …`).
    pub message: String,
}

/// What `checkModel` found when preparing the engine.
#[derive(Debug, Clone, PartialEq, Serialize, tsify::Tsify)]
pub struct ModelCheck {
    /// Why the model cannot run, in the CLI's words; absent when it can.
    pub cannot_run: Option<String>,
    /// Every operator at fault, in execution order (empty when the model runs, or when what
    /// stops it is no operator, e.g. a graph input over the limits).
    pub ops: Vec<UnrunnableOp>,
}

/// Reads `model` and prepares the engine for it with `limits` (default if absent), as
/// `zeropoint run` does before its first sample, and says what stops it from running
/// (unsupported or invalid operators — all of them, at once —, a tensor read before it is
/// computed, a tensor or arena over the limits). Throws only when the model does not read.
#[wasm_bindgen(js_name = checkModel, unchecked_return_type = "ModelCheck")]
pub fn check_model(
    model: &[u8],
    #[wasm_bindgen(unchecked_optional_param_type = "EngineLimits")] limits: Option<JsValue>,
) -> Result<JsValue, JsError> {
    let limits = limits_or_default(limits)?;
    let model = tflite::read(model).map_err(js_error)?;
    let check = match Interpreter::with_limits(&model, &limits) {
        Ok(_) => ModelCheck {
            cannot_run: None,
            ops: Vec::new(),
        },
        Err(e) => ModelCheck {
            cannot_run: Some(e.to_string()),
            ops: match &e {
                crate::Error::CannotRun { issues } => issues
                    .iter()
                    // A whole-graph problem is no node of the graph (it is in `cannot_run`).
                    .filter(|i| i.op_name != crate::error::GRAPH)
                    .map(|i| UnrunnableOp {
                        op_index: i.op_index,
                        op_name: i.op_name.clone(),
                        unsupported: i.kind == crate::error::IssueKind::Unsupported,
                        message: i.to_string(),
                    })
                    .collect(),
                _ => Vec::new(),
            },
        },
    };
    to_js(&check, "model check")
}
