//! Limits a user can see and change: the largest model file read, and the engine's size
//! [`Limits`] (largest tensor, activation arena, constant store).
//!
//! The CLI takes them as `--max-model-mb`, `--max-tensor-mb` and `--max-arena-mb`; the page has a
//! "Limits" panel. Both pass them to every prepare ([`crate::engine::Interpreter::with_limits`])
//! and check the model size with [`check_model_size`] before reading the file, so a too-large
//! model or tensor gives a typed [`Error::TooLarge`] naming it, never an allocation failure.

use crate::engine::{Limits, MAX_BYTES};
use crate::{Error, Result};

/// One megabyte as the limits count it: 2^20 bytes.
pub const MB: f64 = 1_048_576.0;

/// Largest model file read by default: 2 GiB, as the engine's default [`Limits`].
pub const DEFAULT_MAX_MODEL_BYTES: u64 = MAX_BYTES as u64;

/// Everything a user can limit: the model file size and the engine's [`Limits`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UserLimits {
    /// Largest model file, in bytes, checked before it is read.
    pub max_model_bytes: u64,
    /// The engine's limits, used by every prepare.
    pub engine: Limits,
}

impl Default for UserLimits {
    /// [`DEFAULT_MAX_MODEL_BYTES`] and [`Limits::default`].
    fn default() -> Self {
        UserLimits {
            max_model_bytes: DEFAULT_MAX_MODEL_BYTES,
            engine: Limits::default(),
        }
    }
}

/// `mb` megabytes (2^20 bytes each, fractions allowed) as a whole number of bytes, rounded down.
///
/// # Errors
/// A readable reason (for argument parsers) when `mb` is not a positive finite number, is less
/// than one byte, or is more than this machine can address.
pub fn mb_to_bytes(mb: f64) -> std::result::Result<usize, String> {
    if !mb.is_finite() || mb <= 0.0 {
        return Err(format!("{mb} is not a positive number of megabytes"));
    }
    let bytes = (mb * MB).floor();
    if bytes < 1.0 {
        return Err(format!("{mb} MB is less than one byte"));
    }
    // `usize::MAX as f64` rounds up to a power of two, so `<` keeps the cast exact.
    if bytes >= usize::MAX as f64 {
        return Err(format!("{mb} MB is more than this machine can address"));
    }
    Ok(bytes as usize)
}

/// Refuses a model file of `size` bytes when it is larger than `max` bytes, naming it (`name` is
/// a path or a file name); call it before reading the file.
///
/// # Errors
/// [`Error::TooLarge`] naming the file, its size and the limit.
pub fn check_model_size(name: &str, size: u64, max: u64) -> Result<()> {
    if size > max {
        return Err(Error::TooLarge {
            what: format!("the model file {name}"),
            detail: format!("{size} bytes, more than the model size limit of {max} bytes"),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn megabytes_become_bytes_or_a_reason() {
        assert_eq!(mb_to_bytes(1.0), Ok(1 << 20));
        assert_eq!(mb_to_bytes(0.001), Ok(1048));
        assert_eq!(mb_to_bytes(2048.0), Ok(MAX_BYTES));
        assert!(mb_to_bytes(0.0).is_err());
        assert!(mb_to_bytes(-1.0).is_err());
        assert!(mb_to_bytes(f64::NAN).is_err());
        assert!(mb_to_bytes(1e-9).is_err());
        assert!(mb_to_bytes(1e300).is_err());
    }

    #[test]
    fn a_model_over_the_limit_is_named() {
        assert!(check_model_size("m.tflite", 10, 10).is_ok());
        let e = check_model_size("m.tflite", 11, 10).expect_err("too large");
        assert!(matches!(e, Error::TooLarge { .. }));
        assert_eq!(
            e.to_string(),
            "the model file m.tflite is too large: 11 bytes, more than the model size limit of 10 bytes"
        );
    }
}
