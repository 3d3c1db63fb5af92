//! `zeropoint compare-quant`: our quantized model against a reference quantized model (TF's),
//! tensor for tensor — type, scale, zero point, constants, operators on one side only — and,
//! with the float model and inputs, each tensor's SQNR in both.

use std::path::PathBuf;

use clap::Args;
use zeropoint::limits::UserLimits;
use zeropoint::quant::compare_quant::{TensorMatch, compare_quantized, compare_quantized_on};
use zeropoint::{Error, Result};

use crate::compare::float_samples;
use crate::io::{load, outln};

#[derive(Args)]
pub struct CompareQuantArgs {
    /// Our quantized .tflite file.
    ours: PathBuf,
    /// The reference quantized .tflite file (e.g. TF's, from the same float model).
    reference: PathBuf,
    /// The float .tflite both were quantized from: with --input, SQNR of every tensor in both.
    #[arg(long)]
    float: Option<PathBuf>,
    /// One float32 .npy per float model input (first axis = samples); needs --float.
    #[arg(long = "input")]
    inputs: Vec<PathBuf>,
    /// Write the full comparison as JSON here.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Also print the tensors that are equal.
    #[arg(long)]
    all: bool,
}

fn fmt_params(scales: &[f32], zps: &[i64]) -> String {
    match (scales, zps) {
        ([], _) => "-".to_string(),
        ([s], [z]) => format!("{s:e} zp {z}"),
        ([s], []) => format!("{s:e}"),
        (s, _) => format!("{} scales (first {:e})", s.len(), s[0]),
    }
}

fn fmt_db(v: Option<f64>) -> String {
    v.map_or_else(|| "-".to_string(), |d| format!("{d:.2}"))
}

fn row(t: &TensorMatch) -> String {
    let name = if t.name == t.reference_name {
        t.name.clone()
    } else {
        format!("{} = ref '{}' ({})", t.name, t.reference_name, t.matched_by)
    };
    let dtype = if t.dtype == t.reference_dtype {
        t.dtype.clone()
    } else {
        format!("{}/{}", t.dtype, t.reference_dtype)
    };
    let data = match t.data_equal {
        Some(false) => "  data differ",
        _ => "",
    };
    format!(
        "{:<5} {:<13} {:<32} {:<32} {:>8} {:>8}  {name}{data}",
        if t.equal { "=" } else { "DIFF" },
        dtype,
        fmt_params(&t.scales, &t.zero_points),
        fmt_params(&t.reference_scales, &t.reference_zero_points),
        fmt_db(t.sqnr_db),
        fmt_db(t.reference_sqnr_db),
    )
}

/// `zeropoint compare-quant`: ours vs a reference quantized model.
pub fn compare_quant(args: CompareQuantArgs, limits: &UserLimits) -> Result<()> {
    let ours = load(&args.ours, limits)?;
    let reference = load(&args.reference, limits)?;
    let c = match (&args.float, args.inputs.is_empty()) {
        (Some(f), false) => {
            let float = load(f, limits)?;
            let samples = float_samples(&float, &args.inputs, limits)?;
            compare_quantized_on(&ours, &reference, &float, &samples)?
        }
        (None, false) => {
            return Err(Error::Quantization {
                what: "compare-quant".into(),
                reason: "--input needs --float (the SQNR is measured against the float model)"
                    .into(),
            });
        }
        _ => compare_quantized(&ours, &reference),
    };
    if let Some(path) = &args.json {
        let text = serde_json::to_string_pretty(&c).map_err(|e| Error::Io {
            path: path.display().to_string(),
            source: std::io::Error::other(e),
        })?;
        crate::io::write_file(path, text)?;
    }
    outln!("operators: ours {}, reference {}", c.ops.0, c.ops.1);
    for (op, a, b) in &c.op_counts {
        outln!("  {op}: ours {a}, reference {b}");
    }
    let by_position = c
        .tensors
        .iter()
        .filter(|t| t.matched_by == "position")
        .count();
    outln!(
        "tensors: {} matched ({by_position} by position), {} equal, {} differ; {} only in ours, {} only in the reference",
        c.tensors.len(),
        c.equal_count(),
        c.tensors.len() - c.equal_count(),
        c.only_ours.len(),
        c.only_reference.len()
    );
    outln!(
        "{:<5} {:<13} {:<32} {:<32} {:>8} {:>8}  name",
        "",
        "dtype",
        "ours: scale, zero point",
        "reference",
        "SQNR dB",
        "ref dB"
    );
    for t in c.tensors.iter().filter(|t| args.all || !t.equal) {
        outln!("{}", row(t));
    }
    for n in &c.only_ours {
        outln!("only in ours: {n}");
    }
    for n in &c.only_reference {
        outln!("only in the reference: {n}");
    }
    Ok(())
}
