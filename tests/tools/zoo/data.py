"""Plausible random samples for the zoo, from a seeded generator: images drawn by
goldens.data.draw_shapes as 0..255 pixels and passed through the family's own
keras.applications preprocess_input (hand-built image nets take pixels / 255; RegNet, which
rescales inside the model, takes raw pixels), MFCC frames
(49x10x1, decaying coefficient scale, smooth in time) and log-mel frames (49x40, smooth in time
and frequency), and token ids (int32, drawn from a Zipf-like distribution over the vocabulary,
as word frequencies are)."""

from __future__ import annotations

import numpy as np

from goldens.data import SHAPE_CLASSES, draw_shapes
from goldens.frameworks import keras

N_CALIB = 8  # representative-dataset samples given to TF's converter and to `zeropoint quantize`
N_HELDOUT = 3  # held-out inputs: bit-exactness against BUILTIN_REF and SQNR
N_BN_STATS = 16  # separate samples that set the batch-norm statistics (zoo.convert.plausible_bn)


def _smooth(x: np.ndarray, axis: int) -> np.ndarray:
    """A 3-tap moving average along `axis` (edges repeated): neighbouring frames correlate."""
    pad = [(0, 0)] * x.ndim
    pad[axis] = (1, 1)
    p = np.pad(x, pad, mode="edge")
    n = x.shape[axis]
    take = lambda s: np.take(p, np.arange(s, s + n), axis=axis)  # noqa: E731
    return (take(0) + take(1) + take(2)) / 3.0


def samples(kind: tuple, n: int, rng: np.random.Generator) -> np.ndarray:
    """n samples stacked as [n, 1, ...] (each one batch-1 tensor): float32, or int32 token ids
    for ("tokens", length, vocab)."""
    if kind[0] == "tokens":
        _, length, vocab = kind
        p = 1.0 / (1.0 + np.arange(vocab))  # rank-frequency as in text: id 0 most common
        ids = rng.choice(vocab, size=(n, length), p=p / p.sum())
        return np.ascontiguousarray(ids.astype(np.int32)[:, None])
    if kind[0] == "image":
        _, size, family = kind
        imgs, _ = draw_shapes(rng, n, size, SHAPE_CLASSES)
        if family is None:
            x = imgs
        elif family == "raw255":  # the model rescales itself (RegNet: no preprocess module)
            x = imgs * 255.0
        else:
            module = getattr(keras.applications, family)
            x = np.asarray(module.preprocess_input(imgs * 255.0))
    elif kind[0] == "mfcc":
        scale = 12.0 / (1.0 + np.arange(10))  # higher cepstral coefficients are smaller
        x = _smooth(rng.normal(0.0, 1.0, (n, 49, 10)), 1) * scale
        x[..., 0] -= 20.0  # c0 (log energy) sits well below zero
        x = x[..., None]
    elif kind[0] == "logmel":
        x = _smooth(_smooth(rng.normal(0.0, 2.0, (n, 49, 40)), 1), 2) - 4.0
    else:
        raise ValueError(kind)
    return np.ascontiguousarray(x.astype(np.float32)[:, None])


def calib_and_heldout(kind: tuple, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    x = samples(kind, N_CALIB + N_HELDOUT, rng)
    return x[:N_CALIB].copy(), x[N_CALIB:].copy()


def bn_stats_batch(kind: tuple, seed: int) -> np.ndarray:
    """N_BN_STATS samples as one batch [N, ...], from their own generator (seed + 1)."""
    return samples(kind, N_BN_STATS, np.random.default_rng(seed + 1))[:, 0]
