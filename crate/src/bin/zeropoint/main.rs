//! `zeropoint`: the command-line face of the Zeropoint library.
//!
//! Subcommands: `inspect` (summary as text or JSON), `rewrite` (read and write back through the
//! IR), `run` (the engine, float or integer, over `.npy` samples), `compare` (float vs quantized, per tensor),
//! `compare-quant` (ours vs a reference quantized model, per tensor),
//! `calibrate` (per-tensor statistics) and `quantize` (TF-exact quantization: int8, int16x8,
//! dynamic, float16). Everything here is argument parsing, file I/O and printing; the work
//! happens in the library. Global options `--max-model-mb`, `--max-tensor-mb` and
//! `--max-arena-mb` apply to every model read and every engine prepared.
//!
//! This file holds the command line (global options, one variant per subcommand) and the
//! dispatch; each subcommand lives in its own module with its flags ([`clap::Args`]); `io` and
//! `samples` are the shared file helpers.

mod calibrate;
mod compare;
mod compare_quant;
mod inspect;
mod io;
mod quantize;
mod rewrite;
mod run;
mod samples;
mod verdict;

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use zeropoint::Result;
use zeropoint::kernels::litert_optimized::caches::CacheSizes;
use zeropoint::limits::UserLimits;

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
    /// Most iterations one WHILE operator may run per sample (default 1000000); a loop still
    /// running after that stops with an error naming the operator (LiteRT would loop forever).
    #[arg(long, global = true, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    max_while_iterations: Option<u64>,
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
        if let Some(n) = self.max_while_iterations {
            limits.engine.max_while_iterations = n;
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
    Inspect(inspect::InspectArgs),
    /// Read a model and write it back through the IR (normalises it; checks lossless I/O).
    Rewrite(rewrite::RewriteArgs),
    /// Run a model on .npy inputs (first axis = samples) and write one .npy per output.
    Run(run::RunArgs),
    /// Run a float model and its quantized version side by side on float samples and report,
    /// for every tensor present in both (matched by name), the SQNR and the largest error
    /// (in float units and in LSB of the quantized tensor), worst first.
    Compare(compare::CompareArgs),
    /// Compare our quantized model with a reference quantized model (TF's) tensor for tensor:
    /// type, scale, zero point and constants (matched by name, else by operator position),
    /// operators present on one side only, and with --float/--input each tensor's SQNR in both.
    CompareQuant(compare_quant::CompareQuantArgs),
    /// Calibrate a float model: record per-tensor statistics (TF's min/max, histogram, chosen
    /// range) over samples from .npy files, images or seeded random data, and write them as JSON.
    Calibrate(calibrate::CalibrateArgs),
    /// Quantize a float model as TF's converter does: full integer (int8, int16x8), dynamic
    /// range or float16.
    Quantize(quantize::QuantizeArgs),
    /// Print this machine's data cache sizes as TF's Eigen reads them (cpuid), in KiB as
    /// `L1,L2,L3`: what `--tf-caches host` reproduces. TF's calibration of a convolution with a
    /// long reduction depends on them.
    TfCaches,
}

fn run(cli: Cli) -> Result<()> {
    let limits = &cli.limits();
    match cli.command {
        Command::Inspect(args) => inspect::inspect(args, limits),
        Command::Rewrite(args) => rewrite::rewrite(args, limits),
        Command::Run(args) => run::run(args, limits),
        Command::Compare(args) => compare::compare(args, limits),
        Command::CompareQuant(args) => compare_quant::compare_quant(args, limits),
        Command::Calibrate(args) => calibrate::calibrate(args, limits),
        Command::Quantize(args) => quantize::quantize(args, limits),
        Command::TfCaches => match CacheSizes::host() {
            Some(c) => {
                println!("{c}");
                Ok(())
            }
            None => Err(zeropoint::Error::Calibration {
                reason: "not an x86-64 machine: TF's calibration arithmetic reproduced here is \
                         its x86-64 wheel's (pass --tf-caches L1,L2,L3 of the machine TF ran on)"
                    .into(),
            }),
        },
    }
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
