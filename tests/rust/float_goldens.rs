//! The float engine against LiteRT's reference kernels on every golden case.
//!
//! For each case, the variants the float engine runs — `float`, `fp16` (fp16 weights behind
//! DEQUANTIZE, folded at prepare time) and `calibrated` (the float model with TF's recorded
//! min/max attached) — are run sample by sample and compared with LiteRT `BUILTIN_REF` outputs
//! under the case's stated tolerance. A per-op exactness table is printed.
//!
//! Every variant runs with both kernel sets: the reference run must match LiteRT, and the fast
//! run ([`KernelSet::Fast`], whose float kernels keep each output's summation order) must give
//! the reference run's bits for every tensor of every sample (so calibration statistics do not
//! depend on the kernel set).
//!
//! Integer and hybrid variants are checked by `int_goldens.rs`.

use zeropoint::engine::{Interpreter, Limits};
use zeropoint::kernels::KernelSet;
use zeropoint::tflite;
use zeropoint_tests::{
    Case, NpyArray, OpSummary, StageReport, Variant, catch_panic, compare, selected_cases,
};

/// Variants the float engine must run and match.
const FLOAT_VARIANTS: [&str; 3] = ["float", "fp16", "calibrated"];

/// Each output's bytes over all samples, and every tensor the engine computed (all samples, in
/// order).
type RunBytes = (Vec<Vec<u8>>, Vec<Vec<u8>>);

/// Runs every sample of `v` through the engine with `kernels`.
fn run_samples(case: &Case, v: &Variant, kernels: KernelSet) -> Result<RunBytes, String> {
    let bytes = std::fs::read(&v.model).map_err(|e| format!("{}: {e}", v.model.display()))?;
    let model = tflite::read(&bytes).map_err(|e| e.to_string())?;
    let mut interp = Interpreter::with_options(&model, &Limits::default(), kernels)
        .map_err(|e| e.to_string())?;
    let inputs = v.load_inputs();
    let expected = v.load_expected();
    if inputs.len() != interp.inputs().len() || expected.len() != interp.outputs().len() {
        return Err(format!(
            "golden has {} inputs / {} outputs, model {} / {}",
            inputs.len(),
            expected.len(),
            interp.inputs().len(),
            interp.outputs().len()
        ));
    }
    let mut got: Vec<Vec<u8>> = vec![Vec::new(); expected.len()];
    let mut tensors: Vec<Vec<u8>> = Vec::new();
    for s in 0..case.num_samples {
        for (i, a) in inputs.iter().enumerate() {
            interp
                .set_input(i, &a.sample_bytes(s))
                .map_err(|e| format!("sample {s}: {e}"))?;
        }
        interp
            .invoke_with(&mut |_, view| tensors.push(view.bytes.to_vec()))
            .expect("the model runs");
        for (o, buf) in got.iter_mut().enumerate() {
            let view = interp.output(o).map_err(|e| e.to_string())?;
            buf.extend_from_slice(view.bytes);
        }
    }
    Ok((got, tensors))
}

/// Runs `v` with the reference kernels and compares each output with LiteRT's, then with the
/// fast kernels and requires the same bytes. `fast_same` counts variants whose fast run was
/// byte-identical.
fn run_variant(
    case: &Case,
    v: &Variant,
    summary: &mut OpSummary,
    fast_same: &mut usize,
) -> Result<(), String> {
    let (got, reference_tensors) = run_samples(case, v, KernelSet::Reference)?;
    let (fast, fast_tensors) = run_samples(case, v, KernelSet::Fast)?;
    let expected = v.load_expected();
    let mut failures = Vec::new();
    if fast == got && fast_tensors == reference_tensors {
        *fast_same += 1;
    } else {
        failures.push(
            "the fast kernels' tensors differ from the reference kernels' (every tensor of every \
             sample is compared)"
                .to_string(),
        );
    }
    for (o, (bytes, exp)) in got.iter().zip(&expected).enumerate() {
        let got = NpyArray::from_le_bytes(exp.dtype(), exp.shape.clone(), bytes)
            .map_err(|e| format!("output {o}: {e}"))?;
        let cmp = compare(&got, exp, &v.tolerance);
        summary.record(&case.summary_label(), &case.name, &v.name, &cmp);
        if !cmp.ok {
            failures.push(format!("output {o}: {cmp} (tolerance {})", v.tolerance));
        }
    }
    if failures.is_empty() {
        Ok(())
    } else {
        Err(failures.join("; "))
    }
}

#[test]
fn float_engine_matches_litert_reference_kernels() {
    let selection = selected_cases("float_goldens");
    let mut report = StageReport::new("float");
    let mut summary = OpSummary::new("float engine vs LiteRT BUILTIN_REF (per op / model)");
    let mut fast_same = 0usize;
    let panics = selection.each(|case| {
        for v in case
            .variants
            .iter()
            .filter(|v| FLOAT_VARIANTS.contains(&v.name.as_str()))
        {
            // A panic in the engine fails this variant, named, and the others still run.
            let result = catch_panic(|| run_variant(case, v, &mut summary, &mut fast_same))
                .map_err(|e| format!("PANICKED: {e}"))
                .and_then(|r| r);
            report.check(case, v, result);
        }
    });
    summary.print();
    println!(
        "fast kernels: {fast_same}/{} float variants bit-identical to the reference kernels",
        report.total()
    );
    assert!(panics.is_empty(), "{}", panics.join("\n"));
    if selection.expect_checked(report.total(), "float variant") {
        assert!(
            fast_same > 0,
            "no float variant compared fast against reference"
        );
        report.finish();
    }
}
