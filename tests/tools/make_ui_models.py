#!/usr/bin/env python3
"""Deterministic generator of the small models the page's e2e test reads outputs of by kind
(tests/e2e/steps/kinds.mjs), written to tests/e2e/models/. Run by hand; the files are committed.

hand_like.tflite: the output layout of MediaPipe's hand landmark model on a 64x64x3 image (a
CONV_2D / DEPTHWISE_CONV_2D backbone, then FULLY_CONNECTED heads); the Keras outputs are (the
converter writes them in another order, as it does for MediaPipe's own models):
  - landmarks [1, 63]: 21 points of (x, y, z) in pixels of the input, made by FULLY_CONNECTED
    (no SOFTMAX / LOGISTIC: a regression, not class scores);
  - presence [1, 1] and handedness [1, 1]: LOGISTIC;
  - world landmarks [1, 63]: 21 points of (x, y, z) in metres.
It is not trained: what the page shows does not depend on what the model learned. Keras' seeded
initializers give the weights; the landmark heads' biases are a hand-shaped template of 21 points
(wrist, then four joints per finger) and their kernels are scaled so the input moves each point by
a few pixels, as a real model's output moves with the image.

xnnpack_refused.tflite (tests/e2e/steps/arithmetic.mjs): a float model whose int8 version the
XNNPACK arithmetic refuses while the reference arithmetic runs it. Input x [1, 4, 4, 1]; x is
concatenated with itself and a 1x1 CONV_2D with weights (+1000, -1000) and bias 0.01 gives 0.01
everywhere: calibrated on inputs in [0, 1], its requantization scale s_in * s_w / s_out is about
1/255 * 1000/127 / (0.01/255) = 787, and XNNPACK takes scales below 256 only.

Same pinned toolchain and determinism knobs as tests/tools/make_goldens.py (goldens.env; TF 2.21,
keras 3). A second run gives byte-identical files.

Usage:
    PYTHONDONTWRITEBYTECODE=1 tests/tools/.venv/bin/python tests/tools/make_ui_models.py
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np

from goldens.env import apply_env, quiet

apply_env(__file__)

from goldens.frameworks import keras, tf  # noqa: E402

REPO = Path(__file__).resolve().parent.parent.parent
OUT = REPO / "tests" / "e2e" / "models"
SEED = 2126
SIZE = 64
L = keras.layers


def hand_template() -> np.ndarray:
    """21 (x, y, z) points of an open right hand in a SIZE x SIZE image: the wrist, then the
    thumb and the four fingers, four joints each, spread like a fan."""
    pts = [(0.5, 0.9, 0.0)]
    for f, angle in enumerate(np.linspace(-1.1, 0.7, 5)):
        length = 0.14 if f == 0 else 0.11
        base = (0.5 + 0.12 * np.sin(angle), 0.78 - 0.12 * np.cos(angle))
        for j in range(4):
            r = length * (j + 1)
            pts.append((base[0] + r * np.sin(angle), base[1] - r * np.cos(angle), -0.02 * (j + 1)))
    out = np.array(pts, np.float32)
    out[:, :2] *= SIZE
    out[:, 2] *= SIZE
    return out.reshape(-1)


def hand_like() -> keras.Model:
    keras.utils.set_random_seed(SEED)
    i = keras.Input((SIZE, SIZE, 3), batch_size=1, name="input_1")
    h = L.Conv2D(8, 3, strides=2, padding="same", activation="relu", name="conv1")(i)
    h = L.DepthwiseConv2D(3, strides=2, padding="same", activation="relu6", name="dw1")(h)
    h = L.Conv2D(16, 1, activation="relu", name="pw1")(h)
    h = L.Conv2D(16, 3, strides=2, padding="same", activation="relu", name="conv2")(h)
    h = L.Conv2D(8, 3, strides=2, padding="same", activation="relu", name="conv3")(h)
    f = L.Flatten(name="flatten")(h)
    landmarks = L.Dense(63, name="landmarks")(f)
    presence = L.Dense(1, activation="sigmoid", name="presence")(f)
    handedness = L.Dense(1, activation="sigmoid", name="handedness")(f)
    world = L.Dense(63, name="world_landmarks")(f)
    model = keras.Model(i, [landmarks, presence, handedness, world], name="hand_like")
    template = hand_template()
    for layer, bias, spread in (("landmarks", template, 0.05), ("world_landmarks", template / SIZE * 0.2, 0.0002)):
        kernel, _ = model.get_layer(layer).get_weights()
        model.get_layer(layer).set_weights([kernel * spread, bias.astype(np.float32)])
    return model


def xnnpack_refused() -> keras.Model:
    keras.utils.set_random_seed(SEED)
    i = keras.Input((4, 4, 1), batch_size=1, name="x")
    c = L.Concatenate(name="twice")([i, i])
    conv = L.Conv2D(1, 1, name="cancel")
    y = conv(c)
    model = keras.Model(i, y, name="xnnpack_refused")
    conv.set_weights([np.array([1000.0, -1000.0], np.float32).reshape(1, 1, 2, 1), np.array([0.01], np.float32)])
    return model


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for name, make in (("hand_like", hand_like), ("xnnpack_refused", xnnpack_refused)):
        with quiet():
            data = bytes(tf.lite.TFLiteConverter.from_keras_model(make()).convert())
        path = OUT / f"{name}.tflite"
        path.write_bytes(data)
        print(f"{path.relative_to(REPO)}: {len(data)} bytes, sha256 {hashlib.sha256(data).hexdigest()}")


if __name__ == "__main__":
    main()
