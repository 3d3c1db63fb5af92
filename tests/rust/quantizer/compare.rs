//! Our quantized model against TF's: tensors matched by name ([`keys`]), dtype, scales (f32
//! bits), zero points, axis and constant bytes compared ([`compare`], counted in a [`Tally`]),
//! why a difference with our calibration arises ([`classify`]), and the per-operator
//! signatures the `--int16-ops` test compares ([`op_signature`], [`compute_ops`]).

use std::collections::HashMap;
use std::fmt::Write as _;

use zeropoint::graph::{Model, Subgraph, TensorType};
use zeropoint::quant::Ranges;

/// Matching key of each tensor: its name, or for the integer tensor feeding an output DEQUANTIZE
/// (or output QUANTIZE), `"→ <output name>"`.
fn keys(sg: &Subgraph) -> HashMap<String, usize> {
    let mut m = HashMap::new();
    for (i, t) in sg.tensors.iter().enumerate() {
        m.entry(t.name.clone()).or_insert(i);
    }
    for op in &sg.operators {
        let n = op.code.name();
        if (n == "DEQUANTIZE" || n == "QUANTIZE")
            && let (Some(a), Some(b)) = (op.input(0), op.output(0))
            && sg.outputs.contains(&(b as i32))
        {
            let name = &sg.tensors[a].name;
            m.remove(name);
            m.insert(format!("→ {}", sg.tensors[b].name), a);
        }
    }
    // Float16 constants: by the (compute op, input slot) reading their DEQUANTIZE (TF's names for
    // them are MLIR's uniqued location names).
    let compute: Vec<usize> = (0..sg.operators.len())
        .filter(|&i| {
            !matches!(
                sg.operators[i].code.name().as_str(),
                "QUANTIZE" | "DEQUANTIZE"
            )
        })
        .collect();
    for op in &sg.operators {
        if op.code.name() != "DEQUANTIZE" {
            continue;
        }
        let (Some(a), Some(b)) = (op.input(0), op.output(0)) else {
            continue;
        };
        if sg.tensors[a].dtype != TensorType::FLOAT16 {
            continue;
        }
        for (n, &c) in compute.iter().enumerate() {
            for (k, &x) in sg.operators[c].inputs.iter().enumerate() {
                if x == b as i32 {
                    m.retain(|_, v| *v != a);
                    m.insert(format!("fp16 → op {n} input {k}"), a);
                }
            }
        }
    }
    m
}

#[derive(Default, Clone, Copy)]
pub(crate) struct Tally {
    pub(crate) tensors: (usize, usize),
    pub(crate) constants: (usize, usize),
    pub(crate) ops_match: (usize, usize),
}

impl Tally {
    pub(crate) fn add(&mut self, o: &Tally) {
        self.tensors.0 += o.tensors.0;
        self.tensors.1 += o.tensors.1;
        self.constants.0 += o.constants.0;
        self.constants.1 += o.constants.1;
        self.ops_match.0 += o.ops_match.0;
        self.ops_match.1 += o.ops_match.1;
    }
}

fn op_names(sg: &Subgraph) -> Vec<String> {
    sg.operators.iter().map(|o| o.code.name()).collect()
}

/// Compares our model with TF's: (tally, differences as (tensor name, what)).
pub(crate) fn compare(ours: &Model, tf: &Model) -> (Tally, Vec<(String, String)>) {
    let (osg, tsg) = (&ours.subgraphs[0], &tf.subgraphs[0]);
    let (okeys, tkeys) = (keys(osg), keys(tsg));
    let mut tally = Tally::default();
    let mut diffs = Vec::new();
    tally.ops_match.0 += 1;
    if op_names(osg) == op_names(tsg) {
        tally.ops_match.1 += 1;
    } else {
        diffs.push((
            "(operators)".to_string(),
            format!("ours {:?}, TF {:?}", op_names(osg), op_names(tsg)),
        ));
    }
    // Operator options (and versions) of the compute operators, position by position.
    for (n, (a, b)) in compute_ops(osg)
        .into_iter()
        .zip(compute_ops(tsg))
        .enumerate()
    {
        let (a, b) = (&osg.operators[a], &tsg.operators[b]);
        if a.options != b.options {
            diffs.push((
                format!("(operator {n} options)"),
                format!(" ours {:?}, TF {:?}", a.options, b.options),
            ));
        }
        if a.code.version != b.code.version {
            diffs.push((
                format!("(operator {n} version)"),
                format!(" ours {}, TF {}", a.code.version, b.code.version),
            ));
        }
    }
    let mut tk: Vec<(&String, &usize)> = tkeys.iter().collect();
    tk.sort_by_key(|(_, i)| **i);
    for (key, &ti) in tk {
        let t = &tsg.tensors[ti];
        let quantized = t.dtype != TensorType::FLOAT32
            && t.dtype != TensorType::INT32
            && t.dtype != TensorType::BOOL
            || t.quantization
                .as_ref()
                .is_some_and(|q| !q.scales().is_empty());
        let is_const = tf.tensor_data(0, ti).is_some();
        if !(quantized || (is_const && t.dtype == TensorType::FLOAT16)) {
            continue;
        }
        let counter = if is_const {
            &mut tally.constants
        } else {
            &mut tally.tensors
        };
        counter.0 += 1;
        let Some(&oi) = okeys.get(key) else {
            diffs.push((key.clone(), "missing in ours".into()));
            continue;
        };
        let o = &osg.tensors[oi];
        let mut p = String::new();
        if o.dtype != t.dtype {
            let _ = write!(p, " dtype ours {:?} TF {:?};", o.dtype, t.dtype);
        }
        let sc = |m: &zeropoint::graph::Tensor| -> (Vec<u32>, Vec<i64>, i32) {
            m.quantization.as_ref().map_or((vec![], vec![], 0), |q| {
                (
                    q.scales().iter().map(|s| s.to_bits()).collect(),
                    q.zero_points().to_vec(),
                    if q.scales().len() > 1 {
                        q.quantized_dimension
                    } else {
                        0
                    },
                )
            })
        };
        let (os, ts) = (sc(o), sc(t));
        if os.0 != ts.0 {
            let f =
                |v: &[u32]| -> Vec<f32> { v.iter().take(3).map(|&b| f32::from_bits(b)).collect() };
            let _ = write!(p, " scales ours {:?} TF {:?};", f(&os.0), f(&ts.0));
        }
        if os.1 != ts.1 {
            let _ = write!(
                p,
                " zero points ours {:?} TF {:?};",
                &os.1[..os.1.len().min(3)],
                &ts.1[..ts.1.len().min(3)]
            );
        }
        let mm = |m: &zeropoint::graph::Tensor| {
            m.quantization.as_ref().map(|q| {
                (
                    q.min.clone().unwrap_or_default(),
                    q.max.clone().unwrap_or_default(),
                )
            })
        };
        // Recorded ranges (16x8 keeps them) on activations; on weights TF stores the range after
        // its bias-fit widening, which only the scale reflects — compared through the scale.
        if !is_const && mm(o) != mm(t) {
            let _ = write!(p, " min/max ours {:?} TF {:?};", mm(o), mm(t));
        }
        if os.2 != ts.2 {
            let _ = write!(p, " axis ours {} TF {};", os.2, ts.2);
        }
        if is_const {
            let (od, td) = (
                ours.tensor_data(0, oi).unwrap_or(&[]),
                tf.tensor_data(0, ti).unwrap_or(&[]),
            );
            if od != td {
                let n = od.iter().zip(td).filter(|(a, b)| a != b).count();
                let _ = write!(
                    p,
                    " data: {n} byte(s) differ ({} vs {} bytes);",
                    od.len(),
                    td.len()
                );
            }
        }
        if p.is_empty() {
            counter.1 += 1;
        } else {
            diffs.push((key.clone(), p));
        }
    }
    (tally, diffs)
}

/// Why a tensor quantized from our calibration differs from TF's: its own recorded range differs
/// from TF's (by an ulp after an operator whose optimized LiteRT kernel is not mirrored —
/// `UNMIRRORED` in `calibration.rs`, empty at present — or unexpectedly), or its parameters derive
/// from such a tensor (bias scale, same-scale op).
pub(crate) fn classify(float: &Model, tf: &Ranges, ours: &Ranges, name: &str) -> String {
    let sg = &float.subgraphs[0];
    let key = name.strip_prefix("→ ").unwrap_or(name);
    let Some(i) = sg.tensors.iter().position(|t| t.name == key) else {
        return "derived (no float tensor of that name)".into();
    };
    match (tf.get(i), ours.get(i)) {
        (Some(a), Some(b)) if a != b => {
            let ulps = |x: f32, y: f32| (x.to_bits() as i64 - y.to_bits() as i64).unsigned_abs();
            let u = ulps(a.0, b.0).max(ulps(a.1, b.1));
            if u <= 1 {
                "own range differs by 1 ulp (after an unmirrored LiteRT kernel)".into()
            } else {
                format!("own range differs by {u} ulps (unexpected)")
            }
        }
        (Some(_), Some(_)) => "derived from a differing range (bias, same-scale op)".into(),
        _ if float.tensor_data(0, i).is_some() => {
            "derived from a differing range (bias, same-scale op)".into()
        }
        _ => "derived from a differing range (same-scale or fixed op)".into(),
    }
}

/// The tensors an operator reads and writes, described for comparison: per slot the dtype,
/// scales (f32 bits), zero points and, for constants, the bytes.
pub(crate) fn op_signature(m: &Model, op: usize) -> Vec<String> {
    let sg = &m.subgraphs[0];
    let o = &sg.operators[op];
    let mut v = Vec::new();
    for (side, list) in [("in", &o.inputs), ("out", &o.outputs)] {
        for (k, &t) in list.iter().enumerate() {
            let Ok(t) = usize::try_from(t) else {
                v.push(format!("{side}{k}: none"));
                continue;
            };
            let x = &sg.tensors[t];
            let (s, z) = x.quantization.as_ref().map_or((vec![], vec![]), |q| {
                (
                    q.scales().iter().map(|s| s.to_bits()).collect::<Vec<u32>>(),
                    q.zero_points().to_vec(),
                )
            });
            let data = m.tensor_data(0, t).map(|d| {
                // A short fingerprint of the bytes: length and a position-weighted sum.
                let sum = d.iter().enumerate().fold(0u64, |a, (i, &b)| {
                    a.wrapping_mul(31).wrapping_add(b as u64 ^ i as u64)
                });
                format!("{} bytes #{sum:x}", d.len())
            });
            v.push(format!(
                "{side}{k}: {:?} scales {:?} zps {:?} {}",
                x.dtype,
                s.iter()
                    .take(4)
                    .map(|&b| f32::from_bits(b))
                    .collect::<Vec<_>>(),
                &z[..z.len().min(4)],
                data.unwrap_or_default()
            ));
            if s.len() > 4 {
                v.push(format!("{side}{k}: all scales {s:?} zps {z:?}"));
            }
        }
    }
    v.push(format!("options {:?}", o.options));
    v
}

/// Indices of the operators that are not QUANTIZE / DEQUANTIZE, in order.
pub(crate) fn compute_ops(sg: &Subgraph) -> Vec<usize> {
    (0..sg.operators.len())
        .filter(|&i| {
            !matches!(
                sg.operators[i].code.name().as_str(),
                "QUANTIZE" | "DEQUANTIZE"
            )
        })
        .collect()
}
