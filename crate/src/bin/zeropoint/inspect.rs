//! `zeropoint inspect`: a model's operators, inputs/outputs and tensors, as text or JSON.

use std::path::{Path, PathBuf};

use clap::Args;
use zeropoint::engine::{Interpreter, TensorDesc, shape_text};
use zeropoint::graph::ResolvedInput;
use zeropoint::graph::summary::{ModelSummary, QuantSummary, TensorSummary};
use zeropoint::limits::UserLimits;
use zeropoint::{Error, Result};

use crate::io::{ShapeArgs, load, outln};

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
}

/// Prints the summary of `args.model`.
pub fn inspect(args: InspectArgs, limits: &UserLimits) -> Result<()> {
    let InspectArgs {
        model,
        json,
        shapes,
    } = args;
    let m = load(&model, limits)?;
    let summary = ModelSummary::of(&m);
    let resolved = shapes.overrides().resolve(&m)?;
    // The output shapes the engine derives from the resolved inputs, or why it cannot prepare.
    let outputs = Interpreter::with_limits(&shapes.apply(m)?, &limits.engine)
        .map(|it| it.outputs().to_vec())
        .map_err(|e| e.to_string());
    if json {
        let mut value = serde_json::to_value(&summary).map_err(|e| Error::Write {
            reason: format!("JSON: {e}"),
        })?;
        if let Some(obj) = value.as_object_mut() {
            obj.insert("resolved_inputs".into(), serde_json::json!(resolved));
            obj.insert(
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
        let text = serde_json::to_string_pretty(&value).map_err(|e| Error::Write {
            reason: format!("JSON: {e}"),
        })?;
        outln!("{text}");
    } else {
        print_text(&model, &summary);
        print_resolved(&resolved, &outputs);
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

fn print_text(path: &Path, s: &ModelSummary) {
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
    for sig in &s.signatures {
        let names = |v: &[zeropoint::graph::summary::NamedTensor]| {
            v.iter()
                .map(|n| n.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        };
        outln!(
            "\nsignature '{}' (subgraph {}): ({}) -> ({})",
            sig.key,
            sig.subgraph,
            names(&sig.inputs),
            names(&sig.outputs)
        );
    }
    for m in &s.metadata {
        outln!("metadata '{}': {} bytes", m.name, m.bytes);
    }
}
