//! Calibration statistics of a model with several signatures: one [`CalibrationStats`] per
//! signature, each recorded on that signature's own samples as a model of its own
//! (`quant::signature_model`), as TF's calibrator feeds each `(key, inputs)` sample of its
//! representative dataset to its signature's subgraph.
//!
//! The file `zeropoint calibrate --signature-data` writes and `zeropoint quantize --stats` reads
//! is versioned (a model with one subgraph of statistics keeps the older format, a bare
//! [`CalibrationStats`], unchanged):
//!
//! ```json
//! {"format": "zeropoint-signature-stats", "version": 1,
//!  "signatures": [{"key": "decode", "stats": {"samples": 8, "tensors": [...]}}, ...]}
//! ```
//!
//! `signatures` lists every signature in the model's order; each `stats` is exactly what
//! `zeropoint calibrate` writes for a one-signature model, its tensor indices those of the
//! signature's subgraph (the same indices in [`signature_model`](crate::quant::signature_model)).
//! [`parse_stats_file`] reads either kind and refuses another format or version by name.

use serde::{Deserialize, Serialize};

use super::method::Method;
use super::stats::CalibrationStats;
use crate::error::{Error, Result};

/// The `format` field of a per-signature statistics file.
pub const SIGNATURE_STATS_FORMAT: &str = "zeropoint-signature-stats";

/// The version of the per-signature statistics format this crate writes and reads.
pub const SIGNATURE_STATS_VERSION: u32 = 1;

/// The statistics of one signature.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SignatureCalibration {
    /// The signature's key.
    pub key: String,
    /// Its statistics, recorded on its own samples; tensor indices of its subgraph.
    pub stats: CalibrationStats,
}

/// Calibration statistics of every signature of a model (see the module documentation).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SignatureStats {
    /// Always [`SIGNATURE_STATS_FORMAT`].
    pub format: String,
    /// Always [`SIGNATURE_STATS_VERSION`] when written by this crate.
    pub version: u32,
    /// One entry per signature, in the model's order.
    pub signatures: Vec<SignatureCalibration>,
}

impl SignatureStats {
    /// The statistics `(key, stats)` of each signature, in the current format and version.
    pub fn new(signatures: Vec<(String, CalibrationStats)>) -> Self {
        SignatureStats {
            format: SIGNATURE_STATS_FORMAT.to_string(),
            version: SIGNATURE_STATS_VERSION,
            signatures: signatures
                .into_iter()
                .map(|(key, stats)| SignatureCalibration { key, stats })
                .collect(),
        }
    }

    /// Every signature's ranges chosen again by `method` ([`CalibrationStats::with_method`]).
    ///
    /// # Errors
    /// What [`CalibrationStats::with_method`] refuses, prefixed with the signature's key.
    pub fn with_method(&self, method: Method) -> Result<SignatureStats> {
        let signatures = self
            .signatures
            .iter()
            .map(|s| {
                let stats = s
                    .stats
                    .with_method(method)
                    .map_err(|e| Error::Calibration {
                        reason: format!("signature '{}': {e}", s.key),
                    })?;
                Ok(SignatureCalibration {
                    key: s.key.clone(),
                    stats,
                })
            })
            .collect::<Result<_>>()?;
        Ok(SignatureStats {
            signatures,
            ..self.clone()
        })
    }
}

/// A statistics file of either kind.
#[derive(Debug, Clone, PartialEq)]
pub enum StatsFile {
    /// The statistics of one model (its subgraph 0 and the subgraphs WHILE / IF run).
    Model(CalibrationStats),
    /// The statistics of each signature of a model with several.
    Signatures(SignatureStats),
}

/// Reads a statistics JSON: per-signature statistics when its `format` is
/// [`SIGNATURE_STATS_FORMAT`] or it has a `signatures` field, otherwise one model's (unknown
/// fields are ignored, so the page's export with its extra fields reads too).
///
/// # Errors
/// [`Error::Calibration`] when the text is not such a JSON, or a per-signature file of another
/// version, naming what is wrong.
pub fn parse_stats_file(text: &[u8]) -> Result<StatsFile> {
    let bad = |e: serde_json::Error| Error::Calibration {
        reason: format!("not a calibration statistics JSON: {e}"),
    };
    let value: serde_json::Value = serde_json::from_slice(text).map_err(bad)?;
    let format = value.get("format").and_then(serde_json::Value::as_str);
    if format != Some(SIGNATURE_STATS_FORMAT) && value.get("signatures").is_none() {
        return serde_json::from_value(value)
            .map(StatsFile::Model)
            .map_err(bad);
    }
    if format != Some(SIGNATURE_STATS_FORMAT) {
        return Err(Error::Calibration {
            reason: format!(
                "statistics with 'signatures' but format {}: expected \"{SIGNATURE_STATS_FORMAT}\"",
                format.map_or_else(|| "missing".to_string(), |f| format!("\"{f}\""))
            ),
        });
    }
    let version = value.get("version").and_then(serde_json::Value::as_u64);
    if version != Some(u64::from(SIGNATURE_STATS_VERSION)) {
        return Err(Error::Calibration {
            reason: format!(
                "{SIGNATURE_STATS_FORMAT} version {}: this zeropoint reads version \
                 {SIGNATURE_STATS_VERSION}",
                version.map_or_else(|| "missing".to_string(), |v| v.to_string())
            ),
        });
    }
    let s: SignatureStats = serde_json::from_value(value).map_err(bad)?;
    let mut seen = std::collections::HashSet::new();
    if let Some(dup) = s.signatures.iter().find(|c| !seen.insert(c.key.as_str())) {
        return Err(Error::Calibration {
            reason: format!("statistics of signature '{}' given twice", dup.key),
        });
    }
    Ok(StatsFile::Signatures(s))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(samples: usize) -> CalibrationStats {
        CalibrationStats {
            samples,
            tensors: Vec::new(),
            nested: Vec::new(),
        }
    }

    #[test]
    fn both_kinds_read_back_and_the_single_format_is_unchanged() {
        let single = br#"{"format":"zeropoint-calibration-stats","samples":3,"tensors":[]}"#;
        assert_eq!(
            parse_stats_file(single).expect("reads"),
            StatsFile::Model(one(3))
        );
        let s = SignatureStats::new(vec![("a".into(), one(2)), ("b".into(), one(5))]);
        let text = serde_json::to_string(&s).expect("writes");
        assert_eq!(
            text,
            "{\"format\":\"zeropoint-signature-stats\",\"version\":1,\"signatures\":[{\"key\":\
             \"a\",\"stats\":{\"samples\":2,\"tensors\":[]}},{\"key\":\"b\",\"stats\":\
             {\"samples\":5,\"tensors\":[]}}]}"
        );
        assert_eq!(
            parse_stats_file(text.as_bytes()).expect("reads"),
            StatsFile::Signatures(s)
        );
    }

    #[test]
    fn another_version_format_or_a_repeated_key_is_refused_by_name() {
        let refused = |text: &str| {
            let e = parse_stats_file(text.as_bytes()).expect_err(text);
            assert!(matches!(e, Error::Calibration { .. }), "{e}");
            e.to_string()
        };
        let e = refused(r#"{"format":"zeropoint-signature-stats","version":2,"signatures":[]}"#);
        assert!(
            e.contains("version 2: this zeropoint reads version 1"),
            "{e}"
        );
        let e = refused(r#"{"format":"zeropoint-signature-stats","signatures":[]}"#);
        assert!(e.contains("version missing"), "{e}");
        let e = refused(r#"{"format":"other","version":1,"signatures":[]}"#);
        assert!(e.contains("format \"other\""), "{e}");
        let e = refused(
            r#"{"format":"zeropoint-signature-stats","version":1,"signatures":[
                {"key":"a","stats":{"samples":1,"tensors":[]}},
                {"key":"a","stats":{"samples":1,"tensors":[]}}]}"#,
        );
        assert!(e.contains("signature 'a' given twice"), "{e}");
        let e = refused(r#"{"format":"zeropoint-signature-stats","version":1}"#);
        assert!(e.contains("not a calibration statistics JSON"), "{e}");
        let e = refused("[1, 2]");
        assert!(e.contains("not a calibration statistics JSON"), "{e}");
    }
}
