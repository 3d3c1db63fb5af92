//! The whole quantization a user asks for, as one call shared by the CLI and the page: calibration
//! statistics (`zeropoint calibrate`'s JSON) → [`Ranges`] → [`quantize`] → the bytes of the
//! quantized `.tflite` and the [`Report`], plus the JSON texts both faces write. The page's
//! downloads are byte-identical to `zeropoint quantize --stats … -o … --report …` because both
//! go through these functions.
//!
//! What [`quantize`] does, in order (file names under `quant/`):
//!
//! 1. **Prepare**: DENSIFY of constants folded (`passes/edit.rs`); for the full-integer modes,
//!    float16 or int8 constants behind DEQUANTIZE and hybrid weights made float32
//!    ([`super::normalize`]).
//! 2. **The pass of the mode.** Full integer (`passes/full_integer/`, stages in the order of its
//!    `run`): which operators are quantized (`mod.rs`) → which recorded activation ranges count
//!    (`states.rs`) → parameters propagated forward and backward across same-scale operators,
//!    fixed outputs set, requantizes where they disagree (`propagate.rs`) → weights, then bias,
//!    then other constants (`constants.rs`) → dtypes, QUANTIZE/DEQUANTIZE at float boundaries and
//!    the I/O types (`materialize.rs`) → recorded ranges, multipliers and the tensor report
//!    (`report.rs`). With `--int16-ops`, that pass twice (`passes/mixed_int16.rs`). Dynamic range
//!    (`passes/dynamic_range.rs`) and float16 (`passes/float16.rs`) are single steps. The numbers
//!    each stage writes come from `params/` (`activation.rs`, `weights.rs`, `bias.rs`,
//!    `affine.rs`).
//! 3. **Clean up**: redundant DEQUANTIZE → QUANTIZE pairs removed ([`super::cleanup`]), unread
//!    buffers dropped.

use super::calibrate::{CalibrationStats, SignatureStats};
use super::passes::{
    Mode, QuantizeOptions, Ranges, quantize, quantize_signatures, signature_ranges,
};
use super::report::Report;
use crate::error::{Error, Result};
use crate::graph::Model;
use crate::tflite;

/// The ranges `opts.mode` needs, from calibration statistics. Dynamic-range and float16
/// quantization need none (statistics, if given, are still checked against the model).
///
/// # Errors
/// [`Error::Calibration`] when a full-integer mode gets no statistics; what
/// [`Ranges::from_calibration`] refuses (statistics of another model, non-finite ranges).
pub fn ranges_from_stats(
    model: &Model,
    stats: Option<&CalibrationStats>,
    mode: Mode,
) -> Result<Ranges> {
    match stats {
        Some(s) => Ranges::from_calibration(model, s),
        None if matches!(mode, Mode::Int8 | Mode::Int16x8) => Err(Error::Calibration {
            reason: format!(
                "mode {} needs calibration statistics: calibrate the model first",
                mode.name()
            ),
        }),
        None => Ok(Ranges::new()),
    }
}

/// Quantizes `model` and writes the result: the `.tflite` bytes and the report.
///
/// # Errors
/// What [`quantize`] or [`tflite::write()`] refuse.
pub fn quantize_to_bytes(
    model: &Model,
    ranges: &Ranges,
    opts: &QuantizeOptions,
) -> Result<(Vec<u8>, Report)> {
    let (q, report) = quantize(model, ranges, opts)?;
    let bytes = tflite::write(&q)?;
    Ok((bytes, report))
}

/// Quantizes a model with several signatures (full integer) from per-signature statistics, as
/// `zeropoint quantize --signature-data` / `--stats SIGNATURE_STATS.json` does: each signature's
/// ranges from its own statistics ([`signature_ranges`]), every signature quantized with them
/// ([`quantize_signatures`]), then written.
///
/// # Errors
/// What [`signature_ranges`], [`quantize_signatures`] or [`tflite::write()`] refuse.
pub fn quantize_signatures_to_bytes(
    model: &Model,
    stats: &SignatureStats,
    opts: &QuantizeOptions,
) -> Result<(Vec<u8>, Report)> {
    let ranges = signature_ranges(model, stats)?;
    let (q, report) = quantize_signatures(model, &ranges, opts)?;
    let bytes = tflite::write(&q)?;
    Ok((bytes, report))
}

/// Reads a statistics JSON as `zeropoint calibrate` writes it (unknown fields are ignored, so the
/// page's export with its extra `model` / `method` / `source` fields reads too).
///
/// # Errors
/// [`Error::Calibration`] when the text is not such a JSON.
pub fn parse_stats_json(text: &[u8]) -> Result<CalibrationStats> {
    serde_json::from_slice(text).map_err(|e| Error::Calibration {
        reason: format!("not a calibration statistics JSON: {e}"),
    })
}

/// A value as the CLI writes JSON files: compact, one trailing newline.
///
/// # Errors
/// [`Error::Write`] if serialisation fails (it does not for the crate's report types).
pub fn json_text<T: serde::Serialize>(value: &T) -> Result<String> {
    serde_json::to_string(value)
        .map(|text| text + "\n")
        .map_err(|e| Error::Write {
            reason: format!("JSON: {e}"),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn full_integer_modes_need_statistics() {
        let model = Model::default();
        for mode in [Mode::Int8, Mode::Int16x8] {
            let e = ranges_from_stats(&model, None, mode).expect_err("no stats");
            assert!(e.to_string().contains(mode.name()), "{e}");
        }
        for mode in [Mode::Dynamic, Mode::Float16] {
            assert!(
                ranges_from_stats(&model, None, mode)
                    .expect("none needed")
                    .is_empty()
            );
        }
    }

    #[test]
    fn stats_json_round_trips_and_ignores_extra_fields() {
        let text = br#"{"format":"zeropoint-calibration-stats","samples":3,"tensors":[]}"#;
        let stats = parse_stats_json(text).expect("reads");
        assert_eq!(stats.samples, 3);
        assert_eq!(
            json_text(&stats).expect("writes"),
            "{\"samples\":3,\"tensors\":[]}\n"
        );
        assert!(parse_stats_json(b"[1, 2]").is_err());
    }
}
