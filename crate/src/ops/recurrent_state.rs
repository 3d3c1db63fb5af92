//! The states recurrent operators keep in variable tensors (UNIDIRECTIONAL_SEQUENCE_LSTM's
//! output and cell states, BIDIRECTIONAL_SEQUENCE_LSTM's for both directions,
//! UNIDIRECTIONAL_SEQUENCE_RNN's hidden state), held per tensor.
//!
//! LiteRT updates such a tensor in place: every operator that names it reads and writes the one
//! buffer, in execution order, and the buffer keeps its value from one invocation to the next
//! until `ResetVariableTensors`. So when two operators name the same state tensor, the second
//! starts from the first one's final state (and the first, at the next invocation, from the
//! second's). Here each state tensor of a subgraph is one [`State`] cell in the interpreter's
//! [`Variables`] store, keyed by (subgraph, tensor): every kernel
//! naming the tensor holds the same cell, and [`Variables::reset`] brings all of them back to
//! their initial values at once.
//!
//! One operator naming one tensor at two of its state positions (output state and cell state,
//! or the forward and the backward direction's) is refused: LiteRT's step would read and write
//! both through one buffer within a step.

use std::cell::{Ref, RefCell, RefMut};
use std::rc::Rc;

use super::variables::Variables;
use super::{PrepareCtx, PrepareResult};
use crate::graph::TensorType;
use crate::graph::dtype::dtype_name;

/// The values of one state tensor and the ones it starts from.
#[derive(Debug)]
struct Buf<T> {
    values: Vec<T>,
    initial: Vec<T>,
}

/// One state tensor's values, shared by every kernel that names the tensor.
#[derive(Debug)]
pub struct State<T>(Rc<RefCell<Buf<T>>>);

impl<T: Copy> State<T> {
    /// A state of its own (starting at `initial`), for a kernel prepared without an interpreter.
    fn private(initial: Vec<T>) -> Self {
        State(Rc::new(RefCell::new(Buf {
            values: initial.clone(),
            initial,
        })))
    }

    /// The current values, to update in place (one kernel at a time: the engine runs one
    /// operator at a time).
    pub fn values_mut(&self) -> RefMut<'_, Vec<T>> {
        RefMut::map(self.0.borrow_mut(), |b| &mut b.values)
    }

    /// The current values.
    pub fn values(&self) -> Ref<'_, Vec<T>> {
        Ref::map(self.0.borrow(), |b| &b.values)
    }

    /// Back to the initial values.
    fn reset(&self) {
        let mut b = self.0.borrow_mut();
        let Buf { values, initial } = &mut *b;
        values.copy_from_slice(initial);
    }
}

/// A state cell of any element type the recurrent kernels keep.
#[derive(Debug)]
pub enum AnyState {
    /// Float LSTM / RNN states.
    F32(State<f32>),
    /// The integer LSTM's output state.
    I8(State<i8>),
    /// The integer LSTM's cell state.
    I16(State<i16>),
}

impl AnyState {
    /// Back to the initial values.
    pub(super) fn reset(&self) {
        match self {
            AnyState::F32(s) => s.reset(),
            AnyState::I8(s) => s.reset(),
            AnyState::I16(s) => s.reset(),
        }
    }

    /// Element type and count, for messages.
    fn describe(&self) -> String {
        let (t, n) = match self {
            AnyState::F32(s) => (TensorType::FLOAT32, s.values().len()),
            AnyState::I8(s) => (TensorType::INT8, s.values().len()),
            AnyState::I16(s) => (TensorType::INT16, s.values().len()),
        };
        format!("{n} {} elements", dtype_name(t))
    }
}

/// An element type a state is kept in.
pub trait StateElem: Copy + PartialEq + 'static {
    /// The tensor type it stands for.
    const DTYPE: TensorType;
    /// Wraps a cell.
    #[doc(hidden)]
    fn wrap(s: State<Self>) -> AnyState;
    /// The cell, when `a` holds this type.
    #[doc(hidden)]
    fn unwrap(a: &AnyState) -> Option<&State<Self>>;
}

macro_rules! state_elem {
    ($t:ty, $variant:ident, $dtype:ident) => {
        impl StateElem for $t {
            const DTYPE: TensorType = TensorType::$dtype;
            fn wrap(s: State<Self>) -> AnyState {
                AnyState::$variant(s)
            }
            fn unwrap(a: &AnyState) -> Option<&State<Self>> {
                match a {
                    AnyState::$variant(s) => Some(s),
                    _ => None,
                }
            }
        }
    };
}
state_elem!(f32, F32, FLOAT32);
state_elem!(i8, I8, INT8);
state_elem!(i16, I16, INT16);

impl Variables {
    /// The state cell of tensor `tensor` of subgraph `subgraph`, created at `initial` when no
    /// operator named it before; an existing one must hold as many elements of the same type
    /// (and start from the same values: one tensor, one initial value).
    fn state<T: StateElem>(
        &mut self,
        key: (usize, usize),
        initial: Vec<T>,
    ) -> Result<State<T>, String> {
        if let Some((_, a)) = self.states.iter().find(|(k, _)| *k == key) {
            return match T::unwrap(a) {
                Some(s) if s.0.borrow().initial == initial => Ok(State(Rc::clone(&s.0))),
                _ => Err(format!(
                    "an earlier operator keeps this state tensor as {}, this one as {} {} \
                     elements",
                    a.describe(),
                    initial.len(),
                    dtype_name(T::DTYPE)
                )),
            };
        }
        let s = State::private(initial);
        self.states.push((key, T::wrap(State(Rc::clone(&s.0)))));
        Ok(s)
    }
}

/// The state cell of the operator's input `k` (a variable tensor at one of its state
/// positions, see [`super::lstm::is_state_input`]) starting at `initial`: shared with every
/// other operator of the subgraph naming that tensor (see the module doc).
pub(super) fn state<T: StateElem>(
    ctx: &PrepareCtx<'_>,
    k: usize,
    initial: Vec<T>,
) -> PrepareResult<State<T>> {
    let t = ctx.input(k)?;
    let tensor = ctx.op.inputs.get(k).copied().unwrap_or(-1);
    if let Some(j) = (0..ctx.op.inputs.len()).find(|&j| {
        j != k && ctx.op.inputs[j] == tensor && super::lstm::is_state_input(&ctx.op.code, j)
    }) {
        return Err(ctx.unsupported(
            t.describe(),
            format!(
                "the same state tensor as input {j} (one operator's states must be distinct \
                 tensors)"
            ),
        ));
    }
    if t.dtype != T::DTYPE {
        return Err(ctx.invalid(
            t.describe(),
            format!(
                "a {} state kept as {}",
                dtype_name(t.dtype),
                dtype_name(T::DTYPE)
            ),
        ));
    }
    let (Some(store), Some(subgraph), Ok(tensor)) = (
        ctx.subgraphs.variables(),
        ctx.subgraphs.subgraph_index(),
        usize::try_from(tensor),
    ) else {
        return Ok(State::private(initial));
    };
    let shared = store.borrow_mut().state((subgraph, tensor), initial);
    shared.map_err(|why| ctx.invalid(t.describe(), why))
}
