"""Synthetic data for the whole-model cases: procedural shape/stripe images, a tabular rule,
and the split into calibration samples and test inputs."""

from __future__ import annotations

import numpy as np

SHAPE_CLASSES = ("circle", "square", "triangle", "cross", "h_stripes", "v_stripes")


def draw_shapes(rng: np.random.Generator, n: int, size: int, classes: tuple[str, ...]):
    """Procedural images: one coloured shape (or a stripe pattern) on a coloured
    background with pixel noise, values on the 1/255 grid in [0, 1].
    Returns (images [n, size, size, 3] float32, labels [n] int32)."""
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float32) + 0.5
    labels = rng.permutation(np.arange(n) % len(classes)).astype(np.int32)
    imgs = np.empty((n, size, size, 3), np.float32)
    for i, lab in enumerate(labels):
        kind = classes[lab]
        bg = rng.uniform(0.0, 1.0, 3)
        fg = rng.uniform(0.0, 1.0, 3)
        while np.abs(fg - bg).mean() < 0.3:
            fg = rng.uniform(0.0, 1.0, 3)
        cx, cy = rng.uniform(0.35, 0.65, 2) * size
        r = rng.uniform(0.18, 0.32) * size
        dx, dy = xx - cx, yy - cy
        if kind == "circle":
            mask = dx * dx + dy * dy < r * r
        elif kind == "square":
            mask = np.maximum(np.abs(dx), np.abs(dy)) < 0.85 * r
        elif kind == "triangle":  # apex up
            mask = (dy < 0.7 * r) & (np.abs(dx) < 0.6 * (dy + r))
        elif kind == "cross":
            w = 0.3 * r
            mask = ((np.abs(dx) < w) & (np.abs(dy) < r)) | ((np.abs(dy) < w) & (np.abs(dx) < r))
        elif kind in ("h_stripes", "v_stripes"):
            period = rng.uniform(0.15, 0.3) * size
            coord = yy if kind == "h_stripes" else xx
            mask = np.sin(2 * np.pi * coord / period + rng.uniform(0, 2 * np.pi)) > 0
        else:
            raise ValueError(kind)
        img = np.where(mask[..., None], fg, bg) + rng.normal(0.0, 0.06, (size, size, 3))
        imgs[i] = np.round(np.clip(img, 0.0, 1.0) * 255.0) / 255.0
    return imgs, labels


def tabular_task(rng: np.random.Generator, n: int):
    """16 standard-normal features laid out as a 4x4 grid; a 3-class rule plus a
    bounded regression target. Returns (x [n,4,4], class [n], target [n,1])."""
    x = rng.normal(0.0, 1.0, (n, 16)).astype(np.float32)
    score0 = x[:, 0] * x[:, 1] + 0.5 * x[:, 2]
    score1 = np.sin(2.0 * x[:, 3]) + 0.5 * x[:, 4] ** 2 - 0.5
    score2 = 0.8 * x[:, 5] - 0.6 * x[:, 6] + 0.3 * x[:, 7] * x[:, 8]
    cls = np.argmax(np.stack([score0, score1, score2], 1), 1).astype(np.int32)
    target = np.tanh(0.7 * x[:, 9] - 0.4 * x[:, 10] + 0.3 * x[:, 11] * x[:, 12])[:, None]
    return x.reshape(n, 4, 4), cls, target.astype(np.float32)


def split_for_case(x: np.ndarray, n_calib: int, n_inputs: int):
    """Calibration samples and test inputs, each stacked as [N, 1, ...] (batch-1 tensors)."""
    calib = x[:n_calib][:, None]
    inputs = x[n_calib : n_calib + n_inputs][:, None]
    return np.ascontiguousarray(calib), np.ascontiguousarray(inputs)
