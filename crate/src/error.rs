//! The crate's one error type.
//!
//! Every fallible operation in Zeropoint returns [`Result`]. Variants carry the names and
//! indices a user needs to find the problem in their model (tensor, operator, buffer), so the
//! same message can be shown by the CLI and, through the wasm face, by the page.

use std::fmt;

/// Where in a model a problem was found: subgraph, and optionally an operator or tensor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    /// Subgraph index.
    pub subgraph: usize,
    /// What inside the subgraph: "operator 3 (CONV_2D)", "tensor 7 'conv/bias'", …
    pub item: String,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "subgraph {}, {}", self.subgraph, self.item)
    }
}

/// Everything that can go wrong in Zeropoint.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The bytes are not a valid TFLite flatbuffer (failed verification, truncated, bad offsets).
    #[error("not a valid .tflite model: {reason}")]
    InvalidFlatbuffer {
        /// What the flatbuffer verifier (or our own size checks) reported.
        reason: String,
    },

    /// The flatbuffer is well-formed but its contents contradict each other.
    #[error("inconsistent model at {at}: {reason}")]
    InconsistentModel {
        /// Where the inconsistency is.
        at: Location,
        /// What is inconsistent.
        reason: String,
    },

    /// A model-level field is inconsistent (buffers table, metadata, signatures).
    #[error("inconsistent model: {reason}")]
    InconsistentTable {
        /// What is inconsistent.
        reason: String,
    },

    /// A size or element count does not fit the limits we accept.
    #[error("{what} is too large: {detail}")]
    TooLarge {
        /// The thing that is too large (a tensor, the model, a buffer).
        what: String,
        /// The numbers involved.
        detail: String,
    },

    /// Writing the model failed (e.g. it would exceed the flatbuffer 2 GiB limit).
    #[error("cannot write model: {reason}")]
    Write {
        /// Why.
        reason: String,
    },

    /// The engine cannot run the model: every operator it cannot prepare, listed at once.
    #[error("cannot run the model: {}", list_issues(.issues))]
    CannotRun {
        /// One entry per operator that is unsupported or invalid, in execution order.
        issues: Vec<OpIssue>,
    },

    /// Data handed to the engine does not fit the tensor it is meant for.
    #[error("{what} '{tensor}': expected {expected}, got {got}")]
    TensorMismatch {
        /// Which tensor, e.g. "input 0" or "sample 3 of input 1".
        what: String,
        /// The tensor's name in the model.
        tensor: String,
        /// What the model expects (shape, type, bytes).
        expected: String,
        /// What was given.
        got: String,
    },

    /// An index (input, output or tensor) that the model does not have.
    #[error("no {what} {index}: the model has {count}")]
    NoSuchIndex {
        /// "input", "output" or "tensor".
        what: &'static str,
        /// The index asked for.
        index: usize,
        /// How many there are.
        count: usize,
    },

    /// A shape chosen for a graph input (`--shape`, `--batch`, the page's dims control) that
    /// the model does not allow: an unknown input, another rank, or a change to a dimension
    /// whose `shape_signature` is not −1 (LiteRT's `ResizeInputTensorStrict` rule).
    #[error("input '{input}': {reason}")]
    InputShape {
        /// The input's name (or the name/index the user gave, when no input matches).
        input: String,
        /// What is wrong, naming the dimension.
        reason: String,
    },

    /// One data file per model input was expected and a different number was given.
    #[error("{}", input_count(*.given, *.expected))]
    InputCount {
        /// How many were given.
        given: usize,
        /// How many inputs the model has.
        expected: usize,
    },

    /// Quantization parameters or values cannot be computed from the given numbers (a NaN or
    /// infinite range, weight or bias; a shape that does not match the data).
    #[error("cannot quantize {what}: {reason}")]
    Quantization {
        /// What was being quantized ("int8 activation", "per-channel weights", …).
        what: String,
        /// Why it cannot be.
        reason: String,
    },

    /// Calibration data holds a NaN or an infinity: in a model input as given, or first
    /// appearing in a tensor the model computes from finite inputs.
    #[error("calibration sample {sample}: {value} in {place}")]
    NonFinite {
        /// Index of the sample (counted from 0, one per `add_sample` call).
        sample: usize,
        /// "NaN", "+Inf" or "-Inf".
        value: String,
        /// Where: "input 0 'x' (element 17)", or the first computed tensor that holds it.
        place: String,
    },

    /// Calibration cannot go on: a setting out of range, an input not set, unreadable data.
    #[error("calibration: {reason}")]
    Calibration {
        /// What is wrong, naming the file, input or setting.
        reason: String,
    },

    /// A `.npy` file could not be read or written, or does not hold what is needed (CLI only).
    #[error("{path}: {reason}")]
    Npy {
        /// The file.
        path: String,
        /// What is wrong.
        reason: String,
    },

    /// A signature key the model does not have (`--signature`, the page's picker).
    #[error("no signature '{key}': {}", known_keys(.known))]
    UnknownSignature {
        /// The key asked for.
        key: String,
        /// The keys the model has, in the model's order.
        known: Vec<String>,
    },

    /// A signature that cannot be run: its subgraph or a tensor it names is missing, it names a
    /// tensor that is not an input (output) of its subgraph, or it leaves one unnamed.
    #[error("signature '{key}': {reason}")]
    Signature {
        /// The signature's key.
        key: String,
        /// What is wrong, naming the subgraph and tensor.
        reason: String,
    },

    /// A file could not be read or written (CLI only).
    #[error("{path}: {source}")]
    Io {
        /// The path involved.
        path: String,
        /// The underlying I/O error.
        #[source]
        source: std::io::Error,
    },
}

/// Whether the engine lacks a kernel for an operator, or the operator itself is malformed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IssueKind {
    /// A valid operator (or type, or option) that the engine has no kernel for yet.
    Unsupported,
    /// The operator contradicts itself or its tensors (shapes, counts, zero strides, …).
    Invalid,
}

/// One operator the engine cannot prepare: where it is, which tensor, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpIssue {
    /// Operator index in the subgraph's execution order.
    pub op_index: usize,
    /// Operator name (`CONV_2D`, or the custom code).
    pub op_name: String,
    /// The offending tensor, e.g. "input 1 'dense/kernel'" (empty when no tensor is at fault).
    pub tensor: String,
    /// Unsupported or invalid.
    pub kind: IssueKind,
    /// What is wrong.
    pub reason: String,
}

/// The [`OpIssue::op_name`] of a problem of the whole graph rather than of one operator (a
/// graph input or output, a tensor declaration): shown as "the graph", with no operator index.
pub const GRAPH: &str = "(graph)";

impl fmt::Display for OpIssue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match self.kind {
            IssueKind::Unsupported => "unsupported",
            IssueKind::Invalid => "invalid",
        };
        if self.op_name == GRAPH {
            write!(f, "the graph: {kind}")?;
        } else {
            write!(f, "operator {} ({}): {kind}", self.op_index, self.op_name)?;
        }
        if !self.tensor.is_empty() {
            write!(f, " at {}", self.tensor)?;
        }
        write!(f, ": {}", self.reason)
    }
}

/// Most items a message lists before "… and N more" (a reversed graph of 359 operators gave
/// one 77 KB line): [`Error::CannotRun`]'s issues, the warnings' index lists.
pub const LIST_CAP: usize = 10;

fn list_issues(issues: &[OpIssue]) -> String {
    let lines: Vec<String> = issues
        .iter()
        .take(LIST_CAP)
        .map(ToString::to_string)
        .collect();
    let more = issues.len().saturating_sub(LIST_CAP);
    let tail = if more > 0 {
        format!("; … and {more} more")
    } else {
        String::new()
    };
    let n = issues.len();
    let what = match (issues.iter().any(|i| i.op_name == GRAPH), n) {
        (true, 1) => "1 problem".to_string(),
        (true, n) => format!("{n} problems"),
        (false, 1) => "1 operator cannot be prepared".to_string(),
        (false, n) => format!("{n} operators cannot be prepared"),
    };
    format!("{what}; {}{tail}", lines.join("; "))
}

/// "the model has signatures 'a', 'b'", or "the model has no signatures".
fn known_keys(known: &[String]) -> String {
    if known.is_empty() {
        return "the model has no signatures".to_string();
    }
    let keys: Vec<String> = known.iter().map(|k| format!("'{k}'")).collect();
    format!("the model has signatures {}", keys.join(", "))
}

/// "1 input given too many: the model has 1 input", "2 inputs missing: the model has 3 inputs".
fn input_count(given: usize, expected: usize) -> String {
    let n = |k: usize| if k == 1 { "input" } else { "inputs" };
    let (diff, how) = if given > expected {
        (given - expected, "given too many")
    } else {
        (expected - given, "missing")
    };
    format!(
        "{diff} {} {how}: the model has {expected} {} (one per model input, in order)",
        n(diff),
        n(expected)
    )
}

/// Result alias used throughout the crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    fn issue(op_index: usize, op_name: &str) -> OpIssue {
        OpIssue {
            op_index,
            op_name: op_name.into(),
            tensor: String::new(),
            kind: IssueKind::Invalid,
            reason: "why".into(),
        }
    }

    #[test]
    fn long_issue_lists_are_capped_and_graph_problems_name_no_operator() {
        let issues: Vec<OpIssue> = (0..359).map(|i| issue(i, "ADD")).collect();
        let text = Error::CannotRun { issues }.to_string();
        assert!(text.starts_with("cannot run the model: 359 operators cannot be prepared;"));
        assert!(text.contains("operator 9 (ADD)") && !text.contains("operator 10 (ADD)"));
        assert!(text.ends_with("; … and 349 more"), "{text}");
        let text = Error::CannotRun {
            issues: vec![issue(0, GRAPH)],
        }
        .to_string();
        assert_eq!(
            text,
            "cannot run the model: 1 problem; the graph: invalid: why"
        );
    }

    #[test]
    fn input_counts_are_said_in_words() {
        let e = |given, expected| Error::InputCount { given, expected }.to_string();
        assert!(e(2, 1).starts_with("1 input given too many: the model has 1 input"));
        assert!(e(1, 3).starts_with("2 inputs missing: the model has 3 inputs"));
    }
}
