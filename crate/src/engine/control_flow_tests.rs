//! WHILE and IF through the engine on models built in the IR: a loop that runs its body a
//! counted number of times (and reports every iteration to a nested observer), IF taking each
//! branch, and the typed refusals: a subgraph that runs itself, a subgraph index the model does
//! not have, a body that changes the shape of the loop state.

use super::*;
use crate::graph::{
    Buffer, BuiltinOperator, BuiltinOptionsT, Model, OpCode, Operator, Subgraph, Tensor,
};
use crate::tflite::schema::{IfOptionsT, WhileOptionsT};

pub(crate) fn op(
    code: BuiltinOperator,
    inputs: &[i32],
    outputs: &[i32],
    options: BuiltinOptionsT,
) -> Operator {
    Operator::new(
        OpCode::builtin(code, 1),
        inputs.to_vec(),
        outputs.to_vec(),
        options,
    )
}

pub(crate) fn tensor(name: &str, dtype: TensorType, shape: &[i32]) -> Tensor {
    Tensor::new(name, dtype, shape.to_vec())
}

/// A subgraph with constants `(tensor, bytes)`, whose buffers are appended to `buffers`.
pub(crate) fn subgraph(
    buffers: &mut Vec<Buffer>,
    mut tensors: Vec<Tensor>,
    consts: Vec<(usize, Vec<u8>)>,
    operators: Vec<Operator>,
    inputs: &[i32],
    outputs: &[i32],
) -> Subgraph {
    for (t, data) in consts {
        tensors[t].buffer = buffers.len() as u32;
        buffers.push(Buffer { data });
    }
    Subgraph {
        tensors,
        inputs: inputs.to_vec(),
        outputs: outputs.to_vec(),
        operators,
        ..Default::default()
    }
}

fn while_op(inputs: &[i32], outputs: &[i32], cond: i32, body: i32) -> Operator {
    op(
        BuiltinOperator::WHILE,
        inputs,
        outputs,
        BuiltinOptionsT::WhileOptions(Box::new(WhileOptionsT {
            cond_subgraph_index: cond,
            body_subgraph_index: body,
        })),
    )
}

/// `while i < 3: (i, x) = (i + 1, x * 2)` with `body` as the body's second output (its
/// `x * 2`, or any tensor index of the body), the WHILE pointing at subgraphs `cond` and `body`.
/// Subgraph 0 is main, 1 cond, 2 body.
pub(crate) fn counting_loop(cond: i32, body: i32, body_x_out: i32, x_len: i32) -> Model {
    let mut buffers = vec![Buffer::default()];
    let main = subgraph(
        &mut buffers,
        vec![
            tensor("i", TensorType::INT32, &[]),
            tensor("x", TensorType::FLOAT32, &[2]),
            tensor("i_out", TensorType::INT32, &[]),
            tensor("x_out", TensorType::FLOAT32, &[x_len]),
        ],
        vec![],
        vec![while_op(&[0, 1], &[2, 3], cond, body)],
        &[0, 1],
        &[2, 3],
    );
    let cond_sg = subgraph(
        &mut buffers,
        vec![
            tensor("i", TensorType::INT32, &[]),
            tensor("x", TensorType::FLOAT32, &[2]),
            tensor("three", TensorType::INT32, &[]),
            tensor("go", TensorType::BOOL, &[]),
        ],
        vec![(2, 3i32.to_le_bytes().to_vec())],
        vec![op(
            BuiltinOperator::LESS,
            &[0, 2],
            &[3],
            BuiltinOptionsT::NONE,
        )],
        &[0, 1],
        &[3],
    );
    let body_sg = subgraph(
        &mut buffers,
        vec![
            tensor("i", TensorType::INT32, &[]),
            tensor("x", TensorType::FLOAT32, &[2]),
            tensor("one", TensorType::INT32, &[]),
            tensor("two", TensorType::FLOAT32, &[]),
            tensor("i1", TensorType::INT32, &[]),
            tensor("x2", TensorType::FLOAT32, &[2]),
            tensor("xx", TensorType::FLOAT32, &[4]),
        ],
        vec![
            (2, 1i32.to_le_bytes().to_vec()),
            (3, 2f32.to_le_bytes().to_vec()),
        ],
        vec![
            op(BuiltinOperator::ADD, &[0, 2], &[4], BuiltinOptionsT::NONE),
            op(BuiltinOperator::MUL, &[1, 3], &[5], BuiltinOptionsT::NONE),
            op(
                BuiltinOperator::CONCATENATION,
                &[5, 5],
                &[6],
                BuiltinOptionsT::NONE,
            ),
        ],
        &[0, 1],
        &[4, body_x_out],
    );
    Model {
        version: 3,
        subgraphs: vec![main, cond_sg, body_sg],
        buffers,
        ..Default::default()
    }
}

pub(crate) fn cannot_run(m: &Model) -> String {
    match Interpreter::new(m) {
        Ok(_) => panic!("prepared"),
        Err(e @ Error::CannotRun { .. }) => e.to_string(),
        Err(e) => panic!("not CannotRun: {e}"),
    }
}

#[test]
fn while_runs_the_body_until_the_condition_is_false() {
    let m = counting_loop(1, 2, 5, 2);
    let mut it = Interpreter::new(&m).expect("prepares");
    it.set_input(0, &0i32.to_le_bytes()).expect("i");
    it.set_input_f32(1, &[1.0, -0.5]).expect("x");
    let mut doubled = Vec::new();
    it.invoke_nested(&mut |sg, t, v| {
        if sg == 2 && t == 5 {
            doubled.push(v.as_f32().expect("float").to_vec());
        }
    })
    .expect("the model runs");
    assert_eq!(it.output(0).expect("i").bytes, 3i32.to_le_bytes());
    assert_eq!(it.output(1).expect("x").as_f32(), Some(&[8.0, -4.0][..]));
    // Every iteration's body tensors are reported, in order.
    assert_eq!(doubled, [vec![2.0, -1.0], vec![4.0, -2.0], vec![8.0, -4.0]]);
    // A start at or past the bound runs no iteration; the state passes through.
    it.set_input(0, &5i32.to_le_bytes()).expect("i");
    it.invoke().expect("the model runs");
    assert_eq!(it.output(0).expect("i").bytes, 5i32.to_le_bytes());
    assert_eq!(it.output(1).expect("x").as_f32(), Some(&[1.0, -0.5][..]));
}

#[test]
fn a_subgraph_that_runs_itself_is_refused() {
    // The body's own WHILE points back at the body.
    let mut m = counting_loop(1, 2, 5, 2);
    let body = &mut m.subgraphs[2];
    body.tensors.push(tensor("i2", TensorType::INT32, &[]));
    body.tensors.push(tensor("x3", TensorType::FLOAT32, &[2]));
    body.operators.push(while_op(&[4, 5], &[7, 8], 1, 2));
    body.outputs = vec![7, 8];
    let text = cannot_run(&m);
    assert!(
        text.contains("WHILE") && text.contains("runs itself"),
        "{text}"
    );
    // Main pointing at itself, too.
    let m = counting_loop(1, 0, 5, 2);
    let text = cannot_run(&m);
    assert!(text.contains("subgraph 0 runs itself"), "{text}");
}

#[test]
fn a_missing_subgraph_is_refused() {
    for (cond, body) in [(7, 2), (1, -1)] {
        let text = cannot_run(&counting_loop(cond, body, 5, 2));
        let missing = if cond == 7 { 7 } else { -1 };
        assert!(text.contains(&format!("no subgraph {missing}")), "{text}");
    }
}

#[test]
fn a_body_that_changes_the_state_shape_is_refused_naming_the_tensor() {
    // The body's second output is the [4] concatenation: the state would grow.
    let text = cannot_run(&counting_loop(1, 2, 6, 2));
    assert!(
        text.contains("x_out") && text.contains("shapes that change"),
        "{text}"
    );
}

#[test]
fn if_runs_the_branch_the_condition_picks() {
    let mut m = counting_loop(1, 2, 5, 2);
    // Subgraph 3: x + 1 (else); the body (2) is reused as then: (i + 1, x * 2).
    let mut buffers = std::mem::take(&mut m.buffers);
    let els = subgraph(
        &mut buffers,
        vec![
            tensor("i", TensorType::INT32, &[]),
            tensor("x", TensorType::FLOAT32, &[2]),
            tensor("one", TensorType::FLOAT32, &[]),
            tensor("x1", TensorType::FLOAT32, &[2]),
        ],
        vec![(2, 1f32.to_le_bytes().to_vec())],
        vec![op(
            BuiltinOperator::ADD,
            &[1, 2],
            &[3],
            BuiltinOptionsT::NONE,
        )],
        &[0, 1],
        &[0, 3],
    );
    m.buffers = buffers;
    m.subgraphs.push(els);
    let main = &mut m.subgraphs[0];
    main.tensors.push(tensor("c", TensorType::BOOL, &[1]));
    main.inputs.push(4);
    main.operators = vec![op(
        BuiltinOperator::IF,
        &[4, 0, 1],
        &[2, 3],
        BuiltinOptionsT::IfOptions(Box::new(IfOptionsT {
            then_subgraph_index: 2,
            else_subgraph_index: 3,
        })),
    )];
    let mut it = Interpreter::new(&m).expect("prepares");
    it.set_input(0, &4i32.to_le_bytes()).expect("i");
    it.set_input_f32(1, &[1.0, -0.5]).expect("x");
    for (c, i, x) in [(1u8, 5, [2.0, -1.0]), (0, 4, [2.0, 0.5])] {
        it.set_input(2, &[c]).expect("c");
        it.invoke().expect("the model runs");
        assert_eq!(it.output(0).expect("i").bytes, i32::to_le_bytes(i), "c={c}");
        assert_eq!(it.output(1).expect("x").as_f32(), Some(&x[..]), "c={c}");
    }
}

/// Subgraphs 0..depth each run subgraph k + 1 four times (two IFs, both branches prepared);
/// subgraph `depth` passes its input through. The instances prepared grow as 4^depth.
fn fan_out(depth: usize) -> Model {
    let mut buffers = vec![Buffer::default()];
    let mut subgraphs = Vec::new();
    for k in 0..depth {
        let next = (k + 1) as i32;
        let if_op = |input: i32, output: i32| {
            op(
                BuiltinOperator::IF,
                &[1, input],
                &[output],
                BuiltinOptionsT::IfOptions(Box::new(IfOptionsT {
                    then_subgraph_index: next,
                    else_subgraph_index: next,
                })),
            )
        };
        subgraphs.push(subgraph(
            &mut buffers,
            vec![
                tensor("x", TensorType::FLOAT32, &[1]),
                tensor("c", TensorType::BOOL, &[]),
                tensor("y1", TensorType::FLOAT32, &[1]),
                tensor("y2", TensorType::FLOAT32, &[1]),
            ],
            vec![(1, vec![1])],
            vec![if_op(0, 2), if_op(2, 3)],
            &[0],
            &[3],
        ));
    }
    subgraphs.push(subgraph(
        &mut buffers,
        vec![tensor("x", TensorType::FLOAT32, &[1])],
        vec![],
        vec![],
        &[0],
        &[0],
    ));
    Model {
        version: 3,
        subgraphs,
        buffers,
        ..Default::default()
    }
}

#[test]
fn hostile_fan_out_of_subgraphs_is_bounded() {
    // 4 + 16 + 64 + 256 instances: prepared, and the value passes through every branch.
    let mut it = Interpreter::new(&fan_out(4)).expect("340 instances prepare");
    it.set_input_f32(0, &[2.5]).expect("x");
    it.invoke().expect("the model runs");
    assert_eq!(it.output(0).expect("y").as_f32(), Some(&[2.5][..]));
    // Six levels would be 5460 instances.
    let text = cannot_run(&fan_out(6));
    assert!(text.contains("more than 1024 subgraph instances"), "{text}");
}

/// [`counting_loop`] whose body adds 0 instead of 1: `i < 3` stays true for ever.
fn endless_loop() -> Model {
    let mut m = counting_loop(1, 2, 5, 2);
    let one = m.subgraphs[2].tensors[2].buffer as usize;
    m.buffers[one].data = 0i32.to_le_bytes().to_vec();
    m
}

#[test]
fn a_while_still_true_after_the_iteration_limit_stops_the_run_naming_it() {
    let limits = Limits {
        max_while_iterations: 5,
        ..Limits::default()
    };
    let mut it = Interpreter::with_limits(&endless_loop(), &limits).expect("prepares");
    it.set_input(0, &0i32.to_le_bytes()).expect("i");
    it.set_input_f32(1, &[1.0, -0.5]).expect("x");
    let mut bodies = 0;
    let e = it
        .invoke_nested(&mut |sg, t, _| bodies += usize::from(sg == 2 && t == 5))
        .expect_err("the loop never ends");
    assert!(matches!(e, Error::TooLarge { .. }), "{e:?}");
    let text = e.to_string();
    assert!(text.contains("the loop of operator 0 (WHILE)"), "{text}");
    assert!(text.contains("after 5 iterations"), "{text}");
    assert!(text.contains("--max-while-iterations"), "{text}");
    // The body ran exactly the limit's number of times.
    assert_eq!(bodies, 5);
    assert!(it.invoke().is_err(), "and again on the next invocation");
    // A loop that ends within the limit runs: the counting loop needs exactly 3 iterations.
    let exact = Limits {
        max_while_iterations: 3,
        ..Limits::default()
    };
    let mut it = Interpreter::with_limits(&counting_loop(1, 2, 5, 2), &exact).expect("prepares");
    it.set_input(0, &0i32.to_le_bytes()).expect("i");
    it.set_input_f32(1, &[1.0, -0.5]).expect("x");
    it.invoke().expect("3 iterations are within the limit");
    assert_eq!(it.output(0).expect("i").bytes, 3i32.to_le_bytes());
    let short = Limits {
        max_while_iterations: 2,
        ..Limits::default()
    };
    let mut it = Interpreter::with_limits(&counting_loop(1, 2, 5, 2), &short).expect("prepares");
    it.set_input(0, &0i32.to_le_bytes()).expect("i");
    it.set_input_f32(1, &[1.0, -0.5]).expect("x");
    assert!(it.invoke().is_err(), "2 iterations are not enough");
}
