"""Single-op cases for MediaPipe's landmark operators, version 2 (as
`face_landmark_with_attention.tflite` uses them): `Landmarks2TransformMatrix`,
`TransformTensorBilinear`, `TransformLandmarks`. Each case is a model and its graph inputs (dim 0
the sample); `make_goldens.py` runs them through MediaPipe. The options are FlexBuffers maps
written the way MediaPipe's models store them (`subset_idxs` a typed int vector).
"""

from __future__ import annotations

import numpy as np
from flatbuffers import flexbuffers

SAMPLES = 3


def flex_map(ints: dict, floats: dict | None = None, vectors: dict | None = None) -> bytes:
    """A FlexBuffers map; keys sorted as flexbuffers requires (the builder sorts them too)."""
    fb = flexbuffers.Builder()
    with fb.Map():
        for k, v in sorted({**ints, **(floats or {}), **(vectors or {})}.items()):
            fb.Key(k)
            if vectors and k in vectors:
                fb.TypedVectorFromElements(v)
            elif floats and k in floats:
                fb.Float(v)
            else:
                fb.Int(v)
    return bytes(fb.Finish())


def matrices(rng, n: int, centre, scale, spread: float = 0.3) -> np.ndarray:
    """n 4x4 matrices (float32, [n, 1, 4, 4]) mapping crop pixels to input pixels: a rotation,
    a scale and a shift around `centre`, in the layout Landmarks2TransformMatrix writes."""
    out = np.zeros((n, 1, 4, 4), np.float32)
    for s in range(n):
        a = rng.uniform(-spread, spread)
        sx, sy = scale * rng.uniform(0.8, 1.25, 2)
        m = np.eye(4)
        m[0, :2] = [np.cos(a) * sx, -np.sin(a) * sy]
        m[1, :2] = [np.sin(a) * sx, np.cos(a) * sy]
        m[0, 3], m[1, 3] = np.asarray(centre) + rng.normal(0, 2, 2)
        out[s, 0] = m
    return out


def l2m(name, seed, n, subset, left, right, out_hw, scale, target):
    """Landmarks2TransformMatrix on n random landmarks around an image's centre."""
    rng = np.random.default_rng(seed)
    opts = flex_map({"left_rotation_idx": left, "right_rotation_idx": right,
                     "output_height": out_hw[0], "output_width": out_hw[1]},
                    {"scale_x": scale[0], "scale_y": scale[1], "target_rotation_radians": target},
                    {"subset_idxs": subset})
    x = (rng.normal(96, 30, (SAMPLES, 1, n, 3))).astype(np.float32)
    return name, "Landmarks2TransformMatrix", [("landmarks", [1, n, 3])], [1, 4, 4], opts, [x]


def ttb(name, seed, hwc, out_hw, scale, identity=False):
    """TransformTensorBilinear of a random feature map by per-sample matrices."""
    rng = np.random.default_rng(seed)
    h, w, c = hwc
    x = rng.normal(0, 1, (SAMPLES, 1, h, w, c)).astype(np.float32)
    if identity:
        m = np.tile(np.eye(4, dtype=np.float32), (SAMPLES, 1, 1, 1))
    else:
        centre = (w / 2 - out_hw[1] * scale / 2, h / 2 - out_hw[0] * scale / 2)
        m = matrices(rng, SAMPLES, centre, scale)
    opts = flex_map({"output_height": out_hw[0], "output_width": out_hw[1]})
    return (name, "TransformTensorBilinear", [("input", [1, h, w, c]), ("matrix", [1, 4, 4])],
            [1, *out_hw, c], opts, [x, m])


def tl(name, seed, n, dims):
    """TransformLandmarks of crop-space landmarks by per-sample matrices."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(0, 16, (SAMPLES, 1, n, dims)).astype(np.float32)
    m = matrices(rng, SAMPLES, (40.0, 50.0), 3.0, spread=1.0)
    return name, "TransformLandmarks", [("landmarks", [1, n, dims]), ("matrix", [1, 4, 4])], [1, n, dims], None, [x, m]


CASES = [
    # The face model's lips crop: output 16x16, scale 1.5, target rotation 0; an odd-length
    # subset (its last index paired with itself).
    l2m("l2m_lips", 11, 40, [3, 17, 5, 22, 9, 31, 12, 0, 27], 5, 22, (16, 16), (1.5, 1.5), 0.0),
    # Unequal scales and crop sides, a target rotation.
    l2m("l2m_rotated", 12, 25, [1, 2, 4, 8, 16, 24, 7, 3], 4, 16, (12, 20), (1.25, 2.0), 0.3),
    # The face model's shape of use, smaller: 16x16 crops of a 24x20 map with 8 channels.
    ttb("ttb_crop", 13, (24, 20, 8), (16, 16), 1.2),
    # Crops reaching past the map (zeros) and upsampling.
    ttb("ttb_border", 14, (9, 11, 3), (10, 12), 0.9),
    # The identity on the whole map: the last row and column sample exactly on the border.
    ttb("ttb_identity", 15, (5, 6, 2), (5, 6), 1.0, identity=True),
    tl("tl_xy", 16, 80, 2),
    tl("tl_xyz", 17, 30, 3),
]
