//! A small reader for the FlexBuffers shapes custom operators' options take in practice: a root
//! map from keys to scalars (`TFLite_Detection_PostProcess`: `{"max_detections": 10,
//! "nms_iou_threshold": 0.6, "use_regular_nms": false, …}`) and typed vectors of integers
//! (MediaPipe's `Landmarks2TransformMatrix`: `"subset_idxs": [61, 146, …]`). Only scalars (null,
//! int, uint, float, bool, and their indirect forms) and typed int/uint vectors are read; any
//! other value is reported when asked for. Every offset and width is checked against the bytes, so hostile options give an error,
//! never a panic.
//!
//! The layout (FlexBuffers, as `flexbuffers.h` writes it): the last byte is the root's byte
//! width, the one before it the root's packed type (`type << 2 | log2(width)`), and before that
//! the root value. A map is stored as `[keys offset][keys width][length][values…][types…]`, the
//! offsets relative to where they are stored and pointing backwards; keys are a vector of offsets
//! to NUL-terminated strings.

/// A scalar value of a FlexBuffers map.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Scalar {
    /// Null (the key is present with no value).
    Null,
    /// A signed integer.
    Int(i64),
    /// An unsigned integer.
    UInt(u64),
    /// A float (32- or 64-bit in the buffer).
    Float(f64),
    /// A boolean.
    Bool(bool),
}

impl Scalar {
    /// The value as `flexbuffers.h`'s `AsInt64` converts it (floats truncated toward zero, `as`
    /// saturating where C++ is undefined), or `None` for null.
    pub fn as_i64(self) -> Option<i64> {
        match self {
            Scalar::Null => None,
            Scalar::Int(v) => Some(v),
            Scalar::UInt(v) => Some(v as i64),
            Scalar::Float(v) => Some(v as i64),
            Scalar::Bool(b) => Some(i64::from(b)),
        }
    }

    /// The value as `AsFloat` converts it (`static_cast<float>`), or `None` for null.
    pub fn as_f32(self) -> Option<f32> {
        match self {
            Scalar::Null => None,
            Scalar::Int(v) => Some(v as f32),
            Scalar::UInt(v) => Some(v as f32),
            Scalar::Float(v) => Some(v as f32),
            Scalar::Bool(b) => Some(f32::from(u8::from(b))),
        }
    }

    /// The value as `AsBool` converts it (non-zero is true), or `None` for null.
    pub fn as_bool(self) -> Option<bool> {
        match self {
            Scalar::Null => None,
            Scalar::Int(v) => Some(v != 0),
            Scalar::UInt(v) => Some(v != 0),
            Scalar::Float(v) => Some(v != 0.0),
            Scalar::Bool(b) => Some(b),
        }
    }
}

/// FlexBuffers type codes (`flexbuffers::Type`) this reader handles.
const NULL: u8 = 0;
const INT: u8 = 1;
const UINT: u8 = 2;
const FLOAT: u8 = 3;
const INDIRECT_INT: u8 = 6;
const INDIRECT_UINT: u8 = 7;
const INDIRECT_FLOAT: u8 = 8;
const MAP: u8 = 9;
const VECTOR: u8 = 10;
const VECTOR_INT: u8 = 11;
const VECTOR_UINT: u8 = 12;
const BOOL: u8 = 26;

/// A root map of a FlexBuffers buffer, read lazily: [`Map::get`] finds a key and decodes its
/// value.
#[derive(Debug, Clone, Copy)]
pub struct Map<'a> {
    buf: &'a [u8],
    /// Where the values start.
    data: usize,
    /// Width of each value slot.
    width: usize,
    /// Number of entries.
    len: usize,
    /// Where the key offsets start.
    keys: usize,
    /// Width of each key offset.
    keys_width: usize,
}

/// `width` bytes at `at` as an unsigned little-endian integer; `None` past the end.
fn read_uint(buf: &[u8], at: usize, width: usize) -> Option<u64> {
    let bytes = buf.get(at..at.checked_add(width)?)?;
    let mut v = [0u8; 8];
    v[..width].copy_from_slice(bytes);
    Some(u64::from_le_bytes(v))
}

/// `width` bytes at `at` as a signed little-endian integer (sign-extended).
fn read_int(buf: &[u8], at: usize, width: usize) -> Option<i64> {
    let u = read_uint(buf, at, width)?;
    let shift = 64 - 8 * width as u32;
    Some(((u << shift) as i64) >> shift)
}

/// A float of `width` 4 or 8 bytes at `at`.
fn read_float(buf: &[u8], at: usize, width: usize) -> Option<f64> {
    match width {
        4 => Some(f64::from(f32::from_bits(read_uint(buf, at, 4)? as u32))),
        8 => Some(f64::from_bits(read_uint(buf, at, 8)?)),
        _ => None,
    }
}

/// The location an offset stored at `at` (of `width` bytes) points to (offsets point back).
fn follow(buf: &[u8], at: usize, width: usize) -> Option<usize> {
    let off = usize::try_from(read_uint(buf, at, width)?).ok()?;
    at.checked_sub(off)
}

/// A byte width 1, 2, 4 or 8, from a packed type's low two bits.
fn width_of(packed: u8) -> usize {
    1 << (packed & 3)
}

impl<'a> Map<'a> {
    /// Reads the root of `buf`, which must be a map.
    pub fn root(buf: &'a [u8]) -> Result<Self, String> {
        let n = buf.len();
        if n < 3 {
            return Err(format!("{n} bytes are too few for a FlexBuffers root"));
        }
        let root_width = usize::from(buf[n - 1]);
        if !matches!(root_width, 1 | 2 | 4 | 8) {
            return Err(format!(
                "root byte width {root_width} (expected 1, 2, 4 or 8)"
            ));
        }
        let packed = buf[n - 2];
        if packed >> 2 != MAP {
            return Err(format!(
                "the root is of FlexBuffers type {} (expected a map, type {MAP})",
                packed >> 2
            ));
        }
        let at = (n - 2)
            .checked_sub(root_width)
            .ok_or("the root value lies before the buffer")?;
        let data = follow(buf, at, root_width).ok_or("the root map's offset is out of range")?;
        let width = width_of(packed);
        let bad = || "the map's header is out of range".to_string();
        let len_at = data.checked_sub(width).ok_or_else(bad)?;
        let len =
            usize::try_from(read_uint(buf, len_at, width).ok_or_else(bad)?).map_err(|_| bad())?;
        let kw_at = data.checked_sub(2 * width).ok_or_else(bad)?;
        let keys_width =
            usize::try_from(read_uint(buf, kw_at, width).ok_or_else(bad)?).map_err(|_| bad())?;
        if !matches!(keys_width, 1 | 2 | 4 | 8) {
            return Err(format!("key vector byte width {keys_width}"));
        }
        let ko_at = data.checked_sub(3 * width).ok_or_else(bad)?;
        let keys = follow(buf, ko_at, width).ok_or_else(bad)?;
        // The values and their type bytes, and the key offsets, must lie inside the buffer.
        let values_end = len
            .checked_mul(width)
            .and_then(|v| v.checked_add(data))
            .and_then(|v| v.checked_add(len))
            .ok_or_else(bad)?;
        let keys_end = len
            .checked_mul(keys_width)
            .and_then(|v| v.checked_add(keys))
            .ok_or_else(bad)?;
        if values_end > n || keys_end > n {
            return Err(format!("a map of {len} entries does not fit in {n} bytes"));
        }
        // The key vector states its own length; it must agree with the map's.
        let klen = keys
            .checked_sub(keys_width)
            .and_then(|at| read_uint(buf, at, keys_width));
        if klen != Some(len as u64) {
            return Err(format!(
                "the key vector's length {klen:?} is not the map's {len}"
            ));
        }
        Ok(Map {
            buf,
            data,
            width,
            len,
            keys,
            keys_width,
        })
    }

    /// The key of entry `i` (bytes up to its NUL).
    fn key(&self, i: usize) -> Option<&'a [u8]> {
        let at = self.keys + i * self.keys_width;
        let start = follow(self.buf, at, self.keys_width)?;
        let rest = self.buf.get(start..)?;
        let end = rest.iter().position(|&b| b == 0)?;
        Some(&rest[..end])
    }

    /// The value of `key`: `Ok(None)` when the map has no such key, an error when the entry is
    /// malformed or not a scalar.
    pub fn get(&self, key: &str) -> Result<Option<Scalar>, String> {
        for i in 0..self.len {
            let k = self
                .key(i)
                .ok_or_else(|| format!("key {i} of the map is out of range"))?;
            if k == key.as_bytes() {
                return self.value(i).map(Some);
            }
        }
        Ok(None)
    }

    /// The typed integer vector at `key` (`flexbuffers.h`'s `AsTypedVector` of int or uint
    /// elements, each as `AsInt64` reads it): `Ok(None)` when the map has no such key, an error
    /// when the entry is malformed or another type (an untyped vector, which `AsTypedVector`
    /// reads as empty, included).
    pub fn get_ints(&self, key: &str) -> Result<Option<Vec<i64>>, String> {
        for i in 0..self.len {
            let k = self
                .key(i)
                .ok_or_else(|| format!("key {i} of the map is out of range"))?;
            if k == key.as_bytes() {
                return self.int_vector(i).map(Some);
            }
        }
        Ok(None)
    }

    /// Decodes value `i` as a typed int or uint vector.
    fn int_vector(&self, i: usize) -> Result<Vec<i64>, String> {
        let (ty, child_width) = self.packed_type(i);
        let signed = match ty {
            VECTOR_INT => true,
            VECTOR_UINT => false,
            VECTOR => {
                return Err(format!(
                    "value {i} is an untyped vector (FlexBuffers type {VECTOR}), not a typed \
                     vector of ints (type {VECTOR_INT})"
                ));
            }
            other => {
                return Err(format!(
                    "value {i} is of FlexBuffers type {other}, not a typed vector of ints"
                ));
            }
        };
        let bad = || format!("vector {i} of the map is out of range");
        let b = self.buf;
        let start = follow(b, self.data + i * self.width, self.width).ok_or_else(bad)?;
        let len_at = start.checked_sub(child_width).ok_or_else(bad)?;
        let len = usize::try_from(read_uint(b, len_at, child_width).ok_or_else(bad)?)
            .map_err(|_| bad())?;
        let end = len
            .checked_mul(child_width)
            .and_then(|n| n.checked_add(start))
            .ok_or_else(bad)?;
        if end > b.len() {
            return Err(format!(
                "a vector of {len} elements does not fit in {} bytes",
                b.len()
            ));
        }
        (0..len)
            .map(|k| {
                let at = start + k * child_width;
                if signed {
                    read_int(b, at, child_width)
                } else {
                    read_uint(b, at, child_width).map(|v| v as i64)
                }
                .ok_or_else(bad)
            })
            .collect()
    }

    /// The type and child byte width of value `i` (bounds were checked at [`Map::root`]).
    fn packed_type(&self, i: usize) -> (u8, usize) {
        let packed = self.buf[self.data + self.len * self.width + i];
        (packed >> 2, width_of(packed))
    }

    /// Decodes value `i` (bounds were checked at [`Map::root`]).
    fn value(&self, i: usize) -> Result<Scalar, String> {
        let at = self.data + i * self.width;
        let (ty, child_width) = self.packed_type(i);
        let w = self.width;
        let bad = || format!("value {i} of the map is out of range");
        let b = self.buf;
        Ok(match ty {
            NULL => Scalar::Null,
            INT => Scalar::Int(read_int(b, at, w).ok_or_else(bad)?),
            UINT => Scalar::UInt(read_uint(b, at, w).ok_or_else(bad)?),
            BOOL => Scalar::Bool(read_uint(b, at, w).ok_or_else(bad)? != 0),
            FLOAT => Scalar::Float(read_float(b, at, w).ok_or_else(bad)?),
            INDIRECT_INT | INDIRECT_UINT | INDIRECT_FLOAT => {
                let to = follow(b, at, w).ok_or_else(bad)?;
                match ty {
                    INDIRECT_INT => Scalar::Int(read_int(b, to, child_width).ok_or_else(bad)?),
                    INDIRECT_UINT => Scalar::UInt(read_uint(b, to, child_width).ok_or_else(bad)?),
                    _ => Scalar::Float(read_float(b, to, child_width).ok_or_else(bad)?),
                }
            }
            other => {
                return Err(format!(
                    "value {i} is of FlexBuffers type {other}, not a scalar"
                ));
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `{"a": 3, "b": 0.5, "c": True, "d": -2}` as Python's `flatbuffers.flexbuffers.Dumps`
    /// writes it (the writer TF's converter tooling and our generator use): 4-byte slots.
    const SAMPLE: &[u8] = &[
        97, 0, 98, 0, 99, 0, 100, 0, 4, 9, 8, 7, 6, 0, 0, 0, 7, 0, 0, 0, 1, 0, 0, 0, 4, 0, 0, 0, 3,
        0, 0, 0, 0, 0, 0, 63, 1, 0, 0, 0, 254, 255, 255, 255, 6, 14, 106, 6, 20, 38, 1,
    ];

    /// `{"a": 3, "b": 0.1, "c": True, "d": -2, "e": None, "f": 300000}` from the same writer:
    /// 8-byte slots (0.1 needs a double), a null.
    const WIDE: &[u8] = &[
        97, 0, 98, 0, 99, 0, 100, 0, 101, 0, 102, 0, 6, 13, 12, 11, 10, 9, 8, 0, 0, 0, 0, 0, 11, 0,
        0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 6, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0,
        154, 153, 153, 153, 153, 153, 185, 63, 1, 0, 0, 0, 0, 0, 0, 0, 254, 255, 255, 255, 255,
        255, 255, 255, 0, 0, 0, 0, 0, 0, 0, 0, 224, 147, 4, 0, 0, 0, 0, 0, 7, 15, 107, 7, 3, 7, 54,
        39, 1,
    ];

    #[test]
    fn reads_the_python_writers_maps() {
        let m = Map::root(SAMPLE).expect("map");
        assert_eq!(m.get("a"), Ok(Some(Scalar::Int(3))));
        assert_eq!(m.get("b"), Ok(Some(Scalar::Float(0.5))));
        assert_eq!(m.get("c"), Ok(Some(Scalar::Bool(true))));
        assert_eq!(m.get("d"), Ok(Some(Scalar::Int(-2))));
        assert_eq!(m.get("e"), Ok(None));
        let w = Map::root(WIDE).expect("map");
        assert_eq!(w.get("b"), Ok(Some(Scalar::Float(0.1))));
        assert_eq!(w.get("d"), Ok(Some(Scalar::Int(-2))));
        assert_eq!(w.get("e"), Ok(Some(Scalar::Null)));
        assert_eq!(w.get("f"), Ok(Some(Scalar::Int(300_000))));
        assert_eq!(Scalar::Float(0.1).as_f32(), Some(0.1f32));
        assert_eq!(Scalar::Float(2.9).as_i64(), Some(2));
        assert_eq!(Scalar::Int(7).as_f32(), Some(7.0));
        assert_eq!(Scalar::Null.as_bool(), None);
    }

    /// `{"a": 3, "u": [5, 6, 70000], "v": [1, -2, 300], "w": [1, 2]}` from the same writer's
    /// `Builder`: `u` and `v` typed int vectors (`TypedVectorFromElements`: 4- and 2-byte
    /// elements), `w` an untyped vector (`VectorFromElements`).
    const VECTORS: &[u8] = &[
        97, 0, 117, 0, 3, 0, 0, 0, 5, 0, 0, 0, 6, 0, 0, 0, 112, 17, 1, 0, 118, 0, 3, 0, 1, 0, 254,
        255, 44, 1, 119, 0, 2, 1, 2, 4, 4, 4, 38, 37, 20, 11, 4, 1, 4, 3, 38, 23, 15, 4, 46, 45,
        40, 8, 36, 1,
    ];

    #[test]
    fn reads_typed_int_vectors() {
        let m = Map::root(VECTORS).expect("map");
        assert_eq!(m.get("a"), Ok(Some(Scalar::Int(3))));
        assert_eq!(m.get_ints("u"), Ok(Some(vec![5, 6, 70000])));
        assert_eq!(m.get_ints("v"), Ok(Some(vec![1, -2, 300])));
        assert_eq!(m.get_ints("zz"), Ok(None));
        assert!(
            m.get_ints("w")
                .expect_err("untyped")
                .contains("untyped vector")
        );
        assert!(m.get_ints("a").expect_err("scalar").contains("type 1"));
        assert!(m.get("u").expect_err("vector").contains("not a scalar"));
        for n in 0..VECTORS.len() {
            for cut in [&VECTORS[n..], &VECTORS[..n]] {
                let _ = Map::root(cut).map(|m| m.get_ints("u"));
            }
            for b in [0u8, 1, 2, 3, 7, 0x7f, 0xff] {
                let mut s = VECTORS.to_vec();
                s[n] = b;
                if let Ok(m) = Map::root(&s) {
                    for k in ["u", "v", "w"] {
                        let _ = m.get_ints(k);
                    }
                }
            }
        }
    }

    #[test]
    fn hostile_bytes_are_errors_not_panics() {
        assert!(Map::root(&[]).is_err());
        assert!(Map::root(&[1, 2, 3]).is_err());
        // Every truncation and every single-byte change of a valid buffer: no panic.
        for sample in [SAMPLE, WIDE] {
            for n in 0..sample.len() {
                let _ = Map::root(&sample[n..]).map(|m| m.get("d"));
                let _ = Map::root(&sample[..n]).map(|m| m.get("d"));
            }
            for i in 0..sample.len() {
                for b in [0u8, 1, 2, 3, 7, 8, 9, 36, 0x7f, 0xff] {
                    let mut s = sample.to_vec();
                    s[i] = b;
                    if let Ok(m) = Map::root(&s) {
                        for k in ["a", "b", "c", "d", "e", "f", "zz"] {
                            let _ = m.get(k);
                        }
                    }
                }
            }
        }
        // A root that is not a map.
        assert!(
            Map::root(&[5, 4, 1])
                .expect_err("not a map")
                .contains("expected a map")
        );
    }
}
