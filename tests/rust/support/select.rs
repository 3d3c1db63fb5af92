//! Which golden cases a test checks, and checking them one at a time.
//!
//! `ZP_CASE=<part>[,<part>…]` ([`CASE_FILTER_ENV`]) keeps the cases whose name contains one of
//! the parts (`ZP_CASE=mobilenet_v2`, `ZP_CASE=op_conv2d,op_fc`). Every test that walks the
//! goldens takes its cases from [`selected_cases`] (or [`select`] for its own list), which prints
//! how many cases were kept and which, and fails the test when the filter matches none, so a typo
//! never passes silently. Checks that only mean something over the whole set (operator coverage,
//! minimum counts, stale known-gap entries of cases not run) apply only when
//! [`Selection::is_complete`].
//!
//! [`Selection::each`] runs a test's check case by case and turns a panic inside one case into a
//! failure naming that case ([`catch_panic`]), so one broken case neither hides the others nor
//! fails without its name.

use std::fmt;
use std::io::Write as _;
use std::panic::{AssertUnwindSafe, catch_unwind};

use super::cases::{Case, cases};

/// The environment variable holding the case filter.
pub const CASE_FILTER_ENV: &str = "ZP_CASE";

/// A case filter: a case is kept when its name contains one of the parts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CaseFilter {
    parts: Vec<String>,
}

impl CaseFilter {
    /// Parse `part[,part…]` (spaces around parts ignored); `None` when no part is left, i.e. no
    /// filter.
    pub fn parse(spec: &str) -> Option<CaseFilter> {
        let parts: Vec<String> = spec
            .split(',')
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .map(str::to_string)
            .collect();
        (!parts.is_empty()).then_some(CaseFilter { parts })
    }

    /// The filter in [`CASE_FILTER_ENV`], if set and not empty.
    pub fn from_env() -> Option<CaseFilter> {
        std::env::var(CASE_FILTER_ENV)
            .ok()
            .and_then(|s| CaseFilter::parse(&s))
    }

    /// Whether the case called `name` is kept.
    pub fn matches(&self, name: &str) -> bool {
        self.parts.iter().any(|p| name.contains(p.as_str()))
    }
}

impl fmt::Display for CaseFilter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.parts.join(","))
    }
}

/// The cases (or case folders) one test checks, after the filter.
#[derive(Debug, Clone)]
pub struct Selection<T> {
    /// The kept items, in the order given.
    pub items: Vec<T>,
    /// Their case names, parallel to `items`.
    pub names: Vec<String>,
    /// The filter applied, if any.
    pub filter: Option<CaseFilter>,
    /// How many cases there were before filtering.
    pub total: usize,
}

impl<T> Selection<T> {
    /// True when no filter is set: every case is checked, and whole-set checks apply.
    pub fn is_complete(&self) -> bool {
        self.filter.is_none()
    }

    /// Whether the case called `name` was kept (for known-gap tables: an entry whose case did
    /// not run is not stale).
    pub fn contains(&self, name: &str) -> bool {
        self.names.iter().any(|n| n == name)
    }

    /// Run `check` on every kept item. A panic inside it is caught and returned as
    /// `"<case>: PANICKED: <message>"`; the other items still run.
    pub fn each(&self, mut check: impl FnMut(&T)) -> Vec<String> {
        let mut panics = Vec::new();
        for (item, name) in self.items.iter().zip(&self.names) {
            if let Err(msg) = catch_panic(|| check(item)) {
                panics.push(format!("{name}: PANICKED: {msg}"));
            }
        }
        panics
    }

    /// A test's guard that it checked something (`n` = how many `what` it checked). With every
    /// case selected, nothing checked fails the test. Under a filter the selected cases may
    /// simply not apply to this test (no labelled set, no integer variant, …): that is said on
    /// stderr (visible without `--nocapture`) and the test passes; it returns false then.
    #[track_caller]
    pub fn expect_checked(&self, n: usize, what: &str) -> bool {
        if n > 0 {
            return true;
        }
        let filter = self.filter.as_ref().map(ToString::to_string);
        let Some(filter) = filter else {
            panic!("no {what} checked over all {} golden cases", self.total);
        };
        visible(&format!(
            "{CASE_FILTER_ENV}={filter}: the selected case(s) have no {what}: nothing checked"
        ));
        false
    }
}

/// Keep the items of `all` whose case name (`name`) passes `filter`. Prints the selection (under
/// a filter on stderr, visible without `--nocapture`) and panics when the filter keeps nothing.
/// `test` names the test in those messages.
#[track_caller]
pub fn select<T>(
    test: &str,
    all: Vec<T>,
    name: impl Fn(&T) -> String,
    filter: Option<CaseFilter>,
) -> Selection<T> {
    let all_names: Vec<String> = all.iter().map(&name).collect();
    let total = all.len();
    let Selection { items, names, .. } = keep(all, &name, filter.clone());
    match &filter {
        None => println!(
            "{test}: all {total} golden cases ({CASE_FILTER_ENV}=<part>[,<part>…] selects by name)"
        ),
        Some(f) if items.is_empty() => panic!(
            "{test}: {CASE_FILTER_ENV}={f} matches none of the {total} golden cases: {}",
            all_names.join(", ")
        ),
        Some(f) => visible(&format!(
            "{test}: {CASE_FILTER_ENV}={f} selects {} of {total} golden cases: {}",
            items.len(),
            names.join(", ")
        )),
    }
    Selection {
        items,
        names,
        filter,
        total,
    }
}

/// The items of `all` whose name passes `filter` (all of them without one).
fn keep<T>(all: Vec<T>, name: impl Fn(&T) -> String, filter: Option<CaseFilter>) -> Selection<T> {
    let total = all.len();
    let (items, names): (Vec<T>, Vec<String>) = all
        .into_iter()
        .map(|item| {
            let n = name(&item);
            (item, n)
        })
        .filter(|(_, n)| filter.as_ref().is_none_or(|f| f.matches(n)))
        .unzip();
    Selection {
        items,
        names,
        filter,
        total,
    }
}

/// [`cases()`] as filtered by [`CASE_FILTER_ENV`], for the test named `test`.
#[track_caller]
pub fn selected_cases(test: &str) -> Selection<Case> {
    let all = cases();
    assert!(!all.is_empty(), "{test}: no golden cases found");
    select(test, all, |c| c.name.clone(), CaseFilter::from_env())
}

/// Run `f`, returning a panic inside it as `Err(message)`.
pub fn catch_panic<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|payload| {
        payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "(non-text panic payload)".to_string())
    })
}

/// One line on the process's stderr, past the test harness's output capture.
fn visible(line: &str) {
    let _ = writeln!(std::io::stderr(), "{line}");
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pick(spec: &str) -> Vec<&'static str> {
        let all = vec!["mlp", "op_add", "op_add_const", "op_conv2d_same_relu"];
        keep(all, |s| s.to_string(), CaseFilter::parse(spec)).items
    }

    #[test]
    fn filter_keeps_names_containing_any_part() {
        assert_eq!(pick("op_add"), ["op_add", "op_add_const"]);
        assert_eq!(pick(" mlp , conv "), ["mlp", "op_conv2d_same_relu"]);
        assert_eq!(pick(",").len(), 4, "an empty filter keeps everything");
        assert_eq!(CaseFilter::parse(""), None);
        assert!(keep(vec!["a"], |s| s.to_string(), None).is_complete());
    }

    #[test]
    #[should_panic(expected = "ZP_CASE=nosuchcase matches none of the 4 golden cases")]
    fn a_filter_matching_nothing_fails() {
        let all = vec!["mlp", "op_add", "op_add_const", "op_conv2d_same_relu"];
        select("t", all, |s| s.to_string(), CaseFilter::parse("nosuchcase"));
    }

    #[test]
    fn each_names_the_case_that_panicked_and_runs_the_rest() {
        let sel = keep(
            vec![1, 2, 3],
            |i| format!("case{i}"),
            CaseFilter::parse("case"),
        );
        let mut ran = Vec::new();
        let panics = sel.each(|&i| {
            ran.push(i);
            assert!(i != 2, "boom {i}");
        });
        assert_eq!(ran, [1, 2, 3]);
        assert_eq!(panics, ["case2: PANICKED: boom 2"]);
        assert!(sel.contains("case3") && !sel.contains("case4"));
        assert!(
            !sel.expect_checked(0, "thing"),
            "filtered: nothing checked is said, not failed"
        );
    }

    #[test]
    #[should_panic(expected = "no thing checked")]
    fn nothing_checked_over_all_cases_fails() {
        keep(vec![1], |i| i.to_string(), None).expect_checked(0, "thing");
    }
}
