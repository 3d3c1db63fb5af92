//! The golden cases: where they are (`tests/golden/<case>/`), what one holds (`case.toml` parsed
//! into [`Case`], its [`Variant`]s and recorded [`Intermediate`]s, with the [`ExpectedFailure`] a
//! variant may carry), and walking them ([`cases()`]).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use zeropoint::kernels::litert_optimized::caches::CacheSizes;

use super::compare::Tolerance;
use super::npy::{NpyArray, load_npy};

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
    /// One `.npy` per model output: LiteRT `BUILTIN_REF` (reference kernels), the target; for
    /// an operator BUILTIN_REF does not register, the case's `expected_resolver` says which
    /// resolver ran it (the model run op by op: BUILTIN_REF wherever it has the op).
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
    /// The cache sizes of the machine TF's calibrator ran on for this case, which decide how
    /// Eigen cuts its float sums: `calibrator.toml`'s `eigen_caches` (`L1,L2,L3` KiB, as
    /// `zeropoint tf-caches` read them there); for a case recorded before that key, its
    /// `cache_sizes` (Linux's sizes, which on the Intel machine those came from are the cpuid
    /// leaf-4 sizes Eigen reads); without `calibrator.toml`, the machine the goldens were made
    /// on ([`CacheSizes::GOLDEN`]).
    pub fn calibrator_caches(&self) -> Result<CacheSizes, String> {
        let path = self.dir.join("calibrator.toml");
        if !path.is_file() {
            return Ok(CacheSizes::GOLDEN);
        }
        let text = std::fs::read_to_string(&path).map_err(|e| e.to_string())?;
        let meta: toml::Table = text.parse().map_err(|e| format!("calibrator.toml: {e}"))?;
        if let Some(kib) = meta.get("eigen_caches").and_then(|v| v.as_str()) {
            return kib.parse();
        }
        let linux = meta
            .get("cache_sizes")
            .and_then(|v| v.as_table())
            .ok_or("calibrator.toml has neither eigen_caches nor cache_sizes")?;
        let kib: Vec<&str> = ["L1", "L2", "L3"]
            .iter()
            .map(|l| {
                let v = linux.get(*l).and_then(|v| v.as_str()).unwrap_or("");
                v.strip_suffix('K').unwrap_or(v)
            })
            .collect();
        kib.join(",").parse()
    }
    /// The variant called `name`, if the case has it.
    pub fn variant(&self, name: &str) -> Option<&Variant> {
        self.variants.iter().find(|v| v.name == name)
    }

    /// The row label under which [`OpSummary`](crate::OpSummary) records whole-variant results
    /// of this case: the isolated operator for single-op cases, `model:<name>` for whole models.
    pub fn summary_label(&self) -> String {
        match &self.op {
            Some(op) => op.clone(),
            None => format!("model:{}", self.name),
        }
    }
}
