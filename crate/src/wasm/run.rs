//! Running models in the page: a [`Runner`] (load once, set inputs, invoke, read outputs; the
//! page times `invoke` with `performance.now()`), [`compare_models`] (float vs quantized on the
//! same samples, per tensor, as `zeropoint compare`), and [`debug_panic`], a test hook that
//! panics on purpose so the page's crash recovery can be exercised.

use serde::Serialize;
use wasm_bindgen::prelude::*;

use super::limits::{limits_or_default, shapes_or_default};
use super::{js_error, to_js};
use crate::engine::compare::per_tensor_params;
use crate::engine::{Interpreter, Limits, TensorDesc};
use crate::error::Error;
use crate::graph::dtype::dtype_name;
use crate::graph::{Model, ShapeOverrides, TensorType};
use crate::kernels::{Arithmetic, KernelSet};
use crate::tflite;

/// A model input or output as the page sees it, with its per-tensor quantization.
#[derive(Debug, Clone, PartialEq, Serialize, tsify::Tsify)]
pub struct IoInfo {
    /// Tensor name.
    pub name: String,
    /// Shape.
    pub shape: Vec<usize>,
    /// Element type (`FLOAT32`, `INT8`, …).
    pub dtype: String,
    /// Scale, for integer tensors with per-tensor parameters.
    pub scale: Option<f32>,
    /// Zero point, with `scale`.
    pub zero_point: Option<i64>,
}

fn io_info(model: &Model, sg: usize, d: &TensorDesc) -> IoInfo {
    let params = per_tensor_params(model, sg, d.id.0).filter(|_| d.dtype != TensorType::FLOAT32);
    IoInfo {
        name: d.name.clone(),
        shape: d.shape.clone(),
        dtype: dtype_name(d.dtype),
        scale: params.map(|p| p.0),
        zero_point: params.map(|p| p.1),
    }
}

/// `round(x / scale) + zp`, clamped to the type (LiteRT's `AffineQuantize`, as
/// [`crate::engine::compare`] feeds float samples to a quantized model).
fn quantize_values(x: &[f32], dtype: TensorType, scale: f32, zp: i64) -> Option<Vec<u8>> {
    let q = |v: f32, lo: i64, hi: i64| ((v / scale).round() as i64 + zp).clamp(lo, hi);
    Some(match dtype {
        TensorType::INT8 => x.iter().map(|&v| q(v, -128, 127) as i8 as u8).collect(),
        TensorType::UINT8 => x.iter().map(|&v| q(v, 0, 255) as u8).collect(),
        TensorType::INT16 => x
            .iter()
            .flat_map(|&v| (q(v, -32768, 32767) as i16).to_le_bytes())
            .collect(),
        _ => return None,
    })
}

/// Elements as floats: FLOAT32 as is, integers as `f32(f64(scale) · (q − zp))` (LiteRT's
/// `Dequantize`); `None` for other types or integers without per-tensor parameters.
fn real_values(dtype: TensorType, bytes: &[u8], params: Option<(f32, i64)>) -> Option<Vec<f32>> {
    let deq = |q: i64| params.map(|(s, z)| (f64::from(s) * (q - z) as f64) as f32);
    match dtype {
        TensorType::FLOAT32 => Some(
            bytes
                .chunks_exact(4)
                .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect(),
        ),
        TensorType::INT8 => bytes.iter().map(|&v| deq(i64::from(v as i8))).collect(),
        TensorType::UINT8 => bytes.iter().map(|&v| deq(i64::from(v))).collect(),
        TensorType::INT16 => bytes
            .chunks_exact(2)
            .map(|c| deq(i64::from(i16::from_le_bytes([c[0], c[1]]))))
            .collect(),
        TensorType::INT32 => bytes
            .chunks_exact(4)
            .map(|c| deq(i64::from(i32::from_le_bytes([c[0], c[1], c[2], c[3]]))))
            .collect(),
        _ => None,
    }
}

/// A prepared model for repeated runs: set the inputs, `invoke()` (no allocation), read the
/// outputs. Free it (`free()`) when done.
#[wasm_bindgen]
pub struct Runner {
    model: Model,
    interp: Interpreter,
}

#[wasm_bindgen]
impl Runner {
    /// Reads and prepares a model; `kernels` is `reference` (the default) or `fast`; `limits`
    /// the engine's size limits (default if absent); `shapes` the input shapes for a model with
    /// dynamic dims (the stored shapes if absent); `signature` a signature key to run instead
    /// of subgraph 0 ([`Interpreter::for_signature`]: its subgraph, its inputs and outputs in
    /// its order, named by its keys), which runs at its stored shapes (`shapes` must then be
    /// absent or choose nothing); `arithmetic` the integer arithmetic whose bits the run
    /// reproduces, `reference` (LiteRT's BUILTIN_REF, the default) or `xnnpack` (LiteRT's
    /// default XNNPACK path), as `zeropoint run --arithmetic`.
    #[wasm_bindgen(constructor)]
    pub fn new(
        model: &[u8],
        kernels: Option<String>,
        #[wasm_bindgen(unchecked_optional_param_type = "EngineLimits")] limits: Option<JsValue>,
        #[wasm_bindgen(unchecked_optional_param_type = "InputShapes")] shapes: Option<JsValue>,
        #[wasm_bindgen(unchecked_optional_param_type = "string")] signature: Option<JsValue>,
        #[wasm_bindgen(unchecked_optional_param_type = "Arithmetic")] arithmetic: Option<JsValue>,
    ) -> Result<Runner, JsError> {
        let signature = signature_key(signature)?;
        let arithmetic = arithmetic_or_default(arithmetic)?;
        let limits = limits_or_default(limits)?;
        let kernels: KernelSet = match kernels.as_deref() {
            None => KernelSet::default(),
            Some(name) => name.parse().map_err(|e: String| JsError::new(&e))?,
        };
        let shapes = shapes_or_default(shapes)?;
        let (model, interp) = prepare(
            model,
            &shapes,
            &limits,
            (kernels, arithmetic),
            signature.as_deref(),
        )
        .map_err(js_error)?;
        Ok(Runner { model, interp })
    }

    /// The model's inputs: IoInfo[].
    #[wasm_bindgen(unchecked_return_type = "IoInfo[]")]
    pub fn inputs(&self) -> Result<JsValue, JsError> {
        let infos: Vec<IoInfo> = self
            .interp
            .inputs()
            .iter()
            .map(|d| io_info(&self.model, self.interp.subgraph(), d))
            .collect();
        to_js(&infos, "inputs")
    }

    /// The model's outputs: IoInfo[].
    #[wasm_bindgen(unchecked_return_type = "IoInfo[]")]
    pub fn outputs(&self) -> Result<JsValue, JsError> {
        let infos: Vec<IoInfo> = self
            .interp
            .outputs()
            .iter()
            .map(|d| io_info(&self.model, self.interp.subgraph(), d))
            .collect();
        to_js(&infos, "outputs")
    }

    /// Sets input `index` from float values: as is for a FLOAT32 input, quantized with the
    /// input's scale and zero point for an INT8 / UINT8 / INT16 one.
    #[wasm_bindgen(js_name = setInput)]
    pub fn set_input(&mut self, index: usize, values: &[f32]) -> Result<(), JsError> {
        self.set_input_f32(index, values).map_err(js_error)
    }

    /// Sets input `index` from its raw little-endian element bytes.
    #[wasm_bindgen(js_name = setInputBytes)]
    pub fn set_input_bytes(&mut self, index: usize, bytes: &[u8]) -> Result<(), JsError> {
        self.interp.set_input(index, bytes).map_err(js_error)
    }

    /// Runs the model once on the inputs set. A model with resource variables (a streaming
    /// model) keeps its state from one call to the next: successive calls are consecutive frames.
    ///
    /// # Errors
    /// A JS `Error` when a WHILE exceeds its iteration limit (naming the operator).
    pub fn invoke(&mut self) -> Result<(), JsError> {
        self.interp.invoke().map_err(js_error)
    }

    /// Whether the model keeps state between calls (resource variables).
    #[wasm_bindgen(getter, js_name = isStateful)]
    pub fn is_stateful(&self) -> bool {
        self.interp.has_variables()
    }

    /// Resets the model's state to that of a freshly loaded model (resource variables and
    /// CALL_ONCE: the next `invoke` starts a new stream). No effect on a model without state.
    #[wasm_bindgen(js_name = resetState)]
    pub fn reset_state(&mut self) {
        self.interp.reset_variables();
    }

    /// Output `index` as floats (integer outputs dequantized with their scale and zero point).
    #[wasm_bindgen(js_name = outputFloat)]
    pub fn output_float(&self, index: usize) -> Result<Vec<f32>, JsError> {
        let d = self
            .interp
            .outputs()
            .get(index)
            .ok_or_else(|| js_error(no_such("output", index, self.interp.outputs().len())))?;
        let view = self.interp.output(index).map_err(js_error)?;
        real_values(
            view.dtype,
            view.bytes,
            per_tensor_params(&self.model, self.interp.subgraph(), d.id.0),
        )
        .ok_or_else(|| {
            JsError::new(&format!(
                "output {index} '{}' ({}) cannot be shown as real numbers",
                d.name,
                dtype_name(d.dtype)
            ))
        })
    }

    /// Output `index` as raw little-endian element bytes.
    #[wasm_bindgen(js_name = outputBytes)]
    pub fn output_bytes(&self, index: usize) -> Result<Vec<u8>, JsError> {
        Ok(self.interp.output(index).map_err(js_error)?.bytes.to_vec())
    }
}

impl Runner {
    /// [`Runner::set_input`] with the crate's error.
    ///
    /// # Errors
    /// No such input, a wrong element count, or an input type floats cannot be converted to.
    pub fn set_input_f32(&mut self, index: usize, values: &[f32]) -> crate::Result<()> {
        let d = self
            .interp
            .inputs()
            .get(index)
            .ok_or_else(|| no_such("input", index, self.interp.inputs().len()))?
            .clone();
        if d.dtype == TensorType::FLOAT32 {
            return self.interp.set_input_f32(index, values);
        }
        let mismatch = |expected: String| Error::TensorMismatch {
            what: format!("input {index}"),
            tensor: d.name.clone(),
            expected,
            got: format!("{} float values", values.len()),
        };
        if values.len() != d.num_elements() {
            return Err(mismatch(d.describe()));
        }
        let (scale, zp) = per_tensor_params(&self.model, self.interp.subgraph(), d.id.0)
            .ok_or_else(|| mismatch("per-tensor quantization parameters".into()))?;
        let bytes = quantize_values(values, d.dtype, scale, zp)
            .ok_or_else(|| mismatch("a FLOAT32, INT8, UINT8 or INT16 input".into()))?;
        self.interp.set_input(index, &bytes)
    }
}

/// An optional signature key from JS (`undefined` / `null`: none).
fn signature_key(v: Option<JsValue>) -> Result<Option<String>, JsError> {
    match v {
        Some(v) if !v.is_undefined() && !v.is_null() => v
            .as_string()
            .map(Some)
            .ok_or_else(|| JsError::new("signature: a key (string) was expected")),
        _ => Ok(None),
    }
}

#[wasm_bindgen(typescript_custom_section)]
const ARITHMETIC_TS: &str = r#"
/** The integer arithmetic a run reproduces: LiteRT's reference kernels (`BUILTIN_REF`) or its default XNNPACK path. */
export type Arithmetic = "reference" | "xnnpack";
"#;

/// An optional arithmetic name from JS (`undefined` / `null`: [`Arithmetic::default`]).
pub(super) fn arithmetic_or_default(v: Option<JsValue>) -> Result<Arithmetic, JsError> {
    match v {
        Some(v) if !v.is_undefined() && !v.is_null() => v
            .as_string()
            .ok_or_else(|| JsError::new("arithmetic: 'reference' or 'xnnpack' was expected"))?
            .parse()
            .map_err(|e: String| JsError::new(&e)),
        _ => Ok(Arithmetic::default()),
    }
}

/// Reads `bytes` and prepares subgraph 0 at `shapes`, or signature `key` at its stored shapes,
/// with the given kernel set and arithmetic.
fn prepare(
    bytes: &[u8],
    shapes: &ShapeOverrides,
    limits: &Limits,
    (kernels, arithmetic): (KernelSet, Arithmetic),
    key: Option<&str>,
) -> crate::Result<(Model, Interpreter)> {
    let mut model = tflite::read(bytes)?;
    let Some(key) = key else {
        shapes.apply(&mut model)?;
        let interp = Interpreter::with_arithmetic(&model, limits, kernels, arithmetic)?;
        return Ok((model, interp));
    };
    if !shapes.shapes.is_empty() || shapes.batch.is_some() {
        return Err(Error::Signature {
            key: key.to_string(),
            reason: "input shapes chosen for subgraph 0 cannot be combined with a signature \
                     (the signature runs at its stored shapes)"
                .to_string(),
        });
    }
    let interp = Interpreter::for_signature_with(&model, key, limits, kernels, arithmetic)?;
    Ok((model, interp))
}

fn no_such(what: &'static str, index: usize, count: usize) -> Error {
    Error::NoSuchIndex { what, index, count }
}

use crate::engine::compare::TensorError;

/// [`compare_models`] without the JS conversions: `data` holds whole samples, each the float
/// model's inputs one after the other in input order.
///
/// # Errors
/// Unreadable models, `data` not a whole number of samples, or what
/// [`crate::engine::compare::compare_models`] refuses.
pub fn compare_with(
    float_model: &[u8],
    quant_model: &[u8],
    data: &[f32],
) -> crate::Result<Vec<TensorError>> {
    compare_with_limits(
        float_model,
        quant_model,
        data,
        &Limits::default(),
        &ShapeOverrides::default(),
        None,
        Arithmetic::default(),
    )
}

/// [`compare_with`] with the user's size [`Limits`] and input shapes (applied to both models),
/// or for signature `signature` of both, the quantized model run with `arithmetic`: both models
/// are prepared first, so a model over a limit (or an operator `arithmetic` refuses) is refused
/// naming the tensor (or the arena) before the comparison.
///
/// # Errors
/// As [`compare_with`], [`Error::TooLarge`] / [`Error::CannotRun`] for a model over the limits,
/// [`Error::InputShape`] for shapes a model does not allow, an unknown or broken signature,
/// an operator `arithmetic` cannot run.
pub fn compare_with_limits(
    float_model: &[u8],
    quant_model: &[u8],
    data: &[f32],
    limits: &Limits,
    shapes: &ShapeOverrides,
    signature: Option<&str>,
    arithmetic: Arithmetic,
) -> crate::Result<Vec<TensorError>> {
    let kernels = KernelSet::default();
    let (f, fi) = prepare(
        float_model,
        shapes,
        limits,
        (kernels, Arithmetic::default()),
        signature,
    )?;
    let (q, _) = prepare(
        quant_model,
        shapes,
        limits,
        (kernels, arithmetic),
        signature,
    )?;
    let sizes: Vec<usize> = fi.inputs().iter().map(TensorDesc::num_elements).collect();
    let per_sample: usize = sizes.iter().sum();
    if per_sample == 0 || data.is_empty() || !data.len().is_multiple_of(per_sample) {
        return Err(Error::TensorMismatch {
            what: "comparison samples".into(),
            tensor: String::new(),
            expected: format!("a multiple of {per_sample} values (the float model's inputs)"),
            got: format!("{} values", data.len()),
        });
    }
    let samples: Vec<Vec<Vec<f32>>> = data
        .chunks_exact(per_sample)
        .map(|sample| {
            let mut rest = sample;
            sizes
                .iter()
                .map(|&n| {
                    let (head, tail) = rest.split_at(n);
                    rest = tail;
                    head.to_vec()
                })
                .collect()
        })
        .collect();
    match signature {
        Some(key) => {
            crate::engine::compare::compare_signature(&f, &q, key, &samples, limits, arithmetic)
        }
        None => crate::engine::compare::compare_models_in(&f, &q, &samples, kernels, arithmetic),
    }
}

/// Runs the float and the quantized model on the same float samples and returns, for every
/// tensor present in both (matched by name, in the quantized model's execution order), the SQNR
/// and the largest error, as `zeropoint compare --json`. `data` holds whole samples, each the
/// float model's inputs one after the other (at `shapes`, when given; or the inputs of
/// signature `signature`, in its order, when given). The quantized model runs with
/// `arithmetic` (`reference`, the default, or `xnnpack`), as `zeropoint compare --arithmetic`.
#[wasm_bindgen(js_name = compareModels, unchecked_return_type = "TensorError[]")]
pub fn compare_models(
    float_model: &[u8],
    quant_model: &[u8],
    data: &[f32],
    #[wasm_bindgen(unchecked_optional_param_type = "EngineLimits")] limits: Option<JsValue>,
    #[wasm_bindgen(unchecked_optional_param_type = "InputShapes")] shapes: Option<JsValue>,
    #[wasm_bindgen(unchecked_optional_param_type = "string")] signature: Option<JsValue>,
    #[wasm_bindgen(unchecked_optional_param_type = "Arithmetic")] arithmetic: Option<JsValue>,
) -> Result<JsValue, JsError> {
    let limits = limits_or_default(limits)?;
    let shapes = shapes_or_default(shapes)?;
    let signature = signature_key(signature)?;
    let arithmetic = arithmetic_or_default(arithmetic)?;
    let rows = compare_with_limits(
        float_model,
        quant_model,
        data,
        &limits,
        &shapes,
        signature.as_deref(),
        arithmetic,
    )
    .map_err(js_error)?;
    to_js(&rows, "comparison")
}

/// **Test hook, not for use:** panics on purpose with `message`, so the page's end-to-end test
/// can check that a Rust panic (a wasm trap) is caught, the worker restarted and the loaded
/// model kept. Nothing in the page calls it; the e2e calls it through `window.zeropoint`.
#[wasm_bindgen(js_name = debugPanic)]
pub fn debug_panic(message: &str) {
    panic!("debugPanic (test hook): {message}");
}

#[cfg(all(test, target_arch = "wasm32"))]
mod tests {
    use super::*;
    use wasm_bindgen_test::wasm_bindgen_test;

    #[wasm_bindgen_test]
    fn quantize_and_dequantize_match_litert() {
        let q =
            quantize_values(&[0.0, 0.26, -0.25, 100.0], TensorType::INT8, 0.5, 3).expect("int8");
        assert_eq!(
            q.iter().map(|&v| v as i8).collect::<Vec<_>>(),
            [3, 4, 2, 127]
        );
        let u = quantize_values(&[-100.0, 1.0], TensorType::UINT8, 0.5, 128).expect("uint8");
        assert_eq!(u, [0, 130]);
        assert_eq!(
            real_values(TensorType::INT8, &[0, 2, 254], Some((0.5, 2))),
            Some(vec![-1.0, 0.0, -2.0])
        );
        assert_eq!(real_values(TensorType::INT8, &[0], None), None);
        assert_eq!(quantize_values(&[1.0], TensorType::FLOAT32, 1.0, 0), None);
    }
}
