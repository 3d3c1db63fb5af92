//! Round trip through the IR of every shipped `.tflite` that no golden case covers.
//!
//! The golden models (every variant listed in a `tests/golden/<case>/case.toml`) are checked by
//! `goldens.rs`; this test takes the rest: the page's bundled example (`www/assets/`) and any
//! `.tflite` under `tests/golden/` that no case lists. For each, in both layouts (inline and
//! external buffers), [`check_lossless_rewrite`] requires that every schema field is unchanged
//! (the flatbuffer object trees of the original and the rewrite are equal once the operator-code
//! table is resolved into each operator), that the IR read back equals the IR written, that the
//! summary (`inspect --json`) is identical, and that a second rewrite is byte-identical.
//!
//! That LiteRT runs the rewrites with identical outputs is checked by `tests/tools/check_roundtrip.py`.

use std::collections::BTreeSet;

use zeropoint_tests::{cases, check_lossless_rewrite, shipped_models};

#[test]
fn every_shipped_model_round_trips_losslessly() {
    let covered: BTreeSet<_> = cases()
        .iter()
        .flat_map(|c| c.variants.iter().map(|v| v.model.clone()))
        .collect();
    let models: Vec<_> = shipped_models()
        .into_iter()
        .filter(|p| !covered.contains(p))
        .collect();
    assert!(
        !models.is_empty(),
        "no .tflite outside the golden cases (www/assets/example.tflite is expected)"
    );
    for path in &models {
        let original = std::fs::read(path).expect("readable");
        check_lossless_rewrite(&original).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    }
    println!(
        "{} models round-tripped ({} more in golden cases: see goldens.rs)",
        models.len(),
        covered.len()
    );
}
