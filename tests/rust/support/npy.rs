//! `.npy` arrays as the goldens store them: [`NpyArray`] (shape + C-order [`NpyData`]), reading
//! ([`load_npy`], [`try_load_npy`]) and the per-sample byte views a model's tensors take.

use std::fs::File;
use std::io::BufReader;
use std::path::Path;

/// The element data of an `.npy` array, by dtype.
#[derive(Debug, Clone, PartialEq)]
pub enum NpyData {
    /// float32
    F32(Vec<f32>),
    /// float64
    F64(Vec<f64>),
    /// int8
    I8(Vec<i8>),
    /// uint8
    U8(Vec<u8>),
    /// int16
    I16(Vec<i16>),
    /// int32
    I32(Vec<i32>),
    /// int64
    I64(Vec<i64>),
    /// bool
    Bool(Vec<bool>),
}

/// An `.npy` array: shape and C-order data.
#[derive(Debug, Clone, PartialEq)]
pub struct NpyArray {
    /// The shape (for goldens: `[samples, ...model tensor shape]`).
    pub shape: Vec<usize>,
    /// The elements in C order.
    pub data: NpyData,
}

impl NpyData {
    /// Number of elements.
    pub fn len(&self) -> usize {
        match self {
            NpyData::F32(v) => v.len(),
            NpyData::F64(v) => v.len(),
            NpyData::I8(v) => v.len(),
            NpyData::U8(v) => v.len(),
            NpyData::I16(v) => v.len(),
            NpyData::I32(v) => v.len(),
            NpyData::I64(v) => v.len(),
            NpyData::Bool(v) => v.len(),
        }
    }

    /// True when there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// numpy's name for the dtype (`float32`, `int8`, ...), as `case.toml` spells it.
    pub fn dtype(&self) -> &'static str {
        match self {
            NpyData::F32(_) => "float32",
            NpyData::F64(_) => "float64",
            NpyData::I8(_) => "int8",
            NpyData::U8(_) => "uint8",
            NpyData::I16(_) => "int16",
            NpyData::I32(_) => "int32",
            NpyData::I64(_) => "int64",
            NpyData::Bool(_) => "bool",
        }
    }

    /// Bytes per element.
    pub fn element_size(&self) -> usize {
        match self {
            NpyData::I8(_) | NpyData::U8(_) | NpyData::Bool(_) => 1,
            NpyData::I16(_) => 2,
            NpyData::F32(_) | NpyData::I32(_) => 4,
            NpyData::F64(_) | NpyData::I64(_) => 8,
        }
    }

    /// True for integer (and bool) dtypes.
    pub fn is_integer(&self) -> bool {
        !matches!(self, NpyData::F32(_) | NpyData::F64(_))
    }

    /// Element `i` as f64 (exact for every dtype here except int64 beyond 2^53).
    pub fn get_f64(&self, i: usize) -> f64 {
        match self {
            NpyData::F32(v) => f64::from(v[i]),
            NpyData::F64(v) => v[i],
            NpyData::I8(v) => f64::from(v[i]),
            NpyData::U8(v) => f64::from(v[i]),
            NpyData::I16(v) => f64::from(v[i]),
            NpyData::I32(v) => f64::from(v[i]),
            NpyData::I64(v) => v[i] as f64,
            NpyData::Bool(v) => f64::from(u8::from(v[i])),
        }
    }

    /// Little-endian bytes of elements `range`.
    pub fn le_bytes(&self, range: std::ops::Range<usize>) -> Vec<u8> {
        fn cat<T: Copy, const N: usize>(v: &[T], f: fn(T) -> [u8; N]) -> Vec<u8> {
            v.iter().flat_map(|&x| f(x)).collect()
        }
        match self {
            NpyData::F32(v) => cat(&v[range], f32::to_le_bytes),
            NpyData::F64(v) => cat(&v[range], f64::to_le_bytes),
            NpyData::I8(v) => cat(&v[range], i8::to_le_bytes),
            NpyData::U8(v) => v[range].to_vec(),
            NpyData::I16(v) => cat(&v[range], i16::to_le_bytes),
            NpyData::I32(v) => cat(&v[range], i32::to_le_bytes),
            NpyData::I64(v) => cat(&v[range], i64::to_le_bytes),
            NpyData::Bool(v) => v[range].iter().map(|&b| u8::from(b)).collect(),
        }
    }

    fn slice(&self, range: std::ops::Range<usize>) -> NpyData {
        match self {
            NpyData::F32(v) => NpyData::F32(v[range].to_vec()),
            NpyData::F64(v) => NpyData::F64(v[range].to_vec()),
            NpyData::I8(v) => NpyData::I8(v[range].to_vec()),
            NpyData::U8(v) => NpyData::U8(v[range].to_vec()),
            NpyData::I16(v) => NpyData::I16(v[range].to_vec()),
            NpyData::I32(v) => NpyData::I32(v[range].to_vec()),
            NpyData::I64(v) => NpyData::I64(v[range].to_vec()),
            NpyData::Bool(v) => NpyData::Bool(v[range].to_vec()),
        }
    }
}

impl NpyArray {
    /// Number of samples: the first axis (1 for a 0-d array).
    pub fn samples(&self) -> usize {
        self.shape.first().copied().unwrap_or(1)
    }

    /// The shape of one sample (the model tensor's shape for goldens).
    pub fn sample_shape(&self) -> &[usize] {
        self.shape.get(1..).unwrap_or(&[])
    }

    /// Elements per sample.
    pub fn sample_len(&self) -> usize {
        self.sample_shape().iter().product()
    }

    /// Total number of elements.
    pub fn len(&self) -> usize {
        self.data.len()
    }

    /// True when there are no elements.
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// numpy's name for the dtype.
    pub fn dtype(&self) -> &'static str {
        self.data.dtype()
    }

    /// Little-endian bytes of sample `i` (what a model input tensor of that dtype holds).
    /// Panics if `i` is out of range.
    pub fn sample_bytes(&self, i: usize) -> Vec<u8> {
        let n = self.sample_len();
        assert!(i < self.samples(), "sample {i} of {}", self.samples());
        self.data.le_bytes(i * n..(i + 1) * n)
    }

    /// Sample `i` as an array of the sample shape (no sample axis).
    pub fn sample(&self, i: usize) -> NpyArray {
        let n = self.sample_len();
        assert!(i < self.samples(), "sample {i} of {}", self.samples());
        NpyArray {
            shape: self.sample_shape().to_vec(),
            data: self.data.slice(i * n..(i + 1) * n),
        }
    }

    /// Build an array from little-endian element bytes (e.g. an engine's output tensor).
    /// `dtype` is numpy's name (`float32`, `int8`, `int16`, `int32`, `int64`, `uint8`, `float64`,
    /// `bool`).
    pub fn from_le_bytes(dtype: &str, shape: Vec<usize>, bytes: &[u8]) -> Result<NpyArray, String> {
        fn conv<T, const N: usize>(b: &[u8], f: fn([u8; N]) -> T) -> Vec<T> {
            b.chunks_exact(N)
                .map(|c| f(c.try_into().unwrap_or([0; N])))
                .collect()
        }
        let n: usize = shape.iter().product();
        let data = match dtype {
            "float32" => NpyData::F32(conv(bytes, f32::from_le_bytes)),
            "float64" => NpyData::F64(conv(bytes, f64::from_le_bytes)),
            "int8" => NpyData::I8(conv(bytes, i8::from_le_bytes)),
            "uint8" => NpyData::U8(bytes.to_vec()),
            "int16" => NpyData::I16(conv(bytes, i16::from_le_bytes)),
            "int32" => NpyData::I32(conv(bytes, i32::from_le_bytes)),
            "int64" => NpyData::I64(conv(bytes, i64::from_le_bytes)),
            "bool" => NpyData::Bool(bytes.iter().map(|&b| b != 0).collect()),
            other => return Err(format!("unsupported dtype {other}")),
        };
        if data.len() != n || bytes.len() != n * data.element_size() {
            return Err(format!(
                "{} bytes do not hold {n} {dtype} elements (shape {shape:?})",
                bytes.len()
            ));
        }
        Ok(NpyArray { shape, data })
    }
}

/// Read an `.npy` file (C order; float32/64, int8/16/32/64, uint8, bool). Panics with the path in
/// the message on failure (test-only code).
pub fn load_npy(path: &Path) -> NpyArray {
    try_load_npy(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// [`load_npy`] returning the error instead of panicking.
pub fn try_load_npy(path: &Path) -> Result<NpyArray, String> {
    let file = File::open(path).map_err(|e| e.to_string())?;
    let a = zeropoint::npy::read("", BufReader::new(file)).map_err(|e| match e {
        zeropoint::Error::Npy { reason, .. } => reason,
        other => other.to_string(),
    })?;
    NpyArray::from_le_bytes(a.dtype.name(), a.shape, &a.data)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn arr(data: NpyData, shape: Vec<usize>) -> NpyArray {
        NpyArray { shape, data }
    }

    #[test]
    fn sample_bytes_are_little_endian_per_sample() {
        let a = arr(NpyData::I16(vec![1, -2, 3, 0x0102]), vec![2, 1, 2]);
        assert_eq!(a.samples(), 2);
        assert_eq!(a.sample_bytes(0), vec![1, 0, 0xfe, 0xff]);
        assert_eq!(a.sample_bytes(1), vec![3, 0, 2, 1]);
        let s = a.sample(1);
        assert_eq!(s.shape, vec![1, 2]);
        let back = NpyArray::from_le_bytes("int16", vec![1, 2], &a.sample_bytes(1)).expect("ok");
        assert_eq!(back, s);
        assert!(NpyArray::from_le_bytes("int16", vec![3], &[0, 0]).is_err());
    }
}
