//! TF's activation fusion, a graph rewrite of the `int8` pass (TF-compatible mode, after the PAD
//! folding of `fuse_pad.rs`):
//! a standalone RELU / RELU6 / RELU_N1_TO_1 becomes the fused activation of the operator that
//! produces its input, as TF 2.21's MLIR quantizer does when it quantizes a float `.tflite`
//! (real models such as MediaPipe's BlazeFace keep a RELU after each residual ADD; the
//! converter fuses them only when it converts from TF).
//!
//! What TF does, measured with TF 2.21 on split models (`tests/tools/goldens/activation_split.py`,
//! goldens `fuse_*`):
//! - fused into ADD, SUB, MUL, CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED with no fused
//!   activation of their own (TF also fuses into DIV and drops a RELU after SQUARED_DIFFERENCE,
//!   but quantizes both to int8 kernels this quantizer / engine lacks: not done here);
//! - not fused after CONCATENATION or TRANSPOSE_CONV (the activation stays an operator with its
//!   own scale), nor when the intermediate tensor has another reader or is a graph output;
//! - after MAX_POOL_2D / AVERAGE_POOL_2D TF fuses too and then refuses the model (the pool's
//!   input and output scales differ); here they are left unfused, so such models still quantize;
//! - the fused result is the activation's output tensor with the activation's recorded range
//!   (so all 256 levels cover `[0, max]`); a graph output keeps its name, any other result is
//!   named after the fused location: `<activation output>;<producer output>` (e.g.
//!   `activation_1;add_1`), also the integer tensor in front of a float output's DEQUANTIZE;
//! - 16x8 (TF's older quantizer) fuses nothing.

use std::collections::{HashMap, HashSet};

use crate::graph::{ActivationFunctionType as Act, BuiltinOperator as Op, BuiltinOptionsT};
use crate::graph::{Model, TensorType};

/// The model with the activations fused, and what changed.
pub(super) struct Fusion {
    /// Subgraph 0 without the fused activation operators; tensors keep their indices.
    pub model: Model,
    /// Fused operator (index in `model`) → TF's name of its result where it is not the graph
    /// output itself.
    pub names: HashMap<usize, String>,
    /// Operator index before → after (`None`: an activation that was fused away).
    pub index: Vec<Option<usize>>,
    /// The producers' former outputs, read by nothing now (dropped from the result).
    pub orphans: Vec<usize>,
    /// One note per fusion.
    pub notes: Vec<String>,
}

/// Drops the operators `removed` marks from `ops` (the others keep their order) and returns the
/// index map before → after (`None`: dropped), as [`Fusion::index`] records it.
pub(super) fn drop_operators<T>(ops: &mut Vec<T>, removed: &[bool]) -> Vec<Option<usize>> {
    let mut index = Vec::with_capacity(removed.len());
    let mut next = 0usize;
    for &gone in removed {
        index.push((!gone).then_some(next));
        next += usize::from(!gone);
    }
    let mut keep_it = removed.iter().map(|&g| !g);
    ops.retain(|_| keep_it.next().unwrap_or(true));
    index
}

/// The fused-activation field of a producer TF fuses into, when it has one.
fn fused_activation(options: &mut BuiltinOptionsT) -> Option<&mut Act> {
    match options {
        BuiltinOptionsT::AddOptions(o) => Some(&mut o.fused_activation_function),
        BuiltinOptionsT::SubOptions(o) => Some(&mut o.fused_activation_function),
        BuiltinOptionsT::MulOptions(o) => Some(&mut o.fused_activation_function),
        BuiltinOptionsT::Conv2DOptions(o) => Some(&mut o.fused_activation_function),
        BuiltinOptionsT::DepthwiseConv2DOptions(o) => Some(&mut o.fused_activation_function),
        BuiltinOptionsT::FullyConnectedOptions(o) => Some(&mut o.fused_activation_function),
        _ => None,
    }
}

/// Fuses every standalone activation of subgraph 0 that TF's int8 quantizer fuses (see the
/// module documentation), leaving alone the operators in `keep` (kept float or int16 on
/// request). `None` when nothing fuses.
pub(super) fn fuse_activations(model: &Model, keep: &HashSet<usize>) -> Option<Fusion> {
    let sg = model.subgraphs.first()?;
    let mut producer: HashMap<usize, usize> = HashMap::new();
    let mut reads: HashMap<usize, usize> = HashMap::new();
    for (i, op) in sg.operators.iter().enumerate() {
        for t in op.outputs.iter().filter_map(|&t| usize::try_from(t).ok()) {
            producer.insert(t, i);
        }
        for t in op.inputs.iter().filter_map(|&t| usize::try_from(t).ok()) {
            *reads.entry(t).or_default() += 1;
        }
    }
    let graph_io: HashSet<i32> = sg.inputs.iter().chain(&sg.outputs).copied().collect();
    let is_float = |t: usize| {
        sg.tensors
            .get(t)
            .is_some_and(|x| x.dtype == TensorType::FLOAT32)
    };
    let mut out = model.clone();
    let osg = &mut out.subgraphs[0];
    let mut removed = vec![false; sg.operators.len()];
    let mut fused_ops: Vec<(usize, String)> = Vec::new();
    let mut orphans = Vec::new();
    let mut notes = Vec::new();
    for (a, op) in sg.operators.iter().enumerate() {
        let act = match op.code.op() {
            Op::RELU => Act::RELU,
            Op::RELU6 => Act::RELU6,
            Op::RELU_N1_TO_1 => Act::RELU_N1_TO_1,
            _ => continue,
        };
        let (Some(t), Some(r)) = (op.input(0), op.output(0)) else {
            continue;
        };
        let Some(&p) = producer.get(&t) else { continue };
        if op.inputs.len() != 1
            || op.outputs.len() != 1
            || keep.contains(&a)
            || keep.contains(&p)
            || removed[p]
            || reads.get(&t) != Some(&1)
            || graph_io.contains(&op.inputs[0])
            || !is_float(t)
            || !is_float(r)
            || osg.operators[p].outputs.len() != 1
        {
            continue;
        }
        let pop = &mut osg.operators[p];
        match fused_activation(&mut pop.options) {
            Some(f) if *f == Act::NONE => *f = act,
            _ => continue,
        }
        pop.outputs[0] = op.outputs[0];
        removed[a] = true;
        orphans.push(t);
        let name = format!("{};{}", sg.tensors[r].name, sg.tensors[t].name);
        notes.push(format!(
            "{} after operator {p} ({}) fused into it as TF does: '{name}'",
            op.code.name(),
            pop.code.name()
        ));
        fused_ops.push((p, name));
    }
    if orphans.is_empty() {
        return None;
    }
    let index = drop_operators(&mut osg.operators, &removed);
    let names = fused_ops
        .into_iter()
        .filter_map(|(p, name)| index[p].map(|i| (i, name)))
        .collect();
    Some(Fusion {
        model: out,
        names,
        index,
        orphans,
        notes,
    })
}
