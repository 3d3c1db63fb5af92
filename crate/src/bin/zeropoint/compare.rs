//! `zeropoint compare`: a float model and its quantized version side by side, per tensor
//! (SQNR and largest error), worst first.

use std::path::PathBuf;

use clap::Args;
use zeropoint::engine::Interpreter;
use zeropoint::graph::dtype::dtype_name;
use zeropoint::graph::{Model, TensorType};
use zeropoint::kernels::{Arithmetic, KernelSet};
use zeropoint::limits::UserLimits;
use zeropoint::{Error, Result};

use crate::io::{ShapeArgs, load, outln};
use crate::samples::read_samples;

#[derive(Args)]
pub struct CompareArgs {
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
    /// The quantized model's integer arithmetic: `reference` (LiteRT's BUILTIN_REF) or
    /// `xnnpack` (LiteRT's default XNNPACK path for int8 CONV_2D, DEPTHWISE_CONV_2D,
    /// FULLY_CONNECTED and float → int8 QUANTIZE; every other op stays reference), as `run`.
    #[arg(long, default_value = "reference")]
    arithmetic: Arithmetic,
    /// Input shapes, applied to both models.
    #[command(flatten)]
    shapes: ShapeArgs,
}

/// `zeropoint compare`: float vs quantized, per tensor.
pub fn compare(args: CompareArgs, limits: &UserLimits) -> Result<()> {
    let CompareArgs {
        float_model,
        quantized_model,
        inputs,
        json,
        top,
        kernels,
        arithmetic,
        shapes,
    } = args;
    let f = shapes.apply(load(&float_model, limits)?)?;
    let q = shapes.apply(load(&quantized_model, limits)?)?;
    // Both models are prepared with the user's limits first (the comparison prepares them again).
    Interpreter::with_limits(&q, &limits.engine)?;
    let per_sample = float_samples(&f, &inputs, limits)?;
    let samples = per_sample.len();
    let mut rows =
        zeropoint::engine::compare::compare_models_in(&f, &q, &per_sample, kernels, arithmetic)?;
    if let Some(path) = json {
        let text = serde_json::to_string_pretty(&rows).map_err(|e| Error::Io {
            path: path.display().to_string(),
            source: std::io::Error::other(e),
        })?;
        crate::io::write_file(&path, text)?;
    }
    // The verdict first, from the rows in execution order.
    if let Some(sg) = f.subgraphs.first() {
        let layers = crate::verdict::layers(sg, rows.iter().map(|r| (r.float_tensor, r.sqnr_db)));
        for line in crate::verdict::verdict(&layers).unwrap_or_default() {
            outln!("{line}");
        }
    }
    rows.sort_by(|a, b| a.sqnr_db.total_cmp(&b.sqnr_db));
    outln!(
        "{} tensors in both models, {} samples; worst SQNR first",
        rows.len(),
        samples
    );
    outln!(
        "{:>9}  {:>12}  {:>9}  {:<7}  name",
        "SQNR dB",
        "max |err|",
        "LSB",
        "dtype"
    );
    for r in rows.iter().take(top) {
        let lsb = r
            .max_abs_error_lsb
            .map_or_else(|| "-".to_string(), |l| format!("{l:.2}"));
        outln!(
            "{:>9.2}  {:>12.6}  {:>9}  {:<7}  {}",
            r.sqnr_db,
            r.max_abs_error,
            lsb,
            r.dtype,
            r.name
        );
    }
    Ok(())
}

/// The float samples of `inputs` (one float32 .npy per input of the float model `f`, first axis
/// = samples) as `[sample][input] → values`, the form the library's comparisons take.
pub fn float_samples(
    f: &Model,
    inputs: &[PathBuf],
    limits: &UserLimits,
) -> Result<Vec<Vec<Vec<f32>>>> {
    let descs = Interpreter::with_limits(f, &limits.engine)?
        .inputs()
        .to_vec();
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
    let (arrays, samples) = read_samples(inputs, &descs)?;
    Ok((0..samples)
        .map(|s| {
            arrays
                .iter()
                .zip(&descs)
                .map(|(a, d)| {
                    let n = d.num_elements();
                    bytemuck::cast_slice::<u8, f32>(&a.data[s * n * 4..(s + 1) * n * 4]).to_vec()
                })
                .collect()
        })
        .collect())
}
