//! `zeropoint inspect`: a model's operators, inputs/outputs and tensors, as text or JSON.
//!
//! Before anything else it says what the engine cannot run, all at once: every operator type
//! without a kernel in the op table (with its count, over all subgraphs), then every operator
//! the engine's prepare refuses (a type, option or shape it has no kernel for). JSON carries
//! the same under `cannot_run`.
//!
//! Every signature is listed with its inputs and outputs (name → tensor, shape, type), a broken
//! one with what is wrong; `--signature KEY` prepares that signature instead of subgraph 0
//! (the outputs shown, and what cannot run, are then its subgraph's).

use std::path::{Path, PathBuf};

use clap::Args;
use serde::Serialize;
use zeropoint::engine::{TensorDesc, shape_text, signatures};
use zeropoint::error::IssueKind;
use zeropoint::graph::ResolvedInput;
use zeropoint::graph::dtype::dtype_name;
use zeropoint::graph::summary::{ModelSummary, OpCount, QuantSummary, TensorSummary};
use zeropoint::kernels::KernelSet;
use zeropoint::limits::UserLimits;
use zeropoint::ops::registry::has_kernel_named;
use zeropoint::{Error, Result};

use crate::io::{ShapeArgs, SignatureArg, load, outln};

#[derive(Args)]
pub struct InspectArgs {
    /// The .tflite file.
    model: PathBuf,
    /// Print the full summary as JSON instead of text.
    #[arg(long)]
    json: bool,
    /// The input shapes to resolve (shown with the output shapes the engine derives from them).
    #[command(flatten)]
    shapes: ShapeArgs,
    #[command(flatten)]
    signature: SignatureArg,
}

/// What the engine cannot run, found before anything runs.
#[derive(Serialize)]
struct CannotRun {
    /// Operator types without a kernel in the op table, with their counts (all subgraphs).
    no_kernel: Vec<OpCount>,
    /// Operators of subgraph 0 the engine's prepare refuses, grouped by operator name (count
    /// and the first reason), for types that do have a kernel (e.g. a type or option it lacks).
    /// Readers of a refused operator's output are not prepared, so this can miss some.
    refused: Vec<Refused>,
}

/// One operator name the engine's prepare refuses.
#[derive(Serialize)]
struct Refused {
    op: String,
    count: usize,
    /// `unsupported` (no kernel for this type/option) or `invalid` (the operator contradicts
    /// its tensors), of the first refusal.
    kind: &'static str,
    reason: String,
}

impl CannotRun {
    fn of(summary: &ModelSummary, prepare_error: Option<&Error>) -> Self {
        let no_kernel: Vec<OpCount> = summary
            .operator_counts
            .iter()
            .filter(|c| !has_kernel_named(&c.op))
            .cloned()
            .collect();
        let mut refused: Vec<Refused> = Vec::new();
        if let Some(Error::CannotRun { issues }) = prepare_error {
            for issue in issues {
                if no_kernel.iter().any(|c| c.op == issue.op_name) {
                    continue;
                }
                match refused.iter_mut().find(|r| r.op == issue.op_name) {
                    Some(r) => r.count += 1,
                    None => refused.push(Refused {
                        op: issue.op_name.clone(),
                        count: 1,
                        kind: match issue.kind {
                            IssueKind::Unsupported => "unsupported",
                            IssueKind::Invalid => "invalid",
                        },
                        reason: issue.to_string(),
                    }),
                }
            }
        }
        CannotRun { no_kernel, refused }
    }

    fn print(&self) {
        if self.no_kernel.is_empty() && self.refused.is_empty() {
            outln!("\nthe engine can run every operator");
            return;
        }
        if !self.no_kernel.is_empty() {
            let total: usize = self.no_kernel.iter().map(|c| c.count).sum();
            let list: Vec<String> = self
                .no_kernel
                .iter()
                .map(|c| format!("{} × {}", c.count, c.op))
                .collect();
            outln!(
                "\ncannot run: {total} operator(s) of {} type(s) without a kernel: {}",
                self.no_kernel.len(),
                list.join(", ")
            );
        }
        for r in &self.refused {
            outln!(
                "cannot run: {} × {} refused by the engine ({}), first: {}",
                r.count,
                r.op,
                r.kind,
                r.reason
            );
        }
    }
}

/// Prints the summary of `args.model`.
pub fn inspect(args: InspectArgs, limits: &UserLimits) -> Result<()> {
    let InspectArgs {
        model,
        json,
        shapes,
        signature,
    } = args;
    let m = load(&model, limits)?;
    let summary = ModelSummary::of(&m);
    let resolved = shapes.overrides().resolve(&m)?;
    let sigs = signature_table(&m);
    // Prepared once, at the resolved input shapes (or as the chosen signature): the output
    // shapes the engine derives from them, or every operator it cannot run.
    let prepared = match signature.prepare(
        m,
        &shapes,
        &limits.engine,
        KernelSet::default(),
        zeropoint::kernels::Arithmetic::default(),
    ) {
        // An unknown or broken signature is the answer, not something to list.
        Err(e @ (Error::UnknownSignature { .. } | Error::Signature { .. })) => return Err(e),
        p => p,
    };
    let cannot = CannotRun::of(&summary, prepared.as_ref().err());
    let outputs = prepared
        .map(|it| it.outputs().to_vec())
        .map_err(|e| e.to_string());
    if json {
        let json_err = |e: serde_json::Error| Error::Write {
            reason: format!("JSON: {e}"),
        };
        let mut value = serde_json::to_value(&summary).map_err(json_err)?;
        if let serde_json::Value::Object(map) = &mut value {
            map.insert(
                "cannot_run".into(),
                serde_json::to_value(&cannot).map_err(json_err)?,
            );
            map.insert("resolved_inputs".into(), serde_json::json!(resolved));
            map.insert("signature_table".into(), serde_json::json!(sigs));
            if let Some(key) = &signature.signature {
                map.insert("signature".into(), serde_json::json!(key));
            }
            map.insert(
                "resolved_outputs".into(),
                match &outputs {
                    Ok(o) => serde_json::json!(
                        o.iter()
                            .map(|d| serde_json::json!({"name": d.name, "shape": d.shape}))
                            .collect::<Vec<_>>()
                    ),
                    Err(e) => serde_json::json!({ "error": e }),
                },
            );
        }
        let text = serde_json::to_string_pretty(&value).map_err(json_err)?;
        outln!("{text}");
    } else {
        print_text(&model, &summary, &cannot);
        print_signatures(&sigs);
        match &signature.signature {
            Some(key) => print_signature_outputs(key, &outputs),
            None => print_resolved(&resolved, &outputs),
        }
    }
    Ok(())
}

/// The input shapes the engine prepares with (stored, signature, chosen) and the output shapes
/// it derives.
fn print_resolved(
    inputs: &[ResolvedInput],
    outputs: &std::result::Result<Vec<TensorDesc>, String>,
) {
    outln!(
        "
shapes the engine prepares with (--shape / --batch; -1 in the signature = dynamic):"
    );
    for r in inputs {
        outln!(
            "  input  {} '{}': {}  (stored {:?}, signature {})",
            r.index,
            r.name,
            shape_text(
                &r.shape
                    .iter()
                    .map(|&d| d.max(0) as usize)
                    .collect::<Vec<_>>()
            ),
            r.stored,
            r.signature
                .as_ref()
                .map_or_else(|| "none".to_string(), |s| format!("{s:?}"))
        );
    }
    match outputs {
        Ok(outs) => {
            for (k, o) in outs.iter().enumerate() {
                outln!("  output {k} '{}': {}", o.name, shape_text(&o.shape));
            }
        }
        Err(e) => outln!("  outputs: the engine cannot prepare the model: {e}"),
    }
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

fn print_text(path: &Path, s: &ModelSummary, cannot: &CannotRun) {
    outln!("{}", path.display());
    outln!(
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
    cannot.print();
    outln!("\noperators:");
    let width = s
        .operator_counts
        .iter()
        .map(|c| c.op.len())
        .max()
        .unwrap_or(0);
    for c in &s.operator_counts {
        outln!(
            "  {:>4} × {:<width$}  {}",
            c.count,
            c.op,
            zeropoint::ops::registry::support_of(&c.op)
        );
    }
    for (i, sg) in s.subgraphs.iter().enumerate() {
        outln!(
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
                    outln!("  {label:<6} {}", tensor_line(t).trim_start());
                }
            }
        }
        outln!(
            "  tensors:\n  {:>5}  {:<10} {:<18} {:<24} name",
            "#",
            "dtype",
            "shape",
            "quantization"
        );
        for t in &sg.tensors {
            outln!("  {}", tensor_line(t));
        }
    }
    for m in &s.metadata {
        outln!("metadata '{}': {} bytes", m.name, m.bytes);
    }
}

/// Every signature as `inspect` shows it: key, subgraph, inputs and outputs (signature name,
/// tensor, shape, type), or what is wrong with it.
fn signature_table(m: &zeropoint::Model) -> Vec<serde_json::Value> {
    let side = |v: &[signatures::SignatureTensor]| -> Vec<serde_json::Value> {
        v.iter()
            .map(|t| {
                serde_json::json!({
                    "name": t.name,
                    "tensor": t.tensor.0,
                    "tensor_name": t.tensor_name,
                    "shape": t.shape,
                    "dtype": dtype_name(t.dtype),
                })
            })
            .collect()
    };
    signatures::keys(m)
        .into_iter()
        .zip(signatures::list(m))
        .map(|(key, sig)| match sig {
            Ok(s) => serde_json::json!({
                "key": key,
                "subgraph": s.subgraph,
                "inputs": side(&s.inputs),
                "outputs": side(&s.outputs),
            }),
            Err(e) => serde_json::json!({ "key": key, "error": e.to_string() }),
        })
        .collect()
}

fn print_signatures(sigs: &[serde_json::Value]) {
    let side = |v: &serde_json::Value| -> String {
        v.as_array()
            .map(|a| {
                a.iter()
                    .map(|t| {
                        format!(
                            "{} = tensor {} '{}' {} {}",
                            t["name"].as_str().unwrap_or_default(),
                            t["tensor"],
                            t["tensor_name"].as_str().unwrap_or_default(),
                            t["shape"],
                            t["dtype"].as_str().unwrap_or_default()
                        )
                    })
                    .collect::<Vec<_>>()
                    .join("; ")
            })
            .unwrap_or_default()
    };
    for s in sigs {
        let key = s["key"].as_str().unwrap_or_default();
        match s.get("error") {
            Some(e) => outln!(
                "\nsignature '{key}': cannot run: {}",
                e.as_str().unwrap_or_default()
            ),
            None => {
                outln!("\nsignature '{key}' (subgraph {}):", s["subgraph"]);
                outln!("  inputs:  {}", side(&s["inputs"]));
                outln!("  outputs: {}", side(&s["outputs"]));
            }
        }
    }
}

/// The outputs of signature `key` as the engine prepared it.
fn print_signature_outputs(key: &str, outputs: &std::result::Result<Vec<TensorDesc>, String>) {
    outln!("\nsignature '{key}' as the engine prepares it:");
    match outputs {
        Ok(outs) => {
            for (k, o) in outs.iter().enumerate() {
                outln!("  output {k} '{}': {}", o.name, shape_text(&o.shape));
            }
        }
        Err(e) => outln!("  outputs: the engine cannot prepare it: {e}"),
    }
}
