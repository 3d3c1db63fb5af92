//! Our calibration kernels against TF's calibrator, element by element.
//!
//! `tests/tools/calibrator_order.py` runs each `calib_*` golden case's float model in the
//! configuration TF 2.21's calibrator runs (TF's own LiteRT build, optimized builtin kernels,
//! Eigen's pool of 4 threads), checks there that every min/max equals the one TF's calibrator
//! recorded, and saves the outputs of the first calibration samples as
//! `calibrator_output_<k>.npy`. Here the float engine with [`CALIBRATION_KERNELS`] runs the same
//! samples and every output element must have the same bits (NaN as one pattern). Comparing
//! every element, not only the extremes the min/max test sees, catches a summation order that
//! happens to give the right extremes on one data set (the 3×3 stride-2 K = 288 case did, with
//! single-threaded Eigen's order: 13,893 of its 31,104 elements differ).

use std::path::Path;

use zeropoint::engine::{Interpreter, Limits};
use zeropoint::quant::calibrate::CALIBRATION_KERNELS;
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

/// `(elements compared, elements differing)` over every output and stored sample, or why the
/// case could not be run.
fn check_case(case: &Case) -> Result<(usize, usize), String> {
    let dir: &Path = &case.dir;
    let bytes = std::fs::read(dir.join("model_float.tflite")).map_err(|e| e.to_string())?;
    let model = tflite::read(&bytes).map_err(|e| e.to_string())?;
    let mut interp = Interpreter::with_options(&model, &Limits::default(), CALIBRATION_KERNELS)
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
        return Err(format!(
            "{differing} of {compared} elements differ from TF's calibrator; first: sample {s} \
             output {k} element {e}: ours {g:e}, TF {w:e}"
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
        match check_case(case) {
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
