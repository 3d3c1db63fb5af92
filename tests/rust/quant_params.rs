//! `zeropoint::quant::params` against TF 2.21's own output, bit for bit.
//!
//! For every golden case (`tests/golden/<case>/`):
//!
//! 1. **Weights and bias.** Each constant weight of `model_float.tflite` is matched to the
//!    corresponding quantized tensor of TF's `model_int8.tflite`, `model_int8_floatio.tflite`,
//!    `model_16x8.tflite` and `model_dynamic.tflite` by operator position and input slot (the
//!    operators of both models, QUANTIZE/DEQUANTIZE left out, must line up one to one). We quantize
//!    the float weights with the rule of that converter mode and require TF's int8 values, scales
//!    (f32 bits) and zero points; likewise the int32 (int8 modes) and int64 (16x8) biases, from
//!    TF's own input and weight scales.
//! 2. **Activations.** `model_calibrated.tflite` is TF's calibrated-only float model: its
//!    activation tensors carry the min/max TF recorded. Every activation of TF's quantized model
//!    whose parameters come from its *own* recorded range must get bit-equal scale and equal zero
//!    point from `activation_params_int8` (int8 modes) or `activation_params_int16` (16x8).
//!    Tensors whose parameters come from elsewhere are left out, by the rule that assigns them
//!    (see [`ActivationPlan`](activations::ActivationPlan)); those rules belong to the quantizer
//!    passes, not to `params`.
//!
//! A summary line per case and mode is printed (`cargo test -- --nocapture` to see it). There is
//! no tolerance: any difference fails, unless it is listed in [`KNOWN_GAPS`] with its reason.
//!
//! Files in `quant_params/`: `weights.rs` (part 1), `activations.rs` (part 2), `graph.rs`
//! (reading TF's models: operators paired, producers and consumers, tensor data and parameters).

// A test target's root resolves `mod x;` next to itself, so the folder is named explicitly.
#[path = "quant_params/activations.rs"]
mod activations;
#[path = "quant_params/graph.rs"]
mod graph;
#[path = "quant_params/weights.rs"]
mod weights;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use zeropoint::graph::Model;
use zeropoint::quant::params::WeightRule;
use zeropoint::tflite;
use zeropoint_tests::{CaseFilter, repo_root, select};

use activations::compare_activations;
use weights::compare_weights;

/// Comparisons that differ from TF for a understood reason we have not fixed yet:
/// `(case, mode, tensor name in TF's quantized model, reason)`. Such a difference is reported but
/// does not fail the test; an entry that no longer differs fails it (remove the entry).
const KNOWN_GAPS: &[(&str, &str, &str, &str)] = &[];

/// The quantized models TF made from each float model, and the rules of that converter mode.
#[derive(Debug, Clone, Copy)]
struct Mode {
    /// Variant name as in `case.toml` (file `model_<name>.tflite`).
    name: &'static str,
    weights: WeightRule,
    bias: BiasKind,
    activations: Option<ActKind>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum BiasKind {
    Int32,
    Int64,
    /// Dynamic range keeps biases float.
    Float,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum ActKind {
    Int8,
    Int16,
}

const MODES: [Mode; 4] = [
    Mode {
        name: "int8",
        weights: WeightRule::FullInteger,
        bias: BiasKind::Int32,
        activations: Some(ActKind::Int8),
    },
    Mode {
        name: "int8_floatio",
        weights: WeightRule::FullInteger,
        bias: BiasKind::Int32,
        activations: Some(ActKind::Int8),
    },
    Mode {
        name: "16x8",
        weights: WeightRule::Int16x8,
        bias: BiasKind::Int64,
        activations: Some(ActKind::Int16),
    },
    Mode {
        name: "dynamic",
        weights: WeightRule::DynamicRange,
        bias: BiasKind::Float,
        activations: None,
    },
];

/// The golden cases: `tests/golden/*/`, or the folder named by `ZEROPOINT_GOLDEN_DIR` (to check a
/// freshly generated set before it replaces the committed one).
fn golden_cases() -> Vec<PathBuf> {
    let dir = std::env::var_os("ZEROPOINT_GOLDEN_DIR")
        .map_or_else(|| repo_root().join("tests/golden"), PathBuf::from);
    let mut out: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|rd| {
            rd.flatten()
                .map(|e| e.path())
                .filter(|p| p.join("model_float.tflite").is_file())
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}

fn load(path: &Path) -> Model {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    tflite::read(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn case_name(dir: &Path) -> String {
    dir.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Tallies of one case and mode, and the differences found.
#[derive(Default)]
struct Tally {
    weights: (usize, usize),
    weight_values: usize,
    weights_kept_float: usize,
    biases: (usize, usize),
    activations: (usize, usize),
    excluded: BTreeMap<&'static str, usize>,
    /// (where, tensor name in TF's model, what differs).
    mismatches: Vec<(String, String, String)>,
}

impl Tally {
    /// Records one comparison of TF's tensor `tensor` (described by `label`): `problem` is empty
    /// when ours equals TF's.
    fn check(
        &mut self,
        counter: fn(&mut Tally) -> &mut (usize, usize),
        label: &str,
        tensor: &str,
        problem: String,
    ) {
        let c = counter(self);
        c.0 += 1;
        if problem.is_empty() {
            c.1 += 1;
        } else {
            self.mismatches
                .push((label.to_string(), tensor.to_string(), problem));
        }
    }
}

#[test]
fn quant_params_match_tf_goldens() {
    let cases = golden_cases();
    assert!(!cases.is_empty(), "no golden cases under tests/golden");
    let selection = select(
        "quant_params",
        cases,
        |d| case_name(d),
        CaseFilter::from_env(),
    );
    let mut failures = Vec::new();
    let mut gaps_seen = BTreeSet::new();
    let mut no_calibrated = Vec::new();
    let mut totals = Tally::default();
    let panics = selection.each(|dir| {
        let case = case_name(dir);
        let float = load(&dir.join("model_float.tflite"));
        let calibrated_path = dir.join("model_calibrated.tflite");
        let calibrated = calibrated_path.is_file().then(|| load(&calibrated_path));
        if calibrated.is_none() {
            no_calibrated.push(case.clone());
        }
        for mode in MODES {
            let path = dir.join(format!("model_{}.tflite", mode.name));
            if !path.is_file() {
                continue;
            }
            let quant = load(&path);
            let what = format!("{case}/{}", mode.name);
            let mut tally = Tally::default();
            compare_weights(&float, &quant, mode, &mut tally, &what);
            if let (Some(cal), Some(kind)) = (&calibrated, mode.activations) {
                compare_activations(cal, &quant, kind, &mut tally, &what);
            }
            let excluded: Vec<String> = tally
                .excluded
                .iter()
                .map(|(k, v)| format!("{v} {k}"))
                .collect();
            println!(
                "{what}: weights {}/{} exact ({} values{}), bias {}/{} exact, activations {}/{} exact{}",
                tally.weights.1,
                tally.weights.0,
                tally.weight_values,
                if tally.weights_kept_float > 0 {
                    format!(", {} kept float", tally.weights_kept_float)
                } else {
                    String::new()
                },
                tally.biases.1,
                tally.biases.0,
                tally.activations.1,
                tally.activations.0,
                if calibrated.is_none() && mode.activations.is_some() {
                    " (no model_calibrated.tflite)".to_string()
                } else if excluded.is_empty() {
                    String::new()
                } else {
                    format!(" (excluded: {})", excluded.join(", "))
                }
            );
            for (label, tensor, problem) in &tally.mismatches {
                let gap = KNOWN_GAPS
                    .iter()
                    .find(|g| g.0 == case && g.1 == mode.name && g.2 == tensor);
                match gap {
                    Some(g) => {
                        gaps_seen.insert((g.0, g.1, g.2));
                        println!("  known gap {label}: {problem} — {}", g.3);
                    }
                    None => {
                        println!("  MISMATCH {label}: {problem}");
                        failures.push(format!("{what} {label}: {problem}"));
                    }
                }
            }
            totals.weights.0 += tally.weights.0;
            totals.weights.1 += tally.weights.1;
            totals.biases.0 += tally.biases.0;
            totals.biases.1 += tally.biases.1;
            totals.activations.0 += tally.activations.0;
            totals.activations.1 += tally.activations.1;
        }
    });
    failures.extend(panics);
    println!(
        "total: weights {}/{}, bias {}/{}, activations {}/{} exact",
        totals.weights.1,
        totals.weights.0,
        totals.biases.1,
        totals.biases.0,
        totals.activations.1,
        totals.activations.0
    );
    if !no_calibrated.is_empty() {
        println!(
            "activations not compared (no model_calibrated.tflite): {}",
            no_calibrated.join(", ")
        );
    }
    for g in KNOWN_GAPS {
        if selection.contains(g.0) && !gaps_seen.contains(&(g.0, g.1, g.2)) {
            failures.push(format!(
                "stale KNOWN_GAPS entry {}/{} '{}': it matches TF now, remove it",
                g.0, g.1, g.2
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} difference(s) from TF:\n{}",
        failures.len(),
        failures.join("\n")
    );
    let compared = totals.weights.0 + totals.biases.0 + totals.activations.0;
    selection.expect_checked(compared, "weights, biases or activations");
    assert!(
        !selection.is_complete() || totals.weights.0 > 0,
        "no weights were compared"
    );
}
