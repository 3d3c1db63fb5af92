"""BIDIRECTIONAL_SEQUENCE_LSTM cases (issue 18), float and hybrid, registered on import.

TF 2.21's converter never writes this operator (a Keras `Bidirectional(LSTM)` becomes two
UNIDIRECTIONAL_SEQUENCE_LSTMs and a REVERSE_V2), so the model is built here (`bidi_model`): input
[1, T*B, I] -> RESHAPE to the sequence ([B, T, I], or [T, B, I] time-major) -> the operator with
its 48 inputs (forward and backward gates with seeded weights, peephole weights in the _peephole
cases, four variable state tensors; no projection or auxiliary input) -> one output (`merge_outputs`: forward and backward
units side by side) or two. The case's Keras model (x * 2) only fixes the input; `float_rewrite`
replaces the file, and the expected outputs are LiteRT's BUILTIN_REF run on it. The samples run
one after the other on one interpreter, so the states carry over from sample 0 to sample 1.
Hybrid cases have int8 weights (one symmetric scale each: max|w|/127, round(w / scale)) with
`asymmetric_quantize_inputs` off ("sym") or on ("asym").
"""

from __future__ import annotations

import copy

import numpy as np

from .frameworks import tfl_schema
from .op_cases_more import _pack, rnn_model
from .single_op import In, op_case
from .variants import ALL_VARIANTS

BOP = tfl_schema.BuiltinOperator


def bidi_model(t: int, b: int, i: int, u: int, time_major: bool, merge: bool, cell_clip: float,
               act: str, seed: int, hybrid: str = "", peephole: bool = False, uni: bool = False):
    """The model rewrite of one case (see the module doc). `uni`: an UNIDIRECTIONAL_SEQUENCE_LSTM
    with the forward direction's weights and states instead (24 inputs, `merge` unused)."""

    def rewrite(_: bytes) -> bytes:
        rng = np.random.default_rng(seed)
        m = tfl_schema.ModelT()
        m.version = 3
        m.buffers = [tfl_schema.BufferT()]
        m.operatorCodes = []
        tensors = []

        def code(c: int) -> int:
            oc = tfl_schema.OperatorCodeT()
            oc.builtinCode, oc.deprecatedBuiltinCode, oc.version = c, min(c, 127), 1
            m.operatorCodes.append(oc)
            return len(m.operatorCodes) - 1

        def tensor(name, shape, data=None, dtype=tfl_schema.TensorType.FLOAT32, variable=False, scale=None):
            x = tfl_schema.TensorT()
            if scale is not None:
                x.quantization = tfl_schema.QuantizationParametersT()
                x.quantization.scale = np.array([scale], np.float32)
                x.quantization.zeroPoint = np.array([0], np.int64)
            x.shape, x.type, x.name, x.buffer, x.isVariable = np.array(shape, np.int32), dtype, name.encode(), 0, variable
            if data is not None:
                buf = tfl_schema.BufferT()
                buf.data = np.frombuffer(data.tobytes(), np.uint8).copy()
                m.buffers.append(buf)
                x.buffer = len(m.buffers) - 1
            tensors.append(x)
            return len(tensors) - 1

        def weights(name, shape):
            v = rng.uniform(-0.6, 0.6, shape).astype(np.float32)
            if not hybrid:
                return tensor(name, list(shape), v)
            scale = np.float32(np.abs(v).max() / np.float32(127.0))
            q = np.clip(np.round(v / scale), -127, 127).astype(np.int8)
            return tensor(name, list(shape), q, tfl_schema.TensorType.INT8, scale=scale)

        seq = [t, b, i] if time_major else [b, t, i]
        x = tensor("x", [1, t * b, i])
        shape = tensor("sequence_shape", [3], np.array(seq, np.int32), tfl_schema.TensorType.INT32)
        xs = tensor("sequence", seq)
        inputs = [xs]
        for d in ("fw",) if uni else ("fw", "bw"):
            gates = ("input", "forget", "cell", "output")
            inputs += [weights(f"{d}_input_to_{g}", (u, i)) for g in gates]
            inputs += [weights(f"{d}_recurrent_to_{g}", (u, u)) for g in gates]
            if peephole:
                inputs += [weights(f"{d}_cell_to_{g}", (u,)) for g in ("input", "forget", "output")]
            else:
                inputs += [-1, -1, -1]
            inputs += [tensor(f"{d}_{g}_bias", [u], rng.uniform(-0.3, 0.3, u).astype(np.float32)) for g in gates]
            inputs += [-1, -1]  # projection
        for d in ("fw",) if uni else ("fw", "bw"):
            inputs += [tensor(f"{d}_output_state", [b, u], variable=True),
                       tensor(f"{d}_cell_state", [b, u], variable=True)]
        # The bidirectional LSTM's auxiliary input and weights; the unidirectional one's layer norm.
        inputs += [-1] * (4 if uni else 9)
        assert len(inputs) == (24 if uni else 48)
        out_shape = lambda n: [t, b, n] if time_major else [b, t, n]  # noqa: E731
        outs = [tensor("fw_output", out_shape(2 * u if merge and not uni else u))]
        if not merge and not uni:
            outs.append(tensor("bw_output", out_shape(u)))
        reshape = tfl_schema.OperatorT()
        reshape.opcodeIndex, reshape.inputs, reshape.outputs = code(BOP.RESHAPE), np.array([x, shape], np.int32), np.array([xs], np.int32)
        op = tfl_schema.OperatorT()
        op.opcodeIndex = code(BOP.UNIDIRECTIONAL_SEQUENCE_LSTM if uni else BOP.BIDIRECTIONAL_SEQUENCE_LSTM)
        op.inputs, op.outputs = np.array(inputs, np.int32), np.array(outs, np.int32)
        if uni:
            opt = tfl_schema.UnidirectionalSequenceLSTMOptionsT()
            kind = tfl_schema.BuiltinOptions.UnidirectionalSequenceLSTMOptions
        else:
            opt = tfl_schema.BidirectionalSequenceLSTMOptionsT()
            opt.mergeOutputs = merge
            kind = tfl_schema.BuiltinOptions.BidirectionalSequenceLSTMOptions
        opt.fusedActivationFunction = getattr(tfl_schema.ActivationFunctionType, act)
        opt.cellClip, opt.projClip = cell_clip, 0.0
        opt.timeMajor = time_major
        opt.asymmetricQuantizeInputs = hybrid == "asym"
        op.builtinOptionsType, op.builtinOptions = kind, opt
        sg = tfl_schema.SubGraphT()
        sg.tensors, sg.operators = tensors, [reshape, op]
        sg.inputs, sg.outputs = np.array([x], np.int32), np.array(outs, np.int32)
        m.subgraphs = [sg]
        return _pack(m)

    return rewrite


_SKIP = {
    v: "not produced: the float variant is the hand-built model (TF 2.21's converter never writes "
    "BIDIRECTIONAL_SEQUENCE_LSTM, nor an LSTM with peephole weights; the _hybrid cases' float "
    "variant is the hand-built hybrid model)"
    for v in ALL_VARIANTS if v != "float"
}
# (name, seed, (T, B, I, U), time_major, merge_outputs, cell_clip, activation, hybrid[, peephole])
for _name, _seed, (_t, _b, _i, _u), _tm, _merge, _clip, _act, _hy, *_pp in (
    ("op_bidi_lstm_merged", 6301, (5, 1, 3, 4), False, True, 0.0, "TANH", ""),
    ("op_bidi_lstm_split", 6302, (4, 2, 5, 3), False, False, 0.0, "TANH", ""),
    ("op_bidi_lstm_time_major", 6303, (6, 1, 4, 5), True, False, 0.0, "TANH", ""),
    ("op_bidi_lstm_time_major_merged_clip", 6304, (5, 1, 3, 6), True, True, 0.4, "TANH", ""),
    ("op_bidi_lstm_relu_clip", 6305, (4, 3, 2, 3), False, False, 0.7, "RELU", ""),
    ("op_bidi_lstm_hybrid", 6306, (5, 2, 6, 5), False, False, 0.0, "TANH", "sym"),
    ("op_bidi_lstm_hybrid_asym_time_major_merged", 6307, (4, 3, 7, 4), True, True, 0.0, "TANH", "asym"),
    # A pair with the same seed (the same float weights) and 1024-element weights: the float
    # model, and the weights quantized as TF's dynamic-range rule does (tests/rust/bidi_lstm.rs
    # quantizes the first with `--mode dynamic` and compares with the second).
    ("op_bidi_lstm_large", 6308, (3, 1, 32, 32), False, True, 0.0, "TANH", ""),
    ("op_bidi_lstm_large_hybrid_asym", 6308, (3, 1, 32, 32), False, True, 0.0, "TANH", "asym"),
    # Peephole connections (cell-to-gate weights U[-0.6, 0.6]; int8 in the hybrid case).
    ("op_bidi_lstm_peephole", 6309, (4, 2, 3, 5), False, False, 0.5, "TANH", "", True),
    ("op_bidi_lstm_peephole_hybrid_time_major", 6310, (4, 2, 6, 6), True, True, 0.0, "TANH", "sym", True),
):
    op_case(
        _name, "BIDIRECTIONAL_SEQUENCE_LSTM", _seed,
        [In("x", (_t * _b, _i), -1.5, 1.5)],
        lambda x: x * 2.0,
        f"BIDIRECTIONAL_SEQUENCE_LSTM, {_t} steps x batch {_b} x {_i} inputs -> {_u} units each way, "
        f"{'time-major' if _tm else 'batch-major'}, {'merged output' if _merge else 'two outputs'}, "
        f"cell activation {_act}, cell clip {_clip}{', peephole' if _pp else ''}; weights U[-0.6, 0.6]"
        + (f" quantized to int8 (hybrid, {_hy}metric inputs)" if _hy else "")
        + ", biases U[-0.3, 0.3] (bidi_model in goldens/op_cases_bidi.py); the states carry over "
        "from sample 0 to sample 1.",
        float_rewrite=bidi_model(_t, _b, _i, _u, _tm, _merge, _clip, _act, _seed, _hy, bool(_pp)),
        variants=ALL_VARIANTS,
        skip=dict(_SKIP),
    )

# UNIDIRECTIONAL_SEQUENCE_LSTM hand-built the same way (TF's converter writes it from tf_keras
# LSTMs, tests/realworld/lstm_fused, but never with peephole weights, and there with 16 and 32
# units): units not a multiple of 4 (Eigen's scalar head and tail of the gate activations) and
# peephole connections, float and hybrid.
for _name, _seed, (_t, _b, _i, _u), _tm, _clip, _hy, _pp in (
    ("op_lstm_units5", 6321, (4, 2, 3, 5), False, 0.0, "", False),
    ("op_lstm_peephole", 6322, (5, 1, 4, 6), False, 0.6, "", True),
    ("op_lstm_peephole_hybrid_time_major", 6323, (4, 3, 5, 7), True, 0.0, "asym", True),
):
    op_case(
        _name, "UNIDIRECTIONAL_SEQUENCE_LSTM", _seed,
        [In("x", (_t * _b, _i), -1.5, 1.5)],
        lambda x: x * 2.0,
        f"UNIDIRECTIONAL_SEQUENCE_LSTM, {_t} steps x batch {_b} x {_i} inputs -> {_u} units, "
        f"{'time-major' if _tm else 'batch-major'}, cell clip {_clip}{', peephole' if _pp else ''}; "
        "weights U[-0.6, 0.6]"
        + (f" quantized to int8 (hybrid, {_hy}metric inputs)" if _hy else "")
        + ", biases U[-0.3, 0.3] (bidi_model(uni=True) in goldens/op_cases_bidi.py); the states "
        "carry over from sample 0 to sample 1.",
        float_rewrite=bidi_model(_t, _b, _i, _u, _tm, False, _clip, "TANH", _seed, _hy, _pp, uni=True),
        variants=ALL_VARIANTS,
        skip=dict(_SKIP),
    )


# Two recurrent operators sharing their variable state tensors (issue 22): `share_state` edits one
# of the hand-built models above (or op_cases_more's RNN) so that a copy of the recurrent operator
# runs right after it, on the same sequence, with the same weights and the same state tensors, and
# writes a second graph output. LiteRT updates a state tensor in place, so the copy starts from the
# first operator's final state, and at the next invocation (sample) the first one starts from the
# copy's: every run continues the state the previous one left, over all samples.
_RECURRENT = (
    BOP.UNIDIRECTIONAL_SEQUENCE_LSTM,
    BOP.UNIDIRECTIONAL_SEQUENCE_RNN,
    BOP.BIDIRECTIONAL_SEQUENCE_LSTM,
)


def share_state(base):
    """The rewrite `base` followed by the edit above."""

    def rewrite(blob: bytes) -> bytes:
        m = tfl_schema.ModelT.InitFromPackedBuf(base(blob), 0)
        sg = m.subgraphs[0]
        k = next(
            i for i, op in enumerate(sg.operators)
            if m.operatorCodes[op.opcodeIndex].builtinCode in _RECURRENT
        )
        twin = copy.deepcopy(sg.operators[k])
        outs = []
        for o in sg.operators[k].outputs:
            t = copy.deepcopy(sg.tensors[o])
            t.name = b"second_" + t.name
            sg.tensors.append(t)
            outs.append(len(sg.tensors) - 1)
        twin.outputs = np.array(outs, np.int32)
        sg.operators.insert(k + 1, twin)
        sg.outputs = np.array(list(sg.outputs) + outs, np.int32)
        return _pack(m)

    return rewrite


_SHARED_SKIP = {
    v: "not produced: the float variant is a hand-built model edited so that two operators share "
    "their state tensors (TF's converter never writes that; the _hybrid case's float variant is "
    "the hand-built hybrid model)"
    for v in ALL_VARIANTS if v != "float"
}
for _name, _seed, _op, _base, _what in (
    (
        "op_lstm_shared_state", 6331, "UNIDIRECTIONAL_SEQUENCE_LSTM",
        bidi_model(4, 2, 3, 5, False, False, 0.0, "TANH", 6331, "", False, uni=True),
        "UNIDIRECTIONAL_SEQUENCE_LSTM (op_lstm_units5's shape: 4 steps x batch 2 x 3 inputs -> 5 "
        "units, batch-major)",
    ),
    (
        "op_lstm_shared_state_hybrid", 6332, "UNIDIRECTIONAL_SEQUENCE_LSTM",
        bidi_model(4, 3, 5, 7, True, False, 0.0, "TANH", 6332, "asym", True, uni=True),
        "hybrid UNIDIRECTIONAL_SEQUENCE_LSTM (op_lstm_peephole_hybrid_time_major's shape: 4 steps "
        "x batch 3 x 5 inputs -> 7 units, time-major, peephole, asymmetric inputs)",
    ),
    (
        "op_bidi_lstm_shared_state", 6333, "BIDIRECTIONAL_SEQUENCE_LSTM",
        bidi_model(4, 2, 5, 3, False, False, 0.0, "TANH", 6333, ""),
        "BIDIRECTIONAL_SEQUENCE_LSTM (op_bidi_lstm_split's shape: 4 steps x batch 2 x 5 inputs -> "
        "3 units each way, two outputs each)",
    ),
    (
        "op_rnn_shared_state", 6334, "UNIDIRECTIONAL_SEQUENCE_RNN",
        rnn_model(5, 2, 3, 4, False, "TANH", 6334),
        "UNIDIRECTIONAL_SEQUENCE_RNN (op_rnn_tanh's shape: 5 steps x batch 2 x 3 inputs -> 4 "
        "units, batch-major, TANH)",
    ),
):
    _t_b, _i = {
        "op_lstm_shared_state": (8, 3), "op_lstm_shared_state_hybrid": (12, 5),
        "op_bidi_lstm_shared_state": (8, 5), "op_rnn_shared_state": (10, 3),
    }[_name]
    op_case(
        _name, _op, _seed,
        [In("x", (_t_b, _i), -1.5, 1.5)],
        lambda x: x * 2.0,
        f"Two {_what} operators, the second a copy of the first that shares its variable state "
        "tensors (share_state in goldens/op_cases_bidi.py): the copy starts from the first one's "
        "final state, and each invocation from the state the previous one left.",
        float_rewrite=share_state(_base),
        variants=ALL_VARIANTS,
        skip=dict(_SHARED_SKIP),
    )
