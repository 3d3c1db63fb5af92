//! `int4_weights`: INT4 weights (two to a byte) as AI Edge Quantizer writes them, made by
//! `tests/tools/realworld/int4.py` from TF 2.21's one-layer conversions. Each variant holds one
//! INT4 constant with an odd element count (the last byte half used) and both −8 and 7; the
//! reader keeps it, `inspect`'s summary names its type, and rewriting keeps its bytes. Where
//! LiteRT 2.3 runs it with a defined result (FULLY_CONNECTED and CONV_2D int8 / 16x8 / hybrid,
//! DEPTHWISE_CONV_2D int8, DEQUANTIZE, hybrid EMBEDDING_LOOKUP with 5 columns, so odd rows start
//! mid-byte), the engine gives LiteRT's BUILTIN_REF outputs bit for bit
//! on every sample with the reference and the default kernel sets; where LiteRT refuses it (hybrid
//! DEPTHWISE_CONV_2D, TRANSPOSE_CONV) or runs it without unpacking (16x8 DEPTHWISE_CONV_2D), the
//! engine refuses it with a typed error naming the operator and the INT4 tensor.

use super::{manifest, model_file, npy_bytes, root};
use zeropoint::Error;
use zeropoint::engine::{Interpreter, Limits};
use zeropoint::graph::TensorType;
use zeropoint::graph::dtype::unpack_int4;
use zeropoint::graph::summary::ModelSummary;
use zeropoint::kernels::KernelSet;
use zeropoint::tflite;

const NAME: &str = "int4_weights";
/// Samples stacked in each `input_<variant>_0.npy`.
const SAMPLES: usize = 2;

/// One sample's slice of a stacked `.npy` file.
fn sample(all: &[u8], s: usize) -> &[u8] {
    let n = all.len() / SAMPLES;
    &all[s * n..(s + 1) * n]
}

#[test]
fn int4_weights_match_litert_or_are_refused_naming_the_tensor() {
    let entry = manifest()
        .into_iter()
        .find(|e| e.name == NAME)
        .expect("int4_weights in the manifest");
    let variants = entry
        .int4
        .as_ref()
        .and_then(|v| v.as_object())
        .expect("int4_variants");
    let (mut ran, mut refused) = (Vec::new(), Vec::new());
    for (variant, info) in variants {
        let file = format!("model_{variant}.tflite");
        let (_, m) = model_file(NAME, &file);
        let sg = &m.subgraphs[0];
        let int4: Vec<usize> = (0..sg.tensors.len())
            .filter(|&t| sg.tensors[t].dtype == TensorType::INT4)
            .collect();
        assert_eq!(int4.len(), 1, "{variant}: one INT4 tensor");
        let t = int4[0];
        let tensor = &sg.tensors[t];
        let n = tensor.num_elements().expect("element count");
        assert_eq!(
            n % 2,
            1,
            "{variant}: an odd count (the last byte half used)"
        );
        let packed = m.tensor_data(0, t).expect("a constant");
        assert_eq!(packed.len(), n.div_ceil(2), "{variant}: two to a byte");
        let values = unpack_int4(packed, n).expect("unpacks");
        assert!(
            values.contains(&-8) && values.contains(&7),
            "{variant}: both ends of the range"
        );
        // `inspect` names the type; rewriting keeps the model and the packed bytes.
        let summary = ModelSummary::of(&m);
        assert_eq!(summary.subgraphs[0].tensors[t].dtype, "INT4", "{variant}");
        let again = tflite::write(&m).unwrap_or_else(|e| panic!("{variant}: write: {e}"));
        let back = tflite::read(&again).unwrap_or_else(|e| panic!("{variant}: re-read: {e}"));
        assert!(
            back == m,
            "{variant}: read → write → read changed the model"
        );
        assert_eq!(
            back.tensor_data(0, t),
            Some(packed),
            "{variant}: bytes kept"
        );

        let op = info["op"].as_str().expect("op");
        let defined =
            info["litert_runs"].as_bool() == Some(true) && info["litert_undefined"].is_null();
        let dir = root().join(NAME);
        for kernels in [KernelSet::Reference, KernelSet::default()] {
            match Interpreter::with_options(&m, &Limits::default(), kernels) {
                Ok(mut it) => {
                    assert!(
                        defined,
                        "{variant}: LiteRT has no result for it, we run it?"
                    );
                    let (x, _) = npy_bytes(&dir.join(format!("input_{variant}_0.npy")));
                    let (want, _) =
                        npy_bytes(&dir.join(format!("expected_{variant}_output_0.npy")));
                    for s in 0..SAMPLES {
                        it.set_input(0, sample(&x, s)).expect("input");
                        it.invoke().expect("invoke");
                        let got = it.output(0).expect("output");
                        assert!(
                            got.bytes == sample(&want, s),
                            "{variant} sample {s} ({kernels:?}): differs from LiteRT"
                        );
                    }
                }
                Err(Error::CannotRun { issues }) => {
                    assert!(!defined, "{variant} ({kernels:?}): refused: {issues:?}");
                    let text = Error::CannotRun { issues }.to_string();
                    for part in [op, tensor.name.as_str(), "INT4"] {
                        assert!(text.contains(part), "{variant}: names {part}: {text}");
                    }
                }
                Err(other) => panic!("{variant}: not a typed CannotRun: {other}"),
            }
        }
        if defined {
            ran.push(variant.clone());
        } else {
            refused.push(variant.clone());
        }
    }
    assert_eq!(ran.len(), 15, "ran: {ran:?}");
    assert_eq!(
        refused,
        ["dw_16x8_pc", "dw_hybrid_pc", "tconv_int8_pc"],
        "refused"
    );
}

/// `quantize --mode dynamic-int4` of `model_aeq_float.tflite` (conv → depthwise → dense) equals AI
/// Edge Quantizer 0.10's dynamic INT4 recipe on it, per channel and per tensor: the same INT4
/// tensors (FULLY_CONNECTED and CONV_2D weights; the depthwise weights stay float), packed bytes,
/// scales, zero points and axis; and our engine on our model gives LiteRT's BUILTIN_REF outputs of
/// AI Edge Quantizer's model bit for bit.
#[test]
fn dynamic_int4_equals_ai_edge_quantizer() {
    use zeropoint::quant::{IoType, Mode, QuantizeOptions, Ranges, quantize};
    let v = std::fs::read_to_string(root().join("manifest.json")).expect("manifest.json");
    let v: serde_json::Value = serde_json::from_str(&v).expect("manifest is JSON");
    let models = v["models"][NAME]["aeq_dynamic_int4"]["models"]
        .as_object()
        .expect("aeq_dynamic_int4 models");
    assert_eq!(models.len(), 2, "per channel and per tensor");
    let (_, float) = model_file(NAME, "model_aeq_float.tflite");
    let dir = root().join(NAME);
    let (x, _) = npy_bytes(&dir.join("input_aeq_0.npy"));
    for (name, info) in models {
        let per_channel = info["per_channel"].as_bool().expect("per_channel");
        let opts = QuantizeOptions {
            mode: Mode::DynamicInt4,
            io: IoType::Float,
            per_tensor: !per_channel,
            float_ops: Vec::new(),
            int16_ops: Vec::new(),
            constants: Vec::new(),
        };
        let (ours, _) = quantize(&float, &Ranges::new(), &opts).expect("quantizes");
        let ours = tflite::read(&tflite::write(&ours).expect("write")).expect("re-read");
        let (_, aeq) = model_file(NAME, &format!("model_{name}.tflite"));
        let int4 = |m: &zeropoint::graph::Model| {
            let sg = &m.subgraphs[0];
            (0..sg.tensors.len())
                .filter(|&t| sg.tensors[t].dtype == TensorType::INT4)
                .map(|t| {
                    let q = sg.tensors[t].quantization.clone().expect("quantized");
                    let axis = if q.scales().len() > 1 {
                        q.quantized_dimension
                    } else {
                        0
                    };
                    (
                        sg.tensors[t].name.clone(),
                        m.tensor_data(0, t).expect("data").to_vec(),
                        q.scales().iter().map(|s| s.to_bits()).collect::<Vec<_>>(),
                        q.zero_points().to_vec(),
                        axis,
                    )
                })
                .collect::<Vec<_>>()
        };
        let (a, o) = (int4(&aeq), int4(&ours));
        assert_eq!(
            a.len(),
            2,
            "{name}: AI Edge Quantizer's INT4 tensors (conv, dense)"
        );
        assert_eq!(
            o, a,
            "{name}: our INT4 tensors differ from AI Edge Quantizer's"
        );
        let (want, _) = npy_bytes(&dir.join(format!("expected_{name}_output_0.npy")));
        for kernels in [KernelSet::Reference, KernelSet::default()] {
            let mut it = Interpreter::with_options(&ours, &Limits::default(), kernels)
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            for s in 0..SAMPLES {
                it.set_input(0, sample(&x, s)).expect("input");
                it.invoke().expect("invoke");
                assert!(
                    it.output(0).expect("output").bytes == sample(&want, s),
                    "{name} sample {s} ({kernels:?}): differs from LiteRT on AI Edge Quantizer's model"
                );
            }
        }
    }
}
