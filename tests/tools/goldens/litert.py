"""LiteRT runs and model introspection: quantize() (TFLite's reference QUANTIZE),
make_interpreter / run_model / trace_model on a chosen op resolver, diff_stats between kernel
sets, model_ops / op_counts / tensor_types from the flatbuffer, I/O details, signature names and the
subgraph's input order."""

from __future__ import annotations

import numpy as np

import per_op  # the model run operator by operator, BUILTIN_REF's wrong operators on the optimized resolver

from .env import quiet
from .frameworks import Interpreter, tfl_schema
from .variants import RESOLVERS


def quantize(x: np.ndarray, scale: float, zero_point: int, dtype: np.dtype) -> np.ndarray:
    """float -> integer the way TFLite's reference QUANTIZE does it:
    round-half-away-from-zero(x / scale) + zero_point, computed in float32, clamped."""
    q = x.astype(np.float32) / np.float32(scale)
    q = np.sign(q) * np.floor(np.abs(q).astype(np.float64) + 0.5)
    info = np.iinfo(dtype)
    return np.clip(q + zero_point, info.min, info.max).astype(dtype)


def make_interpreter(model: bytes, resolver: str = "reference", preserve: bool = False) -> Interpreter:
    with quiet():
        it = Interpreter(
            model_content=model,
            experimental_op_resolver_type=RESOLVERS[resolver],
            experimental_preserve_all_tensors=preserve,
            num_threads=1,
        )
        it.allocate_tensors()
    return it


def run_model(model: bytes, inputs: list[np.ndarray], resolver: str = "reference") -> list[np.ndarray]:
    """inputs[k][i] is sample i of subgraph input k (already the right dtype)."""
    it = make_interpreter(model, resolver)
    ins, outs = it.get_input_details(), it.get_output_details()
    assert len(ins) == len(inputs), (len(ins), len(inputs))
    results: list[list[np.ndarray]] = [[] for _ in outs]
    for i in range(inputs[0].shape[0]):
        for d, arr in zip(ins, inputs):
            it.set_tensor(d["index"], arr[i])
        with quiet():
            it.invoke()
        for k, d in enumerate(outs):
            results[k].append(it.get_tensor(d["index"]).copy())
    return [np.stack(r) for r in results]


def trace_model(model: bytes, inputs: list[np.ndarray]) -> list[tuple[dict, np.ndarray]]:
    """Every operator output for sample 0 (BUILTIN_REF, all tensors preserved):
    (description, value) in operator order."""
    it = make_interpreter(model, "reference", preserve=True)
    for d, arr in zip(it.get_input_details(), inputs):
        it.set_tensor(d["index"], arr[0])
    with quiet():
        it.invoke()
    details = {d["index"]: d for d in it.get_tensor_details()}
    out = []
    for op in it._get_ops_details():
        for t in op["outputs"]:
            t = int(t)
            if t < 0:
                continue
            d = details[t]
            e = {
                "tensor": t,
                "name": d["name"],
                "dtype": np.dtype(d["dtype"]).name,
                "shape": [int(s) for s in d["shape"]],
                "op": int(op["index"]),
                "op_type": op["op_name"],
            }
            qp = d["quantization_parameters"]
            if len(qp["scales"]):
                e["scale"] = [float(s) for s in qp["scales"]]
                e["zero_point"] = [int(z) for z in qp["zero_points"]]
            out.append((e, it.get_tensor(t).copy()))
    return out


def diff_stats(got: list[np.ndarray], ref: list[np.ndarray]) -> dict:
    """How far one kernel set's outputs are from the reference kernels' (all outputs, all samples).
    Integer outputs: in quantized units."""
    n = nd = 0
    worst = 0.0
    for a, b in zip(got, ref):
        a64, b64 = a.astype(np.float64).ravel(), b.astype(np.float64).ravel()
        same = (a64 == b64) | (np.isnan(a64) & np.isnan(b64))
        n += a64.size
        nd += int(np.count_nonzero(~same))
        with np.errstate(invalid="ignore"):
            d = np.abs(a64 - b64)[~same]
        if d.size:  # a NaN against a number counts as infinitely far
            worst = max(worst, float(np.max(np.where(np.isnan(d), np.inf, d))))
    return {"max_abs_diff": worst, "elements_differing": nd, "elements": n}


_OP_NAMES = {v: k for k, v in vars(tfl_schema.BuiltinOperator).items() if not k.startswith("_")}
_TYPE_NAMES = {v: k for k, v in vars(tfl_schema.TensorType).items() if not k.startswith("_")}


def model_ops(model: bytes) -> list[str]:
    """Builtin operator names in order of first use (subgraph 0 first)."""
    return list(op_counts(model))


def op_counts(model: bytes) -> dict[str, int]:
    """How many operators of each builtin (or CUSTOM:<code>) the model has, over all subgraphs,
    in order of first use."""
    m = tfl_schema.Model.GetRootAs(model, 0)
    counts: dict[str, int] = {}
    for s in range(m.SubgraphsLength()):
        sg = m.Subgraphs(s)
        for o in range(sg.OperatorsLength()):
            oc = m.OperatorCodes(sg.Operators(o).OpcodeIndex())
            code = max(oc.BuiltinCode(), oc.DeprecatedBuiltinCode())
            name = _OP_NAMES.get(code, f"BUILTIN_{code}")
            if code == tfl_schema.BuiltinOperator.CUSTOM:
                name = f"CUSTOM:{oc.CustomCode().decode()}"
            counts[name] = counts.get(name, 0) + 1
    return counts


def tensor_types(model: bytes) -> set[str]:
    m = tfl_schema.Model.GetRootAs(model, 0)
    out = set()
    for s in range(m.SubgraphsLength()):
        sg = m.Subgraphs(s)
        for t in range(sg.TensorsLength()):
            out.add(_TYPE_NAMES.get(sg.Tensors(t).Type(), "?"))
    return out


def io_desc(details: list[dict], sig_names: dict[int, str]) -> list[dict]:
    out = []
    for d in details:
        qp = d["quantization_parameters"]
        e = {"name": d["name"], "shape": [int(s) for s in d["shape"]], "dtype": np.dtype(d["dtype"]).name}
        if d["index"] in sig_names:
            e["signature_name"] = sig_names[d["index"]]
        if len(qp["scales"]):
            e["scale"] = [float(s) for s in qp["scales"]]
            e["zero_point"] = [int(z) for z in qp["zero_points"]]
        out.append(e)
    return out


def signature_maps(it: Interpreter) -> tuple[dict[int, str], dict[int, str]]:
    sig_in: dict[int, str] = {}
    sig_out: dict[int, str] = {}
    for sig in it._get_full_signature_list().values():
        sig_in.update({idx: n for n, idx in sig["inputs"].items()})
        sig_out.update({idx: n for n, idx in sig["outputs"].items()})
    return sig_in, sig_out


def input_order(it: Interpreter, keras_names: list[str]) -> list[int]:
    """For each subgraph input (in subgraph order), the position of the Keras input feeding it."""
    ins = it.get_input_details()
    if len(keras_names) == 1:
        assert len(ins) == 1
        return [0]
    sig_in, _ = signature_maps(it)
    order = [keras_names.index(sig_in[d["index"]]) for d in ins]
    assert sorted(order) == list(range(len(keras_names))), (order, keras_names)
    return order


def run_per_op(model: bytes, inputs: list[np.ndarray]) -> tuple[list[np.ndarray], list[tuple[dict, np.ndarray]]]:
    """The model run operator by operator (subgraph 0, in order; `per_op`), each operator alone on
    BUILTIN_REF when that resolver registers it and computes it right, else on
    BUILTIN_WITHOUT_DEFAULT_DELEGATES: the reference result of a model holding an op BUILTIN_REF
    lacks (CEIL, ROUND, ELU in LiteRT 2.3) without the optimized resolver's own DEQUANTIZE /
    QUANTIZE arithmetic elsewhere. Returns the outputs (inputs[k][i]: sample i of subgraph input
    k) and, for sample 0, every operator output as trace_model describes it (with `resolver`
    added: which resolver ran the operator)."""
    m, parts = per_op.pieces(model, make_interpreter)
    sg = m.subgraphs[0]
    outs: list[list[np.ndarray]] = [[] for _ in sg.outputs]
    trace: list[tuple[dict, np.ndarray]] = []
    for s in range(inputs[0].shape[0]):
        values = {int(t): arr[s] for t, arr in zip(sg.inputs, inputs)}
        for i, res, d, value in per_op.run_sample(parts, values, quiet):
            if s == 0:
                e = {
                    "tensor": int(d["index"]),
                    "name": d["name"],
                    "dtype": np.dtype(d["dtype"]).name,
                    "shape": [int(x) for x in d["shape"]],
                    "op": i,
                    "op_type": _OP_NAMES.get(per_op.code_of(m, i), "?"),
                    "resolver": RESOLVERS[res].name,
                }
                qp = d["quantization_parameters"]
                if len(qp["scales"]):
                    e["scale"] = [float(x) for x in qp["scales"]]
                    e["zero_point"] = [int(z) for z in qp["zero_points"]]
                trace.append((e, value))
        for k, t in enumerate(sg.outputs):
            outs[k].append(values[int(t)])
    return [np.stack(o) for o in outs], trace
