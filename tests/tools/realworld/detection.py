"""TFLite_Detection_PostProcess: single-op cases and a tiny SSD ending in it, with TF's int8
quantization of the SSD."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import tensorflow as tf
import keras
from tensorflow.lite.python import schema_py_generated as schema
from tensorflow.lite.tools import flatbuffer_utils
from flatbuffers import flexbuffers

from .common import convert_keras, edit, litert_outputs, seed


# --- TFLite_Detection_PostProcess -------------------------------------------------------------
# The custom op as SSD exports ship it, built with TF's schema object API (the options a
# FlexBuffers map written by flatbuffers.flexbuffers), run by LiteRT's BUILTIN_REF resolver
# (which registers it). The op cases have two inputs (box encodings, class predictions; the
# anchors are a constant) and four outputs; their inputs are made here, not by main's default.

DET_CODE = "TFLite_Detection_PostProcess"
DET_SCALES = dict(y_scale=10.0, x_scale=10.0, h_scale=5.0, w_scale=5.0)


def _qparams(scale: float, zero_point: int):
    qp = schema.QuantizationParametersT()
    qp.scale = np.array([scale], np.float32)
    qp.zeroPoint = np.array([zero_point], np.int64)
    return qp


def _det_tensor(name, shape, ttype, buffer, q=None):
    t = schema.TensorT()
    t.name = name
    t.shape = np.array(shape, dtype=np.int32)
    t.type = ttype
    t.buffer = buffer
    t.quantization = q
    return t


def _det_code():
    oc = schema.OperatorCodeT()
    oc.builtinCode = schema.BuiltinOperator.CUSTOM
    oc.deprecatedBuiltinCode = schema.BuiltinOperator.CUSTOM
    oc.customCode = DET_CODE
    oc.version = 1
    return oc


def _det_op(opcode: int, inputs, outputs, opts: dict):
    op = schema.OperatorT()
    op.opcodeIndex = opcode
    op.inputs = np.array(inputs, np.int32)
    op.outputs = np.array(outputs, np.int32)
    op.customOptions = np.frombuffer(flexbuffers.Dumps(opts), np.uint8)
    op.customOptionsFormat = schema.CustomOptionsFormat.FLEXBUFFERS
    return op


def _det_outputs(opts: dict):
    m = opts["max_detections"] * opts["max_classes_per_detection"]
    f = schema.TensorType.FLOAT32
    return [
        _det_tensor("detection_boxes", [1, m, 4], f, 0),
        _det_tensor("detection_classes", [1, m], f, 0),
        _det_tensor("detection_scores", [1, m], f, 0),
        _det_tensor("num_detections", [1], f, 0),
    ]


def det_model(anchors: np.ndarray, classes: int, opts: dict, uint8=None) -> bytes:
    """One TFLite_Detection_PostProcess: inputs box encodings [1,N,4], class predictions
    [1,N,classes]; anchors [N,4] constant. `uint8` = ((box scale, zp), (score scale, zp),
    (anchor scale, zp)) makes the three tensors UINT8 with those parameters."""
    n = anchors.shape[0]
    m = schema.ModelT()
    m.version = 3
    m.description = "TFLite_Detection_PostProcess op case (make_realworld.py)"
    m.operatorCodes = [_det_code()]
    empty = schema.BufferT()
    anchor_buf = schema.BufferT()
    if uint8 is None:
        t_in, qb, qs, qa = schema.TensorType.FLOAT32, None, None, None
        anchor_buf.data = np.frombuffer(anchors.astype(np.float32).tobytes(), np.uint8)
    else:
        t_in = schema.TensorType.UINT8
        qb, qs, qa = (_qparams(*p) for p in uint8)
        anchor_buf.data = anchors.astype(np.uint8).reshape(-1)
    m.buffers = [empty, schema.BufferT(), schema.BufferT(), anchor_buf]
    sg = schema.SubGraphT()
    sg.name = "main"
    sg.tensors = [
        _det_tensor("box_encodings", [1, n, 4], t_in, 1, qb),
        _det_tensor("class_predictions", [1, n, classes], t_in, 2, qs),
        _det_tensor("anchors", [n, 4], t_in, 3, qa),
        *_det_outputs(opts),
    ]
    sg.inputs = np.array([0, 1], np.int32)
    sg.outputs = np.array([3, 4, 5, 6], np.int32)
    sg.operators = [_det_op(0, [0, 1, 2], [3, 4, 5, 6], opts)]
    m.subgraphs = [sg]
    return bytes(flatbuffer_utils.convert_object_to_bytearray(m))


def _det_opts(**kw) -> dict:
    base = dict(
        max_detections=10,
        max_classes_per_detection=1,
        detections_per_class=100,
        use_regular_nms=False,
        nms_score_threshold=0.3,
        nms_iou_threshold=0.5,
        num_classes=3,
        **DET_SCALES,
    )
    base.update(kw)
    return base


def _grid_anchors(rng, n: int) -> np.ndarray:
    """Anchors [N, 4] (y, x, h, w) in the unit square."""
    return np.stack(
        [rng.uniform(0.1, 0.9, n), rng.uniform(0.1, 0.9, n), rng.uniform(0.1, 0.5, n), rng.uniform(0.1, 0.5, n)],
        axis=1,
    ).astype(np.float32)


def _tied_scores(rng, n: int, classes: int, step: float) -> np.ndarray:
    """Scores in [0, 1) rounded to multiples of `step`: many exact ties across anchors and
    classes (the sort and top-k tie rules decide the order)."""
    return (np.floor(rng.uniform(0.0, 1.0, (1, n, classes)) / step) * step).astype(np.float32)


def _det_case(name: str):
    """(anchors, classes, opts, uint8, box encodings, class predictions) of op case `name`."""
    rng = np.random.default_rng(int.from_bytes(hashlib.sha256(name.encode()).digest()[:4], "little"))
    if name == "detpp_exact_iou":
        # Boxes decoded exactly (encodings 0): pairs whose IoU is exactly the threshold 0.5
        # ([0,0,1,1] vs [0,0,1,0.5]; not suppressed, the test is strictly above) or just over
        # it, with tied scores; fewer candidates than max_detections.
        a = [
            [0.5, 0.5, 1.0, 1.0], [0.5, 0.25, 1.0, 0.5], [0.5, 0.5, 1.0, 1.0], [2.5, 2.5, 1.0, 1.0],
            [2.5, 2.25, 1.0, 0.5], [2.5, 2.3, 1.0, 0.6], [4.5, 4.5, 1.0, 1.0], [4.5, 4.5, 1.0, 1.0],
        ]
        anchors = np.array(a, np.float32)
        enc = np.zeros((1, 8, 4), np.float32)
        scores = np.array(
            [[[0, 0.75, 0.5], [0, 0.75, 0.5], [0, 0.75, 0.75], [0, 0.5, 0.5],
              [0, 0.5, 0.25], [0, 0.5, 0.5], [0, 0.25, 0.25], [0, 0.25, 0.0]]],
            np.float32,
        )
        return anchors, 3, _det_opts(num_classes=2, max_detections=10, max_classes_per_detection=2,
                                      nms_score_threshold=0.25), None, enc, scores
    n = 48
    anchors = _grid_anchors(rng, n)
    enc = rng.normal(0.0, 1.0, (1, n, 4)).astype(np.float32)
    if name == "detpp_fast":
        return anchors, 4, _det_opts(), None, enc, _tied_scores(rng, n, 4, 1 / 16)
    if name == "detpp_fast_multiclass":
        # No background column (classes == num_classes), 3 classes per detection out of 5.
        return anchors, 5, _det_opts(num_classes=5, max_classes_per_detection=3, max_detections=6,
                                      nms_iou_threshold=0.4), None, enc, _tied_scores(rng, n, 5, 1 / 8)
    if name == "detpp_fast_few":
        # Few scores above a high threshold: fewer detections than max_detections.
        return anchors, 4, _det_opts(max_detections=20, max_classes_per_detection=2,
                                      nms_score_threshold=0.85), None, enc, _tied_scores(rng, n, 4, 1 / 32)
    if name == "detpp_regular":
        return anchors, 4, _det_opts(use_regular_nms=True, detections_per_class=4, max_detections=8),\
            None, enc, _tied_scores(rng, n, 4, 1 / 16)
    if name == "detpp_regular_many":
        # Regular NMS with more kept per class than max_detections, no background.
        return anchors, 3, _det_opts(use_regular_nms=True, num_classes=3, detections_per_class=12,
                                      max_detections=10, nms_score_threshold=0.0, nms_iou_threshold=0.6),\
            None, enc, _tied_scores(rng, n, 3, 1 / 4)
    if name == "detpp_uint8":
        # UINT8 box encodings, scores and anchors, dequantized inside the op.
        qa = rng.integers(20, 236, (n, 4)).astype(np.uint8)
        qa[:, 2:] = rng.integers(10, 60, (n, 2))
        benc = rng.integers(0, 256, (1, n, 4)).astype(np.uint8)
        sc = rng.integers(0, 256, (1, n, 4)).astype(np.uint8)
        return qa, 4, _det_opts(max_classes_per_detection=2, nms_score_threshold=0.4),\
            ((0.05, 128), (1 / 255, 0), (1 / 255, 0)), benc, sc
    raise KeyError(name)


DET_CASES = [
    "detpp_fast", "detpp_fast_multiclass", "detpp_fast_few", "detpp_regular", "detpp_regular_many",
    "detpp_exact_iou", "detpp_uint8",
]


def det_make(name: str):
    anchors, classes, opts, uint8, _, _ = _det_case(name)
    return lambda: det_model(anchors, classes, opts, uint8)


def det_inputs(name: str) -> list[np.ndarray]:
    *_, enc, scores = _det_case(name)
    return [enc, scores]


def ssd_detector() -> bytes:
    """A tiny SSD: conv backbone -> box and class heads (2 anchors per cell of a 4x4 map) ->
    TFLite_Detection_PostProcess (regular NMS: every output slot written). TF converts the
    Keras part; the custom op, its anchors and its four outputs are added with the object API,
    as SSD exports carry them."""
    seed(21)
    inp = keras.Input((16, 16, 3), batch_size=1, name="image")
    x = keras.layers.Conv2D(8, 3, strides=2, padding="same", activation="relu", name="conv1")(inp)
    x = keras.layers.Conv2D(16, 3, strides=2, padding="same", activation="relu", name="conv2")(x)
    boxes = keras.layers.Reshape((32, 4), name="box_encodings")(keras.layers.Conv2D(8, 1, name="box_head")(x))
    logits = keras.layers.Reshape((32, 4), name="class_logits")(keras.layers.Conv2D(8, 1, name="class_head")(x))
    scores = keras.layers.Activation("sigmoid", name="class_predictions")(logits)
    model = keras.Model(inp, [boxes, scores])
    data = convert_keras(model)
    cy, cx = np.meshgrid((np.arange(4) + 0.5) / 4, (np.arange(4) + 0.5) / 4, indexing="ij")
    anchors = []
    for y, x_ in zip(cy.reshape(-1), cx.reshape(-1)):
        anchors += [[y, x_, 0.3, 0.3], [y, x_, 0.4, 0.2]]
    anchors = np.array(anchors, np.float32)
    opts = _det_opts(use_regular_nms=True, detections_per_class=5, max_detections=6, nms_score_threshold=0.2)

    def f(m):
        sg = m.subgraphs[0]
        outs = [int(t) for t in sg.outputs]
        # The class predictions come from the sigmoid (LOGISTIC, then maybe a RESHAPE the
        # converter moved after it); the other output is the boxes.
        producer = {int(o): op for op in sg.operators for o in op.outputs}

        def from_logistic(t: int) -> bool:
            op = producer.get(t)
            while op is not None:
                code = m.operatorCodes[op.opcodeIndex].builtinCode
                if code == schema.BuiltinOperator.LOGISTIC:
                    return True
                op = producer.get(int(op.inputs[0]))
            return False

        cls_t = next(o for o in outs if from_logistic(o))
        box_t = next(o for o in outs if o != cls_t)
        buf = schema.BufferT()
        buf.data = np.frombuffer(anchors.tobytes(), np.uint8)
        m.buffers.append(buf)
        a = len(sg.tensors)
        sg.tensors.append(_det_tensor("anchors", [32, 4], schema.TensorType.FLOAT32, len(m.buffers) - 1))
        for t in _det_outputs(opts):
            t.buffer = len(m.buffers)
            m.buffers.append(schema.BufferT())
            sg.tensors.append(t)
        m.operatorCodes.append(_det_code())
        sg.operators.append(_det_op(len(m.operatorCodes) - 1, [box_t, cls_t, a], [a + 1, a + 2, a + 3, a + 4], opts))
        sg.outputs = np.array([a + 1, a + 2, a + 3, a + 4], np.int32)
        m.signatureDefs = []

    return edit(data, f)


def ssd_detector_tf_int8(d: Path) -> None:
    """TF's full-integer quantization (float I/O) of ssd_detector's float file, by TF's
    post-training calibrator and quantizer (`tensorflow.lite.python.optimize.calibrator`, the
    quantizer TF's converter runs on a .tflite model) calibrated on input_0.npy; custom operators
    need `allow_float` there and stay float behind DEQUANTIZE. Saved as model_int8_floatio.tflite
    with its LiteRT BUILTIN_REF outputs expected_int8_floatio_output_<k>.npy (samples axis
    first, as expected_output_<k>.npy)."""
    from tensorflow.lite.python.optimize import calibrator

    x = np.load(d / "input_0.npy")

    def rep():
        for sample in x:
            yield [sample]

    c = calibrator.Calibrator((d / "model.tflite").read_bytes())
    data = c.calibrate_and_quantize(rep, tf.float32, tf.float32, True, tf.int8)
    path = d / "model_int8_floatio.tflite"
    path.write_bytes(data)
    outs, err = litert_outputs(path, [x[0]])
    assert outs is not None, err
    for k, y in enumerate(outs):
        np.save(d / f"expected_int8_floatio_output_{k}.npy", y[None, ...])
