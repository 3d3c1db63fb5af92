//! A corpus of malformed models, each of which must give a specific typed error — from the
//! library (the variant and the thing it names) and from the CLI (non-zero exit, one line on
//! stderr naming the file and the problem) — never a panic, a hang or a silent answer.
//!
//! The corpus is derived from the shipped example model and from small IR-built graphs:
//! truncation at every 1/16th of the file, each header byte flipped, buffer offsets past the end
//! of the file, huge dimensions, a cyclic graph, a tensor read before it is produced, negative
//! dimensions and an operator index out of range. The page shows the same messages (the wasm
//! face returns the error's `Display`).
//!
//! Every corpus file the CLI refuses is kept in `target/malformed-corpus/` with a `manifest.json`
//! (file, the CLI's error line as printed, the path the CLI was given, and the stage: `read` for
//! `inspect`, `prepare` for `run` on a file `inspect` accepts), which the browser e2e test
//! (`tests/e2e/run.mjs`) drops on the page one by one.
#![cfg(not(target_arch = "wasm32"))]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

use zeropoint::Error;
use zeropoint::engine::Interpreter;
use zeropoint::graph::{
    Buffer, BuiltinOperator, BuiltinOptionsT, Model, OpCode, Operator, Subgraph, Tensor, TensorType,
};
use zeropoint::tflite::schema::WhileOptionsT;
use zeropoint::tflite::{self, WriteOptions};

fn example_bytes() -> Vec<u8> {
    std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("../www/assets/example.tflite"))
        .expect("example model")
}

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("malformed");
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir.join(name)
}

/// The corpus folder the e2e test reads: `target/malformed-corpus/` of the workspace.
fn corpus_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the crate is inside the workspace")
        .join("target/malformed-corpus");
    std::fs::create_dir_all(&dir).expect("corpus dir");
    dir
}

/// Manifest entries of this test run, by file name (tests run on several threads).
static MANIFEST: Mutex<BTreeMap<String, serde_json::Value>> = Mutex::new(BTreeMap::new());

/// Records one refused corpus file and rewrites `manifest.json` (write, then rename: a reader
/// never sees half a file).
fn record(name: &str, stage: &str, path: &str, error_line: &str) {
    let mut entries = MANIFEST
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    entries.insert(
        name.to_string(),
        serde_json::json!({
            "file": name,
            "stage": stage,
            "cli_path": path,
            "cli_error": error_line,
        }),
    );
    let list: Vec<&serde_json::Value> = entries.values().collect();
    let dir = corpus_dir();
    let tmp = dir.join("manifest.json.tmp");
    let text = serde_json::to_string_pretty(&list).expect("json");
    std::fs::write(&tmp, text + "\n").expect("write manifest");
    std::fs::rename(&tmp, dir.join("manifest.json")).expect("rename manifest");
}

/// Runs the CLI and returns (success, stderr).
fn cli(args: &[&str]) -> (bool, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_zeropoint"))
        .args(args)
        .output()
        .expect("the zeropoint binary runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `inspect` on `bytes` must fail with one line naming the file and containing `needle`.
fn cli_refuses(name: &str, bytes: &[u8], needle: &str) {
    let path = corpus_dir().join(name);
    std::fs::write(&path, bytes).expect("write corpus file");
    let p = path.to_str().expect("utf-8 path");
    let (ok, err) = cli(&["inspect", p]);
    assert!(!ok, "{name}: inspect succeeded");
    assert_eq!(err.trim_end().lines().count(), 1, "{name}: {err}");
    assert!(
        err.contains(name),
        "{name}: the message must name the file: {err}"
    );
    assert!(
        err.contains(needle),
        "{name}: expected '{needle}' in: {err}"
    );
    record(name, "read", p, err.trim_end());
}

fn add(inputs: &[i32], outputs: &[i32]) -> Operator {
    Operator::new(
        OpCode::builtin(BuiltinOperator::ADD, 1),
        inputs.to_vec(),
        outputs.to_vec(),
        BuiltinOptionsT::AddOptions(Box::default()),
    )
}

fn graph(tensors: Vec<Tensor>, ops: Vec<Operator>, inputs: &[i32], outputs: &[i32]) -> Model {
    Model {
        version: 3,
        subgraphs: vec![Subgraph {
            tensors,
            inputs: inputs.to_vec(),
            outputs: outputs.to_vec(),
            operators: ops,
            ..Default::default()
        }],
        buffers: vec![Buffer::default()],
        ..Default::default()
    }
}

fn f32t(name: &str, shape: &[i32]) -> Tensor {
    Tensor::new(name, TensorType::FLOAT32, shape.to_vec())
}

/// A minimal float32 `.npy` (v1.0 header).
fn npy_f32(shape: &[usize], values: &[f32]) -> Vec<u8> {
    let dims: Vec<String> = shape.iter().map(ToString::to_string).collect();
    let shape_txt = if dims.len() == 1 {
        format!("({},)", dims[0])
    } else {
        format!("({})", dims.join(", "))
    };
    let mut header = format!("{{'descr': '<f4', 'fortran_order': False, 'shape': {shape_txt}, }}");
    while (10 + header.len() + 1) % 64 != 0 {
        header.push(' ');
    }
    header.push('\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    for v in values {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out
}

/// `run` on a graph-level malformed model must fail with one line containing every needle.
fn cli_run_refuses(name: &str, model: &Model, needles: &[&str]) {
    let path = corpus_dir().join(name);
    std::fs::write(&path, tflite::write(model).expect("writes")).expect("write model");
    // The file itself reads: the problem shows when the engine prepares it.
    let (ok, err) = cli(&["inspect", path.to_str().expect("utf-8")]);
    assert!(ok, "{name}: inspect refused it: {err}");
    let input = scratch(&format!("{name}.input.npy"));
    std::fs::write(&input, npy_f32(&[1, 2], &[1.0, 2.0])).expect("write npy");
    let out_dir = scratch(&format!("{name}.out"));
    let (ok, err) = cli(&[
        "run",
        path.to_str().expect("utf-8"),
        "--input",
        input.to_str().expect("utf-8"),
        "--out-dir",
        out_dir.to_str().expect("utf-8"),
    ]);
    assert!(!ok, "{name}: run succeeded");
    assert_eq!(err.trim_end().lines().count(), 1, "{name}: {err}");
    for n in needles {
        assert!(err.contains(n), "{name}: expected '{n}' in: {err}");
    }
    record(
        name,
        "prepare",
        path.to_str().expect("utf-8"),
        err.trim_end(),
    );
}

#[test]
fn truncated_at_every_sixteenth_is_an_invalid_flatbuffer() {
    let bytes = example_bytes();
    for k in 0..16 {
        let cut = &bytes[..bytes.len() * k / 16];
        // Under 8 bytes there is no identifier to check; past it, the sizes are said.
        let needle = if cut.len() < 8 {
            format!("the file is {} bytes long, too short", cut.len())
        } else {
            format!(
                "the file is truncated or corrupt: {} bytes, the model needs at least",
                cut.len()
            )
        };
        match tflite::read(cut) {
            Err(Error::InvalidFlatbuffer { reason }) => {
                assert!(reason.contains(&needle), "{k}/16: {reason}");
                assert!(!reason.contains("verifying"), "{k}/16: jargon: {reason}");
            }
            other => panic!("truncated at {k}/16: expected InvalidFlatbuffer, got {other:?}"),
        }
        cli_refuses(&format!("truncated_{k:02}_of_16.tflite"), cut, &needle);
    }
}

#[test]
fn flipped_header_bytes_are_refused() {
    let bytes = example_bytes();
    for i in 0..8 {
        let mut b = bytes.clone();
        b[i] ^= 0xff;
        let err = match tflite::read(&b) {
            Err(Error::InvalidFlatbuffer { reason }) => reason,
            other => panic!("byte {i} flipped: expected InvalidFlatbuffer, got {other:?}"),
        };
        if i >= 4 {
            assert!(err.contains("TFL3"), "byte {i}: {err}");
        }
        cli_refuses(
            &format!("header_byte_{i}_flipped.tflite"),
            &b,
            "not a valid .tflite model",
        );
    }
}

#[test]
fn an_offset_past_the_end_is_truncated_or_corrupt_and_a_wild_one_corrupt() {
    // The root table's offset (bytes 0..4) pointing 100 bytes past the end: the whole file is
    // there (a smashed word), so "truncated" alone would mislead.
    let mut b = example_bytes();
    let past = u32::try_from(b.len() + 100).expect("small model");
    b[..4].copy_from_slice(&past.to_le_bytes());
    match tflite::read(&b) {
        Err(Error::InvalidFlatbuffer { reason }) => assert!(
            reason.contains(&format!(
                "the file is truncated or corrupt: {} bytes, the model needs at least",
                b.len()
            )),
            "{reason}"
        ),
        other => panic!("expected InvalidFlatbuffer, got {other:?}"),
    }
    // Bit 16 of the same offset flipped: a table whose vtable offset points outside the file.
    let mut b = example_bytes();
    b[2] ^= 1;
    match tflite::read(&b) {
        Err(Error::InvalidFlatbuffer { reason }) => assert!(
            reason.starts_with("the file is corrupt: an offset at byte ")
                && reason.ends_with(&format!("points outside the {}-byte file", b.len())),
            "{reason}"
        ),
        other => panic!("expected InvalidFlatbuffer, got {other:?}"),
    }
}

#[test]
fn other_formats_are_named_once() {
    let cases: [(&str, &[u8], &str); 4] = [
        (
            "png",
            b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR",
            "this is a PNG image, not a TFLite model",
        ),
        (
            "jpeg",
            b"\xff\xd8\xff\xe0\0\x10JFIF\0",
            "this is a JPEG image, not a TFLite model",
        ),
        (
            "zip",
            b"PK\x03\x04\x14\0\0\0\x08\0",
            "this is a ZIP archive",
        ),
        ("h5", b"\x89HDF\r\n\x1a\n\0\0", "this is an HDF5 file"),
    ];
    for (ext, bytes, needle) in cases {
        let name = format!("renamed_{ext}.tflite");
        cli_refuses(&name, bytes, needle);
        let err = tflite::read(bytes).expect_err("refused").to_string();
        assert_eq!(err.matches("TFLite model").count(), 1, "{err}");
    }
}

#[test]
fn corrupt_offsets_and_alignment_say_corrupt() {
    // The root table offset (bytes 0..4) pointing at an odd byte: the verifier's "unaligned".
    let mut b = example_bytes();
    b[0] = b[0].wrapping_add(1);
    let err = tflite::read(&b).expect_err("refused").to_string();
    assert!(err.contains("the file is corrupt"), "{err}");
    assert!(!err.contains("verifying"), "{err}");
}

#[test]
fn buffer_offsets_past_the_end_name_the_buffer() {
    // Write with buffers after the flatbuffer (offset/size), then cut the data off: the
    // flatbuffer itself is intact, its buffer offsets point past the end of the file.
    let model = tflite::read(&example_bytes()).expect("example reads");
    let external = tflite::write_with(
        &model,
        &WriteOptions {
            external_buffers: true,
        },
    )
    .expect("writes");
    let flat_len = {
        // Find the smallest buffer offset: everything before it is the flatbuffer.
        let root = flatbuffers::root::<zeropoint::tflite::schema::Model>(&external).expect("valid");
        root.buffers()
            .expect("buffers")
            .iter()
            .filter(|b| b.offset() > 1)
            .map(|b| b.offset() as usize)
            .min()
            .expect("external buffers")
    };
    let cut = &external[..flat_len];
    let err = tflite::read(cut).expect_err("offsets past the end must be refused");
    let msg = err.to_string();
    assert!(msg.contains("buffer"), "{msg}");
    assert!(
        msg.contains("past the end") || msg.contains("beyond"),
        "{msg}"
    );
    cli_refuses("offsets_past_end.tflite", cut, "buffer");
}

#[test]
fn huge_dimensions_are_refused_before_allocation() {
    // Output shapes are computed by the engine (as LiteRT's Prepare resizes them), so the
    // declared shapes that matter are those of graph inputs and constants.
    let m = graph(
        vec![
            f32t("huge", &[1 << 20, 1 << 20, 1 << 20]),
            f32t("y", &[1, 2]),
        ],
        vec![add(&[0, 0], &[1])],
        &[0],
        &[1],
    );
    let bytes = tflite::write(&m).expect("writes");
    let m = tflite::read(&bytes).expect("reads");
    match Interpreter::new(&m) {
        Err(Error::CannotRun { issues }) => {
            assert!(
                issues.iter().any(|i| i.to_string().contains("huge")),
                "{issues:?}"
            );
        }
        Err(e @ Error::TooLarge { .. }) => assert!(e.to_string().contains("huge"), "{e}"),
        Err(e) => panic!("unexpected error kind: {e}"),
        Ok(_) => panic!("a 2^60-element tensor was accepted"),
    }
    cli_run_refuses("huge_dims.tflite", &m, &["huge"]);
}

#[test]
fn a_cyclic_graph_names_the_tensor_read_before_it_exists() {
    // op 0: a = x + b ; op 1: b = a + x — b is read before anything computes it.
    let m = graph(
        vec![f32t("x", &[1, 2]), f32t("a", &[1, 2]), f32t("b", &[1, 2])],
        vec![add(&[0, 2], &[1]), add(&[1, 0], &[2])],
        &[0],
        &[2],
    );
    match Interpreter::new(&m) {
        Err(Error::CannotRun { issues }) => {
            let first = &issues[0];
            assert_eq!(first.op_index, 0);
            assert!(first.tensor.contains("'b'"), "{first}");
            assert!(first.reason.contains("no operator before"), "{first}");
        }
        Err(e) => panic!("unexpected error kind: {e}"),
        Ok(_) => panic!("a cyclic graph was accepted"),
    }
    cli_run_refuses("cyclic.tflite", &m, &["operator 0 (ADD)", "'b'"]);
}

#[test]
fn a_tensor_used_before_it_is_produced_is_named() {
    // op 0 reads c, which op 1 computes later.
    let m = graph(
        vec![f32t("x", &[1, 2]), f32t("y", &[1, 2]), f32t("c", &[1, 2])],
        vec![add(&[0, 2], &[1]), add(&[0, 0], &[2])],
        &[0],
        &[1],
    );
    match Interpreter::new(&m) {
        Err(Error::CannotRun { issues }) => {
            assert!(
                issues
                    .iter()
                    .any(|i| i.op_index == 0 && i.tensor.contains("'c'"))
            );
        }
        other => panic!("expected CannotRun, got {:?}", other.err()),
    }
    cli_run_refuses("used_before_produced.tflite", &m, &["'c'"]);
}

#[test]
fn negative_dims_and_bad_tensor_indices_are_typed_errors() {
    let m = graph(
        vec![f32t("neg", &[-3, 2]), f32t("y", &[1, 2])],
        vec![add(&[0, 0], &[1])],
        &[0],
        &[1],
    );
    match Interpreter::new(&m) {
        Err(Error::CannotRun { issues }) => {
            assert!(
                issues.iter().any(|i| i.to_string().contains("neg")),
                "{issues:?}"
            );
        }
        other => panic!("expected CannotRun, got {:?}", other.err()),
    }
    cli_run_refuses("negative_dims.tflite", &m, &["'neg'"]);
    // An operator referring to tensor 9 in a 2-tensor subgraph: refused at read time.
    let bad = graph(
        vec![f32t("x", &[1, 2]), f32t("y", &[1, 2])],
        vec![add(&[0, 9], &[1])],
        &[0],
        &[1],
    );
    let bytes = tflite::write(&bad).expect("the writer does not validate");
    match tflite::read(&bytes) {
        Err(e @ Error::InconsistentModel { .. }) => {
            let msg = e.to_string();
            assert!(
                msg.contains("operator 0 (ADD)") && msg.contains("tensor 9"),
                "{msg}"
            );
        }
        other => panic!("expected InconsistentModel, got {other:?}"),
    }
    cli_refuses("bad_tensor_index.tflite", &bytes, "operator 0 (ADD)");
}

#[test]
fn fuzz_regressions_keep_their_properties() {
    // Every input a fuzzer once stopped on (`fuzz/regressions/`): it reads or fails with a typed
    // error; if it reads, it rewrites to the same IR and re-serialises byte for byte, and the
    // engine prepares it or refuses it without panicking.
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/regressions");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).expect("fuzz/regressions") {
        let path = entry.expect("entry").path();
        let bytes = std::fs::read(&path).expect("read");
        n += 1;
        let Ok(model) = tflite::read(&bytes) else {
            continue;
        };
        let written = tflite::write(&model).expect("writes");
        let again = tflite::read(&written).expect("reads back");
        assert_eq!(
            format!("{again:?}"),
            format!("{model:?}"),
            "{}",
            path.display()
        );
        assert_eq!(
            tflite::write(&again).expect("writes"),
            written,
            "{}",
            path.display()
        );
        let _ = Interpreter::new(&model);
    }
    assert!(n > 0, "no regression inputs found");
}

/// `while x < 3: x = x + 0` on a float32 scalar: a condition that stays true for ever
/// (subgraph 0 main, 1 cond, 2 body).
fn endless_while() -> Model {
    let scalar = |n: &str| f32t(n, &[]);
    let options = WhileOptionsT {
        cond_subgraph_index: 1,
        body_subgraph_index: 2,
    };
    let with_const = |mut t: Tensor, buffer: u32| {
        t.buffer = buffer;
        t
    };
    let mut m = graph(
        vec![scalar("x"), scalar("x_out")],
        vec![Operator::new(
            OpCode::builtin(BuiltinOperator::WHILE, 1),
            vec![0],
            vec![1],
            BuiltinOptionsT::WhileOptions(Box::new(options)),
        )],
        &[0],
        &[1],
    );
    m.buffers.push(Buffer {
        data: 3f32.to_le_bytes().to_vec(),
    });
    m.buffers.push(Buffer {
        data: 0f32.to_le_bytes().to_vec(),
    });
    m.subgraphs.push(Subgraph {
        tensors: vec![
            scalar("x"),
            with_const(scalar("three"), 1),
            Tensor::new("go", TensorType::BOOL, vec![]),
        ],
        inputs: vec![0],
        outputs: vec![2],
        operators: vec![Operator::new(
            OpCode::builtin(BuiltinOperator::LESS, 1),
            vec![0, 1],
            vec![2],
            BuiltinOptionsT::NONE,
        )],
        ..Default::default()
    });
    m.subgraphs.push(Subgraph {
        tensors: vec![scalar("x"), with_const(scalar("zero"), 2), scalar("x0")],
        inputs: vec![0],
        outputs: vec![2],
        operators: vec![add(&[0, 1], &[2])],
        ..Default::default()
    });
    m
}

#[test]
fn a_while_that_never_ends_stops_at_the_iteration_limit() {
    let path = scratch("endless_while.tflite");
    std::fs::write(&path, tflite::write(&endless_while()).expect("writes")).expect("write model");
    let input = scratch("endless_while.input.npy");
    std::fs::write(&input, npy_f32(&[1], &[0.0])).expect("write npy");
    let out_dir = scratch("endless_while.out");
    let (p, i, o) = (
        path.to_str().expect("utf-8"),
        input.to_str().expect("utf-8"),
        out_dir.to_str().expect("utf-8"),
    );
    let needle = "the loop of operator 0 (WHILE) is too large: its condition (subgraph 1) is still \
                  true after";
    // The default limit, and one given on the command line.
    for (args, count) in [
        (vec!["run", p, "--input", i, "--out-dir", o], "1000000"),
        (
            vec![
                "run",
                p,
                "--input",
                i,
                "--out-dir",
                o,
                "--max-while-iterations",
                "1000",
            ],
            "1000",
        ),
        (
            vec![
                "quantize",
                p,
                "-o",
                o,
                "--data",
                i,
                "--max-while-iterations",
                "20",
            ],
            "20",
        ),
    ] {
        let started = std::time::Instant::now();
        let (ok, err) = cli(&args);
        assert!(!ok, "{args:?}: succeeded");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err}");
        assert!(
            err.contains(&format!("after {count} iterations")),
            "{args:?}: {err}"
        );
        eprintln!("{args:?}: {:.2} s", started.elapsed().as_secs_f64());
    }
}

/// Mutants 558 and 708 of the mutation harness's seed 4 (round seven): files LiteRT refuses at
/// prepare, which we ran and quantized into files LiteRT then refused. A SHAPE whose ShapeOptions
/// name an output type other than INT32 / INT64 ("Unknown shape output data type: 7"), and a
/// BROADCAST_TO whose shape tensor is not 1-D ("NumDimensions(op_context->shape) != 1").
#[test]
fn shape_out_type_and_broadcast_to_shape_rank_are_refused_as_litert_refuses_them() {
    let golden = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests");
    let read =
        |p: &str| tflite::read(&std::fs::read(golden.join(p)).expect("model")).expect("reads");

    let mut m = read("realworld/dynamic_batch/model.tflite");
    let shape_op = m.subgraphs[0]
        .operators
        .iter_mut()
        .find(|op| op.code.op() == BuiltinOperator::SHAPE)
        .expect("a SHAPE");
    let BuiltinOptionsT::ShapeOptions(o) = &mut shape_op.options else {
        panic!("SHAPE with ShapeOptions")
    };
    o.out_type = TensorType::INT16;
    let e = Interpreter::new(&m).err().expect("refused").to_string();
    assert!(e.contains("SHAPE") && e.contains("out_type INT16"), "{e}");

    let mut m = read("golden/op_broadcast_to/model_float.tflite");
    let sg = &mut m.subgraphs[0];
    let op = sg
        .operators
        .iter()
        .find(|op| op.code.op() == BuiltinOperator::BROADCAST_TO)
        .expect("a BROADCAST_TO");
    let t = op.inputs[1] as usize;
    let n = sg.tensors[t].shape.as_ref().expect("declared shape")[0];
    sg.tensors[t].shape = Some(vec![n, 1]);
    let e = Interpreter::new(&m).err().expect("refused").to_string();
    assert!(e.contains("BROADCAST_TO") && e.contains("1-D"), "{e}");
}

/// Mutant 1752 of seed 4 (round seven): a CONV_2D with two inputs. LiteRT refuses it at prepare
/// ("has_bias was not true"), on the float and the int8 model alike; we ran it and wrote a
/// float16 copy LiteRT refused.
#[test]
fn conv2d_with_two_inputs_is_refused_as_litert_refuses_it() {
    let golden = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/golden/fuse_conv_relu");
    for variant in ["model_float.tflite", "model_int8.tflite"] {
        let bytes = std::fs::read(golden.join(variant)).expect("model");
        let mut m = tflite::read(&bytes).expect("reads");
        let conv = m.subgraphs[0]
            .operators
            .iter_mut()
            .find(|op| op.code.op() == BuiltinOperator::CONV_2D)
            .expect("a CONV_2D");
        conv.inputs.truncate(2);
        let e = Interpreter::new(&m).err().expect("refused").to_string();
        assert!(
            e.contains("CONV_2D") && e.contains("needs 3"),
            "{variant}: {e}"
        );
    }
}

/// Mutant 5951 of seed 12: a DEPTHWISE_CONV_2D whose bias input was set to -1 (omitted). With
/// three inputs LiteRT's CONV_2D and DEPTHWISE_CONV_2D prepare read the bias and refuse the
/// omitted one ("Tensor at index 2 was optional but was expected"; LiteRT 2.3, BUILTIN_REF and the
/// default resolver, float and quantized); we ran it and wrote a 16x8 copy LiteRT refused.
#[test]
fn an_omitted_conv_bias_is_refused_as_litert_refuses_it() {
    let golden = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/golden");
    for (model, code) in [
        (
            "op_depthwise_m3_dilation2",
            BuiltinOperator::DEPTHWISE_CONV_2D,
        ),
        ("fuse_conv_relu", BuiltinOperator::CONV_2D),
    ] {
        for variant in ["model_float.tflite", "model_int8.tflite"] {
            let bytes = std::fs::read(golden.join(model).join(variant)).expect("model");
            let mut m = tflite::read(&bytes).expect("reads");
            assert!(
                Interpreter::new(&m).is_ok(),
                "{model}/{variant} runs as shipped"
            );
            let conv = m.subgraphs[0]
                .operators
                .iter_mut()
                .find(|op| op.code.op() == code)
                .expect("a conv");
            conv.inputs[2] = -1;
            let e = Interpreter::new(&m).err().expect("refused").to_string();
            assert!(
                e.contains(&format!("{code:?}")) && e.contains("bias input omitted"),
                "{model}/{variant}: {e}"
            );
        }
    }
}

/// Mutant 9676 of seed 13: a CONV_2D whose `dilation_h_factor` was set to 2^31 - 1. LiteRT's
/// CONV_2D and DEPTHWISE_CONV_2D prepare refuse a stride or dilation over INT16_MAX
/// ("params->dilation_height_factor <= INT16_MAX", measured on LiteRT 2.3 BUILTIN_REF, float and
/// int8, each of the four fields at 32767 and 32768); we ran it and wrote an int8 copy LiteRT
/// refused.
#[test]
fn a_conv_stride_or_dilation_over_int16_max_is_refused_as_litert_refuses_it() {
    let golden = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/golden");
    for (model, variant) in [
        ("op_conv2d_mult_tiny", "model_float.tflite"),
        ("op_conv2d_mult_tiny", "model_int8.tflite"),
        ("op_depthwise_m3_dilation2", "model_float.tflite"),
        ("op_depthwise_m3_dilation2", "model_int8.tflite"),
    ] {
        let bytes = std::fs::read(golden.join(model).join(variant)).expect("model");
        let shipped = tflite::read(&bytes).expect("reads");
        assert!(Interpreter::new(&shipped).is_ok(), "{model}/{variant}");
        for field in 0..4 {
            let mut m = shipped.clone();
            let set = |o: &mut i32| *o = i32::from(i16::MAX) + 1;
            match &mut m.subgraphs[0].operators[0].options {
                BuiltinOptionsT::Conv2DOptions(o) => set([
                    &mut o.stride_h,
                    &mut o.stride_w,
                    &mut o.dilation_h_factor,
                    &mut o.dilation_w_factor,
                ][field]),
                BuiltinOptionsT::DepthwiseConv2DOptions(o) => set([
                    &mut o.stride_h,
                    &mut o.stride_w,
                    &mut o.dilation_h_factor,
                    &mut o.dilation_w_factor,
                ][field]),
                other => panic!("{model}: {other:?}"),
            }
            let e = Interpreter::new(&m).err().expect("refused").to_string();
            assert!(
                e.contains("32768 is over 32767 (LiteRT refuses it)"),
                "{model}/{variant} field {field}: {e}"
            );
        }
    }
}

/// Mutant 1004 of seed 6: a recurrent operator's state tensor made a graph output. LiteRT gives
/// the updated state there; our kernels keep the state in their own cells, so the tensor would
/// read as its initial zeros: refused, naming the tensor, rather than a wrong answer.
#[test]
fn a_recurrent_state_tensor_as_graph_output_is_refused() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/golden/op_bidi_lstm_hybrid_asym_time_major_merged/model_float.tflite");
    let mut m = tflite::read(&std::fs::read(path).expect("model")).expect("reads");
    let sg = &mut m.subgraphs[0];
    let state = sg
        .tensors
        .iter()
        .position(|t| t.is_variable)
        .expect("a state tensor");
    let name = sg.tensors[state].name.clone();
    sg.outputs.push(i32::try_from(state).expect("small index"));
    let e = Interpreter::new(&m).err().expect("refused").to_string();
    assert!(e.contains(&name) && e.contains("variable"), "{e}");
}

/// Mutant 1888 of seed 7: a bidirectional LSTM whose `proj_clip` is −1. LiteRT's (bidirectional
/// and unidirectional) sequence LSTM prepare refuses a negative `proj_clip` ("params->proj_clip
/// >= 0"), with or without projection weights; so does ours, rather than run and quantize it.
#[test]
fn a_negative_proj_clip_is_refused_as_litert_refuses_it() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/golden/op_bidi_lstm_time_major_merged_clip/model_float.tflite");
    let mut m = tflite::read(&std::fs::read(path).expect("model")).expect("reads");
    let mut set = 0;
    for op in &mut m.subgraphs[0].operators {
        if let BuiltinOptionsT::BidirectionalSequenceLSTMOptions(o) = &mut op.options {
            o.proj_clip = -1.0;
            set += 1;
        }
    }
    assert_eq!(set, 1);
    let e = Interpreter::new(&m).err().expect("refused").to_string();
    assert!(e.contains("proj_clip -1 is negative"), "{e}");
}

/// Mutant 1629 of seed 11: a bidirectional LSTM whose variable `bw_cell_state` was pointed at a
/// weight buffer. LiteRT refuses such a file at load ("Tensor 30 is a variable tensor with
/// buffer … not supported now"); we ran it, and `quantize --mode int8` wrote a file LiteRT
/// refuses. Refused now when the file is read, so by `run` and by `quantize`.
#[test]
fn a_variable_tensor_with_data_is_refused_as_litert_refuses_it() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/golden/op_bidi_lstm_merged/model_float.tflite");
    let mut m = tflite::read(&std::fs::read(path).expect("model")).expect("reads");
    let sg = &mut m.subgraphs[0];
    let t = sg
        .tensors
        .iter()
        .position(|t| t.name == "bw_cell_state")
        .expect("the state tensor");
    assert!(sg.tensors[t].is_variable);
    let weights = sg
        .tensors
        .iter()
        .find(|t| t.name == "fw_input_to_forget")
        .expect("weights")
        .buffer;
    sg.tensors[t].buffer = weights;
    // The reader refuses it, as LiteRT's loader does (so `inspect` and the page too).
    let needle =
        format!("tensor {t} 'bw_cell_state': a variable (state) tensor with constant data");
    let bytes = tflite::write(&m).expect("writes");
    let e = tflite::read(&bytes).expect_err("refused").to_string();
    assert!(e.contains(&needle), "{e}");
    let model = scratch("variable_with_data.tflite");
    std::fs::write(&model, &bytes).expect("write model");
    let out = scratch("variable_with_data.int8.tflite");
    let _ = std::fs::remove_file(&out);
    let data =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/golden/op_bidi_lstm_merged/calib.npy");
    for mode in ["int8", "dynamic", "float16"] {
        let (ok, err) = cli(&[
            "quantize",
            "--mode",
            mode,
            model.to_str().expect("utf-8"),
            "-o",
            out.to_str().expect("utf-8"),
            "--data",
            data.to_str().expect("utf-8"),
        ]);
        assert!(!ok && err.contains(&needle), "{mode}: {err}");
        assert!(!out.exists(), "{mode}: a file was written");
    }
}
