//! The quantizer's view of the op table: the quantization facts of each builtin operator come
//! from its row in [`crate::ops::registry::OPS`] (types in [`crate::ops::properties`]). An op
//! without quantizer properties is not quantizable: the passes keep it float, with a warning and
//! QUANTIZE/DEQUANTIZE where float and integer tensors meet.

pub use crate::ops::properties::OpProperties;
pub use crate::ops::registry::properties;

use crate::graph::BuiltinOperator as Op;

/// Operator version TF writes for the 16x8 kernel of `op` (the table's `int16_version`).
pub fn int16_version(_op: Op, p: &OpProperties) -> i32 {
    p.int16_version
}
