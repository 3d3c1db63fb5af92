//! The per-tensor histogram: [`GrowingHistogram`], of fixed size, whose range grows by exact
//! bin merges while samples stream in, and [`Histogram`], the trimmed snapshot the statistics
//! carry (what the page plots, and what percentile and MSE range selection read).

use serde::{Deserialize, Serialize};

/// Bins per tensor histogram (as TensorRT's entropy/percentile calibrators use).
pub const HISTOGRAM_BINS: usize = 2048;

/// A histogram snapshot: `counts.len()` equal bins over `[lo, hi)`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
pub struct Histogram {
    /// Lower edge of the first bin.
    pub lo: f64,
    /// Upper edge of the last bin.
    pub hi: f64,
    /// Values per bin (empty leading and trailing bins are trimmed).
    pub counts: Vec<u64>,
}

impl Histogram {
    /// Total number of values.
    pub fn total(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// Width of one bin (0 for an empty histogram).
    pub fn bin_width(&self) -> f64 {
        if self.counts.is_empty() {
            0.0
        } else {
            (self.hi - self.lo) / self.counts.len() as f64
        }
    }

    /// The bin where the cumulative count reaches a fraction `q` (0..=1) of all values. `None`
    /// for an empty histogram.
    pub fn bin_at(&self, q: f64) -> Option<usize> {
        let total = self.total();
        if total == 0 {
            return None;
        }
        let target = q.clamp(0.0, 1.0) * total as f64;
        let mut before = 0.0f64;
        for (i, &c) in self.counts.iter().enumerate() {
            before += c as f64;
            if c > 0 && before >= target {
                return Some(i);
            }
        }
        Some(self.counts.len() - 1)
    }

    /// The value below which a fraction `q` (0..=1) of the values lie, interpolating linearly
    /// inside the bin where it falls. `None` for an empty histogram.
    pub fn quantile(&self, q: f64) -> Option<f64> {
        let total = self.total();
        if total == 0 {
            return None;
        }
        let target = q.clamp(0.0, 1.0) * total as f64;
        let w = self.bin_width();
        let mut before = 0.0f64;
        for (i, &c) in self.counts.iter().enumerate() {
            let c = c as f64;
            if c > 0.0 && before + c >= target {
                let frac = ((target - before) / c).clamp(0.0, 1.0);
                return Some(self.lo + (i as f64 + frac) * w);
            }
            before += c;
        }
        Some(self.hi)
    }
}

/// A histogram of fixed size whose range grows by merging bins, so memory stays bounded
/// however many values it sees (the scheme of ONE's and TensorRT's histogram calibrators, here
/// with exact merges).
///
/// The first values set the range: `[min, max]` spread over `bins − 1` bins (so the max falls
/// strictly inside the last bin), or a span of `max(|v|/128, 1e-6)` centred on `v` when all are
/// equal. A value outside the range grows it: the bin width is multiplied by the smallest power
/// of two `F ≥ 2` that covers the old range and the new values, keeping the upper edge when only
/// the low side grows, else the lower edge (moved down by a whole number `a` of old bins when
/// both sides grow). Every new bin edge is an old bin edge, so old bin `i` goes entirely into
/// new bin `⌊(i + a) / F⌋`: every count is kept exactly. Since each growth at most doubles the
/// range beyond what the data needs, the range stays within about 4× the data's span (the
/// resolution within 4× of `span / bins`). Edges are kept in `f64`.
#[derive(Debug, Clone, PartialEq)]
pub struct GrowingHistogram {
    /// Lower edge of the first bin.
    pub(super) lo: f64,
    /// Bin width; 0 until the first value.
    pub(super) width: f64,
    counts: Vec<u64>,
}

impl GrowingHistogram {
    /// An empty histogram of `bins` bins (at least 2).
    pub fn new(bins: usize) -> Self {
        GrowingHistogram {
            lo: 0.0,
            width: 0.0,
            counts: vec![0; bins.max(2)],
        }
    }

    /// Number of bins (fixed).
    pub fn bins(&self) -> usize {
        self.counts.len()
    }

    /// Lower edge of the first bin.
    pub fn lo(&self) -> f64 {
        self.lo
    }

    /// Upper edge of the last bin.
    pub fn hi(&self) -> f64 {
        self.lo + self.width * self.counts.len() as f64
    }

    /// The counts per bin.
    pub fn counts(&self) -> &[u64] {
        &self.counts
    }

    /// Total number of values added.
    pub fn total(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// Grows the range (merging bins, keeping every count) until it covers `[min, max]`.
    /// Both must be finite.
    pub fn cover(&mut self, min: f64, max: f64) {
        self.cover_with_pending(min, max, &mut []);
    }

    /// [`GrowingHistogram::cover`], regrouping `pending` (counts over the same bins not yet
    /// committed, e.g. earlier iterations of a loop in this sample) along with the counts.
    pub(super) fn cover_with_pending(&mut self, min: f64, max: f64, pending: &mut [u32]) {
        let b = self.counts.len() as f64;
        if self.width == 0.0 {
            if max > min {
                self.width = (max - min) / (b - 1.0);
                self.lo = min;
            } else {
                let span = (min.abs() / 128.0).max(1e-6);
                self.width = span / b;
                self.lo = min - span / 2.0;
            }
            return;
        }
        if min >= self.lo && max < self.hi() {
            return;
        }
        let w = self.width;
        let grow_left = min < self.lo;
        let grow_right = max >= self.hi();
        // `a`: old bins added below the old range; `factor`: new bin width in old widths.
        let (a, factor) = if grow_left && !grow_right {
            // Keep the upper edge: the range extends downwards only (mirror of growing up).
            let need = b + ((self.lo - min) / w).ceil();
            let mut f = 2.0f64;
            while b * f < need && f.is_finite() {
                f *= 2.0;
            }
            ((f - 1.0) * b, f)
        } else {
            let a = if grow_left {
                ((self.lo - min) / w).ceil()
            } else {
                0.0
            };
            // Keep the lower edge (moved down by `a` when both sides grow).
            let need = (a + b).max(a + ((max - self.lo) / w).floor() + 1.0);
            let mut f = 2.0f64;
            while b * f < need && f.is_finite() {
                f *= 2.0;
            }
            (a, f)
        };
        let last = self.counts.len() - 1;
        let to = |i: usize| (((i as f64 + a) / factor).floor().max(0.0) as usize).min(last);
        let mut merged = vec![0u64; self.counts.len()];
        for (i, &c) in self.counts.iter().enumerate() {
            if c > 0 {
                merged[to(i)] += c;
            }
        }
        self.counts = merged;
        if pending.iter().any(|&p| p > 0) {
            let mut moved = vec![0u32; pending.len()];
            let top = moved.len() - 1;
            for (i, &p) in pending.iter().enumerate() {
                moved[to(i).min(top)] += p;
            }
            pending.copy_from_slice(&moved);
        }
        self.lo -= a * w;
        self.width = w * factor;
    }

    /// The bin of `v` (clamped to the range; call [`GrowingHistogram::cover`] first).
    pub fn bin(&self, v: f64) -> usize {
        if self.width == 0.0 {
            return 0;
        }
        let i = ((v - self.lo) / self.width).floor();
        (i.max(0.0) as usize).min(self.counts.len() - 1)
    }

    /// Adds one finite value (growing the range if needed).
    pub fn add(&mut self, v: f64) {
        self.cover(v, v);
        let i = self.bin(v);
        self.counts[i] += 1;
    }

    /// Adds `pending[i]` to bin `i` and clears `pending`.
    pub(super) fn commit(&mut self, pending: &mut [u32]) {
        for (c, p) in self.counts.iter_mut().zip(pending.iter_mut()) {
            *c += u64::from(*p);
            *p = 0;
        }
    }

    /// Forgets the range when no value was ever counted (after a first sample that failed).
    pub(super) fn reset_if_empty(&mut self) {
        if self.total() == 0 {
            self.width = 0.0;
            self.lo = 0.0;
        }
    }

    /// A snapshot with empty leading and trailing bins trimmed.
    pub fn snapshot(&self) -> Histogram {
        let first = self.counts.iter().position(|&c| c > 0);
        let last = self.counts.iter().rposition(|&c| c > 0);
        match (first, last) {
            (Some(f), Some(l)) => Histogram {
                lo: self.lo + f as f64 * self.width,
                hi: self.lo + (l + 1) as f64 * self.width,
                counts: self.counts[f..=l].to_vec(),
            },
            _ => Histogram {
                lo: self.lo,
                hi: self.lo,
                counts: Vec::new(),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histogram_growth_keeps_counts_and_bounds_memory() {
        let mut h = GrowingHistogram::new(64);
        let mut n = 0u64;
        for k in 0..10_000u32 {
            // A range that keeps growing on both sides.
            let v = f64::from(k) * if k % 2 == 0 { 1.0 } else { -0.37 };
            h.add(v);
            n += 1;
            assert_eq!(h.total(), n);
            assert!(
                h.lo() <= v && v < h.hi(),
                "{v} outside [{}, {})",
                h.lo(),
                h.hi()
            );
        }
        assert_eq!(h.counts().len(), 64, "fixed size");
        // Each value is in the bin that holds it: rebinning from scratch at the final edges
        // gives the same counts (merges are exact).
        let mut fresh = vec![0u64; 64];
        for k in 0..10_000u32 {
            let v = f64::from(k) * if k % 2 == 0 { 1.0 } else { -0.37 };
            fresh[h.bin(v)] += 1;
        }
        assert_eq!(h.counts(), fresh.as_slice());
        // The resolution stays within a small factor of range / bins.
        let range = 9999.0 + 9999.0 * 0.37;
        assert!(
            h.hi() - h.lo() <= 4.5 * range,
            "{} vs {range}",
            h.hi() - h.lo()
        );
    }

    #[test]
    fn histogram_of_constant_values_then_growth() {
        let mut h = GrowingHistogram::new(16);
        for _ in 0..5 {
            h.add(0.0);
        }
        h.add(1e6);
        h.add(-3.0);
        assert_eq!(h.total(), 7);
        let snap = h.snapshot();
        assert_eq!(snap.total(), 7);
        assert!(
            snap.lo <= -3.0 && snap.hi > 1e6,
            "[{}, {})",
            snap.lo,
            snap.hi
        );
        // Extreme growth (1e-6 → f32::MAX) keeps every count.
        h.add(f64::from(f32::MAX));
        h.add(f64::from(-f32::MAX));
        assert_eq!(h.total(), 9);
        assert!(h.lo() <= f64::from(-f32::MAX) && h.hi() > f64::from(f32::MAX));
    }

    #[test]
    fn percentile_on_a_uniform_distribution() {
        let mut h = GrowingHistogram::new(HISTOGRAM_BINS);
        for k in 0..=100_000u32 {
            h.add(f64::from(k) / 100_000.0);
        }
        let s = h.snapshot();
        let w = s.bin_width();
        for q in [0.01, 0.5, 0.99, 0.9999] {
            let v = s.quantile(q).expect("non-empty");
            assert!((v - q).abs() <= w, "q {q}: {v}");
        }
    }
}
