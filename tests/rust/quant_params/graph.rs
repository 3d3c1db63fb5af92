//! Reading TF's models for the comparison: the compute operators of two models paired, producers
//! and consumers of tensors, constants behind DEQUANTIZE, tensor data and quantization parameters,
//! and a described first difference.

use std::collections::HashMap;

use zeropoint::graph::{Model, Subgraph, Tensor};

/// Operators other than QUANTIZE/DEQUANTIZE, in execution order: the ones both models share.
pub(crate) fn compute_ops(sg: &Subgraph) -> Vec<usize> {
    (0..sg.operators.len())
        .filter(|&i| {
            let n = sg.operators[i].code.name();
            n != "QUANTIZE" && n != "DEQUANTIZE"
        })
        .collect()
}

/// Pairs the operators of two models that must have the same structure: `(op in a, op in b, op
/// in a whose outputs are b's)`. A standalone RELU / RELU6 / RELU_N1_TO_1 of `a` that `b` lacks
/// was fused into the operator before it (TF's int8 quantizer does that): that operator's
/// results are then the activation's. A PAD of `a` that `b` lacks was folded into the
/// convolution after it (as TF's int8 quantizer does): it pairs with nothing.
pub(crate) fn pair_ops(a: &Subgraph, b: &Subgraph, what: &str) -> Vec<(usize, usize, usize)> {
    let (oa, ob) = (compute_ops(a), compute_ops(b));
    let names = |sg: &Subgraph, ops: &[usize]| -> Vec<String> {
        ops.iter().map(|&i| sg.operators[i].code.name()).collect()
    };
    let (na, nb) = (names(a, &oa), names(b, &ob));
    let mut pairs: Vec<(usize, usize, usize)> = Vec::new();
    let mut j = 0;
    for (k, &ia) in oa.iter().enumerate() {
        if j < nb.len() && na[k] == nb[j] {
            pairs.push((ia, ob[j], ia));
            j += 1;
            continue;
        }
        // A PAD TF folded into the convolution reading it (`quant::passes::fuse_pad`): no pair.
        if na[k] == "PAD" {
            continue;
        }
        let fused = matches!(na[k].as_str(), "RELU" | "RELU6" | "RELU_N1_TO_1")
            && pairs.last().is_some_and(|p| {
                a.operators[ia].input(0).is_some()
                    && a.operators[p.2].output(0) == a.operators[ia].input(0)
            });
        assert!(
            fused,
            "{what}: the operators do not line up\n  left: {na:?}\n right: {nb:?}"
        );
        if let Some(p) = pairs.last_mut() {
            p.2 = ia;
        }
    }
    assert_eq!(
        j,
        nb.len(),
        "{what}: the operators do not line up\n  left: {na:?}\n right: {nb:?}"
    );
    pairs
}

/// Tensor index → index of the operator producing it.
pub(crate) fn producers(sg: &Subgraph) -> HashMap<usize, usize> {
    let mut m = HashMap::new();
    for (i, op) in sg.operators.iter().enumerate() {
        for o in (0..op.outputs.len()).filter_map(|k| op.output(k)) {
            m.insert(o, i);
        }
    }
    m
}

/// Tensor index → operators reading it.
pub(crate) fn consumers(sg: &Subgraph) -> HashMap<usize, Vec<usize>> {
    let mut m: HashMap<usize, Vec<usize>> = HashMap::new();
    for (i, op) in sg.operators.iter().enumerate() {
        for t in (0..op.inputs.len()).filter_map(|k| op.input(k)) {
            m.entry(t).or_default().push(i);
        }
    }
    m
}

/// Follows a DEQUANTIZE back to the constant it dequantizes (dynamic range keeps int8 weights
/// behind DEQUANTIZE for ops without hybrid kernels).
pub(crate) fn through_dequantize(sg: &Subgraph, prod: &HashMap<usize, usize>, t: usize) -> usize {
    match prod.get(&t).map(|&o| &sg.operators[o]) {
        Some(op) if op.code.name() == "DEQUANTIZE" => op.input(0).unwrap_or(t),
        _ => t,
    }
}

pub(crate) fn data(m: &Model, t: usize) -> &[u8] {
    m.tensor_data(0, t).unwrap_or(&[])
}

pub(crate) fn f32s(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

pub(crate) fn i32s(b: &[u8]) -> Vec<i32> {
    b.chunks_exact(4)
        .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

pub(crate) fn i64s(b: &[u8]) -> Vec<i64> {
    b.chunks_exact(8)
        .map(|c| i64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]))
        .collect()
}

pub(crate) fn dims(t: &Tensor) -> Vec<usize> {
    t.dims()
        .iter()
        .map(|&d| usize::try_from(d).unwrap_or(0))
        .collect()
}

pub(crate) fn scales(t: &Tensor) -> Vec<f32> {
    t.quantization
        .as_ref()
        .map(|q| q.scales().to_vec())
        .unwrap_or_default()
}

pub(crate) fn zero_points(t: &Tensor) -> Vec<i64> {
    t.quantization
        .as_ref()
        .map(|q| q.zero_points().to_vec())
        .unwrap_or_default()
}

pub(crate) fn bits(v: &[f32]) -> Vec<u32> {
    v.iter().map(|x| x.to_bits()).collect()
}

/// First differing element of two equal-length sequences, described.
pub(crate) fn first_diff<T: PartialEq + std::fmt::Debug>(
    ours: &[T],
    tf: &[T],
    float: &[f32],
) -> String {
    let n = ours.iter().zip(tf).filter(|(a, b)| a != b).count();
    match ours.iter().zip(tf).position(|(a, b)| a != b) {
        Some(i) => format!(
            "{n} value(s) differ, first at [{i}]: float {:e}, ours {:?}, TF {:?}",
            float.get(i).copied().unwrap_or(f32::NAN),
            ours[i],
            tf[i]
        ),
        None if ours.len() != tf.len() => format!("{} values vs TF's {}", ours.len(), tf.len()),
        None => String::new(),
    }
}
