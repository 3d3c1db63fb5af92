"""Standalone PADs in front of convolutions and pools in a converted float model (issue 19).

TF's converter folds a zero PAD whose padding equals SAME into the convolution while converting
from TF, so a Keras model never yields the PAD -> DEPTHWISE_CONV_2D (VALID) pairs that shipped
models (MediaPipe's BlazeFace) have. split_pad() edits a converted float flatbuffer with the
schema's object API: the chosen operator's SAME padding becomes a PAD (PADV2 with a constant
value) writing a new tensor, and the operator VALID; `pads` other than SAME's make the operator's
output larger (its output tensor's shape follows: the op must write a graph output, as in the
single-op cases). The quantized variants are then TF's quantizer run on that file
(activation_split.tf_quantize), as a user quantizing a shipped model gets them. The cases
(`padfold_*`, registered here) say which PADs TF 2.21 folds into the convolution's SAME padding
and which it keeps."""

from __future__ import annotations

from typing import Callable

import flatbuffers
import numpy as np

from .activation_split import _opcode_index
from .frameworks import keras, tfl_schema
from .single_op import In, op_case, random_bias

S = tfl_schema


def _find(m, op: str, nth: int) -> int:
    code = getattr(S.BuiltinOperator, op)
    found = [
        i
        for i, o in enumerate(m.subgraphs[0].operators)
        if max(m.operatorCodes[o.opcodeIndex].builtinCode, m.operatorCodes[o.opcodeIndex].deprecatedBuiltinCode) == code
    ]
    return found[nth]


def _const(m, sg, name: str, arr: np.ndarray, ttype: int) -> int:
    buf = S.BufferT()
    buf.data = np.frombuffer(arr.tobytes(), dtype=np.uint8)
    m.buffers.append(buf)
    t = S.TensorT()
    t.shape = np.array(arr.shape, dtype=np.int32)
    t.type = ttype
    t.buffer = len(m.buffers) - 1
    t.name = name.encode()
    sg.tensors.append(t)
    return len(sg.tensors) - 1


def _same_pads(size: int, k: int, stride: int, dilation: int) -> tuple[int, int]:
    """TFLite's SAME padding of one spatial axis: (before, after)."""
    eff = (k - 1) * dilation + 1
    out = (size + stride - 1) // stride
    total = max((out - 1) * stride + eff - size, 0)
    return total // 2, total - total // 2


def split_pad(
    op: str,
    name: str = "pad",
    *,
    nth: int = 0,
    pads: tuple[tuple[int, int], tuple[int, int]] | None = None,
    value: float | None = None,
    also: tuple[str, int] | None = None,
    output: bool = False,
) -> Callable[[bytes], bytes]:
    """A float_rewrite: the `nth` operator `op` (CONV_2D, DEPTHWISE_CONV_2D, AVERAGE_POOL_2D or
    MAX_POOL_2D, padding SAME) reads a new PAD of its input 0 and pads VALID. The PAD's paddings
    are SAME's (height, width) unless `pads` says; `value` makes it a PADV2 with that constant.
    Its output tensor is called `name`; the paddings constant `<name>/paddings`. `also`
    (builtin name, nth): a second operator of the same input and SAME padding reads the PAD's
    output too, padding VALID (the PAD then has two readers). `output`: the PAD's result is also
    a graph output."""

    def rewrite(model: bytes) -> bytes:
        m = S.ModelT.InitFromPackedBuf(model, 0)
        sg = m.subgraphs[0]
        i = _find(m, op, nth)
        o = sg.operators[i]
        opt = o.builtinOptions
        assert opt.padding == S.Padding.SAME, (op, "must pad SAME")
        src = int(o.inputs[0])
        shape = [int(d) for d in sg.tensors[src].shape]
        if op in ("CONV_2D", "DEPTHWISE_CONV_2D"):
            wshape = [int(d) for d in sg.tensors[int(o.inputs[1])].shape]
            kh, kw = wshape[1], wshape[2]
            dh, dw = opt.dilationHFactor, opt.dilationWFactor
        else:
            kh, kw, dh, dw = opt.filterHeight, opt.filterWidth, 1, 1
        sh, sw = opt.strideH, opt.strideW
        ph, pw = pads or (_same_pads(shape[1], kh, sh, dh), _same_pads(shape[2], kw, sw, dw))
        paddings = np.array([[0, 0], list(ph), list(pw), [0, 0]], dtype=np.int32)
        padded = [shape[0], shape[1] + sum(ph), shape[2] + sum(pw), shape[3]]
        pt = _const(m, sg, f"{name}/paddings", paddings, S.TensorType.INT32)
        inputs = [src, pt]
        if value is not None:
            inputs.append(_const(m, sg, f"{name}/constant_values", np.array(value, dtype=np.float32), S.TensorType.FLOAT32))
        nt = S.TensorT()
        nt.shape = np.array(padded, dtype=np.int32)
        nt.type = sg.tensors[src].type
        nt.buffer = 0
        nt.name = name.encode()
        sg.tensors.append(nt)
        dst = len(sg.tensors) - 1
        o.inputs = np.array([dst] + [int(x) for x in o.inputs[1:]], dtype=np.int32)
        opt.padding = S.Padding.VALID
        # The output grows with pads larger than SAME's.
        out = sg.tensors[int(o.outputs[0])]
        oh = (padded[1] - ((kh - 1) * dh + 1)) // sh + 1
        ow = (padded[2] - ((kw - 1) * dw + 1)) // sw + 1
        if [int(out.shape[1]), int(out.shape[2])] != [oh, ow]:
            assert int(o.outputs[0]) in [int(x) for x in sg.outputs], (op, "a larger output must be a graph output")
            out.shape = np.array([out.shape[0], oh, ow, out.shape[3]], dtype=np.int32)
            if out.shapeSignature is not None:
                out.shapeSignature = np.array([out.shapeSignature[0], oh, ow, out.shapeSignature[3]], dtype=np.int32)
        at = i
        if also is not None:
            i2 = _find(m, *also)
            at = min(i, i2)
            o2 = sg.operators[i2]
            assert int(o2.inputs[0]) == src and o2.builtinOptions.padding == S.Padding.SAME, also
            o2.inputs = np.array([dst] + [int(x) for x in o2.inputs[1:]], dtype=np.int32)
            o2.builtinOptions.padding = S.Padding.VALID
        if output:
            sg.outputs = np.array([int(x) for x in sg.outputs] + [dst], dtype=np.int32)
        new = S.OperatorT()
        code = S.BuiltinOperator.PADV2 if value is not None else S.BuiltinOperator.PAD
        new.opcodeIndex = _opcode_index(m, code)
        new.inputs = np.array(inputs, dtype=np.int32)
        new.outputs = np.array([dst], dtype=np.int32)
        if value is not None:
            new.builtinOptionsType = S.BuiltinOptions.PadV2Options
            new.builtinOptions = S.PadV2OptionsT()
        else:
            new.builtinOptionsType = S.BuiltinOptions.PadOptions
            new.builtinOptions = S.PadOptionsT()
        sg.operators.insert(at, new)
        b = flatbuffers.Builder(0)
        b.Finish(m.Pack(b), file_identifier=b"TFL3")
        return bytes(b.Output())

    return rewrite


L = keras.layers
V = ("float", "int8", "int8_floatio", "16x8", "calibrated")


def _pw_then(make):
    """A 1x1 CONV_2D (so the PAD reads an operator's result, not a graph input), then the layer `make()` builds."""
    return lambda x: make()(L.Conv2D(4, 1)(x))


# Folded: the convolution reads the PAD's input and pads SAME.
op_case(
    "padfold_dw3", "DEPTHWISE_CONV_2D", 9601,
    [In("x", (6, 6, 4))],
    _pw_then(lambda: L.DepthwiseConv2D(3, padding="same")),
    "CONV_2D 1x1, PAD 1/1 (SAME's for 3x3 stride 1), DEPTHWISE_CONV_2D 3x3 VALID: TF folds the PAD.",
    weights=random_bias(L.DepthwiseConv2D), variants=V, float_rewrite=split_pad("DEPTHWISE_CONV_2D"),
)
op_case(
    "padfold_dw5", "DEPTHWISE_CONV_2D", 9602,
    [In("x", (8, 8, 4))],
    _pw_then(lambda: L.DepthwiseConv2D(5, padding="same")),
    "CONV_2D 1x1, PAD 2/2, DEPTHWISE_CONV_2D 5x5 VALID (BlazeFace's block): folded.",
    weights=random_bias(L.DepthwiseConv2D), variants=V, float_rewrite=split_pad("DEPTHWISE_CONV_2D"),
)
op_case(
    "padfold_dw3_input", "DEPTHWISE_CONV_2D", 9603,
    [In("x", (6, 6, 4), 0.5, 2.0)],
    lambda x: L.DepthwiseConv2D(3, padding="same")(x),
    "PAD of the graph input (values in [0.5, 2], the PAD's result also 0), DEPTHWISE_CONV_2D 3x3: "
    "folded; the convolution reads the input.",
    weights=random_bias(L.DepthwiseConv2D), variants=V, float_rewrite=split_pad("DEPTHWISE_CONV_2D"),
)
op_case(
    "padfold_dw3_s2", "DEPTHWISE_CONV_2D", 9604,
    [In("x", (8, 8, 4))],
    _pw_then(lambda: L.DepthwiseConv2D(3, strides=2, padding="same")),
    "CONV_2D 1x1, PAD 0/1 (SAME's for 3x3 stride 2 on 8), DEPTHWISE_CONV_2D stride 2 VALID: folded.",
    weights=random_bias(L.DepthwiseConv2D), variants=V, float_rewrite=split_pad("DEPTHWISE_CONV_2D"),
)
op_case(
    "padfold_conv3", "CONV_2D", 9605,
    [In("x", (6, 6, 4))],
    _pw_then(lambda: L.Conv2D(5, 3, padding="same")),
    "CONV_2D 1x1, PAD 1/1, CONV_2D 3x3 VALID: folded.",
    weights=random_bias(L.Conv2D), variants=V, float_rewrite=split_pad("CONV_2D", nth=1),
)
op_case(
    "padfold_two_convs", "DEPTHWISE_CONV_2D", 9606,
    [In("x", (6, 6, 4))],
    lambda x: (lambda c: [L.DepthwiseConv2D(3, padding="same")(c), L.Conv2D(3, 3, padding="same")(c)])(L.Conv2D(4, 1)(x)),
    "One PAD read by a DEPTHWISE_CONV_2D 3x3 and a CONV_2D 3x3 (both VALID): folded into both.",
    weights=random_bias(L.DepthwiseConv2D), variants=V,
    float_rewrite=split_pad("DEPTHWISE_CONV_2D", also=("CONV_2D", 1)),
)
op_case(
    "padfold_dw_and_maxpool", "DEPTHWISE_CONV_2D", 9607,
    [In("x", (6, 6, 4))],
    lambda x: (lambda c: [L.DepthwiseConv2D(3, padding="same")(c), L.MaxPooling2D(3, 1, padding="same")(c)])(L.Conv2D(4, 1)(x)),
    "One PAD read by a DEPTHWISE_CONV_2D 3x3 and a MAX_POOL_2D 3x3 (both VALID): folded into the "
    "DEPTHWISE_CONV_2D, the PAD stays for the pool.",
    weights=random_bias(L.DepthwiseConv2D), variants=V,
    float_rewrite=split_pad("DEPTHWISE_CONV_2D", also=("MAX_POOL_2D", 0)),
)
op_case(
    "padfold_dw3_pad_output", "DEPTHWISE_CONV_2D", 9608,
    [In("x", (6, 6, 4))],
    _pw_then(lambda: L.DepthwiseConv2D(3, padding="same")),
    "CONV_2D 1x1, PAD 1/1, DEPTHWISE_CONV_2D 3x3 VALID, the PAD's result also a graph output: "
    "folded into the DEPTHWISE_CONV_2D, the PAD stays for the output.",
    weights=random_bias(L.DepthwiseConv2D), variants=V,
    float_rewrite=split_pad("DEPTHWISE_CONV_2D", output=True),
)

# Not folded.
op_case(
    "padfold_not_larger", "DEPTHWISE_CONV_2D", 9611,
    [In("x", (6, 6, 4))],
    _pw_then(lambda: L.DepthwiseConv2D(3, padding="same")),
    "PAD 2/2 (more than SAME's 1/1) before DEPTHWISE_CONV_2D 3x3 VALID: not folded.",
    weights=random_bias(L.DepthwiseConv2D), variants=V,
    float_rewrite=split_pad("DEPTHWISE_CONV_2D", pads=((2, 2), (2, 2))),
)
op_case(
    "padfold_not_asym", "DEPTHWISE_CONV_2D", 9612,
    [In("x", (6, 6, 4))],
    _pw_then(lambda: L.DepthwiseConv2D(3, padding="same")),
    "PAD 0/2 (as many as SAME's, all after) before DEPTHWISE_CONV_2D 3x3 VALID: not folded.",
    weights=random_bias(L.DepthwiseConv2D), variants=V,
    float_rewrite=split_pad("DEPTHWISE_CONV_2D", pads=((0, 2), (0, 2))),
)
op_case(
    "padfold_not_padv2", "DEPTHWISE_CONV_2D", 9613,
    [In("x", (6, 6, 4))],
    _pw_then(lambda: L.DepthwiseConv2D(3, padding="same")),
    "PADV2 1/1 with constant 0.5 before DEPTHWISE_CONV_2D 3x3 VALID: not folded.",
    weights=random_bias(L.DepthwiseConv2D), variants=V,
    float_rewrite=split_pad("DEPTHWISE_CONV_2D", value=0.5),
)
op_case(
    "padfold_not_channels", "DEPTHWISE_CONV_2D", 9614,
    [In("x", (6, 6, 4))],
    lambda x: L.DepthwiseConv2D(3)(keras.ops.pad(L.Conv2D(4, 1)(x), [[0, 0], [1, 1], [1, 1], [0, 2]])),
    "PAD 1/1 in height and width and 0/2 channels (4 -> 6), DEPTHWISE_CONV_2D 3x3 VALID: the "
    "converter keeps the PAD, and TF's quantizer does not fold it.",
    weights=random_bias(L.DepthwiseConv2D), variants=V, float_rewrite=lambda model: model,
)
op_case(
    "padfold_not_avgpool", "AVERAGE_POOL_2D", 9615,
    [In("x", (6, 6, 4))],
    _pw_then(lambda: L.AveragePooling2D(3, 1, padding="same")),
    "PAD 1/1 before AVERAGE_POOL_2D 3x3 VALID: not folded (a SAME pool would not count the zeros).",
    variants=V, float_rewrite=split_pad("AVERAGE_POOL_2D"),
)
op_case(
    "padfold_not_maxpool", "MAX_POOL_2D", 9616,
    [In("x", (6, 6, 4))],
    _pw_then(lambda: L.MaxPooling2D(3, 1, padding="same")),
    "PAD 1/1 before MAX_POOL_2D 3x3 VALID: not folded.",
    variants=V, float_rewrite=split_pad("MAX_POOL_2D"),
)
