//! EMBEDDING_LOOKUP: rows of a table picked by INT32 ids. Mirrors LiteRT's
//! `kernels/embedding_lookup.cc`: `EvalSimple` copies whole rows (float tables, and int8 / uint8
//! tables with an output of the same type), `EvalHybrid` dequantizes an int8 / uint8 row into a
//! float output as `q · scale` with the product in double (`value_ptr[j] * scaling_factor`, the
//! table read through an `int8_t` pointer, so a uint8 byte above 127 counts as negative), the
//! scale per tensor or per row. An id outside `[0, rows)` fails the invocation in LiteRT; here the
//! kernels stop at it and return it (rows before it are written, as LiteRT's loop leaves them).

/// Copies row `ids[i]` of `table` (rows of `row_bytes` bytes) to row `i` of `output`. Returns
/// the first id outside `[0, rows)`, where it stops.
pub fn embedding_lookup(
    ids: &[i32],
    table: &[u8],
    row_bytes: usize,
    output: &mut [u8],
) -> Result<(), i32> {
    let rows = table.len().checked_div(row_bytes).unwrap_or(0);
    for (&id, out) in ids.iter().zip(output.chunks_exact_mut(row_bytes.max(1))) {
        let Some(k) = usize::try_from(id).ok().filter(|&k| k < rows) else {
            return Err(id);
        };
        out.copy_from_slice(&table[k * row_bytes..(k + 1) * row_bytes]);
    }
    Ok(())
}

/// The hybrid form: row `ids[i]` of an 8-bit `table` of `cols` columns, each byte read as `i8`
/// and multiplied by the row's scale in double (`scales` holds one scale per row, or a single
/// one for the whole table), rounded to float. Returns the first id outside `[0, rows)`.
///
/// `int4`: the table is an INT4 table held unpacked (one byte per element). LiteRT's
/// `EvalHybrid` unpacks row `k` from packed byte `(k · cols) >> 1`, low nibble first, so when
/// `k · cols` is odd it reads the row starting one element early (the previous row's last
/// element); that is the row taken here. Its product `(q · 16) · (scale / 16)` equals `q · scale`.
pub fn embedding_lookup_hybrid(
    ids: &[i32],
    table: &[u8],
    cols: usize,
    scales: &[f32],
    int4: bool,
    output: &mut [f32],
) -> Result<(), i32> {
    let rows = table.len().checked_div(cols).unwrap_or(0);
    for (&id, out) in ids.iter().zip(output.chunks_exact_mut(cols.max(1))) {
        let Some(k) = usize::try_from(id).ok().filter(|&k| k < rows) else {
            return Err(id);
        };
        let scale = f64::from(if scales.len() == 1 {
            scales[0]
        } else {
            scales[k]
        });
        let start = if int4 { (k * cols) & !1 } else { k * cols };
        for (o, &q) in out.iter_mut().zip(&table[start..start + cols]) {
            *o = (f64::from(q as i8) * scale) as f32;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_copied_and_bad_ids_stop_the_lookup() {
        let table = [1u8, 2, 3, 4, 5, 6];
        let mut out = [0u8; 6];
        assert_eq!(embedding_lookup(&[2, 0, 2], &table, 2, &mut out), Ok(()));
        assert_eq!(out, [5, 6, 1, 2, 5, 6]);
        let mut out = [0u8; 4];
        assert_eq!(embedding_lookup(&[1, 3], &table, 2, &mut out), Err(3));
        assert_eq!(out[..2], [3, 4]);
        assert_eq!(embedding_lookup(&[-1], &table, 2, &mut out), Err(-1));
    }

    #[test]
    fn hybrid_rows_dequantize_per_row_with_bytes_as_int8() {
        // Two rows of two columns; 0xFF is −1 (LiteRT reads the table through `int8_t*`).
        let table = [2u8, 0xFF, 127, 0x80];
        let mut out = [0.0f32; 4];
        assert_eq!(
            embedding_lookup_hybrid(&[1, 0], &table, 2, &[0.5, 0.25], false, &mut out),
            Ok(())
        );
        assert_eq!(out, [31.75, -32.0, 1.0, -0.5]);
        assert_eq!(
            embedding_lookup_hybrid(&[0], &table, 2, &[0.1], false, &mut out),
            Ok(())
        );
        // 2 · 0.1f32 in double, then rounded to float.
        assert_eq!(out[0], (2.0 * f64::from(0.1f32)) as f32);
        assert_eq!(
            embedding_lookup_hybrid(&[2], &table, 2, &[0.1], false, &mut out),
            Err(2)
        );
    }
}
