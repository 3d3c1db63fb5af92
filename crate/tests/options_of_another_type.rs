//! Operators whose builtin options table is of another type than their own (issue 22): LiteRT's
//! `ParseOpData` reads options through `builtin_options_as_X()`, null for a table of another
//! type, and then runs with its zeroed params struct. The engine does the same
//! (`ops::litert_options`), the lint names the operator and both types, and the file's options
//! are kept as found when written back (except a FULLY_CONNECTED's in a 16x8 quantization, which
//! LiteRT's integer prepare reads: it gets its own table, last test).
//!
//! The expected outputs were checked with `ai_edge_litert` 2.3 (`BUILTIN_REF`) on the files
//! these tests write (`target/tmp/options_of_another_type/*.tflite`): the ADD with a RELU in its
//! own options, given ReshapeOptions instead, returned [-2, 4] for x = [-1, 2] (no RELU); the
//! SOFTMAX given ReshapeOptions ran with beta 0 and returned [0.5, 0.5]; the CONV_2D given
//! ReshapeOptions was refused ("params->stride_height > 0 was not true"), as here; the 16x8
//! SOFTMAX given ReshapeOptions returned 8192 (1/4) four times.

use std::path::{Path, PathBuf};

use zeropoint::Error;
use zeropoint::engine::Interpreter;
use zeropoint::graph::{
    Buffer, BuiltinOperator, BuiltinOptionsT, Model, OpCode, Operator, Subgraph, Tensor, TensorType,
};
use zeropoint::tflite;
use zeropoint::tflite::schema::{
    ActivationFunctionType, AddOptionsT, BuiltinOptions, Conv2DOptionsT,
};

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("options_of_another_type");
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir.join(name)
}

/// One operator over float32 tensors `x` [1, 2] → `y` [1, 2] (plus `extra` tensors), written to
/// a file (for checking in LiteRT) and read back through the reader.
fn one_op(
    name: &str,
    op: BuiltinOperator,
    inputs: Vec<i32>,
    options: BuiltinOptionsT,
    extra: Vec<(Tensor, Buffer)>,
) -> Model {
    let f32t = |n: &str, shape: Vec<i32>| Tensor::new(n, TensorType::FLOAT32, shape);
    let mut tensors = vec![f32t("x", vec![1, 2]), f32t("y", vec![1, 2])];
    let mut buffers = vec![Buffer::default()];
    for (mut t, b) in extra {
        buffers.push(b);
        t.buffer = u32::try_from(buffers.len() - 1).expect("few buffers");
        tensors.push(t);
    }
    let model = Model {
        version: 3,
        subgraphs: vec![Subgraph {
            tensors,
            inputs: vec![0],
            outputs: vec![1],
            operators: vec![Operator::new(
                OpCode::builtin(op, 1),
                inputs,
                vec![1],
                options,
            )],
            ..Default::default()
        }],
        buffers,
        ..Default::default()
    };
    let bytes = tflite::write(&model).expect("writes");
    std::fs::write(scratch(&format!("{name}.tflite")), &bytes).expect("write model");
    tflite::read(&bytes).expect("reads")
}

fn run(model: &Model, x: [f32; 2]) -> Result<Vec<f32>, Error> {
    let mut it = Interpreter::new(model)?;
    it.set_input_f32(0, &x)?;
    it.invoke()?;
    Ok(it.output(0)?.as_f32().expect("float32 output").to_vec())
}

fn reshape_options() -> BuiltinOptionsT {
    BuiltinOptionsT::ReshapeOptions(Box::default())
}

#[test]
fn add_with_reshape_options_runs_with_zeroed_options_and_keeps_them() {
    let own = add_own_relu();
    assert_eq!(
        run(&own, [-1.0, 2.0]).expect("runs"),
        [0.0, 4.0],
        "its own RELU applies"
    );

    let model = one_op(
        "add_reshape_options",
        BuiltinOperator::ADD,
        vec![0, 0],
        reshape_options(),
        vec![],
    );
    assert_eq!(
        run(&model, [-1.0, 2.0]).expect("runs"),
        [-2.0, 4.0],
        "no activation, as LiteRT"
    );
    let warnings = zeropoint::graph::lint::warnings(&model);
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].contains(
            "operator 0 (ADD): options of type ReshapeOptions where the operator reads AddOptions"
        ),
        "{warnings:?}"
    );
    // Written back as found: the table's type is still ReshapeOptions.
    let again = tflite::read(&tflite::write(&model).expect("writes")).expect("reads");
    assert_eq!(
        again.subgraphs[0].operators[0]
            .options
            .builtin_options_type(),
        BuiltinOptions::ReshapeOptions
    );
}

fn add_own_relu() -> Model {
    let options = AddOptionsT {
        fused_activation_function: ActivationFunctionType::RELU,
        ..Default::default()
    };
    one_op(
        "add_own_relu",
        BuiltinOperator::ADD,
        vec![0, 0],
        BuiltinOptionsT::AddOptions(Box::new(options)),
        vec![],
    )
}

#[test]
fn softmax_with_reshape_options_runs_with_beta_zero() {
    let model = one_op(
        "softmax_reshape_options",
        BuiltinOperator::SOFTMAX,
        vec![0],
        reshape_options(),
        vec![],
    );
    assert_eq!(run(&model, [-1.0, 2.0]).expect("runs"), [0.5, 0.5]);
}

#[test]
fn conv_with_reshape_options_is_refused_on_its_zero_stride_as_litert_refuses_it() {
    // A 1x1 convolution, 2 → 2 channels, over a [1, 1, 1, 2] input.
    let weights = Tensor::new("w", TensorType::FLOAT32, vec![2, 1, 1, 2]);
    let w_data: Vec<u8> = [1.0f32, 0.0, 0.0, 1.0]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    // A zero bias: LiteRT's CONV_2D refuses an omitted one.
    let bias = Tensor::new("b", TensorType::FLOAT32, vec![2]);
    let mut model = one_op(
        "conv_reshape_options_rank2",
        BuiltinOperator::CONV_2D,
        vec![0, 2, 3],
        reshape_options(),
        vec![
            (weights, Buffer { data: w_data }),
            (bias, Buffer { data: vec![0; 8] }),
        ],
    );
    for t in &mut model.subgraphs[0].tensors[..2] {
        t.shape = Some(vec![1, 1, 1, 2]);
    }
    let bytes = tflite::write(&model).expect("writes");
    std::fs::write(scratch("conv_reshape_options.tflite"), bytes).expect("write model");
    let Err(e) = Interpreter::new(&model) else {
        panic!("a zero stride must be refused");
    };
    let text = e.to_string();
    assert!(
        text.contains("operator 0 (CONV_2D)") && text.contains("stride"),
        "{text}"
    );
    // With its own options (stride 1) the same model runs: the refusal is the zeroed stride.
    let own = Conv2DOptionsT {
        stride_w: 1,
        stride_h: 1,
        ..Default::default()
    };
    model.subgraphs[0].operators[0].options = BuiltinOptionsT::Conv2DOptions(Box::new(own));
    let mut it = Interpreter::new(&model).expect("prepares");
    it.set_input_f32(0, &[-1.0, 2.0]).expect("input");
    it.invoke().expect("runs");
    assert_eq!(
        it.output(0).expect("output").as_f32().expect("float"),
        [-1.0, 2.0]
    );
}

#[test]
fn add_without_options_is_warned_about_its_zeroed_defaults() {
    let model = one_op(
        "add_no_options",
        BuiltinOperator::ADD,
        vec![0, 0],
        BuiltinOptionsT::NONE,
        vec![],
    );
    let warnings = zeropoint::graph::lint::warnings(&model);
    assert!(
        warnings.len() == 1
            && warnings[0].contains("operator 0 (ADD): no AddOptions: run with LiteRT's defaults"),
        "{warnings:?}"
    );
    assert_eq!(run(&model, [-1.0, 2.0]).expect("runs"), [-2.0, 4.0]);
}

#[test]
fn int16_softmax_with_reshape_options_runs_with_beta_zero() {
    // 16x8 SOFTMAX: input scale 0.01, output 1/32768, zero points 0. With ReshapeOptions LiteRT
    // runs it with beta 0: a zero multiplier, every exponent exp(0), a uniform output (its
    // values checked with ai_edge_litert 2.3 on the file this test writes).
    let mut model = one_op(
        "softmax16_reshape_options",
        BuiltinOperator::SOFTMAX,
        vec![0],
        reshape_options(),
        vec![],
    );
    let sg = &mut model.subgraphs[0];
    for (t, scale) in sg.tensors.iter_mut().zip([0.01f32, 1.0 / 32768.0]) {
        t.dtype = TensorType::INT16;
        t.shape = Some(vec![1, 4]);
        t.quantization = Some(zeropoint::graph::Quantization {
            scale: Some(vec![scale]),
            zero_point: Some(vec![0]),
            ..Default::default()
        });
    }
    let bytes = tflite::write(&model).expect("writes");
    std::fs::write(scratch("softmax16_reshape_options.tflite"), &bytes).expect("write model");
    let mut it = Interpreter::new(&model).expect("prepares");
    let x: Vec<u8> = [-300i16, 0, 5, 1200]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    it.set_input(0, &x).expect("input");
    it.invoke().expect("runs");
    let y: Vec<i16> = it
        .output(0)
        .expect("output")
        .bytes
        .chunks_exact(2)
        .map(|b| i16::from_le_bytes([b[0], b[1]]))
        .collect();
    assert_eq!(y, [8192i16; 4], "LiteRT BUILTIN_REF's output");
}

/// Mutant 7828 of seed 4 (round seven): a FULLY_CONNECTED given options of another type. LiteRT
/// runs the float model with its zeroed params (the table's defaults), but its 16x8 prepare reads
/// `quantized_bias_type` from a FullyConnectedOptions table ("params->quantized_bias_type ==
/// kTfLiteInt32 || … kTfLiteInt64 was not true"), so our 16x8 copy gives the operator its own
/// table, as TF's 16x8 converter writes it (int64 bias declared); checked with ai_edge_litert
/// 2.3, which loads and runs the file this test writes.
#[test]
fn int16x8_quantization_gives_a_fully_connected_its_own_options() {
    let golden = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/golden/mlp");
    let bytes = std::fs::read(golden.join("model_float.tflite")).expect("model");
    let mut model = tflite::read(&bytes).expect("reads");
    let fc = model.subgraphs[0]
        .operators
        .iter_mut()
        .find(|op| op.code.op() == BuiltinOperator::FULLY_CONNECTED)
        .expect("a FULLY_CONNECTED");
    fc.options = reshape_options();
    let (input, output) = (
        scratch("fc_reshape_options.tflite"),
        scratch("fc_reshape_options_16x8.tflite"),
    );
    std::fs::write(&input, tflite::write(&model).expect("writes")).expect("write model");
    let calib = golden.join("calib.npy");
    let status = std::process::Command::new(env!("CARGO_BIN_EXE_zeropoint"))
        .args(["quantize", "--mode", "int16x8", "--data"])
        .arg(&calib)
        .arg("-o")
        .arg(&output)
        .arg(&input)
        .status()
        .expect("zeropoint runs");
    assert!(status.success());
    let q = tflite::read(&std::fs::read(&output).expect("quantized")).expect("reads");
    let fcs: Vec<_> = q.subgraphs[0]
        .operators
        .iter()
        .filter(|op| op.code.op() == BuiltinOperator::FULLY_CONNECTED)
        .collect();
    assert!(!fcs.is_empty());
    for op in fcs {
        let BuiltinOptionsT::FullyConnectedOptions(o) = &op.options else {
            panic!(
                "FULLY_CONNECTED written with {:?}",
                op.options.builtin_options_type()
            );
        };
        assert_eq!(o.quantized_bias_type, TensorType::INT64);
    }
}
