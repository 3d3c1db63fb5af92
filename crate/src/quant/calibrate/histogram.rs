//! The per-tensor histogram: [`GrowingHistogram`], of fixed size, on a power-of-two grid that
//! depends only on the extremes of the values it counted (so histograms of separate slices of
//! the samples merge into exactly the histogram of all of them), and [`Histogram`], the trimmed
//! snapshot the statistics carry (what the page plots, and what percentile and MSE range
//! selection read).

use std::ops::AddAssign;

use serde::{Deserialize, Serialize};

use crate::kernels::observe;

/// Bins per tensor histogram (as TensorRT's entropy/percentile calibrators use).
pub const HISTOGRAM_BINS: usize = 2048;

/// The finest bin width, `2^MIN_EXP`: below the spacing of the smallest `f32` subnormal
/// (`2^-149`), so a tensor of zeros gets one bin like any constant tensor.
const MIN_EXP: i32 = -173;

/// Mantissa bits of `f32` beyond which a finer bin cannot separate values near the extremes: a
/// grid is never finer than `2^(⌊log2 max|v|⌋ − 24)` (one `f32` step at the largest magnitude).
const F32_STEP_BITS: i32 = 24;

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

/// Where the bins of a [`GrowingHistogram`] lie: width `2^exp`, bin `i` covering
/// `[(base + i)·2^exp, (base + i + 1)·2^exp)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Grid {
    /// Exponent of the bin width.
    pub exp: i32,
    /// The first bin's lower edge, in bin widths.
    pub base: i64,
}

impl Grid {
    /// The grid of `bins` bins (at least 2) for values whose extremes are `min ≤ max` (finite):
    /// the finest power-of-two width `2^exp` such that the cells `⌊min / 2^exp⌋` to
    /// `⌊max / 2^exp⌋` number at most `bins`, but never finer than one `f32` step at the largest
    /// magnitude (`2^(⌊log2 max(|min|, |max|)⌋ − 24)`, or `2^-173` for zeros); the first bin is
    /// min's cell. A function of the extremes alone, and never finer for wider extremes.
    pub fn fit(min: f64, max: f64, bins: usize) -> Grid {
        let bins = bins.max(2);
        let m = min.abs().max(max.abs());
        let floor = if m > 0.0 {
            (ilogb(m) - F32_STEP_BITS).max(MIN_EXP)
        } else {
            MIN_EXP
        };
        let span = max - min;
        // Below `ilogb(span) − ilogb(bins) − 2` the cells would number more than 2·bins.
        let mut exp = if span > 0.0 {
            floor.max(ilogb(span) - ilogb(bins as f64) - 2)
        } else {
            floor
        };
        while cell(max, exp) - cell(min, exp) >= bins as i64 {
            exp += 1;
        }
        Grid {
            exp,
            base: cell(min, exp),
        }
    }

    /// Bin width.
    pub fn width(self) -> f64 {
        pow2(self.exp)
    }

    /// Lower edge of bin `i`.
    pub fn edge(self, i: usize) -> f64 {
        (self.base + i as i64) as f64 * self.width()
    }

    /// The bin of `v` (clamped to `0..bins`).
    fn bin(self, v: f64, bins: usize) -> usize {
        clamp_bin(cell(v, self.exp) - self.base, bins)
    }
}

/// `⌊log2 x⌋` of a positive normal `f64`.
fn ilogb(x: f64) -> i32 {
    ((x.to_bits() >> 52) & 0x7ff) as i32 - 1023
}

/// `2^e` for `-1022 ≤ e ≤ 1023` (the grids use `-173..=160`).
fn pow2(e: i32) -> f64 {
    f64::from_bits(((e.clamp(-1022, 1023) + 1023) as u64) << 52)
}

/// `⌊v / 2^exp⌋`: exact (scaling by a power of two loses nothing in this range).
fn cell(v: f64, exp: i32) -> i64 {
    (v * pow2(-exp)).floor() as i64
}

fn clamp_bin(i: i64, bins: usize) -> usize {
    usize::try_from(i.max(0))
        .unwrap_or(usize::MAX)
        .min(bins - 1)
}

/// The extremes of the values counted and the grid they fit.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Fit {
    min: f64,
    max: f64,
    grid: Grid,
}

/// Widens `fit` to cover `[min, max]`, moving `counts` to the new grid: cell `c` of width
/// `2^e` lies in cell `c >> (e' − e)` of width `2^e'` (`e' ≥ e`), so every count moves whole.
fn widen<C: Copy + Default + AddAssign>(
    fit: &mut Option<Fit>,
    counts: &mut [C],
    min: f64,
    max: f64,
) {
    let bins = counts.len();
    let (min, max) = match *fit {
        Some(f) => (f.min.min(min), f.max.max(max)),
        None => (min, max),
    };
    let grid = Grid::fit(min, max, bins);
    if let Some(old) = *fit
        && old.grid != grid
    {
        regrid(counts, old.grid, grid);
    }
    *fit = Some(Fit { min, max, grid });
}

/// Moves `counts` from grid `from` to the coarser (or equal) grid `to`.
fn regrid<C: Copy + Default + AddAssign>(counts: &mut [C], from: Grid, to: Grid) {
    let mut moved = vec![C::default(); counts.len()];
    add_regridded(&mut moved, to, counts, from);
    counts.copy_from_slice(&moved);
}

/// Adds `counts`, on grid `from`, to `to_counts` on the coarser (or equal) grid `to`: cell `c`
/// of width `2^e` lies in cell `c >> (e' − e)` of width `2^e'`, so every count moves whole.
fn add_regridded<C: Copy, T: AddAssign + From<C>>(
    to_counts: &mut [T],
    to: Grid,
    counts: &[C],
    from: Grid,
) {
    let bins = to_counts.len();
    let shift = u32::try_from(to.exp - from.exp).unwrap_or(0).min(63);
    for (i, &c) in counts.iter().enumerate() {
        let j = ((from.base + i as i64) >> shift) - to.base;
        to_counts[clamp_bin(j, bins)] += T::from(c);
    }
}

/// A histogram of fixed size whose bins are a function of the extremes of the values counted
/// ([`Grid::fit`]): equal bins of a power-of-two width, aligned on multiples of it. A value
/// beyond the extremes widens the grid; since a coarser grid's bins are unions of the finer
/// one's, every count moves whole. So the histogram of a set of values is the same whatever the
/// order they came in, and [`GrowingHistogram::merge`] of the histograms of two slices is exactly
/// the histogram of both. The resolution stays within 2× of `span / bins`.
#[derive(Debug, Clone, PartialEq)]
pub struct GrowingHistogram {
    fit: Option<Fit>,
    counts: Vec<u64>,
}

impl GrowingHistogram {
    /// An empty histogram of `bins` bins (at least 2).
    pub fn new(bins: usize) -> Self {
        GrowingHistogram {
            fit: None,
            counts: vec![0; bins.max(2)],
        }
    }

    /// Number of bins (fixed).
    pub fn bins(&self) -> usize {
        self.counts.len()
    }

    /// The grid (`None` while empty).
    pub fn grid(&self) -> Option<Grid> {
        self.fit.map(|f| f.grid)
    }

    /// The extremes of the values counted (`None` while empty).
    pub fn extremes(&self) -> Option<(f64, f64)> {
        self.fit.map(|f| (f.min, f.max))
    }

    /// Lower edge of the first bin (0 while empty).
    pub fn lo(&self) -> f64 {
        self.grid().map_or(0.0, |g| g.edge(0))
    }

    /// Upper edge of the last bin (0 while empty).
    pub fn hi(&self) -> f64 {
        self.grid().map_or(0.0, |g| g.edge(self.counts.len()))
    }

    /// The counts per bin.
    pub fn counts(&self) -> &[u64] {
        &self.counts
    }

    /// Total number of values added.
    pub fn total(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// The bin of `v` (clamped to the range).
    pub fn bin(&self, v: f64) -> usize {
        self.grid().map_or(0, |g| g.bin(v, self.counts.len()))
    }

    /// Adds one finite value.
    pub fn add(&mut self, v: f64) {
        widen(&mut self.fit, &mut self.counts, v, v);
        let i = self.bin(v);
        self.counts[i] += 1;
    }

    /// Adds every value `later` counted: exactly the histogram of both sets of values. Both must
    /// have the same number of bins.
    pub fn merge(&mut self, later: &GrowingHistogram) {
        let Some(f) = later.fit else { return };
        let mut theirs = later.counts.clone();
        widen(&mut self.fit, &mut self.counts, f.min, f.max);
        if let Some(mine) = self.fit {
            regrid(&mut theirs, f.grid, mine.grid);
        }
        for (c, t) in self.counts.iter_mut().zip(theirs) {
            *c += t;
        }
    }

    /// Adds the counts of `pending` and clears it.
    pub(super) fn commit(&mut self, pending: &mut PendingBins) {
        let Some(f) = pending.fit.take() else { return };
        widen(&mut self.fit, &mut self.counts, f.min, f.max);
        if let Some(mine) = self.fit {
            // The pending counts lie in bins 0 ..= the bin of the sample's maximum.
            let used = f.grid.bin(f.max, pending.counts.len()) + 1;
            add_regridded(&mut self.counts, mine.grid, &pending.counts[..used], f.grid);
        }
        pending.counts.fill(0);
    }

    /// The histogram with extremes `[min, max]` and these counts (as read back from
    /// [`GrowingHistogram::extremes`] and [`GrowingHistogram::counts`]).
    pub(super) fn from_parts(extremes: Option<(f64, f64)>, counts: Vec<u64>) -> Self {
        let fit = extremes.map(|(min, max)| Fit {
            min,
            max,
            grid: Grid::fit(min, max, counts.len()),
        });
        GrowingHistogram { fit, counts }
    }

    /// A snapshot with empty leading and trailing bins trimmed.
    pub fn snapshot(&self) -> Histogram {
        let first = self.counts.iter().position(|&c| c > 0);
        let last = self.counts.iter().rposition(|&c| c > 0);
        match (self.grid(), first, last) {
            (Some(g), Some(f), Some(l)) => Histogram {
                lo: g.edge(f),
                hi: g.edge(l + 1),
                counts: self.counts[f..=l].to_vec(),
            },
            _ => Histogram {
                lo: self.lo(),
                hi: self.lo(),
                counts: Vec::new(),
            },
        }
    }
}

/// One sample's bin counts of one tensor, on their own grid until the sample commits
/// ([`GrowingHistogram::commit`]) or fails ([`PendingBins::clear`]).
#[derive(Debug, Clone)]
pub(super) struct PendingBins {
    fit: Option<Fit>,
    counts: Vec<u32>,
}

impl PendingBins {
    /// No counts, `bins` bins.
    pub(super) fn new(bins: usize) -> Self {
        PendingBins {
            fit: None,
            counts: vec![0; bins.max(2)],
        }
    }

    /// Counts `values`, whose extremes are `lo ≤ hi` (finite).
    pub(super) fn record(&mut self, values: &[f32], lo: f32, hi: f32) {
        widen(
            &mut self.fit,
            &mut self.counts,
            f64::from(lo),
            f64::from(hi),
        );
        if let Some(f) = self.fit {
            observe::bin_counts(
                values,
                pow2(-f.grid.exp),
                f.grid.base as f64,
                &mut self.counts,
            );
        }
    }

    /// Forgets every count.
    pub(super) fn clear(&mut self) {
        self.fit = None;
        self.counts.iter_mut().for_each(|c| *c = 0);
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
        // The resolution stays within 2× of range / bins.
        let range = 9999.0 + 9998.0 * 0.37;
        assert!(
            h.hi() - h.lo() <= 2.0 * range * 64.0 / 63.0,
            "{} vs {range}",
            h.hi() - h.lo()
        );
    }

    #[test]
    fn the_grid_is_the_finest_power_of_two_that_fits() {
        // [0, 1) in 4 bins: width 1/4; [0, 1] needs 5 cells of 1/4, so 1/2.
        assert_eq!(Grid::fit(0.0, 0.99, 4), Grid { exp: -2, base: 0 });
        assert_eq!(Grid::fit(0.0, 1.0, 4), Grid { exp: -1, base: 0 });
        // Aligned on multiples of the width: -0.3 lies in cell -2 of width 1/4.
        assert_eq!(Grid::fit(-0.3, 0.2, 4), Grid { exp: -2, base: -2 });
        // A constant: one f32 step at its magnitude (2^-24 at 1.0); zeros: 2^-173.
        assert_eq!(
            Grid::fit(1.0, 1.0, 4),
            Grid {
                exp: -24,
                base: 1 << 24
            }
        );
        assert_eq!(Grid::fit(0.0, 0.0, 4), Grid { exp: -173, base: 0 });
        let big = f64::from(f32::MAX);
        let g = Grid::fit(-big, big, HISTOGRAM_BINS);
        assert!(g.edge(0) <= -big && g.edge(HISTOGRAM_BINS) > big, "{g:?}");
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
        // Extreme growth (2^-173 → f32::MAX) keeps every count.
        h.add(f64::from(f32::MAX));
        h.add(f64::from(-f32::MAX));
        assert_eq!(h.total(), 9);
        assert!(h.lo() <= f64::from(-f32::MAX) && h.hi() > f64::from(f32::MAX));
    }

    /// Values of many magnitudes, signed zeros, subnormals and `f32` extremes.
    fn value(rng: &mut fastrand::Rng) -> f32 {
        match rng.u8(0..20) {
            0 => 0.0,
            1 => -0.0,
            2 => [1e-45, -1e-45, 1e-40, f32::MAX, -f32::MAX][rng.usize(0..5)],
            _ => {
                let scale = [1e-30f32, 1e-3, 1.0, 7.5, 1e4, 1e30][rng.usize(0..6)];
                (rng.f32() * 2.0 - 1.0) * scale + [0.0f32, 3.0, -1000.0][rng.usize(0..3)]
            }
        }
    }

    /// Histograms of slices, merged in any grouping, equal the histogram of all the values,
    /// which equals counting each value at the final grid.
    fn check_merge(seed: u64) {
        let mut rng = fastrand::Rng::with_seed(seed);
        let bins = [2usize, 5, 64, HISTOGRAM_BINS][rng.usize(0..4)];
        let n = rng.usize(0..300);
        let values: Vec<f32> = (0..n).map(|_| value(&mut rng)).collect();
        let mut all = GrowingHistogram::new(bins);
        for &v in &values {
            all.add(f64::from(v));
        }
        // Cut into slices, each recorded as pending samples of a few values then committed.
        let mut cuts: Vec<usize> = (0..rng.usize(0..5)).map(|_| rng.usize(0..=n)).collect();
        cuts.extend([0, n]);
        cuts.sort_unstable();
        let parts: Vec<GrowingHistogram> = cuts
            .windows(2)
            .map(|w| {
                let mut h = GrowingHistogram::new(bins);
                let mut pending = PendingBins::new(bins);
                for chunk in values[w[0]..w[1]].chunks(rng.usize(1..8)) {
                    for piece in chunk.chunks(rng.usize(1..4)) {
                        let lo = piece.iter().copied().fold(f32::INFINITY, f32::min);
                        let hi = piece.iter().copied().fold(f32::NEG_INFINITY, f32::max);
                        pending.record(piece, lo, hi);
                    }
                    h.commit(&mut pending);
                }
                h
            })
            .collect();
        let mut merged = GrowingHistogram::new(bins);
        for p in &parts {
            merged.merge(p);
        }
        assert_eq!(merged, all, "seed {seed}: merged in order");
        // Right to left, too.
        let mut back = GrowingHistogram::new(bins);
        for p in parts.iter().rev() {
            back.merge(p);
        }
        assert_eq!(back, all, "seed {seed}: merged in reverse");
        let mut fresh = vec![0u64; bins];
        for &v in &values {
            fresh[all.bin(f64::from(v))] += 1;
        }
        assert_eq!(all.counts(), fresh.as_slice(), "seed {seed}");
        if let Some((lo, hi)) = all.extremes() {
            assert!(all.lo() <= lo && hi < all.hi(), "seed {seed}");
        }
    }

    #[test]
    fn merged_slices_equal_the_whole() {
        for seed in 0..300 {
            check_merge(seed);
        }
    }

    #[cfg(not(target_arch = "wasm32"))]
    mod props {
        use proptest::prelude::*;

        proptest! {
            #[test]
            fn merged_slices_equal_the_whole_prop(seed in any::<u64>()) {
                super::check_merge(seed);
            }
        }
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
