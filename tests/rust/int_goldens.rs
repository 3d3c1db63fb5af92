//! The integer engine against LiteRT's reference kernels (`BUILTIN_REF`) on every golden case.
//!
//! For each case, the integer and hybrid variants TF's converter wrote — `int8` (int8 I/O),
//! `int8_floatio` (QUANTIZE/DEQUANTIZE at the edges), `16x8` (int16 activations) and `dynamic`
//! (int8 weights, float activations, hybrid kernels) — are run sample by sample and compared
//! with LiteRT's reference outputs under the case's stated tolerance (0 LSB for integer models).
//! For sample 0, every intermediate tensor LiteRT recorded is compared too, and a mismatch names
//! the first operator that differs, so a wrong kernel is found where it is, not downstream.
//!
//! Every variant runs twice, with the reference kernels and with the fast ones
//! ([`KernelSet::Fast`]); both must match LiteRT, and the fast run's outputs and every tensor it
//! computes for sample 0 must equal the reference run's byte for byte (integer and float alike).
//!
//! Two per-op tables (of the reference run) are printed: outputs by case, and intermediates by the producing op type
//! (the README's supported-ops table quotes them). Known, explained gaps are listed in
//! [`KNOWN_GAPS`]; any other failure, and any listed gap that no longer fails, fails the test.

use std::collections::HashMap;

use zeropoint::engine::{Interpreter, Limits, TensorId};
use zeropoint::kernels::KernelSet;
use zeropoint::tflite;
use zeropoint_tests::{
    Case, NpyArray, OpSummary, Tolerance, Variant, catch_panic, compare, load_npy, selected_cases,
};

/// Integer and hybrid variants.
const INTEGER_VARIANTS: [&str; 4] = ["int8", "int8_floatio", "16x8", "dynamic"];

/// `(case, variant, reason)`: integer variants that are known not to match, with why. Every
/// entry must still fail (a stale entry fails the test).
const KNOWN_GAPS: &[(&str, &str, &str)] = &[];

fn known_gap(case: &str, variant: &str) -> Option<&'static str> {
    KNOWN_GAPS
        .iter()
        .find(|(c, v, _)| *c == case && *v == variant)
        .map(|(_, _, r)| *r)
}

/// What one run of a variant computed: every sample's outputs (concatenated per output) and
/// every tensor of sample 0, by tensor index, in the order the engine computed them.
type RunBytes = (Vec<Vec<u8>>, Vec<(usize, Vec<u8>)>);

/// Runs every sample of `v` with `kernels`, compares outputs, then compares sample 0's
/// intermediates. Returns the bytes computed (for the fast-vs-reference comparison).
fn run_variant(
    case: &Case,
    v: &Variant,
    kernels: KernelSet,
    outputs: &mut OpSummary,
    per_op: &mut OpSummary,
) -> Result<RunBytes, String> {
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
    let mut failures = Vec::new();

    // Sample 0 with every intermediate captured.
    let wanted: HashMap<usize, usize> = v
        .intermediates
        .iter()
        .enumerate()
        .map(|(k, im)| (im.tensor, k))
        .collect();
    let mut captured: Vec<Option<Vec<u8>>> = vec![None; v.intermediates.len()];
    let mut all_tensors: Vec<(usize, Vec<u8>)> = Vec::new();
    let mut got: Vec<Vec<u8>> = vec![Vec::new(); expected.len()];
    for s in 0..case.num_samples {
        for (i, a) in inputs.iter().enumerate() {
            interp
                .set_input(i, &a.sample_bytes(s))
                .map_err(|e| format!("sample {s}: {e}"))?;
        }
        if s == 0 {
            interp
                .invoke_with(&mut |TensorId(t), view| {
                    if let Some(&k) = wanted.get(&t) {
                        captured[k] = Some(view.bytes.to_vec());
                    }
                    all_tensors.push((t, view.bytes.to_vec()));
                })
                .expect("the model runs");
        } else {
            interp.invoke().expect("the model runs");
        }
        for (o, buf) in got.iter_mut().enumerate() {
            let view = interp.output(o).map_err(|e| e.to_string())?;
            buf.extend_from_slice(view.bytes);
        }
    }
    for (o, (bytes, exp)) in got.iter().zip(&expected).enumerate() {
        let got = NpyArray::from_le_bytes(exp.dtype(), exp.shape.clone(), bytes)
            .map_err(|e| format!("output {o}: {e}"))?;
        let cmp = compare(&got, exp, &v.tolerance);
        outputs.record(&case.summary_label(), &case.name, &v.name, &cmp);
        if !cmp.ok {
            failures.push(format!("output {o}: {cmp} (tolerance {})", v.tolerance));
        }
    }

    // Intermediates in operator order: report the first operator that differs.
    let mut order: Vec<usize> = (0..v.intermediates.len()).collect();
    order.sort_by_key(|&k| v.intermediates[k].op);
    let mut first_bad: Option<String> = None;
    for k in order {
        let im = &v.intermediates[k];
        let exp = load_npy(&case.dir.join(&im.file));
        let Some(bytes) = &captured[k] else {
            // The engine folded or did not materialise this tensor (e.g. a constant-only
            // subgraph): nothing to compare, but an integer tensor LiteRT computed at run time
            // must exist in ours.
            first_bad.get_or_insert_with(|| {
                format!(
                    "op {} {} -> t{} '{}': not computed by the engine",
                    im.op, im.op_type, im.tensor, im.name
                )
            });
            continue;
        };
        let got = match NpyArray::from_le_bytes(exp.dtype(), exp.shape.clone(), bytes) {
            Ok(g) => g,
            Err(e) => {
                first_bad.get_or_insert_with(|| format!("op {} {}: {e}", im.op, im.op_type));
                continue;
            }
        };
        let tol = if exp.data.is_integer() {
            Tolerance::Exact
        } else {
            v.tolerance
        };
        let cmp = compare(&got, &exp, &tol);
        per_op.record(&im.op_type, &case.name, &v.name, &cmp);
        if !cmp.ok {
            first_bad.get_or_insert_with(|| {
                format!(
                    "first differing intermediate: op {} {} -> t{} '{}': {cmp}",
                    im.op, im.op_type, im.tensor, im.name
                )
            });
        }
    }
    if let Some(b) = first_bad {
        failures.push(b);
    }
    if failures.is_empty() {
        Ok((got, all_tensors))
    } else {
        Err(failures.join("; "))
    }
}

/// The first difference between the reference run's bytes and the fast run's, if any.
fn fast_differs(reference: &RunBytes, fast: &RunBytes) -> Option<String> {
    for (o, (r, f)) in reference.0.iter().zip(&fast.0).enumerate() {
        if r != f {
            let at = r.iter().zip(f).position(|(a, b)| a != b).unwrap_or(0);
            return Some(format!("output {o} differs from byte {at}"));
        }
    }
    if reference.1.len() != fast.1.len() {
        return Some(format!(
            "{} tensors computed by the reference run, {} by the fast run",
            reference.1.len(),
            fast.1.len()
        ));
    }
    for ((tr, r), (tf, f)) in reference.1.iter().zip(&fast.1) {
        if tr != tf || r != f {
            return Some(format!("sample-0 tensor t{tr} differs (fast run: t{tf})"));
        }
    }
    None
}

#[test]
fn integer_engine_matches_litert_reference_kernels() {
    let selection = selected_cases("int_goldens");
    let mut outputs = OpSummary::new("integer engine vs LiteRT BUILTIN_REF: outputs per case");
    let mut per_op =
        OpSummary::new("integer engine vs LiteRT BUILTIN_REF: sample-0 intermediates per op type");
    let (mut passed, mut gaps) = (0usize, Vec::new());
    let mut problems = Vec::new();
    let mut checked = 0usize;
    let (mut fast_same, mut fast_tensors) = (0usize, 0usize);
    // The fast run's LiteRT comparison is recorded in tables nobody prints (the reference run
    // fills the printed ones); its bytes are compared with the reference run's below.
    let mut fast_outputs = OpSummary::new("fast");
    let mut fast_per_op = OpSummary::new("fast");
    let panics = selection.each(|case| {
        for v in case
            .variants
            .iter()
            .filter(|v| INTEGER_VARIANTS.contains(&v.name.as_str()))
        {
            checked += 1;
            let who = format!("{}/{}", case.name, v.name);
            // A panic in the engine fails this variant, named, and the others still run.
            let result = catch_panic(|| {
                run_variant(case, v, KernelSet::Reference, &mut outputs, &mut per_op)
            })
            .map_err(|e| format!("PANICKED: {e}"))
            .and_then(|r| r);
            let fast = catch_panic(|| {
                run_variant(
                    case,
                    v,
                    KernelSet::Fast,
                    &mut fast_outputs,
                    &mut fast_per_op,
                )
            })
            .map_err(|e| format!("PANICKED: {e}"))
            .and_then(|r| r);
            match (&result, &fast) {
                (Ok(r), Ok(f)) => match fast_differs(r, f) {
                    None => {
                        fast_same += 1;
                        fast_tensors += f.1.len();
                    }
                    Some(d) => problems.push(format!("{who}: FAST KERNELS DIFFER: {d}")),
                },
                (Ok(_), Err(e)) => problems.push(format!("{who}: FAST KERNELS FAILED: {e}")),
                (Err(_), _) => {}
            }
            match (result.map(|_| ()), known_gap(&case.name, &v.name)) {
                (Ok(()), None) => passed += 1,
                (Ok(()), Some(_)) => problems.push(format!(
                    "{who}: UNEXPECTEDLY PASSING: remove it from KNOWN_GAPS"
                )),
                (Err(e), Some(reason)) => gaps.push(format!("{who}: known gap ({reason}): {e}")),
                (Err(e), None) => problems.push(format!("{who}: FAILED: {e}")),
            }
        }
    });
    problems.extend(panics);
    outputs.print();
    per_op.print();
    println!(
        "integer variants: {checked} checked, {passed} exact/within tolerance, {} known gaps, {} problems",
        gaps.len(),
        problems.len()
    );
    println!(
        "fast kernels: {fast_same}/{checked} variants byte-identical to the reference kernels \
         ({fast_tensors} sample-0 tensors compared)"
    );
    for g in &gaps {
        println!("  {g}");
    }
    assert!(
        problems.is_empty(),
        "{} integer variant(s) failed:\n{}",
        problems.len(),
        problems.join("\n")
    );
    if selection.expect_checked(checked, "integer variant") {
        assert!(fast_same > 0, "no variant compared fast against reference");
    }
}
