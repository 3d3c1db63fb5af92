//! TF's in-place aliasing: which input an operator's output overwrites in LiteRT's arena, so
//! that TF's calibrator records that input again with the output's values
//! ([`tf_inplace_inputs`]).

use crate::graph::Model;

/// For every tensor of subgraph 0 that an operator's output overwrites in TF's calibrator, the
/// input whose buffer LiteRT's arena planner lets it reuse (by output tensor index). TF records
/// that input again with the output's values.
///
/// The planner's rules (`ArenaPlanner::IdentifyInPlaceTensors`), as reproduced here:
///
/// - ADD, SUB, MUL, DIV may reuse input 0 or 1, SOFTMAX input 0 (they change the data);
///   RESHAPE's input 0 (data unmodified) shares its buffer with the output, so sharing chains
///   through it.
/// - The input must live in the arena (no constant buffer, not a variable) and must not be a
///   graph input; the output must not be a graph output.
/// - For the operators that change the data, input and output must have the same size, larger
///   than 4 bytes, and the input — and the buffer it lives in — must be read by this operator
///   only.
pub fn tf_inplace_inputs(model: &Model) -> Vec<Option<usize>> {
    use crate::graph::BuiltinOperator as B;
    let Some(sg) = model.subgraphs.first() else {
        return Vec::new();
    };
    let n = sg.tensors.len();
    let index = |t: i32| usize::try_from(t).ok().filter(|&t| t < n);
    let mut refcount = vec![0usize; n];
    for &t in sg.outputs.iter().chain(&sg.inputs) {
        if let Some(t) = index(t) {
            refcount[t] += 1;
        }
    }
    for op in &sg.operators {
        for &t in &op.inputs {
            if let Some(t) = index(t) {
                refcount[t] += 1;
            }
        }
    }
    let bytes = |t: usize| -> Option<usize> {
        let tensor = &sg.tensors[t];
        let elems = tensor.dims().iter().try_fold(1usize, |a, &d| {
            usize::try_from(d).ok().and_then(|d| a.checked_mul(d))
        })?;
        elems.checked_mul(crate::graph::dtype::element_size(tensor.dtype)?)
    };
    let is_graph = |list: &[i32], t: usize| list.iter().any(|&x| index(x) == Some(t));
    let mut actual: Vec<usize> = (0..n).collect();
    let mut aliased = vec![None; n];
    for op in &sg.operators {
        // (shareable input positions, whether the operator changes the data)
        let (positions, changed): (&[usize], bool) = match op.code.op() {
            B::ADD | B::SUB | B::MUL | B::DIV => (&[0, 1], true),
            B::SOFTMAX => (&[0], true),
            B::RESHAPE => (&[0], false),
            _ => continue,
        };
        let Some(out) = op.outputs.first().and_then(|&t| index(t)) else {
            continue;
        };
        let shareable = |t: usize| {
            let arena = model.tensor_data(0, t).is_none() && !sg.tensors[t].is_variable;
            let sized = !changed
                || (bytes(t).is_some_and(|b| b > 4 && Some(b) == bytes(out)) && refcount[t] <= 1);
            arena && sized && !is_graph(&sg.inputs, t) && !is_graph(&sg.outputs, out)
        };
        let Some(input) = positions
            .iter()
            .filter_map(|&k| op.inputs.get(k).and_then(|&t| index(t)))
            .find(|&t| shareable(t))
        else {
            continue;
        };
        let root = actual[input];
        if changed && refcount[root] > 1 {
            continue;
        }
        actual[out] = root;
        if changed {
            aliased[out] = Some(input);
        }
    }
    aliased
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{BuiltinOperator, BuiltinOptionsT, Tensor, TensorType};
    use crate::quant::calibrate::test_models::{add_relu, by_name, op};
    use crate::quant::calibrate::{Calibrator, Method};

    #[test]
    fn inplace_add_input_records_the_output_as_tf_does() {
        // y = relu(x); z = y + c; w = relu(z): ADD may overwrite y (its only reader, same size,
        // not a graph input; z is not a graph output), so TF records y's range ∪ z's.
        let mut m = add_relu([10.0, 10.0, 10.0, 10.0]);
        let sg = &mut m.subgraphs[0];
        sg.tensors
            .push(Tensor::new("w", TensorType::FLOAT32, vec![1, 4]));
        sg.operators = vec![
            op(BuiltinOperator::RELU, &[0], &[2], BuiltinOptionsT::NONE),
            op(
                BuiltinOperator::ADD,
                &[2, 1],
                &[3],
                BuiltinOptionsT::AddOptions(Box::default()),
            ),
            op(BuiltinOperator::RELU, &[3], &[4], BuiltinOptionsT::NONE),
        ];
        sg.outputs = vec![4];
        assert_eq!(tf_inplace_inputs(&m), [None, None, None, Some(2), None]);
        let mut cal = Calibrator::new(&m).expect("prepares");
        cal.set_input(0, &[-1.0, 0.0, 2.0, 3.0]).expect("fits");
        cal.add_sample().expect("finite");
        let s = cal.stats(Method::MinMax).expect("stats");
        let y = by_name(&s, "y");
        assert_eq!((y.min, y.max), (0.0, 13.0), "TF's union of y and z");
        assert_eq!(y.histogram.total(), 4, "the histogram keeps y's own values");
        assert_eq!((by_name(&s, "z").min, by_name(&s, "z").max), (10.0, 13.0));
        // A graph output is never shared.
        m.subgraphs[0].outputs = vec![3];
        m.subgraphs[0].operators.truncate(2);
        assert_eq!(tf_inplace_inputs(&m)[3], None);
    }
}
