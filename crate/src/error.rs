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

/// Result alias used throughout the crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;
