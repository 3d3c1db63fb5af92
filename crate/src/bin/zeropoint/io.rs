//! File and terminal helpers shared by the subcommands: reading files and models (naming the
//! file in errors, checking the model size limit first), the `--shape` / `--batch` options of
//! every subcommand that prepares a model, writing JSON, and printing to stdout without panicking
//! when stdout is a closed pipe.

use std::path::Path;

use clap::Args;
use zeropoint::engine::Interpreter;
use zeropoint::graph::{ShapeOverrides, parse_shape_arg};
use zeropoint::limits::{UserLimits, check_model_size};
use zeropoint::tflite;
use zeropoint::{Error, Result};

/// `println!` that stays quiet when stdout is a closed pipe (`zeropoint inspect m | head -1`):
/// the rest of the output is dropped and the command carries on (files it writes are still
/// written). Any other error on stdout panics as `println!` does.
macro_rules! outln {
    ($($arg:tt)*) => {
        $crate::io::print_line(format_args!($($arg)*))
    };
}
pub(crate) use outln;

/// The body of [`outln!`].
pub fn print_line(args: std::fmt::Arguments) {
    use std::io::Write;
    if let Err(e) = writeln!(std::io::stdout().lock(), "{args}")
        && e.kind() != std::io::ErrorKind::BrokenPipe
    {
        panic!("failed printing to stdout: {e}");
    }
}

/// Reads a whole file, naming it in errors.
pub fn read_file(path: &Path) -> Result<Vec<u8>> {
    std::fs::read(path).map_err(|source| Error::Io {
        path: path.display().to_string(),
        source,
    })
}

/// Writes a whole file, naming it in errors.
pub fn write_file(path: &Path, bytes: impl AsRef<[u8]>) -> Result<()> {
    std::fs::write(path, bytes).map_err(|source| Error::Io {
        path: path.display().to_string(),
        source,
    })
}

/// Reads a model (refused before reading when larger than the limit), naming the file in errors,
/// and prints its [`zeropoint::graph::lint`] warnings on stderr (`warning: <file>: …`).
pub fn load(path: &Path, limits: &UserLimits) -> Result<zeropoint::Model> {
    let size = std::fs::metadata(path)
        .map_err(|source| Error::Io {
            path: path.display().to_string(),
            source,
        })?
        .len();
    check_model_size(&path.display().to_string(), size, limits.max_model_bytes)?;
    let bytes = read_file(path)?;
    // Prefix format errors with the file name so scripts handling many files say which one.
    let model = tflite::read(&bytes).map_err(|e| match e {
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
    })?;
    for w in zeropoint::graph::lint::warnings(&model) {
        eprintln!("warning: {}: {w}", path.display());
    }
    Ok(model)
}

/// `--shape NAME=D0,D1,…` (repeatable) and `--batch N`: the input shapes the engine prepares
/// with, for models whose `shape_signature` has −1 dims (library: [`ShapeOverrides`]).
#[derive(Args, Debug, Clone, Default)]
pub struct ShapeArgs {
    /// Shape of one graph input, by tensor name or index: `--shape image=3,224,224,3`
    /// (repeatable). Only dims whose shape_signature is -1 may differ from the stored shape.
    #[arg(long = "shape", value_name = "NAME=D0,D1,...", value_parser = parse_shape_arg)]
    shapes: Vec<(String, Vec<usize>)>,
    /// Batch size for every input whose shape_signature has -1 on dim 0 (default: the stored
    /// shape, 1 in TF's exports).
    #[arg(long, value_name = "N")]
    batch: Option<usize>,
}

impl ShapeArgs {
    /// The chosen shapes as the library type.
    pub fn overrides(&self) -> ShapeOverrides {
        ShapeOverrides {
            shapes: self.shapes.clone(),
            batch: self.batch,
        }
    }

    /// `model` with the chosen input shapes applied (unchanged without `--shape`/`--batch`).
    pub fn apply(&self, mut model: zeropoint::Model) -> Result<zeropoint::Model> {
        self.overrides().apply(&mut model)?;
        Ok(model)
    }
}

/// Writes `value` as one line of JSON.
pub fn write_json<T: serde::Serialize>(output: &Path, value: &T) -> Result<()> {
    let text = serde_json::to_string(value).map_err(|e| Error::Write {
        reason: format!("JSON: {e}"),
    })?;
    write_file(output, text + "\n")
}

/// `--signature KEY`: run (inspect) the model's signature `KEY` instead of subgraph 0, as
/// LiteRT's `get_signature_runner(KEY)` does (library: [`Interpreter::for_signature`]).
#[derive(Args, Debug, Clone, Default)]
pub struct SignatureArg {
    /// Signature to run, by key (`zeropoint inspect` lists them): its subgraph is the entry
    /// point, inputs and outputs are the signature's, in its order and named by its keys.
    #[arg(long, value_name = "KEY")]
    pub signature: Option<String>,
}

impl SignatureArg {
    /// Prepares `model` (at the `shapes` chosen) for subgraph 0, or for the chosen signature.
    ///
    /// # Errors
    /// What the engine refuses; an unknown or broken signature; `--shape`/`--batch` together
    /// with `--signature` (they choose subgraph 0's input shapes).
    pub fn prepare(
        &self,
        model: zeropoint::Model,
        shapes: &ShapeArgs,
        limits: &zeropoint::engine::Limits,
        kernels: zeropoint::kernels::KernelSet,
        arithmetic: zeropoint::kernels::Arithmetic,
    ) -> Result<Interpreter> {
        let Some(key) = &self.signature else {
            return Interpreter::with_arithmetic(
                &shapes.apply(model)?,
                limits,
                kernels,
                arithmetic,
            );
        };
        if !shapes.shapes.is_empty() || shapes.batch.is_some() {
            return Err(Error::Signature {
                key: key.clone(),
                reason: "--shape / --batch choose the input shapes of subgraph 0 and cannot be \
                         combined with --signature (the signature runs at its stored shapes)"
                    .to_string(),
            });
        }
        Interpreter::for_signature_with(&model, key, limits, kernels, arithmetic)
    }
}
