//! Our calibration kernels against TF's calibrator, element by element.
//!
//! `tests/tools/calibrator_order.py` runs each `calib_*` golden case's float model in the
//! configuration TF 2.21's calibrator runs (TF's own LiteRT build, optimized builtin kernels,
//! Eigen's pool of 4 threads), checks there that every min/max equals the one TF's calibrator
//! recorded, and saves the outputs of the first calibration samples as
//! `calibrator_output_<k>.npy`. Here the float engine with [`CALIBRATION_KERNELS`] runs the same
//! samples and every output element must have the same bits (NaN as one pattern), calibrating
//! with the cache sizes of the machine the case was made on (`eigen_caches`: Eigen blocks long
//! reductions by them, so TF's sums are the CPU's; cases made before that key was recorded
//! have Linux's sizes in `cache_sizes`, which on the Intel machine they came from are the cpuid
//! leaf-4 sizes Eigen reads). Comparing
//! every element, not only the extremes the min/max test sees, catches a summation order that
//! happens to give the right extremes on one data set (the 3×3 stride-2 K = 288 case did, with
//! single-threaded Eigen's order: 13,893 of its 31,104 elements differ).

use std::path::Path;

use zeropoint::engine::{Interpreter, Limits};
use zeropoint::kernels::KernelSet;
use zeropoint::kernels::litert_optimized::caches::CacheSizes;
use zeropoint::tflite;
use zeropoint_tests::{Case, load_npy, selected_cases};

/// Bit patterns of float32 little-endian bytes, every NaN as one pattern.
fn bits(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| {
            let v = f32::from_le_bytes([c[0], c[1], c[2], c[3]]);
            if v.is_nan() { 0x7fc0_0000 } else { v.to_bits() }
        })
        .collect()
}

/// `(elements compared, elements differing)` over every output and stored sample when
/// calibrating with `caches` (the recorded ones unless given), or why the case could not be run.
fn check_case(case: &Case, caches: Option<CacheSizes>) -> Result<(usize, usize), String> {
    let dir: &Path = &case.dir;
    let caches = match caches {
        Some(c) => c,
        None => case.calibrator_caches()?,
    };
    let bytes = std::fs::read(dir.join("model_float.tflite")).map_err(|e| e.to_string())?;
    let model = tflite::read(&bytes).map_err(|e| e.to_string())?;
    let kernels = KernelSet::LiteRtOptimized(caches);
    let mut interp = Interpreter::with_options(&model, &Limits::default(), kernels)
        .map_err(|e| e.to_string())?;
    let inputs: Vec<_> = case.calibration.iter().map(|p| load_npy(p)).collect();
    let expected: Vec<_> = (0..interp.outputs().len())
        .map(|k| load_npy(&dir.join(format!("calibrator_output_{k}.npy"))))
        .collect();
    let samples = expected.first().map_or(0, |e| e.samples());
    let (mut compared, mut differing) = (0, 0);
    let mut first = None;
    for s in 0..samples {
        for (i, a) in inputs.iter().enumerate() {
            interp
                .set_input(i, &a.sample_bytes(s))
                .map_err(|e| format!("sample {s}: {e}"))?;
        }
        interp.invoke().map_err(|e| format!("sample {s}: {e}"))?;
        for (k, exp) in expected.iter().enumerate() {
            let got = bits(interp.output(k).map_err(|e| e.to_string())?.bytes);
            let want = bits(&exp.sample_bytes(s));
            if got.len() != want.len() {
                return Err(format!(
                    "output {k}: {} elements, TF {}",
                    got.len(),
                    want.len()
                ));
            }
            compared += got.len();
            for (e, (g, w)) in got.iter().zip(&want).enumerate() {
                if g != w {
                    differing += 1;
                    first.get_or_insert((s, k, e, f32::from_bits(*g), f32::from_bits(*w)));
                }
            }
        }
    }
    if let Some((s, k, e, g, w)) = first {
        // Some of TF's float kernels use the CPU's reciprocal estimate (`rcpps`: exact GELU's
        // erfc), which differs between CPU makers: name the CPU the case was recorded on.
        let toml = std::fs::read_to_string(dir.join("calibrator.toml")).unwrap_or_default();
        let cpu = toml
            .lines()
            .find_map(|l| l.strip_prefix("cpu = "))
            .unwrap_or("not recorded");
        return Err(format!(
            "{differing} of {compared} elements differ from TF's calibrator; first: sample {s} \
             output {k} element {e}: ours {g:e}, TF {w:e} (recorded on CPU {cpu}: where TF's \
             kernels use the CPU's reciprocal estimate, another CPU maker's differs)"
        ));
    }
    Ok((compared, differing))
}

#[test]
fn calibration_kernels_equal_tf_calibrator_elementwise() {
    let selection = selected_cases("calibration_order");
    let mut failures = Vec::new();
    let (mut cases_n, mut elements) = (0, 0);
    let panics = selection.each(|case| {
        if !case.dir.join("calibrator.toml").is_file() {
            return;
        }
        cases_n += 1;
        match check_case(case, None) {
            Ok((n, _)) => {
                println!("{:<28} {n:>7} elements bit-identical", case.name);
                elements += n;
            }
            Err(e) => failures.push(format!("{}: {e}", case.name)),
        }
    });
    failures.extend(panics);
    println!("{cases_n} cases, {elements} elements equal to TF's calibrator's");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    selection.expect_checked(cases_n, "calibrator outputs");
}

/// `calib_conv_caches` was made on a machine whose caches are not [`CacheSizes::GOLDEN`]: with
/// its recorded caches every element equals TF's, with the golden machine's most differ, so the
/// caches reach the summation plan (ignoring them fails this).
#[test]
fn the_recorded_caches_decide_the_sums() {
    let Some(case) = zeropoint_tests::cases()
        .into_iter()
        .find(|c| c.name == "calib_conv_caches")
    else {
        panic!("tests/golden/calib_conv_caches is missing");
    };
    let recorded = case
        .calibrator_caches()
        .expect("calibrator.toml names its caches");
    assert_ne!(
        recorded,
        CacheSizes::GOLDEN,
        "made on the golden machine: proves nothing"
    );
    let (n, _) = check_case(&case, None).expect("equal to TF's with the recorded caches");
    let golden = check_case(&case, Some(CacheSizes::GOLDEN));
    let Err(why) = golden else {
        panic!("the golden machine's caches give the same {n} sums: the case is not cache-bound");
    };
    assert!(why.contains("differ from TF's calibrator"), "{why}");
    println!("with the golden machine's caches: {why}");
}
