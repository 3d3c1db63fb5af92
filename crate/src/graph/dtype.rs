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

/// Unpacks `n` INT4 values stored two to a byte into one signed byte each, as LiteRT's
/// `UnpackDenseInt4IntoInt8` reads them: element `2i` is the low nibble of byte `i`, element
/// `2i + 1` its high nibble, each sign-extended (−8..=7); an odd count leaves the last byte's
/// high nibble unused. `None` when `packed` holds fewer than `n.div_ceil(2)` bytes.
pub fn unpack_int4(packed: &[u8], n: usize) -> Option<Vec<i8>> {
    let bytes = packed.get(..n.div_ceil(2))?;
    let mut out = Vec::with_capacity(n);
    for &b in bytes {
        // Shifting the nibble to the top and back (arithmetic shift) extends its sign.
        out.push(((b << 4) as i8) >> 4);
        out.push((b as i8) >> 4);
    }
    out.truncate(n);
    Some(out)
}

/// Packs values in −8..=7 two to a byte, the layout [`unpack_int4`] reads (low nibble first; the
/// unused high nibble of an odd count is zero). Values outside the range keep their low 4 bits.
pub fn pack_int4(values: &[i8]) -> Vec<u8> {
    values
        .chunks(2)
        .map(|c| {
            let lo = (c[0] as u8) & 0x0f;
            let hi = c.get(1).map_or(0, |&v| (v as u8) << 4);
            lo | hi
        })
        .collect()
}

/// The values of little-endian INT32 / INT64 tensor data (shape arguments, axes, paddings) as
/// `i64`, or `None` for other types.
pub fn int_values(t: TensorType, data: &[u8]) -> Option<Vec<i64>> {
    match t {
        TensorType::INT32 => Some(
            data.chunks_exact(4)
                .map(|b| i64::from(i32::from_le_bytes([b[0], b[1], b[2], b[3]])))
                .collect(),
        ),
        TensorType::INT64 => Some(
            data.chunks_exact(8)
                .map(|b| i64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]))
                .collect(),
        ),
        _ => None,
    }
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
    fn int4_nibbles_low_first_sign_extended() {
        // 0x87: low nibble 7, high nibble 8 (−8); 0xF0: low 0, high −1; 0x09: low −7 (high unused).
        let packed = [0x87, 0xF0, 0x09];
        assert_eq!(unpack_int4(&packed, 5), Some(vec![7, -8, 0, -1, -7]));
        assert_eq!(unpack_int4(&packed, 6), Some(vec![7, -8, 0, -1, -7, 0]));
        assert_eq!(unpack_int4(&packed, 7), None);
        assert_eq!(unpack_int4(&[], 0), Some(vec![]));
        let all: Vec<i8> = (-8..=7).chain([3]).collect();
        assert_eq!(unpack_int4(&pack_int4(&all), all.len()), Some(all.clone()));
        assert_eq!(pack_int4(&[7, -8, 0, -1, -7]), vec![0x87, 0xF0, 0x09]);
    }

    #[test]
    fn names() {
        assert_eq!(dtype_name(TensorType::FLOAT32), "FLOAT32");
        assert_eq!(dtype_name(TensorType(100)), "TYPE_100");
    }
}
