//! `zeropoint quantize`: TF-exact quantization (int8, int16x8, dynamic range, float16) with
//! ranges from our calibration (`--data`) or from TF's (`--stats`).
//!
//! A model with several signatures is quantized in dynamic range and float16 with every
//! signature kept; int8 / int16x8 calibrate each signature on its own samples
//! (`--signature-data KEY=X.npy`, as TF's representative dataset of `(key, inputs)` tuples) or
//! read the per-signature statistics `zeropoint calibrate --signature-data` wrote (`--stats`), and
//! quantize every signature's subgraph with its ranges ([`zeropoint::quant::quantize_signatures`]);
//! `--auto` searches each signature on its own samples. Every path starts from one [`Setup`].

use std::path::{Path, PathBuf};

use clap::Args;
use zeropoint::limits::UserLimits;
use zeropoint::quant::auto::AutoOptions;
use zeropoint::quant::calibrate::{Method, StatsFile, parse_stats_file};
use zeropoint::quant::{IoType, Mode, QuantizeOptions, Report};
use zeropoint::{Error, Result};

use crate::calibrate::{CalibrationSource, Setup, ThreadsArg, in_signature};
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
    /// Calibration samples: one .npy per model input (first axis = samples).
    #[arg(long = "data")]
    data: Vec<PathBuf>,
    /// Calibration samples of one signature of a model with several (int8 / int16x8):
    /// `KEY=X.npy`, once per input of that signature, in the signature's input order (as
    /// `inspect` lists them); every signature needs its samples.
    #[arg(long = "signature-data", value_name = "KEY=X.npy")]
    signature_data: Vec<String>,
    /// Calibration statistics instead of --data: a STATS.json from `zeropoint calibrate`, or
    /// a calibrated .tflite whose tensors carry min/max (TF's model_calibrated.tflite).
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
    /// With --auto: move the fewest operators to int16 activations (16x8) until the output
    /// SQNR reaches this many dB.
    #[arg(long, value_name = "DB")]
    target_sqnr: Option<f64>,
    /// With --auto: at most this many candidate models are scored.
    #[arg(long, value_name = "N", default_value_t = zeropoint::quant::auto::DEFAULT_BUDGET)]
    auto_budget: usize,
    /// Write a JSON report (per tensor ranges and parameters, per op multipliers).
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
        auto_budget,
        report,
        output,
        shapes,
        threads,
    } = args;
    let auto = (auto || target_sqnr.is_some()).then(|| AutoOptions {
        target_sqnr_db: target_sqnr,
        budget: auto_budget,
        shapes: shapes.overrides(),
    });
    let opts = QuantizeOptions {
        mode: Mode::parse(&mode)?,
        io: IoType::parse(&io)?,
        per_tensor,
        float_ops,
        int16_ops,
    };
    let setup = Setup::new(&model, &shapes, limits, threads)?;
    let method = calibration.as_deref().map(Method::parse).transpose()?;
    let signatures = setup.model.signatures.len();
    if matches!(opts.mode, Mode::Int8 | Mode::Int16x8) && signatures > 1 {
        if report.is_some() {
            return Err(Error::Calibration {
                reason: format!(
                    "--report on a model with {signatures} signatures: not supported yet (the \
                     report describes one subgraph)"
                ),
            });
        }
        if !data.is_empty() {
            // --data names the inputs of one subgraph: the refusal says what to give instead.
            zeropoint::engine::signatures::refuse_full_integer(&setup.model)?;
        }
        if let Some(a) = &auto {
            if stats.is_some() || signature_data.is_empty() || method.is_some() {
                return Err(Error::Calibration {
                    reason: "--auto (and --target-sqnr) measure the output error on calibration \
                             samples and choose the ranges themselves: give --signature-data, \
                             without --stats or --calibration"
                        .into(),
                });
            }
            return auto_by_signature(&setup, &signature_data, &opts, a, &output);
        }
        return quantize_by_signature(&setup, &signature_data, stats, method, &opts, &output);
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

/// int8 / int16x8 of a model with several signatures, each with the ranges of its own samples:
/// calibrated here (`--signature-data`, [`Setup::signature_stats`]) or read from the file
/// `zeropoint calibrate --signature-data` wrote (`--stats`); then every signature quantized with
/// its ranges ([`zeropoint::quant::quantize_signatures`]). Both give the same bytes for the same
/// samples.
fn quantize_by_signature(
    setup: &Setup,
    signature_data: &[String],
    stats: Option<PathBuf>,
    method: Option<Method>,
    opts: &QuantizeOptions,
    output: &Path,
) -> Result<()> {
    use zeropoint::quant::pipeline::quantize_signatures_to_bytes;
    let m = &setup.model;
    let stats = match (stats, signature_data.is_empty()) {
        (Some(_), false) => {
            return Err(Error::Calibration {
                reason: "give either --signature-data or --stats, not both".into(),
            });
        }
        (None, false) => setup.signature_stats(signature_data, method.unwrap_or(Method::MinMax))?,
        (Some(path), true) => {
            let file = read_stats(&path)?;
            let Some(StatsFile::Signatures(s)) = file else {
                return Err(Error::Calibration {
                    reason: format!(
                        "{}: {}; the model has {} signatures, each calibrated on its own \
                         samples: give the STATS.json of `zeropoint calibrate --signature-data \
                         KEY=X.npy …`",
                        path.display(),
                        if file.is_some() {
                            "statistics of one subgraph"
                        } else {
                            "not a STATS.json (a calibrated .tflite of several signatures is \
                             not read)"
                        },
                        m.signatures.len()
                    ),
                });
            };
            match method {
                Some(method) => s.with_method(method)?,
                None => s,
            }
        }
        // What to give: the refusal names --signature-data.
        (None, true) => return zeropoint::engine::signatures::refuse_full_integer(m),
    };
    let (bytes, rep) = quantize_signatures_to_bytes(m, &stats, opts)?;
    for w in &rep.warnings {
        eprintln!("warning: {w}");
    }
    write_quantized(
        output,
        &bytes,
        &rep,
        &format!(
            ", {} signatures each calibrated on its own samples",
            stats.signatures.len()
        ),
    )
}

/// `--auto` on a model with several signatures: the search of [`auto_quantize`] run on each
/// signature as a model of its own, on that signature's `--signature-data` samples (the first
/// [`AUTO_SAMPLES`] of them scored, every sample calibrated; cross-layer equalization
/// recalibrates on the same files), with its guard against the signature's TF-compatible
/// model; the quantized signatures put back together
/// ([`zeropoint::quant::assemble_signatures`]). A constant two signatures share stays shared
/// unless the search changed it in one of them (equalized weights, corrected biases): then each
/// subgraph carries its own.
///
/// [`auto_quantize`]: zeropoint::quant::auto::auto_quantize
/// [`AUTO_SAMPLES`]: zeropoint::quant::auto::AUTO_SAMPLES
fn auto_by_signature(
    setup: &Setup,
    signature_data: &[String],
    opts: &QuantizeOptions,
    auto: &AutoOptions,
    output: &Path,
) -> Result<()> {
    use zeropoint::quant::auto::{AUTO_SAMPLES, auto_quantize};
    use zeropoint::quant::sqnr::ErrorSamples;
    use zeropoint::quant::{assemble_signatures, signature_model};
    let mut parts = Vec::new();
    for (key, files) in setup.signature_files(signature_data)? {
        let part = signature_model(&setup.model, &key)?;
        let mut samples = ErrorSamples::with_limit(AUTO_SAMPLES);
        let stats = setup
            .stats(
                &part,
                CalibrationSource::Npy(files.clone()),
                Method::MinMax,
                Some(&mut samples),
            )
            .map_err(|e| in_signature(&key, e))?;
        let mut recalibrate = |changed: &zeropoint::Model| {
            setup.stats(
                changed,
                CalibrationSource::Npy(files.clone()),
                Method::MinMax,
                None,
            )
        };
        // The report's warnings say what the search chose and what the guard kept.
        let (q, rep, _) = auto_quantize(
            &part,
            &stats,
            samples.samples(),
            opts,
            auto,
            Some(&mut recalibrate),
        )
        .map_err(|e| in_signature(&key, e))?;
        parts.push((key, q, rep));
    }
    let n = parts.len();
    let (q, rep) = assemble_signatures(&setup.model, parts)?;
    let bytes = zeropoint::tflite::write(&q)?;
    for w in &rep.warnings {
        eprintln!("warning: {w}");
    }
    write_quantized(
        output,
        &bytes,
        &rep,
        &format!(", {n} signatures each searched on its own samples"),
    )
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
    use zeropoint::quant::{Ranges, quantize_to_bytes};
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
                if let Some(method) = method.filter(|&m| m != Method::MinMax) {
                    return Err(Error::Calibration {
                        reason: format!(
                            "{}: a calibrated .tflite carries only min/max; --calibration \
                             {method} needs a STATS.json (zeropoint calibrate) or --data",
                            path.display()
                        ),
                    });
                }
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
            let (q, mut rep, summary) = zeropoint::quant::auto::auto_quantize(
                m,
                s,
                errors.samples(),
                &opts,
                a,
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
    if rep.error_samples > 0
        && let Some(sg) = m.subgraphs.first()
    {
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
            eprintln!("{line}");
        }
    }
    if let Some(r) = report {
        write_json(&r, &rep)?;
        eprintln!("wrote {}", r.display());
    }
    write_quantized(output, &bytes, &rep, "")
}
