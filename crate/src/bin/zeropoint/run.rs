//! `zeropoint run`: the engine over the samples of `.npy` inputs, one `.npy` per output, and
//! optionally every tensor of the first sample (`--dump`).
//!
//! The samples run in order on one interpreter: a streaming model (resource variables) carries
//! its state from one sample to the next, as consecutive frames; `--reset-every N` resets the
//! state before samples 0, N, 2N, … (independent streams of N frames).

use std::path::{Path, PathBuf};

use clap::Args;
use zeropoint::engine::{Interpreter, shape_text};
use zeropoint::graph::TensorType;
use zeropoint::graph::dtype::dtype_name;
use zeropoint::kernels::{Arithmetic, KernelSet};
use zeropoint::limits::UserLimits;
use zeropoint::{Error, Result};

use crate::io::{ShapeArgs, SignatureArg, load, write_file};
use crate::samples::{read_samples, write_npy};

#[derive(Args)]
pub struct RunArgs {
    /// The .tflite file.
    model: PathBuf,
    /// One .npy per model input, in the subgraph's input order (with --signature: one per
    /// input key of the signature, in the signature's order, as `inspect --signature` lists).
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
    /// Whose integer results to reproduce bit for bit: `reference` (LiteRT's BUILTIN_REF
    /// kernels) or `xnnpack` (LiteRT's default interpreter, XNNPACK delegate: int8 CONV_2D,
    /// DEPTHWISE_CONV_2D and FULLY_CONNECTED requantize in f32 as XNNPACK does, and QUANTIZE
    /// float → int8 is XNNPACK's convert; every other op keeps the reference arithmetic).
    #[arg(long, default_value = "reference")]
    arithmetic: Arithmetic,
    /// For a model that keeps state between calls (resource variables): reset the state before
    /// every N-th sample, so the samples are streams of N consecutive frames (default: one
    /// stream, state carried through all samples in order).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    reset_every: Option<u64>,
    #[command(flatten)]
    shapes: ShapeArgs,
    #[command(flatten)]
    signature: SignatureArg,
}

/// `zeropoint run`: loops the engine over the samples (first axis) of every input.
pub fn run(args: RunArgs, limits: &UserLimits) -> Result<()> {
    let RunArgs {
        model,
        inputs,
        out_dir,
        dump,
        kernels,
        arithmetic,
        reset_every,
        shapes,
        signature,
    } = args;
    let m = load(&model, limits)?;
    let mut interp = signature.prepare(m, &shapes, &limits.engine, kernels, arithmetic)?;
    if let Some(key) = &signature.signature {
        let names = |d: &[zeropoint::engine::TensorDesc]| {
            d.iter()
                .map(|d| d.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        };
        eprintln!(
            "signature '{key}': inputs ({}) -> outputs ({})",
            names(interp.inputs()),
            names(interp.outputs())
        );
    }
    let descs = interp.inputs().to_vec();
    let (arrays, samples) = read_samples(&inputs, &descs)?;
    let outs = interp.outputs().to_vec();
    // The outputs of every sample, held until written: allocated fallibly (a 2 GB output on a
    // machine without the memory is an error naming it, not an abort).
    let mut results: Vec<Vec<u8>> = Vec::with_capacity(outs.len());
    for o in &outs {
        let mut r = Vec::new();
        o.byte_len()
            .checked_mul(samples)
            .and_then(|n| r.try_reserve_exact(n).ok())
            .ok_or_else(|| Error::TooLarge {
                what: format!("output '{}' over {samples} samples", o.name),
                detail: format!(
                    "{} bytes per sample could not be allocated (not enough memory)",
                    o.byte_len()
                ),
            })?;
        results.push(r);
    }
    let every = reset_every.and_then(|n| usize::try_from(n).ok());
    if interp.has_variables() {
        eprintln!(
            "the model keeps state between calls (resource variables): {}",
            match every {
                Some(n) => format!("state reset every {n} sample(s)"),
                None => format!("the {samples} sample(s) run in order as one stream"),
            }
        );
    }
    for s in 0..samples {
        if every.is_some_and(|n| s > 0 && s % n == 0) {
            interp.reset_variables();
        }
        for (i, (a, d)) in arrays.iter().zip(&descs).enumerate() {
            let n = d.byte_len();
            interp.set_input(i, &a.data[s * n..(s + 1) * n])?;
        }
        if s == 0
            && let Some(dir) = dump.as_deref()
        {
            dump_tensors(&mut interp, dir)?;
        } else {
            interp.invoke()?;
        }
        for (k, r) in results.iter_mut().enumerate() {
            r.extend_from_slice(interp.output(k)?.bytes);
        }
    }
    std::fs::create_dir_all(&out_dir).map_err(|source| Error::Io {
        path: out_dir.display().to_string(),
        source,
    })?;
    for (k, (o, bytes)) in outs.iter().zip(&results).enumerate() {
        let mut shape = vec![samples];
        shape.extend_from_slice(&o.shape);
        let path = out_dir.join(format!("output_{k}.npy"));
        write_npy(&path, o.dtype, &shape, bytes)?;
        eprintln!(
            "wrote {} ('{}': {} × {})",
            path.display(),
            o.name,
            samples,
            shape_text(&o.shape)
        );
    }
    Ok(())
}

/// Invokes the interpreter once, writing every tensor it computes (and the graph inputs) as
/// `t<index>.npy` into `dir`, with an index `tensors.json` in execution order.
fn dump_tensors(interp: &mut Interpreter, dir: &Path) -> Result<()> {
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
    })?;
    std::fs::create_dir_all(dir).map_err(|source| Error::Io {
        path: dir.display().to_string(),
        source,
    })?;
    for (t, dtype, shape, bytes) in &tensors {
        let mut with_batch = vec![1];
        with_batch.extend_from_slice(shape);
        write_npy(&dir.join(format!("t{t}.npy")), *dtype, &with_batch, bytes)?;
    }
    let text = serde_json::to_string_pretty(&index).unwrap_or_default();
    write_file(&dir.join("tensors.json"), text)?;
    eprintln!(
        "dumped {} tensors of sample 0 to {} (index: tensors.json, in execution order)",
        tensors.len(),
        dir.display()
    );
    Ok(())
}
