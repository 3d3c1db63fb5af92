"""Case registry: CaseData (what a case's build function returns), CaseSpec, CASES and the
@case decorator, seed_everything (before each case), train_and_freeze (whole models)."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from .env import quiet
from .frameworks import keras
from .variants import ALL_VARIANTS, STAGES


@dataclass
class CaseData:
    model: keras.Model  # batch-1 inference model that gets converted
    calib: list[np.ndarray]  # per Keras model input: [N, *input_shape] float32
    inputs: list[np.ndarray]  # per Keras model input: [S, *input_shape] float32
    description: str
    notes: dict[str, Any] = field(default_factory=dict)
    # A held-out labelled test set for classifiers: (x stored as written, labels int32, scale):
    # the model input is x * scale (images as uint8 pixels with scale 1/255, computed in float64
    # then rounded to float32 as the training data was). Drawn from its own generator so the
    # rest of the case is unchanged.
    labelled: tuple[np.ndarray, np.ndarray, float] | None = None


@dataclass
class CaseSpec:
    name: str
    build: Callable[[int], CaseData]
    seed: int
    variants: tuple[str, ...]
    # variant -> extra repo-relative path receiving an identical copy of that model
    copies: dict[str, str]
    kind: str = "model"  # "model" (a whole net) or "op" (one operator in isolation)
    op: str | None = None  # for kind == "op": the operator the case isolates
    # variant -> {stage, issue, reason}: a known gap that a later issue tracks
    expected_failures: dict[str, dict] = field(default_factory=dict)
    # traced variant -> why its intermediates are not stored (size)
    untraced: dict[str, str] = field(default_factory=dict)
    # Edits the converted float model (standalone activations, see activation_split.py); the
    # other variants are then TF's quantizer run on the edited file (tf_quantize), as a user
    # quantizing a shipped .tflite gets them.
    float_rewrite: Callable[[bytes], bytes] | None = None
    # variant -> why it is not produced (recorded under [unavailable] like a converter refusal)
    skip: dict[str, str] = field(default_factory=dict)
    # The LiteRT op resolver (a key of variants.RESOLVERS) that loads the case's models:
    # "reference" (BUILTIN_REF, whose outputs are expected_outputs), or "optimized" for an op
    # BUILTIN_REF does not register (CEIL, ROUND, ELU in LiteRT 2.3): expected_outputs are then
    # the model run op by op, BUILTIN_REF where it has the op, else "optimized"
    # (litert.run_per_op). Recorded in case.toml as expected_resolver.
    resolver: str = "reference"
    # variant -> (edit of TF's converted model, what the edit does): the variant's model is the
    # edited file (e.g. an int8 op TF keeps float, made integer with TF's own parameters).
    rewrite: dict[str, tuple[Callable[[bytes], bytes], str]] = field(default_factory=dict)


CASES: dict[str, CaseSpec] = {}


def case(
    name: str,
    *,
    seed: int,
    variants: tuple[str, ...] = ALL_VARIANTS,
    copies=None,
    kind: str = "model",
    op: str | None = None,
    expected_failures: dict[str, dict] | None = None,
    untraced: dict[str, str] | None = None,
    float_rewrite: Callable[[bytes], bytes] | None = None,
    skip: dict[str, str] | None = None,
    resolver: str = "reference",
    rewrite: dict[str, tuple[Callable[[bytes], bytes], str]] | None = None,
):
    def deco(fn: Callable[[int], CaseData]):
        assert name not in CASES, name
        assert set(skip or {}) <= set(variants), (name, skip)
        assert not rewrite or (float_rewrite is None and set(rewrite) <= set(variants)), (name, rewrite)
        assert resolver in ("reference", "optimized"), (name, resolver)
        for v, ef in (expected_failures or {}).items():
            assert v in variants and ef["stage"] in STAGES and set(ef) == {"stage", "issue", "reason"}, (name, v, ef)
        CASES[name] = CaseSpec(
            name, fn, seed, variants, dict(copies or {}), kind, op, dict(expected_failures or {}), dict(untraced or {}),
            float_rewrite,
            dict(skip or {}),
            resolver,
            dict(rewrite or {}),
        )
        return fn

    return deco


def seed_everything(seed: int) -> None:
    keras.backend.clear_session()  # resets auto-naming counters
    random.seed(seed)
    np.random.seed(seed)
    keras.utils.set_random_seed(seed)  # python, numpy, TF and Keras seed generators


def train_and_freeze(
    build: Callable[[int | None], keras.Model],
    x: np.ndarray,
    y: np.ndarray,
    x_val: np.ndarray,
    y_val: np.ndarray,
    *,
    epochs: int,
    batch_size: int = 32,
    lr: float = 3e-3,
    loss: Any = "sparse_categorical_crossentropy",
    metrics: Any = ("accuracy",),
    prepare: Callable[[keras.Model], None] | None = None,
) -> tuple[keras.Model, dict[str, float]]:
    """Train build(None) briefly, then return build(1) (static batch 1, what the
    converter sees) carrying the trained weights, plus validation metrics."""
    with quiet():
        m = build(None)
        if prepare is not None:
            prepare(m)
        m.compile(optimizer=keras.optimizers.Adam(lr), loss=loss, metrics=list(metrics) if not isinstance(metrics, dict) else metrics)
        m.fit(x, y, epochs=epochs, batch_size=batch_size, shuffle=True, verbose=0)
        res = m.evaluate(x_val, y_val, batch_size=64, verbose=0, return_dict=True)
        frozen = build(1)
        frozen.set_weights(m.get_weights())
    return frozen, {k: round(float(v), 4) for k, v in res.items()}
