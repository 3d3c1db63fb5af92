//! `zeropoint calibrate`: per-tensor statistics of a float model over samples from `.npy`
//! files, images or seeded random data, written as JSON. [`collect_stats`] is shared with
//! `zeropoint quantize --data`. A model with several signatures is refused (calibration runs
//! one entry point; TF's per-signature representative data is not supported yet).

use std::path::{Path, PathBuf};

use clap::Args;
use zeropoint::limits::UserLimits;
use zeropoint::quant::calibrate::{CalibrationStats, Method};
use zeropoint::quant::inputs::Normalization;
use zeropoint::quant::sqnr::ErrorSamples;
use zeropoint::{Error, Result};

use crate::io::{ShapeArgs, load, outln, read_file, write_json};
use crate::samples::npy_err;

#[derive(Args)]
pub struct CalibrateArgs {
    /// The float .tflite file.
    model: PathBuf,
    /// One .npy per model input, in the subgraph's input order (first axis = samples).
    #[arg(long = "data")]
    data: Vec<PathBuf>,
    /// A folder of PNG/JPEG images for the (single, NHWC) input, resized to its H×W.
    #[arg(long)]
    images: Option<PathBuf>,
    /// Image normalisation: (pixel − mean) / std, pixels 0..255; one value or one per channel.
    #[arg(long, value_delimiter = ',', allow_hyphen_values = true)]
    mean: Vec<f32>,
    /// See --mean.
    #[arg(long, value_delimiter = ',', allow_hyphen_values = true)]
    std: Vec<f32>,
    /// LO,HI: the value range of images (pixel 0 → LO, 255 → HI) or of random data.
    #[arg(long, value_parser = parse_range, allow_hyphen_values = true)]
    range: Option<(f32, f32)>,
    /// N samples of seeded random data, uniform in --range.
    #[arg(long)]
    random: Option<usize>,
    /// Seed for --random.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Range selection: minmax, percentile:P, mse or moving-average (also `--calibration`).
    #[arg(long, default_value = "minmax", alias = "calibration")]
    method: String,
    /// Where to write the statistics (JSON).
    #[arg(short, long)]
    output: PathBuf,
    #[command(flatten)]
    shapes: ShapeArgs,
}

/// `LO,HI` → (LO, HI).
fn parse_range(text: &str) -> std::result::Result<(f32, f32), String> {
    let (lo, hi) = text
        .split_once(',')
        .ok_or_else(|| format!("'{text}' is not LO,HI"))?;
    let num = |v: &str| {
        v.trim()
            .parse::<f32>()
            .map_err(|_| format!("'{v}' is not a number"))
    };
    Ok((num(lo)?, num(hi)?))
}

/// Where `zeropoint calibrate` takes its samples from.
pub enum CalibrationSource {
    Npy(Vec<PathBuf>),
    Images(PathBuf, Normalization),
    Random(usize, f32, f32, u64),
}

/// `zeropoint calibrate`: checks that exactly one source of samples is given, then calibrates.
pub fn calibrate(args: CalibrateArgs, limits: &UserLimits) -> Result<()> {
    let CalibrateArgs {
        model,
        data,
        images,
        mean,
        std,
        range,
        random,
        seed,
        method,
        output,
        shapes,
    } = args;
    let given = usize::from(!data.is_empty())
        + usize::from(images.is_some())
        + usize::from(random.is_some());
    let usage = |reason: &str| Error::Calibration {
        reason: reason.to_string(),
    };
    if given != 1 {
        return Err(usage(
            "give exactly one source of samples: --data X.npy (one per input), --images \
             DIR, or --random N --range LO,HI",
        ));
    }
    let source = if let Some(dir) = images {
        let norm = match (mean.is_empty(), std.is_empty(), range) {
            (false, false, None) => Normalization::MeanStd { mean, std },
            (true, true, Some((lo, hi))) => Normalization::Range { lo, hi },
            _ => {
                return Err(usage(
                    "--images needs either --mean M --std S or --range LO,HI",
                ));
            }
        };
        CalibrationSource::Images(dir, norm)
    } else if let Some(n) = random {
        let (lo, hi) = range.ok_or_else(|| usage("--random needs --range LO,HI"))?;
        CalibrationSource::Random(n, lo, hi, seed)
    } else {
        CalibrationSource::Npy(data)
    };
    calibrate_model(&model, source, &method, &output, &shapes, limits)
}

/// Streams the samples through the calibrator and writes the statistics.
fn calibrate_model(
    model: &Path,
    source: CalibrationSource,
    method: &str,
    output: &Path,
    shapes: &ShapeArgs,
    limits: &UserLimits,
) -> Result<()> {
    let method = Method::parse(method)?;
    let m = shapes.apply(load(model, limits)?)?;
    // The statistics serve full-integer quantization, which a model with several signatures
    // cannot have yet: said now rather than after calibrating one signature.
    zeropoint::engine::signatures::refuse_full_integer(&m)?;
    let stats = collect_stats(&m, source, method, limits, None)?;
    // Tensors inside WHILE / IF subgraphs follow, as "subgraph:index".
    for t in stats.tensors.iter().chain(&stats.nested) {
        let at = if t.subgraph == 0 {
            t.index.to_string()
        } else {
            format!("{}:{}", t.subgraph, t.index)
        };
        outln!(
            "{:>5}  [{:>12.6e}, {:>12.6e}]  chosen [{:>12.6e}, {:>12.6e}]  {}",
            at,
            t.min,
            t.max,
            t.chosen_min,
            t.chosen_max,
            t.name
        );
    }
    write_json(output, &stats)?;
    eprintln!(
        "wrote {} ({} tensors, {} samples, method {method})",
        output.display(),
        stats.tensors.len() + stats.nested.len(),
        stats.samples
    );
    Ok(())
}

/// Streams the samples of `source` through the calibrator of `m`.
pub fn collect_stats(
    m: &zeropoint::Model,
    source: CalibrationSource,
    method: Method,
    limits: &UserLimits,
    mut errors: Option<&mut ErrorSamples>,
) -> Result<CalibrationStats> {
    use zeropoint::quant::calibrate::Calibrator;
    use zeropoint::quant::inputs::{self, NpySamples, RandomSource};
    let mut cal = Calibrator::with_limits(m, &limits.engine)?;
    let descs = cal.inputs().to_vec();
    match source {
        CalibrationSource::Npy(paths) => {
            if paths.len() != descs.len() {
                return Err(Error::Calibration {
                    reason: format!(
                        "{} --data file(s) for {} model input(s): give one .npy per input, in \
                         the subgraph's input order",
                        paths.len(),
                        descs.len()
                    ),
                });
            }
            let mut arrays = Vec::with_capacity(paths.len());
            for (i, (p, d)) in paths.iter().zip(&descs).enumerate() {
                let bytes = read_file(p)?;
                let a = NpySamples::from_bytes(&p.display().to_string(), &bytes, i, d)?;
                if a.samples() != arrays.first().map_or(a.samples(), NpySamples::samples) {
                    return Err(npy_err(
                        p,
                        format!(
                            "{} samples, but input 0 has {}",
                            a.samples(),
                            arrays[0].samples()
                        ),
                    ));
                }
                arrays.push(a);
            }
            let samples = arrays.first().map_or(0, NpySamples::samples);
            for s in 0..samples {
                for (i, a) in arrays.iter().enumerate() {
                    cal.set_input(i, a.sample(s))?;
                    if let Some(e) = errors.as_deref_mut() {
                        e.set_input(i, a.sample(s));
                    }
                }
                cal.add_sample()?;
                if let Some(e) = errors.as_deref_mut() {
                    e.commit();
                }
            }
        }
        CalibrationSource::Images(dir, norm) => {
            if descs.len() != 1 {
                return Err(Error::Calibration {
                    reason: format!(
                        "--images needs a model with one input; this one has {}",
                        descs.len()
                    ),
                });
            }
            let io = |source| Error::Io {
                path: dir.display().to_string(),
                source,
            };
            let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
                .map_err(io)?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| {
                    p.extension().and_then(|x| x.to_str()).is_some_and(|x| {
                        matches!(x.to_ascii_lowercase().as_str(), "png" | "jpg" | "jpeg")
                    })
                })
                .collect();
            files.sort();
            if files.is_empty() {
                return Err(Error::Calibration {
                    reason: format!("{}: no .png, .jpg or .jpeg files", dir.display()),
                });
            }
            for f in &files {
                let bytes = read_file(f)?;
                let v = inputs::image_sample(&f.display().to_string(), &bytes, &descs[0], &norm)?;
                cal.set_input(0, &v)?;
                if let Some(e) = errors.as_deref_mut() {
                    e.set_input(0, &v);
                }
                cal.add_sample()?;
                if let Some(e) = errors.as_deref_mut() {
                    e.commit();
                }
            }
        }
        CalibrationSource::Random(n, lo, hi, seed) => {
            let mut rng = RandomSource::new(lo, hi, seed)?;
            let mut bufs: Vec<Vec<f32>> =
                descs.iter().map(|d| vec![0.0; d.num_elements()]).collect();
            for _ in 0..n {
                for (i, b) in bufs.iter_mut().enumerate() {
                    rng.fill(b);
                    cal.set_input(i, b)?;
                    if let Some(e) = errors.as_deref_mut() {
                        e.set_input(i, b);
                    }
                }
                cal.add_sample()?;
                if let Some(e) = errors.as_deref_mut() {
                    e.commit();
                }
            }
        }
    }
    cal.stats(method)
}
