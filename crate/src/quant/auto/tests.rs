//! Each `--auto` step on a model built to need it, with the improvement measured.

use super::*;
use crate::graph::{Buffer, BuiltinOperator, BuiltinOptionsT, Subgraph, Tensor, TensorType};
use crate::quant::calibrate::Calibrator;

use crate::engine::control_flow_tests::op;

/// `y = x + c`, `z = relu(y)`, x: [1, 8].
pub(super) fn add_relu() -> Model {
    let mut c = Tensor::new("c", TensorType::FLOAT32, vec![8]);
    c.buffer = 1;
    let cv = [0.25f32, -0.5, 0.125, 0.0, 0.5, -0.25, 0.75, -0.125];
    Model {
        version: 3,
        subgraphs: vec![Subgraph {
            tensors: vec![
                Tensor::new("x", TensorType::FLOAT32, vec![1, 8]),
                c,
                Tensor::new("y", TensorType::FLOAT32, vec![1, 8]),
                Tensor::new("z", TensorType::FLOAT32, vec![1, 8]),
            ],
            inputs: vec![0],
            outputs: vec![3],
            operators: vec![
                op(
                    BuiltinOperator::ADD,
                    &[0, 1],
                    &[2],
                    BuiltinOptionsT::AddOptions(Box::default()),
                ),
                op(BuiltinOperator::RELU, &[2], &[3], BuiltinOptionsT::NONE),
            ],
            ..Default::default()
        }],
        buffers: vec![
            Buffer::default(),
            Buffer {
                data: bytemuck::cast_slice(&cv).to_vec(),
            },
        ],
        ..Default::default()
    }
}

/// `y = FC(x, w, b)`, x: [1, 64], w: [4, 64], b: [4]. Row `o` of `w` holds one weight `1.0`
/// (which sets the channel's scale to 1/127) and 63 weights `(j + 0.4)/127`, j = 0, 1, 2, which
/// int8 rounds down to `j/127`: every weight but one errs by −0.4/127, all in the same direction.
pub(super) fn fc_systematic() -> (Model, Vec<f32>) {
    let mut w = Vec::new();
    for o in 0..4 {
        for i in 0..64 {
            w.push(if i == o {
                1.0f32
            } else {
                ((i % 3) as f32 + 0.4) / 127.0
            });
        }
    }
    let b = [0.5f32, -0.5, 0.25, 0.0];
    let mut wt = Tensor::new("w", TensorType::FLOAT32, vec![4, 64]);
    wt.buffer = 1;
    let mut bt = Tensor::new("b", TensorType::FLOAT32, vec![4]);
    bt.buffer = 2;
    let m = Model {
        version: 3,
        subgraphs: vec![Subgraph {
            tensors: vec![
                Tensor::new("x", TensorType::FLOAT32, vec![1, 64]),
                wt,
                bt,
                Tensor::new("y", TensorType::FLOAT32, vec![1, 4]),
            ],
            inputs: vec![0],
            outputs: vec![3],
            operators: vec![op(
                BuiltinOperator::FULLY_CONNECTED,
                &[0, 1, 2],
                &[3],
                BuiltinOptionsT::FullyConnectedOptions(Box::default()),
            )],
            ..Default::default()
        }],
        buffers: vec![
            Buffer::default(),
            Buffer {
                data: bytemuck::cast_slice(&w).to_vec(),
            },
            Buffer {
                data: bytemuck::cast_slice(&b).to_vec(),
            },
        ],
        ..Default::default()
    };
    (m, w)
}

/// A deterministic value in [0, 1) (a fixed linear congruential sequence).
pub(super) fn unit(k: u32) -> f32 {
    (k.wrapping_mul(2_654_435_761) >> 8) as f32 / (1u32 << 24) as f32
}

/// `n` seeded samples of `add_relu`'s input, uniform in [-1, 1).
pub(super) fn signed_samples(n: u32) -> Samples {
    (0..n)
        .map(|k| vec![(0..8).map(|j| 2.0 * unit(k * 8 + j) - 1.0).collect()])
        .collect()
}

pub(super) fn calibrate(model: &Model, samples: &[Vec<Vec<f32>>]) -> CalibrationStats {
    let mut cal = Calibrator::new(model).expect("prepares");
    for s in samples {
        for (i, x) in s.iter().enumerate() {
            cal.set_input(i, x).expect("fits");
        }
        cal.add_sample().expect("finite");
    }
    cal.stats(Method::MinMax).expect("stats")
}

/// One sample of [`add_relu`]'s input: 8 values in [−1, 1].
pub(super) fn ordinary(k: u32) -> Vec<Vec<f32>> {
    vec![(0..8).map(|j| 2.0 * unit(k * 8 + j) - 1.0).collect()]
}

/// [`add_relu`] calibrated on 400 [`ordinary`] samples, one of which holds 1000 in x[3]; and
/// those samples.
pub(super) fn outlier_calibrated() -> (Model, CalibrationStats, Samples) {
    let model = add_relu();
    let mut calib: Vec<_> = (0..400).map(ordinary).collect();
    calib[200][0][3] = 1000.0;
    let stats = calibrate(&model, &calib);
    (model, stats, calib)
}

#[test]
fn an_outlier_makes_a_clipping_range_win_over_min_max() {
    // 400 samples in [−1, 1]; one calibration sample holds 1000 in x. Min/max spends the 256
    // int8 levels of x on [−1, 1000] (step ≈ 3.9: every ordinary value rounds to 0 or ±1 step).
    let (model, stats, _) = outlier_calibrated();
    // 24 samples: 18 search samples, enough for a single split (fewer cross-validate).
    let scoring: Vec<_> = (1000..1024).map(ordinary).collect();
    let (q, _, rep) = auto_quantize(
        &model,
        &stats,
        &scoring,
        &QuantizeOptions::default(),
        &AutoOptions::default(),
        None,
    )
    .expect("quantizes");
    let tf = rep.tf_compatible_sqnr_db.expect("measured");
    let ours = rep.sqnr_db.expect("measured");
    assert!(tf < 10.0, "min/max loses: {tf} dB");
    assert!(
        ours > tf + 20.0,
        "a clipped range wins: {ours} dB vs {tf} dB"
    );
    let x = rep
        .ranges
        .iter()
        .find(|c| c.name == "x")
        .expect("x changed");
    assert_ne!(x.method, "minmax");
    assert!(x.max < 2.0 && x.minmax[1] == 1000.0, "{x:?}");
    assert!(!rep.fell_back);
    // The written model is the one scored (on the search samples), and it beat TF's on the
    // held-out ones.
    let (search, held) = split_samples(&scoring);
    assert_eq!((rep.samples, rep.held_out_samples, rep.folds), (18, 6, 2));
    assert!(!rep.cross_validated);
    let every_4th: Vec<_> = (3..24).step_by(4).map(|k| scoring[k].clone()).collect();
    assert_eq!(held, every_4th);
    let mut scorer =
        Scorer::new(&model, &search, &ShapeOverrides::default(), FOLDS).expect("float");
    assert_eq!(scorer.score(&q).expect("runs").total, ours);
    assert!(
        rep.held_out_sqnr_db > rep.held_out_tf_compatible_sqnr_db,
        "{rep:?}"
    );
}

#[test]
fn min_max_is_kept_when_nothing_scores_better() {
    // Uniform data, no outlier, and the scoring samples reach the ends of the range: clipping
    // can only lose, so TF's ranges stay and the result is TF's model.
    let model = add_relu();
    let samples: Vec<Vec<Vec<f32>>> = (0..64)
        .map(|k| {
            vec![
                (0..8)
                    .map(|j| ((k * 8 + j) % 33) as f32 / 16.0 - 1.0)
                    .collect(),
            ]
        })
        .collect();
    let stats = calibrate(&model, &samples);
    let opts = QuantizeOptions::default();
    let (q, _, rep) = auto_quantize(
        &model,
        &stats,
        &samples,
        &opts,
        &AutoOptions::default(),
        None,
    )
    .expect("ok");
    let tf_ranges = Ranges::from_calibration(&model, &stats).expect("ranges");
    let (tf, _) = quantize(&model, &tf_ranges, &opts).expect("tf");
    assert_eq!(rep.sqnr_db, rep.tf_compatible_sqnr_db, "{rep:?}");
    assert!(rep.ranges.is_empty() && rep.bias_corrected.is_empty());
    assert_eq!(q, tf);
}

#[test]
fn bias_correction_removes_a_constructed_systematic_error() {
    let (model, w) = fc_systematic();
    // Inputs in [0.9, 1.1): E[x] ≈ 1 per channel.
    let samples: Vec<Vec<Vec<f32>>> = (0..32)
        .map(|k| vec![(0..64).map(|j| 0.9 + 0.2 * unit(k * 64 + j)).collect()])
        .collect();
    let (corrected, ops) =
        bias::bias_corrected(&model, &model, &samples, &ShapeOverrides::default(), false)
            .expect("runs")
            .expect("the FC applies");
    assert_eq!(ops, vec![0]);
    // Expected correction, by hand: every weight but the 1.0 is (j + 0.4)/127 and quantizes to
    // j/127 (scale 1/127), an error of −0.4/127 each; the channel error is Σ ΔW·E[x].
    let mut mean = [0f64; 64];
    for s in &samples {
        for (m, &x) in mean.iter_mut().zip(&s[0]) {
            *m += f64::from(x) / samples.len() as f64;
        }
    }
    let old = [0.5f64, -0.5, 0.25, 0.0];
    let new: Vec<f32> =
        bytemuck::cast_slice::<u8, f32>(corrected.tensor_data(0, 2).expect("b")).to_vec();
    for o in 0..4 {
        let err: f64 = (0..64)
            .filter(|&i| i != o)
            .map(|i| {
                let wf = f64::from(w[o * 64 + i]);
                let wq = (i % 3) as f64 / 127.0;
                (wq - wf) * mean[i]
            })
            .sum();
        assert!(err < -0.19, "a systematic error: {err}");
        let want = old[o] - err;
        assert!(
            (f64::from(new[o]) - want).abs() < 1e-5,
            "channel {o}: {} vs {want}",
            new[o]
        );
    }
    // And measured: the corrected model's output error is smaller.
    let stats = calibrate(&model, &samples);
    let ranges = Ranges::from_calibration(&model, &stats).expect("ranges");
    let opts = QuantizeOptions::default();
    let mut scorer = Scorer::new(&model, &samples, &ShapeOverrides::default(), 1).expect("float");
    let plain = scorer
        .score(&quantize(&model, &ranges, &opts).expect("q").0)
        .expect("runs")
        .total;
    let fixed = scorer
        .score(&quantize(&corrected, &ranges, &opts).expect("q").0)
        .expect("runs")
        .total;
    assert!(fixed > plain + 10.0, "{fixed} dB vs {plain} dB");
    // The same scores, to the bit, whatever the number of scoring threads (each runs a
    // contiguous run of samples; the errors are summed in sample order).
    let candidate = quantize(&model, &ranges, &opts).expect("q").0;
    let folded = |threads: usize| {
        Scorer::new(&model, &samples, &ShapeOverrides::default(), 3)
            .expect("float")
            .with_threads(threads)
            .score(&candidate)
            .expect("runs")
    };
    let one = folded(1);
    assert!(one.noise.iter().all(|&n| n > 0.0), "{one:?}");
    for threads in [2, 3, samples.len(), samples.len() + 5] {
        assert_eq!(folded(threads), one, "{threads} threads");
    }
    // --auto keeps it.
    let (_, _, rep) = auto_quantize(
        &model,
        &stats,
        &samples,
        &opts,
        &AutoOptions::default(),
        None,
    )
    .expect("ok");
    assert_eq!(
        rep.bias_corrected,
        vec!["FULLY_CONNECTED #0 (y)".to_string()]
    );
}

#[test]
fn the_weight_steps_reach_weights_stored_as_float16() {
    // fc_systematic's weights and bias stored as float16 behind DEQUANTIZE (as MediaPipe ships
    // its models): bias correction applies to the folded float32 values, the operator is named
    // by its index in the file, and the written model is plain int8.
    let (model, _) = fc_systematic();
    let fp16 = QuantizeOptions {
        mode: Mode::Float16,
        ..QuantizeOptions::default()
    };
    let (f16, _) = quantize(&model, &Ranges::new(), &fp16).expect("float16");
    let ops = &f16.subgraphs[0].operators;
    let fc = ops
        .iter()
        .position(|o| o.code.op() == BuiltinOperator::FULLY_CONNECTED)
        .expect("the FC");
    assert!(fc > 0, "the DEQUANTIZEs come first");
    let samples: Vec<Vec<Vec<f32>>> = (0..32)
        .map(|k| vec![(0..64).map(|j| 0.9 + 0.2 * unit(k * 64 + j)).collect()])
        .collect();
    let stats = calibrate(&f16, &samples);
    let opts = QuantizeOptions::default();
    let (q, _, rep) =
        auto_quantize(&f16, &stats, &samples, &opts, &AutoOptions::default(), None).expect("ok");
    assert_eq!(
        rep.bias_corrected,
        vec![format!("FULLY_CONNECTED #{fc} (y)")]
    );
    let (tf, _) = quantize(
        &f16,
        &Ranges::from_calibration(&f16, &stats).expect("r"),
        &opts,
    )
    .expect("TF-compatible");
    for m in [&q, &tf] {
        let sg = &m.subgraphs[0];
        let names: Vec<String> = sg.operators.iter().map(|o| o.code.name()).collect();
        assert_eq!(names, ["FULLY_CONNECTED"], "int8 I/O");
        assert!(sg.tensors.iter().all(|t| t.dtype != TensorType::FLOAT16));
    }
    let bias = |m: &Model| {
        let op = &m.subgraphs[0].operators[0];
        m.tensor_data(0, op.input(2).expect("bias"))
            .expect("const")
            .to_vec()
    };
    assert_ne!(bias(&q), bias(&tf), "the corrected bias is written");
    assert!(rep.sqnr_db > rep.tf_compatible_sqnr_db, "{rep:?}");
}

#[test]
fn a_target_moves_operators_to_int16_until_it_holds() {
    let model = add_relu();
    let samples = signed_samples(32);
    let stats = calibrate(&model, &samples);
    let opts = QuantizeOptions::default();
    let (_, _, int8) = auto_quantize(
        &model,
        &stats,
        &samples,
        &opts,
        &AutoOptions::default(),
        None,
    )
    .expect("ok");
    let base = int8.sqnr_db.expect("measured");
    let target = base + 15.0;
    let auto = AutoOptions {
        target_sqnr_db: Some(target),
        ..AutoOptions::default()
    };
    let (q, report, rep) = auto_quantize(&model, &stats, &samples, &opts, &auto, None).expect("ok");
    assert_eq!(rep.target_reached, Some(true), "{rep:?}");
    assert!(rep.sqnr_db.expect("measured") >= target);
    assert!(!rep.int16_ops.is_empty());
    assert!(
        q.subgraphs[0]
            .tensors
            .iter()
            .any(|t| t.dtype == TensorType::INT16),
        "an int16 tensor"
    );
    assert!(report.warnings.iter().any(|w| w.contains("--auto")));
    // Without a target nothing moves (int8 only).
    assert!(int8.int16_ops.is_empty() && int8.target_reached.is_none());
}

#[test]
fn refuses_other_modes_and_missing_samples() {
    let model = add_relu();
    let samples = vec![vec![vec![0.5f32; 8]]];
    let stats = calibrate(&model, &samples);
    let opts = QuantizeOptions {
        mode: Mode::Int16x8,
        ..QuantizeOptions::default()
    };
    let e = auto_quantize(
        &model,
        &stats,
        &samples,
        &opts,
        &AutoOptions::default(),
        None,
    )
    .expect_err("int8 only");
    assert!(e.to_string().contains("--auto"), "{e}");
    let e = auto_quantize(
        &model,
        &stats,
        &[],
        &QuantizeOptions::default(),
        &AutoOptions::default(),
        None,
    )
    .expect_err("no samples");
    assert!(e.to_string().contains("samples"), "{e}");
}

#[test]
fn without_a_16x8_kernel_a_target_keeps_the_operator_float() {
    // y = x + c, z = PRELU(y, alpha): LiteRT has no 16x8 PRELU, so its move is to float.
    let mut model = add_relu();
    let mut alpha = Tensor::new("alpha", TensorType::FLOAT32, vec![8]);
    alpha.buffer = 2;
    model.subgraphs[0].tensors.push(alpha);
    model.buffers.push(Buffer {
        data: bytemuck::cast_slice(&[0.25f32; 8]).to_vec(),
    });
    model.subgraphs[0].operators[1] =
        op(BuiltinOperator::PRELU, &[2, 4], &[3], BuiltinOptionsT::NONE);
    let samples = signed_samples(32);
    let stats = calibrate(&model, &samples);
    let auto = AutoOptions {
        target_sqnr_db: Some(300.0),
        ..AutoOptions::default()
    };
    let (_, _, rep) = auto_quantize(
        &model,
        &stats,
        &samples,
        &QuantizeOptions::default(),
        &auto,
        None,
    )
    .expect("ok");
    let prelu = rep
        .sensitivity
        .iter()
        .find(|s| s.index == 1)
        .expect("PRELU ranked");
    assert_eq!(prelu.fix, rank::Fix::Float, "{rep:?}");
    let add = rep
        .sensitivity
        .iter()
        .find(|s| s.index == 0)
        .expect("ADD ranked");
    assert_eq!(add.fix, rank::Fix::Int16);
    // Unreachable target: the best prefix is kept, and what it moved is reported by kind.
    assert_eq!(rep.target_reached, Some(false));
    assert!(rep.sensitivity.iter().any(|s| s.moved), "{rep:?}");
    for s in &rep.sensitivity {
        let listed = match s.fix {
            rank::Fix::Int16 => rep.int16_ops.contains(&s.index),
            rank::Fix::Float => rep.float_ops.contains(&s.index),
        };
        assert_eq!(listed, s.moved, "{s:?}");
    }
}

/// `auto_quantize` with the default options (int8), without recalibration.
fn auto_int8(
    model: &Model,
    stats: &CalibrationStats,
    samples: &[Vec<Vec<f32>>],
    auto: &AutoOptions,
) -> Result<(Model, Report, AutoReport)> {
    auto_quantize(
        model,
        stats,
        samples,
        &QuantizeOptions::default(),
        auto,
        None,
    )
}

#[test]
fn an_accuracy_target_is_measured_on_the_labelled_search_samples() {
    let model = add_relu();
    let c = [0.25f32, -0.5, 0.125, 0.0, 0.5, -0.25, 0.75, -0.125];
    let samples = signed_samples(32);
    // The float model's class: the first largest of relu(x + c).
    let class = |x: &[f32]| {
        let z: Vec<f32> = x.iter().zip(c).map(|(x, c)| (x + c).max(0.0)).collect();
        (0..8).fold(0, |b, j| if z[j] > z[b] { j } else { b })
    };
    // Right on even samples, wrong on odd ones.
    let labels: Vec<usize> = samples
        .iter()
        .enumerate()
        .map(|(k, s)| {
            if k % 2 == 0 {
                class(&s[0])
            } else {
                (class(&s[0]) + 1) % 8
            }
        })
        .collect();
    let stats = calibrate(&model, &samples);
    let run = |drop: f64, labels: Vec<usize>| {
        let auto = AutoOptions {
            target_accuracy_drop: Some(drop),
            labels,
            ..AutoOptions::default()
        };
        auto_int8(&model, &stats, &samples, &auto)
    };
    // 32 samples: the search samples are positions k mod 4 in {0, 1, 2} (24), two of every
    // three even.
    let (_, _, rep) = run(100.0, labels.clone()).expect("ok");
    assert_eq!(rep.samples, 24);
    assert_eq!(rep.float_accuracy, Some(16.0 / 24.0), "{rep:?}");
    let acc = rep.accuracy.expect("measured");
    assert!((0.0..=1.0).contains(&acc));
    // A drop of 100 points is met by the int8 model as it is: nothing moves.
    assert_eq!(rep.target_reached, Some(true));
    assert!(
        rep.int16_ops.is_empty() && rep.float_ops.is_empty(),
        "{rep:?}"
    );
    // A "drop" of −60 points (60 above the float model's 67 %) cannot be met.
    let (_, _, rep) = run(-60.0, labels.clone()).expect("ok");
    assert_eq!(rep.target_reached, Some(false), "{rep:?}");
    assert!(!rep.sensitivity.is_empty(), "the operators were ranked");
    // One label per sample, finite targets.
    let e = run(1.0, labels[..31].to_vec()).expect_err("refused");
    assert!(e.to_string().contains("31 labels for 32 samples"), "{e}");
    let e = run(f64::NAN, labels).expect_err("refused");
    assert!(e.to_string().contains("not a finite number"), "{e}");
}

#[test]
fn the_accuracy_counts_the_top1_class_of_the_label_output() {
    // add_relu with a second output n = −y: its top-1 class is the smallest element of y,
    // which the labels name.
    let mut model = add_relu();
    let sg = &mut model.subgraphs[0];
    sg.tensors
        .push(Tensor::new("n", TensorType::FLOAT32, vec![1, 8]));
    sg.operators
        .push(op(BuiltinOperator::NEG, &[2], &[4], BuiltinOptionsT::NONE));
    sg.outputs = vec![3, 4];
    let c = [0.25f32, -0.5, 0.125, 0.0, 0.5, -0.25, 0.75, -0.125];
    let samples = signed_samples(32);
    let smallest = |x: &[f32]| {
        let y: Vec<f32> = x.iter().zip(c).map(|(x, c)| x + c).collect();
        (0..8).fold(0, |b, j| if y[j] < y[b] { j } else { b })
    };
    let labels: Vec<usize> = samples.iter().map(|s| smallest(&s[0])).collect();
    let stats = calibrate(&model, &samples);
    let run = |output: usize, labels: Vec<usize>| {
        let auto = AutoOptions {
            target_accuracy_drop: Some(100.0),
            labels,
            label_output: output,
            budget: 4,
            ..AutoOptions::default()
        };
        auto_int8(&model, &stats, &samples, &auto)
    };
    let (_, _, rep) = run(1, labels.clone()).expect("ok");
    assert_eq!(rep.label_output, Some(1));
    assert_eq!(rep.float_accuracy, Some(1.0), "{rep:?}");
    // The int8 model's classes are counted on output 1 too (a tie may move one).
    assert!(rep.accuracy.is_some_and(|a| a >= 0.75), "{rep:?}");
    // Output 0 (relu(y)) has its largest element where y is largest, never its smallest.
    let (_, _, rep) = run(0, labels.clone()).expect("ok");
    assert_eq!(rep.float_accuracy, Some(0.0), "{rep:?}");
    // No output 2; a label past the output's classes.
    let e = run(2, labels.clone()).expect_err("refused");
    assert!(e.to_string().contains("the model has 2 outputs"), "{e}");
    let mut past = labels;
    past[5] = 8;
    let e = run(1, past).expect_err("refused");
    assert!(
        e.to_string()
            .contains("a label is 8, but output 1 has 8 classes (0 to 7)"),
        "{e}"
    );
}
