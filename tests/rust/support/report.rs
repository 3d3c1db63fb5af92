//! Reporting what a test layer found: the per-operator exactness table ([`OpSummary`]) and the
//! per-stage verdicts ([`StageReport`], [`Verdict`], [`judge`]) that honour a variant's
//! [`ExpectedFailure`](crate::ExpectedFailure).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use super::cases::{Case, Variant};
use super::compare::Comparison;

#[derive(Debug, Clone, Default)]
struct OpRow {
    checks: usize,
    ok: usize,
    elements: usize,
    bad_elements: usize,
    worst_abs_float: f64,
    worst_rel_float: f64,
    worst_lsb: f64,
    has_float: bool,
    has_integer: bool,
    cases: BTreeSet<String>,
    variants: BTreeSet<String>,
}

/// A per-operator exactness table: for each operator, how many checks ran and passed, and the
/// worst error seen (absolute/relative for float outputs, LSB for integer outputs).
#[derive(Debug, Clone, Default)]
pub struct OpSummary {
    title: String,
    rows: BTreeMap<String, OpRow>,
}

impl OpSummary {
    /// An empty summary with a title for the printed table.
    pub fn new(title: &str) -> Self {
        OpSummary {
            title: title.to_string(),
            rows: BTreeMap::new(),
        }
    }

    /// Record one comparison under `op` (an operator name, or a label such as `model:<case>`).
    pub fn record(&mut self, op: &str, case: &str, variant: &str, cmp: &Comparison) {
        let row = self.rows.entry(op.to_string()).or_default();
        row.checks += 1;
        row.ok += usize::from(cmp.ok);
        row.elements += cmp.n;
        row.bad_elements += cmp.n_bad;
        if cmp.integer {
            row.has_integer = true;
            row.worst_lsb = row.worst_lsb.max(cmp.max_abs_err);
        } else {
            row.has_float = true;
            row.worst_abs_float = row.worst_abs_float.max(cmp.max_abs_err);
            row.worst_rel_float = row.worst_rel_float.max(cmp.max_rel_err);
        }
        row.cases.insert(case.to_string());
        row.variants.insert(variant.to_string());
    }

    /// Number of operators (rows) recorded.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// True when nothing was recorded.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// True when every recorded check passed.
    pub fn all_ok(&self) -> bool {
        self.rows.values().all(|r| r.ok == r.checks)
    }

    /// The table as Markdown (the form the README's supported-ops table uses).
    pub fn to_markdown(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "### {}\n", self.title);
        let _ = writeln!(
            s,
            "| op | checks | ok | elements off / total | worst abs (float) | worst rel (float) | max LSB (int) | variants | cases |"
        );
        let _ = writeln!(s, "|---|---:|---:|---:|---:|---:|---:|---|---:|");
        for (op, r) in &self.rows {
            let f = |x: f64, has: bool| {
                if has {
                    format!("{x:.3e}")
                } else {
                    "—".into()
                }
            };
            let lsb = if r.has_integer {
                format!("{}", r.worst_lsb)
            } else {
                "—".into()
            };
            let _ = writeln!(
                s,
                "| {op} | {} | {} | {} / {} | {} | {} | {lsb} | {} | {} |",
                r.checks,
                r.ok,
                r.bad_elements,
                r.elements,
                f(r.worst_abs_float, r.has_float),
                f(r.worst_rel_float, r.has_float),
                r.variants.iter().cloned().collect::<Vec<_>>().join(" "),
                r.cases.len(),
            );
        }
        s
    }

    /// Print the table (visible with `cargo test -- --nocapture`, and in `npm test`'s log).
    pub fn print(&self) {
        println!("{}", self.to_markdown());
    }
}

/// What a check of one variant at one stage amounts to, once `expected_failure` is considered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Passed, as expected.
    Pass,
    /// Failed, and no expected failure covers it: the test fails.
    Fail,
    /// Failed, as the variant's `expected_failure` for this stage says.
    ExpectedFailure,
    /// Passed although `expected_failure` says it fails at this stage: the test fails, so that
    /// the stale entry is removed.
    UnexpectedPass,
}

impl Verdict {
    /// Whether this verdict must fail the test.
    pub fn is_problem(&self) -> bool {
        matches!(self, Verdict::Fail | Verdict::UnexpectedPass)
    }
}

/// Judge a check's outcome against the variant's expected failure for `stage`.
pub fn judge(variant: &Variant, stage: &str, passed: bool) -> Verdict {
    let expected_to_fail = variant
        .expected_failure
        .as_ref()
        .is_some_and(|f| f.stage == stage);
    match (passed, expected_to_fail) {
        (true, false) => Verdict::Pass,
        (false, false) => Verdict::Fail,
        (false, true) => Verdict::ExpectedFailure,
        (true, true) => Verdict::UnexpectedPass,
    }
}

/// Collects the verdicts of one stage over all cases and variants, prints them, and fails the test
/// at [`StageReport::finish`] if anything failed unexpectedly or passed unexpectedly.
#[derive(Debug)]
pub struct StageReport {
    stage: String,
    passed: usize,
    expected_failures: Vec<String>,
    problems: Vec<String>,
}

impl StageReport {
    /// A report for `stage` (`read`, `rewrite`, `float`, `int8`, `calibrate`, `quantize`, ...).
    pub fn new(stage: &str) -> Self {
        StageReport {
            stage: stage.to_string(),
            passed: 0,
            expected_failures: Vec::new(),
            problems: Vec::new(),
        }
    }

    /// Record the outcome of checking `variant` of `case`: `Ok(())` or `Err(what went wrong)`.
    pub fn check(&mut self, case: &Case, variant: &Variant, result: Result<(), String>) -> Verdict {
        let verdict = judge(variant, &self.stage, result.is_ok());
        let who = format!("{}/{}", case.name, variant.name);
        let ef = variant.expected_failure.as_ref();
        let issue = ef.map(|f| format!("issue {}: {}", f.issue, f.reason));
        match &verdict {
            Verdict::Pass => self.passed += 1,
            Verdict::Fail => self.problems.push(format!(
                "{who}: FAILED: {}",
                result.err().unwrap_or_default()
            )),
            Verdict::ExpectedFailure => self.expected_failures.push(format!(
                "{who}: expected failure ({}): {}",
                issue.unwrap_or_default(),
                result.err().unwrap_or_default()
            )),
            Verdict::UnexpectedPass => self.problems.push(format!(
                "{who}: UNEXPECTEDLY PASSING: case.toml lists an expected failure at stage {} ({}); \
                 remove it from tests/tools/goldens/ and regenerate",
                self.stage,
                issue.unwrap_or_default()
            )),
        }
        verdict
    }

    /// Number of checks recorded so far.
    pub fn total(&self) -> usize {
        self.passed + self.expected_failures.len() + self.problems.len()
    }

    /// Print the outcome and panic if any check failed or passed unexpectedly.
    pub fn finish(self) {
        println!(
            "stage {}: {} checks, {} passed, {} expected failures, {} problems",
            self.stage,
            self.total(),
            self.passed,
            self.expected_failures.len(),
            self.problems.len()
        );
        for l in &self.expected_failures {
            println!("  {l}");
        }
        assert!(
            self.problems.is_empty(),
            "stage {}: {} problem(s):\n{}",
            self.stage,
            self.problems.len(),
            self.problems.join("\n")
        );
        assert!(
            self.total() > 0,
            "stage {}: nothing was checked",
            self.stage
        );
    }
}
#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::support::cases::{ExpectedFailure, cases};
    use crate::support::compare::{Tolerance, compare};
    use crate::support::npy::tests::arr;
    use crate::support::npy::{NpyData, load_npy};

    fn variant_with(ef: Option<ExpectedFailure>) -> Variant {
        Variant {
            name: "int8".into(),
            model: PathBuf::new(),
            inputs: vec![],
            expected: vec![],
            tolerance: Tolerance::Exact,
            expected_failure: ef,
            tolerance_name: "int8_tolerance".into(),
            tolerance_reason: String::new(),
            ops: vec![],
            expected_optimized: vec![],
            expected_xnnpack: vec![],
            intermediates: vec![],
            intermediates_omitted: None,
        }
    }

    #[test]
    fn expected_failures_are_honoured_and_stale_ones_caught() {
        let ef = ExpectedFailure {
            stage: "int8".into(),
            issue: 6,
            reason: "kernel missing".into(),
        };
        let v = variant_with(Some(ef));
        assert_eq!(judge(&v, "int8", false), Verdict::ExpectedFailure);
        assert_eq!(judge(&v, "int8", true), Verdict::UnexpectedPass);
        assert!(judge(&v, "int8", true).is_problem());
        assert_eq!(judge(&v, "float", false), Verdict::Fail);
        assert_eq!(judge(&variant_with(None), "int8", true), Verdict::Pass);
    }

    #[test]
    #[should_panic(expected = "UNEXPECTEDLY PASSING")]
    fn stage_report_fails_on_a_stale_expected_failure() {
        let case = Case {
            name: "c".into(),
            dir: PathBuf::new(),
            description: String::new(),
            ops: vec![],
            variants: vec![],
            op: None,
            calibration: vec![],
            num_samples: 0,
            unavailable: vec![],
        };
        let v = variant_with(Some(ExpectedFailure {
            stage: "int8".into(),
            issue: 6,
            reason: "r".into(),
        }));
        let mut r = StageReport::new("int8");
        r.check(&case, &v, Ok(()));
        r.finish();
    }

    /// A perturbed golden fails the whole chain a test layer uses: compare → StageReport.
    #[test]
    #[should_panic(expected = "FAILED")]
    fn stage_report_fails_on_a_one_lsb_difference() {
        let case = cases()
            .into_iter()
            .find(|c| c.name == "op_add")
            .expect("case op_add");
        let v = case.variant("int8").expect("int8 variant");
        let expected = load_npy(&v.expected[0]);
        let mut got = expected.clone();
        if let NpyData::I8(g) = &mut got.data {
            g[0] = g[0].wrapping_add(if g[0] == i8::MAX { -1 } else { 1 });
        }
        let c = compare(&got, &expected, &v.tolerance);
        let mut r = StageReport::new("int8");
        r.check(&case, v, if c.ok { Ok(()) } else { Err(c.to_string()) });
        r.finish();
    }

    #[test]
    fn op_summary_records_per_op() {
        let mut s = OpSummary::new("t");
        let e = arr(NpyData::I8(vec![0, 0]), vec![2]);
        let g = arr(NpyData::I8(vec![0, 3]), vec![2]);
        s.record("ADD", "op_add", "int8", &compare(&g, &e, &Tolerance::Exact));
        s.record("ADD", "op_add", "16x8", &compare(&e, &e, &Tolerance::Exact));
        assert_eq!(s.len(), 1);
        assert!(!s.all_ok());
        let md = s.to_markdown();
        assert!(md.contains("| ADD | 2 | 1 | 1 / 4 |"), "{md}");
        assert!(md.contains("| 3 |"), "{md}");
    }
}
