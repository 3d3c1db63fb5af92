//! Walks every golden case (`tests/golden/<case>/case.toml`) and checks what the engine can do
//! today, variant by variant, with the tolerance and expected failures the case states:
//!
//! - `read` / `rewrite`: every model reads into the IR and rewrites losslessly (both layouts);
//! - the case's arrays fit its models: inputs, LiteRT's expected outputs (reference, optimized,
//!   XNNPACK) and intermediates have the dtype, shape and count of the tensors they belong to;
//!   calibration samples fit the float model's inputs; TF's calibrated model carries min/max;
//! - coverage: every operator the op table runs appears in some case (but the few listed in
//!   [`NO_GOLDEN_YET`]);
//! - `manifest.json` lists exactly the files on disk, with their size and sha256 (goldens are
//!   never edited by hand).
//!
//! It also prints, per operator, how far LiteRT's own optimized kernels and its default XNNPACK
//! path are from the reference kernels under each variant's tolerance (information, not a check).
//!
//! Later layers (float engine, integer engine, quantizer) add their check per variant the same
//! way: run, [`compare`] with `variant.tolerance`, hand the result to a [`StageReport`] for their
//! stage (which honours `expected_failure`), and record in an [`OpSummary`].

use std::collections::{BTreeMap, BTreeSet};

use sha2::{Digest, Sha256};

use zeropoint::graph::{Model, Tensor, TensorType};
use zeropoint_tests::{
    Case, NpyArray, OpSummary, StageReport, Variant, check_lossless_rewrite, compare, golden_dir,
    load_npy, repo_root, selected_cases, try_load_npy,
};

/// Operators the engine runs (rows of `zeropoint::ops::registry::OPS` with a prepare function)
/// that no golden covers yet: each is unit-tested only, and the README's generated op table says
/// so ("unit tests"). Every other row with a kernel must appear in some golden case, so an op
/// added to the table without goldens fails here; an op that gets goldens must leave this list.
const NO_GOLDEN_YET: &[&str] = &[
    "DIV",
    "SQUEEZE",
    "EXPAND_DIMS",
    "DENSIFY",
    // TF's converter folds these into constants in batch-1 models, so no single-op golden can
    // contain them; a unit test runs the SHAPE → STRIDED_SLICE → PACK → RESHAPE chain
    // (`ops/shape_ops/tests.rs`). Dynamic-batch models (issue 17) will carry them.
    "SHAPE",
    "FILL",
    "ZEROS_LIKE",
    "RANGE",
    // Control flow needs subgraphs, which single-op cases do not have: the realworld models
    // control_flow (IF, WHILE), lstm_classifier, gru_kws and bilstm (WHILE) check them against
    // LiteRT bit for bit (`tests/rust/realworld.rs`).
    "WHILE",
    "IF",
    // Resource variables need subgraphs (CALL_ONCE's init) and state across invocations: the
    // realworld models variables and streaming_kws check them frame by frame against LiteRT
    // (`tests/rust/streaming.rs`).
    "VAR_HANDLE",
    "READ_VARIABLE",
    "ASSIGN_VARIABLE",
    "CALL_ONCE",
    // A custom operator: TF's converter does not write it from a Keras model, so its goldens are
    // the realworld models detpp_* (the op alone: fast / regular NMS, ties, UINT8 inputs) and
    // ssd_detector, built with TF's schema API and compared with LiteRT bit for bit
    // (`tests/rust/realworld/detection.rs`).
    "TFLite_Detection_PostProcess",
    // MediaPipe's custom operators: TF cannot write them and LiteRT cannot run them, so their
    // goldens are single-op models run by MediaPipe itself (`tests/mediapipe/`,
    // `tests/rust/mediapipe.rs`).
    "Convolution2DTransposeBias",
    "Landmarks2TransformMatrix",
    "TransformTensorBilinear",
    "TransformLandmarks",
];

/// Every converter variant the generator knows.
const VARIANTS: &[&str] = &[
    "float",
    "dynamic",
    "int8",
    "int8_floatio",
    "16x8",
    "fp16",
    "calibrated",
];

/// numpy's dtype name for a tensor type, as the goldens' `.npy` files use it.
fn numpy_dtype(t: TensorType) -> Option<&'static str> {
    Some(match t {
        TensorType::FLOAT32 => "float32",
        TensorType::FLOAT64 => "float64",
        TensorType::INT8 => "int8",
        TensorType::UINT8 => "uint8",
        TensorType::INT16 => "int16",
        TensorType::INT32 => "int32",
        TensorType::INT64 => "int64",
        TensorType::BOOL => "bool",
        _ => return None,
    })
}

fn dims(t: &Tensor) -> Vec<usize> {
    t.dims()
        .iter()
        .map(|&d| usize::try_from(d).unwrap_or(usize::MAX))
        .collect()
}

fn read_model(v: &Variant) -> Result<Model, String> {
    let bytes = std::fs::read(&v.model).map_err(|e| format!("{}: {e}", v.model.display()))?;
    zeropoint::tflite::read(&bytes).map_err(|e| e.to_string())
}

/// An array must hold `samples` samples of `tensor` (dtype and shape).
fn check_array(
    what: &str,
    a: &NpyArray,
    tensor: &Tensor,
    samples: Option<usize>,
) -> Result<(), String> {
    let want = numpy_dtype(tensor.dtype)
        .ok_or_else(|| format!("{what}: tensor {} has no numpy dtype", tensor.name))?;
    if a.dtype() != want {
        return Err(format!(
            "{what}: dtype {} but tensor {} is {want}",
            a.dtype(),
            tensor.name
        ));
    }
    if a.sample_shape() != dims(tensor).as_slice() {
        return Err(format!(
            "{what}: sample shape {:?} but tensor {} is {:?}",
            a.sample_shape(),
            tensor.name,
            tensor.dims()
        ));
    }
    if let Some(n) = samples
        && a.samples() != n
    {
        return Err(format!("{what}: {} samples, case says {n}", a.samples()));
    }
    Ok(())
}

fn io_tensors<'m>(m: &'m Model, ids: &[i32]) -> Result<Vec<&'m Tensor>, String> {
    let sg = m.subgraphs.first().ok_or("no subgraph")?;
    ids.iter()
        .map(|&i| {
            usize::try_from(i)
                .ok()
                .and_then(|i| sg.tensors.get(i))
                .ok_or_else(|| format!("tensor index {i} out of range"))
        })
        .collect()
}

/// The arrays of one variant against its model.
fn check_variant_arrays(case: &Case, v: &Variant) -> Result<(), String> {
    let m = read_model(v)?;
    let sg = m.subgraphs.first().ok_or("no subgraph")?;
    let ins = io_tensors(&m, &sg.inputs)?;
    let outs = io_tensors(&m, &sg.outputs)?;
    if v.inputs.len() != ins.len() {
        return Err(format!(
            "{} input files for {} model inputs",
            v.inputs.len(),
            ins.len()
        ));
    }
    for (f, t) in v.inputs.iter().zip(&ins) {
        check_array(
            &f.display().to_string(),
            &try_load_npy(f)?,
            t,
            Some(case.num_samples),
        )?;
    }
    for (kind, files) in [
        ("reference", &v.expected),
        ("optimized", &v.expected_optimized),
        ("xnnpack", &v.expected_xnnpack),
    ] {
        if files.len() != outs.len() {
            return Err(format!(
                "{} {kind} output files for {} model outputs",
                files.len(),
                outs.len()
            ));
        }
        for (f, t) in files.iter().zip(&outs) {
            check_array(
                &f.display().to_string(),
                &try_load_npy(f)?,
                t,
                Some(case.num_samples),
            )?;
        }
    }
    // The op list case.toml states is the model's.
    let mut ops: Vec<String> = Vec::new();
    for sg in &m.subgraphs {
        for op in &sg.operators {
            let n = op.code.name();
            if !ops.contains(&n) {
                ops.push(n);
            }
        }
    }
    if ops != v.ops {
        return Err(format!("ops {ops:?}, case.toml says {:?}", v.ops));
    }
    // Intermediates: each is the output of the operator it names.
    if v.is_integer() && v.intermediates.is_empty() && v.intermediates_omitted.is_none() {
        return Err("integer variant without intermediates".into());
    }
    for t in &v.intermediates {
        let what = format!("intermediate t{} ({})", t.tensor, t.file.display());
        let tensor = sg
            .tensors
            .get(t.tensor)
            .ok_or_else(|| format!("{what}: no such tensor"))?;
        let op = sg
            .operators
            .get(t.op)
            .ok_or_else(|| format!("{what}: no operator {}", t.op))?;
        if !op
            .outputs
            .iter()
            .any(|&o| usize::try_from(o) == Ok(t.tensor))
        {
            return Err(format!("{what}: not an output of operator {}", t.op));
        }
        if op.code.name() != t.op_type || tensor.name != t.name {
            return Err(format!(
                "{what}: operator {} is {} producing {:?}; case.toml says {} producing {:?}",
                t.op,
                op.code.name(),
                tensor.name,
                t.op_type,
                t.name
            ));
        }
        let q = tensor.quantization.as_ref();
        let scales: Vec<f64> = q
            .map(|q| q.scales().iter().map(|&s| f64::from(s)).collect())
            .unwrap_or_default();
        let zps: Vec<i64> = q.map(|q| q.zero_points().to_vec()).unwrap_or_default();
        if scales != t.scale || zps != t.zero_point {
            return Err(format!("{what}: quantization differs from the model's"));
        }
        if Some(t.dtype.as_str()) != numpy_dtype(tensor.dtype) || t.shape != dims(tensor) {
            return Err(format!("{what}: dtype/shape differ from the model's"));
        }
        check_array(&what, &try_load_npy(&t.file)?, tensor, Some(1))?;
    }
    // TF's calibrated model: float I/O tensors carry the recorded min/max, no scale (integer
    // outputs such as ARG_MAX's indices have none).
    if v.name == "calibrated" {
        // Float tensors only (ARG_MAX's index output has no range); an empty tensor has no
        // values to record: TF leaves it without.
        for t in ins
            .iter()
            .chain(&outs)
            .filter(|t| t.dtype == TensorType::FLOAT32 && !dims(t).contains(&0))
        {
            let q = t.quantization.as_ref();
            let has = |x: Option<&Vec<f32>>| x.is_some_and(|x| x.len() == 1);
            if !q.is_some_and(|q| has(q.min.as_ref()) && has(q.max.as_ref())) {
                return Err(format!("calibrated model: {} has no min/max", t.name));
            }
        }
    }
    Ok(())
}

fn check_case_arrays(case: &Case) -> Result<(), String> {
    let float = case.variant("float").ok_or("no float variant")?;
    let m = read_model(float)?;
    let sg = m.subgraphs.first().ok_or("no subgraph")?;
    let ins = io_tensors(&m, &sg.inputs)?;
    if case.calibration.len() != ins.len() {
        return Err(format!(
            "{} calibration files for {} inputs",
            case.calibration.len(),
            ins.len()
        ));
    }
    let mut counts = BTreeSet::new();
    for (f, t) in case.calibration.iter().zip(&ins) {
        let a = try_load_npy(f)?;
        check_array(&f.display().to_string(), &a, t, None)?;
        counts.insert(a.samples());
    }
    if counts.len() != 1 {
        return Err(format!(
            "calibration files disagree on the sample count: {counts:?}"
        ));
    }
    Ok(())
}

#[test]
fn goldens_cover_every_listed_operator_and_variant() {
    let selection = selected_cases("goldens_cover_every_listed_operator_and_variant");
    let all = &selection.items;
    let mut ops = BTreeSet::new();
    let mut variants = BTreeSet::new();
    let mut problems = Vec::new();
    for c in all {
        ops.extend(c.ops.iter().cloned());
        variants.extend(c.variants.iter().map(|v| v.name.clone()));
        if let Some(op) = &c.op {
            // QUANTIZE / DEQUANTIZE exist only in the quantized variants; every other isolated op
            // is in every variant.
            let edge = matches!(op.as_str(), "QUANTIZE" | "DEQUANTIZE");
            if !(c.variants.iter().all(|v| edge || v.ops.contains(op))
                && c.variants.iter().any(|v| v.ops.contains(op)))
            {
                problems.push(format!("{}: a variant lacks the isolated op {op}", c.name));
            }
        }
        let names: BTreeSet<_> = c
            .variants
            .iter()
            .map(|v| v.name.as_str())
            .chain(c.unavailable.iter().map(|(n, _)| n.as_str()))
            .collect();
        if names != VARIANTS.iter().copied().collect() {
            problems.push(format!(
                "{}: every variant is either present or listed as unavailable: {names:?}",
                c.name
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    if !selection.is_complete() {
        println!("operator and variant coverage: checked over all cases only");
        return;
    }
    let required: Vec<&str> = zeropoint::ops::registry::supported()
        .map(|e| e.name())
        .filter(|n| !NO_GOLDEN_YET.contains(n))
        .collect();
    let missing: Vec<_> = required.iter().filter(|op| !ops.contains(**op)).collect();
    assert!(
        missing.is_empty(),
        "the op table runs {missing:?} but no golden covers them"
    );
    let stale: Vec<_> = NO_GOLDEN_YET
        .iter()
        .filter(|op| ops.contains(**op))
        .collect();
    assert!(
        stale.is_empty(),
        "{stale:?} have goldens now: remove them from NO_GOLDEN_YET"
    );
    assert_eq!(variants, VARIANTS.iter().map(|s| s.to_string()).collect());
    let ops_cases = all.iter().filter(|c| c.op.is_some()).count();
    println!(
        "{} cases ({} single-op, {} whole models), {} operators, {} models",
        all.len(),
        ops_cases,
        all.len() - ops_cases,
        ops.len(),
        all.iter().map(|c| c.variants.len()).sum::<usize>()
    );
}

#[test]
fn every_variant_reads_and_rewrites_losslessly() {
    let mut read = StageReport::new("read");
    let mut rewrite = StageReport::new("rewrite");
    let mut summary =
        OpSummary::new("read + lossless rewrite, per operator (models containing it)");
    let panics = selected_cases("every_variant_reads_and_rewrites_losslessly").each(|case| {
        for v in &case.variants {
            let bytes =
                std::fs::read(&v.model).unwrap_or_else(|e| panic!("{}: {e}", v.model.display()));
            read.check(
                case,
                v,
                zeropoint::tflite::read(&bytes)
                    .map(|_| ())
                    .map_err(|e| e.to_string()),
            );
            let result = check_lossless_rewrite(&bytes).map(|_| ());
            let ok = result.is_ok();
            rewrite.check(case, v, result);
            let cmp = zeropoint_tests::Comparison {
                ok,
                max_abs_err: 0.0,
                max_rel_err: 0.0,
                n_bad: usize::from(!ok),
                first_bad: None,
                n: 1,
                integer: true,
                mismatch: None,
            };
            for op in &v.ops {
                summary.record(op, &case.name, &v.name, &cmp);
            }
        }
    });
    summary.print();
    assert!(panics.is_empty(), "{}", panics.join("\n"));
    read.finish();
    rewrite.finish();
}

#[test]
fn every_array_fits_its_model() {
    let mut problems = Vec::new();
    let mut checked = 0;
    let selection = selected_cases("every_array_fits_its_model");
    let panics = selection.each(|case| {
        if let Err(e) = check_case_arrays(case) {
            problems.push(format!("{}: {e}", case.name));
        }
        for v in &case.variants {
            checked += 1;
            if let Err(e) = check_variant_arrays(case, v) {
                problems.push(format!("{}/{}: {e}", case.name, v.name));
            }
        }
    });
    problems.extend(panics);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    selection.expect_checked(checked, "variant");
    println!("{checked} variants: inputs, outputs and intermediates fit their models");
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[test]
fn manifest_lists_exactly_the_golden_files() {
    let root = repo_root();
    let text = std::fs::read_to_string(golden_dir().join("manifest.json")).expect("manifest.json");
    let manifest: serde_json::Value = serde_json::from_str(&text).expect("manifest.json parses");
    let mut listed = BTreeMap::new();
    for f in manifest["files"].as_array().expect("files list") {
        let path = f["path"].as_str().expect("path").to_string();
        let size = f["size"].as_u64().expect("size");
        let sha = f["sha256"].as_str().expect("sha256").to_string();
        listed.insert(path, (size, sha));
    }
    let mut on_disk = BTreeMap::new();
    let mut stack = vec![golden_dir()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("readable dir").flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.file_name().is_some_and(|n| n != "manifest.json") {
                let rel = p.strip_prefix(&root).expect("under root");
                let rel = rel.to_string_lossy().replace('\\', "/");
                on_disk.insert(rel, e.metadata().expect("metadata").len());
            }
        }
    }
    let example = "www/assets/example.tflite".to_string();
    let example_size = std::fs::metadata(root.join(&example))
        .expect("www/assets/example.tflite")
        .len();
    on_disk.insert(example, example_size);
    let only_listed: Vec<_> = listed
        .keys()
        .filter(|k| !on_disk.contains_key(*k))
        .collect();
    let only_disk: Vec<_> = on_disk
        .keys()
        .filter(|k| !listed.contains_key(*k))
        .collect();
    assert!(
        only_listed.is_empty() && only_disk.is_empty(),
        "manifest.json is stale (regenerate with tests/tools/make_goldens.py): listed but missing \
         {only_listed:?}; present but not listed {only_disk:?}"
    );
    // Goldens are never edited by hand: every byte is what the generator wrote.
    let changed: Vec<_> = listed
        .iter()
        .filter(|(k, (size, sha))| {
            on_disk.get(*k) != Some(size) || {
                let bytes = std::fs::read(root.join(k.as_str())).expect("readable");
                hex(&Sha256::digest(&bytes)) != *sha
            }
        })
        .map(|(k, _)| k)
        .collect();
    assert!(
        changed.is_empty(),
        "differs from manifest.json (edited by hand, or regenerated without the manifest): \
         {changed:?}"
    );
    assert_eq!(
        std::fs::read(root.join("www/assets/example.tflite")).expect("example"),
        std::fs::read(golden_dir().join("example_cnn/model_float.tflite")).expect("float"),
        "www/assets/example.tflite must equal example_cnn/model_float.tflite"
    );
    println!(
        "manifest.json: {} files, all present with the listed size and sha256",
        listed.len()
    );
}

/// Information for later layers, not a check: how far LiteRT's optimized builtin kernels and its
/// default XNNPACK path are from the reference kernels, under each variant's own tolerance.
#[test]
fn litert_optimized_kernels_against_reference() {
    let mut tables = [
        (
            "optimized",
            OpSummary::new("LiteRT optimized builtin kernels vs BUILTIN_REF (information)"),
        ),
        (
            "xnnpack",
            OpSummary::new("LiteRT default (XNNPACK) vs BUILTIN_REF (information)"),
        ),
    ];
    let mut n = 0;
    let selection = selected_cases("litert_optimized_kernels_against_reference");
    let panics = selection.each(|case| {
        for v in &case.variants {
            for (kind, table) in &mut tables {
                let files = if *kind == "optimized" {
                    &v.expected_optimized
                } else {
                    &v.expected_xnnpack
                };
                for (got, want) in files.iter().zip(&v.expected) {
                    let cmp = compare(&load_npy(got), &load_npy(want), &v.tolerance);
                    table.record(&case.summary_label(), &case.name, &v.name, &cmp);
                    n += 1;
                }
            }
        }
    });
    assert!(panics.is_empty(), "{}", panics.join("\n"));
    selection.expect_checked(n, "LiteRT optimized/XNNPACK output");
    for (_, t) in &tables {
        t.print();
    }
}
