//! SPLIT, SPLIT_V and UNPACK: one output's share of the input along an axis. Mirrors LiteRT's
//! `reference_ops::Split` (which SPLIT and SPLIT_V both call) and `reference_ops::Unpack`: the
//! input is viewed as `[outer, axis · inner]` rows; output `k` takes, from every row, the
//! `part_inner` consecutive elements starting at `begin_inner` (its axis range times `inner`).
//! UNPACK is the same with parts of one axis element (the axis dropped from the output shape).
//! Only copies, no arithmetic: bit-identical for every element type and quantization.

/// Where one output's elements lie in the input, viewed as rows of `row` elements: `outer` rows,
/// each contributing `len` elements from offset `begin`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SplitPart {
    /// Number of rows (product of the dims before the axis).
    pub outer: usize,
    /// Elements per input row (axis dim × inner size).
    pub row: usize,
    /// First element of this output within each row (axis offset × inner size).
    pub begin: usize,
    /// Elements of this output per row (its axis size × inner size).
    pub len: usize,
}

/// Copies output `p`'s share of `input` into `output` (`p.outer · p.len` elements). Prepare
/// guarantees `begin + len <= row` and the slice lengths.
pub fn split_part<T: Copy>(p: &SplitPart, input: &[T], output: &mut [T]) {
    if p.len == 0 {
        return;
    }
    for (r, out) in output.chunks_exact_mut(p.len).take(p.outer).enumerate() {
        let start = r * p.row + p.begin;
        out.copy_from_slice(&input[start..start + p.len]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn middle_part_of_each_row() {
        // [2, 3, 2] split on axis 1 into 3: part 1 is elements 2..4 of each 6-element row.
        let input: Vec<i32> = (0..12).collect();
        let p = SplitPart {
            outer: 2,
            row: 6,
            begin: 2,
            len: 2,
        };
        let mut out = [0i32; 4];
        split_part(&p, &input, &mut out);
        assert_eq!(out, [2, 3, 8, 9]);
    }

    #[test]
    fn empty_part_writes_nothing() {
        let p = SplitPart {
            outer: 3,
            row: 4,
            begin: 4,
            len: 0,
        };
        let mut out: [f32; 0] = [];
        split_part(&p, &[1.0; 12], &mut out);
    }
}
