//! Small models and look-ups shared by the calibration unit tests.

use crate::graph::{Buffer, BuiltinOperator, BuiltinOptionsT, Model, Subgraph, Tensor, TensorType};
use crate::quant::calibrate::{CalibrationStats, TensorStats};

pub(super) use crate::engine::control_flow_tests::op;

/// `y = x + c` (c constant), `z = relu(y)`; x, y, z: [1, 4].
pub(super) fn add_relu(c: [f32; 4]) -> Model {
    let mut c_t = Tensor::new("c", TensorType::FLOAT32, vec![4]);
    c_t.buffer = 1;
    Model {
        version: 3,
        subgraphs: vec![Subgraph {
            tensors: vec![
                Tensor::new("x", TensorType::FLOAT32, vec![1, 4]),
                c_t,
                Tensor::new("y", TensorType::FLOAT32, vec![1, 4]),
                Tensor::new("z", TensorType::FLOAT32, vec![1, 4]),
            ],
            inputs: vec![0],
            outputs: vec![3],
            operators: vec![
                op(
                    BuiltinOperator::ADD,
                    &[0, 1],
                    &[2],
                    BuiltinOptionsT::AddOptions(Box::default()),
                ),
                op(BuiltinOperator::RELU, &[2], &[3], BuiltinOptionsT::NONE),
            ],
            ..Default::default()
        }],
        buffers: vec![
            Buffer::default(),
            Buffer {
                data: bytemuck::cast_slice(&c).to_vec(),
            },
        ],
        ..Default::default()
    }
}

/// `y = square(x)`, `z = relu(y)`; x, y, z: [1, 4] (no fused activation: an overflow stays +inf).
pub(super) fn square_relu() -> Model {
    Model {
        version: 3,
        subgraphs: vec![Subgraph {
            tensors: vec![
                Tensor::new("x", TensorType::FLOAT32, vec![1, 4]),
                Tensor::new("y", TensorType::FLOAT32, vec![1, 4]),
                Tensor::new("z", TensorType::FLOAT32, vec![1, 4]),
            ],
            inputs: vec![0],
            outputs: vec![2],
            operators: vec![
                op(BuiltinOperator::SQUARE, &[0], &[1], BuiltinOptionsT::NONE),
                op(BuiltinOperator::RELU, &[1], &[2], BuiltinOptionsT::NONE),
            ],
            ..Default::default()
        }],
        buffers: vec![Buffer::default()],
        ..Default::default()
    }
}

/// `f = fill([1, 2], 0.25)` (dims and value constant: the engine folds it at prepare time),
/// `y = x + f`; x, f, y: [1, 2].
pub(super) fn add_fill() -> Model {
    let mut dims = Tensor::new("dims", TensorType::INT32, vec![2]);
    dims.buffer = 1;
    let mut value = Tensor::new("value", TensorType::FLOAT32, vec![]);
    value.buffer = 2;
    Model {
        version: 3,
        subgraphs: vec![Subgraph {
            tensors: vec![
                Tensor::new("x", TensorType::FLOAT32, vec![1, 2]),
                dims,
                value,
                Tensor::new("f", TensorType::FLOAT32, vec![1, 2]),
                Tensor::new("y", TensorType::FLOAT32, vec![1, 2]),
            ],
            inputs: vec![0],
            outputs: vec![4],
            operators: vec![
                op(BuiltinOperator::FILL, &[1, 2], &[3], BuiltinOptionsT::NONE),
                op(
                    BuiltinOperator::ADD,
                    &[0, 3],
                    &[4],
                    BuiltinOptionsT::AddOptions(Box::default()),
                ),
            ],
            ..Default::default()
        }],
        buffers: vec![
            Buffer::default(),
            Buffer {
                data: bytemuck::cast_slice(&[1i32, 2]).to_vec(),
            },
            Buffer {
                data: 0.25f32.to_le_bytes().to_vec(),
            },
        ],
        ..Default::default()
    }
}

pub(super) fn by_name<'a>(s: &'a CalibrationStats, name: &str) -> &'a TensorStats {
    s.tensors
        .iter()
        .find(|t| t.name == name)
        .expect("tensor recorded")
}
