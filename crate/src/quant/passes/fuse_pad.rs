//! TF's PAD folding, a graph rewrite of the `int8` pass (TF-compatible mode), run before the
//! activation fusion (`fuse_activations.rs`): a zero PAD in front of a CONV_2D or
//! DEPTHWISE_CONV_2D with VALID padding, padding exactly what SAME would, is dropped and the
//! convolution pads SAME, as TF 2.21's MLIR quantizer does when it quantizes a float `.tflite`
//! (shipped models such as MediaPipe's BlazeFace keep such PADs; the converter folds them only
//! when it converts from TF).
//!
//! What TF does, measured with TF 2.21 on float models with the PAD split out of the convolution
//! (`tests/tools/goldens/pad_fold.py`, goldens `padfold_*`):
//! - folded: PAD (constant paddings, batch and channel padded by 0) whose height and width
//!   paddings are SAME's for the reader's kernel, stride and dilation (LiteRT's SAME: the odd
//!   one after, so stride 2 on an even size pads 0 before, 1 after), into CONV_2D and
//!   DEPTHWISE_CONV_2D, also when the PAD reads a graph input; the convolution reads the PAD's
//!   input, so its input scale is that tensor's (equal to the PAD output's: a range always
//!   includes 0);
//! - with several readers, each convolution that fits reads the PAD's input; the PAD stays for
//!   the others (a MAX_POOL_2D, say) and when its result is a graph output
//!   (`padfold_dw3_pad_output`);
//! - a by-hand run of the same generator, not kept as a golden: a dilated (2) 3×3
//!   DEPTHWISE_CONV_2D folds too (its SAME padding is 2/2);
//! - not folded: paddings other than SAME's (asymmetric, larger), channel padding (batch padding
//!   was not measured and is not folded here), PADV2 (constant 0.5; constant 0 in a by-hand
//!   run), AVERAGE_POOL_2D / MAX_POOL_2D readers;
//! - 16x8 (TF's older quantizer) folds nothing.

use std::collections::{HashMap, HashSet};

use super::fuse_activations::{Fusion, drop_operators};
use crate::graph::dtype::int_values;
use crate::graph::{BuiltinOperator as Op, BuiltinOptionsT, Model, Operator, TensorType};
use crate::ops::out_size_and_pad;
use crate::tflite::schema::Padding;

/// The integer values of a constant INT32 / INT64 tensor of subgraph 0.
fn const_ints(model: &Model, t: usize) -> Option<Vec<i64>> {
    int_values(
        model.subgraphs[0].tensors.get(t)?.dtype,
        model.tensor_data(0, t)?,
    )
}

/// LiteRT's SAME padding (before, after) of one axis of `input` elements.
fn same_pads(input: i32, filter: i32, stride: i32, dilation: i32) -> Option<(i64, i64)> {
    let u = |v: i32| usize::try_from(v).ok().filter(|&v| v > 0);
    let (i, f, s, d) = (u(input)?, u(filter)?, u(stride)?, u(dilation)?);
    let (out, before) = out_size_and_pad(Padding::SAME, i, f, s, d)?;
    let needed = (out - 1) * s + (f - 1) * d + 1;
    let total = needed.saturating_sub(i);
    Some((
        i64::try_from(before).ok()?,
        i64::try_from(total - before).ok()?,
    ))
}

/// Whether convolution `op` pads VALID and reads, as input 0, a tensor of `input_hw` (height,
/// width) padded by `pads` (`[[b0, b1], [h0, h1], [w0, w1], [c0, c1]]` flattened) exactly as SAME
/// would pad it; if so, switches it to SAME.
fn fold_into(model: &Model, op: &mut Operator, input_hw: (i32, i32), pads: &[i64]) -> bool {
    let Some(wshape) = op.input(1).and_then(|w| model.subgraphs[0].tensors.get(w)) else {
        return false;
    };
    let &[_, kh, kw, _] = wshape.dims() else {
        return false;
    };
    let (padding, sh, sw, dh, dw) = match &mut op.options {
        BuiltinOptionsT::Conv2DOptions(o) => (
            &mut o.padding,
            o.stride_h,
            o.stride_w,
            o.dilation_h_factor,
            o.dilation_w_factor,
        ),
        BuiltinOptionsT::DepthwiseConv2DOptions(o) => (
            &mut o.padding,
            o.stride_h,
            o.stride_w,
            o.dilation_h_factor,
            o.dilation_w_factor,
        ),
        _ => return false,
    };
    if *padding != Padding::VALID {
        return false;
    }
    let (Some(h), Some(w)) = (
        same_pads(input_hw.0, kh, sh, dh),
        same_pads(input_hw.1, kw, sw, dw),
    ) else {
        return false;
    };
    if pads[2..6] != [h.0, h.1, w.0, w.1] {
        return false;
    }
    *padding = Padding::SAME;
    true
}

/// Folds every PAD of subgraph 0 into the convolutions reading it where TF's int8 quantizer does
/// (see the module documentation), leaving alone the operators in `keep` (kept float or int16
/// on request). `None` when nothing folds.
pub(super) fn fuse_pad(model: &Model, keep: &HashSet<usize>) -> Option<Fusion> {
    let sg = model.subgraphs.first()?;
    let mut readers: HashMap<i32, Vec<usize>> = HashMap::new();
    for (i, op) in sg.operators.iter().enumerate() {
        for &t in &op.inputs {
            readers.entry(t).or_default().push(i);
        }
    }
    let outputs: HashSet<i32> = sg.outputs.iter().copied().collect();
    let is_float = |t: usize| {
        sg.tensors
            .get(t)
            .is_some_and(|x| x.dtype == TensorType::FLOAT32)
    };
    let mut out = model.clone();
    let mut removed = vec![false; sg.operators.len()];
    let mut orphans = Vec::new();
    let mut notes = Vec::new();
    for (p, op) in sg.operators.iter().enumerate() {
        if op.code.op() != Op::PAD || op.inputs.len() != 2 || op.outputs.len() != 1 {
            continue;
        }
        let (Some(x), Some(pt), Some(y)) = (op.input(0), op.input(1), op.output(0)) else {
            continue;
        };
        let &[_, h, w, _] = sg.tensors[x].dims() else {
            continue;
        };
        let Some(pads) = const_ints(model, pt) else {
            continue;
        };
        if keep.contains(&p)
            || !is_float(x)
            || !is_float(y)
            || pads.len() != 8
            || pads[..2] != [0, 0]
            || pads[6..] != [0, 0]
        {
            continue;
        }
        let rs = readers
            .get(&op.outputs[0])
            .map(Vec::as_slice)
            .unwrap_or(&[]);
        let mut folded = 0;
        for &c in rs {
            let conv = &sg.operators[c];
            if keep.contains(&c)
                || !matches!(conv.code.op(), Op::CONV_2D | Op::DEPTHWISE_CONV_2D)
                || conv.inputs.get(1..).unwrap_or(&[]).contains(&op.outputs[0])
            {
                continue;
            }
            let target = &mut out.subgraphs[0].operators[c];
            if fold_into(model, target, (h, w), &pads) {
                target.inputs[0] = op.inputs[0];
                folded += 1;
                notes.push(format!(
                    "PAD (operator {p}) folded into operator {c} ({}) as TF does: it pads SAME",
                    conv.code.name()
                ));
            }
        }
        if folded > 0 && folded == rs.len() && !outputs.contains(&op.outputs[0]) {
            removed[p] = true;
            orphans.extend([y, pt]);
        }
    }
    if notes.is_empty() {
        return None;
    }
    let index = drop_operators(&mut out.subgraphs[0].operators, &removed);
    Some(Fusion {
        model: out,
        names: HashMap::new(),
        index,
        orphans,
        notes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn golden(case: &str) -> Model {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join(format!("../tests/golden/{case}/model_float.tflite"));
        crate::tflite::read(&std::fs::read(path).expect("model")).expect("reads")
    }

    fn ops(m: &Model) -> Vec<Op> {
        m.subgraphs[0]
            .operators
            .iter()
            .map(|o| o.code.op())
            .collect()
    }

    /// LiteRT's SAME padding worked out by hand: `out = ceil(in / s)`, total
    /// `(out − 1)·s + (k − 1)·d + 1 − in`, the odd one after.
    #[test]
    fn same_pads_are_litert_s() {
        assert_eq!(same_pads(6, 3, 1, 1), Some((1, 1)));
        assert_eq!(same_pads(8, 5, 1, 1), Some((2, 2)));
        assert_eq!(same_pads(8, 3, 2, 1), Some((0, 1)));
        assert_eq!(same_pads(7, 3, 2, 1), Some((1, 1)));
        assert_eq!(same_pads(8, 3, 1, 2), Some((2, 2)));
        assert_eq!(same_pads(4, 1, 1, 1), Some((0, 0)));
        assert_eq!(same_pads(0, 3, 1, 1), None);
    }

    /// On TF's measured cases (the goldens): folded, and left alone when the PAD or the
    /// convolution is kept float (`--float-ops`); with a MAX_POOL_2D reader the PAD stays.
    #[test]
    fn folds_where_tf_does_and_respects_kept_operators() {
        let m = golden("padfold_dw3");
        assert_eq!(ops(&m), [Op::CONV_2D, Op::PAD, Op::DEPTHWISE_CONV_2D]);
        let f = fuse_pad(&m, &HashSet::new()).expect("folds");
        assert_eq!(ops(&f.model), [Op::CONV_2D, Op::DEPTHWISE_CONV_2D]);
        let (conv, dw) = (
            &f.model.subgraphs[0].operators[0],
            &f.model.subgraphs[0].operators[1],
        );
        assert_eq!(dw.inputs[0], conv.outputs[0]);
        assert!(matches!(&dw.options,
            BuiltinOptionsT::DepthwiseConv2DOptions(o) if o.padding == Padding::SAME));
        assert_eq!(f.index, [Some(0), None, Some(1)]);
        for kept in [1, 2] {
            assert!(
                fuse_pad(&m, &HashSet::from([kept])).is_none(),
                "{kept} kept"
            );
        }
        let m = golden("padfold_dw_and_maxpool");
        let f = fuse_pad(&m, &HashSet::new()).expect("folds into the depthwise");
        assert_eq!(ops(&f.model), ops(&m));
        assert!(f.orphans.is_empty());
        for case in [
            "padfold_not_larger",
            "padfold_not_asym",
            "padfold_not_avgpool",
        ] {
            assert!(fuse_pad(&golden(case), &HashSet::new()).is_none(), "{case}");
        }
    }
}
