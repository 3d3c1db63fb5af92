//! Streaming models with resource variables (tests/realworld/{variables,streaming_kws}, made by
//! tests/tools/make_realworld.py): CALL_ONCE + VAR_HANDLE / READ_VARIABLE / ASSIGN_VARIABLE
//! keep state from one invocation to the next.
//!
//! LiteRT 2.3 BUILTIN_REF ran each model over consecutive frames on ONE interpreter (one
//! expected row per frame), then a re-created interpreter over the frames from `reset_from`.
//! Our engine must give every output of every frame bit for bit, and
//! [`Interpreter::reset_variables`] must give what the re-created interpreter gave; the same for
//! TF's dynamic-range and full-integer conversions of the models.

use std::path::{Path, PathBuf};

use zeropoint::engine::{Interpreter, Limits};
use zeropoint::graph::Model;
use zeropoint::kernels::KernelSet;
use zeropoint::quant::calibrate::{Calibrator, Method};
use zeropoint::quant::{IoType, Mode, QuantizeOptions, Ranges, quantize};
use zeropoint::tflite;
use zeropoint_tests::{NpyData, load_npy};

// A test target's root resolves `mod x;` next to itself, so the folder is named explicitly.
// The quantizer test uses the rest of it.
#[allow(dead_code)]
#[path = "quantizer/compare.rs"]
mod compare;

use compare::compare;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("realworld")
}

/// A streaming model of the manifest: its name, frames and the frame the reset run starts at.
struct Stream {
    name: String,
    frames: usize,
    reset_from: usize,
    tf_int8_converts: bool,
}

fn streams() -> Vec<Stream> {
    let text = std::fs::read_to_string(root().join("manifest.json")).expect("manifest.json");
    let v: serde_json::Value = serde_json::from_str(&text).expect("manifest is JSON");
    let out: Vec<Stream> = v["models"]
        .as_object()
        .expect("models")
        .iter()
        .filter_map(|(name, m)| {
            Some(Stream {
                name: name.clone(),
                frames: m["frames"].as_u64()? as usize,
                reset_from: m["reset_from"].as_u64().expect("reset_from") as usize,
                tf_int8_converts: m["tf_int8"]["converts"].as_bool().expect("tf_int8"),
            })
        })
        .collect();
    let names: Vec<&str> = out.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["streaming_kws", "variables"]);
    out
}

fn read_model(path: &Path) -> Model {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    tflite::read(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn f32s(path: &Path) -> Vec<f32> {
    match load_npy(path).data {
        NpyData::F32(v) => v,
        _ => panic!("{}: expected float32", path.display()),
    }
}

/// Frame `f` of a frames-stacked array of `frames` rows.
fn row(v: &[f32], frames: usize, f: usize) -> &[f32] {
    let n = v.len() / frames;
    &v[f * n..(f + 1) * n]
}

/// Runs frames `from..` of `x` on `it` and checks every output against LiteRT's rows in
/// `<prefix>output_<k>.npy`.
fn check_frames(
    it: &mut Interpreter,
    s: &Stream,
    x: &[f32],
    from: usize,
    prefix: &str,
    what: &str,
) {
    let dir = root().join(&s.name);
    let want: Vec<Vec<f32>> = (0..it.outputs().len())
        .map(|k| f32s(&dir.join(format!("{prefix}output_{k}.npy"))))
        .collect();
    let rows = s.frames - from;
    for f in from..s.frames {
        it.set_input_f32(0, row(x, s.frames, f)).expect("input");
        it.invoke().expect("invoke");
        for (k, w) in want.iter().enumerate() {
            let got = it.output(k).expect("output");
            let got = got.as_f32().expect("float output");
            let w = row(w, rows, f - from);
            let same =
                got.len() == w.len() && got.iter().zip(w).all(|(a, b)| a.to_bits() == b.to_bits());
            assert!(
                same,
                "{what}: frame {f} output {k}: {got:?} != LiteRT {w:?}"
            );
        }
    }
}

/// Float, TF's dynamic-range, float16 and int8 models, with the reference and the fast kernels:
/// every output of every frame equals LiteRT's, state carried between calls; after
/// `reset_variables`, the frames from `reset_from` give what a re-created LiteRT interpreter
/// gave (and that differs from the continued run, so the reset is what is checked).
#[test]
fn streaming_models_match_litert_frame_by_frame_and_after_reset() {
    for s in streams() {
        let dir = root().join(&s.name);
        let x = f32s(&dir.join("input_0.npy"));
        let mut files = vec![
            ("model.tflite", "expected_"),
            ("model_dynamic.tflite", "expected_dynamic_"),
            ("model_float16.tflite", "expected_float16_"),
        ];
        if s.tf_int8_converts {
            files.push(("model_int8.tflite", "expected_int8_"));
        }
        for (file, prefix) in files {
            let m = read_model(&dir.join(file));
            // The state matters: the continued run and the fresh one differ at `reset_from`.
            let cont = f32s(&dir.join(format!("{prefix}output_0.npy")));
            let fresh = f32s(&dir.join(format!("{prefix}reset_output_0.npy")));
            assert_ne!(
                row(&cont, s.frames, s.reset_from),
                row(&fresh, s.frames - s.reset_from, 0),
                "{} {file}: state changes the outputs",
                s.name
            );
            for kernels in [KernelSet::Reference, KernelSet::default()] {
                let what = format!("{} {file} ({kernels:?})", s.name);
                let mut it = Interpreter::with_options(&m, &Limits::default(), kernels)
                    .unwrap_or_else(|e| panic!("{what}: {e}"));
                assert!(it.has_variables(), "{what}");
                check_frames(&mut it, &s, &x, 0, prefix, &what);
                it.reset_variables();
                check_frames(
                    &mut it,
                    &s,
                    &x,
                    s.reset_from,
                    &format!("{prefix}reset_"),
                    &what,
                );
            }
        }
    }
}

/// Calibration runs the frames in order on one interpreter, state carried: the range recorded
/// for the running total of `variables` (its second READ_VARIABLE, after the assignment) is the
/// range of LiteRT's outputs (total × 2) over the frames, halved.
#[test]
fn calibration_carries_state_across_frames() {
    let s = streams()
        .into_iter()
        .find(|s| s.name == "variables")
        .expect("variables");
    let dir = root().join(&s.name);
    let m = read_model(&dir.join("model.tflite"));
    let x = f32s(&dir.join("input_0.npy"));
    let mut cal = Calibrator::new(&m).expect("calibrator");
    for f in 0..s.frames {
        cal.set_input(0, row(&x, s.frames, f)).expect("input");
        cal.add_sample().expect("sample");
    }
    let stats = cal.stats(Method::MinMax).expect("stats");
    let sg = &m.subgraphs[0];
    let read = sg
        .operators
        .iter()
        .filter(|o| o.code.name() == "READ_VARIABLE")
        .nth(1)
        .expect("second READ_VARIABLE")
        .outputs[0] as usize;
    let st = stats
        .tensors
        .iter()
        .find(|t| t.index == read)
        .unwrap_or_else(|| panic!("no statistics for tensor {read}"));
    let y = f32s(&dir.join("expected_output_0.npy"));
    let lo = y.iter().fold(f32::INFINITY, |a, &b| a.min(b)) / 2.0;
    let hi = y.iter().fold(f32::NEG_INFINITY, |a, &b| a.max(b)) / 2.0;
    let got = (st.true_min.unwrap_or(st.min), st.true_max.unwrap_or(st.max));
    assert_eq!(got, (lo, hi), "running total's range");
    // (A calibration on a fresh interpreter per frame would record the frames' own range.)
    let (xlo, xhi) = x
        .iter()
        .fold((f32::INFINITY, f32::NEG_INFINITY), |(a, b), &v| {
            (a.min(v), b.max(v))
        });
    assert_ne!(
        got,
        (xlo, xhi),
        "the range is the running total's, not one frame's"
    );
}

/// Quantizing the streaming models: dynamic range and float16 (every subgraph, CALL_ONCE's init
/// included) give, on every frame, LiteRT's outputs of TF's dynamic-range and float16 models
/// (full integer: [`streaming_models_quantize_int8_as_tf`]).
#[test]
fn streaming_models_quantize_dynamic_and_float16_as_tf() {
    let opts = |mode| QuantizeOptions {
        mode,
        io: IoType::Float,
        per_tensor: false,
        float_ops: Vec::new(),
        int16_ops: Vec::new(),
        constants: Vec::new(),
    };
    for s in streams() {
        let dir = root().join(&s.name);
        let m = read_model(&dir.join("model.tflite"));
        let x = f32s(&dir.join("input_0.npy"));
        let (q, _) = quantize(&m, &Ranges::new(), &opts(Mode::Dynamic))
            .unwrap_or_else(|e| panic!("{}: dynamic: {e}", s.name));
        let q = tflite::read(&tflite::write(&q).expect("write")).expect("re-read");
        let mut it = Interpreter::new(&q).unwrap_or_else(|e| panic!("{}: {e}", s.name));
        let what = format!("{} our dynamic", s.name);
        check_frames(&mut it, &s, &x, 0, "expected_dynamic_", &what);
        let (q, _) = quantize(&m, &Ranges::new(), &opts(Mode::Float16))
            .unwrap_or_else(|e| panic!("{}: float16: {e}", s.name));
        let q = tflite::read(&tflite::write(&q).expect("write")).expect("re-read");
        assert_eq!(q.subgraphs.len(), m.subgraphs.len());
        let mut it = Interpreter::new(&q).unwrap_or_else(|e| panic!("{}: {e}", s.name));
        let what = format!("{} our float16", s.name);
        check_frames(&mut it, &s, &x, 0, "expected_float16_", &what);
        it.reset_variables();
        check_frames(
            &mut it,
            &s,
            &x,
            s.reset_from,
            "expected_float16_reset_",
            &what,
        );
    }
}

/// Our calibration of `calib.npy` (TF's representative frames), in order on one interpreter.
fn our_stream_ranges(m: &Model, dir: &Path) -> Ranges {
    let calib = load_npy(&dir.join("calib.npy"));
    let frames = calib.samples();
    let x = f32s(&dir.join("calib.npy"));
    let mut cal = Calibrator::new(m).expect("calibrator");
    for f in 0..frames {
        cal.set_input(0, row(&x, frames, f)).expect("input");
        cal.add_sample().expect("sample");
    }
    let stats = cal.stats(Method::MinMax).expect("stats");
    Ranges::from_calibration(m, &stats).expect("ranges")
}

/// Full-integer quantization (int8, float I/O) of the streaming models, whose second subgraph is
/// CALL_ONCE's init: with the ranges TF's calibrator recorded (`model_calibrated.tflite`) and with
/// our own calibration of the same frames in order, state carried (`calib.npy`), our model equals
/// TF's `model_int8.tflite` tensor for tensor (dtypes, scales, zero points, constants, operators:
/// the quantizer test's comparison), the init subgraphs are TF's, and our engine on our model
/// gives LiteRT's outputs of TF's model on every frame and after a reset. The model of our own
/// calibration is written to `target/quantized/realworld/<name>_int8_floatio.tflite` for
/// `tests/tools/check_quantized.py` (LiteRT loads it and runs the frames on one interpreter; our
/// engine must give the same bits).
#[test]
fn streaming_models_quantize_int8_as_tf() {
    let opts = QuantizeOptions {
        mode: Mode::Int8,
        io: IoType::Float,
        ..QuantizeOptions::default()
    };
    let out = root().join("../../target/quantized/realworld");
    std::fs::create_dir_all(&out).expect("target/quantized/realworld");
    let mut checked = 0;
    for s in streams().into_iter().filter(|s| s.tf_int8_converts) {
        let dir = root().join(&s.name);
        let m = read_model(&dir.join("model.tflite"));
        let tf = read_model(&dir.join("model_int8.tflite"));
        let x = f32s(&dir.join("input_0.npy"));
        let tf_ranges =
            Ranges::from_calibrated_model(&m, &read_model(&dir.join("model_calibrated.tflite")))
                .unwrap_or_else(|e| panic!("{}: TF's ranges: {e}", s.name));
        for (which, ranges) in [
            ("TF's ranges", tf_ranges),
            ("our calibration", our_stream_ranges(&m, &dir)),
        ] {
            let what = format!("{} int8 ({which})", s.name);
            let (q, _) = quantize(&m, &ranges, &opts).unwrap_or_else(|e| panic!("{what}: {e}"));
            let bytes = tflite::write(&q).expect("write");
            let q = tflite::read(&bytes).expect("re-read");
            let (tally, diffs) = compare(&q, &tf);
            assert!(
                diffs.is_empty(),
                "{what}: differs from TF's model: {diffs:#?}"
            );
            assert!(tally.tensors.0 > 0, "{what}: no quantized tensor compared");
            // CALL_ONCE's init subgraphs: kept as they are, as TF keeps them.
            assert_eq!(q.subgraphs.len(), tf.subgraphs.len(), "{what}");
            for (a, b) in q.subgraphs.iter().zip(&tf.subgraphs).skip(1) {
                let sig = |sg: &zeropoint::graph::Subgraph| {
                    let ops: Vec<String> = sg.operators.iter().map(|o| o.code.name()).collect();
                    let ts: Vec<_> = sg
                        .tensors
                        .iter()
                        .map(|t| (t.name.clone(), t.dtype))
                        .collect();
                    (ops, ts)
                };
                assert_eq!(sig(a), sig(b), "{what}: init subgraph");
            }
            let mut it = Interpreter::new(&q).unwrap_or_else(|e| panic!("{what}: {e}"));
            check_frames(&mut it, &s, &x, 0, "expected_int8_", &what);
            it.reset_variables();
            check_frames(&mut it, &s, &x, s.reset_from, "expected_int8_reset_", &what);
            if which == "our calibration" {
                let path = out.join(format!("{}_int8_floatio.tflite", s.name));
                std::fs::write(&path, &bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            }
            println!(
                "{what}: {}/{} tensors equal to TF's",
                tally.tensors.1, tally.tensors.0
            );
            checked += 1;
        }
    }
    assert_eq!(checked, 4, "both streaming models, both ranges");
}

/// 16x8 of the streaming models is refused with the reason: TF 2.21's 16x8 quantizer makes the
/// variables int16 (not reproduced; seen on TF's conversion of `variables`: READ_VARIABLE,
/// ADD and the init subgraph's constant all int16 at one scale).
#[test]
fn streaming_models_are_refused_in_16x8() {
    for s in streams() {
        let m = read_model(&root().join(&s.name).join("model.tflite"));
        let opts = QuantizeOptions {
            mode: Mode::Int16x8,
            io: IoType::Float,
            ..QuantizeOptions::default()
        };
        let err = quantize(&m, &Ranges::new(), &opts).expect_err("16x8 of a stateful model");
        let text = err.to_string();
        assert!(
            text.contains("resource variables") && text.contains("--mode int8"),
            "{}: {text}",
            s.name
        );
    }
}
