"""Whole-model cases: Keras nets trained briefly on the synthetic tasks of goldens.data, one
@case function each (registered in this order on import)."""

from __future__ import annotations

import numpy as np

from .data import SHAPE_CLASSES, draw_shapes, split_for_case, tabular_task
from .frameworks import keras
from .registry import CaseData, case, train_and_freeze

L = keras.layers


@case("example_cnn", seed=1001, copies={"float": "www/assets/example.tflite"})
def example_cnn(seed: int) -> CaseData:
    classes = SHAPE_CLASSES[:5]
    rng = np.random.default_rng(seed)
    x, y = draw_shapes(rng, 2400, 32, classes)
    xv, yv = draw_shapes(rng, 400, 32, classes)
    xe, _ = draw_shapes(rng, 32 + 4, 32, classes)

    def build(bs):
        i = keras.Input((32, 32, 3), batch_size=bs, name="image")
        h = L.Conv2D(8, 3, strides=2, padding="same", activation="relu6", name="conv1")(i)
        h = L.DepthwiseConv2D(3, padding="same", activation="relu", name="dw1")(h)
        h = L.Conv2D(16, 1, activation="relu", name="pw1")(h)
        h = L.MaxPooling2D(2, name="maxpool")(h)
        h = L.Conv2D(32, 3, padding="same", activation="relu", name="conv2")(h)
        h = L.AveragePooling2D(2, name="avgpool")(h)
        h = L.Flatten(name="flatten")(h)
        h = L.Dense(32, activation="relu", name="fc1")(h)
        h = L.Dense(len(classes), name="logits")(h)
        o = L.Softmax(name="probs")(h)
        return keras.Model(i, o, name="example_cnn")

    model, metrics = train_and_freeze(build, x, y, xv, yv, epochs=6)
    calib, inputs = split_for_case(xe, 32, 4)
    xt, yt = draw_shapes(np.random.default_rng(seed + 1), 300, 32, classes)
    labelled = (np.round(xt.astype(np.float64) * 255.0).astype(np.uint8), yt, 1.0 / 255.0)
    return CaseData(
        model,
        [calib],
        [inputs],
        "Example image classifier bundled with the web page: 32x32 RGB procedurally drawn "
        f"shapes/stripes, {len(classes)} classes ({', '.join(classes)}); CONV_2D (RELU6, stride 2), "
        "DEPTHWISE_CONV_2D, MAX/AVERAGE_POOL_2D, RESHAPE, FULLY_CONNECTED, SOFTMAX.",
        {"classes": list(classes), "val_metrics": metrics},
        labelled,
    )


@case("mlp", seed=2002)
def mlp(seed: int) -> CaseData:
    rng = np.random.default_rng(seed)
    x, c, t = tabular_task(rng, 6000)
    xv, cv, tv = tabular_task(rng, 1000)
    xe, _, _ = tabular_task(rng, 64 + 4)

    def build(bs):
        i = keras.Input((4, 4), batch_size=bs, name="features")
        f = L.Flatten(name="flatten")(i)
        h = L.Dense(48, activation="relu", name="fc1")(f)
        a = L.Dense(32, activation="tanh", use_bias=False, name="fc_tanh_nobias")(h)
        b = L.Dense(32, activation="sigmoid", name="fc_sigmoid")(f)
        s = L.Add(name="add")([a, b])
        cat = L.Concatenate(name="concat")([s, h])
        h2 = L.Dense(32, activation="relu", name="fc2")(cat)
        cls = L.Dense(3, name="class_logits")(h2)
        reg = L.Dense(1, activation="tanh", name="regression")(h2)
        return keras.Model(i, [cls, reg], name="mlp")

    model, metrics = train_and_freeze(
        build,
        x,
        (c, t),
        xv,
        (cv, tv),
        epochs=8,
        lr=3e-3,
        loss=[keras.losses.SparseCategoricalCrossentropy(from_logits=True), "mse"],
        metrics=[["accuracy"], ["mae"]],
    )
    calib, inputs = split_for_case(xe, 64, 4)
    xt, ct, _ = tabular_task(np.random.default_rng(seed + 1), 1000)
    return CaseData(
        model,
        [calib],
        [inputs],
        "MLP on a synthetic tabular rule (16 normal features as a 4x4 grid): RESHAPE, "
        "FULLY_CONNECTED with and without bias (RELU fused), TANH and LOGISTIC as separate ops, ADD, CONCATENATION; "
        "two outputs (3 class logits, 1 tanh regression value).",
        {"val_metrics": metrics},
        (xt, ct, 1.0),
    )


@case("mobilenet_block", seed=3003)
def mobilenet_block(seed: int) -> CaseData:
    classes = SHAPE_CLASSES
    rng = np.random.default_rng(seed)
    x, y = draw_shapes(rng, 1200, 48, classes)
    xv, yv = draw_shapes(rng, 300, 48, classes)
    xe, _ = draw_shapes(rng, 32 + 4, 48, classes)

    def conv_bn(h, filters, kernel, stride, relu6, name):
        h = L.Conv2D(filters, kernel, strides=stride, padding="same", use_bias=False, name=name)(h)
        h = L.BatchNormalization(momentum=0.9, name=name + "_bn")(h)
        return L.ReLU(6.0, name=name + "_relu6")(h) if relu6 else h

    def inverted_residual(h, cin, cout, stride, expand, name):
        inp = h
        h = conv_bn(h, cin * expand, 1, 1, True, name + "_expand")
        if stride == 2:  # MobileNetV2 pads explicitly before strided depthwise convs
            h = L.ZeroPadding2D(((0, 1), (0, 1)), name=name + "_pad")(h)
        h = L.DepthwiseConv2D(3, strides=stride, padding="same" if stride == 1 else "valid", use_bias=False, name=name + "_dw")(h)
        h = L.BatchNormalization(momentum=0.9, name=name + "_dw_bn")(h)
        h = L.ReLU(6.0, name=name + "_dw_relu6")(h)
        h = conv_bn(h, cout, 1, 1, False, name + "_project")
        if stride == 1 and cin == cout:
            h = L.Add(name=name + "_add")([inp, h])
        return h

    def build(bs):
        i = keras.Input((48, 48, 3), batch_size=bs, name="image")
        h = conv_bn(i, 8, 3, 2, True, "stem")  # 24x24x8
        h = inverted_residual(h, 8, 8, 1, 3, "block1")
        h = inverted_residual(h, 8, 16, 2, 4, "block2")  # 12x12x16
        h = inverted_residual(h, 16, 16, 1, 4, "block3")
        h = conv_bn(h, 48, 1, 1, True, "head")
        h = L.GlobalAveragePooling2D(name="gap")(h)
        h = L.Dense(len(classes), name="logits")(h)
        o = L.Softmax(name="probs")(h)
        return keras.Model(i, o, name="mobilenet_block")

    model, metrics = train_and_freeze(build, x, y, xv, yv, epochs=6)
    calib, inputs = split_for_case(xe, 32, 4)
    return CaseData(
        model,
        [calib],
        [inputs],
        "MobileNetV2-style net on 48x48 RGB shapes/stripes (6 classes): stem conv, three inverted "
        "residual blocks (1x1 expand + RELU6, depthwise 3x3 stride 2 after a ZeroPadding2D that TF folds "
        "into the depthwise padding / depthwise 3x3, 1x1 "
        "linear project, residual ADD), batch norm folded, MEAN (global average pool), "
        "FULLY_CONNECTED, SOFTMAX.",
        {"classes": list(classes), "val_metrics": metrics},
    )



# Keras' MobileNetV2 (alpha 0.35, 96x96) cut after this layer; see the case's description.
MOBILENET_V2_CUT = "block_12_add"


@case(
    "mobilenet_v2",
    seed=4004,
    untraced={
        "16x8": "1 MB of int16 activations at 96x96; the int8 trace of this net and the 16x8 traces "
        "of the single-op cases cover the same kernels"
    },
)
def mobilenet_v2(seed: int) -> CaseData:
    classes = SHAPE_CLASSES
    rng = np.random.default_rng(seed)
    x, y = draw_shapes(rng, 1200, 96, classes)
    xv, yv = draw_shapes(rng, 240, 96, classes)
    xe, _ = draw_shapes(rng, 6 + 2, 96, classes)
    # Keras' MobileNetV2 preprocessing maps [0, 255] to [-1, 1]
    x, xv, xe = (a * 2.0 - 1.0 for a in (x, xv, xe))

    def build(bs):
        i = keras.Input((96, 96, 3), batch_size=bs, name="image")
        base = keras.applications.MobileNetV2(
            input_tensor=i, alpha=0.35, include_top=False, weights=None
        )
        h = base.get_layer(MOBILENET_V2_CUT).output
        h = L.GlobalAveragePooling2D(name="gap")(h)
        h = L.Dense(len(classes), name="logits")(h)
        o = L.Softmax(name="probs")(h)
        return keras.Model(i, o, name="mobilenet_v2")

    def prepare(m):  # few steps: let batch-norm statistics follow the data
        for layer in m.layers:
            if isinstance(layer, L.BatchNormalization):
                layer.momentum = 0.9

    model, metrics = train_and_freeze(build, x, y, xv, yv, epochs=5, lr=2e-3, prepare=prepare)
    calib, inputs = split_for_case(xe, 6, 2)
    return CaseData(
        model,
        [calib],
        [inputs],
        "Keras' own MobileNetV2 (keras.applications.MobileNetV2, alpha=0.35, weights=None, 96x96x3 "
        f"input in [-1, 1]) cut after {MOBILENET_V2_CUT} (the stem and the first 13 inverted-residual "
        "blocks, output stride 16) + global average pool + dense + softmax, trained 5 epochs on "
        f"96x96 shapes/stripes ({len(classes)} classes); the remaining blocks and the 1280-channel head "
        "add ~4.6 MB over all variants and no new operator kind. CONV_2D (stride 2, fused RELU6), "
        "DEPTHWISE_CONV_2D (stride 1 and 2; TF folds the ZeroPadding2D before each strided depthwise "
        "into its padding), residual ADD, MEAN, FULLY_CONNECTED, SOFTMAX.",
        {"classes": list(classes), "val_metrics": metrics, "cut_after": MOBILENET_V2_CUT},
    )
