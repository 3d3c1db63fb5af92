//! The flatc-generated TFLite schema: the `zeropoint-schema` crate, re-exported (a crate of its
//! own so the release profile can compile it for size; see that crate's documentation).

pub use zeropoint_schema::*;
