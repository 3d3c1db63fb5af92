//! `zeropoint`: the command-line face of the Zeropoint library.
//!
//! Subcommands: `inspect` (summary as text or JSON), `rewrite` (read and write back through the
//! IR), `run` (the float engine over `.npy` samples), `calibrate` (per-tensor statistics) and
//! `quantize` (TF-exact quantization: int8, int16x8, dynamic, float16). Everything here is argument parsing,
//! file I/O and printing; the work happens in the library. Global options `--max-model-mb`,
//! `--max-tensor-mb` and `--max-arena-mb` apply to every model read and every engine prepared.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use zeropoint::engine::{Interpreter, KernelSet, TensorDesc, shape_text};
use zeropoint::graph::TensorType;
use zeropoint::graph::summary::{ModelSummary, QuantSummary, TensorSummary};
use zeropoint::limits::{UserLimits, check_model_size};
use zeropoint::tflite::types::dtype_name;
use zeropoint::tflite::{self, WriteOptions};
use zeropoint::{Error, Result};

#[derive(Parser)]
#[command(
    name = "zeropoint",
    version,
    about = "TFLite quantizer and int8 inference engine"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Largest model file read, in MB of 2^20 bytes (fractions allowed; default 2048). Checked
    /// before the file is read.
    #[arg(long, global = true, value_name = "MB", value_parser = parse_mb)]
    max_model_mb: Option<usize>,
    /// Largest tensor the engine prepares, in MB (default 2048).
    #[arg(long, global = true, value_name = "MB", value_parser = parse_mb)]
    max_tensor_mb: Option<usize>,
    /// Largest activation arena (all intermediate tensors, with reuse), in MB (default 2048).
    #[arg(long, global = true, value_name = "MB", value_parser = parse_mb)]
    max_arena_mb: Option<usize>,
}

impl Cli {
    /// The limits given on the command line, defaults for the others.
    fn limits(&self) -> UserLimits {
        let mut limits = UserLimits::default();
        if let Some(b) = self.max_model_mb {
            limits.max_model_bytes = b as u64;
        }
        if let Some(b) = self.max_tensor_mb {
            limits.engine.max_tensor_bytes = b;
        }
        if let Some(b) = self.max_arena_mb {
            limits.engine.max_arena_bytes = b;
        }
        limits
    }
}

/// `--max-…-mb` values: megabytes (2^20 bytes) → bytes.
fn parse_mb(text: &str) -> std::result::Result<usize, String> {
    let mb: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("'{text}' is not a number of megabytes"))?;
    zeropoint::limits::mb_to_bytes(mb)
}

#[derive(Subcommand)]
enum Command {
    /// Print a model's operators, inputs/outputs and tensors.
    Inspect {
        /// The .tflite file.
        model: PathBuf,
        /// Print the full summary as JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Read a model and write it back through the IR (normalises it; checks lossless I/O).
    Rewrite {
        /// The .tflite file to read.
        model: PathBuf,
        /// Where to write the result.
        #[arg(short, long)]
        output: PathBuf,
        /// Store constant buffers after the flatbuffer (Buffer.offset/size), as TFLite does for
        /// models over 2 GiB.
        #[arg(long)]
        external_buffers: bool,
    },
    /// Run a model on .npy inputs (first axis = samples) and write one .npy per output.
    Run {
        /// The .tflite file.
        model: PathBuf,
        /// One .npy per model input, in the subgraph's input order.
        #[arg(long = "input", required = true)]
        inputs: Vec<PathBuf>,
        /// Directory for output_<i>.npy (created if missing).
        #[arg(long)]
        out_dir: PathBuf,
        /// Also write every tensor of the first sample (graph inputs and each operator's
        /// output) as t<index>.npy into this directory, to trace a mismatch to its first op.
        #[arg(long)]
        dump: Option<PathBuf>,
        /// Kernel set: `fast` (SIMD128 in the browser, the same bits) or `reference`.
        #[arg(long, default_value = "fast")]
        kernels: KernelSet,
    },
    /// Run a float model and its quantized version side by side on float samples and report,
    /// for every tensor present in both (matched by name), the SQNR and the largest error
    /// (in float units and in LSB of the quantized tensor), worst first.
    Compare {
        /// The float .tflite file.
        float_model: PathBuf,
        /// The quantized .tflite file (float or integer I/O).
        quantized_model: PathBuf,
        /// One float32 .npy per model input (first axis = samples).
        #[arg(long = "input", required = true)]
        inputs: Vec<PathBuf>,
        /// Write the full table as JSON here.
        #[arg(long)]
        json: Option<PathBuf>,
        /// Rows to print (worst SQNR first).
        #[arg(long, default_value_t = 20)]
        top: usize,
        /// Kernel set: `fast` (the same bits) or `reference`.
        #[arg(long, default_value = "fast")]
        kernels: KernelSet,
    },
    /// Calibrate a float model: record per-tensor statistics (TF's min/max, histogram, chosen
    /// range) over samples from .npy files, images or seeded random data, and write them as JSON.
    Calibrate {
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
    },
    /// Quantize a float model as TF's converter does: full integer (int8, int16x8), dynamic
    /// range or float16.
    Quantize {
        /// The float .tflite file.
        model: PathBuf,
        /// int8, int16x8, dynamic or float16.
        #[arg(long, default_value = "int8")]
        mode: String,
        /// Input/output type: int8 (int16 for int16x8), uint8 or float.
        #[arg(long, default_value = "int8")]
        io: String,
        /// Calibration samples: one .npy per model input (first axis = samples).
        #[arg(long = "data")]
        data: Vec<PathBuf>,
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
        /// Write a JSON report (per tensor ranges and parameters, per op multipliers).
        #[arg(long)]
        report: Option<PathBuf>,
        /// Where to write the quantized model.
        #[arg(short, long)]
        output: PathBuf,
    },
}

fn read_file(path: &Path) -> Result<Vec<u8>> {
    std::fs::read(path).map_err(|source| Error::Io {
        path: path.display().to_string(),
        source,
    })
}

/// Reads a model (refused before reading when larger than the limit), naming the file in errors.
fn load(path: &Path, limits: &UserLimits) -> Result<zeropoint::Model> {
    let size = std::fs::metadata(path)
        .map_err(|source| Error::Io {
            path: path.display().to_string(),
            source,
        })?
        .len();
    check_model_size(&path.display().to_string(), size, limits.max_model_bytes)?;
    let bytes = read_file(path)?;
    // Prefix format errors with the file name so scripts handling many files say which one.
    tflite::read(&bytes).map_err(|e| match e {
        Error::InvalidFlatbuffer { reason } => Error::InvalidFlatbuffer {
            reason: format!("{}: {reason}", path.display()),
        },
        Error::InconsistentModel { at, reason } => Error::InconsistentModel {
            at,
            reason: format!("{reason} (in {})", path.display()),
        },
        Error::InconsistentTable { reason } => Error::InconsistentTable {
            reason: format!("{}: {reason}", path.display()),
        },
        other => other,
    })
}

fn quant_text(q: &Option<QuantSummary>) -> String {
    let Some(q) = q else {
        return String::new();
    };
    match q.scale.len() {
        0 if q.min.is_empty() => String::new(),
        0 => format!("min {:?} max {:?}", q.min, q.max),
        1 => format!(
            "scale {:e} zp {}",
            q.scale[0],
            q.zero_point.first().copied().unwrap_or(0)
        ),
        n => format!("per-axis({}) ×{n}", q.quantized_dimension),
    }
}

fn tensor_line(t: &TensorSummary) -> String {
    format!(
        "{:>5}  {:<10} {:<18} {:<24} {}",
        t.index,
        t.dtype,
        format!("{:?}", t.shape),
        quant_text(&t.quantization),
        t.name
    )
}

fn print_text(path: &Path, s: &ModelSummary) {
    println!("{}", path.display());
    println!(
        "schema v{}, {} subgraph(s), {} buffer(s), {} bytes of constants{}",
        s.version,
        s.subgraphs.len(),
        s.buffers,
        s.constant_bytes,
        s.description
            .as_deref()
            .map(|d| format!(", \"{d}\""))
            .unwrap_or_default()
    );
    println!("\noperators:");
    for c in &s.operator_counts {
        println!("  {:>4} × {}", c.count, c.op);
    }
    for (i, sg) in s.subgraphs.iter().enumerate() {
        println!(
            "\nsubgraph {i}{}: {} operators, {} tensors",
            sg.name
                .as_deref()
                .map(|n| format!(" '{n}'"))
                .unwrap_or_default(),
            sg.operators.len(),
            sg.tensors.len()
        );
        for (label, list) in [("input", &sg.inputs), ("output", &sg.outputs)] {
            for &t in list {
                if let Some(t) = usize::try_from(t).ok().and_then(|t| sg.tensors.get(t)) {
                    println!("  {label:<6} {}", tensor_line(t).trim_start());
                }
            }
        }
        println!(
            "  tensors:\n  {:>5}  {:<10} {:<18} {:<24} name",
            "#", "dtype", "shape", "quantization"
        );
        for t in &sg.tensors {
            println!("  {}", tensor_line(t));
        }
    }
    for sig in &s.signatures {
        let names = |v: &[zeropoint::graph::summary::NamedTensor]| {
            v.iter()
                .map(|n| n.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        };
        println!(
            "\nsignature '{}' (subgraph {}): ({}) -> ({})",
            sig.key,
            sig.subgraph,
            names(&sig.inputs),
            names(&sig.outputs)
        );
    }
    for m in &s.metadata {
        println!("metadata '{}': {} bytes", m.name, m.bytes);
    }
}

/// The numpy type code (without byte order) of a tensor type the CLI reads and writes.
fn npy_code(dtype: TensorType) -> Option<&'static str> {
    Some(match dtype {
        TensorType::FLOAT32 => "f4",
        TensorType::INT8 => "i1",
        TensorType::UINT8 => "u1",
        TensorType::INT16 => "i2",
        TensorType::INT32 => "i4",
        TensorType::INT64 => "i8",
        TensorType::BOOL => "b1",
        _ => return None,
    })
}

fn npy_err(path: &Path, reason: impl std::fmt::Display) -> Error {
    Error::Npy {
        path: path.display().to_string(),
        reason: reason.to_string(),
    }
}

/// A .npy file read as little-endian element bytes.
struct NpyInput {
    shape: Vec<usize>,
    bytes: Vec<u8>,
}

/// Reads `path` as an array of `dtype`; a different element type is a [`Error::TensorMismatch`]
/// naming the model input.
fn read_npy(path: &Path, which: usize, input: &TensorDesc) -> Result<NpyInput> {
    let file = std::fs::File::open(path).map_err(|source| Error::Io {
        path: path.display().to_string(),
        source,
    })?;
    let npy = npyz::NpyFile::new(std::io::BufReader::new(file)).map_err(|e| npy_err(path, e))?;
    let got = match npy.dtype() {
        npyz::DType::Plain(t) => t.to_string(),
        other => format!("{other:?}"),
    };
    let code = npy_code(input.dtype);
    if code.is_none_or(|c| got.get(1..) != Some(c)) {
        return Err(Error::TensorMismatch {
            what: format!("input {which} ({})", path.display()),
            tensor: input.name.clone(),
            expected: format!(
                "{} elements ({})",
                dtype_name(input.dtype),
                code.unwrap_or("?")
            ),
            got: format!("numpy dtype {got}"),
        });
    }
    if npy.order() != npyz::Order::C {
        return Err(npy_err(path, "Fortran-order arrays are not supported"));
    }
    let shape: Vec<usize> = npy
        .shape()
        .iter()
        .map(|&d| usize::try_from(d).map_err(|_| npy_err(path, "dimension too large")))
        .collect::<Result<_>>()?;
    let e = |err| npy_err(path, err);
    let bytes: Vec<u8> = match input.dtype {
        TensorType::FLOAT32 => npy
            .into_vec::<f32>()
            .map_err(e)?
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect(),
        TensorType::INT8 => npy
            .into_vec::<i8>()
            .map_err(e)?
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect(),
        TensorType::UINT8 => npy.into_vec::<u8>().map_err(e)?,
        TensorType::INT16 => npy
            .into_vec::<i16>()
            .map_err(e)?
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect(),
        TensorType::INT32 => npy
            .into_vec::<i32>()
            .map_err(e)?
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect(),
        TensorType::INT64 => npy
            .into_vec::<i64>()
            .map_err(e)?
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect(),
        _ => npy
            .into_vec::<bool>()
            .map_err(e)?
            .iter()
            .map(|&v| u8::from(v))
            .collect(),
    };
    Ok(NpyInput { shape, bytes })
}

/// Writes little-endian element bytes of `dtype` as a .npy array of `shape`.
fn write_npy(path: &Path, dtype: TensorType, shape: &[usize], bytes: &[u8]) -> Result<()> {
    use npyz::WriterBuilder;
    let file = std::fs::File::create(path).map_err(|source| Error::Io {
        path: path.display().to_string(),
        source,
    })?;
    let dims: Vec<u64> = shape.iter().map(|&d| d as u64).collect();
    let w = std::io::BufWriter::new(file);
    let io = |e: std::io::Error| npy_err(path, e);
    macro_rules! write_as {
        ($t:ty, $n:expr) => {{
            let mut writer = npyz::WriteOptions::<$t>::new()
                .default_dtype()
                .shape(&dims)
                .writer(w)
                .begin_nd()
                .map_err(io)?;
            writer
                .extend(
                    bytes
                        .chunks_exact($n)
                        .map(|c| <$t>::from_le_bytes(c.try_into().unwrap_or([0; $n]))),
                )
                .map_err(io)?;
            writer.finish().map_err(io)
        }};
    }
    match dtype {
        TensorType::FLOAT32 => write_as!(f32, 4),
        TensorType::INT8 => write_as!(i8, 1),
        TensorType::UINT8 => write_as!(u8, 1),
        TensorType::INT16 => write_as!(i16, 2),
        TensorType::INT32 => write_as!(i32, 4),
        TensorType::INT64 => write_as!(i64, 8),
        other => Err(npy_err(
            path,
            format!("cannot write {} outputs", dtype_name(other)),
        )),
    }
}

/// Reads one .npy per model input (first axis = samples; a batch-1 model also takes samples
/// without the batch axis) and checks they agree on the number of samples.
fn read_samples(inputs: &[PathBuf], descs: &[TensorDesc]) -> Result<Vec<NpyInput>> {
    if inputs.len() != descs.len() {
        return Err(Error::NoSuchIndex {
            what: "input",
            index: inputs.len().min(descs.len()),
            count: descs.len(),
        });
    }
    let mut arrays = Vec::with_capacity(inputs.len());
    let mut samples = None;
    for (i, (path, d)) in inputs.iter().zip(descs).enumerate() {
        let a = read_npy(path, i, d)?;
        let per_sample = a.shape.get(1..).unwrap_or(&[]);
        let without_batch = d.shape.first() == Some(&1) && per_sample == &d.shape[1..];
        if a.shape.is_empty() || (per_sample != d.shape.as_slice() && !without_batch) {
            return Err(Error::TensorMismatch {
                what: format!("input {i} ({})", path.display()),
                tensor: d.name.clone(),
                expected: format!("samples × {} (first axis = samples)", shape_text(&d.shape)),
                got: format!("shape {}", shape_text(&a.shape)),
            });
        }
        if *samples.get_or_insert(a.shape[0]) != a.shape[0] {
            return Err(npy_err(
                path,
                format!(
                    "{} samples, but input 0 has {}",
                    a.shape[0],
                    samples.unwrap_or(0)
                ),
            ));
        }
        arrays.push(a);
    }
    Ok(arrays)
}

/// `zeropoint run`: loops the engine over the samples (first axis) of every input.
fn run_model(
    model: &Path,
    inputs: &[PathBuf],
    out_dir: &Path,
    dump: Option<&Path>,
    limits: &UserLimits,
    kernels: KernelSet,
) -> Result<()> {
    let m = load(model, limits)?;
    let mut interp = Interpreter::with_options(&m, &limits.engine, kernels)?;
    let descs = interp.inputs().to_vec();
    let arrays = read_samples(inputs, &descs)?;
    let samples = arrays.first().map_or(0, |a| a.shape[0]);
    let outs = interp.outputs().to_vec();
    let mut results: Vec<Vec<u8>> = outs
        .iter()
        .map(|o| Vec::with_capacity(o.byte_len() * samples))
        .collect();
    for s in 0..samples {
        for (i, (a, d)) in arrays.iter().zip(&descs).enumerate() {
            let n = d.byte_len();
            interp.set_input(i, &a.bytes[s * n..(s + 1) * n])?;
        }
        if s == 0
            && let Some(dir) = dump
        {
            let mut tensors: Vec<(usize, TensorType, Vec<usize>, Vec<u8>)> = Vec::new();
            let mut index = Vec::new();
            interp.invoke_with(&mut |id, view| {
                index.push(serde_json::json!({
                    "file": format!("t{}.npy", id.0),
                    "tensor": id.0,
                    "name": view.name,
                    "dtype": dtype_name(view.dtype),
                    "shape": view.shape,
                }));
                tensors.push((id.0, view.dtype, view.shape.to_vec(), view.bytes.to_vec()));
            });
            std::fs::create_dir_all(dir).map_err(|source| Error::Io {
                path: dir.display().to_string(),
                source,
            })?;
            for (t, dtype, shape, bytes) in &tensors {
                let mut with_batch = vec![1];
                with_batch.extend_from_slice(shape);
                write_npy(&dir.join(format!("t{t}.npy")), *dtype, &with_batch, bytes)?;
            }
            let listing = dir.join("tensors.json");
            let text = serde_json::to_string_pretty(&index).unwrap_or_default();
            std::fs::write(&listing, text).map_err(|source| Error::Io {
                path: listing.display().to_string(),
                source,
            })?;
            eprintln!(
                "dumped {} tensors of sample 0 to {} (index: tensors.json, in execution order)",
                tensors.len(),
                dir.display()
            );
        } else {
            interp.invoke();
        }
        for (k, r) in results.iter_mut().enumerate() {
            r.extend_from_slice(interp.output(k)?.bytes);
        }
    }
    std::fs::create_dir_all(out_dir).map_err(|source| Error::Io {
        path: out_dir.display().to_string(),
        source,
    })?;
    for (k, (o, bytes)) in outs.iter().zip(&results).enumerate() {
        let mut shape = vec![samples];
        shape.extend_from_slice(&o.shape);
        let path = out_dir.join(format!("output_{k}.npy"));
        write_npy(&path, o.dtype, &shape, bytes)?;
        eprintln!(
            "wrote {} ({} × {})",
            path.display(),
            samples,
            shape_text(&o.shape)
        );
    }
    Ok(())
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
enum CalibrationSource {
    Npy(Vec<PathBuf>),
    Images(PathBuf, zeropoint::quant::inputs::Normalization),
    Random(usize, f32, f32, u64),
}

/// `zeropoint calibrate`: streams the samples through the calibrator and writes the statistics.
fn calibrate_model(
    model: &Path,
    source: CalibrationSource,
    method: &str,
    output: &Path,
    limits: &UserLimits,
) -> Result<()> {
    let method = zeropoint::quant::calibrate::Method::parse(method)?;
    let m = load(model, limits)?;
    let stats = collect_stats(&m, source, method, limits, None)?;
    for t in &stats.tensors {
        println!(
            "{:>5}  [{:>12.6e}, {:>12.6e}]  chosen [{:>12.6e}, {:>12.6e}]  {}",
            t.index, t.min, t.max, t.chosen_min, t.chosen_max, t.name
        );
    }
    write_json(output, &stats)?;
    eprintln!(
        "wrote {} ({} tensors, {} samples, method {method})",
        output.display(),
        stats.tensors.len(),
        stats.samples
    );
    Ok(())
}

fn write_json<T: serde::Serialize>(output: &Path, value: &T) -> Result<()> {
    let text = serde_json::to_string(value).map_err(|e| Error::Write {
        reason: format!("JSON: {e}"),
    })?;
    std::fs::write(output, text + "\n").map_err(|source| Error::Io {
        path: output.display().to_string(),
        source,
    })
}

/// Streams the samples of `source` through the calibrator of `m`.
fn collect_stats(
    m: &zeropoint::Model,
    source: CalibrationSource,
    method: zeropoint::quant::calibrate::Method,
    limits: &UserLimits,
    mut errors: Option<&mut zeropoint::quant::sqnr::ErrorSamples>,
) -> Result<zeropoint::quant::calibrate::CalibrationStats> {
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

/// `zeropoint quantize`: ranges from --data (our calibration) or --stats (STATS.json from
/// `zeropoint calibrate`, or a calibrated .tflite carrying min/max), then the library quantizer.
#[allow(clippy::too_many_arguments)]
fn quantize_model(
    model: &Path,
    data: Vec<PathBuf>,
    stats: Option<PathBuf>,
    calibration: Option<&str>,
    opts: zeropoint::quant::QuantizeOptions,
    report: Option<PathBuf>,
    output: &Path,
    limits: &UserLimits,
) -> Result<()> {
    use zeropoint::quant::calibrate::{CalibrationStats, Method};
    use zeropoint::quant::{Mode, Ranges, quantize_to_bytes};
    let m = load(model, limits)?;
    let method = calibration.map(Method::parse).transpose()?;
    let needs_ranges = matches!(opts.mode, Mode::Int8 | Mode::Int16x8);
    // The first calibration samples (with --data), for the report's errors.
    let mut errors = zeropoint::quant::sqnr::ErrorSamples::new();
    let ranges = match (stats, data.is_empty()) {
        (Some(_), false) => {
            return Err(Error::Calibration {
                reason: "give either --data or --stats, not both".into(),
            });
        }
        (Some(path), true) => {
            let bytes = read_file(&path)?;
            if bytes.starts_with(b"{") {
                let s: CalibrationStats =
                    serde_json::from_slice(&bytes).map_err(|e| Error::Calibration {
                        reason: format!("{}: not a STATS.json: {e}", path.display()),
                    })?;
                let s = match method {
                    Some(method) => s.with_method(method)?,
                    None => s,
                };
                Ranges::from_calibration(&m, &s)?
            } else {
                if let Some(method) = method.filter(|&m| m != Method::MinMax) {
                    return Err(Error::Calibration {
                        reason: format!(
                            "{}: a calibrated .tflite carries only min/max; --calibration \
                             {method} needs a STATS.json (zeropoint calibrate) or --data",
                            path.display()
                        ),
                    });
                }
                let cal = load(&path, limits)?;
                Ranges::from_calibrated_model(&m, &cal)?
            }
        }
        (None, false) => {
            let method = method.unwrap_or(Method::MinMax);
            let s = collect_stats(
                &m,
                CalibrationSource::Npy(data),
                method,
                limits,
                Some(&mut errors),
            )?;
            Ranges::from_calibration(&m, &s)?
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
    let (bytes, mut rep) = quantize_to_bytes(&m, &ranges, &opts)?;
    if report.is_some() && !errors.samples().is_empty() {
        errors.measure(&m, &zeropoint::tflite::read(&bytes)?, &mut rep)?;
    }
    for w in &rep.warnings {
        eprintln!("warning: {w}");
    }
    std::fs::write(output, &bytes).map_err(|source| Error::Io {
        path: output.display().to_string(),
        source,
    })?;
    if let Some(r) = report {
        write_json(&r, &rep)?;
        eprintln!("wrote {}", r.display());
    }
    eprintln!(
        "wrote {} ({} bytes, mode {}, I/O {})",
        output.display(),
        bytes.len(),
        rep.mode,
        rep.io
    );
    Ok(())
}

fn run(cli: Cli) -> Result<()> {
    let limits = &cli.limits();
    match cli.command {
        Command::Inspect { model, json } => {
            let m = load(&model, limits)?;
            let summary = ModelSummary::of(&m);
            if json {
                let text = serde_json::to_string_pretty(&summary).map_err(|e| Error::Write {
                    reason: format!("JSON: {e}"),
                })?;
                println!("{text}");
            } else {
                print_text(&model, &summary);
            }
        }
        Command::Rewrite {
            model,
            output,
            external_buffers,
        } => {
            let m = load(&model, limits)?;
            let bytes = tflite::write_with(&m, &WriteOptions { external_buffers })?;
            std::fs::write(&output, &bytes).map_err(|source| Error::Io {
                path: output.display().to_string(),
                source,
            })?;
            eprintln!("wrote {} ({} bytes)", output.display(), bytes.len());
        }
        Command::Run {
            model,
            inputs,
            out_dir,
            dump,
            kernels,
        } => run_model(&model, &inputs, &out_dir, dump.as_deref(), limits, kernels)?,
        Command::Compare {
            float_model,
            quantized_model,
            inputs,
            json,
            top,
            kernels,
        } => compare_models(
            &float_model,
            &quantized_model,
            &inputs,
            json.as_deref(),
            top,
            limits,
            kernels,
        )?,
        Command::Calibrate {
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
        } => {
            use zeropoint::quant::inputs::Normalization;
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
            calibrate_model(&model, source, &method, &output, limits)?;
        }
        Command::Quantize {
            model,
            mode,
            io,
            data,
            stats,
            calibration,
            per_tensor,
            float_ops,
            int16_ops,
            report,
            output,
        } => {
            use zeropoint::quant::{IoType, Mode, QuantizeOptions};
            let opts = QuantizeOptions {
                mode: Mode::parse(&mode)?,
                io: IoType::parse(&io)?,
                per_tensor,
                float_ops,
                int16_ops,
            };
            quantize_model(
                &model,
                data,
                stats,
                calibration.as_deref(),
                opts,
                report,
                &output,
                limits,
            )?;
        }
    }
    Ok(())
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// `zeropoint compare`: float vs quantized, per tensor.
fn compare_models(
    float_model: &Path,
    quantized_model: &Path,
    inputs: &[PathBuf],
    json: Option<&Path>,
    top: usize,
    limits: &UserLimits,
    kernels: KernelSet,
) -> Result<()> {
    let f = load(float_model, limits)?;
    let q = load(quantized_model, limits)?;
    // Both models are prepared with the user's limits first (the comparison prepares them again).
    let descs = Interpreter::with_limits(&f, &limits.engine)?
        .inputs()
        .to_vec();
    Interpreter::with_limits(&q, &limits.engine)?;
    if let Some((i, d)) = descs
        .iter()
        .enumerate()
        .find(|(_, d)| d.dtype != TensorType::FLOAT32)
    {
        return Err(Error::TensorMismatch {
            what: format!("input {i} of the float model"),
            tensor: d.name.clone(),
            expected: "FLOAT32".into(),
            got: dtype_name(d.dtype),
        });
    }
    let arrays = read_samples(inputs, &descs)?;
    let samples = arrays.first().map_or(0, |a| a.shape[0]);
    let per_sample: Vec<Vec<Vec<f32>>> = (0..samples)
        .map(|s| {
            arrays
                .iter()
                .zip(&descs)
                .map(|(a, d)| {
                    let n = d.num_elements();
                    bytemuck::cast_slice::<u8, f32>(&a.bytes[s * n * 4..(s + 1) * n * 4]).to_vec()
                })
                .collect()
        })
        .collect();
    let mut rows = zeropoint::engine::compare::compare_models_with(&f, &q, &per_sample, kernels)?;
    if let Some(path) = json {
        let text = serde_json::to_string_pretty(&rows).map_err(|e| Error::Io {
            path: path.display().to_string(),
            source: std::io::Error::other(e),
        })?;
        std::fs::write(path, text).map_err(|source| Error::Io {
            path: path.display().to_string(),
            source,
        })?;
    }
    rows.sort_by(|a, b| a.sqnr_db.total_cmp(&b.sqnr_db));
    println!(
        "{} tensors in both models, {} samples; worst SQNR first",
        rows.len(),
        samples
    );
    println!(
        "{:>9}  {:>12}  {:>9}  {:<7}  name",
        "SQNR dB", "max |err|", "LSB", "dtype"
    );
    for r in rows.iter().take(top) {
        let lsb = r
            .max_abs_error_lsb
            .map_or_else(|| "-".to_string(), |l| format!("{l:.2}"));
        println!(
            "{:>9.2}  {:>12.6}  {:>9}  {:<7}  {}",
            r.sqnr_db, r.max_abs_error, lsb, r.dtype, r.name
        );
    }
    Ok(())
}
