//! The engine with [`Arithmetic::Xnnpack`] against LiteRT's default interpreter (the XNNPACK
//! delegate applied), on every int8 golden model holding an operator that arithmetic covers
//! (CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED, ADD, SUB, MUL, MEAN, BATCH_MATMUL,
//! TRANSPOSE_CONV, LEAKY_RELU, RESIZE_BILINEAR, ROUND, ELU, SOFTMAX, LOG_SOFTMAX; QUANTIZE from
//! float32 too).
//!
//! The expected outputs are the goldens' `expected_<variant>_xnnpack_output_<k>.npy`: LiteRT
//! 2.3's `OpResolverType.AUTO` (XNNPACK delegate, one thread), written by
//! `tests/tools/make_goldens.py` beside the `BUILTIN_REF` ones. Each variant runs with the
//! reference and the fast kernels; both must give the same bytes.
//!
//! A model whose every operator is covered (the nine ops, and ops whose XNNPACK result equals
//! the reference by construction: see [`SAME_BITS`]) must match element for element. A model
//! with other operators XNNPACK delegates (LOGISTIC, TANH, …: their XNNPACK arithmetic is
//! not implemented yet) is reported with its count of equal elements and the uncovered ops; it
//! does not fail the test, but it must still equal the reference goldens (the default
//! arithmetic) where `int_goldens` says so.

use zeropoint::engine::{Interpreter, Limits};
use zeropoint::kernels::{Arithmetic, KernelSet};
use zeropoint::tflite;
use zeropoint_tests::{Case, NpyArray, Variant, catch_panic, load_npy, selected_cases};

/// The operators whose XNNPACK arithmetic `Arithmetic::Xnnpack` implements (QUANTIZE: from
/// float32 only, see [`uncovered`]; SOFTMAX and LOG_SOFTMAX: LiteRT's optimized builtin kernels,
/// which run them as the delegate leaves them; ELU: float as XNNPACK's, int8 the reference table, which gives
/// LiteRT AUTO's bytes).
const COVERED: [&str; 16] = [
    "CONV_2D",
    "DEPTHWISE_CONV_2D",
    "FULLY_CONNECTED",
    "ADD",
    "SUB",
    "MUL",
    "LEAKY_RELU",
    "RESIZE_BILINEAR",
    "ROUND",
    "ELU",
    "SOFTMAX",
    "LOG_SOFTMAX",
    "QUANTIZE",
    "MEAN",
    "BATCH_MATMUL",
    "TRANSPOSE_CONV",
];

/// The operators a variant needs for the comparison to be complete.
const COMPUTING: [&str; 15] = [
    "CONV_2D",
    "DEPTHWISE_CONV_2D",
    "FULLY_CONNECTED",
    "ADD",
    "SUB",
    "MUL",
    "MEAN",
    "BATCH_MATMUL",
    "TRANSPOSE_CONV",
    "LEAKY_RELU",
    "RESIZE_BILINEAR",
    "ROUND",
    "ELU",
    "SOFTMAX",
    "LOG_SOFTMAX",
];

/// Operators whose XNNPACK result equals LiteRT's reference one by definition, so a model
/// holding them is still fully covered: RESHAPE moves no value; DEQUANTIZE (int8 → float) is
/// `(float)(q − zp) · scale` in both (one product of an exact integer and the scale, rounded
/// once). QUANTIZE is not here: XNNPACK multiplies by the reciprocal of the scale and rounds
/// ties to even, LiteRT's reference divides and rounds ties away from zero.
const SAME_BITS: [&str; 2] = ["RESHAPE", "DEQUANTIZE"];

/// The operators of `model` (every subgraph) whose XNNPACK arithmetic is not implemented, once
/// each in order of first use: neither covered nor [`SAME_BITS`]; a QUANTIZE between integer
/// types (XNNPACK's int8 → int8 convert) is not covered.
fn uncovered(model: &zeropoint::Model) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for sg in &model.subgraphs {
        for op in &sg.operators {
            let name = op.code.name();
            let float_input = op
                .inputs
                .first()
                .and_then(|&t| sg.tensors.get(usize::try_from(t).ok()?))
                .is_some_and(|t| t.dtype == zeropoint::graph::TensorType::FLOAT32);
            let covered = (COVERED.contains(&name.as_str()) && (name != "QUANTIZE" || float_input))
                || SAME_BITS.contains(&name.as_str());
            if !covered && !out.contains(&name) {
                out.push(name);
            }
        }
    }
    out
}

/// The int8 variants.
const VARIANTS: [&str; 2] = ["int8", "int8_floatio"];

/// Element-wise equality of two arrays of the same dtype and shape (bits for floats).
fn equal_elements(got: &NpyArray, exp: &NpyArray) -> usize {
    let size = exp.data.element_size();
    let n = exp.data.len();
    let (g, e) = (got.data.le_bytes(0..n), exp.data.le_bytes(0..n));
    g.chunks_exact(size)
        .zip(e.chunks_exact(size))
        .filter(|(a, b)| a == b)
        .count()
}

/// All samples of `v` run with `kernels` and XNNPACK's arithmetic: each output's bytes.
fn run(case: &Case, v: &Variant, kernels: KernelSet) -> Result<Vec<Vec<u8>>, String> {
    let bytes = std::fs::read(&v.model).map_err(|e| format!("{}: {e}", v.model.display()))?;
    let model = tflite::read(&bytes).map_err(|e| e.to_string())?;
    let mut interp =
        Interpreter::with_arithmetic(&model, &Limits::default(), kernels, Arithmetic::Xnnpack)
            .map_err(|e| e.to_string())?;
    let inputs = v.load_inputs();
    let mut got = vec![Vec::new(); interp.outputs().len()];
    for s in 0..case.num_samples {
        for (i, a) in inputs.iter().enumerate() {
            interp
                .set_input(i, &a.sample_bytes(s))
                .map_err(|e| format!("sample {s}: {e}"))?;
        }
        interp.invoke().map_err(|e| format!("sample {s}: {e}"))?;
        for (o, buf) in got.iter_mut().enumerate() {
            buf.extend_from_slice(interp.output(o).map_err(|e| e.to_string())?.bytes);
        }
    }
    Ok(got)
}

/// One variant against its XNNPACK goldens: per output, the elements equal to LiteRT
/// XNNPACK's and their count; and the goldens themselves.
struct Compared {
    /// `(output, equal, total)` for each output whose bytes make an array of the golden's
    /// dtype and shape.
    outputs: Vec<(usize, usize, usize)>,
    /// The `expected_<variant>_xnnpack_output_<k>.npy` arrays.
    expected: Vec<NpyArray>,
}

/// Runs `v` with XNNPACK's arithmetic on the reference and on the fast kernels, which must give
/// the same bytes, and compares the reference run with the XNNPACK goldens. What goes wrong is
/// pushed to `problems` under `who`; `None` when the variant did not run.
fn run_and_compare(
    case: &Case,
    v: &Variant,
    who: &str,
    problems: &mut Vec<String>,
) -> Option<Compared> {
    let (reference, fast) = match (
        catch_panic(|| run(case, v, KernelSet::Reference)).and_then(|r| r),
        catch_panic(|| run(case, v, KernelSet::Fast)).and_then(|r| r),
    ) {
        (Ok(r), Ok(f)) => (r, f),
        (Err(e), _) | (_, Err(e)) => {
            problems.push(format!("{who}: FAILED TO RUN: {e}"));
            return None;
        }
    };
    if reference != fast {
        problems.push(format!(
            "{who}: fast kernels differ from the reference kernels"
        ));
    }
    let expected: Vec<NpyArray> = v.expected_xnnpack.iter().map(|p| load_npy(p)).collect();
    let mut outputs = Vec::new();
    for (o, (bytes, exp)) in reference.iter().zip(&expected).enumerate() {
        match NpyArray::from_le_bytes(exp.dtype(), exp.shape.clone(), bytes) {
            Ok(got) => outputs.push((o, equal_elements(&got, exp), exp.data.len())),
            Err(e) => problems.push(format!("{who}: output {o}: {e}")),
        }
    }
    Some(Compared { outputs, expected })
}

/// The elements where `v`'s reference goldens (LiteRT BUILTIN_REF) differ from the XNNPACK
/// ones, `expected`.
fn reference_differs(v: &Variant, expected: &[NpyArray]) -> usize {
    v.load_expected()
        .iter()
        .zip(expected)
        .map(|(r, x)| x.data.len() - equal_elements(r, x))
        .sum()
}

#[test]
fn xnnpack_arithmetic_matches_litert_default_interpreter() {
    let selection = selected_cases("xnnpack_goldens");
    let mut problems = Vec::new();
    let mut lines = Vec::new();
    let (mut checked, mut exact, mut partial) = (0usize, 0usize, 0usize);
    let (mut covered_equal, mut covered_total) = (0usize, 0usize);
    // Elements of the fully covered variants where LiteRT's two paths differ: what makes the
    // comparison able to fail (the reference arithmetic gets these wrong).
    let mut ref_differs = 0usize;
    let panics = selection.each(|case| {
        for v in case.variants.iter().filter(|v| {
            VARIANTS.contains(&v.name.as_str())
                && v.ops.iter().any(|o| COMPUTING.contains(&o.as_str()))
        }) {
            checked += 1;
            let who = format!("{}/{}", case.name, v.name);
            let others = match std::fs::read(&v.model)
                .map_err(|e| e.to_string())
                .and_then(|b| tflite::read(&b).map_err(|e| e.to_string()))
            {
                Ok(m) => uncovered(&m),
                Err(e) => {
                    problems.push(format!("{who}: {e}"));
                    continue;
                }
            };
            let Some(Compared { outputs, expected }) =
                run_and_compare(case, v, &who, &mut problems)
            else {
                continue;
            };
            let (equal, total) = outputs
                .iter()
                .fold((0, 0), |(e, t), &(_, eq, n)| (e + eq, t + n));
            if others.is_empty() {
                ref_differs += reference_differs(v, &expected);
                covered_equal += equal;
                covered_total += total;
                if equal == total {
                    exact += 1;
                } else {
                    problems.push(format!(
                        "{who}: {equal}/{total} elements equal LiteRT XNNPACK (all ops covered)"
                    ));
                }
                lines.push(format!("  {who:45} {equal}/{total} equal (covered)"));
            } else {
                partial += 1;
                lines.push(format!(
                    "  {who:45} {equal}/{total} equal (not covered: {})",
                    others.join(" ")
                ));
            }
        }
    });
    problems.extend(panics);
    println!("engine --arithmetic xnnpack vs LiteRT AUTO (XNNPACK delegate):");
    for l in &lines {
        println!("{l}");
    }
    println!(
        "int8 variants: {checked} checked; fully covered: {exact} exact, {covered_equal}/{covered_total} \
         elements equal (LiteRT BUILTIN_REF differs from XNNPACK on {ref_differs} of them); \
         {partial} with uncovered ops (reported only)"
    );
    assert!(
        problems.is_empty(),
        "{} problem(s):\n{}",
        problems.len(),
        problems.join("\n")
    );
    if selection.expect_checked(checked, "int8 variant with a covered op")
        && selection.is_complete()
    {
        assert!(exact > 0, "no fully covered variant was compared");
        assert!(
            ref_differs > 0,
            "no covered element where BUILTIN_REF and XNNPACK differ: the goldens cannot tell \
             the two arithmetics apart"
        );
    }
}

/// Float operators whose XNNPACK arithmetic `Arithmetic::Xnnpack` implements (LiteRT's delegate
/// takes float models too): ROUND (`vrndne`, the sign kept) and ELU (AVX-512F `velu`,
/// denormals flushed).
const FLOAT_COVERED: [&str; 2] = ["ROUND", "ELU"];

#[test]
fn xnnpack_float_round_and_elu_match_litert_default_interpreter() {
    let selection = selected_cases("xnnpack_goldens");
    let (mut checked, mut ref_differs) = (0usize, 0usize);
    let mut problems = Vec::new();
    let panics = selection.each(|case| {
        for v in case.variants.iter().filter(|v| {
            v.name == "float"
                && !v.ops.is_empty()
                && v.ops.iter().all(|o| FLOAT_COVERED.contains(&o.as_str()))
        }) {
            let who = format!("{}/{}", case.name, v.name);
            let Some(Compared { outputs, expected }) =
                run_and_compare(case, v, &who, &mut problems)
            else {
                continue;
            };
            for (o, equal, total) in outputs {
                if equal != total {
                    problems.push(format!(
                        "{who}: output {o}: {equal}/{total} elements (bits) equal LiteRT XNNPACK"
                    ));
                }
            }
            ref_differs += reference_differs(v, &expected);
            checked += 1;
        }
    });
    problems.extend(panics);
    println!(
        "float ROUND / ELU variants: {checked} checked; LiteRT's reference differs on {ref_differs} elements"
    );
    assert!(
        problems.is_empty(),
        "{} problem(s):\n{}",
        problems.len(),
        problems.join("\n")
    );
    if selection.expect_checked(checked, "float ROUND / ELU variant") && selection.is_complete() {
        assert!(
            ref_differs > 0,
            "no element where the reference and XNNPACK differ"
        );
    }
}
