//! The quantizer passes: from a float [`Model`] and per-tensor ranges to a quantized model with
//! the structure and parameters TF 2.21's converter produces. This file holds the options
//! ([`Mode`], [`IoType`], [`QuantizeOptions`]) and [`quantize`], which prepares the model and
//! runs the pass of the chosen mode; the recorded ranges are [`Ranges`] (`ranges.rs`).
//!
//! Full integer (`int8`, `int16x8`) is `full_integer/`; `full_integer/mod.rs`'s `run` lists its
//! stages in this order, one file each:
//!
//! 1. **Which ops** (`full_integer/mod.rs`). Every operator with an entry in
//!    [`properties`](crate::ops::registry::properties) (and, for 16x8, an int16 kernel) is
//!    quantized unless named in [`QuantizeOptions::float_ops`]; the others stay float with a
//!    warning naming them, and QUANTIZE/DEQUANTIZE are inserted where float and integer tensors
//!    meet.
//! 2. **Which recorded ranges count** (`full_integer/states.rs`, TF's `RemoveRedundantStatsOps`):
//!    outputs of fixed-output ops drop theirs; a same-scale op with one float operand passes its
//!    operand's range forward (transitively); the remaining ranges on results of same-scale ops
//!    pass backward to their operands (CONCATENATION, MAXIMUM of two tensors, …). A kept range
//!    becomes immutable parameters
//!    ([`activation_params_int8`](super::params::activation_params_int8) /
//!    [`activation_params_int16`](super::params::activation_params_int16)).
//! 3. **Propagation** (`full_integer/propagate.rs`, TF's `QuantizationDriver`): a work list over
//!    the quantized ops, last op first, spreads parameters across same-scale ops (immutable
//!    states win, then a single operand, then a single result, then the first one known) and
//!    sets fixed outputs (SOFTMAX, LOGISTIC 1/256 −128; TANH 1/128 0). Where a tensor already
//!    holds different parameters, a requantize (QUANTIZE int8 → int8) is inserted, named like
//!    TF's (`<name>1`).
//! 4. **Weights** (`full_integer/constants.rs`) per channel (CONV_2D axis 0, DEPTHWISE_CONV_2D
//!    axis 3, FULLY_CONNECTED and TRANSPOSE_CONV axis 0) or per tensor, **bias** int32 (int64 for
//!    16x8) with scale `s_in · s_w[c]`, and other float constants (asymmetric over their value
//!    range, or the shared parameters of a same-scale op).
//! 5. **I/O types** (`full_integer/materialize.rs`, which also writes the dtypes, requantizes and
//!    operator versions): int8 (the quantized tensors are the model's inputs and outputs), uint8
//!    (zero point + 128, with a QUANTIZE at each end), or float (QUANTIZE after each input, named
//!    `tfl.quantize`, `tfl.quantize1`, …; DEQUANTIZE before each output, the integer tensor
//!    renamed `<name>1`) — as TF's `int8_floatio` models.
//! 6. **Report** (`full_integer/report.rs`): 16x8's recorded min/max, the requantization
//!    multipliers per operator, and every tensor's parameters and their source.
//!
//! 16x8 follows TF's older quantizer where it differs (all measured on the goldens): every
//! recorded range counts except on fixed outputs and on results of single-input same-scale ops
//! (which take their input's); a multi-input same-scale op keeps its result's range and its inputs
//! are requantized (`<name>_requantized`); float inputs are quantized into `<name>_int16`; output
//! DEQUANTIZEs come last; recorded min/max stay in the int16 tensors; CONV_2D, FULLY_CONNECTED and
//! TRANSPOSE_CONV declare `quantized_bias_type = INT64`, ADD/SUB `pot_scale_int16 = false`.
//!
//! As TF's writer, every operator of one builtin code gets the highest version among them
//! (`edit.rs`, with the other graph-editing helpers the passes share).
//!
//! `int8` with some operators int16 runs the full-integer pass twice (`mixed_int16.rs`). Dynamic
//! range (`dynamic_range.rs`: int8 weights with at least [`DYNAMIC_MIN_ELEMENTS`] elements for the
//! ops with hybrid kernels, FULLY_CONNECTED with `asymmetric_quantize_inputs`) and float16
//! (`float16.rs`: every float constant stored as float16 behind a DEQUANTIZE) are separate,
//! simpler passes ([`quantize`] dispatches).
//!
//! A model with several signatures (one entry subgraph each) is quantized signature by signature,
//! each with the ranges of its own samples (`signatures.rs`).
//!
//! Nothing here touches files: the same function serves the CLI and the wasm face.

mod dynamic_range;
mod edit;
mod float16;
mod full_integer;
mod fuse_activations;
mod fuse_pad;
mod mixed_int16;
mod ranges;
mod signatures;
#[cfg(test)]
mod tests;

pub use dynamic_range::DYNAMIC_MIN_ELEMENTS;
pub use float16::f32_to_f16_bits;
pub use ranges::Ranges;
pub use signatures::{
    assemble_signatures, quantize_signature_parts, quantize_signatures, signature_model,
    signature_ranges,
};

use std::collections::{HashMap, HashSet};

use super::report::Report;
use crate::error::{Error, Result};
use crate::graph::{BuiltinOperator as Op, Model};
use dynamic_range::dynamic_range;
pub(crate) use edit::set_constant_data;
use edit::{compact_buffers, fold_densify, qerr};
use float16::float16;
use full_integer::{FullInteger, SubgraphRoles, quantize_bodies, rebase_ops, resolve_ops};
use fuse_activations::{Fusion, fuse_activations};
use fuse_pad::fuse_pad;
use mixed_int16::mixed_int16;

/// Which quantization to apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// Full integer: int8 activations (asymmetric), int8 weights, int32 bias (TF's MLIR quantizer).
    #[default]
    Int8,
    /// Int16 activations (symmetric), int8 weights, int64 bias (TF's older quantizer).
    Int16x8,
    /// Weight-only int8 for ops with hybrid kernels; activations stay float.
    Dynamic,
    /// Float constants stored as float16, dequantized at load time.
    Float16,
    /// Weight-only INT4 (two to a byte) for FULLY_CONNECTED and CONV_2D, whose hybrid kernels
    /// LiteRT runs with INT4 weights, as AI Edge Quantizer's `dynamic_wi4` recipe writes them
    /// (`params::weights_int4`, every size); activations stay float.
    DynamicInt4,
}

impl Mode {
    /// Parses `int8`, `int16x8` (or `16x8`), `dynamic`, `float16` (or `fp16`), `dynamic-int4`.
    pub fn parse(text: &str) -> Result<Mode> {
        Ok(match text.trim() {
            "int8" => Mode::Int8,
            "int16x8" | "16x8" => Mode::Int16x8,
            "dynamic" => Mode::Dynamic,
            "float16" | "fp16" => Mode::Float16,
            "dynamic-int4" => Mode::DynamicInt4,
            other => {
                return Err(Error::Quantization {
                    what: "options".into(),
                    reason: format!(
                        "unknown mode '{other}': expected int8, int16x8, dynamic, float16 or \
                         dynamic-int4"
                    ),
                });
            }
        })
    }

    /// The mode's name as [`Mode::parse`] reads it.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Int8 => "int8",
            Mode::Int16x8 => "int16x8",
            Mode::Dynamic => "dynamic",
            Mode::Float16 => "float16",
            Mode::DynamicInt4 => "dynamic-int4",
        }
    }
}

/// Element type of the quantized model's inputs and outputs (full-integer modes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum IoType {
    /// The mode's own integer type (int8, or int16 for 16x8).
    #[default]
    Native,
    /// uint8 (int8 parameters with zero point + 128), converted by QUANTIZE at both ends.
    Uint8,
    /// float32, with QUANTIZE after each input and DEQUANTIZE before each output.
    Float,
}

impl IoType {
    /// Parses `int8`, `int16` (both mean the mode's integer type), `uint8` or `float`.
    pub fn parse(text: &str) -> Result<IoType> {
        Ok(match text.trim() {
            "int8" | "int16" | "native" => IoType::Native,
            "uint8" => IoType::Uint8,
            "float" | "float32" => IoType::Float,
            other => {
                return Err(Error::Quantization {
                    what: "options".into(),
                    reason: format!("unknown I/O type '{other}': expected int8, uint8 or float"),
                });
            }
        })
    }
}

/// How to quantize.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct QuantizeOptions {
    /// The quantization mode.
    pub mode: Mode,
    /// Type of the model's inputs and outputs (full-integer modes).
    pub io: IoType,
    /// Per-tensor instead of per-channel weights.
    pub per_tensor: bool,
    /// Operators to keep float: operator indices (`"3"`) or names of one of their output tensors.
    pub float_ops: Vec<String>,
    /// Operators to run with int16 activations (16x8) in an `int8` model: indices or output
    /// tensor names, as `float_ops`. QUANTIZE / DEQUANTIZE are inserted where they meet int8
    /// operators (see [`quantize`]).
    pub int16_ops: Vec<String>,
    /// Float32 values replacing constants of subgraph 0, by tensor index (little-endian bytes,
    /// as many as the constant has): `--auto`'s weight changes (equalization, weight clipping,
    /// bias correction). Applied after the folding of DEQUANTIZE / DENSIFY constants (full-integer
    /// modes), so a weight the file stores as float16 is replaced as its float32 values.
    pub constants: Vec<(usize, Vec<u8>)>,
}

/// The engine's checks, before anything is written in any mode: a model `run` refuses as
/// invalid (or whose schema or operator versions LiteRT refuses) is not quantized. Operators
/// without a kernel are no obstacle (the quantizer keeps them float), nor are the engine's size
/// limits (dynamic-range and float16 quantization never run the model).
fn check_graph(model: &Model) -> Result<Vec<(usize, usize, Vec<usize>)>> {
    use crate::engine::{Interpreter, Limits};
    use crate::error::IssueKind;
    crate::graph::rewrites::refuse(model)?;
    match Interpreter::check(model, &Limits::default()) {
        Err(Error::CannotRun { issues }) => {
            let invalid: Vec<_> = issues
                .into_iter()
                .filter(|i| i.kind == IssueKind::Invalid)
                .collect();
            if invalid.is_empty() {
                Ok(Vec::new())
            } else {
                Err(Error::CannotRun { issues: invalid })
            }
        }
        Err(Error::TooLarge { .. }) => Ok(Vec::new()),
        Ok(computed) => Ok(computed),
        Err(e) => Err(e),
    }
}

/// `model` as LiteRT runs it, where it runs something other than what the file says (each a
/// `graph::lint` warning), or `None` when nothing differs: a constant an operator overwrites
/// loses its data (nothing reads it), a DEQUANTIZE output declared with another type than
/// FLOAT32 is declared FLOAT32 (LiteRT's DEQUANTIZE writes FLOAT32 whatever the declaration),
/// and an operator output declared with another shape than the one it is `computed` at
/// ([`crate::engine::Interpreter::check`]: subgraph 0 and every WHILE / IF body the engine
/// prepares) is declared that shape, unless its signature marks those dimensions dynamic (−1):
/// LiteRT's reference kernels resize it at prepare, but its XNNPACK delegate (the default
/// resolver) takes the declared shape and refuses the model. A tensor of a subgraph prepared
/// several times at different shapes (two loops running one body on other shapes) keeps its
/// declaration.
fn as_litert_reads(model: &Model, computed: &[(usize, usize, Vec<usize>)]) -> Option<Model> {
    let mut m = model.clone();
    let mut changed = false;
    // One shape per (subgraph, tensor), `None` where its instances disagree.
    let mut shapes: std::collections::BTreeMap<(usize, usize), Option<&Vec<usize>>> =
        std::collections::BTreeMap::new();
    for (g, t, shape) in computed {
        shapes
            .entry((*g, *t))
            .and_modify(|s| {
                if *s != Some(shape) {
                    *s = None;
                }
            })
            .or_insert(Some(shape));
    }
    for ((g, t), shape) in shapes {
        let Some(shape) = shape else { continue };
        let (Some(tensor), Ok(dims)) = (
            m.subgraphs.get_mut(g).and_then(|sg| sg.tensors.get_mut(t)),
            shape
                .iter()
                .map(|&d| i32::try_from(d))
                .collect::<Result<Vec<i32>, _>>(),
        ) else {
            continue;
        };
        if tensor.dims() == dims.as_slice() {
            continue;
        }
        // Dynamic dimensions (−1 in a signature the computed shape fits) keep the shape TF
        // declares for them; a signature that does not fit (another rank, or a fixed
        // dimension that differs) becomes the shape.
        let fits = |sig: &[i32]| {
            sig.len() == dims.len() && sig.iter().zip(&dims).all(|(&s, &d)| s == -1 || s == d)
        };
        match tensor.shape_signature.as_deref() {
            Some(sig) if fits(sig) && sig.contains(&-1) => continue,
            Some(sig) if !fits(sig) => tensor.shape_signature = Some(dims.clone()),
            _ => {}
        }
        tensor.shape = Some(dims);
        changed = true;
    }
    for (si, sg) in m.subgraphs.iter_mut().enumerate() {
        for (t, _) in crate::graph::lint::overwritten_constants(model, si) {
            sg.tensors[t].buffer = 0;
            changed = true;
        }
        let outs: Vec<usize> = sg
            .operators
            .iter()
            .filter(|op| op.code.op() == Op::DEQUANTIZE)
            .filter_map(|op| op.output(0))
            .collect();
        for t in outs {
            if let Some(t) = sg.tensors.get_mut(t)
                && t.dtype != crate::graph::TensorType::FLOAT32
            {
                t.dtype = crate::graph::TensorType::FLOAT32;
                changed = true;
            }
        }
    }
    changed.then_some(m)
}

/// `model` as the full-integer passes read it: DENSIFY and DEQUANTIZE of constants folded into
/// float32 constants and hybrid weights dequantized (tensor indices unchanged; operators may be
/// fewer), or `None` when nothing folds. `--auto` reads and changes weights on it and hands the
/// changes to [`quantize`] as [`QuantizeOptions::constants`].
///
/// # Errors
/// What the folding refuses (constants it cannot dequantize).
pub fn plain_float(model: &Model) -> Result<Option<Model>> {
    let (dense, _) = fold_densify(model)?;
    let (plain, _) = super::normalize::dequantize_constants(dense.as_ref().unwrap_or(model))?;
    Ok(plain.or(dense))
}

/// Quantizes `model` with the recorded `ranges` as `opts` asks (full integer: subgraph 0, then
/// the WHILE / IF bodies). Returns the new model
/// and a [`Report`] of every decision.
///
/// Before the passes, for the full-integer modes: DENSIFY of constants and DEQUANTIZE of
/// constants (float16 or integer weights) are folded into float32 constants, and hybrid int8
/// weights are dequantized ([`super::normalize`]). After them, redundant DEQUANTIZE → QUANTIZE
/// pairs are removed ([`super::cleanup`]), so a model that was already partly quantized keeps
/// its integer operators and gains no float detour between them.
///
/// With [`QuantizeOptions::int16_ops`] (mode `int8` only) the model is quantized twice: first
/// int8 with those operators kept float, then those operators alone as 16x8 (TF's older
/// quantizer's rules, with the same recorded ranges). Where an int16 result feeds int8
/// operators, one requantizing QUANTIZE (int16 → int8) is left; where an int8 tensor feeds an
/// int16 operator, DEQUANTIZE → QUANTIZE (LiteRT's QUANTIZE does not widen int8 to int16).
/// Model inputs read only by int16 operators, and outputs written by them, are int16 with
/// `--io int8`, float otherwise.
///
/// # Errors
/// [`Error::Quantization`] for a tensor that needs a range and has none, NaN/infinite ranges or
/// weights, subgraphs the full-integer modes cannot place (see `full_integer/subgraphs.rs`; WHILE
/// and IF bodies and CALL_ONCE init subgraphs they can), or options that do not fit the mode.
pub fn quantize(model: &Model, ranges: &Ranges, opts: &QuantizeOptions) -> Result<(Model, Report)> {
    if model.subgraphs.is_empty() {
        return Err(qerr("model", "it has no subgraph"));
    }
    let full_integer = matches!(opts.mode, Mode::Int8 | Mode::Int16x8);
    if full_integer && model.signatures.len() > 1 {
        return Err(qerr(
            "model",
            format!(
                "it has {} signatures, each calibrated on its own samples: quantize it with \
                 quantize_signatures (the CLI's --signature-data)",
                model.signatures.len()
            ),
        ));
    }
    // WHILE / IF bodies are quantized after subgraph 0, each with float I/O
    // (`full_integer/subgraphs.rs`); CALL_ONCE init subgraphs stay float.
    let roles = if full_integer && model.subgraphs.len() > 1 {
        SubgraphRoles::of(model).map_err(|why| {
            qerr(
                "model",
                format!(
                    "it has {} subgraphs, which mode {} cannot quantize: {why}",
                    model.subgraphs.len(),
                    opts.mode.name()
                ),
            )
        })?
    } else {
        SubgraphRoles::default()
    };
    if opts.mode == Mode::Int16x8 && !roles.init.is_empty() {
        return Err(Error::Quantization {
            what: "model".into(),
            reason: "it keeps state in resource variables (CALL_ONCE init subgraphs): TF 2.21's \
                     16x8 quantizer makes the variables themselves int16 (one scale per \
                     variable, its initial value in the init subgraph included), which is not \
                     reproduced yet; --mode int8 (variables kept float, as TF's int8 quantizer \
                     keeps them), dynamic and float16 handle these models"
                .into(),
        });
    }
    if !roles.bodies.is_empty() && !opts.int16_ops.iter().all(|s| s.trim().is_empty()) {
        return Err(qerr(
            "--int16-ops",
            "a model with WHILE / IF subgraphs is quantized in one mode throughout: use \
             --mode int8 or --mode int16x8 without --int16-ops",
        ));
    }
    // A scale the lint calls absurd (denormal, ≤ 1e-30, ≥ 1e12, not finite): its values mean
    // nothing, and LiteRT's default (XNNPACK) path refuses the file; rewriting it would pass that
    // on as if it were valid.
    if let Some((s, name, bad)) = first_absurd_scale(model) {
        return Err(qerr(
            format!("subgraph {s}, tensor '{name}'"),
            format!(
                "its quantization scale {} is absurd (its values mean nothing, and \
                 LiteRT's default XNNPACK path refuses the file): fix the file's \
                 quantization before quantizing it",
                crate::graph::lint::sci(bad)
            ),
        ));
    }
    let computed = check_graph(model)?;
    let as_read = as_litert_reads(model, &computed);
    let model = as_read.as_ref().unwrap_or(model);
    // A partly quantized model: its QUANTIZE operators keep their names, renumbered at the end.
    let had_quantize = model
        .subgraphs
        .first()
        .is_some_and(|sg| sg.operators.iter().any(|op| op.code.op() == Op::QUANTIZE));
    if !opts.int16_ops.iter().all(|s| s.trim().is_empty()) && opts.mode != Mode::Int8 {
        return Err(qerr(
            "--int16-ops",
            format!(
                "int16 operators are chosen in an int8 model (--mode int8), not in mode {}",
                opts.mode.name()
            ),
        ));
    }
    let original = model;
    let (dense, mut notes) = fold_densify(model)?;
    let model = dense.as_ref().unwrap_or(model);
    let (plain, more) = if full_integer {
        super::normalize::dequantize_constants(model)?
    } else {
        (None, Vec::new())
    };
    notes.extend(more);
    // The constants behind folded DEQUANTIZEs: unread now, dropped from the result.
    let orphans: Vec<usize> = if plain.is_some() {
        model.subgraphs[0]
            .operators
            .iter()
            .filter(|op| op.code.op() == Op::DEQUANTIZE)
            .filter_map(|op| op.input(0))
            .filter(|&t| model.tensor_data(0, t).is_some())
            .collect()
    } else {
        Vec::new()
    };
    let mut orphans = orphans;
    let model = plain.as_ref().unwrap_or(model);
    let replaced = edit::replace_constants(model, &opts.constants)?;
    let model = replaced.as_ref().unwrap_or(model);
    // Operator indices the user gave count the operators of the file as loaded (as `inspect` and
    // the page number them), before the folding above removed some.
    let folded_opts;
    let opts = if dense.is_some() || plain.is_some() {
        let (before, after) = (&original.subgraphs[0], &model.subgraphs[0]);
        let mut o = opts.clone();
        o.float_ops = rebase_ops(before, after, &opts.float_ops, "--float-ops")?;
        o.int16_ops = rebase_ops(before, after, &opts.int16_ops, "--int16-ops")?;
        folded_opts = o;
        &folded_opts
    } else {
        opts
    };
    // TF's int8 quantizer folds PADs into convolutions, then fuses standalone activations (its
    // older 16x8 quantizer does neither). Each rewrite renumbers the operators the options name.
    let mut rewritten: Option<(Model, QuantizeOptions)> = None;
    let mut fused_names = HashMap::new();
    if opts.mode == Mode::Int8 {
        let passes: [GraphRewrite; 2] = [fuse_pad, fuse_activations];
        for pass in passes {
            let (m, o) = rewritten.as_ref().map_or((model, opts), |(m, o)| (m, o));
            let sg = &m.subgraphs[0];
            let mut keep = resolve_ops(sg, &o.float_ops, "--float-ops")?;
            keep.extend(resolve_ops(sg, &o.int16_ops, "--int16-ops")?);
            if let Some(f) = pass(m, &keep) {
                let o = renumbered(m, o, &f)?;
                orphans.extend(&f.orphans);
                notes.extend(f.notes);
                fused_names = fused_names
                    .into_iter()
                    .filter_map(|(i, n)| f.index.get(i).copied().flatten().map(|j| (j, n)))
                    .chain(f.names)
                    .collect();
                rewritten = Some((f.model, o));
            }
        }
    }
    let (model, opts) = rewritten.as_ref().map_or((model, opts), |(m, o)| (m, o));
    let (mut q, mut report) = match opts.mode {
        Mode::Int8 if !opts.int16_ops.iter().all(|s| s.trim().is_empty()) => {
            mixed_int16(model, ranges, opts, fused_names)
        }
        Mode::Int8 | Mode::Int16x8 => FullInteger::new(model, ranges, opts, None)?
            .with_fused_names(fused_names)
            .run()
            .and_then(|(q, mut report)| {
                let q = quantize_bodies(q, ranges, opts, &roles.bodies, &mut report)?;
                Ok((q, report))
            }),
        Mode::Dynamic | Mode::DynamicInt4 => dynamic_range(model, opts),
        Mode::Float16 => float16(model, opts),
    }?;
    if full_integer {
        let cleaned = super::cleanup::remove_redundant_pairs(&mut q, &mut report, &orphans);
        if !cleaned.is_empty() || !orphans.is_empty() {
            compact_buffers(&mut q);
        }
        notes.extend(cleaned);
        if had_quantize {
            super::cleanup::renumber_tf_quantize_names(&mut q, &mut report);
        }
    }
    report.warnings.splice(0..0, notes);
    // Never write an operator version LiteRT does not register (the input's versions were
    // checked by `check_graph`; the versions the passes set come from the op table, whose unit
    // test keeps them in range: this is the last guard).
    for (si, sg) in q.subgraphs.iter().enumerate() {
        for (oi, op) in sg.operators.iter().enumerate() {
            if let Some(why) = crate::ops::registry::version_refusal(&op.code) {
                return Err(qerr(
                    format!("subgraph {si}, operator {oi} ({})", op.code.name()),
                    format!("the result would have {why}"),
                ));
            }
        }
    }
    // Nor a scale the lint calls absurd, computed from absurd float values (a weight of 1e37:
    // mutants 3560 and 9353 of seed 12). TF 2.21 writes the same scales, and LiteRT's default
    // XNNPACK path refuses the file (a conv's requantization scale outside [2^-32, 256)).
    if let Some((s, name, bad)) = first_absurd_scale(&q) {
        return Err(qerr(
            format!("subgraph {s}, tensor '{name}'"),
            format!(
                "its values give the quantization scale {}, which is absurd (LiteRT's default \
                 XNNPACK path refuses such a file): check the float model's values there",
                crate::graph::lint::sci(bad)
            ),
        ));
    }
    Ok((q, report))
}

/// A graph rewrite of the int8 pass: the model and the operators to leave alone, to the
/// rewritten model (`None`: nothing to rewrite).
type GraphRewrite = fn(&Model, &HashSet<usize>) -> Option<Fusion>;

/// `opts` with the operators it names (`--float-ops`, `--int16-ops`, indices or tensor names of
/// `model`) given as their indices after the rewrite `f` (an operator `f` removed drops out).
fn renumbered(model: &Model, opts: &QuantizeOptions, f: &Fusion) -> Result<QuantizeOptions> {
    let renumber = |names: &[String], flag: &str| -> Result<Vec<String>> {
        let set = resolve_ops(&model.subgraphs[0], names, flag)?;
        Ok(set
            .into_iter()
            .filter_map(|i| f.index.get(i).copied().flatten())
            .map(|i| i.to_string())
            .collect())
    };
    let mut o = opts.clone();
    o.float_ops = renumber(&opts.float_ops, "--float-ops")?;
    o.int16_ops = renumber(&opts.int16_ops, "--int16-ops")?;
    Ok(o)
}

/// The first tensor (subgraph, name, scale) whose quantization has a scale
/// [`crate::graph::lint::is_absurd_scale`] calls absurd.
fn first_absurd_scale(model: &Model) -> Option<(usize, &str, f32)> {
    model.subgraphs.iter().enumerate().find_map(|(s, sg)| {
        sg.tensors.iter().find_map(|t| {
            let q = t.quantization.as_ref()?;
            let bad = q
                .scales()
                .iter()
                .copied()
                .find(|&v| crate::graph::lint::is_absurd_scale(v))?;
            Some((s, t.name.as_str(), bad))
        })
    })
}
