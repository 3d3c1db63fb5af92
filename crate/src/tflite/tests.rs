//! Format-layer tests: a read ⇄ write round-trip table over every field the IR carries, and
//! malformed inputs that must give typed errors (never panics).

use proptest::prelude::*;

use super::schema::{
    self, ActivationFunctionType, BuiltinOperator, BuiltinOptions2T, BuiltinOptionsT,
    Conv2DOptionsT, CustomQuantizationT, DimensionMetadataT, DimensionType, ExternalBufferGroupT,
    ExternalBufferT, Int32VectorT, Padding, QuantizationDetailsT, SparseIndexVectorT,
    SparsityParametersT, StablehloConcatenateOptionsT, TensorType, VariantSubTypeT,
};
use super::{WriteOptions, read, write, write_with};
use crate::error::Error;
use crate::graph::{
    Buffer, Metadata, Model, OpCode, Operator, Quantization, SignatureDef, Subgraph, Tensor,
    TensorMap,
};

fn f32_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn op(code: OpCode, inputs: Vec<i32>, outputs: Vec<i32>) -> Operator {
    Operator::new(code, inputs, outputs, BuiltinOptionsT::NONE)
}

/// A small conv model: input → CONV_2D(weights, bias) → output, with per-channel quantized
/// weights, a signature and metadata.
fn base_model() -> Model {
    let mut input = Tensor::new("input", TensorType::FLOAT32, vec![1, 4, 4, 1]);
    input.shape_signature = Some(vec![-1, 4, 4, 1]);
    let mut weights = Tensor::new("w", TensorType::INT8, vec![2, 1, 1, 1]);
    weights.buffer = 1;
    weights.quantization = Some(Quantization {
        scale: Some(vec![0.5, 0.25]),
        zero_point: Some(vec![0, 0]),
        quantized_dimension: 0,
        ..Quantization::default()
    });
    let mut bias = Tensor::new("b", TensorType::FLOAT32, vec![2]);
    bias.buffer = 2;
    let mut output = Tensor::new("output", TensorType::FLOAT32, vec![1, 4, 4, 2]);
    output.quantization = Some(Quantization {
        min: Some(vec![-1.0]),
        max: Some(vec![3.5]),
        ..Quantization::default()
    });
    let mut conv = op(
        OpCode::builtin(BuiltinOperator::CONV_2D, 3),
        vec![0, 1, 2],
        vec![3],
    );
    conv.options = BuiltinOptionsT::Conv2DOptions(Box::new(Conv2DOptionsT {
        padding: Padding::VALID,
        stride_w: 2,
        stride_h: 1,
        fused_activation_function: ActivationFunctionType::RELU6,
        dilation_w_factor: 1,
        dilation_h_factor: 2,
        quantized_bias_type: TensorType::INT32,
    }));
    Model {
        version: 3,
        description: Some("test model".into()),
        subgraphs: vec![Subgraph {
            name: Some("main".into()),
            tensors: vec![input, weights, bias, output],
            inputs: vec![0],
            outputs: vec![3],
            operators: vec![conv],
            debug_metadata_index: -1,
        }],
        buffers: vec![
            Buffer::default(),
            Buffer {
                data: vec![3, 0xfd],
            },
            Buffer {
                data: f32_bytes(&[0.5, -1.0]),
            },
            Buffer {
                data: b"1.14.0\0".to_vec(),
            },
        ],
        metadata: vec![Metadata {
            name: Some("min_runtime_version".into()),
            buffer: 3,
        }],
        metadata_buffer: None,
        signatures: vec![SignatureDef {
            key: Some("serving_default".into()),
            subgraph: 0,
            inputs: vec![TensorMap {
                name: Some("x".into()),
                tensor: 0,
            }],
            outputs: vec![TensorMap {
                name: Some("y".into()),
                tensor: 3,
            }],
        }],
        external_buffer_groups: None,
        external_buffers: None,
        read_warnings: Vec::new(),
    }
}

/// An edit of the base model that exercises fields the base leaves at their defaults.
type Edit = fn(&mut Model);

/// The round-trip table: each case edits the base model.
fn cases() -> Vec<(&'static str, Edit)> {
    vec![
        ("base", |_| {}),
        ("custom op with options", |m| {
            let mut c = op(
                OpCode {
                    builtin_code: BuiltinOperator::CUSTOM,
                    deprecated_builtin_code: 32,
                    custom_code: Some("MyCustomOp".into()),
                    version: 1,
                },
                vec![3],
                vec![4],
            );
            c.custom_options = Some(vec![1, 2, 3, 4, 5]);
            m.subgraphs[0]
                .tensors
                .push(Tensor::new("custom_out", TensorType::FLOAT32, vec![1]));
            m.subgraphs[0].operators.push(c);
        }),
        ("op code above 127 and deprecated-only code", |m| {
            let sg = &mut m.subgraphs[0];
            sg.tensors
                .push(Tensor::new("t4", TensorType::FLOAT32, vec![1]));
            sg.tensors
                .push(Tensor::new("t5", TensorType::FLOAT32, vec![1]));
            sg.operators.push(op(
                OpCode::builtin(BuiltinOperator(150), 1),
                vec![3],
                vec![4],
            ));
            sg.operators.push(op(
                OpCode {
                    builtin_code: BuiltinOperator(0),
                    deprecated_builtin_code: 22, // RESHAPE, as pre-2.4 writers stored it
                    custom_code: None,
                    version: 1,
                },
                vec![4, -1],
                vec![5],
            ));
        }),
        ("options_2, intermediates, variables, debug indices", |m| {
            let sg = &mut m.subgraphs[0];
            let mut v = Tensor::new("state", TensorType::FLOAT32, vec![2]);
            v.is_variable = true;
            sg.tensors.push(v);
            sg.tensors
                .push(Tensor::new("cat", TensorType::FLOAT32, vec![4]));
            let mut o = op(
                OpCode::builtin(BuiltinOperator::STABLEHLO_CONCATENATE, 1),
                vec![3, 4],
                vec![5],
            );
            o.options_2 = BuiltinOptions2T::StablehloConcatenateOptions(Box::new(
                StablehloConcatenateOptionsT { dimension: 3 },
            ));
            o.intermediates = Some(vec![4]);
            o.mutating_variable_inputs = Some(vec![false, true]);
            o.debug_metadata_index = 7;
            sg.operators.push(o);
            sg.debug_metadata_index = 2;
        }),
        ("sparsity, custom quantization, variants, has_rank", |m| {
            let t = &mut m.subgraphs[0].tensors[1];
            t.sparsity = Some(Box::new(SparsityParametersT {
                traversal_order: Some(vec![0, 1, 2, 3]),
                block_map: Some(vec![]),
                dim_metadata: Some(vec![DimensionMetadataT {
                    format: DimensionType::SPARSE_CSR,
                    dense_size: 0,
                    array_segments: SparseIndexVectorT::Int32Vector(Box::new(Int32VectorT {
                        values: Some(vec![0, 2]),
                    })),
                    array_indices: SparseIndexVectorT::Int32Vector(Box::new(Int32VectorT {
                        values: Some(vec![0, 1]),
                    })),
                }]),
            }));
            let out = &mut m.subgraphs[0].tensors[3];
            if let Some(q) = out.quantization.as_mut() {
                q.details =
                    QuantizationDetailsT::CustomQuantization(Box::new(CustomQuantizationT {
                        custom: Some(vec![9, 8, 7]),
                    }));
            }
            let input = &mut m.subgraphs[0].tensors[0];
            input.has_rank = true;
            input.variant_tensors = Some(vec![VariantSubTypeT {
                shape: Some(vec![2]),
                type_: TensorType::INT32,
                has_rank: true,
            }]);
        }),
        ("second subgraph, metadata_buffer, external groups", |m| {
            let sub = Subgraph {
                name: None,
                tensors: vec![Tensor::new("a", TensorType::INT32, vec![])],
                inputs: vec![0],
                outputs: vec![0],
                operators: vec![],
                debug_metadata_index: -1,
            };
            m.subgraphs.push(sub);
            m.metadata_buffer = Some(vec![3]);
            m.external_buffer_groups = Some(vec![ExternalBufferGroupT {
                name: Some("weights.bin".into()),
            }]);
            m.external_buffers = Some(vec![
                ExternalBufferT::default(),
                ExternalBufferT {
                    id: 1,
                    group: 0,
                    offset: 64,
                    length: 8,
                    packing: Some("none".into()),
                },
            ]);
            m.subgraphs[1].tensors[0].external_buffer = 1;
        }),
    ]
}

#[test]
fn round_trip_table() {
    for (name, edit) in cases() {
        let mut m = base_model();
        edit(&mut m);
        for external_buffers in [false, true] {
            let bytes = write_with(&m, &WriteOptions { external_buffers })
                .unwrap_or_else(|e| panic!("{name}: write: {e}"));
            assert_eq!(&bytes[4..8], b"TFL3", "{name}: file identifier");
            let back = read(&bytes).unwrap_or_else(|e| panic!("{name}: read: {e}"));
            assert_eq!(back, m, "{name} (external={external_buffers})");
        }
    }
}

#[test]
fn external_layout_puts_data_after_the_flatbuffer_aligned() {
    let m = base_model();
    let inline = write(&m).expect("write");
    let ext = write_with(
        &m,
        &WriteOptions {
            external_buffers: true,
        },
    )
    .expect("write");
    let root = schema::root_as_model(&ext).expect("verifies");
    let buffers = root.buffers().expect("buffers");
    let mut seen = 0;
    for (i, b) in buffers.iter().enumerate() {
        assert!(
            b.data().is_none_or(|d| d.is_empty()),
            "buffer {i} kept inline data"
        );
        if b.offset() > 1 {
            seen += 1;
            assert_eq!(b.offset() as usize % super::write::EXTERNAL_ALIGN, 0);
            let (o, n) = (b.offset() as usize, b.size() as usize);
            assert_eq!(&ext[o..o + n], m.buffers[i].data.as_slice());
        }
    }
    assert_eq!(seen, 3);
    assert!(ext.len() > inline.len());
}

#[test]
fn deprecated_code_is_reconciled_like_litert() {
    let c = OpCode {
        builtin_code: BuiltinOperator(0),
        deprecated_builtin_code: 22,
        custom_code: None,
        version: 1,
    };
    assert_eq!(c.op(), BuiltinOperator::RESHAPE);
    assert_eq!(c.name(), "RESHAPE");
    let big = OpCode::builtin(BuiltinOperator(150), 1);
    assert_eq!(big.deprecated_builtin_code, 127);
    assert_eq!(big.op(), BuiltinOperator(150));
}

fn expect_err(bytes: &[u8]) -> Error {
    match read(bytes) {
        Ok(_) => panic!("malformed input was accepted"),
        Err(e) => e,
    }
}

#[test]
fn too_short_and_garbage_are_rejected() {
    for n in [0, 1, 4, 7] {
        let e = expect_err(&vec![0u8; n]);
        assert!(e.to_string().contains("too short"), "{e}");
    }
    let mut rng = 0x2545_f491_4f6c_dd1du64;
    let garbage: Vec<u8> = (0..4096)
        .map(|_| {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng as u8
        })
        .collect();
    assert!(matches!(
        expect_err(&garbage),
        Error::InvalidFlatbuffer { .. }
    ));
}

#[test]
fn truncation_at_every_sixteenth_is_an_error() {
    for external_buffers in [false, true] {
        let bytes = write_with(&base_model(), &WriteOptions { external_buffers }).expect("write");
        for k in 0..16 {
            let cut = bytes.len() * k / 16;
            let e = expect_err(&bytes[..cut]);
            assert!(
                matches!(e, Error::InvalidFlatbuffer { .. }),
                "cut at {cut}/{}: {e}",
                bytes.len()
            );
        }
    }
}

/// Packs a raw object tree (bypassing the IR) so tests can build inconsistent files.
fn pack_raw(edit: impl FnOnce(&mut schema::ModelT)) -> Vec<u8> {
    let bytes = write(&base_model()).expect("write");
    let mut raw = schema::root_as_model(&bytes).expect("verifies").unpack();
    edit(&mut raw);
    let mut fbb = flatbuffers::FlatBufferBuilder::new();
    let root = raw.pack(&mut fbb);
    schema::finish_model_buffer(&mut fbb, root);
    fbb.finished_data().to_vec()
}

fn first_op(raw: &mut schema::ModelT) -> &mut schema::OperatorT {
    let sg = raw
        .subgraphs
        .as_mut()
        .and_then(|s| s.first_mut())
        .expect("subgraph");
    sg.operators
        .as_mut()
        .and_then(|o| o.first_mut())
        .expect("operator")
}

fn tensor(raw: &mut schema::ModelT, i: usize) -> &mut schema::TensorT {
    let sg = raw
        .subgraphs
        .as_mut()
        .and_then(|s| s.first_mut())
        .expect("subgraph");
    &mut sg.tensors.as_mut().expect("tensors")[i]
}

#[test]
fn inconsistent_models_name_the_culprit() {
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "tensor index out of range",
            pack_raw(|m| first_op(m).inputs = Some(vec![0, 1, 99])),
            "operator 0 (CONV_2D): an input refers to tensor 99, but the subgraph has 4 tensors",
        ),
        (
            "opcode index out of range",
            pack_raw(|m| first_op(m).opcode_index = 5),
            "opcode_index 5 is out of range",
        ),
        (
            "buffer index out of range",
            pack_raw(|m| tensor(m, 1).buffer = 40),
            "tensor 1 'w': uses buffer 40 but the model has 4 buffers",
        ),
        (
            "buffer too short for the shape",
            pack_raw(|m| tensor(m, 2).shape = Some(vec![3])),
            "tensor 2 'b': buffer 2 holds 8 bytes but shape [3] of FLOAT32 needs 12",
        ),
        (
            "shape overflow",
            pack_raw(|m| tensor(m, 2).shape = Some(vec![i32::MAX, i32::MAX, i32::MAX])),
            "overflows",
        ),
        (
            "external buffer past the end",
            pack_raw(|m| {
                let b = &mut m.buffers.as_mut().expect("buffers")[1];
                b.data = None;
                b.offset = 1 << 40;
                b.size = 2;
            }),
            "buffer 1 is stored at offset 1099511627776 with size 2, past the end",
        ),
        (
            "subgraph output out of range",
            pack_raw(|m| {
                m.subgraphs.as_mut().expect("subgraphs")[0].outputs = Some(vec![-1]);
            }),
            "subgraph output refers to tensor -1",
        ),
        (
            // Mutant 1944 of seed 12: LiteRT refuses the file at load.
            "variable tensor with data",
            pack_raw(|m| tensor(m, 1).is_variable = true),
            "tensor 1 'w': a variable (state) tensor with constant data",
        ),
    ];
    for (what, bytes, needle) in cases {
        let msg = expect_err(&bytes).to_string();
        assert!(msg.contains(needle), "{what}: got '{msg}'");
    }
}

/// Fields LiteRT ignores that point nowhere (AI Edge Quantizer's `metadata_buffer` past the
/// buffer list, issue 21): the model reads, `graph::lint` names each, and a rewrite keeps them.
#[test]
fn dangling_fields_litert_ignores_read_warn_and_round_trip() {
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "signature tensor out of range",
            pack_raw(|m| {
                let s = &mut m.signature_defs.as_mut().expect("signatures")[0];
                s.inputs.as_mut().expect("inputs")[0].tensor_index = 12;
            }),
            "signature 'serving_default' maps 'x' to tensor 12 but subgraph 0 has 4 tensors",
        ),
        (
            "signature subgraph out of range",
            pack_raw(|m| m.signature_defs.as_mut().expect("signatures")[0].subgraph_index = 7),
            "signature 0 ('serving_default') runs subgraph 7 but the model has 1 subgraphs",
        ),
        (
            "metadata buffer out of range",
            pack_raw(|m| m.metadata.as_mut().expect("metadata")[0].buffer = 9),
            "metadata 0 ('min_runtime_version') points at buffer 9 but the model has 4 buffers",
        ),
        (
            "metadata_buffer out of range",
            pack_raw(|m| m.metadata_buffer = Some(vec![1, 172, -3])),
            "metadata_buffer lists buffers 172, -3 but the model has 4 buffers",
        ),
        (
            "intermediates out of range",
            pack_raw(|m| first_op(m).intermediates = Some(vec![-1, 999])),
            "operator 0 (CONV_2D): intermediates list tensors -1, 999 but the subgraph has 4",
        ),
    ];
    for (what, bytes, needle) in cases {
        let model = read(&bytes).unwrap_or_else(|e| panic!("{what}: refused: {e}"));
        let warnings = crate::graph::lint::warnings(&model);
        assert!(
            warnings.iter().any(|w| w.contains(needle)),
            "{what}: warnings {warnings:?}"
        );
        let again = read(&write(&model).expect("write")).expect("reads back");
        assert_eq!(again, model, "{what}: rewrite is not lossless");
    }
    assert!(crate::graph::lint::warnings(&base_model()).is_empty());
}

/// A signature with no key (mutation-harness mutant 4946): LiteRT refuses the file ("Missing
/// exported method name for SignatureDef"); the model reads with a warning and a rewrite leaves
/// the signature out, so nothing we write carries it.
#[test]
fn keyless_signature_warns_and_is_not_written() {
    let bytes =
        pack_raw(|m| m.signature_defs.as_mut().expect("signatures")[0].signature_key = None);
    let model = read(&bytes).expect("reads");
    assert_eq!(model.signatures.len(), 1);
    let warnings = crate::graph::lint::warnings(&model);
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("signature 0 has no signature_key")),
        "{warnings:?}"
    );
    let again = read(&write(&model).expect("write")).expect("reads back");
    assert!(again.signatures.is_empty());
    assert_eq!(
        read(&write(&base_model()).expect("write"))
            .expect("reads")
            .signatures
            .len(),
        1
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]
    /// Any corruption of a valid file yields Ok or a typed error, never a panic; whatever is
    /// accepted can be written again.
    #[test]
    fn corrupted_bytes_never_panic(flips in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..8),
                                   external_buffers in any::<bool>()) {
        let mut bytes = write_with(&base_model(), &WriteOptions { external_buffers }).expect("write");
        for (i, v) in flips {
            let i = i.index(bytes.len());
            bytes[i] = v;
        }
        if let Ok(m) = read(&bytes) {
            prop_assert!(write(&m).is_ok());
        }
    }
}
