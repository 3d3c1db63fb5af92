"""A model run operator by operator in LiteRT, each operator alone in a one-operator model on the
resolver that computes it as LiteRT defines it: BUILTIN_REF, except for the operators
BUILTIN_REF computes wrongly (golden_resolver.REFERENCE_DEFECTS, on integer inputs) and those
it does not register, which run on BUILTIN_WITHOUT_DEFAULT_DELEGATES. Every other operator
(DEQUANTIZE / QUANTIZE around them included) keeps BUILTIN_REF's arithmetic, which a whole-model
run on the optimized resolver would not.

Light (numpy, flatbuffers, ai_edge_litert; no TensorFlow): used by the goldens generator
(goldens/litert.py `run_per_op`) and by the mutation harness's LiteRT worker.
"""

from __future__ import annotations

import contextlib
import copy
from collections.abc import Callable, Iterator

import flatbuffers
import numpy as np
from ai_edge_litert import schema_py_generated as tfl

from golden_resolver import REFERENCE_DEFECTS

OP_NAMES = {v: k for k, v in vars(tfl.BuiltinOperator).items() if not k.startswith("_")}
# Interpreter factory: (one-operator model, "reference" | "optimized") → an allocated interpreter.
MakeInterpreter = Callable[[bytes, str], object]


def code_of(m: tfl.ModelT, op_index: int) -> int:
    """The builtin code of operator `op_index` of subgraph 0."""
    oc = m.operatorCodes[m.subgraphs[0].operators[op_index].opcodeIndex]
    return max(oc.builtinCode, oc.deprecatedBuiltinCode)


def single_op_model(m: tfl.ModelT, op_index: int, shapes: dict[int, list[int]] | None = None) -> bytes:
    """Operator `op_index` of subgraph 0 alone: the model with only that operator (and its
    operator code; every operator code when the model has other subgraphs, which are kept whole
    for an IF / WHILE to call), its non-constant inputs as the subgraph inputs and its outputs as the
    subgraph outputs (every tensor and buffer kept; signatures dropped, they name the whole
    graph's tensors). `shapes` (tensor index → shape) replaces the declared shape of those
    inputs: the shape the whole model's interpreter computed for them, which LiteRT resizes an
    operator output to at prepare whatever was declared (a graph input is allocated at its
    declared shape, which may be absurd: [2^31 − 1, 3, 4, 9])."""
    mm = copy.deepcopy(m)
    sg = mm.subgraphs[0]
    op = sg.operators[op_index]

    def constant(t: int) -> bool:
        data = mm.buffers[sg.tensors[t].buffer].data
        return data is not None and len(data) > 0

    ins = [int(t) for t in op.inputs if t >= 0 and not constant(int(t))]
    for t in ins:
        if shapes is not None and t in shapes:
            sg.tensors[t].shape = np.array(shapes[t], dtype=np.int32)
    # LiteRT resolves every operator code of the file, used or not: keep only this op's, unless
    # other subgraphs (IF / WHILE bodies, kept whole) use the others.
    if len(mm.subgraphs) == 1:
        mm.operatorCodes = [mm.operatorCodes[op.opcodeIndex]]
        op.opcodeIndex = 0
    sg.operators = [op]
    sg.inputs = np.array(ins, dtype=np.int32)
    sg.outputs = np.array([int(t) for t in op.outputs], dtype=np.int32)
    mm.signatureDefs = []
    b = flatbuffers.Builder(0)
    b.Finish(mm.Pack(b), file_identifier=b"TFL3")
    return bytes(b.Output())


def _integer_input(m: tfl.ModelT, op_index: int) -> bool:
    sg = m.subgraphs[0]
    op = sg.operators[op_index]
    return op.inputs is not None and len(op.inputs) > 0 and sg.tensors[int(op.inputs[0])].type in (tfl.TensorType.INT8, tfl.TensorType.INT16)


def reference_defect_ops(model: bytes) -> list[str]:
    """Names of the operators, in any subgraph, that BUILTIN_REF computes wrongly on the integer
    inputs they have here (golden_resolver.REFERENCE_DEFECTS), "subgraph S op I NAME"; [] when
    none (or when the file does not parse)."""
    try:
        m = tfl.ModelT.InitFromPackedBuf(bytearray(model), 0)
    except Exception:  # noqa: BLE001 - a file that does not parse holds no such operator
        return []
    found = []
    for s, sg in enumerate(m.subgraphs or []):
        for i, op in enumerate(sg.operators or []):
            oc = m.operatorCodes[op.opcodeIndex]
            name = OP_NAMES.get(max(oc.builtinCode, oc.deprecatedBuiltinCode))
            ins = op.inputs if op.inputs is not None else []
            integer = len(ins) > 0 and ins[0] >= 0 and sg.tensors[int(ins[0])].type in (tfl.TensorType.INT8, tfl.TensorType.INT16)
            if name in REFERENCE_DEFECTS and integer:
                found.append(f"subgraph {s} op {i} {name}")
    return found


def computed_shapes(model: bytes, make: MakeInterpreter) -> dict[int, list[int]] | None:
    """The shape of every tensor of subgraph 0 as the whole model's interpreter computes it at
    prepare (BUILTIN_REF, else the optimized resolver); None when neither prepares it."""
    for resolver in ("reference", "optimized"):
        try:
            it = make(model, resolver)
        except Exception:  # noqa: BLE001 - an op the resolver lacks, or a prepare it refuses
            continue
        return {int(d["index"]): [int(x) for x in d["shape"]] for d in it.get_tensor_details()}
    return None


def pieces(model: bytes, make: MakeInterpreter) -> tuple[tfl.ModelT, list[tuple[object, str]]]:
    """The parsed model and, per operator of subgraph 0 in order, its one-operator interpreter
    and the resolver it runs on ("reference", or "optimized" for a REFERENCE_DEFECTS operator on
    integer inputs and for an operator BUILTIN_REF does not register)."""
    m = tfl.ModelT.InitFromPackedBuf(bytearray(model), 0)
    shapes = computed_shapes(model, make)
    out: list[tuple[object, str]] = []
    for i in range(len(m.subgraphs[0].operators)):
        blob = single_op_model(m, i, shapes)
        if OP_NAMES.get(code_of(m, i)) in REFERENCE_DEFECTS and _integer_input(m, i):
            out.append((make(blob, "optimized"), "optimized"))
            continue
        try:
            out.append((make(blob, "reference"), "reference"))
        except Exception:  # noqa: BLE001 - the op is not registered there
            out.append((make(blob, "optimized"), "optimized"))
    return m, out


def run_sample(
    parts: list[tuple[object, str]],
    values: dict[int, np.ndarray],
    wrap: Callable[[], contextlib.AbstractContextManager] = contextlib.nullcontext,
) -> Iterator[tuple[int, str, dict, np.ndarray]]:
    """Runs the operators in order on `values` (tensor index → value; the subgraph inputs at
    first), adding each operator's outputs to it; yields (operator, resolver, output detail,
    value) per output written. An input whose value has another shape than the one declared
    (LiteRT computed the producer's output shape) is resized to it first, as the whole model's
    interpreter holds it."""
    for i, (it, res) in enumerate(parts):
        details = it.get_input_details()
        resized = False
        for d in details:
            shape = values[int(d["index"])].shape
            if tuple(d["shape"]) != shape:
                it.resize_tensor_input(d["index"], list(shape))
                resized = True
        if resized:
            it.allocate_tensors()
        for d in details:
            it.set_tensor(d["index"], values[int(d["index"])])
        with wrap():
            it.invoke()
        for d in it.get_output_details():
            values[int(d["index"])] = it.get_tensor(d["index"]).copy()
            yield i, res, d, values[int(d["index"])]
