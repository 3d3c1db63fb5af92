//! Repairs of files LiteRT runs but the flatbuffer verifier refuses, made on a same-length copy
//! so every offset stays valid, each with a warning (reported by [`crate::graph::lint::warnings`]
//! through [`crate::graph::Model::read_warnings`]):
//!
//! - a string that is not UTF-8 (LiteRT never checks names): `?` for each invalid byte;
//! - an operator whose `builtin_options_type` and `builtin_options` (or the `_2` pair) are not
//!   both present: LiteRT's `builtin_options_as_X()` then yields null and it uses the defaults,
//!   so the lone field is dropped from the operator's vtable and the operator reads with no
//!   options (the kernels' defaults).
//!
//! The verifier is run again after each repair; anything else it reports refuses the file.

use super::read::verifier_words;
use super::schema;
use crate::error::{Error, Result};
use flatbuffers::{ErrorTraceDetail, InvalidFlatbuffer};

/// Most repairs one file may have before it is refused.
const MAX_REPAIRS: usize = 64;

/// Whether [`repair`] may fix what the verifier reported.
pub(super) fn repairable(e: &InvalidFlatbuffer) -> bool {
    matches!(
        e,
        InvalidFlatbuffer::Utf8Error { .. } | InvalidFlatbuffer::InconsistentUnion { .. }
    )
}

/// A copy of `bytes` with every repairable problem fixed, and one warning per repair.
///
/// # Errors
/// [`Error::InvalidFlatbuffer`] for anything the verifier reports that is not repairable (or
/// not where a repair applies), or after [`MAX_REPAIRS`] repairs.
pub(super) fn repair(
    bytes: &[u8],
    verifier: &flatbuffers::VerifierOptions,
) -> Result<(Vec<u8>, Vec<String>)> {
    let mut copy = bytes.to_vec();
    let mut warnings = Vec::new();
    loop {
        let e = match schema::verify_model(verifier, &copy) {
            Ok(_) => return Ok((copy, warnings)),
            Err(e) => e,
        };
        let fixed = if warnings.len() < MAX_REPAIRS {
            match &e {
                InvalidFlatbuffer::Utf8Error { range, .. } => make_utf8(&mut copy, range.clone()),
                InvalidFlatbuffer::InconsistentUnion {
                    field, error_trace, ..
                } => drop_lone_options(&mut copy, field, error_trace.as_ref()),
                _ => None,
            }
        } else {
            None
        };
        match fixed {
            Some(warning) => warnings.push(warning),
            None => {
                return Err(Error::InvalidFlatbuffer {
                    reason: verifier_words(&e, bytes.len()),
                });
            }
        }
    }
}

/// Replaces each invalid byte of the string at `range` with `?`.
fn make_utf8(bytes: &mut [u8], range: std::ops::Range<usize>) -> Option<String> {
    let text = bytes.get_mut(range.clone())?;
    let mut start = 0;
    while let Err(e) = std::str::from_utf8(&text[start..]) {
        let bad = start + e.valid_up_to();
        let end = e.error_len().map_or(text.len(), |n| bad + n);
        text[bad..end].fill(b'?');
        start = end;
    }
    let shown: String = String::from_utf8_lossy(text).chars().take(80).collect();
    Some(format!(
        "the string at bytes {}..{} is not UTF-8: read as '{shown}' (`?` for each invalid \
         byte; LiteRT does not check names) and written so",
        range.start, range.end
    ))
}

fn u16_at(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(
        b.get(at..at.checked_add(2)?)?.try_into().ok()?,
    ))
}

fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(
        b.get(at..at.checked_add(4)?)?.try_into().ok()?,
    ))
}

/// Drops an operator's lone options field (type without table, or table without type) from its
/// vtable. The verifier's trace gives the operator's place: the innermost vector element is its
/// entry in `operators`, the next one its subgraph's entry in `subgraphs`.
fn drop_lone_options(bytes: &mut [u8], field: &str, trace: &[ErrorTraceDetail]) -> Option<String> {
    let (key, value) = match field {
        "builtin_options_type" => (
            schema::Operator::VT_BUILTIN_OPTIONS_TYPE,
            schema::Operator::VT_BUILTIN_OPTIONS,
        ),
        "builtin_options_2_type" => (
            schema::Operator::VT_BUILTIN_OPTIONS_2_TYPE,
            schema::Operator::VT_BUILTIN_OPTIONS_2,
        ),
        _ => return None,
    };
    let mut elements = trace.iter().filter_map(|d| match d {
        ErrorTraceDetail::VectorElement { index, position } => Some((*index, *position)),
        _ => None,
    });
    let (op, slot) = elements.next()?;
    let subgraph = elements.next().map_or(0, |(i, _)| i);
    // Directly inside the `operators` vector of a subgraph, or it is another union.
    let in_operators = trace.iter().any(|d| {
        matches!(d, ErrorTraceDetail::TableField { field_name, .. } if field_name == "operators")
    });
    if !in_operators {
        return None;
    }
    let table = slot.checked_add(usize::try_from(u32_at(bytes, slot)?).ok()?)?;
    let soffset = i32::from_le_bytes(u32_at(bytes, table)?.to_le_bytes());
    let vtable = usize::try_from(i64::try_from(table).ok()? - i64::from(soffset)).ok()?;
    let vtable_len = usize::from(u16_at(bytes, vtable)?);
    for voff in [key, value] {
        let at = usize::from(voff);
        if at + 2 <= vtable_len {
            bytes.get_mut(vtable + at..vtable + at + 2)?.fill(0);
        }
    }
    let pair = field.trim_end_matches("_type");
    Some(format!(
        "operator {op} of subgraph {subgraph} has only one of {pair}_type and {pair}: read with \
         no options (the defaults), as LiteRT does, and written so"
    ))
}
