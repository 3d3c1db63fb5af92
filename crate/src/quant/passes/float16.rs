//! Float16 quantization (`--mode float16`): every float32 constant stored as float16 behind a
//! DEQUANTIZE, and the f32 → f16 rounding TF uses.

use std::collections::{HashMap, HashSet};

use super::edit::{Names, compact_buffers, f32s, idx, push_buffer, report_tensors, simple_op};
use super::{Mode, QuantizeOptions};
use crate::error::Result;
use crate::graph::{BuiltinOperator as Op, Model, TensorType};
use crate::quant::report::Report;

/// Float16 quantization: every float32 constant becomes float16, followed by a DEQUANTIZE to
/// float32 that its users read (TF's `target_spec.supported_types = [tf.float16]`), in every
/// subgraph (WHILE / IF bodies, CALL_ONCE's init subgraph).
pub(super) fn float16(model: &Model, _opts: &QuantizeOptions) -> Result<(Model, Report)> {
    let mut out = model.clone();
    let report = Report {
        mode: Mode::Float16.name().into(),
        io: "float".into(),
        ..Report::default()
    };
    for index in 0..out.subgraphs.len() {
        float16_subgraph(model, &mut out, index);
    }
    compact_buffers(&mut out);
    let report = report_tensors(report, &out);
    Ok((out, report))
}

/// [`float16`] in subgraph `index` of `out` (a copy of `model`): its float32 constants become
/// float16 behind DEQUANTIZEs at the start of the subgraph.
fn float16_subgraph(model: &Model, out: &mut Model, index: usize) {
    let sg = &mut out.subgraphs[index];
    let mut names = Names::new(sg);
    let mut deq_ops = Vec::new();
    let mut remap: HashMap<usize, usize> = HashMap::new();
    let mut new_data = Vec::new();
    let n = sg.tensors.len();
    let used: HashSet<usize> = sg
        .operators
        .iter()
        .flat_map(|op| op.inputs.iter().filter_map(|&t| usize::try_from(t).ok()))
        .collect();
    for t in 0..n {
        if !used.contains(&t) || sg.tensors[t].dtype != TensorType::FLOAT32 {
            continue;
        }
        let Some(data) = model.tensor_data(index, t) else {
            continue;
        };
        let halves: Vec<u8> = f32s(data)
            .into_iter()
            .flat_map(|v| f32_to_f16_bits(v).to_le_bytes())
            .collect();
        let name = sg.tensors[t].name.clone();
        let mut f = sg.tensors[t].clone();
        f.buffer = 0;
        f.name = names.fresh(&name);
        f.quantization = None;
        let x = &mut sg.tensors[t];
        x.dtype = TensorType::FLOAT16;
        new_data.push((t, halves));
        sg.tensors.push(f);
        let fi = sg.tensors.len() - 1;
        remap.insert(t, fi);
        deq_ops.push(simple_op(Op::DEQUANTIZE, 3, t, fi));
    }
    for op in &mut sg.operators {
        for x in &mut op.inputs {
            if let Some(&n) = usize::try_from(*x).ok().and_then(|t| remap.get(&t)) {
                *x = idx(n);
            }
        }
    }
    deq_ops.append(&mut sg.operators);
    sg.operators = deq_ops;
    for (t, data) in new_data {
        let b = push_buffer(out, data);
        out.subgraphs[index].tensors[t].buffer = b;
    }
}

/// IEEE binary16 bits of `v`, rounded to nearest even (as TF's `Eigen::half` conversion).
pub fn f32_to_f16_bits(v: f32) -> u16 {
    let x = v.to_bits();
    let sign = ((x >> 16) & 0x8000) as u16;
    let exp = ((x >> 23) & 0xff) as i32;
    let man = x & 0x7f_ffff;
    if exp == 0xff {
        // Inf or NaN (keep a quiet NaN).
        return sign | 0x7c00 | if man != 0 { 0x200 } else { 0 };
    }
    let e = exp - 127 + 15;
    if e >= 0x1f {
        return sign | 0x7c00;
    }
    if e <= 0 {
        if e < -10 {
            return sign;
        }
        // Subnormal half: shift the mantissa with its implicit bit.
        let m = man | 0x80_0000;
        let shift = (14 - e) as u32;
        let half = m >> shift;
        let rem = m & ((1 << shift) - 1);
        let mid = 1 << (shift - 1);
        let round = rem > mid || (rem == mid && (half & 1) == 1);
        return sign | (half + u32::from(round)) as u16;
    }
    let half = ((e as u32) << 10) | (man >> 13);
    let rem = man & 0x1fff;
    let round = rem > 0x1000 || (rem == 0x1000 && (half & 1) == 1);
    // A carry out of the mantissa correctly bumps the exponent (up to infinity).
    sign | (half + u32::from(round)) as u16
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn f16_conversion() {
        assert_eq!(f32_to_f16_bits(1.0), 0x3c00);
        assert_eq!(f32_to_f16_bits(-2.0), 0xc000);
        assert_eq!(f32_to_f16_bits(0.0), 0);
        assert_eq!(f32_to_f16_bits(65504.0), 0x7bff);
        assert_eq!(f32_to_f16_bits(1e6), 0x7c00);
        // Smallest subnormal half: 2^-24.
        assert_eq!(f32_to_f16_bits(2.0f32.powi(-24)), 1);
        // 1 + 2^-11 is a tie between 1 and 1 + 2^-10: to even (1.0).
        assert_eq!(f32_to_f16_bits(1.0 + 2.0f32.powi(-11)), 0x3c00);
        assert_eq!(f32_to_f16_bits(1.0 + 3.0 * 2.0f32.powi(-11)), 0x3c02);
    }
}
