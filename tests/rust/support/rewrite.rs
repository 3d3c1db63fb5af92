//! The lossless-rewrite check: a model read into the IR and written back (both buffer layouts)
//! keeps every schema field ([`normalized_tree`], [`check_lossless_rewrite`]).

use zeropoint::graph::summary::ModelSummary;
use zeropoint::tflite::schema::{self, ModelT, OperatorCodeT};
use zeropoint::tflite::{self as tfl, WriteOptions};

/// The raw flatbuffer object tree, normalised only where two writers may legitimately differ
/// without a change of meaning: the operator-code table is resolved into one code per operator
/// (its order and duplicates are the writer's choice), data stored after the flatbuffer is read
/// back into `Buffer.data`, and absent vs empty lists and names are unified.
pub fn normalized_tree(bytes: &[u8]) -> Result<(ModelT, Vec<OperatorCodeT>), String> {
    let root = schema::root_as_model(bytes).map_err(|e| e.to_string())?;
    let mut m = root.unpack();
    let codes = m.operator_codes.take().unwrap_or_default();
    let slice = |o: u64, n: u64| -> Result<Vec<u8>, String> {
        let (o, n) = (usize::try_from(o), usize::try_from(n));
        let (Ok(o), Ok(n)) = (o, n) else {
            return Err("offset out of range".into());
        };
        bytes
            .get(o..o.saturating_add(n))
            .map(<[u8]>::to_vec)
            .ok_or_else(|| "offset out of range".to_string())
    };
    let mut op_codes = Vec::new();
    for sg in m.subgraphs.iter_mut().flatten() {
        sg.inputs.get_or_insert_with(Vec::new);
        sg.outputs.get_or_insert_with(Vec::new);
        for t in sg.tensors.iter_mut().flatten() {
            t.name.get_or_insert_with(String::new);
        }
        for op in sg.operators.iter_mut().flatten() {
            let code = usize::try_from(op.opcode_index)
                .ok()
                .and_then(|i| codes.get(i))
                .ok_or("opcode index out of range")?;
            op_codes.push(code.clone());
            op.opcode_index = 0;
            op.inputs.get_or_insert_with(Vec::new);
            op.outputs.get_or_insert_with(Vec::new);
            if op.large_custom_options_offset > 1 {
                op.custom_options = Some(slice(
                    op.large_custom_options_offset,
                    op.large_custom_options_size,
                )?);
            }
            op.large_custom_options_offset = 0;
            op.large_custom_options_size = 0;
        }
    }
    for b in m.buffers.iter_mut().flatten() {
        if b.offset > 1 {
            b.data = Some(slice(b.offset, b.size)?);
        }
        b.offset = 0;
        b.size = 0;
        if b.data.as_ref().is_some_and(Vec::is_empty) {
            b.data = None;
        }
    }
    m.metadata.get_or_insert_with(Vec::new);
    m.signature_defs.get_or_insert_with(Vec::new);
    Ok((m, op_codes))
}

/// Read `original` into the IR and write it back in both layouts (inline and external buffers):
/// every schema field must be unchanged (equal [`normalized_tree`]s), the IR read back must equal
/// the IR written, the summary (`inspect --json`) must be unchanged, and a second write must be
/// byte-identical. Returns the IR.
pub fn check_lossless_rewrite(original: &[u8]) -> Result<zeropoint::Model, String> {
    let ir = tfl::read(original).map_err(|e| format!("read: {e}"))?;
    let before = normalized_tree(original)?;
    for external_buffers in [false, true] {
        let opts = WriteOptions { external_buffers };
        let bytes = tfl::write_with(&ir, &opts).map_err(|e| format!("write: {e}"))?;
        if before != normalized_tree(&bytes)? {
            return Err(format!(
                "external_buffers={external_buffers}: a schema field changed"
            ));
        }
        let back = tfl::read(&bytes).map_err(|e| format!("reread: {e}"))?;
        if ir != back {
            return Err(format!("external_buffers={external_buffers}: IR changed"));
        }
        if ModelSummary::of(&ir) != ModelSummary::of(&back) {
            return Err(format!(
                "external_buffers={external_buffers}: summary (inspect --json) changed"
            ));
        }
        if tfl::write_with(&back, &opts).map_err(|e| format!("rewrite: {e}"))? != bytes {
            return Err(format!(
                "external_buffers={external_buffers}: second rewrite differs"
            ));
        }
    }
    Ok(ir)
}
