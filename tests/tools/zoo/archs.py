"""The zoo's architectures: keras.applications nets built with random weights (weights=None, a
fixed seed) at the smallest input each allows, and hand-built nets of common shapes (U-Net,
YOLO-style head, SSD-style detector, Conv1D keyword spotter, depthwise-separable audio net, pose
net with DEPTH_TO_SPACE), and the transformer and recurrent nets of zoo.sequence. Every model
but the tf_keras fused LSTM leaves the batch dynamic (keras.Input without batch_size), as users'
exports do.

Arch: name, builder (returns the Keras model), seed, the kind of sample it takes (zoo.data) and a
one-line description (and, for a few, the converter to use and whether TF's quantizing conversions
run in child processes). ARCHS keeps them smallest first, the order make_zoo.py runs them in."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from goldens.frameworks import keras, tf

from . import sequence as sq

L = keras.layers
APPS = keras.applications


@dataclass(frozen=True)
class Arch:
    name: str
    build: Callable[[], keras.Model]
    seed: int
    # zoo.data sample kind: ("image", size, preprocess) | ("mfcc",) | ("logmel",) | ("tokens", length, vocab)
    data: tuple
    description: str
    # the converter to configure for a model (default TFLiteConverter.from_keras_model)
    converter: Callable | None = None
    # TF's quantizing conversions run in child processes: its calibrator kills the process on
    # Keras 3 recurrent layers' WHILE loops (SIGSEGV, tensorflow/tensorflow#75140)
    isolate: bool = False


def _app(ctor, size: int) -> Callable[[], keras.Model]:
    """A keras.applications net with its own top, retargeted to 10 classes as users fine-tune
    them (the 1000-class softmax of an untrained net is ~0.001 everywhere, below int8's
    1/256 output step, and its SQNR would only show that)."""
    return lambda: ctor(weights=None, input_shape=(size, size, 3), classes=10)


def unet() -> keras.Model:
    def block(h, f, name):
        h = L.Conv2D(f, 3, padding="same", activation="relu", name=name + "_a")(h)
        return L.Conv2D(f, 3, padding="same", activation="relu", name=name + "_b")(h)

    i = keras.Input((32, 32, 3), name="image")
    e1 = block(i, 8, "enc1")
    e2 = block(L.MaxPooling2D(2, name="pool1")(e1), 16, "enc2")
    b = block(L.MaxPooling2D(2, name="pool2")(e2), 32, "bottleneck")
    u2 = L.Conv2DTranspose(16, 2, strides=2, padding="same", name="up2")(b)
    d2 = block(L.Concatenate(name="skip2")([u2, e2]), 16, "dec2")
    u1 = L.UpSampling2D(2, name="up1")(d2)
    u1 = L.Conv2D(8, 1, name="up1_proj")(u1)
    d1 = block(L.Concatenate(name="skip1")([u1, e1]), 8, "dec1")
    o = L.Conv2D(1, 1, activation="sigmoid", name="mask")(d1)
    return keras.Model(i, o, name="unet")


def yolo_head() -> keras.Model:
    def cbl(h, f, k, s, name):
        h = L.Conv2D(f, k, strides=s, padding="same", use_bias=False, name=name)(h)
        h = L.BatchNormalization(name=name + "_bn")(h)
        return L.LeakyReLU(0.1, name=name + "_leaky")(h)

    anchors, classes = 3, 4
    i = keras.Input((64, 64, 3), name="image")
    h = cbl(i, 8, 3, 2, "stem")  # 32
    c3 = cbl(h, 16, 3, 2, "c3")  # 16
    c4 = cbl(c3, 32, 3, 2, "c4")  # 8
    c5 = cbl(c4, 64, 3, 2, "c5")  # 4
    p5 = cbl(c5, 32, 1, 1, "p5")
    p4 = cbl(L.Concatenate(name="fpn4")([L.UpSampling2D(2, name="up5")(p5), c4]), 32, 3, 1, "p4")
    p3 = cbl(L.Concatenate(name="fpn3")([L.UpSampling2D(2, name="up4")(p4), c3]), 16, 3, 1, "p3")
    outs = []
    for p, name in ((p3, "s8"), (p4, "s16"), (p5, "s32")):
        d = L.Conv2D(anchors * (5 + classes), 1, name=f"head_{name}")(p)
        outs.append(L.Reshape((-1, 5 + classes), name=f"flat_{name}")(d))
    o = L.Concatenate(axis=1, name="detections")(outs)
    o = L.Activation("sigmoid", name="scores")(o)
    return keras.Model(i, o, name="yolo_head")


def ssd_detector() -> keras.Model:
    def ds(h, f, s, name):
        h = L.DepthwiseConv2D(3, strides=s, padding="same", use_bias=False, name=name + "_dw")(h)
        h = L.BatchNormalization(name=name + "_dw_bn")(h)
        h = L.ReLU(6.0, name=name + "_dw_relu6")(h)
        h = L.Conv2D(f, 1, use_bias=False, name=name + "_pw")(h)
        h = L.BatchNormalization(name=name + "_pw_bn")(h)
        return L.ReLU(6.0, name=name + "_pw_relu6")(h)

    anchors, classes = 4, 5
    i = keras.Input((64, 64, 3), name="image")
    h = L.Conv2D(8, 3, strides=2, padding="same", activation="relu6", name="stem")(i)  # 32
    h = ds(h, 16, 2, "b1")  # 16
    f1 = ds(h, 32, 2, "b2")  # 8
    f2 = ds(f1, 48, 2, "b3")  # 4
    f3 = ds(f2, 64, 2, "b4")  # 2
    boxes, scores = [], []
    for f, name in ((f1, "m8"), (f2, "m4"), (f3, "m2")):
        b = L.Conv2D(anchors * 4, 3, padding="same", name=f"box_{name}")(f)
        c = L.Conv2D(anchors * classes, 3, padding="same", name=f"cls_{name}")(f)
        boxes.append(L.Reshape((-1, 4), name=f"box_flat_{name}")(b))
        scores.append(L.Reshape((-1, classes), name=f"cls_flat_{name}")(c))
    box = L.Concatenate(axis=1, name="boxes")(boxes)
    cls = L.Softmax(name="class_probs")(L.Concatenate(axis=1, name="classes")(scores))
    return keras.Model(i, [box, cls], name="ssd_detector")


def kws_conv1d() -> keras.Model:
    i = keras.Input((49, 40), name="logmel")
    h = L.Conv1D(32, 3, padding="same", activation="relu", name="conv1")(i)
    h = L.Conv1D(48, 3, strides=2, padding="same", activation="relu", name="conv2")(h)
    h = L.Conv1D(64, 3, strides=2, padding="same", activation="relu", name="conv3")(h)
    h = L.MaxPooling1D(2, name="pool")(h)
    h = L.GlobalAveragePooling1D(name="gap")(h)
    h = L.Dense(12, name="logits")(h)
    return keras.Model(i, L.Softmax(name="probs")(h), name="kws_conv1d")


def ds_cnn_audio() -> keras.Model:
    i = keras.Input((49, 10, 1), name="mfcc")
    h = L.Conv2D(32, (10, 4), strides=(2, 2), padding="same", use_bias=False, name="conv")(i)
    h = L.BatchNormalization(name="conv_bn")(h)
    h = L.ReLU(name="conv_relu")(h)
    for k in range(3):
        h = L.DepthwiseConv2D(3, padding="same", use_bias=False, name=f"dw{k}")(h)
        h = L.BatchNormalization(name=f"dw{k}_bn")(h)
        h = L.ReLU(name=f"dw{k}_relu")(h)
        h = L.Conv2D(32, 1, use_bias=False, name=f"pw{k}")(h)
        h = L.BatchNormalization(name=f"pw{k}_bn")(h)
        h = L.ReLU(name=f"pw{k}_relu")(h)
    h = L.GlobalAveragePooling2D(name="gap")(h)
    h = L.Dense(12, name="logits")(h)
    return keras.Model(i, L.Softmax(name="probs")(h), name="ds_cnn_audio")


def regnetx_002() -> keras.Model:
    """RegNetX-002 as keras 2's `RegNetX002` builds it (Keras 3 dropped RegNet): rescaling and
    ImageNet normalization inside, a stride-2 stem, X blocks (1x1, grouped 3x3 with group width
    8, 1x1, residual) with depths 1, 1, 4, 7 and widths 24, 56, 152, 368, pooling and a
    10-class softmax (as the keras.applications nets here)."""

    def bn(h, name):
        return L.BatchNormalization(momentum=0.9, epsilon=1e-5, name=name + "_bn")(h)

    def x_block(h, cin, cout, stride, name):
        skip = h
        if stride != 1 or cin != cout:
            skip = bn(L.Conv2D(cout, 1, strides=stride, use_bias=False, name=name + "_skip")(h), name + "_skip")
        h = L.ReLU(name=name + "_relu1")(bn(L.Conv2D(cout, 1, use_bias=False, name=name + "_c1")(h), name + "_c1"))
        g = L.Conv2D(cout, 3, strides=stride, padding="same", groups=cout // 8, use_bias=False, name=name + "_c2")(h)
        h = L.ReLU(name=name + "_relu2")(bn(g, name + "_c2"))
        h = bn(L.Conv2D(cout, 1, use_bias=False, name=name + "_c3")(h), name + "_c3")
        return L.ReLU(name=name + "_out")(L.Add(name=name + "_add")([skip, h]))

    i = keras.Input((32, 32, 3), name="image")
    h = L.Rescaling(1.0 / 255.0, name="rescale")(i)
    h = L.Normalization(mean=[0.485, 0.456, 0.406], variance=[0.229**2, 0.224**2, 0.225**2], name="normalize")(h)
    h = L.ReLU(name="stem_relu")(bn(L.Conv2D(32, 3, strides=2, padding="same", use_bias=False, name="stem")(h), "stem"))
    cin = 32
    for s, (depth, width) in enumerate(zip((1, 1, 4, 7), (24, 56, 152, 368))):
        for b in range(depth):
            h = x_block(h, cin, width, 2 if b == 0 else 1, f"s{s}b{b}")
            cin = width
    h = L.GlobalAveragePooling2D(name="gap")(h)
    o = L.Dense(10, activation="softmax", name="predictions")(h)
    return keras.Model(i, o, name="regnetx_002")


class DepthToSpace(L.Layer):
    """tf.nn.depth_to_space as a Keras layer (Keras has none): the converter emits DEPTH_TO_SPACE."""

    def __init__(self, block: int, **kw):
        super().__init__(**kw)
        self.block = block

    def call(self, x):
        return tf.nn.depth_to_space(x, self.block)

    def compute_output_shape(self, s):
        b = self.block
        return (s[0], s[1] * b, s[2] * b, s[3] // (b * b))


def pose_net() -> keras.Model:
    keypoints = 8
    i = keras.Input((64, 64, 3), name="image")
    h = L.Conv2D(16, 3, strides=2, padding="same", activation="relu", name="conv1")(i)  # 32
    h = L.DepthwiseConv2D(3, strides=2, padding="same", activation="relu", name="dw2")(h)  # 16
    h = L.Conv2D(32, 1, activation="relu", name="pw2")(h)
    h = L.DepthwiseConv2D(3, strides=2, padding="same", activation="relu", name="dw3")(h)  # 8
    h = L.Conv2D(48, 1, activation="relu", name="pw3")(h)
    h = L.Conv2D(4 * keypoints, 3, padding="same", name="heat_pre")(h)
    h = DepthToSpace(2, name="depth_to_space")(h)  # 16x16xK
    heat = L.Activation("sigmoid", name="heatmaps")(h)
    return keras.Model(i, heat, name="pose_net")


ARCHS: dict[str, Arch] = {}


def _add(name: str, build, seed: int, data: tuple, description: str, **kw) -> None:
    ARCHS[name] = Arch(name, build, seed, data, description, **kw)


# Hand-built nets first (small), then keras.applications roughly by size.
_add("kws_conv1d", kws_conv1d, 101, ("logmel",), "Conv1D keyword spotter on 49x40 log-mel frames, 12 classes")
_add("ds_cnn_audio", ds_cnn_audio, 102, ("mfcc",), "depthwise-separable CNN (DS-CNN) on 49x10x1 MFCCs, 12 classes")
_add("pose_net", pose_net, 103, ("image", 64, None), "pose net: strided convs, DEPTH_TO_SPACE to 16x16x8 heatmaps")
_add("unet", unet, 104, ("image", 32, None), "U-Net 32x32: Conv2DTranspose and UpSampling2D decoders with skips")
_add("yolo_head", yolo_head, 105, ("image", 64, None), "YOLO-style 3-scale head: FPN upsample/concat, LeakyReLU, reshape+concat")
_add("ssd_detector", ssd_detector, 106, ("image", 64, None), "SSD-style detector: 3 maps, box + class heads, reshape/concat, softmax")
# Transformer and recurrent nets (zoo.sequence; issue 18).
_add("tiny_vit", sq.tiny_vit, 301, ("image", 32, None), "tiny ViT 32x32: 4x4 patch conv, 2 encoder blocks (MHA, GELU exact/tanh, LayerNorm), 10 classes")
_add("mobilevit_block", sq.mobilevit_block, 302, ("image", 32, None), "MobileViT block: conv stem, unfold 2x2 patches (reshape/transpose), transformer, fold, concat skip, fuse conv")
_add("lstm_text", sq.lstm_text, 303, ("tokens", sq.TEXT_LEN, sq.TEXT_VOCAB), "text classifier: 16 token ids (batch 1), Embedding, LSTM(32) unroll=False (WHILE), 4 classes", isolate=True)
_add("lstm_text_unrolled", sq.lstm_text_unrolled, 303, ("tokens", sq.TEXT_LEN, sq.TEXT_VOCAB), "the same text classifier (batch 1) with LSTM(32) unroll=True (16 steps, no WHILE)", isolate=True)
_add("lstm_text_unrolled_dynbatch", sq.lstm_text_unrolled_dynbatch, 303, ("tokens", sq.TEXT_LEN, sq.TEXT_VOCAB), "the unrolled text classifier with a dynamic batch (initial state: FILL of a computed shape)", isolate=True)
_add("bilstm_text", sq.bilstm_text, 304, ("tokens", sq.TEXT_LEN, sq.TEXT_VOCAB), "text classifier: 16 token ids (batch 1), Embedding, Bidirectional(LSTM(16)) (two WHILE loops), 4 classes", isolate=True)
_add("gru_kws", sq.gru_kws, 305, ("logmel",), "GRU keyword spotter on 49x40 log-mel frames (batch 1): GRU(32) (WHILE), 12 classes", isolate=True)
_add("lstm_fused", sq.lstm_fused, 306, ("tokens", 10, 50), "tf_keras LSTM(32)+LSTM(16) text classifier fused to UNIDIRECTIONAL_SEQUENCE_LSTM (realworld's, batch 1)", converter=sq.lstm_fused_converter, isolate=True)
_add("mobilenet_v3_small", _app(APPS.MobileNetV3Small, 32), 201, ("image", 32, "mobilenet_v3"), "keras MobileNetV3Small 32x32, 10 classes")
_add("mobilenet_v1", _app(APPS.MobileNet, 32), 202, ("image", 32, "mobilenet"), "keras MobileNet (V1) 32x32, alpha 1, 10 classes")
_add("mobilenet_v2", _app(APPS.MobileNetV2, 32), 203, ("image", 32, "mobilenet_v2"), "keras MobileNetV2 32x32, alpha 1, 10 classes")
_add("regnetx_002", regnetx_002, 204, ("image", 32, "raw255"), "RegNetX002 32x32, 10 classes (as keras 2 built it; Keras 3 has no RegNet)")
_add("mobilenet_v3_large", _app(APPS.MobileNetV3Large, 32), 205, ("image", 32, "mobilenet_v3"), "keras MobileNetV3Large 32x32, 10 classes")
_add("efficientnet_b0", _app(APPS.EfficientNetB0, 32), 206, ("image", 32, "efficientnet"), "keras EfficientNetB0 32x32, 10 classes")
_add("efficientnet_v2_b0", _app(APPS.EfficientNetV2B0, 32), 207, ("image", 32, "efficientnet_v2"), "keras EfficientNetV2B0 32x32, 10 classes")
_add("nasnet_mobile", _app(APPS.NASNetMobile, 32), 208, ("image", 32, "nasnet"), "keras NASNetMobile 32x32, 10 classes")
_add("densenet121", _app(APPS.DenseNet121, 32), 209, ("image", 32, "densenet"), "keras DenseNet121 32x32, 10 classes")
_add("xception", _app(APPS.Xception, 71), 210, ("image", 71, "xception"), "keras Xception 71x71, 10 classes")
_add("inception_v3", _app(APPS.InceptionV3, 75), 211, ("image", 75, "inception_v3"), "keras InceptionV3 75x75, 10 classes")
_add("resnet50", _app(APPS.ResNet50, 32), 212, ("image", 32, "resnet50"), "keras ResNet50 32x32, 10 classes")
_add("resnet50_v2", _app(APPS.ResNet50V2, 32), 213, ("image", 32, "resnet_v2"), "keras ResNet50V2 32x32, 10 classes")
_add("convnext_tiny", _app(APPS.ConvNeXtTiny, 32), 214, ("image", 32, "convnext"), "keras ConvNeXtTiny 32x32, 10 classes")
