//! Range selection: the [`Method`] a user names (`minmax`, `percentile:P`, `mse`,
//! `moving-average`), `choose_range`, which turns one tensor's statistics into the range the
//! quantizer gets, and [`mse_range`], the MSE search.

use std::fmt;

use super::histogram::Histogram;
use crate::error::{Error, Result};

/// Number of candidate ranges the MSE search tries (shrink factors `k / MSE_CANDIDATES`).
pub const MSE_CANDIDATES: usize = 128;

/// Quantization steps over a range in the MSE error model (int8: 256 levels).
const MSE_STEPS: f64 = 255.0;

/// How a tensor's range is chosen from its statistics.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Method {
    /// Global min/max over all samples (TF's calibrator).
    MinMax,
    /// The histogram's `(100 − p)`-th and `p`-th percentiles, `50 ≤ p ≤ 100`: the outer edges of
    /// the bins where they fall, clamped to the min/max (so at most one bin wider than exact).
    Percentile(f64),
    /// The range (shrunk towards 0 from the min/max) minimising the expected squared int8
    /// quantization error over the histogram, clipping included.
    Mse,
    /// Moving-average min/max over the per-sample extremes.
    MovingAverage,
}

impl Method {
    /// Parses `minmax`, `percentile:P` (`50 ≤ P ≤ 100`), `mse` or `moving-average`.
    pub fn parse(text: &str) -> Result<Method> {
        let t = text.trim();
        let m = match t {
            "minmax" | "min-max" => Method::MinMax,
            "mse" => Method::Mse,
            "moving-average" | "moving_average" => Method::MovingAverage,
            _ => match t.strip_prefix("percentile:") {
                Some(p) => {
                    Method::Percentile(p.trim().parse::<f64>().map_err(|_| Error::Calibration {
                        reason: format!("percentile '{p}' is not a number"),
                    })?)
                }
                None => {
                    return Err(Error::Calibration {
                        reason: format!(
                            "unknown method '{text}': expected minmax, percentile:P, mse or \
                             moving-average"
                        ),
                    });
                }
            },
        };
        m.check()?;
        Ok(m)
    }

    pub(super) fn check(&self) -> Result<()> {
        if let Method::Percentile(p) = *self
            && !(50.0..=100.0).contains(&p)
        {
            return Err(Error::Calibration {
                reason: format!("percentile {p} is outside [50, 100]"),
            });
        }
        Ok(())
    }
}

impl std::str::FromStr for Method {
    type Err = Error;
    fn from_str(s: &str) -> Result<Method> {
        Method::parse(s)
    }
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Method::MinMax => write!(f, "minmax"),
            Method::Percentile(p) => write!(f, "percentile:{p}"),
            Method::Mse => write!(f, "mse"),
            Method::MovingAverage => write!(f, "moving-average"),
        }
    }
}

/// The range `method` chooses from a tensor's histogram, TF-style min/max, true extremes and
/// moving average.
pub(super) fn choose_range(
    method: Method,
    histogram: &Histogram,
    (tf_min, tf_max): (f32, f32),
    (true_min, true_max): (f32, f32),
    (ma_min, ma_max): (f64, f64),
) -> (f32, f32) {
    let clamp = |v: f64| (v as f32).clamp(true_min, true_max);
    match method {
        Method::MinMax => (tf_min, tf_max),
        Method::MovingAverage => (ma_min as f32, ma_max as f32),
        Method::Percentile(p) => {
            let q = p / 100.0;
            if q >= 1.0 {
                (true_min, true_max)
            } else {
                // Bin edges, not interpolation: a spike (ReLU's zeros) inside a bin would
                // otherwise pull the range off the true extreme; at most one bin wider.
                match (histogram.bin_at(1.0 - q), histogram.bin_at(q)) {
                    (Some(i), Some(j)) => {
                        let w = histogram.bin_width();
                        let lo = histogram.lo + i as f64 * w;
                        let hi = histogram.lo + (j + 1) as f64 * w;
                        (clamp(lo), clamp(hi))
                    }
                    _ => (true_min, true_max),
                }
            }
        }
        Method::Mse => {
            let (lo, hi) = mse_range(histogram, f64::from(true_min), f64::from(true_max));
            (clamp(lo), clamp(hi))
        }
    }
}

/// The range `[α·m0, α·m1]` (`m0 = min(min, 0)`, `m1 = max(max, 0)`, `α = k / MSE_CANDIDATES`)
/// with the least expected squared error when the histogram's values (taken at bin centres) are
/// quantized to 256 levels over it: `step²/12` inside, the squared distance to the edge outside.
/// Ties go to the wider range.
pub fn mse_range(h: &Histogram, min: f64, max: f64) -> (f64, f64) {
    let (m0, m1) = (min.min(0.0), max.max(0.0));
    if h.counts.is_empty() || m1 <= m0 {
        return (min, max);
    }
    let w = h.bin_width();
    let mut best = (f64::INFINITY, min, max);
    for k in (1..=MSE_CANDIDATES).rev() {
        let alpha = k as f64 / MSE_CANDIDATES as f64;
        let (a, b) = (alpha * m0, alpha * m1);
        let step = (b - a) / MSE_STEPS;
        let inside = step * step / 12.0;
        let mut err = 0.0;
        for (i, &c) in h.counts.iter().enumerate() {
            if c == 0 {
                continue;
            }
            let x = h.lo + (i as f64 + 0.5) * w;
            let e = if x < a {
                (a - x) * (a - x)
            } else if x > b {
                (x - b) * (x - b)
            } else {
                inside
            };
            err += c as f64 * e;
        }
        if err < best.0 {
            best = (err, a, b);
        }
    }
    (best.1, best.2)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::quant::calibrate::test_models::{add_relu, by_name};
    use crate::quant::calibrate::{Calibrator, GrowingHistogram, HISTOGRAM_BINS};

    #[test]
    fn method_parse_and_display() {
        for t in ["minmax", "percentile:99.99", "mse", "moving-average"] {
            assert_eq!(Method::parse(t).expect("parses").to_string(), t);
        }
        assert!(Method::parse("percentile:101").is_err());
        assert!(Method::parse("percentile:x").is_err());
        assert!(Method::parse("kl").is_err());
        assert!(
            Calibrator::new(&add_relu([0.0; 4]))
                .expect("prepares")
                .stats(Method::Percentile(10.0))
                .is_err()
        );
    }

    #[test]
    fn percentile_clips_outliers() {
        let mut cal = Calibrator::new(&add_relu([0.0; 4])).expect("prepares");
        for k in 0..1000 {
            let v = (k % 100) as f32 / 100.0;
            let x = if k == 500 {
                [1000.0, v, v, v]
            } else {
                [v, v, v, -v]
            };
            cal.set_input(0, &x).expect("fits");
            cal.add_sample().expect("finite");
        }
        let s = cal
            .stats(Method::parse("percentile:99.9").expect("method"))
            .expect("stats");
        let x = by_name(&s, "x");
        assert_eq!(x.max, 1000.0);
        assert!(x.chosen_max < 1.5, "outlier clipped: {}", x.chosen_max);
        assert!(x.chosen_min > -1.5 && x.chosen_min >= x.min);
        assert_eq!(x.method, "percentile:99.9");
    }

    #[test]
    fn mse_on_known_distributions() {
        // Uniform on [-1, 1]: clipping costs more than rounding; the full range wins.
        let mut h = GrowingHistogram::new(HISTOGRAM_BINS);
        for k in 0..=20_000u32 {
            h.add(f64::from(k) / 10_000.0 - 1.0);
        }
        let (a, b) = mse_range(&h.snapshot(), -1.0, 1.0);
        assert!(a <= -0.97 && b >= 0.97, "[{a}, {b}]");
        // N values at 0 and n at 100: quantizing over [0, b] costs N·(b/255)²/12 in rounding and
        // n·(100 − b)² in clipping, least at b* = 100·n / (n + N / (12·255²)).
        for (big, n) in [(100_000u32, 1u32), (1_000_000, 1), (100_000, 5)] {
            let mut h = GrowingHistogram::new(HISTOGRAM_BINS);
            for _ in 0..big {
                h.add(0.0);
            }
            for _ in 0..n {
                h.add(100.0);
            }
            let (a, b) = mse_range(&h.snapshot(), 0.0, 100.0);
            let (big, n) = (f64::from(big), f64::from(n));
            let best = 100.0 * n / (n + big / (12.0 * 255.0 * 255.0));
            assert_eq!(a, 0.0);
            let step = 100.0 / MSE_CANDIDATES as f64;
            assert!((b - best).abs() <= step, "N {big}, n {n}: {b} vs {best}");
        }
    }
}
