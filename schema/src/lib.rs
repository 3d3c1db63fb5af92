//! The TensorFlow Lite / LiteRT model format: Rust bindings generated from a
//! FlatBuffers schema.
//!
//! `tflite.fbs` transcribes the public TensorFlow Lite schema
//! (Apache-2.0, The TensorFlow Authors) as read and written by LiteRT 2.3 and
//! TensorFlow 2.21. `tflite_generated.rs` is produced from it by `regen.sh`
//! (flatc 25.12.19, `--rust --gen-object-api`) and is never edited by hand:
//! change the schema and rerun the script instead.
//!
//! Everything generated is re-exported here, so both APIs are reachable as
//! `crate::tflite::schema::…`:
//!
//! - zero-copy readers over a byte buffer: [`root_as_model`] (verifies the
//!   buffer first; [`root_as_model_with_opts`] takes [`flatbuffers::VerifierOptions`]
//!   for large models), then [`Model`], [`SubGraph`], [`Tensor`], [`Operator`], …;
//! - the owned object API: [`Model::unpack`] gives a [`ModelT`] (with
//!   [`SubGraphT`], [`TensorT`], [`OperatorT`], [`BufferT`],
//!   [`BuiltinOptionsT`], …) that can be edited and written back with
//!   [`ModelT::pack`] plus [`finish_model_buffer`] (file identifier `TFL3`).
//!
//! Enums such as [`TensorType`] and [`BuiltinOperator`] are open newtypes over
//! their integer: values unknown to this schema survive a read and a rewrite.
//! Unions do not: in the object API an unknown union tag unpacks to `NONE`.
//!
//! flatc 25.12.19 writes `alloc::…` paths inside the generated `tflite` module,
//! so the crate root must declare `extern crate alloc;`.

#[allow(
    warnings,
    missing_docs,
    unsafe_op_in_unsafe_fn,
    clippy::all,
    clippy::pedantic,
    clippy::nursery,
    clippy::restriction
)]
#[rustfmt::skip]
mod tflite_generated;

pub use tflite_generated::tflite::*;
