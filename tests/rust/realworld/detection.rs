//! `TFLite_Detection_PostProcess` (the custom op SSD exports end with): the `detpp_*` op cases
//! run by our engine give LiteRT's BUILTIN_REF outputs bit for bit on every output slot LiteRT
//! writes, and our int8 quantization of `ssd_detector` keeps the op float behind DEQUANTIZE,
//! as TF's converter leaves custom operators.

use super::{Entry, input, manifest, model, op_label, root};
use zeropoint::engine::Interpreter;
use zeropoint::graph::TensorType;
use zeropoint::quant::calibrate::{Calibrator, Method};
use zeropoint::quant::compare_quant::compare_quantized;
use zeropoint::quant::{IoType, Mode, QuantizeOptions, Ranges, quantize};
use zeropoint::tflite;
use zeropoint_tests::{NpyData, load_npy};

const CODE: &str = "CUSTOM(TFLite_Detection_PostProcess)";

fn npy_f32(e: &Entry, file: &str) -> Vec<f32> {
    match load_npy(&root().join(&e.name).join(file)).data {
        NpyData::F32(v) => v,
        _ => panic!("{}/{file}: expected float32", e.name),
    }
}

/// Which output slots LiteRT writes: all with regular NMS; with fast NMS, for each of the
/// `num` detections, its first `min(max_classes_per_detection, num_classes)` class slots.
fn written(opts: &serde_json::Value, num: usize, slots: usize) -> Vec<bool> {
    let get = |k: &str| opts[k].as_u64().unwrap_or_else(|| panic!("option {k}")) as usize;
    if opts["use_regular_nms"].as_bool() == Some(true) {
        return vec![true; slots];
    }
    let per = get("max_classes_per_detection");
    let cols = per.min(get("num_classes"));
    (0..slots)
        .map(|s| s / per < num && s % per < cols)
        .collect()
}

#[test]
fn detection_postprocess_matches_litert() {
    let cases: Vec<Entry> = manifest()
        .into_iter()
        .filter(|e| e.detection.is_some())
        .collect();
    assert_eq!(cases.len(), 7, "the detpp_* op cases");
    let mut compared = 0;
    for e in &cases {
        let opts = e.detection.as_ref().expect("options");
        assert!(e.litert_runs, "{}: LiteRT runs it", e.name);
        let (_, m) = model(&e.name);
        let mut it = Interpreter::new(&m).unwrap_or_else(|err| panic!("{}: {err}", e.name));
        for k in 0..2 {
            let x = load_npy(&root().join(&e.name).join(format!("input_{k}.npy")));
            match x.data {
                NpyData::F32(v) => it.set_input_f32(k, &v),
                NpyData::U8(v) => it.set_input(k, &v),
                _ => panic!("{}: input {k} type", e.name),
            }
            .unwrap_or_else(|err| panic!("{}: input {k}: {err}", e.name));
        }
        it.invoke().expect("invoke");
        let got: Vec<Vec<f32>> = (0..4)
            .map(|k| {
                let o = it.output(k).expect("output");
                o.as_f32().expect("float output").to_vec()
            })
            .collect();
        let want: Vec<Vec<f32>> = (0..4)
            .map(|k| npy_f32(e, &format!("expected_output_{k}.npy")))
            .collect();
        assert_eq!(got[3], want[3], "{}: num_detections", e.name);
        let num = want[3][0] as usize;
        let slots = want[1].len();
        let mask = written(opts, num, slots);
        for (s, &w) in mask.iter().enumerate() {
            let (gb, wb) = (&got[0][4 * s..4 * s + 4], &want[0][4 * s..4 * s + 4]);
            if w {
                let same =
                    |a: &[f32], b: &[f32]| a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits());
                assert!(
                    same(gb, wb),
                    "{}: box of slot {s}: {gb:?} vs LiteRT {wb:?}",
                    e.name
                );
                assert_eq!(
                    got[1][s].to_bits(),
                    want[1][s].to_bits(),
                    "{}: class {s}",
                    e.name
                );
                assert_eq!(
                    got[2][s].to_bits(),
                    want[2][s].to_bits(),
                    "{}: score {s}",
                    e.name
                );
                compared += 1;
            } else {
                // LiteRT leaves them unwritten; ours are zeros.
                assert!(
                    gb.iter().chain([&got[1][s], &got[2][s]]).all(|&v| v == 0.0),
                    "{}: unwritten slot {s} not zero",
                    e.name
                );
            }
        }
    }
    // Every case has detections (the generator's inputs are made so).
    assert!(compared >= 60, "{compared} slots compared");
}

/// Our int8 (float I/O) quantization of the tiny SSD: the backbone is integer, the custom op
/// reads float tensors made by DEQUANTIZE and writes float, every tensor's parameters equal TF's
/// quantization of the same file, and our engine's outputs on it equal LiteRT's on TF's model. Written to
/// `target/quantized/realworld/ssd_detector_int8_floatio.tflite`, where `check_quantized.py`
/// runs it in LiteRT (and, with `--zeropoint`, requires our engine's bits to equal LiteRT's).
#[test]
fn ssd_quantized_keeps_the_detection_op_float() {
    let (_, m) = model("ssd_detector");
    let mut cal = Calibrator::new(&m).expect("calibrates through the custom op");
    cal.set_input(0, &input("ssd_detector")).expect("input");
    cal.add_sample().expect("sample");
    let stats = cal.stats(Method::MinMax).expect("stats");
    let ranges = Ranges::from_calibration(&m, &stats).expect("ranges");
    let opts = QuantizeOptions {
        mode: Mode::Int8,
        io: IoType::Float,
        per_tensor: false,
        float_ops: Vec::new(),
        int16_ops: Vec::new(),
        constants: Vec::new(),
    };
    let (q, _) = quantize(&m, &ranges, &opts).expect("int8");
    let sg = &q.subgraphs[0];
    let labels: Vec<String> = (0..sg.operators.len())
        .map(|i| op_label(&q, 0, i))
        .collect();
    let det = labels
        .iter()
        .position(|l| l == CODE)
        .expect("custom op kept");
    let op = &sg.operators[det];
    for (k, &t) in op.inputs.iter().enumerate() {
        let t = t as usize;
        assert_eq!(
            sg.tensors[t].dtype,
            TensorType::FLOAT32,
            "input {k}: {labels:?}"
        );
        if k < 2 {
            let producer = sg
                .operators
                .iter()
                .position(|o| o.outputs.contains(&(t as i32)))
                .expect("computed");
            assert_eq!(labels[producer], "DEQUANTIZE", "input {k}: {labels:?}");
        }
    }
    for &t in &op.outputs {
        assert_eq!(sg.tensors[t as usize].dtype, TensorType::FLOAT32);
    }
    assert!(
        labels.iter().any(|l| l == "CONV_2D")
            && labels.iter().filter(|l| *l == "QUANTIZE").count() == 1,
        "integer backbone behind one QUANTIZE: {labels:?}"
    );
    let conv = sg
        .operators
        .iter()
        .position(|o| o.code.name() == "CONV_2D")
        .expect("conv");
    assert_eq!(
        sg.tensors[sg.operators[conv].inputs[0] as usize].dtype,
        TensorType::INT8
    );
    // TF's quantization of the same file (its post-training quantizer, same calibration sample):
    // the same operators (TF places each DEQUANTIZE just before its reader, we right after the
    // producer: the same graph), and every tensor's type, scales, zero points and constant
    // bytes equal.
    let (_, tf) = super::model_file("ssd_detector", "model_int8_floatio.tflite");
    let cmp = compare_quantized(&q, &tf);
    let mut tf_labels: Vec<String> = (0..tf.subgraphs[0].operators.len())
        .map(|i| op_label(&tf, 0, i))
        .collect();
    let mut ours_sorted = labels.clone();
    ours_sorted.sort();
    tf_labels.sort();
    assert_eq!(ours_sorted, tf_labels, "operators as TF's");
    let unequal: Vec<_> = cmp.tensors.iter().filter(|t| !t.equal).collect();
    assert!(
        unequal.is_empty() && cmp.only_reference.is_empty(),
        "{unequal:#?} only TF {:?}",
        cmp.only_reference
    );
    // The float file shares one zero bias between three convolutions (TF's converter dedups
    // equal constants). TF's post-training quantizer keeps one INT32 copy, with the first
    // convolution's scale; ours gives each convolution its own (scale s_in·s_w): two more
    // tensors, all zeros, so the arithmetic is the same.
    assert_eq!(cmp.only_ours.len(), 2, "{:?}", cmp.only_ours);
    for name in &cmp.only_ours {
        let t = sg
            .tensors
            .iter()
            .position(|t| &t.name == name)
            .expect("tensor");
        let reader = sg
            .operators
            .iter()
            .find(|o| o.inputs.get(2) == Some(&(t as i32)))
            .expect("a bias");
        assert_eq!(reader.code.name(), "CONV_2D");
        let data = &q.buffers[sg.tensors[t].buffer as usize].data;
        assert!(!data.is_empty() && data.iter().all(|&b| b == 0), "{name}");
    }
    let bytes = tflite::write(&q).expect("write");
    let dir = root().join("../../target/quantized/realworld");
    std::fs::create_dir_all(&dir).expect("target/quantized/realworld");
    std::fs::write(dir.join("ssd_detector_int8_floatio.tflite"), &bytes).expect("write");
    let q = tflite::read(&bytes).expect("re-read");
    let mut it = Interpreter::new(&q).expect("runs");
    it.set_input_f32(0, &input("ssd_detector")).expect("input");
    it.invoke().expect("invoke");
    let num = it.output(3).expect("num").as_f32().expect("f32")[0];
    let want = load_npy(&root().join("ssd_detector/expected_output_3.npy"));
    let NpyData::F32(want) = want.data else {
        panic!("float")
    };
    assert_eq!(
        num, want[0],
        "quantized SSD finds as many detections as the float one"
    );
}

/// The engine's refusal of `m`, as text (panics when it prepares).
fn refusal(m: &zeropoint::graph::Model) -> String {
    match Interpreter::new(m) {
        Ok(_) => panic!("prepared a broken TFLite_Detection_PostProcess"),
        Err(e @ zeropoint::Error::CannotRun { .. }) => e.to_string(),
        Err(e) => panic!("not a typed CannotRun: {e}"),
    }
}

/// Broken options, types and shapes are typed errors naming the operator (and the tensor);
/// hostile option bytes never panic.
#[test]
fn detection_postprocess_refuses_bad_models() {
    let (_, base) = model("detpp_fast");
    let opts = base.subgraphs[0].operators[0]
        .custom_options
        .clone()
        .expect("options");
    let with = |f: &dyn Fn(&mut zeropoint::graph::Model)| {
        let mut m = base.clone();
        f(&mut m);
        m
    };
    let set_opts = |bytes: Option<Vec<u8>>| {
        with(&|m| m.subgraphs[0].operators[0].custom_options = bytes.clone())
    };
    let e = refusal(&set_opts(None));
    assert!(
        e.contains("TFLite_Detection_PostProcess") && e.contains("too few"),
        "{e}"
    );
    // nms_iou_threshold 0.5 (the options' only 0.5, a double) set to 1.5.
    let half = 0.5f64.to_le_bytes();
    let at = opts
        .windows(8)
        .position(|w| w == half)
        .expect("0.5 in the options");
    let mut bad = opts.clone();
    bad[at..at + 8].copy_from_slice(&1.5f64.to_le_bytes());
    let e = refusal(&set_opts(Some(bad)));
    assert!(e.contains("nms_iou_threshold 1.5"), "{e}");
    // Every truncation and byte change of the options: prepared or refused, never a panic.
    for n in 0..opts.len() {
        let _ = Interpreter::new(&set_opts(Some(opts[..n].to_vec())));
        for b in [0u8, 1, 0x7f, 0xff] {
            let mut o = opts.clone();
            o[n] = b;
            let _ = Interpreter::new(&set_opts(Some(o)));
        }
    }
    // INT8 box encodings: LiteRT's kernel takes FLOAT32 or UINT8 only.
    let e = refusal(&with(&|m| {
        m.subgraphs[0].tensors[0].dtype = TensorType::INT8;
    }));
    assert!(e.contains("box_encodings") && e.contains("INT8"), "{e}");
    // Anchors of the wrong shape.
    let e = refusal(&with(&|m| {
        let t = &mut m.subgraphs[0].tensors[2];
        t.shape = Some(vec![24, 8]);
    }));
    assert!(e.contains("anchors") && e.contains("expected ["), "{e}");
    // Three outputs.
    let e = refusal(&with(&|m| {
        m.subgraphs[0].operators[0].outputs.pop();
        m.subgraphs[0].outputs.pop();
    }));
    assert!(e.contains("expects 4 outputs"), "{e}");
}

/// An anchor of negative height decodes to a box with ymin > ymax, where LiteRT fails the
/// invocation: here every output is zero with no detections.
#[test]
fn detection_postprocess_inverted_box_gives_no_detections() {
    let (_, mut m) = model("detpp_fast");
    let sg = &m.subgraphs[0];
    let buffer = sg.tensors[2].buffer as usize;
    let data = &mut m.buffers[buffer].data;
    // Anchor 0's height (element 2) negated.
    let h = f32::from_le_bytes([data[8], data[9], data[10], data[11]]);
    data[8..12].copy_from_slice(&(-h.abs() - 0.1).to_le_bytes());
    let mut it = Interpreter::new(&m).expect("prepares");
    for k in 0..2 {
        let x = load_npy(&root().join(format!("detpp_fast/input_{k}.npy")));
        let NpyData::F32(v) = x.data else {
            panic!("float")
        };
        it.set_input_f32(k, &v).expect("input");
    }
    it.invoke().expect("invoke");
    for k in 0..4 {
        let o = it.output(k).expect("output");
        assert!(
            o.as_f32().expect("f32").iter().all(|&v| v == 0.0),
            "output {k}"
        );
    }
}
