//! The mergeable statistics: [`TensorState`], what one tensor's statistics are after some
//! samples, and [`CalibrationState`], a model's. Calibrating the samples in slices, one
//! [`Calibrator`](super::Calibrator) per slice, and merging the slices' states in sample order
//! ([`CalibrationState::merge`]) gives exactly the state of one calibrator that saw every sample:
//!
//! - TF's min/max and the true extremes are minima and maxima (the same `f32` comparisons,
//!   whatever the grouping);
//! - the histogram's bins depend only on the extremes of the values counted
//!   ([`GrowingHistogram`]), so histograms merge exactly;
//! - the moving average is sequential: a slice that is to be merged into an earlier one keeps
//!   its per-sample extremes ([`Calibrator::for_slice`](super::Calibrator::for_slice)), and the
//!   merge continues the earlier slice's average over them, step by step as one calibrator
//!   would.
//!
//! A state crosses between Web Workers as bytes ([`CalibrationState::to_bytes`], a compact
//! little-endian encoding that keeps every bit of every number).

use super::histogram::{GrowingHistogram, HISTOGRAM_BINS};
use super::method::{Method, choose_range};
use super::stats::{CalibrationStats, MOVING_AVERAGE_SMOOTHING, TF_MAX_START, TensorStats};
use crate::error::{Error, Result};

/// The statistics of one tensor after some samples (see the module docs).
#[derive(Debug, Clone, PartialEq)]
pub struct TensorState {
    pub(super) subgraph: usize,
    pub(super) index: usize,
    pub(super) name: String,
    /// TF's running min/max (see the calibration module docs for the start values).
    pub(super) min: f32,
    pub(super) max: f32,
    /// True extremes, for clamping chosen ranges.
    pub(super) true_min: f32,
    pub(super) true_max: f32,
    pub(super) ma_min: f64,
    pub(super) ma_max: f64,
    /// Samples recorded for this tensor.
    pub(super) seen: usize,
    pub(super) hist: GrowingHistogram,
    /// Each recorded sample's extremes `[min, max]`, in sample order, when kept for merging.
    pub(super) extremes: Option<Vec<[f32; 2]>>,
}

impl TensorState {
    /// Nothing recorded yet; `keep_extremes` keeps each sample's extremes for merging.
    pub(super) fn new(subgraph: usize, index: usize, name: &str, keep_extremes: bool) -> Self {
        TensorState {
            subgraph,
            index,
            name: name.to_string(),
            min: f32::MAX,
            max: TF_MAX_START,
            true_min: f32::INFINITY,
            true_max: f32::NEG_INFINITY,
            ma_min: 0.0,
            ma_max: 0.0,
            seen: 0,
            hist: GrowingHistogram::new(HISTOGRAM_BINS),
            extremes: keep_extremes.then(Vec::new),
        }
    }

    /// One more sample whose extremes were `[lo, hi]`: the moving average's step and the count.
    pub(super) fn step(&mut self, lo: f32, hi: f32) {
        let (l, h) = (f64::from(lo), f64::from(hi));
        if self.seen == 0 {
            (self.ma_min, self.ma_max) = (l, h);
        } else {
            let s = MOVING_AVERAGE_SMOOTHING;
            self.ma_min = s * self.ma_min + (1.0 - s) * l;
            self.ma_max = s * self.ma_max + (1.0 - s) * h;
        }
        self.seen += 1;
        if let Some(e) = &mut self.extremes {
            e.push([lo, hi]);
        }
    }

    /// Adds the samples of `later` (recorded after this state's).
    fn merge(&mut self, later: &TensorState) -> Result<()> {
        if later.seen == 0 {
            return Ok(());
        }
        match &later.extremes {
            Some(ex) => {
                for &[lo, hi] in ex {
                    self.step(lo, hi);
                }
            }
            None if self.seen == 0 => {
                (self.ma_min, self.ma_max) = (later.ma_min, later.ma_max);
                self.seen = later.seen;
                // This state's extremes list would miss `later`'s samples.
                self.extremes = None;
            }
            None => {
                return Err(Error::Calibration {
                    reason: format!(
                        "tensor '{}': the statistics of a later slice of the samples do not \
                         carry their per-sample extremes (calibrate it with for_slice)",
                        self.name
                    ),
                });
            }
        }
        self.min = self.min.min(later.min);
        self.max = self.max.max(later.max);
        self.true_min = self.true_min.min(later.true_min);
        self.true_max = self.true_max.max(later.true_max);
        self.hist.merge(&later.hist);
        Ok(())
    }

    /// The statistics with the range `method` chooses.
    pub(super) fn stats(&self, method: Method) -> TensorStats {
        let histogram = self.hist.snapshot();
        let (chosen_min, chosen_max) = choose_range(
            method,
            &histogram,
            (self.min, self.max),
            (self.true_min, self.true_max),
            (self.ma_min, self.ma_max),
        );
        TensorStats {
            index: self.index,
            subgraph: self.subgraph,
            name: self.name.clone(),
            min: self.min,
            max: self.max,
            chosen_min,
            chosen_max,
            method: method.to_string(),
            histogram,
            true_min: Some(self.true_min),
            true_max: Some(self.true_max),
            moving_average: Some([self.ma_min as f32, self.ma_max as f32]),
        }
    }
}

/// The statistics of a model after some samples, mergeable (see the module docs).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CalibrationState {
    pub(super) samples: usize,
    /// By subgraph, then tensor index.
    pub(super) tensors: Vec<TensorState>,
}

/// What [`CalibrationState::to_bytes`] starts with: "ZPCS" and the format version.
const MAGIC: &[u8; 4] = b"ZPCS";
const VERSION: u32 = 1;

impl CalibrationState {
    /// Samples recorded.
    pub fn samples(&self) -> usize {
        self.samples
    }

    /// Adds the samples of `later`, which came after this state's (the next slice): exactly
    /// what one calibrator would hold after both slices. `later` must have been recorded with
    /// its per-sample extremes ([`Calibrator::for_slice`](super::Calibrator::for_slice)) unless
    /// this state is empty.
    pub fn merge(&mut self, later: &CalibrationState) -> Result<()> {
        let mut tensors = Vec::with_capacity(self.tensors.len().max(later.tensors.len()));
        let mut mine = std::mem::take(&mut self.tensors).into_iter().peekable();
        let mut theirs = later.tensors.iter().peekable();
        loop {
            let key = |t: &TensorState| (t.subgraph, t.index);
            match (mine.peek(), theirs.peek()) {
                (Some(a), Some(b)) if key(a) == key(b) => {
                    let (Some(mut a), Some(b)) = (mine.next(), theirs.next()) else {
                        break;
                    };
                    a.merge(b)?;
                    tensors.push(a);
                }
                (Some(a), Some(b)) if key(a) < key(b) => tensors.extend(mine.next()),
                (_, Some(_)) => tensors.extend(theirs.next().cloned()),
                (Some(_), None) => tensors.extend(mine.next()),
                (None, None) => break,
            }
        }
        self.tensors = tensors;
        self.samples += later.samples;
        Ok(())
    }

    /// The statistics, with ranges chosen by `method` (as [`Calibrator::stats`](super::Calibrator::stats)).
    pub fn stats(&self, method: Method) -> Result<CalibrationStats> {
        stats_of(self.samples, self.tensors.iter(), method)
    }

    /// The state as bytes: every number's bits, histograms trimmed to their non-zero bins.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(MAGIC);
        put_u32(&mut out, VERSION);
        put_u64(&mut out, self.samples as u64);
        put_u64(&mut out, self.tensors.len() as u64);
        for t in &self.tensors {
            put_u64(&mut out, t.subgraph as u64);
            put_u64(&mut out, t.index as u64);
            put_u64(&mut out, t.name.len() as u64);
            out.extend_from_slice(t.name.as_bytes());
            for v in [t.min, t.max, t.true_min, t.true_max] {
                put_u32(&mut out, v.to_bits());
            }
            put_u64(&mut out, t.ma_min.to_bits());
            put_u64(&mut out, t.ma_max.to_bits());
            put_u64(&mut out, t.seen as u64);
            match t.hist.extremes() {
                Some((lo, hi)) => {
                    out.push(1);
                    put_u64(&mut out, lo.to_bits());
                    put_u64(&mut out, hi.to_bits());
                }
                None => out.push(0),
            }
            let counts = t.hist.counts();
            let first = counts.iter().position(|&c| c > 0).unwrap_or(0);
            let end = counts.iter().rposition(|&c| c > 0).map_or(0, |l| l + 1);
            put_u64(&mut out, first as u64);
            put_u64(&mut out, end.saturating_sub(first) as u64);
            for &c in counts.get(first..end).unwrap_or(&[]) {
                put_u64(&mut out, c);
            }
            match &t.extremes {
                Some(ex) => {
                    out.push(1);
                    put_u64(&mut out, ex.len() as u64);
                    for &[lo, hi] in ex {
                        put_u32(&mut out, lo.to_bits());
                        put_u32(&mut out, hi.to_bits());
                    }
                }
                None => out.push(0),
            }
        }
        out
    }

    /// Reads [`CalibrationState::to_bytes`] back; anything else is an [`Error::Calibration`]
    /// saying where it stops making sense.
    pub fn from_bytes(bytes: &[u8]) -> Result<CalibrationState> {
        let mut r = Reader { bytes, at: 0 };
        if r.take(4)? != MAGIC || r.u32()? != VERSION {
            return Err(r.bad("not calibration statistics of this version"));
        }
        let samples = r.len()?;
        let n = r.len()?;
        let mut tensors: Vec<TensorState> = Vec::new();
        for _ in 0..n {
            let subgraph = r.len()?;
            let index = r.len()?;
            let len = r.len()?;
            let name = std::str::from_utf8(r.take(len)?)
                .map_err(|_| r.bad("a tensor name is not UTF-8"))?
                .to_string();
            let mut f = [0f32; 4];
            for v in &mut f {
                *v = f32::from_bits(r.u32()?);
            }
            let (ma_min, ma_max) = (r.f64()?, r.f64()?);
            let seen = r.len()?;
            let extremes = match r.byte()? {
                0 => None,
                1 => Some((r.f64()?, r.f64()?)),
                _ => return Err(r.bad("a histogram flag is not 0 or 1")),
            };
            if extremes.is_some_and(|(lo, hi)| !(lo.is_finite() && hi.is_finite() && lo <= hi)) {
                return Err(r.bad(&format!("tensor '{name}': histogram extremes out of order")));
            }
            let (first, count) = (r.len()?, r.len()?);
            if first.checked_add(count).is_none_or(|e| e > HISTOGRAM_BINS) {
                return Err(r.bad(&format!(
                    "tensor '{name}': histogram bins beyond {HISTOGRAM_BINS}"
                )));
            }
            let mut counts = vec![0u64; HISTOGRAM_BINS];
            for c in &mut counts[first..first + count] {
                *c = r.u64()?;
            }
            if extremes.is_none() && count > 0 {
                return Err(r.bad(&format!("tensor '{name}': counts without extremes")));
            }
            let kept = match r.byte()? {
                0 => None,
                1 => {
                    let k = r.len()?;
                    let mut ex = Vec::with_capacity(k.min(r.remaining() / 8));
                    for _ in 0..k {
                        ex.push([f32::from_bits(r.u32()?), f32::from_bits(r.u32()?)]);
                    }
                    Some(ex)
                }
                _ => return Err(r.bad("an extremes flag is not 0 or 1")),
            };
            let t = TensorState {
                subgraph,
                index,
                name,
                min: f[0],
                max: f[1],
                true_min: f[2],
                true_max: f[3],
                ma_min,
                ma_max,
                seen,
                hist: GrowingHistogram::from_parts(extremes, counts),
                extremes: kept,
            };
            if tensors
                .last()
                .is_some_and(|p| (p.subgraph, p.index) >= (t.subgraph, t.index))
            {
                return Err(r.bad("tensors out of order"));
            }
            tensors.push(t);
        }
        if r.remaining() > 0 {
            return Err(r.bad("bytes after the last tensor"));
        }
        Ok(CalibrationState { samples, tensors })
    }
}

/// The [`CalibrationStats`] of `tensors` (those seen at least once), ranges chosen by `method`.
pub(super) fn stats_of<'a>(
    samples: usize,
    tensors: impl Iterator<Item = &'a TensorState>,
    method: Method,
) -> Result<CalibrationStats> {
    method.check()?;
    let (mut tensors, mut nested): (Vec<TensorStats>, Vec<TensorStats>) = tensors
        .filter(|a| a.seen > 0)
        .map(|a| a.stats(method))
        .partition(|t| t.subgraph == 0);
    crate::sort::stable_sort_by_key(&mut tensors, |t| t.index);
    crate::sort::stable_sort_by_key(&mut nested, |t| (t.subgraph, t.index));
    Ok(CalibrationStats {
        samples,
        tensors,
        nested,
    })
}

fn put_u32(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_le_bytes());
}

fn put_u64(out: &mut Vec<u8>, v: u64) {
    out.extend_from_slice(&v.to_le_bytes());
}

/// Reads [`CalibrationState::to_bytes`]' encoding.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn bad(&self, what: &str) -> Error {
        Error::Calibration {
            reason: format!("calibration statistics bytes, at byte {}: {what}", self.at),
        }
    }

    fn remaining(&self) -> usize {
        self.bytes.len() - self.at
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        let end = self
            .at
            .checked_add(n)
            .filter(|&e| e <= self.bytes.len())
            .ok_or_else(|| self.bad("truncated"))?;
        let s = &self.bytes[self.at..end];
        self.at = end;
        Ok(s)
    }

    fn byte(&mut self) -> Result<u8> {
        Ok(self.take(1)?[0])
    }

    fn u32(&mut self) -> Result<u32> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn u64(&mut self) -> Result<u64> {
        let b = self.take(8)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(u64::from_le_bytes(a))
    }

    fn f64(&mut self) -> Result<f64> {
        Ok(f64::from_bits(self.u64()?))
    }

    /// A count or index (one that does not fit `usize` is refused).
    fn len(&mut self) -> Result<usize> {
        let v = self.u64()?;
        usize::try_from(v).map_err(|_| self.bad("a count out of range"))
    }
}
