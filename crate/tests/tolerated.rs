//! Odd files LiteRT runs, and odd files LiteRT refuses (issues 21 and 22): each built here from
//! a small IR graph, each class checked through the CLI as a user meets it.
//!
//! LiteRT's behaviour for each class was checked with `ai_edge_litert` 2.3's interpreter
//! (`BUILTIN_REF`): it runs models whose metadata, `metadata_buffer`, signature defs or
//! `intermediates` point past their lists, and applies TANH, SIGN_BIT or unknown fused
//! activation codes as NONE; it refuses schema versions other than 3 and operator versions
//! outside the range it registers (below 1, or e.g. ADD above 6). We read and run the first
//! kind, warn (`warning: <file>: …` on stderr, once per problem) and keep the fields as found
//! when quantizing; we refuse the second kind in `run` and in every `quantize` mode, writing
//! nothing.
#![cfg(all(not(target_arch = "wasm32"), feature = "cli"))]

use std::path::{Path, PathBuf};
use std::process::Command;

use zeropoint::graph::{
    Buffer, BuiltinOperator, BuiltinOptionsT, Metadata, Model, OpCode, Operator, SignatureDef,
    Subgraph, Tensor, TensorMap, TensorType,
};
use zeropoint::tflite::schema::{ActivationFunctionType, AddOptionsT};
use zeropoint::{npy, tflite};

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("tolerated");
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir.join(name)
}

/// Runs the CLI: (success, stderr).
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

/// y = x + x (one ADD with fused activation `act`), x and y float32 [1, 2].
fn add_model(act: ActivationFunctionType) -> Model {
    let options = AddOptionsT {
        fused_activation_function: act,
        ..Default::default()
    };
    let f32t = |n: &str| Tensor::new(n, TensorType::FLOAT32, vec![1, 2]);
    Model {
        version: 3,
        subgraphs: vec![Subgraph {
            tensors: vec![f32t("x"), f32t("y")],
            inputs: vec![0],
            outputs: vec![1],
            operators: vec![Operator::new(
                OpCode::builtin(BuiltinOperator::ADD, 1),
                vec![0, 0],
                vec![1],
                BuiltinOptionsT::AddOptions(Box::new(options)),
            )],
            ..Default::default()
        }],
        buffers: vec![Buffer::default()],
        ..Default::default()
    }
}

/// A float32 `.npy` of shape [1, 2], by the crate's one writer.
fn npy_1x2(values: [f32; 2]) -> Vec<u8> {
    let data: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    let mut out = Vec::new();
    npy::write(&mut out, npy::Dtype::F32, &[1, 2], &data).expect("npy");
    out
}

/// `zeropoint run` on `model` with x = [-1, 2]: (success, stderr, y if it ran).
fn run(name: &str, model: &Model) -> (bool, String, Option<[f32; 2]>) {
    let path = scratch(&format!("{name}.tflite"));
    std::fs::write(&path, tflite::write(model).expect("writes")).expect("write model");
    let input = scratch(&format!("{name}.x.npy"));
    std::fs::write(&input, npy_1x2([-1.0, 2.0])).expect("write npy");
    let out_dir = scratch(&format!("{name}.out"));
    let (ok, err) = cli(&[
        "run",
        path.to_str().expect("utf-8"),
        "--input",
        input.to_str().expect("utf-8"),
        "--out-dir",
        out_dir.to_str().expect("utf-8"),
    ]);
    let y = ok.then(|| {
        let file = std::fs::File::open(out_dir.join("output_0.npy")).expect("output written");
        let y = npy::read("y", file)
            .expect("npy")
            .to_f32()
            .expect("float32");
        [y[0], y[1]]
    });
    (ok, err, y)
}

/// `zeropoint quantize --mode <mode>` on `model`: (success, stderr, the output if written).
fn quantize(name: &str, model: &Model, mode: &str) -> (bool, String, Option<Model>) {
    let path = scratch(&format!("{name}.tflite"));
    std::fs::write(&path, tflite::write(model).expect("writes")).expect("write model");
    let out = scratch(&format!("{name}.{mode}.tflite"));
    let _ = std::fs::remove_file(&out);
    let (ok, err) = cli(&[
        "quantize",
        "--mode",
        mode,
        path.to_str().expect("utf-8"),
        "-o",
        out.to_str().expect("utf-8"),
    ]);
    let written = std::fs::read(&out)
        .ok()
        .map(|b| tflite::read(&b).expect("what quantize writes reads"));
    (ok, err, written)
}

#[test]
fn dangling_fields_run_warn_and_are_kept_by_quantize() {
    let mut m = add_model(ActivationFunctionType::NONE);
    // What AI Edge Quantizer writes (issue 21): a metadata_buffer entry past the buffer list.
    m.metadata_buffer = Some(vec![172]);
    m.metadata = vec![Metadata {
        name: Some("dangling".into()),
        buffer: 50,
    }];
    m.signatures = vec![SignatureDef {
        key: Some("serving_default".into()),
        subgraph: 0,
        inputs: vec![TensorMap {
            name: Some("x".into()),
            tensor: 99,
        }],
        outputs: vec![],
    }];
    m.subgraphs[0].operators[0].intermediates = Some(vec![999]);
    let (ok, err, y) = run("dangling", &m);
    assert!(ok, "run refused: {err}");
    assert_eq!(y, Some([-2.0, 4.0]));
    for needle in [
        "metadata_buffer lists buffer 172 but the model has 1 buffers",
        "metadata 0 ('dangling') points at buffer 50",
        "signature 'serving_default' maps 'x' to tensor 99",
        "operator 0 (ADD): intermediates list tensor 999",
    ] {
        let hits = err.lines().filter(|l| l.contains(needle)).count();
        assert_eq!(hits, 1, "'{needle}' once in: {err}");
        assert!(err.contains("warning: "), "{err}");
    }
    for mode in ["float16", "dynamic"] {
        let (ok, err, q) = quantize("dangling", &m, mode);
        assert!(ok, "quantize --mode {mode} refused: {err}");
        let q = q.expect("written");
        assert_eq!(q.metadata_buffer, Some(vec![172]), "{mode}");
        assert_eq!(q.metadata, m.metadata, "{mode}");
        assert_eq!(q.signatures, m.signatures, "{mode}");
        assert_eq!(q.subgraphs[0].operators[0].intermediates, Some(vec![999]));
    }
}

#[test]
fn fused_activations_litert_does_not_apply_run_as_none() {
    // LiteRT's ADD with TANH, SIGN_BIT or an unknown code gives x + x unclamped (checked with
    // ai_edge_litert 2.3, float and int8): [-1, 2] → [-2, 4]. RELU clamps, as a control.
    for (act, name) in [
        (ActivationFunctionType::TANH, "TANH"),
        (ActivationFunctionType::SIGN_BIT, "SIGN_BIT"),
        (ActivationFunctionType(77), "#77"),
    ] {
        let (ok, err, y) = run(&format!("act_{}", act.0), &add_model(act));
        assert!(ok, "{name}: run refused: {err}");
        assert_eq!(y, Some([-2.0, 4.0]), "{name}");
        assert!(
            err.contains(&format!(
                "fused activation {name} is not one LiteRT applies"
            )),
            "{name}: {err}"
        );
    }
    let (ok, err, y) = run("act_relu", &add_model(ActivationFunctionType::RELU));
    assert!(ok, "{err}");
    assert_eq!(y, Some([0.0, 4.0]));
    assert!(!err.contains("warning"), "{err}");
}

#[test]
fn versions_litert_refuses_are_refused_by_run_and_every_quantize_mode() {
    let mut op_v0 = add_model(ActivationFunctionType::NONE);
    op_v0.subgraphs[0].operators[0].code.version = 0;
    let mut schema_v0 = add_model(ActivationFunctionType::NONE);
    schema_v0.version = 0;
    // Above the highest version LiteRT 2.3 registers for ADD (6): "Didn't find op for builtin
    // opcode 'ADD' version '7'" (issue 22's mutants had 7 and 2^31 − 1).
    let mut op_v7 = add_model(ActivationFunctionType::NONE);
    op_v7.subgraphs[0].operators[0].code.version = 7;
    let mut op_vmax = add_model(ActivationFunctionType::NONE);
    op_vmax.subgraphs[0].operators[0].code.version = i32::MAX;
    for (name, model, needle) in [
        (
            "opver0",
            &op_v0,
            "operator version 0: LiteRT registers kernels from version 1",
        ),
        (
            "opver7",
            &op_v7,
            "operator 0 (ADD): invalid: operator version 7: LiteRT 2.3 registers ADD versions 1 to 6",
        ),
        (
            "opvermax",
            &op_vmax,
            "operator version 2147483647: LiteRT 2.3 registers ADD versions 1 to 6",
        ),
        (
            "schema0",
            &schema_v0,
            "schema version 0: LiteRT loads only version 3",
        ),
    ] {
        let (ok, err, _) = run(name, model);
        assert!(!ok, "{name}: run accepted it");
        assert!(err.contains(needle), "{name}: {err}");
        for mode in ["float16", "dynamic"] {
            let (ok, err, written) = quantize(name, model, mode);
            assert!(!ok, "{name}: quantize --mode {mode} accepted it");
            assert!(err.contains(needle), "{name} {mode}: {err}");
            assert!(written.is_none(), "{name} {mode}: a file was written");
        }
    }
}

#[test]
fn quantize_checks_the_graph_in_every_mode() {
    // y = ADD(x, t) where t is read before anything computes it: `run` refuses; dynamic-range
    // and float16 quantization used to write it anyway (issue 22, 556 mutants).
    let mut m = add_model(ActivationFunctionType::NONE);
    m.subgraphs[0]
        .tensors
        .push(Tensor::new("t", TensorType::FLOAT32, vec![1, 2]));
    m.subgraphs[0].operators[0].inputs = vec![0, 2];
    let needle = "input 1 't': no operator before this one computes it";
    let (ok, err, _) = run("unproduced", &m);
    assert!(!ok && err.contains(needle), "{err}");
    for mode in ["float16", "dynamic"] {
        let (ok, err, written) = quantize("unproduced", &m, mode);
        assert!(!ok, "quantize --mode {mode} accepted it");
        assert!(err.contains(needle), "{mode}: {err}");
        assert!(written.is_none(), "{mode}: a file was written");
    }
}

#[test]
fn negative_computed_shapes_and_bad_quantized_dimensions_are_graph_problems() {
    // LiteRT refuses both at allocation ("BytesRequired number of elements overflowed",
    // "quantized_dimension must be in range [0, 4)"); the engine used to run the first.
    let mut neg = add_model(ActivationFunctionType::NONE);
    neg.subgraphs[0].tensors[1].shape = Some(vec![1, -2]);
    let (ok, err, _) = run("neg_shape", &neg);
    assert!(!ok, "run accepted a declared shape [1, -2]");
    assert!(
        err.contains("the graph: invalid: tensor 'y' declares shape [1, -2] with a negative"),
        "{err}"
    );
    assert!(!err.contains("((graph))"), "{err}");
    let mut qdim = add_model(ActivationFunctionType::NONE);
    qdim.subgraphs[0].tensors[1].quantization = Some(zeropoint::graph::Quantization {
        scale: Some(vec![0.5, 0.5]),
        zero_point: Some(vec![0, 0]),
        quantized_dimension: 5,
        ..Default::default()
    });
    let (ok, err, _) = run("qdim5", &qdim);
    assert!(!ok, "run accepted quantized_dimension 5 of a rank-2 tensor");
    assert!(
        err.contains("tensor 'y' has quantized_dimension 5, not an axis of shape [1, 2]"),
        "{err}"
    );
}

#[test]
fn absurd_scales_are_warned_about() {
    for (scale, shown) in [
        (1e13_f32, "1.00000e13"),
        (1e-31, "1.00000e-31"),
        (f32::MIN_POSITIVE / 4.0, "2.93874e-39"),
        (f32::INFINITY, "inf"),
        (3.4e38, "3.40000e38"),
    ] {
        let mut m = add_model(ActivationFunctionType::NONE);
        m.subgraphs[0].tensors[1].quantization = Some(zeropoint::graph::Quantization {
            scale: Some(vec![scale]),
            zero_point: Some(vec![0]),
            ..Default::default()
        });
        let path = scratch("absurd.tflite");
        std::fs::write(&path, tflite::write(&m).expect("writes")).expect("write");
        let (ok, err) = cli(&["inspect", path.to_str().expect("utf-8")]);
        assert!(ok, "{err}");
        assert!(
            err.contains(&format!(
                "tensor 1 'y': quantization scale {shown} is absurd"
            )),
            "{scale}: {err}"
        );
    }
}

#[test]
fn one_input_too_many_is_said_so() {
    let m = add_model(ActivationFunctionType::NONE);
    let path = scratch("count.tflite");
    std::fs::write(&path, tflite::write(&m).expect("writes")).expect("write");
    let x = scratch("count.x.npy");
    std::fs::write(&x, npy_1x2([1.0, 2.0])).expect("npy");
    let x = x.to_str().expect("utf-8");
    let out = scratch("count.out");
    let (ok, err) = cli(&[
        "run",
        path.to_str().expect("utf-8"),
        "--input",
        x,
        "--input",
        x,
        "--out-dir",
        out.to_str().expect("utf-8"),
    ]);
    assert!(!ok);
    assert!(
        err.contains("1 input given too many: the model has 1 input"),
        "{err}"
    );
}

#[test]
fn an_unknown_padding_code_is_named() {
    // LiteRT refuses it too ("Node number 0 (CONV_2D) failed to prepare").
    use zeropoint::tflite::schema::{Conv2DOptionsT, Padding};
    let mut m = add_model(ActivationFunctionType::NONE);
    let sg = &mut m.subgraphs[0];
    sg.tensors = vec![
        Tensor::new("x", TensorType::FLOAT32, vec![1, 3, 3, 1]),
        Tensor::new("w", TensorType::FLOAT32, vec![1, 1, 1, 1]),
        Tensor::new("y", TensorType::FLOAT32, vec![1, 3, 3, 1]),
        Tensor::new("b", TensorType::FLOAT32, vec![1]),
    ];
    sg.tensors[1].buffer = 1;
    sg.tensors[3].buffer = 2;
    m.buffers.push(Buffer {
        data: 1.0f32.to_le_bytes().to_vec(),
    });
    m.buffers.push(Buffer {
        data: 0.0f32.to_le_bytes().to_vec(),
    });
    let o = Conv2DOptionsT {
        padding: Padding(5),
        stride_h: 1,
        stride_w: 1,
        ..Default::default()
    };
    let sg = &mut m.subgraphs[0];
    sg.outputs = vec![2];
    sg.operators = vec![Operator::new(
        OpCode::builtin(BuiltinOperator::CONV_2D, 1),
        vec![0, 1, 3],
        vec![2],
        BuiltinOptionsT::Conv2DOptions(Box::new(o)),
    )];
    let err = match zeropoint::engine::Interpreter::new(&m) {
        Err(e) => e.to_string(),
        Ok(_) => panic!("padding code 5 was accepted"),
    };
    assert!(
        err.contains("operator 0 (CONV_2D): invalid: unknown padding code 5"),
        "{err}"
    );
}

#[test]
fn string_and_int4_tensors_get_their_own_reason() {
    for (dtype, needle) in [
        (TensorType::STRING, "type STRING has no fixed element size"),
        (
            TensorType::INT4,
            "type INT4 (4-bit packed) is supported for dense constant weights only",
        ),
    ] {
        let mut m = add_model(ActivationFunctionType::NONE);
        m.subgraphs[0].tensors[0].dtype = dtype;
        let err = match zeropoint::engine::Interpreter::new(&m) {
            Err(e) => e.to_string(),
            Ok(_) => panic!("{needle}: accepted"),
        };
        assert!(err.contains(needle), "{err}");
        assert!(!err.contains("negative dimension"), "{err}");
    }
}

/// x → TANH → TANH → … (`n` operators), float32 [1, 4].
fn tanh_chain(n: usize) -> Model {
    let mut m = add_model(ActivationFunctionType::NONE);
    let sg = &mut m.subgraphs[0];
    sg.tensors = (0..=n)
        .map(|i| Tensor::new(format!("t{i}"), TensorType::FLOAT32, vec![1, 4]))
        .collect();
    sg.operators = (0..n)
        .map(|i| {
            let i = i32::try_from(i).expect("small");
            Operator::new(
                OpCode::builtin(BuiltinOperator::TANH, 1),
                vec![i],
                vec![i + 1],
                BuiltinOptionsT::NONE,
            )
        })
        .collect();
    sg.outputs = vec![i32::try_from(n).expect("small")];
    m
}

#[test]
fn a_chain_of_100k_tanh_runs_and_calibration_is_refused_by_the_limit() {
    // Issue 22: `run` grew quadratically (the arena planner scanned every placed tensor) and
    // `calibrate` aborted out of memory. Now `run` plans linearly and calibration checks its
    // statistics memory (fixed per tensor) against the arena limit before allocating.
    let m = tanh_chain(100_000);
    let path = scratch("tanh_chain.tflite");
    std::fs::write(&path, tflite::write(&m).expect("writes")).expect("write");
    let interp = zeropoint::engine::Interpreter::new(&m).expect("prepares");
    assert!(interp.arena_bytes() <= 4 * 16, "{}", interp.arena_bytes());
    let x = scratch("tanh_chain.x.npy");
    let data: Vec<u8> = [0.5f32; 4].iter().flat_map(|v| v.to_le_bytes()).collect();
    let mut bytes = Vec::new();
    npy::write(&mut bytes, npy::Dtype::F32, &[1, 1, 4], &data).expect("npy");
    std::fs::write(&x, bytes).expect("npy");
    let out = scratch("tanh_chain.stats.json");
    let (ok, err) = cli(&[
        "calibrate",
        path.to_str().expect("utf-8"),
        "--data",
        x.to_str().expect("utf-8"),
        "-o",
        out.to_str().expect("utf-8"),
    ]);
    assert!(
        !ok,
        "calibrating 100,001 tensors under a 2 GiB limit succeeded"
    );
    assert!(
        err.contains("the calibration statistics is too large: 100001 float tensors"),
        "{err}"
    );
    // Under the limit (1,000 operators), it calibrates.
    let small = scratch("tanh_chain_1k.tflite");
    std::fs::write(&small, tflite::write(&tanh_chain(1000)).expect("writes")).expect("write");
    let (ok, err) = cli(&[
        "calibrate",
        small.to_str().expect("utf-8"),
        "--data",
        x.to_str().expect("utf-8"),
        "-o",
        out.to_str().expect("utf-8"),
    ]);
    assert!(ok, "{err}");
}

#[cfg(target_os = "linux")]
#[test]
fn a_huge_output_within_the_limits_is_an_error_when_memory_runs_out() {
    // Issue 22: a 21 KB model whose RESIZE_BILINEAR output is just under the default limits
    // aborted `run` ("memory allocation of … bytes failed"). Here: a 1.5 GB output, the CLI
    // run with 1 GB of address space: a typed error, exit code 1, no abort.
    let mut m = add_model(ActivationFunctionType::NONE);
    let sg = &mut m.subgraphs[0];
    sg.tensors = vec![
        Tensor::new("x", TensorType::FLOAT32, vec![1, 2, 2, 1]),
        Tensor::new("size", TensorType::INT32, vec![2]),
        Tensor::new("y", TensorType::FLOAT32, vec![1, 16000, 24000, 1]),
    ];
    sg.tensors[1].buffer = 1;
    sg.outputs = vec![2];
    sg.operators = vec![Operator::new(
        OpCode::builtin(BuiltinOperator::RESIZE_BILINEAR, 1),
        vec![0, 1],
        vec![2],
        BuiltinOptionsT::ResizeBilinearOptions(Box::default()),
    )];
    m.buffers.push(Buffer {
        data: [16000i32, 24000]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect(),
    });
    let path = scratch("resize_bomb.tflite");
    std::fs::write(&path, tflite::write(&m).expect("writes")).expect("write");
    let x = scratch("resize_bomb.x.npy");
    let data: Vec<u8> = [1.0f32; 4].iter().flat_map(|v| v.to_le_bytes()).collect();
    let mut bytes = Vec::new();
    npy::write(&mut bytes, npy::Dtype::F32, &[1, 1, 2, 2, 1], &data).expect("npy");
    std::fs::write(&x, bytes).expect("npy");
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -v 1000000 && exec '{}' run '{}' --input '{}' --out-dir '{}'",
            env!("CARGO_BIN_EXE_zeropoint"),
            path.display(),
            x.display(),
            scratch("resize_bomb.out").display()
        ))
        .output()
        .expect("sh runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("the activation arena is too large")
            && err.contains("could not be allocated (not enough memory)"),
        "{err}"
    );
}

#[test]
fn names_that_are_not_utf8_are_read_with_a_warning() {
    // LiteRT never checks names: the harness's 48 mutants with such a name all ran there.
    let mut m = add_model(ActivationFunctionType::NONE);
    m.subgraphs[0].tensors[1].name = "y_ZZ_out".into();
    let mut bytes = tflite::write(&m).expect("writes");
    let at = bytes
        .windows(8)
        .position(|w| w == b"y_ZZ_out")
        .expect("the name is in the file");
    // 0xFF never occurs in UTF-8; 0xC3 starts a sequence that '_' does not continue.
    bytes[at + 2] = 0xff;
    bytes[at + 3] = 0xc3;
    let back = tflite::read(&bytes).expect("reads");
    assert_eq!(back.subgraphs[0].tensors[1].name, "y_??_out");
    let warnings = zeropoint::graph::lint::warnings(&back);
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].contains("is not UTF-8: read as 'y_??_out'"),
        "{warnings:?}"
    );
    let path = scratch("non_utf8_name.tflite");
    std::fs::write(&path, &bytes).expect("write model");
    let input = scratch("non_utf8_name.x.npy");
    std::fs::write(&input, npy_1x2([-1.0, 2.0])).expect("write npy");
    let out_dir = scratch("non_utf8_name.out");
    let (ok, err) = cli(&[
        "run",
        path.to_str().expect("utf-8"),
        "--input",
        input.to_str().expect("utf-8"),
        "--out-dir",
        out_dir.to_str().expect("utf-8"),
    ]);
    assert!(ok, "run refused: {err}");
    assert_eq!(err.matches("is not UTF-8").count(), 1, "{err}");
    let file = std::fs::File::open(out_dir.join("output_0.npy")).expect("output written");
    let y = npy::read("y", file)
        .expect("npy")
        .to_f32()
        .expect("float32");
    assert_eq!(y, [-2.0, 4.0]);
}

#[test]
fn options_type_without_options_or_options_without_type_read_as_defaults() {
    // LiteRT reads options through `builtin_options_as_AddOptions()`, null unless both fields
    // agree, and then uses the defaults: the harness's 19 such mutants all ran there.
    let bytes = tflite::write(&add_model(ActivationFunctionType::NONE)).expect("writes");
    let root = tflite::schema::root_as_model(&bytes).expect("verifies");
    let op = root
        .subgraphs()
        .expect("subgraphs")
        .get(0)
        .operators()
        .expect("ops")
        .get(0);
    let table = op._tab.loc();
    let soffset = i32::from_le_bytes(bytes[table..table + 4].try_into().expect("4 bytes"));
    let vtable = (table as i64 - i64::from(soffset)) as usize;
    for (name, field) in [
        ("type_only", tflite::schema::Operator::VT_BUILTIN_OPTIONS),
        (
            "table_only",
            tflite::schema::Operator::VT_BUILTIN_OPTIONS_TYPE,
        ),
    ] {
        let mut hostile = bytes.clone();
        let at = vtable + usize::from(field);
        hostile[at..at + 2].fill(0);
        let back = tflite::read(&hostile).expect("reads");
        assert_eq!(
            back.subgraphs[0].operators[0].options,
            BuiltinOptionsT::NONE,
            "{name}"
        );
        let warnings = zeropoint::graph::lint::warnings(&back);
        // Plus "no AddOptions: run with LiteRT's defaults" (`options_of_another_type.rs`).
        assert!(
            warnings.len() == 2
                && warnings[0].contains(
                    "operator 0 of subgraph 0 has only one of builtin_options_type and \
                     builtin_options: read with no options"
                ),
            "{name}: {warnings:?}"
        );
        let path = scratch(&format!("lone_options_{name}.tflite"));
        std::fs::write(&path, &hostile).expect("write model");
        let input = scratch("lone_options.x.npy");
        std::fs::write(&input, npy_1x2([-1.0, 2.0])).expect("write npy");
        let out_dir = scratch(&format!("lone_options_{name}.out"));
        let (ok, err) = cli(&[
            "run",
            path.to_str().expect("utf-8"),
            "--input",
            input.to_str().expect("utf-8"),
            "--out-dir",
            out_dir.to_str().expect("utf-8"),
        ]);
        assert!(ok, "{name}: run refused: {err}");
        assert_eq!(err.matches("has only one of").count(), 1, "{name}: {err}");
        let file = std::fs::File::open(out_dir.join("output_0.npy")).expect("output written");
        let y = npy::read("y", file)
            .expect("npy")
            .to_f32()
            .expect("float32");
        assert_eq!(y, [-2.0, 4.0], "{name}");
    }
}

#[test]
fn a_graph_input_listed_twice_takes_the_last_value_given() {
    // LiteRT (checked with ai_edge_litert 2.3, BUILTIN_REF) sets the one tensor twice and runs
    // with the last value; a constant listed as an input crashes it when set (refused here).
    let mut m = add_model(ActivationFunctionType::NONE);
    m.subgraphs[0].inputs = vec![0, 0];
    let path = scratch("input_twice.tflite");
    std::fs::write(&path, tflite::write(&m).expect("writes")).expect("write model");
    let first = scratch("input_twice.a.npy");
    std::fs::write(&first, npy_1x2([-1.0, 2.0])).expect("write npy");
    let second = scratch("input_twice.b.npy");
    std::fs::write(&second, npy_1x2([3.0, 5.0])).expect("write npy");
    let out_dir = scratch("input_twice.out");
    let (ok, err) = cli(&[
        "run",
        path.to_str().expect("utf-8"),
        "--input",
        first.to_str().expect("utf-8"),
        "--input",
        second.to_str().expect("utf-8"),
        "--out-dir",
        out_dir.to_str().expect("utf-8"),
    ]);
    assert!(ok, "run refused: {err}");
    assert_eq!(
        err.matches("graph input 0 ('x') is listed 2 times").count(),
        1,
        "{err}"
    );
    let file = std::fs::File::open(out_dir.join("output_0.npy")).expect("output written");
    let y = npy::read("y", file)
        .expect("npy")
        .to_f32()
        .expect("float32");
    assert_eq!(y, [6.0, 10.0]);
}

/// f32 bytes of `v`.
fn f32_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

#[test]
fn a_constant_an_operator_overwrites_is_computed_as_litert_does() {
    // y = x + x where y carries constant data [100, 200]: LiteRT 2.3 (BUILTIN_REF) writes the sum
    // into y's buffer and returns [2, 4] for x = [1, 2]; so do we, with a warning (issue 22,
    // "the tensor already has a value": ADD, SUB, CONV_2D, FULLY_CONNECTED, … mutants).
    let mut m = add_model(ActivationFunctionType::NONE);
    m.buffers.push(Buffer {
        data: f32_bytes(&[100.0, 200.0]),
    });
    m.subgraphs[0].tensors[1].buffer = 1;
    let (ok, err, y) = run("const_out", &m);
    assert!(ok, "{err}");
    assert_eq!(y, Some([-2.0, 4.0]));
    assert!(
        err.contains(
            "tensor 1 'y': a constant that operator 0 (ADD) computes: its data is ignored"
        ),
        "{err}"
    );
    for mode in ["float16", "dynamic"] {
        let (ok, err, written) = quantize("const_out", &m, mode);
        assert!(ok, "{mode}: {err}");
        let q = written.expect("written");
        let y = q.subgraphs[0]
            .tensors
            .iter()
            .position(|t| t.name == "y")
            .expect("y");
        assert!(q.tensor_data(0, y).is_none(), "{mode}: y keeps its data");
    }

    // Read before the operator that overwrites it (z = y + x, then y = x + x): LiteRT's first
    // invocation reads the constant and the next ones the computed value: still refused.
    let mut early = m.clone();
    let sg = &mut early.subgraphs[0];
    sg.tensors
        .push(Tensor::new("z", TensorType::FLOAT32, vec![1, 2]));
    let mut first = sg.operators[0].clone();
    first.inputs = vec![1, 0];
    first.outputs = vec![2];
    sg.operators.insert(0, first);
    sg.outputs = vec![2];
    let (ok, err, _) = run("const_out_early", &early);
    assert!(!ok, "run accepted a constant read before it is overwritten");
    assert!(err.contains("the tensor already has a value"), "{err}");

    // Overwritten with another shape: LiteRT would write past the constant's data.
    let mut other = m.clone();
    other.buffers[1].data = f32_bytes(&[100.0]);
    other.subgraphs[0].tensors[1].shape = Some(vec![1]);
    let (ok, err, _) = run("const_out_shape", &other);
    assert!(
        !ok,
        "run accepted a constant overwritten with another shape"
    );
    assert!(
        err.contains("a constant of shape [1] that the operator overwrites with shape [1, 2]"),
        "{err}"
    );
}

#[test]
fn dequantize_writes_float32_whatever_its_output_declares() {
    // x → QUANTIZE (int8, scale 0.5) → DEQUANTIZE → y declared INT32: LiteRT 2.3's DEQUANTIZE
    // Prepare sets its output to FLOAT32 (BUILTIN_REF returns float values for INT32, UINT8,
    // INT8, INT16, INT64, FLOAT16 and FLOAT64 declarations); so does the engine, with a warning.
    let mut m = add_model(ActivationFunctionType::NONE);
    let sg = &mut m.subgraphs[0];
    let mut q = Tensor::new("q", TensorType::INT8, vec![1, 2]);
    q.quantization = Some(zeropoint::graph::Quantization {
        scale: Some(vec![0.5]),
        zero_point: Some(vec![0]),
        ..Default::default()
    });
    sg.tensors.push(q);
    sg.tensors[1].dtype = TensorType::INT32;
    sg.operators = vec![
        Operator::new(
            OpCode::builtin(BuiltinOperator::QUANTIZE, 1),
            vec![0],
            vec![2],
            BuiltinOptionsT::NONE,
        ),
        Operator::new(
            OpCode::builtin(BuiltinOperator::DEQUANTIZE, 1),
            vec![2],
            vec![1],
            BuiltinOptionsT::NONE,
        ),
    ];
    let (ok, err, y) = run("dq_int32", &m);
    assert!(ok, "{err}");
    assert_eq!(y, Some([-1.0, 2.0]));
    assert!(
        err.contains("operator 1 (DEQUANTIZE): output 'y' is declared INT32"),
        "{err}"
    );
    for mode in ["float16", "dynamic"] {
        let (ok, err, written) = quantize("dq_int32", &m, mode);
        assert!(ok, "{mode}: {err}");
        let q = written.expect("written");
        let y = q.subgraphs[0].tensors.iter().find(|t| t.name == "y");
        assert_eq!(y.map(|t| t.dtype), Some(TensorType::FLOAT32), "{mode}");
    }
}
