//! `.npy` arrays (NumPy's file format, NEP 1): the one reader and writer every Rust site uses —
//! the CLI (`run`, `compare`, `calibrate`, `quantize --data`), calibration data
//! (`quant::inputs::NpySamples`) and the golden tests (`zeropoint-tests`).
//!
//! Arrays are kept as their element type ([`Dtype`]), their shape and their elements as
//! little-endian bytes in C order: exactly what an engine tensor of that type holds, so the CLI
//! passes them to the interpreter without conversion. Header parsing, byte order and element
//! counts are left to the `npyz` crate (feature `npy`, on with `data` and `cli`); the wasm build
//! does not read `.npy` (the page decodes it in TypeScript, `www/src/calibration/npy.ts`, which
//! is tested against files this writer produced: `tests/fixtures/npy/`).

use std::io::{Read, Write};

use crate::error::{Error, Result};
use crate::graph::TensorType;

/// The element types the project reads and writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Dtype {
    /// float32 (`<f4`)
    F32,
    /// float64 (`<f8`)
    F64,
    /// int8 (`|i1`)
    I8,
    /// uint8 (`|u1`)
    U8,
    /// int16 (`<i2`)
    I16,
    /// int32 (`<i4`)
    I32,
    /// int64 (`<i8`)
    I64,
    /// bool (`|b1`, one byte 0 or 1)
    Bool,
}

impl Dtype {
    /// Every dtype, in the order of the enum.
    pub const ALL: [Dtype; 8] = [
        Dtype::F32,
        Dtype::F64,
        Dtype::I8,
        Dtype::U8,
        Dtype::I16,
        Dtype::I32,
        Dtype::I64,
        Dtype::Bool,
    ];

    /// Bytes per element.
    pub fn size(self) -> usize {
        match self {
            Dtype::I8 | Dtype::U8 | Dtype::Bool => 1,
            Dtype::I16 => 2,
            Dtype::F32 | Dtype::I32 => 4,
            Dtype::F64 | Dtype::I64 => 8,
        }
    }

    /// numpy's name for the dtype (`float32`, `int8`, …).
    pub fn name(self) -> &'static str {
        match self {
            Dtype::F32 => "float32",
            Dtype::F64 => "float64",
            Dtype::I8 => "int8",
            Dtype::U8 => "uint8",
            Dtype::I16 => "int16",
            Dtype::I32 => "int32",
            Dtype::I64 => "int64",
            Dtype::Bool => "bool",
        }
    }

    /// The numpy type code without byte order (`f4`, `i1`, `b1`, …).
    pub fn code(self) -> &'static str {
        match self {
            Dtype::F32 => "f4",
            Dtype::F64 => "f8",
            Dtype::I8 => "i1",
            Dtype::U8 => "u1",
            Dtype::I16 => "i2",
            Dtype::I32 => "i4",
            Dtype::I64 => "i8",
            Dtype::Bool => "b1",
        }
    }

    /// The `.npy` dtype of a tensor type the engine reads and writes (not FLOAT64), when there
    /// is one.
    pub fn of_tensor(dtype: TensorType) -> Option<Dtype> {
        Some(match dtype {
            TensorType::FLOAT32 => Dtype::F32,
            TensorType::INT8 => Dtype::I8,
            TensorType::UINT8 => Dtype::U8,
            TensorType::INT16 => Dtype::I16,
            TensorType::INT32 => Dtype::I32,
            TensorType::INT64 => Dtype::I64,
            TensorType::BOOL => Dtype::Bool,
            _ => return None,
        })
    }

    fn of_type_str(ts: &npyz::TypeStr) -> Option<Dtype> {
        use npyz::TypeChar as C;
        Some(match (ts.type_char(), ts.size_field()) {
            (C::Float, 4) => Dtype::F32,
            (C::Float, 8) => Dtype::F64,
            (C::Int, 1) => Dtype::I8,
            (C::Uint, 1) => Dtype::U8,
            (C::Int, 2) => Dtype::I16,
            (C::Int, 4) => Dtype::I32,
            (C::Int, 8) => Dtype::I64,
            (C::Bool, 1) => Dtype::Bool,
            _ => return None,
        })
    }
}

/// An `.npy` array: element type, shape and the elements as little-endian bytes in C order.
#[derive(Debug, Clone, PartialEq)]
pub struct NpyArray {
    /// The element type.
    pub dtype: Dtype,
    /// The shape (empty for a 0-d array, which holds one element).
    pub shape: Vec<usize>,
    /// `shape.iter().product() × dtype.size()` bytes, little-endian, C order.
    pub data: Vec<u8>,
}

impl NpyArray {
    /// Number of elements the shape holds.
    pub fn len(&self) -> usize {
        self.shape.iter().product()
    }

    /// True when the shape holds no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The elements as `f32` values: float32 as stored, float64 rounded to float32. `None` for
    /// other dtypes.
    pub fn to_f32(&self) -> Option<Vec<f32>> {
        match self.dtype {
            Dtype::F32 => Some(le_values(&self.data, f32::from_le_bytes).collect()),
            Dtype::F64 => Some(
                le_values(&self.data, f64::from_le_bytes)
                    .map(|v| v as f32)
                    .collect(),
            ),
            _ => None,
        }
    }

    /// The `.npy` file bytes of the array (see [`write()`]).
    pub fn to_bytes(&self) -> std::io::Result<Vec<u8>> {
        let mut out = Vec::new();
        write(&mut out, self.dtype, &self.shape, &self.data)?;
        Ok(out)
    }
}

/// Writes `data` (little-endian elements of `dtype`, C order) as a version 1.0 `.npy` of
/// `shape`: little-endian, header padded to 64 bytes as numpy pads it. Fails when `data` does
/// not hold the shape's elements, or on an error of `w`.
pub fn write(w: impl Write, dtype: Dtype, shape: &[usize], data: &[u8]) -> std::io::Result<()> {
    if shape
        .iter()
        .try_fold(dtype.size(), |n, &d| n.checked_mul(d))
        != Some(data.len())
    {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!(
                "{} bytes do not hold the {} elements of shape {shape:?}",
                data.len(),
                dtype.name(),
            ),
        ));
    }
    // The header as npyz and numpy write it (a trailing comma after every dimension, padded with
    // spaces so the data starts at a multiple of 64 bytes), then the data in one write: the
    // elements are already little-endian (BOOL normalised to 0 / 1).
    let dims: String = shape.iter().map(|d| format!("{d}, ")).collect();
    let order = if dtype.size() == 1 { '|' } else { '<' };
    let mut header = format!(
        "{{'descr': '{order}{}', 'fortran_order': False, 'shape': ({dims}), }}",
        dtype.code()
    );
    let pad = (64 - (10 + header.len() + 1) % 64) % 64;
    header.extend(std::iter::repeat_n(' ', pad));
    header.push('\n');
    let len = u16::try_from(header.len()).map_err(|_| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("shape {shape:?} makes a header longer than 65535 bytes"),
        )
    })?;
    let mut w = std::io::BufWriter::new(w);
    w.write_all(b"\x93NUMPY\x01\x00")?;
    w.write_all(&len.to_le_bytes())?;
    w.write_all(header.as_bytes())?;
    if dtype == Dtype::Bool {
        let bytes: Vec<u8> = data.iter().map(|&b| u8::from(b != 0)).collect();
        w.write_all(&bytes)?;
    } else {
        w.write_all(data)?;
    }
    w.flush()
}

/// Little-endian element bytes → values (a trailing partial element is ignored).
fn le_values<'a, T: 'a, const N: usize>(
    bytes: &'a [u8],
    f: fn([u8; N]) -> T,
) -> impl Iterator<Item = T> + 'a {
    bytes
        .chunks_exact(N)
        .map(move |c| f(c.try_into().unwrap_or([0; N])))
}

/// Values → little-endian element bytes.
fn le_bytes<T: Copy, const N: usize>(values: &[T], f: fn(T) -> [u8; N]) -> Vec<u8> {
    values.iter().flat_map(|&v| f(v)).collect()
}

/// An `.npy` file whose header has been read: the shape and dtype are known, the data not yet
/// read. Fortran-order arrays are refused here.
pub struct NpyReader<R: Read> {
    name: String,
    file: npyz::NpyFile<R>,
    shape: Vec<usize>,
}

impl<R: Read> NpyReader<R> {
    /// Reads the header from `reader`; `name` (e.g. the file) names the array in errors
    /// ([`Error::Npy`]).
    pub fn new(name: &str, reader: R) -> Result<Self> {
        let err = |reason: String| Error::Npy {
            path: name.to_string(),
            reason,
        };
        let file = npyz::NpyFile::new(reader).map_err(|e| err(e.to_string()))?;
        if file.order() != npyz::Order::C {
            return Err(err("Fortran-order arrays are not supported".into()));
        }
        let shape = file
            .shape()
            .iter()
            .map(|&d| usize::try_from(d).map_err(|_| err("dimension too large".into())))
            .collect::<Result<_>>()?;
        Ok(NpyReader {
            name: name.to_string(),
            file,
            shape,
        })
    }

    /// The shape written in the header.
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// The element type, `None` for one not listed in [`Dtype`].
    pub fn dtype(&self) -> Option<Dtype> {
        match self.file.dtype() {
            npyz::DType::Plain(ts) => Dtype::of_type_str(&ts),
            _ => None,
        }
    }

    /// The dtype as the header writes it (`<f4`, `|i1`, `>f8`, …), for messages.
    pub fn descr(&self) -> String {
        match self.file.dtype() {
            npyz::DType::Plain(ts) => ts.to_string(),
            other => format!("{other:?}"),
        }
    }

    /// Reads the data (any byte order) as little-endian element bytes.
    pub fn read(self) -> Result<NpyArray> {
        let err = |reason: String| Error::Npy {
            path: self.name.clone(),
            reason,
        };
        let Some(dtype) = self.dtype() else {
            return Err(err(format!("unsupported dtype {}", self.descr())));
        };
        let e = |e: std::io::Error| err(e.to_string());
        let f = self.file;
        let data = match dtype {
            Dtype::F32 => le_bytes(&f.into_vec::<f32>().map_err(e)?, f32::to_le_bytes),
            Dtype::F64 => le_bytes(&f.into_vec::<f64>().map_err(e)?, f64::to_le_bytes),
            Dtype::I8 => le_bytes(&f.into_vec::<i8>().map_err(e)?, i8::to_le_bytes),
            Dtype::U8 => f.into_vec::<u8>().map_err(e)?,
            Dtype::I16 => le_bytes(&f.into_vec::<i16>().map_err(e)?, i16::to_le_bytes),
            Dtype::I32 => le_bytes(&f.into_vec::<i32>().map_err(e)?, i32::to_le_bytes),
            Dtype::I64 => le_bytes(&f.into_vec::<i64>().map_err(e)?, i64::to_le_bytes),
            Dtype::Bool => f
                .into_vec::<bool>()
                .map_err(e)?
                .into_iter()
                .map(u8::from)
                .collect(),
        };
        let array = NpyArray {
            dtype,
            shape: self.shape,
            data,
        };
        // npyz checks the element count too; kept as a guard for the invariant of NpyArray
        // (checked arithmetic: the shape comes from the file).
        let want = array
            .shape
            .iter()
            .try_fold(dtype.size(), |n, &d| n.checked_mul(d));
        if want != Some(array.data.len()) {
            return Err(err(format!(
                "{} elements for shape {:?}",
                array.data.len() / dtype.size(),
                array.shape
            )));
        }
        Ok(array)
    }
}

/// Reads a whole `.npy` array (C order, a [`Dtype`]); `name` names it in errors.
pub fn read(name: &str, reader: impl Read) -> Result<NpyArray> {
    NpyReader::new(name, reader)?.read()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Where the fixtures live: `.npy` files this writer produced, read by the page's TypeScript
    /// reader in `www/src/calibration/npy.test.ts`.
    fn fixture_dir() -> std::path::PathBuf {
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/npy")
    }

    fn array<T: Copy, const N: usize>(
        dtype: Dtype,
        shape: &[usize],
        values: &[T],
        f: fn(T) -> [u8; N],
    ) -> NpyArray {
        NpyArray {
            dtype,
            shape: shape.to_vec(),
            data: le_bytes(values, f),
        }
    }

    /// The fixtures: every dtype, edge values, a 0-d and an empty array. The TypeScript test
    /// checks the same values; change both together.
    fn fixtures() -> Vec<(&'static str, NpyArray)> {
        vec![
            (
                "f32.npy",
                array(
                    Dtype::F32,
                    &[2, 4],
                    &[
                        1.5,
                        -2.0,
                        0.0,
                        -0.0,
                        f32::MAX,
                        1e-45,
                        f32::INFINITY,
                        f32::NAN,
                    ],
                    f32::to_le_bytes,
                ),
            ),
            (
                "f64.npy",
                array(Dtype::F64, &[3], &[0.1, -1e300, 2.5], f64::to_le_bytes),
            ),
            (
                "i8.npy",
                array(Dtype::I8, &[4], &[-128i8, -1, 0, 127], i8::to_le_bytes),
            ),
            (
                "u8.npy",
                array(Dtype::U8, &[2, 2], &[0u8, 1, 128, 255], u8::to_le_bytes),
            ),
            (
                "i16.npy",
                array(Dtype::I16, &[3], &[i16::MIN, 0, i16::MAX], i16::to_le_bytes),
            ),
            (
                "i32.npy",
                array(
                    Dtype::I32,
                    &[1, 2, 2],
                    &[i32::MIN, -1, 0, i32::MAX],
                    i32::to_le_bytes,
                ),
            ),
            (
                "i64.npy",
                array(
                    Dtype::I64,
                    &[3],
                    &[-(1i64 << 40), 0, 123_456_789],
                    i64::to_le_bytes,
                ),
            ),
            (
                "bool.npy",
                array(Dtype::Bool, &[2, 2], &[1u8, 0, 0, 1], u8::to_le_bytes),
            ),
            (
                "f32_scalar.npy",
                array(Dtype::F32, &[], &[7.25f32], f32::to_le_bytes),
            ),
            (
                "f32_empty.npy",
                array(Dtype::F32, &[0, 3], &[] as &[f32], f32::to_le_bytes),
            ),
        ]
    }

    /// The writer's bytes are the committed fixtures (which the TypeScript reader is tested on).
    /// `ZEROPOINT_UPDATE_NPY_FIXTURES=1` rewrites them after a deliberate change.
    #[test]
    fn writer_output_is_the_committed_fixtures() {
        let dir = fixture_dir();
        let update = std::env::var_os("ZEROPOINT_UPDATE_NPY_FIXTURES").is_some();
        for (file, a) in fixtures() {
            let bytes = a.to_bytes().expect("writes");
            let path = dir.join(file);
            if update {
                std::fs::create_dir_all(&dir).expect("fixture dir");
                std::fs::write(&path, &bytes).expect("write fixture");
            }
            let committed =
                std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            assert!(
                committed == bytes,
                "{file}: the writer's output differs from the committed fixture \
                 (ZEROPOINT_UPDATE_NPY_FIXTURES=1 rewrites it; check the TypeScript reader then)"
            );
            assert_eq!(
                read(file, bytes.as_slice()).expect("reads back"),
                a,
                "{file}"
            );
        }
    }

    #[test]
    fn header_is_numpys_version_1() {
        // numpy reads what npyz writes: a trailing comma after every dimension, and the
        // header padded so the data starts at a multiple of 64 bytes.
        let a = array(Dtype::F32, &[2, 3], &[0f32; 6], f32::to_le_bytes);
        let bytes = a.to_bytes().expect("writes");
        assert_eq!(&bytes[..8], b"\x93NUMPY\x01\x00");
        let len = usize::from(u16::from_le_bytes([bytes[8], bytes[9]]));
        assert_eq!((10 + len) % 64, 0, "header padded to 64 bytes");
        let header = std::str::from_utf8(&bytes[10..10 + len]).expect("ascii");
        assert!(
            header.starts_with("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3, ), }"),
            "{header}"
        );
        assert!(header.ends_with('\n'));
        assert_eq!(bytes.len(), 10 + len + 24);
        let one_d = array(Dtype::I8, &[5], &[0i8; 5], i8::to_le_bytes);
        let text = String::from_utf8_lossy(&one_d.to_bytes().expect("writes")).into_owned();
        assert!(
            text.contains("'descr': '|i1'") && text.contains("'shape': (5, )"),
            "{text}"
        );
    }

    #[test]
    fn every_dtype_round_trips_and_converts_to_f32() {
        for d in Dtype::ALL {
            let a = NpyArray {
                dtype: d,
                shape: vec![2, 1],
                data: (0..2 * d.size()).map(|i| (i % 2) as u8).collect(),
            };
            let back = read("x.npy", a.to_bytes().expect("writes").as_slice()).expect("reads");
            assert_eq!(back, a, "{}", d.name());
            let r = NpyReader::new("x.npy", std::io::Cursor::new(a.to_bytes().expect("writes")))
                .expect("header");
            assert_eq!(r.dtype(), Some(d));
            assert_eq!(r.descr().get(1..), Some(d.code()));
            assert_eq!(r.shape(), &[2, 1]);
        }
        let f64s = array(Dtype::F64, &[2], &[0.1f64, -3.0], f64::to_le_bytes);
        assert_eq!(f64s.to_f32(), Some(vec![0.1f32, -3.0]));
        assert_eq!(
            array(Dtype::I8, &[1], &[1i8], i8::to_le_bytes).to_f32(),
            None
        );
    }

    /// Writes a version-1 `.npy` by hand: any descr, any header text, raw data.
    fn raw(descr: &str, fortran: bool, shape: &str, data: &[u8]) -> Vec<u8> {
        let mut header = format!(
            "{{'descr': '{descr}', 'fortran_order': {}, 'shape': {shape}, }}",
            if fortran { "True" } else { "False" }
        );
        while (10 + header.len() + 1) % 64 != 0 {
            header.push(' ');
        }
        header.push('\n');
        let mut out = b"\x93NUMPY\x01\x00".to_vec();
        out.extend_from_slice(&u16::try_from(header.len()).expect("short").to_le_bytes());
        out.extend_from_slice(header.as_bytes());
        out.extend_from_slice(data);
        out
    }

    #[test]
    fn big_endian_is_read_as_little_endian() {
        let be = raw(">i4", false, "(2,)", &[0, 0, 1, 2, 0xff, 0xff, 0xff, 0xfe]);
        let a = read("be.npy", be.as_slice()).expect("reads");
        assert_eq!(a.dtype, Dtype::I32);
        assert_eq!(a.data, le_bytes(&[0x0102i32, -2], i32::to_le_bytes));
    }

    #[test]
    fn bad_files_name_the_file_and_the_problem() {
        let msg = |bytes: &[u8]| read("bad.npy", bytes).expect_err("refused").to_string();
        assert!(msg(b"junk").starts_with("bad.npy: "), "{}", msg(b"junk"));
        assert_eq!(
            msg(&raw("<f4", true, "(2, 2)", &[0; 16])),
            "bad.npy: Fortran-order arrays are not supported"
        );
        assert_eq!(
            msg(&raw("<u2", false, "(2,)", &[0; 4])),
            "bad.npy: unsupported dtype <u2"
        );
        let truncated = msg(&raw("<f4", false, "(4,)", &[0; 8]));
        assert!(truncated.starts_with("bad.npy: "), "{truncated}");
        let r = NpyReader::new(
            "u.npy",
            std::io::Cursor::new(raw(">u2", false, "(1,)", &[0; 2])),
        )
        .expect("header");
        assert_eq!((r.dtype(), r.descr().as_str()), (None, ">u2"));
        let short = NpyArray {
            dtype: Dtype::I16,
            shape: vec![2],
            data: vec![0; 3],
        };
        assert!(short.to_bytes().is_err());
    }
}
