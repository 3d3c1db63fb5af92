//! Helpers shared by the golden and cross-tool tests: where the goldens are, walking them, reading
//! their `.npy` arrays, comparing with a tolerance, and reporting per operator.
//!
//! The goldens (`tests/golden/<case>/`) are written by `tests/tools/make_goldens.py`: each case
//! has a `case.toml` naming its variants (float, dynamic, int8, int8_floatio, 16x8, fp16,
//! calibrated), each variant a `.tflite` made by TF's converter, its inputs, the outputs of
//! LiteRT's reference kernels (the target), the outputs of LiteRT's optimized kernels and of its
//! default XNNPACK path (for comparison), and for integer variants every intermediate tensor of
//! the first input. Arrays: first axis = samples; element `i` has exactly the model tensor's shape.
//!
//! A test layer (read/rewrite, float engine, integer engine, quantizer) walks [`cases()`], checks
//! each variant with [`compare`] and the variant's [`Tolerance`], hands the result to a
//! [`StageReport`] (which honours [`ExpectedFailure`]s: a listed failure is reported, an expected
//! failure that passes fails the test so the entry gets removed) and records per operator in an
//! [`OpSummary`].

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use zeropoint::graph::summary::ModelSummary;
use zeropoint::tflite::schema::{self, ModelT, OperatorCodeT};
use zeropoint::tflite::{self as tfl, WriteOptions};

/// The repository root (parent of this crate's folder).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default()
}

/// The folder holding one sub-folder per golden case.
pub fn golden_dir() -> PathBuf {
    repo_root().join("tests/golden")
}

/// Every `.tflite` the repository ships: the goldens under `tests/golden/` and the page's bundled
/// example under `www/assets/`, sorted for stable output.
pub fn shipped_models() -> Vec<PathBuf> {
    let root = repo_root();
    let mut out = Vec::new();
    for dir in [root.join("tests/golden"), root.join("www/assets")] {
        collect(&dir, &mut out);
    }
    out.sort();
    out
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            collect(&p, out);
        } else if p.extension().is_some_and(|x| x == "tflite") {
            out.push(p);
        }
    }
}

// ------------------------------------------------------------------------------------------------
// Cases
// ------------------------------------------------------------------------------------------------

/// One golden case: a whole model (`kind = "model"`) or one operator in isolation (`"op"`).
#[derive(Debug, Clone, PartialEq)]
pub struct Case {
    /// Folder name, e.g. `example_cnn` or `op_conv2d_same_relu`.
    pub name: String,
    /// The case folder.
    pub dir: PathBuf,
    /// What the model is and what it covers.
    pub description: String,
    /// Every builtin operator appearing in any variant, in order of first use.
    pub ops: Vec<String>,
    /// The converter outputs that exist for this case (see [`Case::unavailable`] for the others).
    pub variants: Vec<Variant>,
    /// For single-operator cases: the operator the case isolates.
    pub op: Option<String>,
    /// Calibration samples (float32), one `.npy` per model input in subgraph input order: what
    /// TF's converter was given as representative dataset.
    pub calibration: Vec<PathBuf>,
    /// Number of test samples (first axis of every input / expected array).
    pub num_samples: usize,
    /// Variants not produced, with the reason (converter refused, nothing to quantize, ...).
    pub unavailable: Vec<(String, String)>,
}

/// One converter output of a case, with its inputs and LiteRT's outputs.
#[derive(Debug, Clone, PartialEq)]
pub struct Variant {
    /// `"float"`, `"dynamic"`, `"int8"`, `"int8_floatio"`, `"16x8"`, `"fp16"` or `"calibrated"`.
    pub name: String,
    /// The `.tflite` file.
    pub model: PathBuf,
    /// One `.npy` per model input, in subgraph input order, dtype as the model takes it.
    pub inputs: Vec<PathBuf>,
    /// One `.npy` per model output: LiteRT `BUILTIN_REF` (reference kernels), the target.
    pub expected: Vec<PathBuf>,
    /// What "matches" means for this variant.
    pub tolerance: Tolerance,
    /// A known gap tracked by a later issue, if any.
    pub expected_failure: Option<ExpectedFailure>,
    /// The tolerance's name in `case.toml` (`int8_tolerance`, ...).
    pub tolerance_name: String,
    /// Why the tolerance is what it is (one line).
    pub tolerance_reason: String,
    /// Builtin operators of this model, in order of first use.
    pub ops: Vec<String>,
    /// One `.npy` per output from LiteRT's optimized builtin kernels
    /// (`BUILTIN_WITHOUT_DEFAULT_DELEGATES`), for comparison only.
    pub expected_optimized: Vec<PathBuf>,
    /// One `.npy` per output from LiteRT's default path (`AUTO`: XNNPACK delegate), for comparison.
    pub expected_xnnpack: Vec<PathBuf>,
    /// Every operator output for sample 0 (reference kernels); integer variants only.
    pub intermediates: Vec<Intermediate>,
    /// Why an integer variant has no intermediates stored (size), if it has none.
    pub intermediates_omitted: Option<String>,
}

/// One recorded intermediate tensor (the output of one operator) for sample 0.
#[derive(Debug, Clone, PartialEq)]
pub struct Intermediate {
    /// Tensor index in subgraph 0.
    pub tensor: usize,
    /// Tensor name.
    pub name: String,
    /// numpy dtype name (`int8`, `int16`, `float32`, ...).
    pub dtype: String,
    /// Tensor shape.
    pub shape: Vec<usize>,
    /// Index of the producing operator in subgraph 0.
    pub op: usize,
    /// Builtin name of the producing operator.
    pub op_type: String,
    /// The `.npy` holding it (first axis 1: one sample).
    pub file: PathBuf,
    /// Quantization scale(s), empty for float tensors.
    pub scale: Vec<f64>,
    /// Quantization zero point(s), empty for float tensors.
    pub zero_point: Vec<i64>,
}

/// A known gap: this variant is expected to fail at `stage` until issue `issue` closes it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct ExpectedFailure {
    /// The check that fails: `read`, `rewrite`, `float`, `int8`, `calibrate` or `quantize`.
    pub stage: String,
    /// The issue that tracks the gap.
    pub issue: u32,
    /// Why it fails.
    pub reason: String,
}

/// What "matches" means for one variant.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Tolerance {
    /// Identical values (floats: equal as numbers, NaN matches NaN).
    Exact,
    /// Element ok if `|got − expected| ≤ max(abs, rel · |expected|)`.
    Float {
        /// Relative bound.
        rel: f64,
        /// Absolute floor.
        abs: f64,
    },
    /// Integers: `|got − expected| ≤ n` quantized units. Floats: at most `n` ULPs apart.
    Lsb(u32),
}

impl Tolerance {
    /// Parse the `case.toml` form: an integer (allowed LSBs; 0 = exact) or
    /// `"FLOAT_REL=<rel>,FLOAT_ABS=<abs>"`.
    pub fn parse(v: &toml::Value) -> Result<Tolerance, String> {
        match v {
            toml::Value::Integer(0) => Ok(Tolerance::Exact),
            toml::Value::Integer(n) => u32::try_from(*n)
                .map(Tolerance::Lsb)
                .map_err(|_| format!("bad LSB tolerance {n}")),
            toml::Value::String(s) => {
                let (mut rel, mut abs) = (None, None);
                for part in s.split(',') {
                    let (k, val) = part
                        .split_once('=')
                        .ok_or_else(|| format!("bad tolerance {s:?}"))?;
                    let x: f64 = val
                        .trim()
                        .parse()
                        .map_err(|_| format!("bad number in tolerance {s:?}"))?;
                    match k.trim() {
                        "FLOAT_REL" => rel = Some(x),
                        "FLOAT_ABS" => abs = Some(x),
                        other => return Err(format!("unknown tolerance key {other:?} in {s:?}")),
                    }
                }
                Ok(Tolerance::Float {
                    rel: rel.unwrap_or(0.0),
                    abs: abs.unwrap_or(0.0),
                })
            }
            other => Err(format!("bad tolerance value {other}")),
        }
    }
}

impl std::fmt::Display for Tolerance {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Tolerance::Exact => write!(f, "exact"),
            Tolerance::Float { rel, abs } => write!(f, "rel {rel:e} / abs {abs:e}"),
            Tolerance::Lsb(n) => write!(f, "±{n} LSB"),
        }
    }
}

#[derive(Deserialize)]
struct RawCase {
    name: String,
    description: String,
    #[serde(default)]
    op: Option<String>,
    #[serde(default)]
    ops: Vec<String>,
    #[serde(default)]
    calibration: Vec<String>,
    num_samples: usize,
    #[serde(default)]
    tolerances: BTreeMap<String, toml::Value>,
    #[serde(default)]
    unavailable: BTreeMap<String, String>,
    #[serde(default)]
    variant: Vec<RawVariant>,
}

#[derive(Deserialize)]
struct RawVariant {
    name: String,
    model: String,
    inputs: Vec<String>,
    expected_outputs: Vec<String>,
    #[serde(default)]
    expected_optimized_outputs: Vec<String>,
    #[serde(default)]
    expected_xnnpack_outputs: Vec<String>,
    tolerance: String,
    #[serde(default)]
    expected_failure: Option<ExpectedFailure>,
    #[serde(default)]
    ops: Vec<String>,
    #[serde(default)]
    intermediates: Vec<RawIntermediate>,
    #[serde(default)]
    intermediates_omitted: Option<String>,
}

#[derive(Deserialize)]
struct RawIntermediate {
    tensor: usize,
    name: String,
    dtype: String,
    shape: Vec<usize>,
    op: usize,
    op_type: String,
    file: String,
    #[serde(default)]
    scale: Vec<f64>,
    #[serde(default)]
    zero_point: Vec<i64>,
}

/// Parse one `case.toml`; `dir` is its folder (file names in it are relative to it).
pub fn parse_case(dir: &Path, text: &str) -> Result<Case, String> {
    let raw: RawCase = toml::from_str(text).map_err(|e| e.to_string())?;
    let files = |v: &[String]| v.iter().map(|f| dir.join(f)).collect::<Vec<_>>();
    let mut variants = Vec::new();
    for v in raw.variant {
        let tol_value = raw
            .tolerances
            .get(&v.tolerance)
            .ok_or_else(|| format!("variant {}: tolerance {} not defined", v.name, v.tolerance))?;
        let tolerance =
            Tolerance::parse(tol_value).map_err(|e| format!("variant {}: {e}", v.name))?;
        let tolerance_reason = raw
            .tolerances
            .get(&format!("{}_reason", v.tolerance))
            .and_then(toml::Value::as_str)
            .unwrap_or_default()
            .to_string();
        let intermediates = v
            .intermediates
            .into_iter()
            .map(|i| Intermediate {
                tensor: i.tensor,
                name: i.name,
                dtype: i.dtype,
                shape: i.shape,
                op: i.op,
                op_type: i.op_type,
                file: dir.join(i.file),
                scale: i.scale,
                zero_point: i.zero_point,
            })
            .collect();
        variants.push(Variant {
            model: dir.join(&v.model),
            inputs: files(&v.inputs),
            expected: files(&v.expected_outputs),
            expected_optimized: files(&v.expected_optimized_outputs),
            expected_xnnpack: files(&v.expected_xnnpack_outputs),
            tolerance,
            expected_failure: v.expected_failure,
            tolerance_name: v.tolerance,
            tolerance_reason,
            ops: v.ops,
            intermediates,
            intermediates_omitted: v.intermediates_omitted,
            name: v.name,
        });
    }
    Ok(Case {
        name: raw.name,
        dir: dir.to_path_buf(),
        description: raw.description,
        ops: raw.ops,
        variants,
        op: raw.op,
        calibration: files(&raw.calibration),
        num_samples: raw.num_samples,
        unavailable: raw.unavailable.into_iter().collect(),
    })
}

/// Every `tests/golden/<case>/case.toml`, sorted by case name. Panics (with the file) on a
/// `case.toml` that does not parse.
pub fn cases() -> Vec<Case> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(golden_dir())
        .map(|rd| rd.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    dirs.retain(|d| d.join("case.toml").is_file());
    dirs.sort();
    dirs.iter()
        .map(|d| {
            let path = d.join("case.toml");
            let text = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            parse_case(d, &text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        })
        .collect()
}

impl Variant {
    /// The input arrays, in subgraph input order (panics with the path on a bad file).
    pub fn load_inputs(&self) -> Vec<NpyArray> {
        self.inputs.iter().map(|p| load_npy(p)).collect()
    }

    /// LiteRT's reference outputs, in subgraph output order (panics with the path on a bad file).
    pub fn load_expected(&self) -> Vec<NpyArray> {
        self.expected.iter().map(|p| load_npy(p)).collect()
    }

    /// Whether the model is integer-quantized (`int8`, `int8_floatio`, `16x8`): the variants
    /// whose intermediates are recorded.
    pub fn is_integer(&self) -> bool {
        matches!(self.name.as_str(), "int8" | "int8_floatio" | "16x8")
    }
}

impl Case {
    /// The variant called `name`, if the case has it.
    pub fn variant(&self, name: &str) -> Option<&Variant> {
        self.variants.iter().find(|v| v.name == name)
    }

    /// The row label under which [`OpSummary`] records whole-variant results of this case: the
    /// isolated operator for single-op cases, `model:<name>` for whole models.
    pub fn summary_label(&self) -> String {
        match &self.op {
            Some(op) => op.clone(),
            None => format!("model:{}", self.name),
        }
    }
}

// ------------------------------------------------------------------------------------------------
// .npy
// ------------------------------------------------------------------------------------------------

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
    fn le_bytes(&self, range: std::ops::Range<usize>) -> Vec<u8> {
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

// ------------------------------------------------------------------------------------------------
// Comparison
// ------------------------------------------------------------------------------------------------

/// The outcome of comparing an array with its expected value.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    /// Every element within tolerance, and shape and dtype equal.
    pub ok: bool,
    /// Largest `|got − expected|` (quantized units for integer dtypes; ∞ for NaN vs number or a
    /// shape/dtype mismatch).
    pub max_abs_err: f64,
    /// Largest `|got − expected| / |expected|` over elements with `expected ≠ 0`.
    pub max_rel_err: f64,
    /// Elements out of tolerance (all of them on a shape/dtype mismatch).
    pub n_bad: usize,
    /// Flat index of the first element out of tolerance.
    pub first_bad: Option<usize>,
    /// Number of elements compared (of `expected`).
    pub n: usize,
    /// Integer dtype: `max_abs_err` is in quantized units (LSB).
    pub integer: bool,
    /// Set on a shape or dtype mismatch: what differs.
    pub mismatch: Option<String>,
}

impl std::fmt::Display for Comparison {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let Some(m) = &self.mismatch {
            return write!(f, "{m}");
        }
        let unit = if self.integer { " LSB" } else { "" };
        write!(
            f,
            "{}/{} elements out of tolerance, max abs err {:e}{unit}, max rel err {:e}",
            self.n_bad, self.n, self.max_abs_err, self.max_rel_err
        )?;
        if let Some(i) = self.first_bad {
            write!(f, " (first at flat index {i})")?;
        }
        Ok(())
    }
}

/// Distance in units in the last place between two f32 values (0 for equal values, including
/// +0/−0; `u64::MAX` when either is NaN and they are not both NaN).
pub fn ulp_distance_f32(a: f32, b: f32) -> u64 {
    if a == b || (a.is_nan() && b.is_nan()) {
        return 0;
    }
    if a.is_nan() || b.is_nan() {
        return u64::MAX;
    }
    // Map the float bit patterns onto a monotonic integer line.
    let key = |x: f32| {
        let i = i64::from(x.to_bits() as i32);
        if i < 0 { i64::from(i32::MIN) - i } else { i }
    };
    key(a).abs_diff(key(b))
}

/// Compare `got` with `expected` element by element under `tol`. A shape or dtype mismatch is
/// never ok.
pub fn compare(got: &NpyArray, expected: &NpyArray, tol: &Tolerance) -> Comparison {
    let n = expected.len();
    let integer = expected.data.is_integer();
    if got.shape != expected.shape || got.dtype() != expected.dtype() {
        return Comparison {
            ok: false,
            max_abs_err: f64::INFINITY,
            max_rel_err: f64::INFINITY,
            n_bad: n,
            first_bad: (n > 0).then_some(0),
            n,
            integer,
            mismatch: Some(format!(
                "got {}{:?}, expected {}{:?}",
                got.dtype(),
                got.shape,
                expected.dtype(),
                expected.shape
            )),
        };
    }
    let (mut max_abs, mut max_rel, mut n_bad, mut first_bad) = (0.0f64, 0.0f64, 0usize, None);
    for i in 0..n {
        let (g, e) = (got.data.get_f64(i), expected.data.get_f64(i));
        let same = g == e || (g.is_nan() && e.is_nan());
        let diff = if same {
            0.0
        } else if g.is_nan() || e.is_nan() {
            f64::INFINITY
        } else {
            (g - e).abs()
        };
        max_abs = max_abs.max(diff);
        if e != 0.0 && !same {
            max_rel = max_rel.max(diff / e.abs());
        }
        let ok = match *tol {
            Tolerance::Exact => same,
            Tolerance::Float { rel, abs } => same || diff <= abs.max(rel * e.abs()),
            Tolerance::Lsb(k) => match (&got.data, &expected.data) {
                (NpyData::F32(a), NpyData::F32(b)) => ulp_distance_f32(a[i], b[i]) <= u64::from(k),
                _ => same || diff <= f64::from(k),
            },
        };
        if !ok {
            n_bad += 1;
            first_bad.get_or_insert(i);
        }
    }
    Comparison {
        ok: n_bad == 0,
        max_abs_err: max_abs,
        max_rel_err: max_rel,
        n_bad,
        first_bad,
        n,
        integer,
        mismatch: None,
    }
}

// ------------------------------------------------------------------------------------------------
// Per-operator summary
// ------------------------------------------------------------------------------------------------

#[derive(Debug, Clone, Default)]
struct OpRow {
    checks: usize,
    ok: usize,
    elements: usize,
    bad_elements: usize,
    worst_abs_float: f64,
    worst_rel_float: f64,
    worst_lsb: f64,
    has_float: bool,
    has_integer: bool,
    cases: BTreeSet<String>,
    variants: BTreeSet<String>,
}

/// A per-operator exactness table: for each operator, how many checks ran and passed, and the
/// worst error seen (absolute/relative for float outputs, LSB for integer outputs).
#[derive(Debug, Clone, Default)]
pub struct OpSummary {
    title: String,
    rows: BTreeMap<String, OpRow>,
}

impl OpSummary {
    /// An empty summary with a title for the printed table.
    pub fn new(title: &str) -> Self {
        OpSummary {
            title: title.to_string(),
            rows: BTreeMap::new(),
        }
    }

    /// Record one comparison under `op` (an operator name, or a label such as `model:<case>`).
    pub fn record(&mut self, op: &str, case: &str, variant: &str, cmp: &Comparison) {
        let row = self.rows.entry(op.to_string()).or_default();
        row.checks += 1;
        row.ok += usize::from(cmp.ok);
        row.elements += cmp.n;
        row.bad_elements += cmp.n_bad;
        if cmp.integer {
            row.has_integer = true;
            row.worst_lsb = row.worst_lsb.max(cmp.max_abs_err);
        } else {
            row.has_float = true;
            row.worst_abs_float = row.worst_abs_float.max(cmp.max_abs_err);
            row.worst_rel_float = row.worst_rel_float.max(cmp.max_rel_err);
        }
        row.cases.insert(case.to_string());
        row.variants.insert(variant.to_string());
    }

    /// Number of operators (rows) recorded.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// True when nothing was recorded.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// True when every recorded check passed.
    pub fn all_ok(&self) -> bool {
        self.rows.values().all(|r| r.ok == r.checks)
    }

    /// The table as Markdown (the form the README's supported-ops table uses).
    pub fn to_markdown(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "### {}\n", self.title);
        let _ = writeln!(
            s,
            "| op | checks | ok | elements off / total | worst abs (float) | worst rel (float) | max LSB (int) | variants | cases |"
        );
        let _ = writeln!(s, "|---|---:|---:|---:|---:|---:|---:|---|---:|");
        for (op, r) in &self.rows {
            let f = |x: f64, has: bool| {
                if has {
                    format!("{x:.3e}")
                } else {
                    "—".into()
                }
            };
            let lsb = if r.has_integer {
                format!("{}", r.worst_lsb)
            } else {
                "—".into()
            };
            let _ = writeln!(
                s,
                "| {op} | {} | {} | {} / {} | {} | {} | {lsb} | {} | {} |",
                r.checks,
                r.ok,
                r.bad_elements,
                r.elements,
                f(r.worst_abs_float, r.has_float),
                f(r.worst_rel_float, r.has_float),
                r.variants.iter().cloned().collect::<Vec<_>>().join(" "),
                r.cases.len(),
            );
        }
        s
    }

    /// Print the table (visible with `cargo test -- --nocapture`, and in `npm test`'s log).
    pub fn print(&self) {
        println!("{}", self.to_markdown());
    }
}

// ------------------------------------------------------------------------------------------------
// Stages and expected failures
// ------------------------------------------------------------------------------------------------

/// What a check of one variant at one stage amounts to, once `expected_failure` is considered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Passed, as expected.
    Pass,
    /// Failed, and no expected failure covers it: the test fails.
    Fail,
    /// Failed, as the variant's `expected_failure` for this stage says.
    ExpectedFailure,
    /// Passed although `expected_failure` says it fails at this stage: the test fails, so that
    /// the stale entry is removed.
    UnexpectedPass,
}

impl Verdict {
    /// Whether this verdict must fail the test.
    pub fn is_problem(&self) -> bool {
        matches!(self, Verdict::Fail | Verdict::UnexpectedPass)
    }
}

/// Judge a check's outcome against the variant's expected failure for `stage`.
pub fn judge(variant: &Variant, stage: &str, passed: bool) -> Verdict {
    let expected_to_fail = variant
        .expected_failure
        .as_ref()
        .is_some_and(|f| f.stage == stage);
    match (passed, expected_to_fail) {
        (true, false) => Verdict::Pass,
        (false, false) => Verdict::Fail,
        (false, true) => Verdict::ExpectedFailure,
        (true, true) => Verdict::UnexpectedPass,
    }
}

/// Collects the verdicts of one stage over all cases and variants, prints them, and fails the test
/// at [`StageReport::finish`] if anything failed unexpectedly or passed unexpectedly.
#[derive(Debug)]
pub struct StageReport {
    stage: String,
    passed: usize,
    expected_failures: Vec<String>,
    problems: Vec<String>,
}

impl StageReport {
    /// A report for `stage` (`read`, `rewrite`, `float`, `int8`, `calibrate`, `quantize`, ...).
    pub fn new(stage: &str) -> Self {
        StageReport {
            stage: stage.to_string(),
            passed: 0,
            expected_failures: Vec::new(),
            problems: Vec::new(),
        }
    }

    /// Record the outcome of checking `variant` of `case`: `Ok(())` or `Err(what went wrong)`.
    pub fn check(&mut self, case: &Case, variant: &Variant, result: Result<(), String>) -> Verdict {
        let verdict = judge(variant, &self.stage, result.is_ok());
        let who = format!("{}/{}", case.name, variant.name);
        let ef = variant.expected_failure.as_ref();
        let issue = ef.map(|f| format!("issue {}: {}", f.issue, f.reason));
        match &verdict {
            Verdict::Pass => self.passed += 1,
            Verdict::Fail => self.problems.push(format!(
                "{who}: FAILED: {}",
                result.err().unwrap_or_default()
            )),
            Verdict::ExpectedFailure => self.expected_failures.push(format!(
                "{who}: expected failure ({}): {}",
                issue.unwrap_or_default(),
                result.err().unwrap_or_default()
            )),
            Verdict::UnexpectedPass => self.problems.push(format!(
                "{who}: UNEXPECTEDLY PASSING: case.toml lists an expected failure at stage {} ({}); \
                 remove it from make_goldens.py and regenerate",
                self.stage,
                issue.unwrap_or_default()
            )),
        }
        verdict
    }

    /// Number of checks recorded so far.
    pub fn total(&self) -> usize {
        self.passed + self.expected_failures.len() + self.problems.len()
    }

    /// Print the outcome and panic if any check failed or passed unexpectedly.
    pub fn finish(self) {
        println!(
            "stage {}: {} checks, {} passed, {} expected failures, {} problems",
            self.stage,
            self.total(),
            self.passed,
            self.expected_failures.len(),
            self.problems.len()
        );
        for l in &self.expected_failures {
            println!("  {l}");
        }
        assert!(
            self.problems.is_empty(),
            "stage {}: {} problem(s):\n{}",
            self.stage,
            self.problems.len(),
            self.problems.join("\n")
        );
        assert!(
            self.total() > 0,
            "stage {}: nothing was checked",
            self.stage
        );
    }
}

// ------------------------------------------------------------------------------------------------
// Lossless rewrite
// ------------------------------------------------------------------------------------------------

/// The raw flatbuffer object tree, normalised only where two writers may legitimately differ
/// without a change of meaning: the operator-code table is resolved into one code per operator
/// (its order and duplicates are the writer's choice), data stored after the flatbuffer is read
/// back into `Buffer.data`, and absent vs empty lists and names are unified.
pub fn normalized_tree(bytes: &[u8]) -> Result<(ModelT, Vec<OperatorCodeT>), String> {
    let root = schema::root_as_model(bytes).map_err(|e| e.to_string())?;
    let mut m = root.unpack();
    let codes = m.operator_codes.take().unwrap_or_default();
    let slice = |o: u64, n: u64| -> Result<Vec<u8>, String> {
        let (o, n) = (usize::try_from(o), usize::try_from(n));
        let (Ok(o), Ok(n)) = (o, n) else {
            return Err("offset out of range".into());
        };
        bytes
            .get(o..o.saturating_add(n))
            .map(<[u8]>::to_vec)
            .ok_or_else(|| "offset out of range".to_string())
    };
    let mut op_codes = Vec::new();
    for sg in m.subgraphs.iter_mut().flatten() {
        sg.inputs.get_or_insert_with(Vec::new);
        sg.outputs.get_or_insert_with(Vec::new);
        for t in sg.tensors.iter_mut().flatten() {
            t.name.get_or_insert_with(String::new);
        }
        for op in sg.operators.iter_mut().flatten() {
            let code = usize::try_from(op.opcode_index)
                .ok()
                .and_then(|i| codes.get(i))
                .ok_or("opcode index out of range")?;
            op_codes.push(code.clone());
            op.opcode_index = 0;
            op.inputs.get_or_insert_with(Vec::new);
            op.outputs.get_or_insert_with(Vec::new);
            if op.large_custom_options_offset > 1 {
                op.custom_options = Some(slice(
                    op.large_custom_options_offset,
                    op.large_custom_options_size,
                )?);
            }
            op.large_custom_options_offset = 0;
            op.large_custom_options_size = 0;
        }
    }
    for b in m.buffers.iter_mut().flatten() {
        if b.offset > 1 {
            b.data = Some(slice(b.offset, b.size)?);
        }
        b.offset = 0;
        b.size = 0;
        if b.data.as_ref().is_some_and(Vec::is_empty) {
            b.data = None;
        }
    }
    m.metadata.get_or_insert_with(Vec::new);
    m.signature_defs.get_or_insert_with(Vec::new);
    Ok((m, op_codes))
}

/// Read `original` into the IR and write it back in both layouts (inline and external buffers):
/// every schema field must be unchanged (equal [`normalized_tree`]s), the IR read back must equal
/// the IR written, the summary (`inspect --json`) must be unchanged, and a second write must be
/// byte-identical. Returns the IR.
pub fn check_lossless_rewrite(original: &[u8]) -> Result<zeropoint::Model, String> {
    let ir = tfl::read(original).map_err(|e| format!("read: {e}"))?;
    let before = normalized_tree(original)?;
    for external_buffers in [false, true] {
        let opts = WriteOptions { external_buffers };
        let bytes = tfl::write_with(&ir, &opts).map_err(|e| format!("write: {e}"))?;
        if before != normalized_tree(&bytes)? {
            return Err(format!(
                "external_buffers={external_buffers}: a schema field changed"
            ));
        }
        let back = tfl::read(&bytes).map_err(|e| format!("reread: {e}"))?;
        if ir != back {
            return Err(format!("external_buffers={external_buffers}: IR changed"));
        }
        if ModelSummary::of(&ir) != ModelSummary::of(&back) {
            return Err(format!(
                "external_buffers={external_buffers}: summary (inspect --json) changed"
            ));
        }
        if tfl::write_with(&back, &opts).map_err(|e| format!("rewrite: {e}"))? != bytes {
            return Err(format!(
                "external_buffers={external_buffers}: second rewrite differs"
            ));
        }
    }
    Ok(ir)
}

// ------------------------------------------------------------------------------------------------
// Unit tests of the harness itself
// ------------------------------------------------------------------------------------------------

#[cfg(test)]
mod tests {
    use super::*;

    fn arr(data: NpyData, shape: Vec<usize>) -> NpyArray {
        NpyArray { shape, data }
    }

    fn golden(case: &str, file: &str) -> NpyArray {
        load_npy(&golden_dir().join(case).join(file))
    }

    /// One LSB on one element of a real int8 golden must be caught by an exact comparison (and
    /// by nothing looser than it).
    #[test]
    fn one_lsb_on_a_real_int8_golden_fails() {
        let expected = golden("op_conv2d_same_relu", "expected_int8_output_0.npy");
        assert_eq!(expected.dtype(), "int8");
        assert!(compare(&expected, &expected, &Tolerance::Exact).ok);
        let NpyData::I8(v) = &expected.data else {
            panic!("int8 expected")
        };
        let i = v.len() / 2;
        let mut got = expected.clone();
        if let NpyData::I8(g) = &mut got.data {
            g[i] = if g[i] == i8::MAX { g[i] - 1 } else { g[i] + 1 };
        }
        let c = compare(&got, &expected, &Tolerance::Exact);
        assert!(!c.ok, "{c}");
        assert_eq!((c.n_bad, c.first_bad, c.max_abs_err), (1, Some(i), 1.0));
        assert!(c.integer);
        assert!(compare(&got, &expected, &Tolerance::Lsb(1)).ok);
        assert!(!compare(&got, &expected, &Tolerance::Lsb(0)).ok);
    }

    /// The same for a real int16 intermediate of a 16x8 model.
    #[test]
    fn one_lsb_on_a_real_int16_intermediate_fails() {
        let case = cases()
            .into_iter()
            .find(|c| c.name == "op_conv2d_same_relu")
            .expect("case op_conv2d_same_relu");
        let v = case.variant("16x8").expect("16x8 variant");
        let t = v
            .intermediates
            .iter()
            .find(|t| t.dtype == "int16")
            .expect("an int16 intermediate");
        let expected = load_npy(&t.file);
        let mut got = expected.clone();
        if let NpyData::I16(g) = &mut got.data {
            g[0] = g[0].wrapping_add(if g[0] == i16::MAX { -1 } else { 1 });
        } else {
            panic!("int16 expected, got {}", expected.dtype());
        }
        let c = compare(&got, &expected, &v.tolerance);
        assert!(!c.ok && c.n_bad == 1 && c.first_bad == Some(0), "{c}");
    }

    /// A float golden moved one ULP beyond its variant's tolerance fails; at the bound it passes.
    #[test]
    fn one_ulp_beyond_float_tolerance_fails() {
        let case = cases()
            .into_iter()
            .find(|c| c.name == "mlp")
            .expect("case mlp");
        let v = case.variant("float").expect("float variant");
        let Tolerance::Float { rel, abs } = v.tolerance else {
            panic!("float tolerance expected, got {:?}", v.tolerance)
        };
        let expected = load_npy(&v.expected[0]);
        let NpyData::F32(e) = &expected.data else {
            panic!("float32 expected")
        };
        // the element with the largest magnitude: its bound is the relative one
        let i = (0..e.len())
            .max_by(|&a, &b| e[a].abs().total_cmp(&e[b].abs()))
            .expect("non-empty");
        let x = f64::from(e[i]);
        let bound = abs.max(rel * x.abs());
        // the largest f32 within the bound, and the next one up
        let mut inside = (x + bound) as f32;
        while f64::from(inside) - x > bound {
            inside = f32::from_bits(inside.to_bits() - 1);
        }
        let outside = f32::from_bits(inside.to_bits() + 1);
        assert!(f64::from(outside) - x > bound);
        let with = |y: f32| {
            let mut g = expected.clone();
            if let NpyData::F32(d) = &mut g.data {
                d[i] = y;
            }
            compare(&g, &expected, &v.tolerance)
        };
        assert!(with(inside).ok, "{}", with(inside));
        let c = with(outside);
        assert!(!c.ok && c.n_bad == 1 && c.first_bad == Some(i), "{c}");
        assert!(
            !compare(
                &with_value(&expected, i, inside),
                &expected,
                &Tolerance::Exact
            )
            .ok
        );
    }

    fn with_value(a: &NpyArray, i: usize, y: f32) -> NpyArray {
        let mut g = a.clone();
        if let NpyData::F32(d) = &mut g.data {
            d[i] = y;
        }
        g
    }

    #[test]
    fn shape_or_dtype_mismatch_is_never_ok() {
        let a = arr(NpyData::I8(vec![1, 2, 3, 4]), vec![1, 4]);
        let b = arr(NpyData::I8(vec![1, 2, 3, 4]), vec![2, 2]);
        let c = arr(NpyData::U8(vec![1, 2, 3, 4]), vec![1, 4]);
        for (x, y) in [(&a, &b), (&a, &c)] {
            let r = compare(x, y, &Tolerance::Lsb(100));
            assert!(!r.ok && r.n_bad == 4 && r.mismatch.is_some(), "{r}");
        }
    }

    #[test]
    fn nan_and_ulp_rules() {
        let e = arr(NpyData::F32(vec![f32::NAN, 1.0, 0.0]), vec![3]);
        assert!(compare(&e, &e, &Tolerance::Exact).ok);
        let g = arr(NpyData::F32(vec![0.0, 1.0, -0.0]), vec![3]);
        let r = compare(&g, &e, &Tolerance::Float { rel: 1.0, abs: 1.0 });
        assert_eq!((r.ok, r.n_bad, r.first_bad), (false, 1, Some(0)));
        assert_eq!(r.max_abs_err, f64::INFINITY);
        let next = f32::from_bits(1.0f32.to_bits() + 1);
        let g = arr(NpyData::F32(vec![f32::NAN, next, 0.0]), vec![3]);
        assert!(compare(&g, &e, &Tolerance::Lsb(1)).ok);
        assert!(!compare(&g, &e, &Tolerance::Exact).ok);
        assert_eq!(ulp_distance_f32(-0.0, f32::from_bits(1)), 1);
        assert_eq!(ulp_distance_f32(-f32::from_bits(1), f32::from_bits(1)), 2);
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

    #[test]
    fn tolerance_forms_parse() {
        let t = |s: &str| Tolerance::parse(&toml::from_str::<toml::Table>(s).expect("toml")["t"]);
        assert_eq!(t("t = 0"), Ok(Tolerance::Exact));
        assert_eq!(t("t = 2"), Ok(Tolerance::Lsb(2)));
        assert_eq!(
            t(r#"t = "FLOAT_REL=1e-5,FLOAT_ABS=1e-6""#),
            Ok(Tolerance::Float {
                rel: 1e-5,
                abs: 1e-6
            })
        );
        assert!(t(r#"t = "REL=1""#).is_err());
        assert!(t("t = -1").is_err());
    }

    fn variant_with(ef: Option<ExpectedFailure>) -> Variant {
        Variant {
            name: "int8".into(),
            model: PathBuf::new(),
            inputs: vec![],
            expected: vec![],
            tolerance: Tolerance::Exact,
            expected_failure: ef,
            tolerance_name: "int8_tolerance".into(),
            tolerance_reason: String::new(),
            ops: vec![],
            expected_optimized: vec![],
            expected_xnnpack: vec![],
            intermediates: vec![],
            intermediates_omitted: None,
        }
    }

    #[test]
    fn expected_failures_are_honoured_and_stale_ones_caught() {
        let ef = ExpectedFailure {
            stage: "int8".into(),
            issue: 6,
            reason: "kernel missing".into(),
        };
        let v = variant_with(Some(ef));
        assert_eq!(judge(&v, "int8", false), Verdict::ExpectedFailure);
        assert_eq!(judge(&v, "int8", true), Verdict::UnexpectedPass);
        assert!(judge(&v, "int8", true).is_problem());
        assert_eq!(judge(&v, "float", false), Verdict::Fail);
        assert_eq!(judge(&variant_with(None), "int8", true), Verdict::Pass);
    }

    #[test]
    #[should_panic(expected = "UNEXPECTEDLY PASSING")]
    fn stage_report_fails_on_a_stale_expected_failure() {
        let case = Case {
            name: "c".into(),
            dir: PathBuf::new(),
            description: String::new(),
            ops: vec![],
            variants: vec![],
            op: None,
            calibration: vec![],
            num_samples: 0,
            unavailable: vec![],
        };
        let v = variant_with(Some(ExpectedFailure {
            stage: "int8".into(),
            issue: 6,
            reason: "r".into(),
        }));
        let mut r = StageReport::new("int8");
        r.check(&case, &v, Ok(()));
        r.finish();
    }

    /// A perturbed golden fails the whole chain a test layer uses: compare → StageReport.
    #[test]
    #[should_panic(expected = "FAILED")]
    fn stage_report_fails_on_a_one_lsb_difference() {
        let case = cases()
            .into_iter()
            .find(|c| c.name == "op_add")
            .expect("case op_add");
        let v = case.variant("int8").expect("int8 variant");
        let expected = load_npy(&v.expected[0]);
        let mut got = expected.clone();
        if let NpyData::I8(g) = &mut got.data {
            g[0] = g[0].wrapping_add(if g[0] == i8::MAX { -1 } else { 1 });
        }
        let c = compare(&got, &expected, &v.tolerance);
        let mut r = StageReport::new("int8");
        r.check(&case, v, if c.ok { Ok(()) } else { Err(c.to_string()) });
        r.finish();
    }

    #[test]
    fn op_summary_records_per_op() {
        let mut s = OpSummary::new("t");
        let e = arr(NpyData::I8(vec![0, 0]), vec![2]);
        let g = arr(NpyData::I8(vec![0, 3]), vec![2]);
        s.record("ADD", "op_add", "int8", &compare(&g, &e, &Tolerance::Exact));
        s.record("ADD", "op_add", "16x8", &compare(&e, &e, &Tolerance::Exact));
        assert_eq!(s.len(), 1);
        assert!(!s.all_ok());
        let md = s.to_markdown();
        assert!(md.contains("| ADD | 2 | 1 | 1 / 4 |"), "{md}");
        assert!(md.contains("| 3 |"), "{md}");
    }
}
