//! Round trip of every shipped `.tflite` through the IR.
//!
//! For each model made by TF's converter (goldens and the page's example) this checks, in both
//! layouts (inline and external buffers), that:
//! - every field the schema defines is unchanged: the flatbuffer object trees of the original and
//!   the rewrite are equal once the operator-code table is resolved into each operator;
//! - the IR read back equals the IR written, and a second rewrite is byte-identical (stable output);
//! - the summary (`inspect --json`) is identical.
//!
//! That LiteRT runs the rewrites with identical outputs is checked by `tests/tools/check_roundtrip.py`.

use zeropoint::graph::summary::ModelSummary;
use zeropoint::tflite::schema::{self, ModelT, OperatorCodeT};
use zeropoint::tflite::{self as tfl, WriteOptions};
use zeropoint_tests::shipped_models;

/// The raw flatbuffer object tree, normalised only where two writers may legitimately differ
/// without a change of meaning: the operator-code table is resolved into one code per operator
/// (its order and duplicates are the writer's choice), data stored after the flatbuffer is read
/// back into `Buffer.data`, and absent vs empty lists and names are unified.
fn normalized_tree(bytes: &[u8]) -> (ModelT, Vec<OperatorCodeT>) {
    let root = schema::root_as_model(bytes).expect("verifies");
    let mut m = root.unpack();
    let codes = m.operator_codes.take().unwrap_or_default();
    let slice = |o: u64, n: u64| bytes[o as usize..(o + n) as usize].to_vec();
    let mut op_codes = Vec::new();
    for sg in m.subgraphs.iter_mut().flatten() {
        sg.inputs.get_or_insert_with(Vec::new);
        sg.outputs.get_or_insert_with(Vec::new);
        for t in sg.tensors.iter_mut().flatten() {
            t.name.get_or_insert_with(String::new);
        }
        for op in sg.operators.iter_mut().flatten() {
            op_codes.push(codes[op.opcode_index as usize].clone());
            op.opcode_index = 0;
            op.inputs.get_or_insert_with(Vec::new);
            op.outputs.get_or_insert_with(Vec::new);
            if op.large_custom_options_offset > 1 {
                op.custom_options = Some(slice(
                    op.large_custom_options_offset,
                    op.large_custom_options_size,
                ));
            }
            op.large_custom_options_offset = 0;
            op.large_custom_options_size = 0;
        }
    }
    for b in m.buffers.iter_mut().flatten() {
        if b.offset > 1 {
            b.data = Some(slice(b.offset, b.size));
        }
        b.offset = 0;
        b.size = 0;
        if b.data.as_ref().is_some_and(Vec::is_empty) {
            b.data = None;
        }
    }
    m.metadata.get_or_insert_with(Vec::new);
    m.signature_defs.get_or_insert_with(Vec::new);
    (m, op_codes)
}

#[test]
fn every_shipped_model_round_trips_losslessly() {
    let models = shipped_models();
    assert!(
        !models.is_empty(),
        "no .tflite found under tests/golden or www/assets"
    );
    for path in &models {
        let name = path.display();
        let original = std::fs::read(path).expect("readable");
        let ir = tfl::read(&original).unwrap_or_else(|e| panic!("{name}: {e}"));
        for external_buffers in [false, true] {
            let opts = WriteOptions { external_buffers };
            let bytes = tfl::write_with(&ir, &opts).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(
                normalized_tree(&original),
                normalized_tree(&bytes),
                "{name} (external={external_buffers}): a schema field changed"
            );
            let back = tfl::read(&bytes).unwrap_or_else(|e| panic!("{name}: reread: {e}"));
            assert_eq!(ir, back, "{name}: IR changed");
            assert_eq!(
                tfl::write_with(&back, &opts).expect("rewrite"),
                bytes,
                "{name}: second rewrite differs"
            );
            assert_eq!(
                ModelSummary::of(&ir),
                ModelSummary::of(&back),
                "{name}: summary"
            );
        }
    }
    println!("{} models round-tripped", models.len());
}
