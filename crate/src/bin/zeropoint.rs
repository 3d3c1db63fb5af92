//! `zeropoint`: the command-line face of the Zeropoint library.
//!
//! Subcommands: `inspect` (summary as text or JSON) and `rewrite` (read and write back through the
//! IR). Everything here is argument parsing and printing; the work happens in the library.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use zeropoint::graph::summary::{ModelSummary, QuantSummary, TensorSummary};
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
}

fn read_file(path: &Path) -> Result<Vec<u8>> {
    std::fs::read(path).map_err(|source| Error::Io {
        path: path.display().to_string(),
        source,
    })
}

fn load(path: &Path) -> Result<zeropoint::Model> {
    let bytes = read_file(path)?;
    // Prefix format errors with the file name so scripts handling many files say which one.
    tflite::read(&bytes).map_err(|e| match e {
        Error::InvalidFlatbuffer { reason } => Error::InvalidFlatbuffer {
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

fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Inspect { model, json } => {
            let m = load(&model)?;
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
            let m = load(&model)?;
            let bytes = tflite::write_with(&m, &WriteOptions { external_buffers })?;
            std::fs::write(&output, &bytes).map_err(|source| Error::Io {
                path: output.display().to_string(),
                source,
            })?;
            eprintln!("wrote {} ({} bytes)", output.display(), bytes.len());
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
