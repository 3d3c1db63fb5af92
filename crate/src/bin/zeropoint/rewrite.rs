//! `zeropoint rewrite`: read a model and write it back through the IR.

use std::path::PathBuf;

use clap::Args;
use zeropoint::Result;
use zeropoint::limits::UserLimits;
use zeropoint::tflite::{self, WriteOptions};

use crate::io::{load, write_file};

#[derive(Args)]
pub struct RewriteArgs {
    /// The .tflite file to read.
    model: PathBuf,
    /// Where to write the result.
    #[arg(short, long)]
    output: PathBuf,
    /// Store constant buffers after the flatbuffer (Buffer.offset/size), as TFLite does for
    /// models over 2 GiB.
    #[arg(long)]
    external_buffers: bool,
}

/// Reads `args.model` and writes it to `args.output`.
pub fn rewrite(args: RewriteArgs, limits: &UserLimits) -> Result<()> {
    let RewriteArgs {
        model,
        output,
        external_buffers,
    } = args;
    let m = load(&model, limits)?;
    let bytes = tflite::write_with(&m, &WriteOptions { external_buffers })?;
    write_file(&output, &bytes)?;
    eprintln!("wrote {} ({} bytes)", output.display(), bytes.len());
    Ok(())
}
