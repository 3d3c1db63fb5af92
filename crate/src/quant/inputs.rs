//! Calibration data sources: seeded random data (always available), `.npy` arrays and PNG/JPEG
//! images (feature `data`, on in the CLI).
//!
//! Every source produces, per sample, one `Vec<f32>`/`&[f32]` per model input with exactly the
//! input's element count, ready for [`crate::quant::calibrate::Calibrator::set_input`]. Sources
//! take bytes, not paths: reading files is the caller's business (the CLI, or the page's file
//! picker), so the same code runs in the browser.

use crate::engine::TensorDesc;
#[cfg(feature = "data")]
use crate::engine::shape_text;
use crate::error::{Error, Result};

/// Checks a user-given value range: both ends finite and `lo < hi`.
pub fn check_range(lo: f32, hi: f32) -> Result<()> {
    if lo.is_finite() && hi.is_finite() && lo < hi {
        Ok(())
    } else {
        Err(Error::Calibration {
            reason: format!("range [{lo}, {hi}] must be finite with low < high"),
        })
    }
}

/// A seeded generator of values uniform in `[lo, hi)` (fastrand's wyrand: the same seed gives
/// the same values on every platform, native and wasm).
#[derive(Debug, Clone)]
pub struct RandomSource {
    rng: fastrand::Rng,
    lo: f32,
    hi: f32,
}

impl RandomSource {
    /// A generator for `[lo, hi)` seeded with `seed`; the range is checked with [`check_range`].
    pub fn new(lo: f32, hi: f32, seed: u64) -> Result<Self> {
        check_range(lo, hi)?;
        Ok(Self::unchecked(lo, hi, seed))
    }

    fn unchecked(lo: f32, hi: f32, seed: u64) -> Self {
        RandomSource {
            rng: fastrand::Rng::with_seed(seed),
            lo,
            hi,
        }
    }

    /// One value in `[lo, hi)` (`lo` when `hi ≤ lo`).
    pub fn next_value(&mut self) -> f32 {
        let u = self.rng.f32();
        let v = self.lo + (self.hi - self.lo) * u;
        // Rounding can land on `hi` itself; keep the interval half-open.
        if v >= self.hi {
            self.lo.max(self.hi.next_down())
        } else {
            v.max(self.lo)
        }
    }

    /// Fills `out` with the next values.
    pub fn fill(&mut self, out: &mut [f32]) {
        for v in out {
            *v = self.next_value();
        }
    }
}

/// `n` values uniform in `[lo, hi)` from a generator seeded with `seed`. An empty or inverted
/// range gives `lo` everywhere; non-finite ends give non-finite values, which the calibrator
/// then refuses (use [`RandomSource::new`] to check the range first).
pub fn random_data(n: usize, lo: f32, hi: f32, seed: u64) -> Vec<f32> {
    let mut src = RandomSource::unchecked(lo, hi, seed);
    let mut out = vec![0.0; n];
    src.fill(&mut out);
    out
}

/// Checks that an array of shape `shape` holds samples of `input`: the first axis counts
/// samples and each sample has the input's shape; or the array has no samples axis and its
/// first axis counts rows of the input's batch (`[k·B, …]` for an input `[B, …]`, so a batch-1
/// input also takes samples without their batch dimension, and an input resized to batch `B`
/// runs `k` invocations of `B` consecutive rows). Returns the number of invocations.
pub fn check_sample_shape(
    what: &str,
    index: usize,
    input: &TensorDesc,
    shape: &[usize],
) -> Result<usize> {
    let per_sample = shape.get(1..).unwrap_or(&[]);
    let batch = input.shape.first().copied().unwrap_or(0);
    let rows = batch > 0
        && per_sample == &input.shape[1..]
        && shape.first().is_some_and(|&n| n % batch == 0);
    let without_batch = rows && per_sample != input.shape.as_slice();
    if shape.is_empty() || (per_sample != input.shape.as_slice() && !without_batch) {
        let fmt = |s: &[usize]| {
            if s.is_empty() {
                "scalar".to_string()
            } else {
                s.iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join("×")
            }
        };
        return Err(Error::TensorMismatch {
            what: format!("input {index} ({what})"),
            tensor: input.name.clone(),
            expected: format!("samples × {} (first axis = samples)", fmt(&input.shape)),
            got: format!("shape {}", fmt(shape)),
        });
    }
    Ok(if without_batch {
        shape[0] / batch
    } else {
        shape[0]
    })
}

/// The samples of one model input read from a `.npy` array (float32, or float64 converted; int32
/// for an INT32 input).
#[cfg(feature = "data")]
#[derive(Debug, Clone, PartialEq)]
pub struct NpySamples {
    samples: usize,
    per_sample: usize,
    data: Vec<f32>,
}

#[cfg(feature = "data")]
impl NpySamples {
    /// Reads `.npy` bytes (`name` is used in messages, e.g. the file) as the samples of model
    /// input `index`: C order, float32 or float64, first axis = samples, each sample the input's
    /// shape (see [`check_sample_shape`]).
    pub fn from_bytes(name: &str, bytes: &[u8], index: usize, input: &TensorDesc) -> Result<Self> {
        use crate::npy::{Dtype, NpyReader};
        let npy = NpyReader::new(name, bytes)?;
        let shape = npy.shape().to_vec();
        let samples = check_sample_shape(name, index, input, &shape)?;
        // An INT32 input (token ids) also takes an int32 array, converted exactly to f32 when
        // below 2^24 in magnitude (the calibrator converts back and refuses anything else).
        let int32 = input.dtype == crate::graph::TensorType::INT32;
        let data = match npy.dtype() {
            Some(Dtype::F32 | Dtype::F64) => npy.read()?.to_f32().unwrap_or_default(),
            Some(Dtype::I32) if int32 => {
                let raw = npy.read()?;
                let ints: Vec<i32> = raw
                    .data
                    .chunks_exact(4)
                    .map(|b| i32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                    .collect();
                if let Some(v) = ints.iter().find(|v| v.unsigned_abs() > 1 << 24) {
                    return Err(Error::TensorMismatch {
                        what: format!("input {index} ({name})"),
                        tensor: input.name.clone(),
                        expected: "int32 values within ±2^24".into(),
                        got: format!("{v}"),
                    });
                }
                ints.iter().map(|&v| v as f32).collect()
            }
            _ => {
                return Err(Error::TensorMismatch {
                    what: format!("input {index} ({name})"),
                    tensor: input.name.clone(),
                    expected: if int32 {
                        "int32, float32 or float64 values".into()
                    } else {
                        "float32 (or float64) values".into()
                    },
                    got: format!("numpy dtype {}", npy.descr()),
                });
            }
        };
        let per_sample = input.num_elements();
        if data.len() != samples * per_sample {
            return Err(Error::Npy {
                path: name.to_string(),
                reason: format!("{} values for shape {}", data.len(), shape_text(&shape)),
            });
        }
        Ok(NpySamples {
            samples,
            per_sample,
            data,
        })
    }

    /// Number of samples (the first axis).
    pub fn samples(&self) -> usize {
        self.samples
    }

    /// Sample `i` (panics if `i >= samples()`).
    pub fn sample(&self, i: usize) -> &[f32] {
        &self.data[i * self.per_sample..(i + 1) * self.per_sample]
    }
}

/// How image pixels (0..=255 per channel) become model input values.
#[derive(Debug, Clone, PartialEq)]
pub enum Normalization {
    /// `(pixel − mean[c]) / std[c]`; one value for all channels, or one per channel.
    MeanStd {
        /// Means, in pixel units.
        mean: Vec<f32>,
        /// Standard deviations, in pixel units (non-zero).
        std: Vec<f32>,
    },
    /// `lo + pixel / 255 · (hi − lo)`.
    Range {
        /// Value of a 0 pixel.
        lo: f32,
        /// Value of a 255 pixel.
        hi: f32,
    },
}

#[cfg(feature = "data")]
impl Normalization {
    fn check(&self, channels: usize) -> Result<()> {
        match self {
            Normalization::MeanStd { mean, std } => {
                for (what, v) in [("mean", mean), ("std", std)] {
                    if v.len() != 1 && v.len() != channels {
                        return Err(Error::Calibration {
                            reason: format!(
                                "{what} has {} values: expected 1 or {channels} (one per channel)",
                                v.len()
                            ),
                        });
                    }
                }
                if mean.iter().chain(std).any(|v| !v.is_finite()) || std.contains(&0.0) {
                    return Err(Error::Calibration {
                        reason: "mean and std must be finite and std non-zero".into(),
                    });
                }
                Ok(())
            }
            Normalization::Range { lo, hi } => check_range(*lo, *hi),
        }
    }

    fn apply(&self, pixel: u8, c: usize) -> f32 {
        let p = f32::from(pixel);
        match self {
            Normalization::MeanStd { mean, std } => {
                let pick = |v: &[f32]| v.get(c).or(v.first()).copied().unwrap_or(0.0);
                (p - pick(mean)) / pick(std)
            }
            Normalization::Range { lo, hi } => lo + p / 255.0 * (hi - lo),
        }
    }
}

/// Height, width and channels of an image input: `[1, H, W, C]` or `[H, W, C]` with C = 1
/// (grey), 3 (RGB) or 4 (RGBA).
pub fn image_layout(input: &TensorDesc) -> Result<(usize, usize, usize)> {
    let s = input.shape.as_slice();
    let hwc = match s {
        [1, h, w, c] | [h, w, c] => (*h, *w, *c),
        _ => (0, 0, 0),
    };
    if hwc.0 == 0 || hwc.1 == 0 || !matches!(hwc.2, 1 | 3 | 4) {
        return Err(Error::TensorMismatch {
            what: "image input".into(),
            tensor: input.name.clone(),
            expected: "shape 1×H×W×C or H×W×C with C = 1, 3 or 4".into(),
            got: format!("shape {:?}", input.shape),
        });
    }
    Ok(hwc)
}

/// Decodes a PNG or JPEG image, resizes it to the input's H×W (bilinear, aspect ratio not
/// kept), converts it to the input's channels (grey, RGB or RGBA) and normalises it: one sample
/// of `input`, in NHWC order.
#[cfg(feature = "data")]
pub fn image_sample(
    name: &str,
    bytes: &[u8],
    input: &TensorDesc,
    norm: &Normalization,
) -> Result<Vec<f32>> {
    let (h, w, c) = image_layout(input)?;
    norm.check(c)?;
    let img = image::load_from_memory(bytes).map_err(|e| Error::Calibration {
        reason: format!("{name}: cannot decode the image: {e}"),
    })?;
    let too_big = || Error::Calibration {
        reason: format!("{name}: the input size {h}×{w} is too large for an image"),
    };
    let (h32, w32) = (
        u32::try_from(h).map_err(|_| too_big())?,
        u32::try_from(w).map_err(|_| too_big())?,
    );
    let img = img.resize_exact(w32, h32, image::imageops::FilterType::Triangle);
    let pixels: Vec<u8> = match c {
        1 => img.to_luma8().into_raw(),
        3 => img.to_rgb8().into_raw(),
        _ => img.to_rgba8().into_raw(),
    };
    Ok(pixels
        .iter()
        .enumerate()
        .map(|(i, &p)| norm.apply(p, i % c))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::TensorId;
    use crate::graph::TensorType;

    fn desc(shape: &[usize]) -> TensorDesc {
        TensorDesc {
            id: TensorId(0),
            name: "img".into(),
            shape: shape.to_vec(),
            dtype: TensorType::FLOAT32,
        }
    }

    #[test]
    fn random_data_is_seeded_and_in_range() {
        let a = random_data(1000, -2.0, 3.0, 42);
        assert_eq!(a, random_data(1000, -2.0, 3.0, 42));
        assert_ne!(a, random_data(1000, -2.0, 3.0, 43));
        assert!(a.iter().all(|&v| (-2.0..3.0).contains(&v)));
        let mean = a.iter().map(|&v| f64::from(v)).sum::<f64>() / 1000.0;
        assert!((mean - 0.5).abs() < 0.2, "{mean}");
        assert!(random_data(4, 1.0, 1.0, 0).iter().all(|&v| v == 1.0));
        assert!(RandomSource::new(1.0, 0.0, 0).is_err());
        assert!(RandomSource::new(0.0, f32::INFINITY, 0).is_err());
    }

    #[test]
    fn sample_shape_with_or_without_batch() {
        let d = desc(&[1, 2, 3]);
        assert_eq!(
            check_sample_shape("f", 0, &d, &[5, 1, 2, 3]).expect("ok"),
            5
        );
        assert_eq!(check_sample_shape("f", 0, &d, &[5, 2, 3]).expect("ok"), 5);
        let e = check_sample_shape("f.npy", 1, &d, &[5, 3, 2])
            .expect_err("shape")
            .to_string();
        assert_eq!(
            e,
            "input 1 (f.npy) 'img': expected samples × 1×2×3 (first axis = samples), got shape 5×3×2"
        );
        // An input resized to batch 3: 6 rows are 2 invocations; 4 rows do not divide.
        let d3 = desc(&[3, 2, 3]);
        assert_eq!(check_sample_shape("f", 0, &d3, &[6, 2, 3]).expect("ok"), 2);
        assert_eq!(
            check_sample_shape("f", 0, &d3, &[2, 3, 2, 3]).expect("ok"),
            2
        );
        assert!(check_sample_shape("f", 0, &d3, &[4, 2, 3]).is_err());
    }

    #[test]
    fn image_layouts() {
        assert_eq!(image_layout(&desc(&[1, 8, 6, 3])).expect("nhwc"), (8, 6, 3));
        assert_eq!(image_layout(&desc(&[8, 6, 1])).expect("hwc"), (8, 6, 1));
        assert!(image_layout(&desc(&[1, 8, 6, 2])).is_err());
        assert!(image_layout(&desc(&[2, 8, 6, 3])).is_err());
    }

    #[cfg(feature = "data")]
    #[test]
    fn normalisation_rules() {
        let ms = Normalization::MeanStd {
            mean: vec![127.5],
            std: vec![127.5],
        };
        assert_eq!(ms.apply(0, 2), -1.0);
        assert_eq!(ms.apply(255, 0), 1.0);
        let r = Normalization::Range { lo: 0.0, hi: 1.0 };
        assert_eq!(r.apply(255, 0), 1.0);
        assert!(
            Normalization::MeanStd {
                mean: vec![1.0, 2.0],
                std: vec![1.0]
            }
            .check(3)
            .is_err()
        );
        assert!(
            Normalization::MeanStd {
                mean: vec![0.0],
                std: vec![0.0]
            }
            .check(3)
            .is_err()
        );
    }

    #[cfg(feature = "data")]
    #[test]
    fn png_and_jpeg_are_decoded_resized_and_normalised() {
        use image::{ImageFormat, Rgb, RgbImage};
        let img = RgbImage::from_fn(16, 8, |x, _| {
            if x < 8 {
                Rgb([255, 0, 0])
            } else {
                Rgb([0, 0, 255])
            }
        });
        let d = desc(&[1, 4, 8, 3]);
        let norm = Normalization::Range { lo: -1.0, hi: 1.0 };
        for fmt in [ImageFormat::Png, ImageFormat::Jpeg] {
            let mut bytes = std::io::Cursor::new(Vec::new());
            img.write_to(&mut bytes, fmt).expect("encodes");
            let v = image_sample("t", bytes.get_ref(), &d, &norm).expect("decodes");
            assert_eq!(v.len(), 4 * 8 * 3);
            // Top-left pixel: red.
            assert!(v[0] > 0.9 && v[2] < -0.9, "{fmt:?}: {:?}", &v[..3]);
            // Top-right pixel: blue.
            let last = (8 - 1) * 3;
            assert!(v[last] < -0.9 && v[last + 2] > 0.9, "{fmt:?}");
        }
        let e = image_sample("bad.png", b"not an image", &d, &norm)
            .expect_err("garbage")
            .to_string();
        assert!(
            e.starts_with("calibration: bad.png: cannot decode the image"),
            "{e}"
        );
    }

    #[cfg(feature = "data")]
    #[test]
    fn npy_samples_checked_and_sliced() {
        let d = desc(&[1, 2]);
        let bytes = crate::npy::NpyArray {
            dtype: crate::npy::Dtype::F32,
            shape: vec![3, 1, 2],
            data: [1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0]
                .iter()
                .flat_map(|v| v.to_le_bytes())
                .collect(),
        }
        .to_bytes()
        .expect("writes");
        let s = NpySamples::from_bytes("a.npy", &bytes, 0, &d).expect("reads");
        assert_eq!(s.samples(), 3);
        assert_eq!(s.sample(2), &[5.0, 6.0]);
        let e = NpySamples::from_bytes("a.npy", &bytes, 0, &desc(&[1, 3]))
            .expect_err("shape")
            .to_string();
        assert!(e.contains("expected samples × 1×3"), "{e}");
        assert!(NpySamples::from_bytes("a.npy", b"junk", 0, &d).is_err());
    }
}
