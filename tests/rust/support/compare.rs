//! Comparing an array with its expected value: the [`Tolerance`] a variant states (parsed from
//! `case.toml`), [`compare`] and its [`Comparison`], and [`ulp_distance_f32`].

use super::npy::{NpyArray, NpyData};

/// What "matches" means for one variant.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Tolerance {
    /// Identical values (floats: equal as numbers, NaN matches NaN).
    Exact,
    /// Element ok if `|got − expected| ≤ max(abs, rel · |expected|)`.
    Float {
        /// Relative bound.
        rel: f64,
        /// Absolute floor.
        abs: f64,
    },
    /// Integers: `|got − expected| ≤ n` quantized units. Floats: at most `n` ULPs apart.
    Lsb(u32),
}

impl Tolerance {
    /// Parse the `case.toml` form: an integer (allowed LSBs; 0 = exact) or
    /// `"FLOAT_REL=<rel>,FLOAT_ABS=<abs>"`.
    pub fn parse(v: &toml::Value) -> Result<Tolerance, String> {
        match v {
            toml::Value::Integer(0) => Ok(Tolerance::Exact),
            toml::Value::Integer(n) => u32::try_from(*n)
                .map(Tolerance::Lsb)
                .map_err(|_| format!("bad LSB tolerance {n}")),
            toml::Value::String(s) => {
                let (mut rel, mut abs) = (None, None);
                for part in s.split(',') {
                    let (k, val) = part
                        .split_once('=')
                        .ok_or_else(|| format!("bad tolerance {s:?}"))?;
                    let x: f64 = val
                        .trim()
                        .parse()
                        .map_err(|_| format!("bad number in tolerance {s:?}"))?;
                    match k.trim() {
                        "FLOAT_REL" => rel = Some(x),
                        "FLOAT_ABS" => abs = Some(x),
                        other => return Err(format!("unknown tolerance key {other:?} in {s:?}")),
                    }
                }
                Ok(Tolerance::Float {
                    rel: rel.unwrap_or(0.0),
                    abs: abs.unwrap_or(0.0),
                })
            }
            other => Err(format!("bad tolerance value {other}")),
        }
    }
}

impl std::fmt::Display for Tolerance {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Tolerance::Exact => write!(f, "exact"),
            Tolerance::Float { rel, abs } => write!(f, "rel {rel:e} / abs {abs:e}"),
            Tolerance::Lsb(n) => write!(f, "±{n} LSB"),
        }
    }
}

/// The outcome of comparing an array with its expected value.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    /// Every element within tolerance, and shape and dtype equal.
    pub ok: bool,
    /// Largest `|got − expected|` (quantized units for integer dtypes; ∞ for NaN vs number or a
    /// shape/dtype mismatch).
    pub max_abs_err: f64,
    /// Largest `|got − expected| / |expected|` over elements with `expected ≠ 0`.
    pub max_rel_err: f64,
    /// Elements out of tolerance (all of them on a shape/dtype mismatch).
    pub n_bad: usize,
    /// Flat index of the first element out of tolerance.
    pub first_bad: Option<usize>,
    /// Number of elements compared (of `expected`).
    pub n: usize,
    /// Integer dtype: `max_abs_err` is in quantized units (LSB).
    pub integer: bool,
    /// Set on a shape or dtype mismatch: what differs.
    pub mismatch: Option<String>,
}

impl std::fmt::Display for Comparison {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let Some(m) = &self.mismatch {
            return write!(f, "{m}");
        }
        let unit = if self.integer { " LSB" } else { "" };
        write!(
            f,
            "{}/{} elements out of tolerance, max abs err {:e}{unit}, max rel err {:e}",
            self.n_bad, self.n, self.max_abs_err, self.max_rel_err
        )?;
        if let Some(i) = self.first_bad {
            write!(f, " (first at flat index {i})")?;
        }
        Ok(())
    }
}

/// Distance in units in the last place between two f32 values (0 for equal values, including
/// +0/−0; `u64::MAX` when either is NaN and they are not both NaN).
pub fn ulp_distance_f32(a: f32, b: f32) -> u64 {
    if a == b || (a.is_nan() && b.is_nan()) {
        return 0;
    }
    if a.is_nan() || b.is_nan() {
        return u64::MAX;
    }
    // Map the float bit patterns onto a monotonic integer line.
    let key = |x: f32| {
        let i = i64::from(x.to_bits() as i32);
        if i < 0 { i64::from(i32::MIN) - i } else { i }
    };
    key(a).abs_diff(key(b))
}

/// Compare `got` with `expected` element by element under `tol`. A shape or dtype mismatch is
/// never ok.
pub fn compare(got: &NpyArray, expected: &NpyArray, tol: &Tolerance) -> Comparison {
    let n = expected.len();
    let integer = expected.data.is_integer();
    if got.shape != expected.shape || got.dtype() != expected.dtype() {
        return Comparison {
            ok: false,
            max_abs_err: f64::INFINITY,
            max_rel_err: f64::INFINITY,
            n_bad: n,
            first_bad: (n > 0).then_some(0),
            n,
            integer,
            mismatch: Some(format!(
                "got {}{:?}, expected {}{:?}",
                got.dtype(),
                got.shape,
                expected.dtype(),
                expected.shape
            )),
        };
    }
    let (mut max_abs, mut max_rel, mut n_bad, mut first_bad) = (0.0f64, 0.0f64, 0usize, None);
    for i in 0..n {
        let (g, e) = (got.data.get_f64(i), expected.data.get_f64(i));
        let same = g == e || (g.is_nan() && e.is_nan());
        let diff = if same {
            0.0
        } else if g.is_nan() || e.is_nan() {
            f64::INFINITY
        } else {
            (g - e).abs()
        };
        max_abs = max_abs.max(diff);
        if e != 0.0 && !same {
            max_rel = max_rel.max(diff / e.abs());
        }
        let ok = match *tol {
            Tolerance::Exact => same,
            Tolerance::Float { rel, abs } => same || diff <= abs.max(rel * e.abs()),
            Tolerance::Lsb(k) => match (&got.data, &expected.data) {
                (NpyData::F32(a), NpyData::F32(b)) => ulp_distance_f32(a[i], b[i]) <= u64::from(k),
                _ => same || diff <= f64::from(k),
            },
        };
        if !ok {
            n_bad += 1;
            first_bad.get_or_insert(i);
        }
    }
    Comparison {
        ok: n_bad == 0,
        max_abs_err: max_abs,
        max_rel_err: max_rel,
        n_bad,
        first_bad,
        n,
        integer,
        mismatch: None,
    }
}
#[cfg(test)]
mod tests {
    use super::*;
    use crate::support::cases::{cases, golden_dir};
    use crate::support::npy::load_npy;
    use crate::support::npy::tests::arr;

    fn golden(case: &str, file: &str) -> NpyArray {
        load_npy(&golden_dir().join(case).join(file))
    }

    /// One LSB on one element of a real int8 golden must be caught by an exact comparison (and
    /// by nothing looser than it).
    #[test]
    fn one_lsb_on_a_real_int8_golden_fails() {
        let expected = golden("op_conv2d_same_relu", "expected_int8_output_0.npy");
        assert_eq!(expected.dtype(), "int8");
        assert!(compare(&expected, &expected, &Tolerance::Exact).ok);
        let NpyData::I8(v) = &expected.data else {
            panic!("int8 expected")
        };
        let i = v.len() / 2;
        let mut got = expected.clone();
        if let NpyData::I8(g) = &mut got.data {
            g[i] = if g[i] == i8::MAX { g[i] - 1 } else { g[i] + 1 };
        }
        let c = compare(&got, &expected, &Tolerance::Exact);
        assert!(!c.ok, "{c}");
        assert_eq!((c.n_bad, c.first_bad, c.max_abs_err), (1, Some(i), 1.0));
        assert!(c.integer);
        assert!(compare(&got, &expected, &Tolerance::Lsb(1)).ok);
        assert!(!compare(&got, &expected, &Tolerance::Lsb(0)).ok);
    }

    /// The same for a real int16 intermediate of a 16x8 model.
    #[test]
    fn one_lsb_on_a_real_int16_intermediate_fails() {
        let case = cases()
            .into_iter()
            .find(|c| c.name == "op_conv2d_same_relu")
            .expect("case op_conv2d_same_relu");
        let v = case.variant("16x8").expect("16x8 variant");
        let t = v
            .intermediates
            .iter()
            .find(|t| t.dtype == "int16")
            .expect("an int16 intermediate");
        let expected = load_npy(&t.file);
        let mut got = expected.clone();
        if let NpyData::I16(g) = &mut got.data {
            g[0] = g[0].wrapping_add(if g[0] == i16::MAX { -1 } else { 1 });
        } else {
            panic!("int16 expected, got {}", expected.dtype());
        }
        let c = compare(&got, &expected, &v.tolerance);
        assert!(!c.ok && c.n_bad == 1 && c.first_bad == Some(0), "{c}");
    }

    /// A float golden moved one ULP beyond its variant's tolerance fails; at the bound it passes.
    #[test]
    fn one_ulp_beyond_float_tolerance_fails() {
        let case = cases()
            .into_iter()
            .find(|c| c.name == "mlp")
            .expect("case mlp");
        let v = case.variant("float").expect("float variant");
        let Tolerance::Float { rel, abs } = v.tolerance else {
            panic!("float tolerance expected, got {:?}", v.tolerance)
        };
        let expected = load_npy(&v.expected[0]);
        let NpyData::F32(e) = &expected.data else {
            panic!("float32 expected")
        };
        // the element with the largest magnitude: its bound is the relative one
        let i = (0..e.len())
            .max_by(|&a, &b| e[a].abs().total_cmp(&e[b].abs()))
            .expect("non-empty");
        let x = f64::from(e[i]);
        let bound = abs.max(rel * x.abs());
        // the largest f32 within the bound, and the next one up
        let mut inside = (x + bound) as f32;
        while f64::from(inside) - x > bound {
            inside = f32::from_bits(inside.to_bits() - 1);
        }
        let outside = f32::from_bits(inside.to_bits() + 1);
        assert!(f64::from(outside) - x > bound);
        let with = |y: f32| {
            let mut g = expected.clone();
            if let NpyData::F32(d) = &mut g.data {
                d[i] = y;
            }
            compare(&g, &expected, &v.tolerance)
        };
        assert!(with(inside).ok, "{}", with(inside));
        let c = with(outside);
        assert!(!c.ok && c.n_bad == 1 && c.first_bad == Some(i), "{c}");
        assert!(
            !compare(
                &with_value(&expected, i, inside),
                &expected,
                &Tolerance::Exact
            )
            .ok
        );
    }

    fn with_value(a: &NpyArray, i: usize, y: f32) -> NpyArray {
        let mut g = a.clone();
        if let NpyData::F32(d) = &mut g.data {
            d[i] = y;
        }
        g
    }

    #[test]
    fn shape_or_dtype_mismatch_is_never_ok() {
        let a = arr(NpyData::I8(vec![1, 2, 3, 4]), vec![1, 4]);
        let b = arr(NpyData::I8(vec![1, 2, 3, 4]), vec![2, 2]);
        let c = arr(NpyData::U8(vec![1, 2, 3, 4]), vec![1, 4]);
        for (x, y) in [(&a, &b), (&a, &c)] {
            let r = compare(x, y, &Tolerance::Lsb(100));
            assert!(!r.ok && r.n_bad == 4 && r.mismatch.is_some(), "{r}");
        }
    }

    #[test]
    fn nan_and_ulp_rules() {
        let e = arr(NpyData::F32(vec![f32::NAN, 1.0, 0.0]), vec![3]);
        assert!(compare(&e, &e, &Tolerance::Exact).ok);
        let g = arr(NpyData::F32(vec![0.0, 1.0, -0.0]), vec![3]);
        let r = compare(&g, &e, &Tolerance::Float { rel: 1.0, abs: 1.0 });
        assert_eq!((r.ok, r.n_bad, r.first_bad), (false, 1, Some(0)));
        assert_eq!(r.max_abs_err, f64::INFINITY);
        let next = f32::from_bits(1.0f32.to_bits() + 1);
        let g = arr(NpyData::F32(vec![f32::NAN, next, 0.0]), vec![3]);
        assert!(compare(&g, &e, &Tolerance::Lsb(1)).ok);
        assert!(!compare(&g, &e, &Tolerance::Exact).ok);
        assert_eq!(ulp_distance_f32(-0.0, f32::from_bits(1)), 1);
        assert_eq!(ulp_distance_f32(-f32::from_bits(1), f32::from_bits(1)), 2);
    }

    #[test]
    fn tolerance_forms_parse() {
        let t = |s: &str| Tolerance::parse(&toml::from_str::<toml::Table>(s).expect("toml")["t"]);
        assert_eq!(t("t = 0"), Ok(Tolerance::Exact));
        assert_eq!(t("t = 2"), Ok(Tolerance::Lsb(2)));
        assert_eq!(
            t(r#"t = "FLOAT_REL=1e-5,FLOAT_ABS=1e-6""#),
            Ok(Tolerance::Float {
                rel: 1e-5,
                abs: 1e-6
            })
        );
        assert!(t(r#"t = "REL=1""#).is_err());
        assert!(t("t = -1").is_err());
    }
}
