//! The strict resize rule of [`ShapeOverrides`], on hand-built inputs.

use super::*;
use crate::graph::{Subgraph, Tensor, TensorType};

/// One graph input of a test model: name, stored shape, signature.
type Input<'a> = (&'a str, &'a [i32], Option<&'a [i32]>);

/// A model whose graph inputs are `(name, shape, signature)`.
fn model(inputs: &[Input<'_>]) -> Model {
    let mut sg = Subgraph::default();
    for (name, shape, sig) in inputs {
        let mut t = Tensor::new(*name, TensorType::FLOAT32, shape.to_vec());
        t.shape_signature = sig.map(<[i32]>::to_vec);
        sg.inputs.push(sg.tensors.len() as i32);
        sg.tensors.push(t);
    }
    Model {
        subgraphs: vec![sg],
        ..Model::default()
    }
}

fn shapes(m: &Model, o: &ShapeOverrides) -> Result<Vec<Vec<i32>>> {
    Ok(o.resolve(m)?.into_iter().map(|r| r.shape).collect())
}

fn by(name: &str, dims: &[usize]) -> ShapeOverrides {
    ShapeOverrides {
        shapes: vec![(name.into(), dims.to_vec())],
        batch: None,
    }
}

fn reason(e: Error) -> (String, String) {
    match e {
        Error::InputShape { input, reason } => (input, reason),
        other => panic!("expected InputShape, got {other:?}"),
    }
}

#[test]
fn parses_name_and_dims() {
    assert_eq!(
        parse_shape_arg("input_1=1,224,224,3"),
        Ok(("input_1".into(), vec![1, 224, 224, 3]))
    );
    assert_eq!(parse_shape_arg("a=b=2, 3"), Ok(("a=b".into(), vec![2, 3])));
    assert_eq!(parse_shape_arg("0="), Ok(("0".into(), vec![])));
    assert!(parse_shape_arg("input_1").is_err());
    assert!(parse_shape_arg("=1,2").is_err());
    assert!(
        parse_shape_arg("x=1,-2")
            .expect_err("refused")
            .contains("'-2'")
    );
}

#[test]
fn batch_sets_every_dynamic_axis_0() {
    let m = model(&[
        ("img", &[1, 8, 8, 3], Some(&[-1, 8, 8, 3])),
        ("meta", &[1, 4], Some(&[-1, 4])),
    ]);
    let o = ShapeOverrides {
        shapes: vec![],
        batch: Some(3),
    };
    assert_eq!(
        shapes(&m, &o).expect("allowed"),
        [vec![3, 8, 8, 3], vec![3, 4]]
    );
    // An explicit shape wins over --batch for that input.
    let o = ShapeOverrides {
        shapes: vec![("1".into(), vec![5, 4])],
        batch: Some(2),
    };
    assert_eq!(
        shapes(&m, &o).expect("allowed"),
        [vec![2, 8, 8, 3], vec![5, 4]]
    );
    // Empty overrides: the stored shapes, and apply leaves the model as it was.
    assert_eq!(
        shapes(&m, &ShapeOverrides::default()).expect("allowed"),
        [vec![1, 8, 8, 3], vec![1, 4]]
    );
}

#[test]
fn apply_writes_shape_and_keeps_signature() {
    let mut m = model(&[("img", &[1, 8, 8, 3], Some(&[-1, 8, -1, 3]))]);
    by("img", &[2, 8, 5, 3]).apply(&mut m).expect("allowed");
    let t = &m.subgraphs[0].tensors[0];
    assert_eq!(t.dims(), [2, 8, 5, 3]);
    assert_eq!(t.shape_signature.as_deref(), Some(&[-1, 8, -1, 3][..]));
}

#[test]
fn only_dynamic_dims_may_change() {
    let m = model(&[("img", &[1, 8, 8, 3], Some(&[-1, 8, 8, 3]))]);
    let (input, why) = reason(by("img", &[1, 9, 8, 3]).resolve(&m).expect_err("refused"));
    assert_eq!(input, "img");
    assert!(why.contains("dim 1 is fixed at 8"), "{why}");
    // The same value for a fixed dim is allowed (as strict resizing allows it).
    assert!(by("img", &[4, 8, 8, 3]).resolve(&m).is_ok());
    let (_, why) = reason(by("img", &[1, 8, 8]).resolve(&m).expect_err("refused"));
    assert!(why.contains("rank 3"), "{why}");
    let (_, why) = reason(by("img", &[0, 8, 8, 3]).resolve(&m).expect_err("refused"));
    assert!(why.contains("dim 0 = 0"), "{why}");
    let (input, why) = reason(by("nope", &[1]).resolve(&m).expect_err("refused"));
    assert_eq!(input, "nope");
    assert!(why.contains("0 'img'"), "{why}");
    let twice = ShapeOverrides {
        shapes: vec![
            ("img".into(), vec![1, 8, 8, 3]),
            ("0".into(), vec![2, 8, 8, 3]),
        ],
        batch: None,
    };
    assert!(
        reason(twice.resolve(&m).expect_err("refused"))
            .1
            .contains("twice")
    );
}

#[test]
fn without_a_signature_nothing_may_change() {
    let m = model(&[("x", &[1, 4], None)]);
    let (_, why) = reason(by("x", &[2, 4]).resolve(&m).expect_err("refused"));
    assert!(
        why.contains("dim 0 is fixed at 1") && why.contains("absent"),
        "{why}"
    );
    assert!(by("x", &[1, 4]).resolve(&m).is_ok());
    let batch = |n| ShapeOverrides {
        shapes: vec![],
        batch: Some(n),
    };
    let (input, why) = reason(batch(2).resolve(&m).expect_err("refused"));
    assert_eq!(input, "x");
    assert!(why.contains("no input has a dynamic batch"), "{why}");
    // Asking for the batch the model already has is no change.
    assert!(batch(1).resolve(&m).is_ok());
}

#[test]
fn a_signature_name_finds_its_input() {
    let mut m = model(&[
        ("serving_default_a:0", &[1, 2], Some(&[-1, 2])),
        ("serving_default_b:0", &[1, 3], Some(&[-1, 3])),
    ]);
    m.signatures.push(crate::graph::SignatureDef {
        key: Some("serving_default".into()),
        subgraph: 0,
        inputs: vec![crate::graph::TensorMap {
            name: Some("b".into()),
            tensor: 1,
        }],
        outputs: vec![],
    });
    assert_eq!(
        shapes(&m, &by("b", &[4, 3])).expect("allowed"),
        [vec![1, 2], vec![4, 3]]
    );
}
