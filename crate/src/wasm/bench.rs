//! The benchmark's binding (`npm run bench`, `bench/main.ts`): one prepared interpreter with a
//! chosen kernel set and integer arithmetic (as the page's `Runner`), inputs set from bytes or floats, `invoke()` timed by the page, outputs read
//! back as bytes for the cross-runtime comparison, and the model's MAC count
//! ([`crate::engine::macs`]) for GMAC/s.
//!
//! `invoke()` is a thin call into [`Interpreter::invoke`], which does not allocate; everything else
//! (reading, preparing, copying outputs) happens outside the timed loop.

use serde::Serialize;
use wasm_bindgen::prelude::*;

use super::run::arithmetic_or_default;
use super::{js_error, to_js};
use crate::engine::{Interpreter, Limits, TensorDesc, macs};
use crate::graph::Model;
use crate::graph::dtype::dtype_name;
use crate::kernels::{Arithmetic, KernelSet};
use crate::tflite;

/// A graph input or output as the benchmark sees it: name, shape, element type and, for a
/// quantized tensor, its (first) scale and zero point.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
pub struct BenchTensor {
    /// Tensor name.
    pub name: String,
    /// Shape.
    pub shape: Vec<usize>,
    /// Element type (`FLOAT32`, `INT8`, …).
    pub dtype: String,
    /// Bytes of the tensor.
    pub byte_len: usize,
    /// Scale of a quantized tensor (its first, for per-axis quantization).
    pub scale: Option<f32>,
    /// Zero point of a quantized tensor.
    pub zero_point: Option<i64>,
}

fn describe(model: &Model, d: &TensorDesc) -> BenchTensor {
    let q = model
        .subgraphs
        .first()
        .and_then(|sg| sg.tensors.get(d.id.0))
        .and_then(|t| t.quantization.as_ref());
    BenchTensor {
        name: d.name.clone(),
        shape: d.shape.clone(),
        dtype: dtype_name(d.dtype),
        byte_len: d.byte_len(),
        scale: q
            .and_then(|q| q.scale.as_ref())
            .and_then(|s| s.first().copied()),
        zero_point: q
            .and_then(|q| q.zero_point.as_ref())
            .and_then(|z| z.first().copied()),
    }
}

/// One step of [`BenchSession::profile`]: the operator, its kernel and its mean time.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct BenchStepProfile {
    /// Index of the operator in subgraph 0.
    pub op_index: usize,
    /// Operator name (`CONV_2D`, …).
    pub op: String,
    /// Rust type name of the kernel that runs it (fast kernels are the `Fast…` types).
    pub kernel: String,
    /// Output tensor name.
    pub output: String,
    /// Output shape.
    pub shape: Vec<usize>,
    /// Byte length of each input (0 for an absent optional input).
    pub input_bytes: Vec<usize>,
    /// Mean time per invocation, ms.
    pub ms: f64,
}

/// One model prepared for timing with the reference or the fast kernel set, in the reference or
/// the XNNPACK integer arithmetic.
#[wasm_bindgen]
pub struct BenchSession {
    interpreter: Interpreter,
    inputs: Vec<BenchTensor>,
    outputs: Vec<BenchTensor>,
    macs: u64,
    kernels: KernelSet,
    arithmetic: Arithmetic,
}

#[wasm_bindgen]
impl BenchSession {
    /// Reads and prepares `model` with `kernels` = `"reference"` or `"fast"` (or any other name
    /// [`KernelSet`] parses) and `arithmetic` = `"reference"` (LiteRT's `BUILTIN_REF`, the
    /// default when absent) or `"xnnpack"` (LiteRT's default XNNPACK path), as the page's
    /// `Runner` takes it, with the default size limits.
    #[wasm_bindgen(constructor)]
    pub fn new(
        model: &[u8],
        kernels: &str,
        #[wasm_bindgen(unchecked_optional_param_type = "Arithmetic")] arithmetic: Option<JsValue>,
    ) -> Result<BenchSession, JsError> {
        let kernels: KernelSet = kernels.parse().map_err(|e: String| JsError::new(&e))?;
        let arithmetic = arithmetic_or_default(arithmetic)?;
        let model = tflite::read(model).map_err(js_error)?;
        let interpreter =
            Interpreter::with_arithmetic(&model, &Limits::default(), kernels, arithmetic)
                .map_err(js_error)?;
        let inputs = interpreter
            .inputs()
            .iter()
            .map(|d| describe(&model, d))
            .collect();
        let outputs = interpreter
            .outputs()
            .iter()
            .map(|d| describe(&model, d))
            .collect();
        let macs = macs::count(&model, &interpreter);
        Ok(BenchSession {
            interpreter,
            inputs,
            outputs,
            macs,
            kernels,
            arithmetic,
        })
    }

    /// The integer arithmetic in use: `"reference"` or `"xnnpack"`.
    pub fn arithmetic(&self) -> String {
        match self.arithmetic {
            Arithmetic::Reference => "reference".into(),
            Arithmetic::Xnnpack => "xnnpack".into(),
        }
    }

    /// The kernel set in use: `"reference"`, `"fast"` or `"litert-optimized"`.
    pub fn kernels(&self) -> String {
        match self.kernels {
            KernelSet::Reference => "reference".into(),
            KernelSet::Fast => "fast".into(),
            KernelSet::LiteRtOptimized(_) => "litert-optimized".into(),
        }
    }

    /// Multiply-accumulates of one invocation (CONV_2D, DEPTHWISE_CONV_2D, TRANSPOSE_CONV,
    /// FULLY_CONNECTED; see [`macs::per_op`]), as a JS number (exact below 2^53).
    pub fn macs(&self) -> f64 {
        self.macs as f64
    }

    /// Number of kernels one invocation runs.
    #[wasm_bindgen(js_name = numKernels)]
    pub fn num_kernels(&self) -> usize {
        self.interpreter.num_kernels()
    }

    /// Graph inputs.
    #[wasm_bindgen(unchecked_return_type = "BenchTensor[]")]
    pub fn inputs(&self) -> Result<JsValue, JsError> {
        to_js(&self.inputs, "inputs")
    }

    /// Graph outputs.
    #[wasm_bindgen(unchecked_return_type = "BenchTensor[]")]
    pub fn outputs(&self) -> Result<JsValue, JsError> {
        to_js(&self.outputs, "outputs")
    }

    /// Sets input `index` from little-endian element bytes (exact length).
    #[wasm_bindgen(js_name = setInputBytes)]
    pub fn set_input_bytes(&mut self, index: usize, bytes: &[u8]) -> Result<(), JsError> {
        self.interpreter.set_input(index, bytes).map_err(js_error)
    }

    /// Sets a FLOAT32 input from floats (exact element count).
    #[wasm_bindgen(js_name = setInputF32)]
    pub fn set_input_f32(&mut self, index: usize, values: &[f32]) -> Result<(), JsError> {
        self.interpreter
            .set_input_f32(index, values)
            .map_err(js_error)
    }

    /// Runs the model once on the current inputs (no allocation).
    ///
    /// # Errors
    /// A JS `Error` when a WHILE exceeds its iteration limit (naming the operator).
    pub fn invoke(&mut self) -> Result<(), JsError> {
        self.interpreter.invoke().map_err(js_error)
    }

    /// Runs the model `n` times back to back (one call from JS: the loop overhead is Rust's).
    ///
    /// # Errors
    /// As [`BenchSession::invoke`].
    #[wasm_bindgen(js_name = invokeTimes)]
    pub fn invoke_times(&mut self, n: u32) -> Result<(), JsError> {
        for _ in 0..n {
            self.interpreter.invoke().map_err(js_error)?;
        }
        Ok(())
    }

    /// Per-operator profile: runs the model `reps` times with [`Interpreter::invoke_timed`]
    /// (the clock is `performance.now()`, read between steps) and returns one entry per step in
    /// execution order with its mean time per invocation in ms. Used by
    /// `scripts/profile-ops.mjs`; not part of the timed benchmark.
    #[wasm_bindgen(unchecked_return_type = "BenchStepProfile[]")]
    pub fn profile(&mut self, reps: u32) -> Result<JsValue, JsError> {
        let infos = self.interpreter.step_infos();
        let mut times = vec![0f64; infos.len()];
        for _ in 0..reps {
            self.interpreter
                .invoke_timed(&mut crate::clock::now_ms, &mut times)
                .map_err(js_error)?;
        }
        let reps = f64::from(reps.max(1));
        let steps: Vec<BenchStepProfile> = infos
            .into_iter()
            .zip(times)
            .map(|(i, t)| BenchStepProfile {
                op_index: i.op_index,
                op: i.op_name,
                kernel: i.kernel.to_string(),
                output: i.output,
                shape: i.shape,
                input_bytes: i.inputs,
                ms: t / reps,
            })
            .collect();
        to_js(&steps, "profile")
    }

    /// A copy of output `index`'s bytes.
    #[wasm_bindgen(js_name = outputBytes)]
    pub fn output_bytes(&self, index: usize) -> Result<Vec<u8>, JsError> {
        let view = self.interpreter.output(index).map_err(js_error)?;
        Ok(view.bytes.to_vec())
    }
}

#[cfg(all(test, target_arch = "wasm32"))]
mod tests {
    use super::*;
    use wasm_bindgen_test::wasm_bindgen_test;

    const EXAMPLE: &[u8] = include_bytes!("../../../www/assets/example.tflite");

    #[wasm_bindgen_test]
    fn reference_and_fast_give_the_same_bytes() {
        let mut r = BenchSession::new(EXAMPLE, "reference", None).expect("prepares");
        let mut f = BenchSession::new(EXAMPLE, "fast", None).expect("prepares");
        assert!(r.macs() > 0.0);
        assert_eq!(r.macs(), f.macs());
        let n = r.inputs[0].byte_len / 4;
        let x = crate::quant::inputs::random_data(n, -1.0, 1.0, 7);
        r.set_input_f32(0, &x).expect("input");
        f.set_input_f32(0, &x).expect("input");
        r.invoke().expect("runs");
        f.invoke_times(2).expect("runs");
        let (a, b) = (r.output_bytes(0), f.output_bytes(0));
        assert_eq!(a.ok(), b.ok());
        assert!(BenchSession::new(EXAMPLE, "turbo", None).is_err());
    }

    #[wasm_bindgen_test]
    fn the_arithmetic_is_chosen_by_name() {
        let r = BenchSession::new(EXAMPLE, "fast", None).expect("prepares");
        assert_eq!(r.arithmetic(), "reference");
        let x = BenchSession::new(EXAMPLE, "fast", Some(JsValue::from_str("xnnpack")))
            .expect("prepares");
        assert_eq!(
            (x.kernels(), x.arithmetic()),
            ("fast".into(), "xnnpack".into())
        );
        assert!(BenchSession::new(EXAMPLE, "fast", Some(JsValue::from_str("fp32"))).is_err());
        assert!(BenchSession::new(EXAMPLE, "fast", Some(JsValue::from_f64(1.0))).is_err());
    }
}
