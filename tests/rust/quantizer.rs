//! `zeropoint::quant::quantize` against TF 2.21's converter, model by model.
//!
//! For every golden case, the float model is quantized by us and compared with the model TF made
//! from the same float model and the same calibration data:
//!
//! | our mode | TF's model |
//! |---|---|
//! | `int8`, I/O int8 | `model_int8.tflite` |
//! | `int8`, I/O float | `model_int8_floatio.tflite` |
//! | `int16x8`, I/O float | `model_16x8.tflite` |
//! | `dynamic` | `model_dynamic.tflite` |
//! | `float16` | `model_fp16.tflite` |
//!
//! Full-integer modes run twice: with the ranges TF's calibrator recorded (read from
//! `model_calibrated.tflite`; these must give TF's model), and with our own calibration of
//! `calib.npy` ([`Calibrator::new`]: LiteRT's optimized float arithmetic and TF's in-place
//! aliasing; it matches every min/max TF's calibrator recorded bit for bit — see
//! `calibration.rs`). The fraction of tensors equal to TF's with our calibration must stay at
//! least [`MIN_OURS_AGREEMENT`] per mode; any other is listed with its reason.
//!
//! Tensors are matched by name (TF's integer tensor in front of an output DEQUANTIZE by the output
//! it feeds, as TF's renaming there is not always `<name>1`). Per tensor: same dtype, scales (f32
//! bits), zero points and axis; constants: same bytes. The operator sequence must match too.
//! Each quantized model (TF ranges) is written to `target/quantized/<case>_<variant>.tflite` for
//! `tests/tools/check_quantized.py` (LiteRT).
//!
//! `quantizer/compare.rs` holds the model-against-model comparison (tensor keys,
//! [`compare::compare`], the per-operator signatures of the `--int16-ops` test).

// A test target's root resolves `mod x;` next to itself, so the folder is named explicitly.
#[path = "quantizer/compare.rs"]
mod compare;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use zeropoint::graph::{BuiltinOperator as Op, Model};
use zeropoint::quant::calibrate::{Calibrator, Method};
use zeropoint::quant::{IoType, Mode, QuantizeOptions, Ranges, quantize};
use zeropoint::tflite;
use zeropoint_tests::{Case, NpyData, load_npy, repo_root, selected_cases};

use compare::{Tally, classify, compare, compute_ops, op_signature};

/// Fraction of quantized tensors that must equal TF's (TF's ranges); the rest must be listed in
/// [`KNOWN_DIFFERENCES`].
const MIN_TENSOR_AGREEMENT: f64 = 0.99;

/// Fewest fraction of quantized tensors equal to TF's with *our* calibration, per variant: all of
/// them (int8 and int8_floatio 219/219, 16x8 221/221 when written; before the LOGISTIC / TANH /
/// SOFTMAX / TRANSPOSE_CONV kernels were mirrored, 218/219 and 216/221).
const MIN_OURS_AGREEMENT: &[(&str, f64)] = &[("int8", 1.0), ("int8_floatio", 1.0), ("16x8", 1.0)];

/// Differences from TF understood but not reproduced: `(case, variant, tensor name, reason)`.
/// Listed ones are reported and do not fail the test; a listed entry that matches fails it.
const KNOWN_DIFFERENCES: &[(&str, &str, &str, &str)] = &[];

/// TF variant → our options.
fn variants() -> Vec<(&'static str, QuantizeOptions)> {
    let o = |mode, io| QuantizeOptions {
        mode,
        io,
        ..QuantizeOptions::default()
    };
    vec![
        ("int8", o(Mode::Int8, IoType::Native)),
        ("int8_floatio", o(Mode::Int8, IoType::Float)),
        ("16x8", o(Mode::Int16x8, IoType::Float)),
        ("dynamic", o(Mode::Dynamic, IoType::Float)),
        ("fp16", o(Mode::Float16, IoType::Float)),
    ]
}

fn read(path: &Path) -> Model {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    tflite::read(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Our calibration of the case's calibration samples (global min/max, TF's rule).
fn our_ranges(case: &Case, float: &Model) -> Result<Ranges, String> {
    let mut cal = Calibrator::new(float).map_err(|e| e.to_string())?;
    let inputs: Vec<(Vec<f32>, usize)> = case
        .calibration
        .iter()
        .map(|p| match load_npy(p).data {
            NpyData::F32(v) => {
                let n = load_npy(p).samples();
                Ok((v, n))
            }
            _ => Err(format!("{}: not float32", p.display())),
        })
        .collect::<Result<_, _>>()?;
    let samples = inputs.first().map_or(0, |i| i.1);
    for s in 0..samples {
        for (i, (data, _)) in inputs.iter().enumerate() {
            let per = cal.inputs()[i].num_elements();
            cal.set_input(i, &data[s * per..(s + 1) * per])
                .map_err(|e| e.to_string())?;
        }
        cal.add_sample().map_err(|e| e.to_string())?;
    }
    let stats = cal.stats(Method::MinMax).map_err(|e| e.to_string())?;
    Ranges::from_calibration(float, &stats).map_err(|e| e.to_string())
}

fn out_dir() -> PathBuf {
    let d = repo_root().join("target/quantized");
    std::fs::create_dir_all(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display()));
    d
}

fn pct(a: (usize, usize)) -> String {
    if a.0 == 0 {
        "-".into()
    } else {
        format!("{}/{}", a.1, a.0)
    }
}

#[test]
fn quantized_models_match_tf() {
    let dir = out_dir();
    let mut failures = Vec::new();
    let mut totals: HashMap<&str, (Tally, Tally)> = HashMap::new();
    let mut known_seen = Vec::new();
    let mut written = 0usize;
    let mut reasons_total: HashMap<String, usize> = HashMap::new();
    println!(
        "{:<34} {:<13} {:>10} {:>10} {:>4} | {:>10} {:>10}",
        "case", "variant", "tensors", "consts", "ops", "ours:tens", "ours:const"
    );
    let selection = selected_cases("quantized_models_match_tf");
    let panics = selection.each(|case| {
        let float_path = case.dir.join("model_float.tflite");
        if !float_path.is_file() {
            return;
        }
        let float = read(&float_path);
        let calibrated_path = case.dir.join("model_calibrated.tflite");
        let tf_ranges = calibrated_path
            .is_file()
            .then(|| Ranges::from_calibrated_model(&float, &read(&calibrated_path)));
        let ours_ranges = (!case.calibration.is_empty()).then(|| our_ranges(case, &float));
        for (variant, opts) in variants() {
            let tf_path = case.dir.join(format!("model_{variant}.tflite"));
            if !tf_path.is_file() {
                continue;
            }
            let tf = read(&tf_path);
            let full = matches!(opts.mode, Mode::Int8 | Mode::Int16x8);
            let what = format!("{}/{variant}", case.name);
            let ranges = match (&tf_ranges, full) {
                (_, false) => Ranges::new(),
                (Some(Ok(r)), true) => r.clone(),
                (Some(Err(e)), true) => {
                    failures.push(format!("{what}: TF ranges: {e}"));
                    continue;
                }
                (None, true) => continue,
            };
            let (tally, diffs) = match quantize(&float, &ranges, &opts) {
                Ok((ours, _report)) => {
                    let bytes = tflite::write(&ours).expect("write");
                    let path = dir.join(format!("{}_{variant}.tflite", case.name));
                    std::fs::write(&path, &bytes)
                        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                    written += 1;
                    compare(&ours, &tf)
                }
                Err(e) => {
                    failures.push(format!("{what}: {e}"));
                    continue;
                }
            };
            let mut ours_tally = Tally::default();
            let mut ours_reasons: Vec<String> = Vec::new();
            if full && let Some(Ok(r)) = &ours_ranges {
                match quantize(&float, r, &opts) {
                    Ok((ours, _)) => {
                        // Entirely ours (calibration included): LiteRT and our engine must
                        // agree on it too (check_quantized.py, `ours/`).
                        let ours_dir = dir.join("ours");
                        std::fs::create_dir_all(&ours_dir).expect("target/quantized/ours");
                        let path = ours_dir.join(format!("{}_{variant}.tflite", case.name));
                        std::fs::write(&path, tflite::write(&ours).expect("write"))
                            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                        let (t, d) = compare(&ours, &tf);
                        ours_tally = t;
                        for (name, diff) in d {
                            let reason = classify(&float, &ranges, r, &name);
                            if reason.contains("unexpected") {
                                failures.push(format!(
                                    "{what} (our calibration) '{name}': {reason}:{diff}"
                                ));
                            }
                            *reasons_total.entry(reason.clone()).or_default() += 1;
                            ours_reasons.push(format!("'{name}': {reason}:{diff}"));
                        }
                    }
                    Err(e) => failures.push(format!("{what} (our calibration): {e}")),
                }
            }
            println!(
                "{:<34} {:<13} {:>10} {:>10} {:>4} | {:>10} {:>10}",
                case.name,
                variant,
                pct(tally.tensors),
                pct(tally.constants),
                if tally.ops_match.1 == tally.ops_match.0 {
                    "ok"
                } else {
                    "DIFF"
                },
                if full {
                    pct(ours_tally.tensors)
                } else {
                    "-".into()
                },
                if full {
                    pct(ours_tally.constants)
                } else {
                    "-".into()
                },
            );
            for (name, d) in &diffs {
                if let Some(k) = KNOWN_DIFFERENCES
                    .iter()
                    .find(|k| k.0 == case.name && k.1 == variant && k.2 == name)
                {
                    known_seen.push((k.0, k.1, k.2));
                    println!("    known: '{name}':{d} — {}", k.3);
                } else {
                    println!("    DIFF '{name}':{d}");
                    failures.push(format!("{what} '{name}':{d}"));
                }
            }
            for r in &ours_reasons {
                println!("    our calibration: {r}");
            }
            let e = totals.entry(variant).or_default();
            e.0.add(&tally);
            e.1.add(&ours_tally);
        }
    });
    failures.extend(panics);
    let mut all = Tally::default();
    println!("totals (TF's ranges | our calibration):");
    for (variant, _) in variants() {
        if let Some((t, o)) = totals.get(variant) {
            all.add(t);
            println!(
                "  {variant:<13} tensors {:>9} consts {:>9} ops {:>7} | tensors {:>9} consts {:>9}",
                pct(t.tensors),
                pct(t.constants),
                pct(t.ops_match),
                pct(o.tensors),
                pct(o.constants)
            );
        }
    }
    println!("our calibration, differences from TF by reason:");
    let mut reasons: Vec<_> = reasons_total.into_iter().collect();
    reasons.sort();
    for (r, n) in reasons {
        println!("  {n:>4} {r}");
    }
    for k in KNOWN_DIFFERENCES {
        if selection.contains(k.0) && !known_seen.contains(&(k.0, k.1, k.2)) {
            failures.push(format!(
                "stale KNOWN_DIFFERENCES entry {}/{} '{}'",
                k.0, k.1, k.2
            ));
        }
    }
    // Fractions over what was quantized (a filtered run quantizes fewer models).
    if selection.expect_checked(written, "model to quantize") {
        for &(variant, min) in MIN_OURS_AGREEMENT {
            let Some((_, o)) = totals.get(variant) else {
                // Under ZP_CASE the selected cases may have no model of this variant.
                if selection.is_complete() {
                    failures.push(format!(
                        "{variant}: no model quantized with our calibration"
                    ));
                }
                continue;
            };
            let agreement = o.tensors.1 as f64 / o.tensors.0.max(1) as f64;
            if agreement < min {
                failures.push(format!(
                    "{variant}, our calibration: {}/{} tensors equal TF's, below {:.0}%",
                    o.tensors.1,
                    o.tensors.0,
                    min * 100.0
                ));
            }
        }
        let agreement = all.tensors.1 as f64 / all.tensors.0.max(1) as f64;
        if agreement < MIN_TENSOR_AGREEMENT {
            failures.push(format!(
                "only {:.2}% of quantized tensors equal TF's",
                agreement * 100.0
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} problem(s):\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// such a model, so each side is checked against TF's model of its own kind: every int16
/// operator reads and writes exactly what the same operator reads and writes in TF's 16x8 model
/// (dtype, scale bits, zero point, weights, int64 bias, options), and every int8 operator what
/// it does in TF's int8 model (float I/O). The models are written to `target/quantized/mixed/`,
/// where `check_quantized.py` runs them in LiteRT (BUILTIN_REF) and requires our engine to give
/// the same bits.
#[test]
fn int16_ops_match_tf_per_operator() {
    let dir = out_dir().join("mixed");
    std::fs::create_dir_all(&dir).expect("target/quantized/mixed");
    let mut failures = Vec::new();
    let (mut checked16, mut checked8, mut models) = (0usize, 0usize, 0usize);
    let selection = selected_cases("int16_ops_match_tf_per_operator");
    let panics = selection.each(|case| {
        let paths = [
            "model_float",
            "model_calibrated",
            "model_16x8",
            "model_int8_floatio",
        ]
        .map(|n| case.dir.join(format!("{n}.tflite")));
        if !paths.iter().all(|p| p.is_file()) {
            return;
        }
        let [float, calibrated, tf16, tf8] = paths.map(|p| read(&p));
        let ranges = Ranges::from_calibrated_model(&float, &calibrated).expect("TF ranges");
        // Every other operator that has a 16x8 kernel becomes int16. Same-scale and fixed-output
        // operators are not chosen: an int8 neighbour of an int16 one takes its parameters from
        // its own recorded range, where TF's all-int8 model would share or fix them (so no TF
        // model shows what those neighbours should get).
        let fsg = &float.subgraphs[0];
        let eligible: Vec<usize> = (0..fsg.operators.len())
            .filter(|&i| {
                zeropoint::ops::registry::properties(fsg.operators[i].code.op())
                    .is_some_and(|p| p.int16 && !p.same_scale && p.fixed_output.is_none())
            })
            .collect();
        let int16: Vec<usize> = eligible.iter().copied().step_by(2).collect();
        if int16.is_empty() {
            return;
        }
        let opts = QuantizeOptions {
            mode: Mode::Int8,
            io: IoType::Float,
            int16_ops: int16.iter().map(usize::to_string).collect(),
            ..QuantizeOptions::default()
        };
        let what = format!("{} (int16 ops {int16:?})", case.name);
        let ours = match quantize(&float, &ranges, &opts) {
            Ok((m, _)) => m,
            Err(e) => {
                failures.push(format!("{what}: {e}"));
                return;
            }
        };
        let path = dir.join(format!("{}_int8_floatio.tflite", case.name));
        std::fs::write(&path, tflite::write(&ours).expect("write")).expect("write mixed model");
        models += 1;
        let osg = &ours.subgraphs[0];
        let (oc, fc) = (compute_ops(osg), compute_ops(fsg));
        let (c16, c8) = (
            compute_ops(&tf16.subgraphs[0]),
            compute_ops(&tf8.subgraphs[0]),
        );
        if c8.len() < c16.len() {
            // TF's int8 model fused activations its 16x8 model keeps: neither shows what a mix
            // should be (an int16 producer keeps its activation, an int8 one fuses it).
            println!(
                "{what}: not compared: TF's int8 model fused {} activation(s)",
                c16.len() - c8.len()
            );
            return;
        }
        if oc.len() != fc.len() || c16.len() != fc.len() || c8.len() != fc.len() {
            failures.push(format!(
                "{what}: {} compute operators, float {}, TF 16x8 {}, TF int8 {}",
                oc.len(),
                fc.len(),
                c16.len(),
                c8.len()
            ));
            return;
        }
        for (k, &o) in oc.iter().enumerate() {
            let is16 = int16.contains(&fc[k]);
            let (tf, t) = if is16 { (&tf16, c16[k]) } else { (&tf8, c8[k]) };
            let (a, b) = (op_signature(&ours, o), op_signature(tf, t));
            if is16 {
                checked16 += 1;
            } else {
                checked8 += 1;
            }
            if a != b {
                let diff: Vec<String> = a
                    .iter()
                    .zip(&b)
                    .filter(|(x, y)| x != y)
                    .map(|(x, y)| format!("ours {x} | TF {y}"))
                    .collect();
                failures.push(format!(
                    "{what}: operator {} ({}, {}): {}",
                    fc[k],
                    osg.operators[o].code.name(),
                    if is16 { "int16" } else { "int8" },
                    diff.join("; ")
                ));
            }
        }
    });
    failures.extend(panics);
    println!("{models} mixed models: {checked16} int16 and {checked8} int8 operators compared");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    if selection.expect_checked(models, "operator with a 16x8 kernel to make int16")
        && selection.is_complete()
    {
        assert!(
            models >= 3 && checked16 > 0,
            "too few mixed models were made"
        );
    }
}

/// A model that is already partly quantized (some operators int8, others float with
/// QUANTIZE / DEQUANTIZE between them, as `--float-ops` leaves it) quantized again: its integer
/// operators keep their parameters, the float ones are quantized, the conversions between them
/// disappear, and the result is TF's int8 model (float I/O), tensor for tensor.
#[test]
fn partly_quantized_models_quantize_to_tfs_model() {
    let mut failures = Vec::new();
    let mut models = 0usize;
    let selection = selected_cases("partly_quantized_models_quantize_to_tfs_model");
    let panics = selection.each(|case| {
        let paths = ["model_float", "model_calibrated", "model_int8_floatio"]
            .map(|n| case.dir.join(format!("{n}.tflite")));
        if !paths.iter().all(|p| p.is_file()) {
            return;
        }
        let [float, calibrated, tf] = paths.map(|p| read(&p));
        let ranges = Ranges::from_calibrated_model(&float, &calibrated).expect("TF ranges");
        let n = float.subgraphs[0].operators.len();
        // Every third operator kept float in the partly quantized model (the first if only one),
        // except fixed-output and same-scale ones (LOGISTIC, CONCATENATION, RESHAPE, …): kept
        // float, their output takes parameters from its own range, which the int8 readers bake
        // in; quantized again, the op writes fixed or shared parameters and a requantize joins
        // the two (as it must: the readers are kept), where TF's all-at-once model has none.
        let fixed = |i: usize| {
            zeropoint::ops::registry::properties(float.subgraphs[0].operators[i].code.op())
                .is_some_and(|p| p.fixed_output.is_some() || p.same_scale)
        };
        // Likewise a standalone activation TF fused into its producer (TF's model has fewer
        // operators): kept float, the producer's result keeps its own range, which its int8
        // readers bake in, and quantized again nothing is left to fuse it into.
        let fused = compute_ops(&tf.subgraphs[0]).len() < compute_ops(&float.subgraphs[0]).len();
        let activation = |i: usize| {
            matches!(
                float.subgraphs[0].operators[i].code.op(),
                Op::RELU | Op::RELU6 | Op::RELU_N1_TO_1
            )
        };
        // And a convolution TF folded a PAD into: kept float, the PAD before it is quantized
        // (int8 now), and quantized again there is no float PAD left to fold.
        let after_pad = |i: usize| {
            let sg = &float.subgraphs[0];
            matches!(
                sg.operators[i].code.op(),
                Op::CONV_2D | Op::DEPTHWISE_CONV_2D
            ) && sg.operators.iter().any(|p| {
                p.code.op() == Op::PAD && p.outputs.first() == sg.operators[i].inputs.first()
            })
        };
        let kept: Vec<String> = (0..n)
            .filter(|&i| {
                (i % 3 == 1 || n == 1) && !fixed(i) && !(fused && (activation(i) || after_pad(i)))
            })
            .map(|i| i.to_string())
            .collect();
        let opts = |float_ops: Vec<String>| QuantizeOptions {
            mode: Mode::Int8,
            io: IoType::Float,
            float_ops,
            ..QuantizeOptions::default()
        };
        let what = format!("{} (float ops {kept:?})", case.name);
        let partly = match quantize(&float, &ranges, &opts(kept.clone())) {
            Ok((m, _)) => tflite::read(&tflite::write(&m).expect("write")).expect("read back"),
            Err(e) => {
                failures.push(format!("{what}: partly: {e}"));
                return;
            }
        };
        // TF's ranges matched to the partly quantized model's tensors by name (its tensor
        // indices differ from the float model's once a fused activation's tensor is gone).
        let partly_ranges =
            Ranges::from_calibrated_model(&partly, &calibrated).expect("TF ranges, partly");
        let again = match quantize(&partly, &partly_ranges, &opts(Vec::new())) {
            Ok((m, _)) => m,
            Err(e) => {
                failures.push(format!("{what}: again: {e}"));
                return;
            }
        };
        models += 1;
        let (tally, diffs) = compare(&again, &tf);
        if !diffs.is_empty() || tally.ops_match.1 != tally.ops_match.0 {
            for (name, d) in diffs {
                failures.push(format!("{what} '{name}':{d}"));
            }
        }
    });
    failures.extend(panics);
    println!("{models} partly quantized models quantized again, each equal to TF's int8 model");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    if selection.expect_checked(models, "int8_floatio model") && selection.is_complete() {
        assert!(models >= 10, "only {models} models");
    }
}

/// `--float-ops` indices count the operators of the file as given: in a float16 model (weights
/// behind DEQUANTIZE, folded before quantizing) index k names the k-th operator of that file,
/// so keeping the fp16 model's third CONV_2D float keeps the same operator float as keeping the
/// float32 model's third CONV_2D by its own index.
#[test]
fn float_ops_indices_count_the_operators_of_the_file_as_given() {
    let case = zeropoint_tests::cases()
        .into_iter()
        .find(|c| c.name == "mobilenet_v2")
        .expect("the mobilenet_v2 golden");
    let (float, fp16) = (
        read(&case.dir.join("model_float.tflite")),
        read(&case.dir.join("model_fp16.tflite")),
    );
    let third_conv = |m: &Model| {
        (0..m.subgraphs[0].operators.len())
            .filter(|&i| m.subgraphs[0].operators[i].code.op() == Op::CONV_2D)
            .nth(2)
            .expect("three CONV_2D")
    };
    let (i, k) = (third_conv(&float), third_conv(&fp16));
    assert_ne!(
        i, k,
        "the fp16 file must number its operators differently for this test"
    );
    // Positions, among the operators other than QUANTIZE / DEQUANTIZE, of those writing float.
    let kept_float = |m: &Model, index: usize| -> Vec<(usize, Op)> {
        let ranges = our_ranges(&case, m).expect("calibrates");
        let opts = QuantizeOptions {
            mode: Mode::Int8,
            io: IoType::Float,
            float_ops: vec![index.to_string()],
            ..QuantizeOptions::default()
        };
        let (q, _) = quantize(m, &ranges, &opts).expect("quantizes");
        let sg = &q.subgraphs[0];
        sg.operators
            .iter()
            .filter(|op| !matches!(op.code.op(), Op::DEQUANTIZE | Op::QUANTIZE))
            .enumerate()
            .filter(|(_, op)| {
                op.outputs.first().is_some_and(|&t| {
                    sg.tensors[t as usize].dtype == zeropoint::graph::TensorType::FLOAT32
                })
            })
            .map(|(p, op)| (p, op.code.op()))
            .collect()
    };
    let from_float = kept_float(&float, i);
    assert_eq!(
        from_float.len(),
        1,
        "one operator kept float: {from_float:?}"
    );
    assert_eq!(from_float[0].1, Op::CONV_2D);
    assert_eq!(kept_float(&fp16, k), from_float);
}
