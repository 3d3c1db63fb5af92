//! MEAN as LiteRT's optimized float kernel computes it (`reduce.cc`, `kGenericOptimized` →
//! `optimized_ops::Mean<float, float>`, read from the TF 2.21 wheel's disassembly).
//!
//! The kernel first resolves the axes (`ResolveAxis`: dims of size 1 drop out, adjacent reduced
//! dims merge, adjacent kept dims merge). When that leaves a `[rows, n]` shape reduced over its
//! last dim, each row is summed by Eigen
//! ([`eigen::aligned_sum`], packet alignment from the row's offset in the tensor) and divided by
//! `n`. Every other reduction goes through `MeanGeneral`, which sums each output's elements in
//! row-major input order like the reference kernel (which the engine then runs).

use super::eigen;

/// `(rows, n)` when MEAN over `axes` of `dims` takes the Eigen row-sum path: ignoring dims of
/// size 1, the reduced axes (duplicates allowed) are exactly the trailing dims, and not all dims.
pub fn last_axis_split(dims: &[usize], axes: &[usize]) -> Option<(usize, usize)> {
    let wide = |d: &usize| dims[*d] != 1;
    let reduced = |d: &usize| axes.contains(d);
    // The first dim (of size ≠ 1) of the trailing run of reduced ones.
    let mut k = None;
    for d in (0..dims.len()).rev().filter(wide) {
        if !reduced(&d) {
            break;
        }
        k = Some(d);
    }
    let k = k?;
    let kept_before = (0..k).filter(wide).any(|d| !reduced(&d));
    let reduced_before = (0..k).filter(wide).any(|d| reduced(&d));
    if !kept_before || reduced_before {
        return None;
    }
    Some((dims[..k].iter().product(), dims[k..].iter().product()))
}

/// MEAN over the last dim of `[rows, n]` (see [`last_axis_split`]): each row's Eigen sum divided
/// by `n` (`0 / 0` when `n` is 0, as the kernel computes it).
pub fn mean_last_axis(n: usize, input: &[f32], output: &mut [f32]) {
    let count = n as f32;
    if n == 0 {
        output.fill(0.0 / count);
        return;
    }
    for (row, (o, v)) in output.iter_mut().zip(input.chunks_exact(n)).enumerate() {
        *o = eigen::aligned_sum(v, eigen::head_to_alignment(row * n)) / count;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eigen_path_only_for_trailing_axes() {
        assert_eq!(last_axis_split(&[1, 3, 4, 9], &[3]), Some((12, 9)));
        assert_eq!(last_axis_split(&[2, 3, 4], &[2, 1, 2]), Some((2, 12)));
        assert_eq!(last_axis_split(&[1, 5, 5, 7], &[1, 2]), None);
        assert_eq!(last_axis_split(&[4, 5], &[0, 1]), None);
        assert_eq!(last_axis_split(&[4, 5], &[0]), None);
        assert_eq!(last_axis_split(&[9], &[0]), None);
        // Dims of size 1 do not count, reduced or not.
        assert_eq!(last_axis_split(&[1, 1, 1, 13], &[3]), None);
        assert_eq!(last_axis_split(&[2, 5, 1], &[1]), Some((2, 5)));
        assert_eq!(last_axis_split(&[2, 1, 5], &[2]), Some((2, 5)));
        assert_eq!(last_axis_split(&[3, 7, 1], &[1, 2]), Some((3, 7)));
    }

    /// TF 2.21's MEAN over axis 1 of a 3×20 tensor, `x_i = ((7·i) mod 23)·0.37 − 2` (rounded
    /// from f64): rows at offsets 0, 20 and 40 start 0, 4 and 0 elements before a packet
    /// boundary; none equals the left-to-right sum's mean.
    #[test]
    fn mean_matches_tf() {
        let x: Vec<f32> = (0..60)
            .map(|i| (((i * 7) % 23) as f64 * 0.37 - 2.0) as f32)
            .collect();
        let (rows, n) = last_axis_split(&[3, 20], &[1]).expect("Eigen path");
        let mut y = vec![0.0f32; rows];
        mean_last_axis(n, &x, &mut y);
        let bits: Vec<u32> = y.iter().map(|v| v.to_bits()).collect();
        assert_eq!(bits, [0x400b_9582, 0x4004_7ae2, 0x3ffa_c083]);
    }
}
