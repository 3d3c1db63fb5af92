//! Facts about tensor element types (sizes, names), used by every layer: the format reader, the
//! engine, the quantizer and both faces.

use super::TensorType;

/// Size in bytes of one element of `t`, or `None` for types without a fixed per-element size
/// (STRING, VARIANT, sub-byte types, and codes this schema does not know). A RESOURCE element is
/// the 32-bit resource id LiteRT's VAR_HANDLE writes.
pub fn element_size(t: TensorType) -> Option<usize> {
    Some(match t {
        TensorType::BOOL | TensorType::INT8 | TensorType::UINT8 => 1,
        TensorType::INT16 | TensorType::UINT16 | TensorType::FLOAT16 | TensorType::BFLOAT16 => 2,
        TensorType::FLOAT32 | TensorType::INT32 | TensorType::UINT32 | TensorType::RESOURCE => 4,
        TensorType::INT64 | TensorType::UINT64 | TensorType::FLOAT64 | TensorType::COMPLEX64 => 8,
        TensorType::COMPLEX128 => 16,
        _ => return None,
    })
}

/// The type's name as TFLite spells it (`FLOAT32`, `INT8`, …), or `TYPE_<n>` for unknown codes.
pub fn dtype_name(t: TensorType) -> String {
    match t.variant_name() {
        Some(n) => n.to_string(),
        None => format!("TYPE_{}", t.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_of_common_types() {
        assert_eq!(element_size(TensorType::FLOAT32), Some(4));
        assert_eq!(element_size(TensorType::INT8), Some(1));
        assert_eq!(element_size(TensorType::INT16), Some(2));
        assert_eq!(element_size(TensorType::INT64), Some(8));
        assert_eq!(element_size(TensorType::STRING), None);
        assert_eq!(element_size(TensorType::INT4), None);
    }

    #[test]
    fn names() {
        assert_eq!(dtype_name(TensorType::FLOAT32), "FLOAT32");
        assert_eq!(dtype_name(TensorType(100)), "TYPE_100");
    }
}
