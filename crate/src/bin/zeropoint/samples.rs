//! `.npy` files in and out of the engine: one array per model input (first axis = samples),
//! checked against the input's type and shape, and tensors written back as `.npy`. The format
//! itself is `zeropoint::npy`.

use std::path::{Path, PathBuf};

use zeropoint::engine::TensorDesc;
use zeropoint::graph::TensorType;
use zeropoint::graph::dtype::dtype_name;
use zeropoint::npy::{Dtype, NpyArray, NpyReader};
use zeropoint::quant::inputs::check_sample_shape;
use zeropoint::{Error, Result};

/// An [`Error::Npy`] naming `path`.
pub fn npy_err(path: &Path, reason: impl std::fmt::Display) -> Error {
    Error::Npy {
        path: path.display().to_string(),
        reason: reason.to_string(),
    }
}

/// Reads `path` as an array of the input's type; a different element type is a
/// [`Error::TensorMismatch`] naming the model input.
fn read_npy(path: &Path, which: usize, input: &TensorDesc) -> Result<NpyArray> {
    let file = std::fs::File::open(path).map_err(|source| Error::Io {
        path: path.display().to_string(),
        source,
    })?;
    let npy = NpyReader::new(&path.display().to_string(), std::io::BufReader::new(file))?;
    let want = Dtype::of_tensor(input.dtype);
    if want.is_none() || npy.dtype() != want {
        return Err(Error::TensorMismatch {
            what: format!("input {which} ({})", path.display()),
            tensor: input.name.clone(),
            expected: format!(
                "{} elements ({})",
                dtype_name(input.dtype),
                want.map_or("?", Dtype::code)
            ),
            got: format!("numpy dtype {}", npy.descr()),
        });
    }
    npy.read()
}

/// Writes little-endian element bytes of `dtype` as a .npy array of `shape`.
pub fn write_npy(path: &Path, dtype: TensorType, shape: &[usize], bytes: &[u8]) -> Result<()> {
    let Some(npy_dtype) = Dtype::of_tensor(dtype) else {
        return Err(npy_err(
            path,
            format!("cannot write {} outputs", dtype_name(dtype)),
        ));
    };
    let file = std::fs::File::create(path).map_err(|source| Error::Io {
        path: path.display().to_string(),
        source,
    })?;
    zeropoint::npy::write(std::io::BufWriter::new(file), npy_dtype, shape, bytes)
        .map_err(|e| npy_err(path, e))
}

/// Reads one .npy per model input (first axis = samples, or rows of the input's batch: see
/// [`check_sample_shape`]) and checks they agree on the number of samples. Returns the arrays and
/// the number of invocations.
pub fn read_samples(inputs: &[PathBuf], descs: &[TensorDesc]) -> Result<(Vec<NpyArray>, usize)> {
    if inputs.len() != descs.len() {
        return Err(Error::InputCount {
            given: inputs.len(),
            expected: descs.len(),
        });
    }
    let mut arrays = Vec::with_capacity(inputs.len());
    let mut samples = None;
    for (i, (path, d)) in inputs.iter().zip(descs).enumerate() {
        let a = read_npy(path, i, d)?;
        let n = check_sample_shape(&path.display().to_string(), i, d, &a.shape)?;
        if *samples.get_or_insert(n) != n {
            return Err(npy_err(
                path,
                format!("{n} samples, but input 0 has {}", samples.unwrap_or(0)),
            ));
        }
        arrays.push(a);
    }
    Ok((arrays, samples.unwrap_or(0)))
}

/// Class labels, one per sample (`--labels`): an integer `.npy` (int8 … int64, uint8) of shape
/// `[N]` or `[N, 1]`, each label ≥ 0.
pub fn read_labels(path: &Path) -> Result<Vec<usize>> {
    let file = std::fs::File::open(path).map_err(|source| Error::Io {
        path: path.display().to_string(),
        source,
    })?;
    let arr = NpyReader::new(&path.display().to_string(), std::io::BufReader::new(file))?.read()?;
    if !(arr.shape.len() == 1 || (arr.shape.len() == 2 && arr.shape[1] == 1)) {
        return Err(npy_err(
            path,
            format!(
                "labels have shape {:?}: one class per sample, [N] or [N, 1]",
                arr.shape
            ),
        ));
    }
    let size = arr.dtype.size();
    let value = |b: &[u8]| -> Option<i64> {
        Some(match arr.dtype {
            Dtype::I8 => i64::from(b[0] as i8),
            Dtype::U8 => i64::from(b[0]),
            Dtype::I16 => i64::from(i16::from_le_bytes([b[0], b[1]])),
            Dtype::I32 => i64::from(i32::from_le_bytes(b.try_into().ok()?)),
            Dtype::I64 => i64::from_le_bytes(b.try_into().ok()?),
            _ => return None,
        })
    };
    arr.data
        .chunks_exact(size)
        .enumerate()
        .map(|(k, b)| match value(b) {
            Some(v) if v >= 0 => usize::try_from(v).map_err(|_| npy_err(path, "label too large")),
            Some(v) => Err(npy_err(
                path,
                format!("label {k} is {v}: classes count from 0"),
            )),
            None => Err(npy_err(
                path,
                format!("labels are {}: an integer type", arr.dtype.name()),
            )),
        })
        .collect()
}
