//! Full-integer quantization of a model with several signatures, as TF 2.21's converter does it
//! when its representative dataset gives `(signature key, inputs)` tuples: TF's calibrator runs
//! each sample through its own signature's subgraph (`Calibrator::FeedTensor(inputs, key)`), so
//! each subgraph's tensors get the ranges of that signature's samples, and the MLIR quantizer then
//! quantizes every subgraph as an entry point with the model's I/O type (measured on the
//! `signatures` realworld model: each subgraph QUANTIZE → … → DEQUANTIZE with float I/O, weights
//! shared between subgraphs stored once).
//!
//! Here each signature is a model of its own ([`signature_model`]: its subgraph alone as
//! subgraph 0, the same tensor indices, all buffers), calibrated and quantized as a one-subgraph
//! model; [`quantize_signatures`] quantizes each with its signature's [`Ranges`] and puts the
//! subgraphs back in their places ([`assemble_signatures`]), the buffers concatenated and then
//! stored once per content (`compact_buffers`, as TF's writer does across subgraphs too).
//! [`signature_ranges`] reads the ranges from per-signature statistics (`zeropoint calibrate
//! --signature-data`); `quantize --auto` searches each signature's part on its own samples and
//! assembles the parts the same way (a constant the search changed in one part is then stored
//! once per content, so each subgraph keeps its own).
//!
//! TF's exporter names tensors uniquely across the whole model, subgraph after subgraph: the
//! QUANTIZE results of the float inputs go on counting (`tfl.quantize` in subgraph 0,
//! `tfl.quantize1` in subgraph 1, `tfl.quantize2` and `tfl.quantize3` in subgraph 2), so
//! [`module_names`] renames the parts' own counts; any other name the quantizer made that an
//! earlier subgraph already has gets the next free numeral (not measured: no TF model of ours
//! has such a clash).
//!
//! Subgraphs that run other subgraphs (WHILE, IF, CALL_ONCE, CALL) and subgraphs no signature
//! runs are refused with a typed error: TF's layout for them combined with signatures has not
//! been measured.

use std::collections::HashSet;

use super::edit::{Names, compact_buffers};
use super::{QuantizeOptions, Ranges, quantize};
use crate::engine::signatures::{keys, resolve};
use crate::error::{Error, Result};
use crate::graph::{BuiltinOperator as Op, Model};
use crate::quant::calibrate::SignatureStats;
use crate::quant::cleanup::is_tf_quantize_name;
use crate::quant::report::Report;

fn refuse(model: &Model, reason: String) -> Error {
    Error::Quantization {
        what: format!("a model with {} signatures", model.signatures.len()),
        reason,
    }
}

/// Checks that every subgraph of `model` is run by exactly one signature and runs no other
/// subgraph; returns the subgraph of each signature, in the model's signature order.
fn signature_subgraphs(model: &Model) -> Result<Vec<usize>> {
    let mut subgraphs = Vec::with_capacity(model.signatures.len());
    for key in keys(model) {
        subgraphs.push(resolve(model, &key)?.subgraph);
    }
    for s in 0..model.subgraphs.len() {
        match subgraphs.iter().filter(|&&x| x == s).count() {
            1 => {}
            0 => return Err(refuse(model, format!("no signature runs subgraph {s}"))),
            n => return Err(refuse(model, format!("{n} signatures run subgraph {s}"))),
        }
        let sg = &model.subgraphs[s];
        if let Some(op) = sg
            .operators
            .iter()
            .find(|op| matches!(op.code.op(), Op::WHILE | Op::IF | Op::CALL_ONCE | Op::CALL))
        {
            return Err(refuse(
                model,
                format!(
                    "subgraph {s} runs other subgraphs ({}): quantizing signatures with control \
                     flow or resource variables is not supported",
                    op.code.name()
                ),
            ));
        }
    }
    Ok(subgraphs)
}

/// The signature `key` of `model` as a model of its own: its subgraph alone (as subgraph 0, with
/// the same tensor indices), that signature alone, every buffer and the metadata. Calibrate it
/// to record the ranges [`quantize_signatures`] takes for this signature.
///
/// # Errors
/// What [`resolve`] refuses; [`Error::Quantization`] when the model's subgraphs are not one per
/// signature or one of them runs another subgraph.
pub fn signature_model(model: &Model, key: &str) -> Result<Model> {
    signature_subgraphs(model)?;
    let s = resolve(model, key)?.subgraph;
    let mut sig = model
        .signatures
        .iter()
        .find(|d| d.key.as_deref().unwrap_or_default() == key)
        .cloned()
        .ok_or_else(|| refuse(model, format!("no signature '{key}'")))?;
    sig.subgraph = 0;
    Ok(Model {
        subgraphs: vec![model.subgraphs[s].clone()],
        signatures: vec![sig],
        ..model.clone()
    })
}

/// The ranges of each signature of `model` from its statistics (what `zeropoint calibrate
/// --signature-data` writes), as [`quantize_signatures`] takes them: each signature's statistics
/// checked against [`signature_model`] of its key ([`Ranges::from_calibration`]).
///
/// # Errors
/// [`Error::UnknownSignature`] when the statistics name a signature the model lacks; what
/// [`signature_model`] refuses; what [`Ranges::from_calibration`] refuses, named by signature.
/// A signature of the model without statistics is left to [`quantize_signatures`] to refuse.
pub fn signature_ranges(model: &Model, stats: &SignatureStats) -> Result<Vec<(String, Ranges)>> {
    let known = keys(model);
    stats
        .signatures
        .iter()
        .map(|s| {
            if !known.contains(&s.key) {
                return Err(Error::UnknownSignature {
                    key: s.key.clone(),
                    known: known.clone(),
                });
            }
            let part = signature_model(model, &s.key)?;
            let ranges = Ranges::from_calibration(&part, &s.stats).map_err(|e| match e {
                Error::Quantization { what, reason } => Error::Quantization {
                    what: format!("signature '{}': {what}", s.key),
                    reason,
                },
                other => other,
            })?;
            Ok((s.key.clone(), ranges))
        })
        .collect()
}

/// Quantizes every signature of `model` with its own ranges ([`quantize_signature_parts`]) and
/// puts them back into one model ([`assemble_signatures`]). The report is that of the signature
/// running subgraph 0, with the warnings of every signature, each prefixed by its signature.
///
/// # Errors
/// As [`quantize_signature_parts`] and [`assemble_signatures`].
pub fn quantize_signatures(
    model: &Model,
    ranges: &[(String, Ranges)],
    opts: &QuantizeOptions,
) -> Result<(Model, Report)> {
    assemble_signatures(model, quantize_signature_parts(model, ranges, opts)?)
}

/// Quantizes every signature of `model` (full integer: `int8` or `int16x8`) with its own ranges,
/// `ranges` being `(key, ranges of [`signature_model`] of that key)` for each signature, in any
/// order: `(key, quantized part, its report)` per signature, in the model's signature order, as
/// [`assemble_signatures`] takes them.
///
/// # Errors
/// What [`signature_model`] and [`quantize`] refuse; [`Error::Quantization`] when a signature has
/// no ranges or operators are named in `opts.float_ops` / `opts.int16_ops`;
/// [`Error::UnknownSignature`] when ranges name a signature the model lacks.
pub fn quantize_signature_parts(
    model: &Model,
    ranges: &[(String, Ranges)],
    opts: &QuantizeOptions,
) -> Result<Vec<(String, Model, Report)>> {
    signature_subgraphs(model)?;
    let named = |ops: &[String]| ops.iter().any(|s| !s.trim().is_empty());
    if named(&opts.float_ops) || named(&opts.int16_ops) {
        return Err(refuse(
            model,
            "--float-ops / --int16-ops name operators of one subgraph; with several signatures \
             they are not supported yet"
                .to_string(),
        ));
    }
    let keys = keys(model);
    if let Some((k, _)) = ranges.iter().find(|(k, _)| !keys.contains(k)) {
        return Err(Error::UnknownSignature {
            key: k.clone(),
            known: keys,
        });
    }
    keys.iter()
        .map(|key| {
            let r = ranges.iter().find(|(k, _)| k == key).ok_or_else(|| {
                refuse(
                    model,
                    format!(
                        "signature '{key}' has no calibration ranges: calibrate every signature"
                    ),
                )
            })?;
            let (q, rep) = quantize(&signature_model(model, key)?, &r.1, opts)?;
            Ok((key.clone(), q, rep))
        })
        .collect()
}

/// Puts the quantized signatures of `model` back into one model: `parts` holds, for every
/// signature, `(key, the quantized model of [`signature_model`] of that key, its report)`, in any
/// order (how [`quantize_signatures`] ends, and `quantize --auto` with signatures, whose parts
/// come from the search). Each part's subgraph goes to its signature's place, the buffers are
/// concatenated and then stored once per content (constants two parts changed alike, or left
/// alone, are shared again), and the names made unique as TF's exporter does. The report is that
/// of the signature running subgraph 0, with the warnings of every signature, each prefixed by
/// its signature.
///
/// # Errors
/// What [`signature_model`] refuses; [`Error::Quantization`] when a signature has no part or a
/// part is not one subgraph; [`Error::UnknownSignature`] when a part names a signature the model
/// lacks.
pub fn assemble_signatures(
    model: &Model,
    mut parts: Vec<(String, Model, Report)>,
) -> Result<(Model, Report)> {
    let subgraphs = signature_subgraphs(model)?;
    let keys = keys(model);
    if let Some((k, ..)) = parts.iter().find(|(k, ..)| !keys.contains(k)) {
        return Err(Error::UnknownSignature {
            key: k.clone(),
            known: keys,
        });
    }
    let mut out = Model {
        subgraphs: vec![Default::default(); model.subgraphs.len()],
        buffers: Vec::new(),
        signatures: Vec::with_capacity(keys.len()),
        ..model.clone()
    };
    let mut report = None;
    let mut warnings = Vec::new();
    for (key, &s) in keys.iter().zip(&subgraphs) {
        let at = parts
            .iter()
            .position(|(k, ..)| k == key)
            .ok_or_else(|| refuse(model, format!("signature '{key}' was not quantized")))?;
        let (_, mut q, rep) = parts.swap_remove(at);
        if q.subgraphs.len() != 1 {
            return Err(refuse(
                model,
                format!(
                    "the quantized signature '{key}' has {} subgraphs, not one",
                    q.subgraphs.len()
                ),
            ));
        }
        // The first part keeps its buffer indices (and its metadata's); the others follow.
        let offset = u32::try_from(out.buffers.len())
            .map_err(|_| refuse(model, "more than 2^32 buffers".to_string()))?;
        if out.buffers.is_empty() {
            out.metadata = std::mem::take(&mut q.metadata);
            out.metadata_buffer = q.metadata_buffer.take();
        }
        let mut sg = q.subgraphs.swap_remove(0);
        for t in &mut sg.tensors {
            if t.buffer != 0 {
                t.buffer += offset;
            }
        }
        out.subgraphs[s] = sg;
        out.buffers.extend(q.buffers);
        for mut sig in q.signatures {
            sig.subgraph = u32::try_from(s).unwrap_or(u32::MAX);
            out.signatures.push(sig);
        }
        warnings.extend(
            rep.warnings
                .iter()
                .map(|w| format!("signature '{key}': {w}")),
        );
        if s == 0 {
            report = Some(rep);
        }
    }
    module_names(&mut out, model);
    compact_buffers(&mut out);
    let mut report = report.unwrap_or_default();
    report.warnings = warnings;
    Ok((out, report))
}

/// Makes the names of the quantized `out` unique across its subgraphs as TF's exporter does (see
/// the module documentation); `float` is the model it was quantized from (names found there are
/// kept).
fn module_names(out: &mut Model, float: &Model) {
    let mut taken: HashSet<String> = HashSet::new();
    let mut quantizes = 0usize;
    for (s, sg) in out.subgraphs.iter_mut().enumerate() {
        let original: HashSet<&str> = float.subgraphs[s]
            .tensors
            .iter()
            .map(|t| t.name.as_str())
            .collect();
        let mut names = Names::from_names(taken.iter().cloned());
        let mut here = 0usize;
        for t in &mut sg.tensors {
            if original.contains(t.name.as_str()) {
                continue;
            }
            if is_tf_quantize_name(&t.name) {
                let k: usize = t.name["tfl.quantize".len()..].parse().unwrap_or(0);
                here += 1;
                let n = k + quantizes;
                if n > 0 {
                    t.name = format!("tfl.quantize{n}");
                }
            } else if taken.contains(&t.name) {
                t.name = names.fresh(&t.name);
            }
        }
        quantizes += here;
        taken.extend(sg.tensors.iter().map(|t| t.name.clone()));
    }
}
