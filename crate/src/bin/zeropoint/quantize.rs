//! `zeropoint quantize`: TF-exact quantization (int8, int16x8, dynamic range, float16) with
//! ranges from our calibration (`--data`) or from TF's (`--stats`).
//!
//! A model with several signatures is quantized in dynamic range and float16 with every
//! signature kept; int8 / int16x8 calibrate each signature on its own samples
//! (`--signature-data KEY=X.npy`, as TF's representative dataset of `(key, inputs)` tuples; or one
//! `--data` for signatures that all take the same inputs), or read the per-signature statistics
//! `zeropoint calibrate` wrote or TF's calibrated-only model (`--stats`), and quantize every
//! signature's subgraph with its ranges ([`zeropoint::quant::quantize_signatures`]); `--auto`
//! searches each signature on its own samples; `--report` has a section per signature. Every path
//! starts from one [`Setup`].

use std::path::{Path, PathBuf};

use clap::Args;
use zeropoint::limits::UserLimits;
use zeropoint::quant::auto::AutoOptions;
use zeropoint::quant::calibrate::{Method, StatsFile, parse_stats_file};
use zeropoint::quant::{IoType, Mode, QuantizeOptions, Ranges, Report};
use zeropoint::{Error, Result};

use crate::calibrate::{CalibrationSource, Setup, SignatureSamples, ThreadsArg, in_signature};
use crate::io::{ShapeArgs, load, read_file, write_file, write_json};

#[derive(Args)]
pub struct QuantizeArgs {
    /// The float .tflite file.
    model: PathBuf,
    /// int8, int16x8, dynamic, float16, or dynamic-int4 (INT4 FULLY_CONNECTED / CONV_2D weights, as
    /// AI Edge Quantizer's dynamic_wi4 recipe).
    #[arg(long, default_value = "int8")]
    mode: String,
    /// Input/output type: int8 (int16 for int16x8), uint8 or float.
    #[arg(long, default_value = "int8")]
    io: String,
    /// Calibration samples: one .npy per model input (first axis = samples). For a model with
    /// several signatures that all take the same inputs: the same samples for each (in the
    /// signature's input order).
    #[arg(long = "data")]
    data: Vec<PathBuf>,
    /// Calibration samples of one signature of a model with several (int8 / int16x8):
    /// `KEY=X.npy`, once per input of that signature, in the signature's input order (as
    /// `inspect` lists them); every signature needs its samples.
    #[arg(long = "signature-data", value_name = "KEY=X.npy")]
    signature_data: Vec<String>,
    /// Calibration statistics instead of --data: a STATS.json from `zeropoint calibrate`, or
    /// a calibrated .tflite whose tensors carry min/max (TF's model_calibrated.tflite; with
    /// several signatures, each signature's from its own subgraph).
    #[arg(long)]
    stats: Option<PathBuf>,
    /// Range selection: minmax, percentile:P, mse or moving-average. With --data it picks the
    /// ranges of the new calibration (default minmax); with a --stats JSON it re-chooses them
    /// from the file's histograms and extremes (default: the file's own choice).
    #[arg(long)]
    calibration: Option<String>,
    /// Per-tensor weights instead of per-channel.
    #[arg(long)]
    per_tensor: bool,
    /// Operators to keep float: indices or output tensor names, comma-separated.
    #[arg(long, value_delimiter = ',')]
    float_ops: Vec<String>,
    /// Operators to run with int16 activations (16x8) in an int8 model: indices or output
    /// tensor names, comma-separated (--mode int8 only).
    #[arg(long, value_delimiter = ',')]
    int16_ops: Vec<String>,
    /// Beyond TF: choose each activation's range (min/max, percentile, MSE, KL), correct the
    /// bias of CONV_2D / DEPTHWISE_CONV_2D / FULLY_CONNECTED, each kept only when the output SQNR
    /// on the first calibration samples improves (needs --data, or --signature-data for a model
    /// with several signatures, each searched on its own; --mode int8). Never scores below the
    /// TF-compatible model on those samples.
    #[arg(long)]
    auto: bool,
    /// With --auto: move the fewest operators to int16 activations (16x8), or keep float those
    /// without a 16x8 kernel, until the output SQNR reaches this many dB.
    #[arg(long, value_name = "DB")]
    target_sqnr: Option<f64>,
    /// With --auto: move operators the same way until the top-1 accuracy (the largest element of
    /// --label-output) on the labelled --data samples is at most this many percentage points
    /// below the float model's; needs --labels.
    #[arg(long, value_name = "PCT")]
    target_accuracy_drop: Option<f64>,
    /// Class labels of the --data samples, one per sample in order: an integer .npy of shape
    /// [N] or [N, 1] (for --target-accuracy-drop).
    #[arg(long, value_name = "LABELS.npy")]
    labels: Option<PathBuf>,
    /// The output holding the class scores the labels are compared with (its largest element
    /// is the class); with --labels.
    #[arg(long, value_name = "N", requires = "labels")]
    label_output: Option<usize>,
    /// With --auto: at most this many candidate models are scored (weight clipping's, at most
    /// one per operator it changes and one more, not counted).
    #[arg(long, value_name = "N", default_value_t = zeropoint::quant::auto::DEFAULT_BUDGET)]
    auto_budget: usize,
    /// With --auto: score every candidate model from the inputs, not from the last saved
    /// activations before its first changed operator (the same result, slower: to check or
    /// time that).
    #[arg(long)]
    auto_whole_runs: bool,
    /// With --auto: stop searching after about SECS seconds and judge the best found by then
    /// (the guard still runs; cross-validated, each search gets its share). The result then
    /// depends on the machine's speed; the report says whether the limit was reached.
    #[arg(long, value_name = "SECS")]
    auto_time_limit: Option<f64>,
    /// Write a JSON report (per tensor ranges and parameters, per op multipliers); with several
    /// signatures (int8 / int16x8), one section per signature.
    #[arg(long)]
    report: Option<PathBuf>,
    /// Where to write the quantized model.
    #[arg(short, long)]
    output: PathBuf,
    /// Input shapes for calibrating with --data (the quantized model keeps the stored shapes
    /// and the dynamic signature, as TF's does).
    #[command(flatten)]
    shapes: ShapeArgs,
    #[command(flatten)]
    threads: ThreadsArg,
}

/// `zeropoint quantize`: parses the mode and I/O type, then quantizes.
pub fn quantize(args: QuantizeArgs, limits: &UserLimits) -> Result<()> {
    let QuantizeArgs {
        model,
        mode,
        io,
        data,
        signature_data,
        stats,
        calibration,
        per_tensor,
        float_ops,
        int16_ops,
        auto,
        target_sqnr,
        target_accuracy_drop,
        labels,
        label_output,
        auto_budget,
        auto_whole_runs,
        auto_time_limit,
        report,
        output,
        shapes,
        threads,
    } = args;
    if target_accuracy_drop.is_some() != labels.is_some() {
        return Err(Error::Calibration {
            reason: "--target-accuracy-drop and --labels go together: the accuracy is measured \
                     on the labelled --data samples"
                .into(),
        });
    }
    let labels = labels
        .as_deref()
        .map(crate::samples::read_labels)
        .transpose()?
        .unwrap_or_default();
    let auto =
        (auto || target_sqnr.is_some() || target_accuracy_drop.is_some()).then(|| AutoOptions {
            target_sqnr_db: target_sqnr,
            budget: auto_budget,
            shapes: shapes.overrides(),
            target_accuracy_drop,
            labels,
            label_output: label_output.unwrap_or(0),
            whole_runs: auto_whole_runs,
            time_limit: auto_time_limit,
        });
    let opts = QuantizeOptions {
        mode: Mode::parse(&mode)?,
        io: IoType::parse(&io)?,
        per_tensor,
        float_ops,
        int16_ops,
        constants: Vec::new(),
    };
    let setup = Setup::new(&model, &shapes, limits, threads)?;
    let method = calibration.as_deref().map(Method::parse).transpose()?;
    let signatures = setup.model.signatures.len();
    if matches!(opts.mode, Mode::Int8 | Mode::Int16x8) && signatures > 1 {
        if auto.as_ref().is_some_and(|a| !a.labels.is_empty()) {
            return Err(Error::Calibration {
                reason: "--target-accuracy-drop takes the labels of one model's --data: this \
                         model has several signatures"
                    .into(),
            });
        }
        let samples = match (data.is_empty(), signature_data.is_empty()) {
            (false, false) => {
                return Err(Error::Calibration {
                    reason: "give either --data (the same samples for every signature) or \
                             --signature-data (each signature its own), not both"
                        .into(),
                });
            }
            (false, true) => Some(SignatureSamples::Shared(CalibrationSource::Npy(data))),
            (true, false) => Some(SignatureSamples::PerKey(&signature_data)),
            (true, true) => None,
        };
        let out = Outputs {
            report,
            model: output,
        };
        if let Some(a) = &auto {
            let Some(samples) = samples.filter(|_| stats.is_none() && method.is_none()) else {
                return Err(Error::Calibration {
                    reason: "--auto (and --target-sqnr) measure the output error on calibration \
                             samples and choose the ranges themselves: give --signature-data \
                             (or --data), without --stats or --calibration"
                        .into(),
                });
            };
            return auto_by_signature(&setup, samples, &opts, a, &out);
        }
        return quantize_by_signature(&setup, samples, stats, method, &opts, &out);
    }
    if !signature_data.is_empty() {
        return Err(Error::Calibration {
            reason: format!(
                "--signature-data is for int8 / int16x8 of a model with several signatures; this \
                 one has {signatures} (use --data) and the mode is {}",
                opts.mode.name()
            ),
        });
    }
    quantize_model(&setup, data, stats, method, opts, auto, report, &output)
}

/// The statistics file at `path`: a STATS.json of either kind, or `None` for anything else
/// (a calibrated .tflite).
fn read_stats(path: &Path) -> Result<Option<StatsFile>> {
    let bytes = read_file(path)?;
    if !bytes.starts_with(b"{") {
        return Ok(None);
    }
    parse_stats_file(&bytes)
        .map(Some)
        .map_err(|e| Error::Calibration {
            reason: format!("{}: {e}", path.display()),
        })
}

/// Writes the quantized model and says so (`what` ends the line).
fn write_quantized(output: &Path, bytes: &[u8], rep: &Report, what: &str) -> Result<()> {
    write_file(output, bytes)?;
    eprintln!(
        "wrote {} ({} bytes, mode {}, I/O {}{what})",
        output.display(),
        bytes.len(),
        rep.mode,
        rep.io,
    );
    Ok(())
}

/// Where a quantization of several signatures writes: the model, and the report if asked for.
struct Outputs {
    /// `--report`.
    report: Option<PathBuf>,
    /// `-o`.
    model: PathBuf,
}

/// int8 / int16x8 of a model with several signatures, each with the ranges of its samples:
/// calibrated here (`--signature-data`, or one `--data` for signatures that take the same
/// inputs: [`Setup::signature_stats`]), read from the file `zeropoint calibrate` wrote for such a
/// model (`--stats STATS.json`), or the min/max TF's calibrator recorded in each signature's
/// subgraph (`--stats` TF's calibrated-only .tflite); then every signature quantized with its
/// ranges ([`zeropoint::quant::quantize_signatures`]). The same samples give the same bytes by
/// every route.
fn quantize_by_signature(
    setup: &Setup,
    samples: Option<SignatureSamples>,
    stats: Option<PathBuf>,
    method: Option<Method>,
    opts: &QuantizeOptions,
    out: &Outputs,
) -> Result<()> {
    use zeropoint::quant::{
        assemble_signatures, quantize_signature_parts, signature_model, signature_ranges,
    };
    let m = &setup.model;
    // Each signature's first samples, for the report's errors (with samples and --report).
    let mut errors = Vec::new();
    let ranges = match (stats, samples) {
        (Some(_), Some(_)) => {
            return Err(Error::Calibration {
                reason: "give either --signature-data (or --data) or --stats, not both".into(),
            });
        }
        (None, Some(samples)) => {
            let keep = out.report.is_some().then_some(&mut errors);
            let stats = setup.signature_stats(samples, method.unwrap_or(Method::MinMax), keep)?;
            signature_ranges(m, &stats)?
        }
        (Some(path), None) => match read_stats(&path)? {
            Some(StatsFile::Signatures(s)) => {
                let s = match method {
                    Some(method) => s.with_method(method)?,
                    None => s,
                };
                signature_ranges(m, &s)?
            }
            Some(StatsFile::Model(_)) => {
                return Err(Error::Calibration {
                    reason: format!(
                        "{}: statistics of one subgraph; the model has {} signatures, each \
                         calibrated on its own samples: give the STATS.json of `zeropoint \
                         calibrate --signature-data KEY=X.npy …` (or of `calibrate --data` for \
                         signatures that take the same inputs)",
                        path.display(),
                        m.signatures.len()
                    ),
                });
            }
            None => {
                refuse_method_for_calibrated(&path, method)?;
                // TF's calibrated-only model keeps one subgraph per signature, each with the
                // min/max of its signature's samples.
                let cal = load(&path, setup.limits)?;
                zeropoint::engine::signatures::keys(m)
                    .into_iter()
                    .map(|key| {
                        let part = signature_model(m, &key)?;
                        let cal_part =
                            signature_model(&cal, &key).map_err(|e| Error::Calibration {
                                reason: format!(
                                    "{}: not a calibrated model of these signatures: {e}",
                                    path.display()
                                ),
                            })?;
                        let r = Ranges::from_calibrated_model(&part, &cal_part)?;
                        Ok((key, r))
                    })
                    .collect::<Result<Vec<_>>>()?
            }
        },
        (None, None) => {
            let keys: Vec<String> = zeropoint::engine::signatures::keys(m)
                .iter()
                .map(|k| format!("'{k}'"))
                .collect();
            return Err(Error::Calibration {
                reason: format!(
                    "--mode {} of a model with {} signatures ({}) needs calibration: \
                     --signature-data KEY=X.npy for every signature (each on its own samples, as \
                     TF's representative dataset of (key, inputs) tuples), --data X.npy when \
                     every signature takes the same inputs, or --stats (the STATS.json of \
                     `zeropoint calibrate`, or TF's calibrated .tflite)",
                    opts.mode.name(),
                    keys.len(),
                    keys.join(", ")
                ),
            });
        }
    };
    let parts = quantize_signature_parts(m, &ranges, opts)?;
    // The report's sections: each signature's part and its report, before they are assembled.
    let sections = match out.report {
        Some(_) => parts
            .iter()
            .map(|(key, _, rep)| (key.clone(), rep.clone()))
            .collect(),
        None => Vec::new(),
    };
    let (q, rep) = assemble_signatures(m, parts)?;
    let what = format!(
        ", {} signatures each calibrated on its samples",
        ranges.len()
    );
    finish_signatures(setup, &q, &rep, sections, &errors, out, &what)
}

/// `--auto` on a model with several signatures: the search of [`auto_quantize`] run on each
/// signature as a model of its own, on that signature's samples (`--signature-data`, or the one
/// `--data` of signatures that take the same inputs; the first [`AUTO_SAMPLES`] of them scored,
/// every sample calibrated; cross-layer equalization recalibrates on the same samples), with its
/// guard against the signature's TF-compatible model; the quantized signatures put back together
/// ([`zeropoint::quant::assemble_signatures`]). A constant two signatures share stays shared
/// unless the search changed it in one of them (equalized weights, corrected biases): then each
/// subgraph carries its own.
///
/// [`auto_quantize`]: zeropoint::quant::auto::auto_quantize
/// [`AUTO_SAMPLES`]: zeropoint::quant::auto::AUTO_SAMPLES
fn auto_by_signature(
    setup: &Setup,
    samples: SignatureSamples,
    opts: &QuantizeOptions,
    auto: &AutoOptions,
    out: &Outputs,
) -> Result<()> {
    use zeropoint::quant::auto::{AUTO_SAMPLES, auto_quantize};
    use zeropoint::quant::sqnr::ErrorSamples;
    use zeropoint::quant::{assemble_signatures, signature_model};
    let mut parts = Vec::new();
    let mut sections = Vec::new();
    let mut errors = Vec::new();
    zeropoint::quant::auto::check_time_limit(auto.time_limit)?;
    let sources = setup.signature_sources(samples)?;
    // A time limit is for the whole command: each signature's search gets an equal share of
    // what is left when it starts.
    let end = auto.time_limit.map(zeropoint::clock::Deadline::after);
    let count = sources.len();
    for (i, (key, source)) in sources.into_iter().enumerate() {
        let auto = &AutoOptions {
            time_limit: end.map(|e| e.seconds_left() / (count - i) as f64),
            ..auto.clone()
        };
        let part = signature_model(&setup.model, &key)?;
        let mut samples = ErrorSamples::with_limit(AUTO_SAMPLES);
        let stats = setup
            .stats(&part, source.clone(), Method::MinMax, Some(&mut samples))
            .map_err(|e| in_signature(&key, e))?;
        let mut recalibrate =
            |changed: &zeropoint::Model| setup.stats(changed, source.clone(), Method::MinMax, None);
        // The report's warnings say what the search chose and what the guard kept.
        let (q, mut rep, summary) = auto_quantize(
            &part,
            &stats,
            samples.samples(),
            opts,
            auto,
            Some(&mut recalibrate),
        )
        .map_err(|e| in_signature(&key, e))?;
        if out.report.is_some() {
            rep.auto = Some(summary);
            sections.push((key.clone(), rep.clone()));
            errors.push(samples);
        }
        parts.push((key, q, rep));
    }
    let n = parts.len();
    let (q, rep) = assemble_signatures(&setup.model, parts)?;
    let what = format!(", {n} signatures each searched on its own samples");
    finish_signatures(setup, &q, &rep, sections, &errors, out, &what)
}

/// The `--report` of a model with several signatures: what [`Report`] says of one subgraph, for
/// every signature's subgraph.
#[derive(serde::Serialize)]
struct SignaturesReport {
    /// `int8` or `int16x8`.
    mode: String,
    /// Input/output type of the quantized model.
    io: String,
    /// Every signature's warnings, each prefixed by its signature (as printed).
    warnings: Vec<String>,
    /// One section per signature, in the model's signature order.
    signatures: Vec<SignatureSection>,
}

/// One signature's section of a [`SignaturesReport`].
#[derive(serde::Serialize)]
struct SignatureSection {
    /// The signature's key.
    key: String,
    /// Its subgraph in the quantized model (the report's tensor and operator indices are that
    /// subgraph's).
    subgraph: usize,
    /// The report of that subgraph (its warnings unprefixed).
    #[serde(flatten)]
    report: Report,
}

/// How both signature paths end: the quantized model `q` written, its warnings printed and, with
/// `--report`, the report of every signature (`sections`: `(key, report of its part)` in the
/// model's order) written with the tensor names of `q` and, when `errors` holds each signature's
/// first samples, the error of every operator measured against the float signature (its verdict
/// printed, prefixed by the signature).
fn finish_signatures(
    setup: &Setup,
    q: &zeropoint::Model,
    rep: &Report,
    sections: Vec<(String, Report)>,
    errors: &[zeropoint::quant::sqnr::ErrorSamples],
    out: &Outputs,
    what: &str,
) -> Result<()> {
    use zeropoint::quant::signature_model;
    let bytes = zeropoint::tflite::write(q)?;
    for w in &rep.warnings {
        eprintln!("warning: {w}");
    }
    if let Some(path) = &out.report {
        let written = zeropoint::tflite::read(&bytes)?;
        let mut all = Vec::with_capacity(sections.len());
        for (k, (key, mut part)) in sections.into_iter().enumerate() {
            let s = zeropoint::engine::signatures::resolve(&written, &key)?.subgraph;
            // The assembled model names tensors uniquely across subgraphs (TF's exporter's
            // names): the report says the names of the model written.
            let sg = &written.subgraphs[s];
            for t in &mut part.tensors {
                if let Some(x) = sg.tensors.get(t.index) {
                    t.name.clone_from(&x.name);
                }
            }
            if let Some(e) = errors.get(k) {
                let float = setup.shapes.apply(signature_model(&setup.model, &key)?)?;
                let quant = setup.shapes.apply(signature_model(&written, &key)?)?;
                e.measure(&float, &quant, &mut part)?;
                print_verdict(sg, &part, &format!("signature '{key}': "));
            }
            all.push(SignatureSection {
                key,
                subgraph: s,
                report: part,
            });
        }
        let report = SignaturesReport {
            mode: rep.mode.clone(),
            io: rep.io.clone(),
            warnings: rep.warnings.clone(),
            signatures: all,
        };
        write_json(path, &report)?;
        eprintln!("wrote {}", path.display());
    }
    write_quantized(&out.model, &bytes, rep, what)
}

/// The verdict on the report's measured errors (the worst output, the first and worst layers),
/// each layer named by its operator in `sg`, the subgraph the report describes; each line
/// prefixed by `prefix`. Nothing when no errors were measured.
fn print_verdict(sg: &zeropoint::graph::Subgraph, rep: &Report, prefix: &str) {
    if rep.error_samples == 0 {
        return;
    }
    let is_output = |name: &str| {
        sg.outputs.iter().any(|&o| {
            usize::try_from(o)
                .ok()
                .and_then(|o| sg.tensors.get(o))
                .is_some_and(|t| t.name == name)
        })
    };
    let mut errs: Vec<_> = rep.op_errors.iter().collect();
    errs.sort_by_key(|e| e.index);
    let layers: Vec<_> = errs
        .iter()
        .map(|e| crate::verdict::Layer {
            label: format!("{} #{}", e.op, e.index),
            db: e.sqnr_db.unwrap_or(f64::INFINITY),
            output: is_output(&e.output),
        })
        .collect();
    for line in crate::verdict::verdict(&layers).unwrap_or_default() {
        eprintln!("{prefix}{line}");
    }
}

/// A calibrated .tflite carries only min/max: another range method is refused, naming the file.
fn refuse_method_for_calibrated(path: &Path, method: Option<Method>) -> Result<()> {
    match method.filter(|&m| m != Method::MinMax) {
        Some(method) => Err(Error::Calibration {
            reason: format!(
                "{}: a calibrated .tflite carries only min/max; --calibration {method} needs a \
                 STATS.json (zeropoint calibrate) or --data",
                path.display()
            ),
        }),
        None => Ok(()),
    }
}

/// `zeropoint quantize`: ranges from --data (our calibration) or --stats (STATS.json from
/// `zeropoint calibrate`, or a calibrated .tflite carrying min/max), then the library quantizer.
#[allow(clippy::too_many_arguments)]
fn quantize_model(
    setup: &Setup,
    data: Vec<PathBuf>,
    stats: Option<PathBuf>,
    method: Option<Method>,
    opts: QuantizeOptions,
    auto: Option<AutoOptions>,
    report: Option<PathBuf>,
    output: &Path,
) -> Result<()> {
    use zeropoint::quant::quantize_to_bytes;
    let m = &setup.model;
    // Calibration (and the report's errors) run at the chosen input shapes; the quantizer works
    // on the model as stored.
    let shaped = setup.shapes.apply(m.clone())?;
    // (A model with several signatures gets int8 / int16x8 from `quantize_by_signature`;
    // dynamic range and float16 keep every signature.)
    let needs_ranges = matches!(opts.mode, Mode::Int8 | Mode::Int16x8);
    // The first calibration samples (with --data), for the report's errors.
    let mut errors = if auto.is_some() {
        zeropoint::quant::sqnr::ErrorSamples::with_limit(zeropoint::quant::auto::AUTO_SAMPLES)
    } else {
        zeropoint::quant::sqnr::ErrorSamples::new()
    };
    if auto.is_some() && (stats.is_some() || data.is_empty() || method.is_some()) {
        return Err(Error::Calibration {
            reason: "--auto (and --target-sqnr) measure the output error on calibration samples \
                     and choose the ranges themselves: give --data, without --stats or \
                     --calibration"
                .into(),
        });
    }
    let mut auto_stats = None;
    let ranges = match (stats, data.is_empty()) {
        (Some(_), false) => {
            return Err(Error::Calibration {
                reason: "give either --data or --stats, not both".into(),
            });
        }
        (Some(path), true) => match read_stats(&path)? {
            Some(StatsFile::Model(s)) => {
                let s = match method {
                    Some(method) => s.with_method(method)?,
                    None => s,
                };
                Ranges::from_calibration(m, &s)?
            }
            Some(StatsFile::Signatures(_)) => {
                return Err(Error::Calibration {
                    reason: format!(
                        "{}: statistics per signature (calibrate --signature-data), for \
                             int8 / int16x8 of a model with several signatures; this one has \
                             {} and the mode is {}",
                        path.display(),
                        m.signatures.len(),
                        opts.mode.name()
                    ),
                });
            }
            None => {
                refuse_method_for_calibrated(&path, method)?;
                let cal = load(&path, setup.limits)?;
                Ranges::from_calibrated_model(m, &cal)?
            }
        },
        (None, false) => {
            let method = method.unwrap_or(Method::MinMax);
            let s = setup.stats(
                m,
                CalibrationSource::Npy(data.clone()),
                method,
                Some(&mut errors),
            )?;
            let r = Ranges::from_calibration(m, &s)?;
            auto_stats = Some(s);
            r
        }
        (None, true) if needs_ranges => {
            return Err(Error::Calibration {
                reason: format!(
                    "--mode {} needs calibration: --data X.npy (one per input) or --stats \
                     STATS.json|calibrated.tflite",
                    opts.mode.name()
                ),
            });
        }
        (None, true) => Ranges::new(),
    };
    // The same call the page makes (crate::wasm), so both write the same bytes.
    let (bytes, mut rep) = match (&auto, &auto_stats) {
        (Some(a), Some(s)) => {
            // Cross-layer equalization changes weights: the changed model is calibrated again
            // on the same --data.
            let mut recalibrate = |changed: &zeropoint::Model| {
                setup.stats(
                    changed,
                    CalibrationSource::Npy(data.clone()),
                    Method::MinMax,
                    None,
                )
            };
            // The labels of the samples --auto is given (the first ones of --data).
            let mut a = a.clone();
            if !a.labels.is_empty() && a.labels.len() < errors.samples().len() {
                return Err(Error::Calibration {
                    reason: format!(
                        "--labels has {} labels for at least {} --data samples: one per sample",
                        a.labels.len(),
                        errors.samples().len()
                    ),
                });
            }
            a.labels.truncate(errors.samples().len());
            let (q, mut rep, summary) = zeropoint::quant::auto::auto_quantize(
                m,
                s,
                errors.samples(),
                &opts,
                &a,
                Some(&mut recalibrate),
            )?;
            rep.auto = Some(summary);
            (zeropoint::tflite::write(&q)?, rep)
        }
        _ => quantize_to_bytes(m, &ranges, &opts)?,
    };
    if report.is_some() && !errors.samples().is_empty() {
        let q = setup.shapes.apply(zeropoint::tflite::read(&bytes)?)?;
        errors.measure(&shaped, &q, &mut rep)?;
    }
    for w in &rep.warnings {
        eprintln!("warning: {w}");
    }
    // The report's errors (measured with --data): the verdict on the worst output, each layer
    // named by its operator in the quantized model, as the report and the page name it.
    if let Some(sg) = m.subgraphs.first() {
        print_verdict(sg, &rep, "");
    }
    if let Some(r) = report {
        write_json(&r, &rep)?;
        eprintln!("wrote {}", r.display());
    }
    write_quantized(output, &bytes, &rep, "")
}
