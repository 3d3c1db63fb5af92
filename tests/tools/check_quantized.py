#!/usr/bin/env python3
"""LiteRT check of the models our quantizer wrote (`cargo test --test quantizer`).

For every `target/quantized/<case>_<variant>.tflite` (variant: int8, int8_floatio, 16x8,
dynamic, fp16, quantized with the ranges TF's calibrator recorded) this script

  * loads it in LiteRT with the reference kernels (OpResolverType.BUILTIN_REF, or the resolver
    the case's `expected_resolver` names for an op BUILTIN_REF lacks),
  * runs every test sample of the case (the inputs TF's model of that variant takes,
    `[[variant]] inputs` in case.toml; one invocation per sample),
  * writes each output next to the model as `<model>.litert_out_<k>.npy` (first axis = samples),
    so that our engine can be compared with LiteRT on our own models later,
  * and requires the outputs to equal, bit for bit, what LiteRT computed on TF's model of the
    same variant (`expected_outputs` in case.toml): the quantizer test already requires the same
    parameters, weights and operators, so any difference is a real divergence.

Models in `target/quantized/ours/` were quantized with our own calibration of `calib.npy`
(their ranges can differ from TF's in the last bits, see the quantizer test), and those in
`target/quantized/mixed/` have some operators int16 and the others int8 (`--int16-ops`, a model
no TF tool makes), and those in `target/quantized/auto/` were written by `quantize --auto`
(`crate/tests/cli_auto.rs`: ranges and biases chosen beyond TF), so none of these is compared
with TF's models; they must load and run in LiteRT.

Models in `target/quantized/realworld/` are our quantization of the dynamic-batch models of
tests/realworld (written by `cargo test --test realworld`), run on that folder's `input_0.npy`,
and our int8 quantization of its streaming models (`cargo test --test streaming`), whose frames
run in order on one interpreter (state carried, as `zeropoint run` does by default): every frame
must equal LiteRT on TF's int8 model (`expected_int8_output_<k>.npy`).

With `--zeropoint BIN`, every model (all folders) is also run by our engine (`BIN run`) on the
same inputs, and its outputs must be bit-identical to LiteRT's reference kernels.

A model whose first input has a dynamic batch (`shape_signature` -1 on dim 0) must keep it
usable: LiteRT resizes every such input to batch 2 (`resize_tensor_input(strict=True)`) and runs
two rows (the first sample and its negation); with `--zeropoint`, our engine runs the same rows
with `--batch 2` and must give the same bits.

One line per model, then `N passed, M failed`. Exit status 1 if anything failed or no model was
found (run `cargo test -p zeropoint-tests --test quantizer` first).

Usage:
    python tests/tools/check_quantized.py [--dir target/quantized] [--only PART[,PART…]]

`--only` (default: the ZP_CASE environment variable, as for the Rust tests) keeps the models
whose case name contains one of the parts.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402
from ai_edge_litert.interpreter import Interpreter, OpResolverType  # noqa: E402

import case_filter  # noqa: E402
from golden_resolver import resolver_name  # noqa: E402
from per_op import reference_defect_ops  # noqa: E402
from mutation.outcome import within_one_ulp  # noqa: E402

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
GOLDEN = REPO / "tests" / "golden"
REALWORLD = REPO / "tests" / "realworld"
DYNAMIC_BATCH = 2
VARIANTS = ("int8_floatio", "int8", "16x8", "dynamic", "fp16")


@contextlib.contextmanager
def quiet_fds():
    """Silence native stdout/stderr chatter from LiteRT while loading/running."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved = os.dup(1), os.dup(2)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    try:
        yield
    finally:
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        for fd in (*saved, devnull):
            os.close(fd)


def split_name(model: Path) -> tuple[str, str] | None:
    """`<case>_<variant>.tflite` → (case, variant)."""
    stem = model.name.removesuffix(".tflite")
    for v in VARIANTS:
        if stem.endswith("_" + v):
            return stem[: -len(v) - 1], v
    return None


def variant_table(case: str, variant: str) -> dict | None:
    toml = GOLDEN / case / "case.toml"
    if not toml.is_file():
        return None
    data = tomllib.loads(toml.read_text())
    for v in data.get("variant", []):
        if v.get("name") == variant:
            return v
    return None


def run(model: Path, inputs: list[np.ndarray], resolver: str = "BUILTIN_REF") -> list[np.ndarray]:
    with quiet_fds():
        interp = Interpreter(
            model_path=str(model),
            experimental_op_resolver_type=getattr(OpResolverType, resolver),
        )
        interp.allocate_tensors()
    ins, outs = interp.get_input_details(), interp.get_output_details()
    if len(ins) != len(inputs):
        raise RuntimeError(f"{len(ins)} model inputs, {len(inputs)} input files")
    samples = inputs[0].shape[0]
    results: list[list[np.ndarray]] = [[] for _ in outs]
    for s in range(samples):
        for d, a in zip(ins, inputs):
            x = a[s]
            if x.dtype != d["dtype"] or tuple(x.shape) != tuple(d["shape"]):
                raise RuntimeError(
                    f"input '{d['name']}': model wants {d['dtype'].__name__} {list(d['shape'])}, "
                    f"file has {x.dtype} {list(x.shape)}"
                )
            interp.set_tensor(d["index"], x)
        with quiet_fds():
            interp.invoke()
        for k, d in enumerate(outs):
            results[k].append(interp.get_tensor(d["index"]).copy())
    return [np.stack(r) for r in results]


def engine_matches(
    zeropoint: Path,
    model: Path,
    inputs: list[Path],
    litert: list[np.ndarray],
    extra: list[str] | None = None,
    ulp: bool = False,
    resolver: str = "BUILTIN_REF",
) -> None:
    """Runs our engine on the same inputs (`extra`: more `zeropoint run` options); outputs must
    equal LiteRT's bit for bit (`ulp`: float32 outputs to one unit in the last place)."""
    with tempfile.TemporaryDirectory() as out:
        cmd = [str(zeropoint), "run", str(model), "--out-dir", out, *(extra or [])]
        for f in inputs:
            cmd += ["--input", str(f)]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError(f"zeropoint run failed: {r.stderr.strip()}")
        for k, e in enumerate(litert):
            o = np.load(Path(out) / f"output_{k}.npy")
            if o.dtype != e.dtype or o.shape != e.shape:
                raise RuntimeError(f"engine output {k}: {o.dtype} {o.shape} vs LiteRT {e.dtype} {e.shape}")
            if o.view(np.uint8).tobytes() != e.view(np.uint8).tobytes() and not (ulp and within_one_ulp(o, e)):
                n = int(np.count_nonzero(o != e))
                raise RuntimeError(f"engine output {k}: {n} element(s) differ from LiteRT {resolver}")


def dynamic_batch(model: Path, inputs: list[np.ndarray], zeropoint: Path | None, resolver: str = "BUILTIN_REF") -> str:
    """For a model with a dynamic batch: LiteRT resized to batch DYNAMIC_BATCH (strict) runs rows
    (sample 0, -sample 0), and our engine with `--batch` gives the same bits. "" otherwise."""
    with quiet_fds():
        interp = Interpreter(model_path=str(model), experimental_op_resolver_type=getattr(OpResolverType, resolver))
    ins = interp.get_input_details()
    dynamic = [len(d["shape_signature"]) > 0 and d["shape_signature"][0] == -1 for d in ins]
    if not any(dynamic):
        return ""
    rows = []
    for d, a, dyn in zip(ins, inputs, dynamic):
        x = a[0]
        if not dyn:
            rows.append(x)
            continue
        if not np.issubdtype(x.dtype, np.floating):
            raise RuntimeError("dynamic-batch check needs float inputs")
        rows.append(np.concatenate([x, -x] * DYNAMIC_BATCH, axis=0)[:DYNAMIC_BATCH].astype(x.dtype))
        interp.resize_tensor_input(d["index"], [DYNAMIC_BATCH, *d["shape"][1:]], strict=True)
    with quiet_fds():
        interp.allocate_tensors()
    for d, x in zip(ins, rows):
        interp.set_tensor(d["index"], x)
    with quiet_fds():
        interp.invoke()
    outs = [interp.get_tensor(d["index"]).copy()[None, ...] for d in interp.get_output_details()]
    msg = f"; batch {DYNAMIC_BATCH} runs in LiteRT"
    if zeropoint is not None:
        with tempfile.TemporaryDirectory() as tmp:
            files = []
            for k, x in enumerate(rows):
                f = Path(tmp) / f"batch_input_{k}.npy"
                np.save(f, x)
                files.append(f)
            engine_matches(zeropoint, model, files, outs, ["--batch", str(DYNAMIC_BATCH)], resolver=resolver)
        msg += " and our engine --batch gives its bits"
    return msg


def same_as_tf_streaming(case: str, outputs: list[np.ndarray]) -> str:
    """A streaming model of tests/realworld (its frames run in order on one interpreter, state
    carried): our int8 model's LiteRT outputs must equal, frame by frame, those of TF's int8 model
    (`expected_int8_output_<k>.npy`). "" for the other realworld models."""
    expected = sorted((REALWORLD / case).glob("expected_int8_output_*.npy"))
    if not expected:
        return ""
    if len(expected) != len(outputs):
        raise RuntimeError(f"{len(outputs)} outputs, TF's int8 model has {len(expected)}")
    for k, o in enumerate(outputs):
        e = np.load(REALWORLD / case / f"expected_int8_output_{k}.npy")
        if o.shape != e.shape or o.view(np.uint8).tobytes() != e.view(np.uint8).tobytes():
            raise RuntimeError(f"output {k} differs, frame by frame, from LiteRT on TF's int8 model")
    return "; every frame (state carried) identical to TF's int8 model"


def check(model: Path, zeropoint: Path | None, ours: bool) -> str:
    parsed = split_name(model)
    if parsed is None:
        raise RuntimeError("name is not <case>_<variant>.tflite")
    case, variant = parsed
    if model.parent.name == "realworld":
        input_files = [REALWORLD / case / "input_0.npy"]
    else:
        table = variant_table(case, variant)
        if table is None:
            raise RuntimeError(f"no variant '{variant}' in tests/golden/{case}/case.toml")
        input_files = [GOLDEN / case / f for f in table["inputs"]]
    inputs = [np.load(f) for f in input_files]
    resolver = resolver_name(GOLDEN / case) if model.parent.name != "realworld" else "BUILTIN_REF"
    # A realworld model (several subgraphs: no op-by-op golden) holding an operator BUILTIN_REF
    # computes wrongly on its integer inputs (golden_resolver.REFERENCE_DEFECTS; e.g. a same-scale
    # int16 SUM, whose output BUILTIN_REF fills only partly, so it changes from run to run) runs
    # whole on the optimized kernels, float outputs to 1 ulp, as the mixed/auto models do.
    defects = reference_defect_ops(model.read_bytes()) if model.parent.name == "realworld" else []
    if defects:
        resolver = "BUILTIN_WITHOUT_DEFAULT_DELEGATES"
    outputs = run(model, inputs, resolver)
    for k, o in enumerate(outputs):
        np.save(f"{model}.litert_out_{k}.npy", o)
    engine = ""
    # A case whose op BUILTIN_REF lacks (golden_resolver.py) loads whole only in `resolver`, whose
    # own DEQUANTIZE / QUANTIZE arithmetic differs from BUILTIN_REF's; its reference result is the
    # case's op-by-op golden of TF's model (expected_outputs), which our model must equal as the
    # quantizer test requires it to equal TF's (with our calibration too: 100 % of tensors).
    per_op = resolver != "BUILTIN_REF"
    if zeropoint is not None:
        if defects:
            engine_matches(zeropoint, model, input_files, outputs, ulp=True, resolver=resolver)
            engine = f"; our engine identical to LiteRT {resolver} (float outputs to 1 ulp; BUILTIN_REF is wrong on {', '.join(defects)})"
        elif per_op and model.parent.name in ("mixed", "auto"):
            # Our model differs from TF's here, so there is no op-by-op golden of it: LiteRT's
            # whole-model run in `resolver`, float outputs to 1 ulp (that resolver's DEQUANTIZE
            # multiplies in float, the reference one, which the engine follows, in double).
            engine_matches(zeropoint, model, input_files, outputs, ulp=True, resolver=resolver)
            engine = f"; our engine identical to LiteRT {resolver} (float outputs to 1 ulp)"
        elif per_op:
            golden = [np.load(GOLDEN / case / f) for f in table["expected_outputs"]]
            engine_matches(zeropoint, model, input_files, golden)
            engine = f"; our engine identical to LiteRT run op by op (BUILTIN_REF, else {resolver})"
        else:
            engine_matches(zeropoint, model, input_files, outputs)
            engine = "; our engine identical to LiteRT"
    engine += dynamic_batch(model, inputs, zeropoint, resolver)
    if model.parent.name == "realworld" and variant == "int8_floatio":
        engine += same_as_tf_streaming(case, outputs)
    if ours:
        return f"{len(outputs)} output(s) x {inputs[0].shape[0]} sample(s) from LiteRT{engine}"
    # Same resolver on both models: LiteRT on TF's model of the variant.
    key = "expected_optimized_outputs" if per_op else "expected_outputs"
    expected = [np.load(GOLDEN / case / f) for f in table.get(key, [])]
    if len(expected) != len(outputs):
        raise RuntimeError(f"{len(outputs)} outputs, TF's model has {len(expected)}")
    for k, (o, e) in enumerate(zip(outputs, expected)):
        if o.dtype != e.dtype or o.shape != e.shape:
            raise RuntimeError(f"output {k}: {o.dtype} {o.shape} vs TF's {e.dtype} {e.shape}")
        same = o.view(np.uint8).tobytes() == e.view(np.uint8).tobytes()
        if not same:
            if np.issubdtype(o.dtype, np.integer):
                d = int(np.max(np.abs(o.astype(np.int64) - e.astype(np.int64))))
            else:
                d = float(np.max(np.abs(o.astype(np.float64) - e.astype(np.float64))))
            raise RuntimeError(f"output {k} differs from LiteRT on TF's model (max |diff| {d})")
    return f"{len(outputs)} output(s) x {inputs[0].shape[0]} sample(s) identical to TF's model{engine}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dir", type=Path, default=REPO / "target" / "quantized")
    ap.add_argument("--zeropoint", type=Path, help="our CLI: also compare our engine with LiteRT")
    case_filter.add_argument(ap)
    args = ap.parse_args()
    models = sorted(args.dir.glob("*.tflite")) if args.dir.is_dir() else []
    ours = [
        m
        for sub in ("ours", "mixed", "auto", "realworld")
        if (args.dir / sub).is_dir()
        for m in sorted((args.dir / sub).glob("*.tflite"))
    ]
    if not models and not ours:
        print(
            f"FAILED: no quantized model in {args.dir} "
            "(run `cargo test -p zeropoint-tests --test quantizer` first)"
        )
        return 1
    selected = case_filter.select(
        [*models, *ours], lambda m: (split_name(m) or (m.stem, ""))[0], args.only, "quantized models"
    )
    if selected is None:
        return 1
    passed = failed = 0
    for m in selected:
        label = m.name if m.parent == args.dir else f"{m.parent.name}/{m.name}"
        try:
            msg = check(m, args.zeropoint, m.parent != args.dir)
            print(f"ok    {label}: {msg}")
            passed += 1
        except Exception as e:  # noqa: BLE001 - one line per model, whatever went wrong
            print(f"FAIL  {label}: {e}")
            failed += 1
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 and passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
