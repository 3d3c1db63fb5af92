//! Entropy (KL-divergence) range selection, one of `--auto`'s candidates: the range whose int8
//! quantization of the recorded distribution loses the least information (TensorRT's entropy
//! calibration, made asymmetric).
//!
//! For each candidate range `[α·m0, α·m1]` (`m0 = min(min, 0)`, `m1 = max(max, 0)`,
//! `α = k / KL_CANDIDATES`), over the histogram bins it covers:
//! - `P`: the bin counts, with everything outside the range added to the edge bins (clipping);
//! - `Q`: the counts without the clipped mass, merged into [`KL_LEVELS`] groups of adjacent bins
//!   (the quantization levels), each group's total spread evenly over its non-empty bins;
//!
//! and the range with the least `KL(P ‖ Q)` wins (ties to the wider range). Ranges that cover
//! fewer bins than levels cannot be judged (the histogram is coarser than the quantization) and
//! are not tried.

use crate::quant::calibrate::Histogram;

/// Number of candidate ranges tried (shrink factors `k / KL_CANDIDATES`).
pub const KL_CANDIDATES: usize = 128;

/// Quantization levels of the error model (int8).
pub const KL_LEVELS: usize = 256;

/// Added to every `Q` bin that `P` has mass in, so that a clipped edge never divides by zero.
const Q_FLOOR: f64 = 1e-12;

/// The KL-optimal range within `[min, max]` for `h` (see the module docs); `(min, max)` when the
/// histogram is empty or too coarse.
pub fn kl_range(h: &Histogram, min: f64, max: f64) -> (f64, f64) {
    let (m0, m1) = (min.min(0.0), max.max(0.0));
    let w = h.bin_width();
    let n = h.counts.len();
    if n == 0 || w <= 0.0 || m1 <= m0 {
        return (min, max);
    }
    let total: f64 = h.counts.iter().map(|&c| c as f64).sum();
    if total == 0.0 {
        return (min, max);
    }
    let mut best = (f64::INFINITY, min, max);
    for k in (1..=KL_CANDIDATES).rev() {
        let alpha = k as f64 / KL_CANDIDATES as f64;
        let (a, b) = (alpha * m0, alpha * m1);
        let i0 = (((a - h.lo) / w).floor().max(0.0) as usize).min(n);
        let i1 = (((b - h.lo) / w).ceil().max(0.0) as usize).min(n);
        if i1 <= i0 || i1 - i0 < KL_LEVELS {
            continue;
        }
        let kl = divergence(&h.counts, i0, i1, total);
        if kl < best.0 {
            best = (kl, a.max(min), b.min(max));
        }
    }
    (best.1, best.2)
}

/// `KL(P ‖ Q)` for the bins `i0..i1` of `counts` (`total` = all counts).
fn divergence(counts: &[u64], i0: usize, i1: usize, total: f64) -> f64 {
    let inside = &counts[i0..i1];
    let below: f64 = counts[..i0].iter().map(|&c| c as f64).sum();
    let above: f64 = counts[i1..].iter().map(|&c| c as f64).sum();
    let mut p: Vec<f64> = inside.iter().map(|&c| c as f64).collect();
    let last = p.len() - 1;
    p[0] += below;
    p[last] += above;
    let n = inside.len();
    let mut q = vec![0.0f64; n];
    for level in 0..KL_LEVELS {
        let (s, e) = (level * n / KL_LEVELS, (level + 1) * n / KL_LEVELS);
        let group = &inside[s..e];
        let mass: f64 = group.iter().map(|&c| c as f64).sum();
        let nonzero = group.iter().filter(|&&c| c > 0).count();
        if nonzero == 0 {
            continue;
        }
        let each = mass / nonzero as f64;
        for (j, &c) in group.iter().enumerate() {
            if c > 0 {
                q[s + j] = each;
            }
        }
    }
    let q_total: f64 = q.iter().sum::<f64>().max(f64::MIN_POSITIVE);
    p.iter()
        .zip(&q)
        .filter(|(p, _)| **p > 0.0)
        .map(|(&p, &q)| {
            let p = p / total;
            let q = (q / q_total).max(Q_FLOOR);
            p * (p / q).ln()
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::quant::calibrate::{GrowingHistogram, HISTOGRAM_BINS};

    #[test]
    fn uniform_keeps_the_full_range() {
        let mut g = GrowingHistogram::new(HISTOGRAM_BINS);
        for k in 0..=40_000u32 {
            g.add(f64::from(k) / 20_000.0 - 1.0);
        }
        let (a, b) = kl_range(&g.snapshot(), -1.0, 1.0);
        assert!(a <= -0.99 && b >= 0.99, "[{a}, {b}]");
    }

    #[test]
    fn a_far_outlier_is_clipped() {
        // 100,000 values spread unevenly over [0, 1] (density falling as 1/√v) and one at 1000:
        // min/max would put all of them in the first level; KL clips the outlier, as far as
        // 2048 bins allow (a range must cover 256 of them, an eighth of [0, 1000]). Over
        // [0, 1000] the values fill two bins of width 1/2, 71 % and 29 %: a level that spreads
        // them evenly loses information, so the narrowest range wins (with values spread evenly,
        // every range would tie and the widest would be kept).
        let mut g = GrowingHistogram::new(HISTOGRAM_BINS);
        for k in 0..100_000u32 {
            g.add((f64::from(k % 1000) / 1000.0).powi(2));
        }
        g.add(1000.0);
        let (a, b) = kl_range(&g.snapshot(), 0.0, 1000.0);
        assert_eq!(a, 0.0);
        assert!(b < 300.0, "outlier clipped: {b}");
    }

    #[test]
    fn empty_or_coarse_histograms_keep_the_range() {
        let h = Histogram {
            lo: 0.0,
            hi: 1.0,
            counts: vec![],
        };
        assert_eq!(kl_range(&h, -1.0, 2.0), (-1.0, 2.0));
        let h = Histogram {
            lo: 0.0,
            hi: 1.0,
            counts: vec![5; 100],
        };
        assert_eq!(kl_range(&h, 0.0, 1.0), (0.0, 1.0));
    }
}
