//! The TensorFlow Lite / LiteRT model format: Rust bindings generated from a
//! FlatBuffers schema.
//!
//! A crate of its own so that it can be compiled for size: this generated code (the
//! verifier, the object API's `unpack` / `pack`) is about a quarter of the wasm build and
//! is run once per model read or written, never per inference; the workspace's release
//! profile gives this package `opt-level = "z"` (README "Wasm size"). `zeropoint`
//! re-exports it as `zeropoint::tflite::schema`.
//!
//! `tflite.fbs` transcribes the public TensorFlow Lite schema
//! (Apache-2.0, The TensorFlow Authors) as read and written by LiteRT 2.3 and
//! TensorFlow 2.21. `tflite_generated.rs` is produced from it by `regen.sh`
//! (flatc 25.12.19, `--rust --gen-object-api`, then flatc's `#[non_exhaustive]` attributes
//! taken out so `zeropoint` can build and match the object-API types) and is never edited by
//! hand: change the schema and rerun the script instead.
//!
//! Everything generated is re-exported at the crate root, so both APIs are
//! reachable as `zeropoint::tflite::schema::…`:
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

// The flatc-generated code names `alloc::` paths.
extern crate alloc;

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

/// Verifies `buf` as a `Model` flatbuffer with `opts` and returns its root table.
///
/// The same as flatc's [`root_as_model_with_opts`], but that one is `#[inline]` and generic
/// underneath, so its verifier would be instantiated (and optimized for speed) in the calling
/// crate; this one keeps the whole verifier in this crate, compiled for size.
#[inline(never)]
pub fn verify_model<'b>(
    opts: &flatbuffers::VerifierOptions,
    buf: &'b [u8],
) -> Result<Model<'b>, flatbuffers::InvalidFlatbuffer> {
    flatbuffers::root_with_opts::<Model<'b>>(opts, buf)
}

/// Serialises `model` into a finished flatbuffer with the file identifier `TFL3`.
///
/// Here rather than in the caller for the same reason as [`verify_model`]: flatc's `pack`
/// methods are generic over the allocator, so they are instantiated where they are called.
#[inline(never)]
pub fn pack_model(model: &ModelT) -> Vec<u8> {
    let mut fbb = flatbuffers::FlatBufferBuilder::with_capacity(1 << 16);
    let root = model.pack(&mut fbb);
    finish_model_buffer(&mut fbb, root);
    fbb.finished_data().to_vec()
}
