"""Single-operator case machinery: In (one model input and how its samples are drawn),
op_case() (registers a case), and the weight setters a case can pass as weights=."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from .frameworks import keras
from .registry import CaseData, case

L = keras.layers


# One Keras layer (or keras.ops call) per model, seeded random weights (Keras'
# default initializers unless a case sets them), inputs drawn from a stated
# range. Calibration: OP_CALIB samples; test inputs: OP_SAMPLES samples.
# Input ranges [0, x] give zero point -128 and [-x, 0] give 127 for int8.
# TF's dynamic-range quantizer leaves weights with fewer than 1024 elements
# float, so a case needs >= 1024 weights for a hybrid (dynamic) variant.

OP_CALIB = 12
OP_SAMPLES = 2


@dataclass(frozen=True)
class In:
    """One model input: name, shape without the batch dim, and how samples are drawn."""

    name: str
    shape: tuple[int, ...]
    lo: float = -1.0
    hi: float = 1.0
    # "uniform": U[lo, hi]; "smooth": one U[lo, hi] level per sample plus U[-noise, noise]
    # per element, clipped to [lo, hi]; "grid": evenly spaced values from lo to hi over all
    # samples (calibration still U[lo, hi] shrunk by `calib_shrink`); "values": the given
    # `values` in order, repeated to fill the samples (edge values: ties, -0.0, NaN, inf;
    # calibration still U[lo, hi])
    dist: str = "uniform"
    noise: float = 0.0
    calib_shrink: float = 0.0
    values: tuple[float, ...] = ()
    # calibration only: the first samples filled with these values, one sample each (pins the
    # calibrated range, e.g. to power-of-two scales), the rest drawn as above
    calib_edges: tuple[float, ...] = ()

    def draw(self, rng: np.random.Generator, n: int, calibration: bool) -> np.ndarray:
        shape = (n, 1, *self.shape)
        if self.dist == "uniform" or (self.dist in ("grid", "values") and calibration):
            lo, hi = self.lo, self.hi
            if self.dist == "grid":
                lo, hi = lo + self.calib_shrink, hi - self.calib_shrink
            x = rng.uniform(lo, hi, shape).astype(np.float32)
            if calibration:
                for k, v in enumerate(self.calib_edges):
                    x[k] = np.float32(v)
            return x
        if self.dist == "smooth":
            level = rng.uniform(self.lo, self.hi, (n, 1, *(1 for _ in self.shape)))
            x = level + rng.uniform(-self.noise, self.noise, shape)
            return np.clip(x, self.lo, self.hi).astype(np.float32)
        if self.dist == "grid":
            return np.linspace(self.lo, self.hi, int(np.prod(shape)), dtype=np.float32).reshape(shape)
        if self.dist == "values":
            return np.resize(np.array(self.values, np.float32), shape)
        raise ValueError(self.dist)

    def describe(self) -> str:
        s = f"{self.name}: [1, {', '.join(map(str, self.shape))}] "
        if self.dist == "smooth":
            return s + f"one level U[{self.lo:g}, {self.hi:g}] per sample + U[-{self.noise:g}, {self.noise:g}] per element"
        if self.dist == "grid":
            return s + f"evenly spaced from {self.lo:g} to {self.hi:g} (calibration U[{self.lo + self.calib_shrink:g}, {self.hi - self.calib_shrink:g}])"
        if self.dist == "values":
            return s + f"the values {list(self.values)} repeated (calibration U[{self.lo:g}, {self.hi:g}])"
        return s + f"U[{self.lo:g}, {self.hi:g}]"


def op_case(
    name: str,
    op: str,
    seed: int,
    inputs: list[In],
    build: Callable[..., Any],
    description: str,
    *,
    weights: Callable[[keras.Model, np.random.Generator], str] | None = None,
    expected_failures: dict[str, dict] | None = None,
    variants: tuple[str, ...] | None = None,
    float_rewrite: Callable[[bytes], bytes] | None = None,
    skip: dict[str, str] | None = None,
    resolver: str = "reference",
    rewrite: dict[str, tuple[Callable[[bytes], bytes], str]] | None = None,
) -> None:
    """Register a single-operator case: build(*keras_inputs) -> output tensor. float_rewrite
    edits the converted float model; the quantized variants are then TF's quantizer run on it.
    `skip` names variants not produced, with the reason (a model LiteRT cannot run in one).
    `resolver`: the LiteRT resolver giving expected_outputs ("optimized" for an op BUILTIN_REF
    lacks); `rewrite`: variant -> (edit of TF's converted model, what it does)."""

    def builder(seed: int) -> CaseData:
        rng = np.random.default_rng(seed)
        kin = [keras.Input(i.shape, batch_size=1, name=i.name) for i in inputs]
        out = build(*kin)
        model = keras.Model(kin[0] if len(kin) == 1 else kin, out, name=name)
        how = "none" if not model.weights else "random: Keras' default initializers, seeded"
        if weights is not None:
            how = weights(model, rng)
        calib = [i.draw(rng, OP_CALIB, True) for i in inputs]
        tests = [i.draw(rng, OP_SAMPLES, False) for i in inputs]
        notes = {"weights": how, "inputs": [i.describe() for i in inputs]}
        return CaseData(model, calib, tests, description, notes)

    extra = {} if variants is None else {"variants": variants}
    case(name, seed=seed, kind="op", op=op, expected_failures=expected_failures, float_rewrite=float_rewrite, skip=skip, resolver=resolver, rewrite=rewrite, **extra)(builder)


def _layer(model: keras.Model, cls: type) -> Any:
    return next(layer for layer in model.layers if isinstance(layer, cls))


def zero_sum_int_kernel(cls: type, wmax: float, bias: float = 0.0):
    """Kernel whose values are integer multiples of wmax/127 (so int8 weight quantization is
    exact), with a +-127 entry and zero sum per output channel: on a per-sample constant input
    the output is the bias, and only the per-element noise survives."""

    def set_weights(model: keras.Model, rng: np.random.Generator) -> str:
        layer = _layer(model, cls)
        kernel = layer.kernel.numpy()
        cout = kernel.shape[-1]
        k = rng.integers(-40, 41, kernel.shape).reshape(-1, cout)
        for c in range(cout):
            k[0, c] = 127 if c % 2 == 0 else -127
            excess = int(k[:, c].sum())
            j = 1
            while excess != 0:  # spread the correction over the other entries, within [-126, 126]
                step = int(np.clip(-excess, -126 - k[j, c], 126 - k[j, c]))
                k[j, c] += step
                excess += step
                j += 1
        assert np.all(k.sum(0) == 0) and np.all(np.abs(k).max(0) == 127)
        layer.kernel.assign((k.reshape(kernel.shape) * (wmax / 127.0)).astype(np.float32))
        if layer.use_bias:
            layer.bias.assign(np.full(layer.bias.shape, bias, np.float32))
        return (
            f"kernel: integers in [-127, 127] times {wmax:g}/127, one +-127 and zero sum per output "
            f"channel (exact int8 weights); bias {bias:g}"
        )

    return set_weights


def scaled_weights(cls: type, kernel_scale: float, bias_lo: float, bias_hi: float):
    def set_weights(model: keras.Model, rng: np.random.Generator) -> str:
        layer = _layer(model, cls)
        layer.kernel.assign(rng.uniform(-kernel_scale, kernel_scale, layer.kernel.shape).astype(np.float32))
        layer.bias.assign(rng.uniform(bias_lo, bias_hi, layer.bias.shape).astype(np.float32))
        return f"kernel U[-{kernel_scale:g}, {kernel_scale:g}], bias U[{bias_lo:g}, {bias_hi:g}]"

    return set_weights


def prelu_alpha(model: keras.Model, rng: np.random.Generator) -> str:
    layer = _layer(model, L.PReLU)
    layer.alpha.assign(rng.uniform(0.05, 0.5, layer.alpha.shape).astype(np.float32))
    return "alpha U[0.05, 0.5] per channel"


def random_bias(cls: type, lo: float = -0.5, hi: float = 0.5):
    """Keras initialises biases to zero; give them values so the bias path is exercised."""

    def set_weights(model: keras.Model, rng: np.random.Generator) -> str:
        layer = _layer(model, cls)
        layer.bias.assign(rng.uniform(lo, hi, layer.bias.shape).astype(np.float32))
        return f"kernel: Keras' default initializer, seeded; bias U[{lo:g}, {hi:g}]"

    return set_weights
