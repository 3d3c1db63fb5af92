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
//!
//! Every test that walks the goldens takes its cases from [`selected_cases`] (or [`select`]):
//! `ZP_CASE=<part>[,<part>…]` keeps the cases whose name contains a part, and a filter that
//! matches no case fails the test. [`Selection::each`] checks case by case, naming the case of
//! any panic.
//!
//! Modules (private; everything public is re-exported here):
//!
//! | module | holds |
//! |---|---|
//! | `support/cases.rs` | paths, `case.toml` → [`Case`] / [`Variant`] / [`Intermediate`], [`cases()`] |
//! | `support/npy.rs` | [`NpyArray`] / [`NpyData`], [`load_npy`] |
//! | `support/compare.rs` | [`Tolerance`], [`compare`] → [`Comparison`], [`ulp_distance_f32`] |
//! | `support/report.rs` | [`OpSummary`], [`StageReport`], [`Verdict`], [`judge`] |
//! | `support/rewrite.rs` | [`normalized_tree`], [`check_lossless_rewrite`] |
//! | `support/select.rs` | `ZP_CASE`: [`CaseFilter`], [`Selection`], [`selected_cases`], [`catch_panic`] |

mod support {
    pub mod cases;
    pub mod compare;
    pub mod npy;
    pub mod report;
    pub mod rewrite;
    pub mod select;
}

pub use support::cases::{
    Case, ExpectedFailure, Intermediate, Variant, cases, golden_dir, parse_case, repo_root,
    shipped_models,
};
pub use support::compare::{Comparison, Tolerance, compare, ulp_distance_f32};
pub use support::npy::{NpyArray, NpyData, load_npy, try_load_npy};
pub use support::report::{OpSummary, StageReport, Verdict, judge};
pub use support::rewrite::{check_lossless_rewrite, normalized_tree};
pub use support::select::{
    CASE_FILTER_ENV, CaseFilter, Selection, catch_panic, select, selected_cases,
};
