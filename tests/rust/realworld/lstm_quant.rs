//! Our full-integer quantization (int8, float I/O) of `lstm_fused` against TF 2.21's
//! `model_int8.tflite`: both fused LSTMs written as TF's integer LSTM.
//!
//! TF's converter numbers and names tensors its own way (it renames some constant copies), so
//! the two models are compared operator by operator: each input, output and intermediate
//! position's dtype, shape, variable flag, quantization (scale bits, zero points, axis, no
//! recorded min/max) and constant bytes, plus each operator's code, version and options.
//!
//! - With TF's own calibration (`model_calibrated.tflite`, TF's calibrate-only model of the same
//!   eight samples) every one of them is equal.
//! - With our calibration of `calib.npy` (TF's eight samples, in order, LSTM states carried from
//!   sample to sample as TF's calibrator does) our recorded ranges are TF's within a few f32 ulps:
//!   TF's calibrator runs its own logging LSTM kernel, whose float arithmetic differs from
//!   LiteRT's in the last bits. So the parameters that follow an LSTM output's range (the output,
//!   the output state and the hidden intermediate, which take the output's; the next LSTM's
//!   input and its biases at `s_in · s_w`; STRIDED_SLICE and the FULLY_CONNECTED input after it)
//!   may differ by that much (scale within 4 ulps, same zero point, bias values within ±1);
//!   everything else must be equal, the cell states' power-of-two scales included.
//!
//! The model of our calibration is written to `target/quantized/realworld/lstm_fused_int8_floatio.tflite`
//! for `tests/tools/check_quantized.py` (LiteRT's reference kernels load and run it; with
//! `--zeropoint`, our engine must give the same bits).

use super::lstm::NAME;
use super::{model_file, root};
use zeropoint::graph::{Model, TensorType};
use zeropoint::quant::calibrate::{Calibrator, Method};
use zeropoint::quant::{IoType, Mode, QuantizeOptions, Ranges, quantize};
use zeropoint::tflite;
use zeropoint_tests::{NpyData, load_npy, ulp_distance_f32};

/// Operator positions whose parameters follow an LSTM output's recorded range: (operator index in
/// TF's model, "in"/"out"/"mid", position).
fn follows_lstm_output(tf: &Model, op: usize, kind: &str, k: usize) -> bool {
    let code = tf.subgraphs[0].operators[op].code.name();
    let lstms: Vec<usize> = (0..tf.subgraphs[0].operators.len())
        .filter(|&o| tf.subgraphs[0].operators[o].code.name() == "UNIDIRECTIONAL_SEQUENCE_LSTM")
        .collect();
    match (code.as_str(), kind, k) {
        ("UNIDIRECTIONAL_SEQUENCE_LSTM", "out", 0) => true,
        ("UNIDIRECTIONAL_SEQUENCE_LSTM", "in", 18) => true,
        ("UNIDIRECTIONAL_SEQUENCE_LSTM", "mid", 4) => true,
        // The second LSTM reads the first's output: its input and biases.
        ("UNIDIRECTIONAL_SEQUENCE_LSTM", "in", 0 | 12..=15) => lstms.first() != Some(&op),
        ("STRIDED_SLICE", "in" | "out", 0) => true,
        ("FULLY_CONNECTED", "in", 0) => true,
        _ => false,
    }
}

/// Every difference between `ours` and TF's model, position by position; with `loose`, those at
/// [`follows_lstm_output`] positions within the last-bit calibration difference are allowed.
fn differences(ours: &Model, tf: &Model, loose: bool) -> (usize, Vec<String>) {
    let (a, b) = (&ours.subgraphs[0], &tf.subgraphs[0]);
    let mut diffs = Vec::new();
    let mut compared = 0;
    if a.operators.len() != b.operators.len() {
        return (
            0,
            vec![format!(
                "{} operators, TF's {}",
                a.operators.len(),
                b.operators.len()
            )],
        );
    }
    for (i, (x, y)) in a.operators.iter().zip(&b.operators).enumerate() {
        let at = format!("operator {i} ({})", y.code.name());
        if (x.code.name(), x.code.version) != (y.code.name(), y.code.version) {
            diffs.push(format!(
                "{at}: {} v{}, TF's v{}",
                x.code.name(),
                x.code.version,
                y.code.version
            ));
            continue;
        }
        if x.options != y.options {
            diffs.push(format!(
                "{at}: options {:?}, TF's {:?}",
                x.options, y.options
            ));
        }
        let none = Vec::new();
        let slots = [
            ("in", &x.inputs, &y.inputs),
            ("out", &x.outputs, &y.outputs),
            (
                "mid",
                x.intermediates.as_ref().unwrap_or(&none),
                y.intermediates.as_ref().unwrap_or(&none),
            ),
        ];
        for (kind, xs, ys) in slots {
            if xs.len() != ys.len() {
                diffs.push(format!(
                    "{at}: {} {kind} tensors, TF's {}",
                    xs.len(),
                    ys.len()
                ));
                continue;
            }
            for (k, (&p, &q)) in xs.iter().zip(ys).enumerate() {
                let at = format!("{at} {kind} {k}");
                let (Ok(p), Ok(q)) = (usize::try_from(p), usize::try_from(q)) else {
                    if p != q {
                        diffs.push(format!("{at}: omitted in one only"));
                    }
                    continue;
                };
                compared += 1;
                let (tp, tq) = (&a.tensors[p], &b.tensors[q]);
                let at = format!("{at} (TF's '{}')", tq.name);
                let facts =
                    |t: &zeropoint::graph::Tensor| (t.dtype, t.dims().to_vec(), t.is_variable);
                if facts(tp) != facts(tq) {
                    diffs.push(format!("{at}: {:?}, TF's {:?}", facts(tp), facts(tq)));
                    continue;
                }
                let (dp, dq) = (ours.tensor_data(0, p), tf.tensor_data(0, q));
                if tp.quantization == tq.quantization && dp == dq {
                    continue;
                }
                let near = loose && follows_lstm_output(tf, i, kind, k) && close(tp, tq, dp, dq);
                if !near {
                    diffs.push(format!(
                        "{at}: {:?}, TF's {:?} ({})",
                        tp.quantization,
                        tq.quantization,
                        if dp == dq { "same data" } else { "data differ" },
                    ));
                }
            }
        }
    }
    (compared, diffs)
}

/// Same zero points and axis, scales within 4 ulps, no recorded range on either; int32 data
/// (biases) within ±1 per element, other data equal.
fn close(
    p: &zeropoint::graph::Tensor,
    q: &zeropoint::graph::Tensor,
    dp: Option<&[u8]>,
    dq: Option<&[u8]>,
) -> bool {
    let (Some(a), Some(b)) = (&p.quantization, &q.quantization) else {
        return false;
    };
    let scales = a.scales().len() == b.scales().len()
        && a.scales()
            .iter()
            .zip(b.scales())
            .all(|(&x, &y)| ulp_distance_f32(x, y) <= 4);
    let params = scales
        && a.zero_points() == b.zero_points()
        && a.quantized_dimension == b.quantized_dimension
        && (a.min.is_none() && a.max.is_none() && b.min.is_none() && b.max.is_none());
    let data = match (dp, dq) {
        (None, None) => true,
        (Some(x), Some(y)) if p.dtype == TensorType::INT32 && x.len() == y.len() => {
            x.chunks_exact(4).zip(y.chunks_exact(4)).all(|(u, v)| {
                let u = i32::from_le_bytes([u[0], u[1], u[2], u[3]]);
                let v = i32::from_le_bytes([v[0], v[1], v[2], v[3]]);
                (i64::from(u) - i64::from(v)).abs() <= 1
            })
        }
        (x, y) => x == y,
    };
    params && data
}

/// Our calibration of `calib.npy`: its eight samples in order on one calibrator (states carried).
fn our_ranges(m: &Model) -> (Ranges, zeropoint::quant::calibrate::CalibrationStats) {
    let calib = load_npy(&root().join(NAME).join("calib.npy"));
    let NpyData::I32(tokens) = &calib.data else {
        panic!("calib.npy holds int32 token ids");
    };
    let n = calib.shape[0];
    let per = tokens.len() / n;
    let mut cal = Calibrator::new(m).expect("calibrates");
    for s in 0..n {
        let x: Vec<f32> = tokens[s * per..(s + 1) * per]
            .iter()
            .map(|&t| t as f32)
            .collect();
        cal.set_input(0, &x).expect("input");
        cal.add_sample().expect("sample");
    }
    let stats = cal.stats(Method::MinMax).expect("stats");
    (Ranges::from_calibration(m, &stats).expect("ranges"), stats)
}

#[test]
fn fused_lstm_quantizes_int8_as_tf() {
    let opts = QuantizeOptions {
        mode: Mode::Int8,
        io: IoType::Float,
        ..QuantizeOptions::default()
    };
    let (_, m) = model_file(NAME, "model.tflite");
    let (_, tf) = model_file(NAME, "model_int8.tflite");
    let (_, calibrated) = model_file(NAME, "model_calibrated.tflite");
    let tf_ranges = Ranges::from_calibrated_model(&m, &calibrated).expect("TF's ranges");

    // The LSTM states' ranges: ours (states carried across the samples) are TF's within a few
    // ulps; had the states been reset per sample, they would be far narrower.
    let (ranges, stats) = our_ranges(&m);
    let sg = &m.subgraphs[0];
    let mut states = 0;
    for op in sg
        .operators
        .iter()
        .filter(|o| o.code.name() == "UNIDIRECTIONAL_SEQUENCE_LSTM")
    {
        for k in [18, 19] {
            let t = op.inputs[k] as usize;
            let (ours, theirs) = (ranges.get(t), tf_ranges.get(t));
            let (Some(o), Some(r)) = (ours, theirs) else {
                panic!("state tensor {t}: ours {ours:?}, TF's {theirs:?}");
            };
            assert!(
                ulp_distance_f32(o.0, r.0) <= 4 && ulp_distance_f32(o.1, r.1) <= 4,
                "state tensor {t} '{}': ours {o:?}, TF's {r:?}",
                sg.tensors[t].name
            );
            states += 1;
        }
    }
    assert_eq!(states, 4, "two LSTMs, two states each");
    assert_eq!(stats.samples, 8);

    for (which, ranges, loose) in [
        ("TF's calibration", &tf_ranges, false),
        ("our calibration", &ranges, true),
    ] {
        let (q, report) = quantize(&m, ranges, &opts).unwrap_or_else(|e| panic!("{which}: {e}"));
        assert!(
            report.warnings.iter().all(|w| !w.contains("stays float")),
            "{which}: {:?}",
            report.warnings
        );
        let bytes = tflite::write(&q).expect("write");
        let q = tflite::read(&bytes).expect("re-read");
        let (compared, diffs) = differences(&q, &tf, loose);
        assert!(
            diffs.is_empty(),
            "{which}: differs from TF's model: {diffs:#?}"
        );
        // 24 + 1 + 5 positions per LSTM (omitted ones not counted) and the other operators'.
        assert!(
            compared >= 2 * (16 + 1 + 5),
            "{which}: {compared} tensors compared"
        );
        let lstm = q.subgraphs[0]
            .operators
            .iter()
            .find(|o| o.code.name() == "UNIDIRECTIONAL_SEQUENCE_LSTM")
            .expect("an LSTM");
        let cell = &q.subgraphs[0].tensors[lstm.inputs[19] as usize];
        assert_eq!(cell.dtype, TensorType::INT16, "{which}: int16 cell state");
        // Our engine runs it.
        let mut it =
            zeropoint::engine::Interpreter::new(&q).unwrap_or_else(|e| panic!("{which}: {e}"));
        it.set_input(0, &[0u8; 40]).expect("input");
        it.invoke().expect("runs");
        if loose {
            let dir = root().join("../../target/quantized/realworld");
            std::fs::create_dir_all(&dir).expect("target/quantized/realworld");
            let path = dir.join(format!("{NAME}_int8_floatio.tflite"));
            std::fs::write(&path, &bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        }
        println!(
            "{NAME} int8 ({which}): {compared} tensor positions equal to TF's (or within the calibration's last bits)"
        );
    }
}

/// What the quantizer does not write as TF's integer LSTM stays float with a warning saying why
/// (the rest of the model is still quantized); a cell state without a recorded range is a typed
/// error naming the tensor.
#[test]
fn fused_lstm_quantizer_refusals_are_explained() {
    let (_, m) = model_file(NAME, "model.tflite");
    let (_, calibrated) = model_file(NAME, "model_calibrated.tflite");
    let ranges = Ranges::from_calibrated_model(&m, &calibrated).expect("TF's ranges");
    let lstm = m.subgraphs[0]
        .operators
        .iter()
        .position(|o| o.code.name() == "UNIDIRECTIONAL_SEQUENCE_LSTM")
        .expect("an LSTM");
    let int8 = QuantizeOptions {
        mode: Mode::Int8,
        io: IoType::Float,
        ..QuantizeOptions::default()
    };
    type Edit = fn(&mut Model, usize);
    let cases: [(&str, Edit, Mode, &str); 4] = [
        (
            "peephole",
            |m, o| {
                // Peephole weights on the three gates (the float kernel runs them; TF's
                // integer LSTM is not written for them).
                let op = &mut m.subgraphs[0].operators[o];
                (op.inputs[9], op.inputs[10], op.inputs[11]) =
                    (op.inputs[12], op.inputs[13], op.inputs[15]);
            },
            Mode::Int8,
            "peephole weights (input 9)",
        ),
        (
            "CIFG",
            |m, o| m.subgraphs[0].operators[o].inputs[1] = -1,
            Mode::Int8,
            "CIFG",
        ),
        (
            "projection",
            |m, o| {
                let op = &mut m.subgraphs[0].operators[o];
                op.inputs[16] = op.inputs[5];
            },
            Mode::Int8,
            "a projection (input 16)",
        ),
        ("16x8", |_, _| {}, Mode::Int16x8, "no 16x8 integer LSTM"),
    ];
    for (what, edit, mode, says) in cases {
        let mut bad = m.clone();
        edit(&mut bad, lstm);
        let opts = QuantizeOptions {
            mode,
            ..int8.clone()
        };
        let (q, report) = quantize(&bad, &ranges, &opts).unwrap_or_else(|e| panic!("{what}: {e}"));
        let warned = report.warnings.iter().any(|w| {
            w.contains(&format!(
                "operator {lstm} (UNIDIRECTIONAL_SEQUENCE_LSTM) stays float"
            )) && w.contains(says)
        });
        assert!(warned, "{what}: {:?}", report.warnings);
        let op = &q.subgraphs[0]
            .operators
            .iter()
            .find(|o| o.code.name() == "UNIDIRECTIONAL_SEQUENCE_LSTM")
            .expect("kept");
        let w = &q.subgraphs[0].tensors[op.inputs[2] as usize];
        assert_eq!(
            w.dtype,
            TensorType::FLOAT32,
            "{what}: the LSTM's weights stay float"
        );
        assert!(
            op.intermediates.as_ref().is_none_or(Vec::is_empty),
            "{what}: no intermediates"
        );
    }
    // The cell state's range missing (statistics without the states).
    let cell = m.subgraphs[0].operators[lstm].inputs[19] as usize;
    let mut partial = Ranges::new();
    for t in 0..m.subgraphs[0].tensors.len() {
        if let (Some((lo, hi)), false) = (ranges.get(t), t == cell) {
            partial
                .insert(t, &m.subgraphs[0].tensors[t].name, lo, hi)
                .expect("range");
        }
    }
    let err = quantize(&m, &partial, &int8)
        .expect_err("no cell range")
        .to_string();
    assert!(
        err.contains(&format!(
            "tensor {cell} '{}'",
            m.subgraphs[0].tensors[cell].name
        )) && err.contains("cell state has no recorded range"),
        "{err}"
    );
}
