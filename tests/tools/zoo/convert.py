"""TF's side of one zoo architecture, cached under target/zoo/<arch>/ (gitignored; ResNet50's
float model alone is ~100 MB): the float model and TF's int8 (int8 I/O), int8 with float I/O and
16x8 conversions from the same calibration samples, and LiteRT BUILTIN_REF outputs of each on
the held-out inputs. A cache whose key (seed, data kind, sample counts, TF version) matches is
reused; --force converts again.

Files: meta.json, calib.npy, heldout.npy ([N, 1, ...] float32, or int32 token ids), model_<variant>.tflite,
input_<variant>_0.npy (the held-out inputs quantized for int8 I/O), expected_<variant>_output_<k>.npy
(BUILTIN_REF); weights.weights.h5 (the built model's weights) for architectures whose quantizing
conversions run in child processes (Arch.isolate)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from goldens.frameworks import keras, tf
from goldens.frameworks import Interpreter, tfl_schema
from goldens.litert import op_counts, quantize
from goldens.registry import seed_everything
from goldens.variants import VARIANTS, convert, short_error
from goldens.writer import save_npy
from tensorflow.lite.tools import flatbuffer_utils

from .archs import Arch
from .data import N_BN_STATS, N_CALIB, N_HELDOUT, bn_stats_batch, calib_and_heldout

ZOO_VARIANTS = ("float", "int8", "int8_floatio", "16x8")
CHILD = Path(__file__).resolve().parent / "litert_child.py"
OUTPUTS_VERSION = 2  # how LiteRT's outputs are made (litert_outputs); cached outputs of another are redone


def cache_key(arch: Arch) -> str:
    return f"{arch.description}|{arch.seed}|{arch.data}|{N_CALIB}|{N_HELDOUT}|bn {N_BN_STATS}|tf {tf.__version__}|keras {keras.__version__}"


def plausible_bn(model: keras.Model, x: np.ndarray) -> int:
    """Sets every BatchNormalization's moving mean and variance to the statistics of its input on
    the batch x (one training-mode pass with momentum 0), as a trained net's would be. Fresh
    layers (mean 0, variance 1) let an untrained deep net's activations grow layer after layer
    to logits in the hundreds, where int8 SOFTMAX is refused by LiteRT and by us ("input scale x
    beta too small") and every row would only show that. Weights stay random. Returns the number
    of BatchNormalization layers."""
    bns = [layer for layer in model._flatten_layers() if isinstance(layer, keras.layers.BatchNormalization)]
    saved = [b.momentum for b in bns]
    for b in bns:
        b.momentum = 0.0
    model(x, training=True)
    for b, m in zip(bns, saved):
        b.momentum = m
    return len(bns)


def variant_inputs(blob: bytes, heldout: np.ndarray) -> np.ndarray:
    """The held-out inputs as the model takes them: float, or quantized with the input's scale
    and zero point (TFLite's reference QUANTIZE rounding)."""
    d = Interpreter(model_content=blob).get_input_details()  # no allocation: LiteRT may abort there
    assert len(d) == 1, "zoo architectures have one input"
    dt = np.dtype(d[0]["dtype"])
    if dt == heldout.dtype:  # float, or token ids (int32 in every variant)
        return heldout
    scale, zp = d[0]["quantization"]
    return quantize(heldout, scale, zp, dt)


WEIGHTS = "weights.weights.h5"  # the built model's weights, for conversions in child processes
MAKE_ZOO = Path(__file__).resolve().parent.parent / "make_zoo.py"


def convert_variant(arch: Arch, model, vname: str, calib: np.ndarray) -> bytes:
    names = [t.name for t in model.inputs]
    return convert(model, VARIANTS[vname], [calib], names, arch.converter)


def child_convert(arch: Arch, d: Path, vname: str) -> None:
    """In a child process (make_zoo.py --convert-child): rebuilds `arch`, loads the weights the
    parent saved (so the model is the parent's, batch-norm statistics included) and writes
    model_<vname>.tflite, or refused_<vname>.txt with the converter's refusal."""
    seed_everything(arch.seed)
    model = arch.build()
    model.load_weights(d / WEIGHTS)
    try:
        blob = convert_variant(arch, model, vname, np.load(d / "calib.npy"))
    except Exception as e:  # noqa: BLE001 - the converter's refusal is a finding
        (d / f"refused_{vname}.txt").write_text(short_error(e))
        return
    (d / f"model_{vname}.tflite").write_bytes(blob)


def convert_isolated(arch: Arch, d: Path, vname: str) -> bytes:
    """child_convert in a child process: TF's calibrator can kill the process (SIGSEGV on
    WHILE loops, tensorflow/tensorflow#75140). Raises RuntimeError with the refusal or how the
    process died."""
    for f in (d / f"model_{vname}.tflite", d / f"refused_{vname}.txt"):
        f.unlink(missing_ok=True)
    p = subprocess.run([sys.executable, str(MAKE_ZOO), "--convert-child", vname, "--only", arch.name,
                        "--cache", str(d.parent)], capture_output=True, text=True)
    if p.returncode != 0:
        how = f"signal {-p.returncode}" if p.returncode < 0 else f"exit {p.returncode}"
        if p.returncode in (-11, 139):
            how = "SIGSEGV"
        raise ChildProcessError(f"TF {tf.__version__} converter crashed ({how})")
    refused = d / f"refused_{vname}.txt"
    if refused.is_file():
        raise RuntimeError(refused.read_text())
    return (d / f"model_{vname}.tflite").read_bytes()


def ensure_converted(arch: Arch, cache: Path, force: bool, log) -> dict:
    """The cached conversions of `arch` (converting first when missing or stale); returns meta."""
    d = cache / arch.name
    meta_path = d / "meta.json"
    if not force and meta_path.is_file():
        meta = json.loads(meta_path.read_text())
        if meta.get("key") == cache_key(arch):
            log(f"{arch.name}: cached conversions reused")
            return ensure_outputs(d, meta, log)
    if d.exists():
        shutil.rmtree(d)
    d.mkdir(parents=True)
    seed_everything(arch.seed)
    t0 = time.time()
    model = arch.build()
    n_bn = plausible_bn(model, bn_stats_batch(arch.data, arch.seed))
    calib, heldout = calib_and_heldout(arch.data, arch.seed)
    save_npy(d / "calib.npy", calib)
    save_npy(d / "heldout.npy", heldout)
    if arch.isolate:
        model.save_weights(d / WEIGHTS)
    meta = {
        "key": cache_key(arch),
        "params": int(model.count_params()),
        "batch_norm_layers": n_bn,
        "build_seconds": round(time.time() - t0, 2),
        "variants": {},
    }
    for vname in ZOO_VARIANTS:
        t1 = time.time()
        try:
            if arch.isolate and vname != "float":
                blob = convert_isolated(arch, d, vname)
            else:
                blob = convert_variant(arch, model, vname, calib)
        except ChildProcessError as e:
            meta["variants"][vname] = {"error": str(e), "crashed": True}
            log(f"{arch.name}: {vname}: {e}")
            continue
        except Exception as e:  # noqa: BLE001 - the converter's refusal is a finding
            why = str(e) if arch.isolate and vname != "float" else short_error(e)
            meta["variants"][vname] = {"error": f"TF {tf.__version__} converter refuses: {why}"}
            log(f"{arch.name}: {vname} refused by TF: {why}")
            continue
        entry = {"convert_seconds": round(time.time() - t1, 2), "bytes": len(blob), "op_counts": op_counts(blob)}
        (d / f"model_{vname}.tflite").write_bytes(blob)
        meta["variants"][vname] = entry
        log(f"{arch.name}: {vname} {len(blob) / 1e6:.2f} MB in {entry['convert_seconds']:.1f} s")
    meta_path.write_text(json.dumps(meta, indent=1) + "\n")
    keras.backend.clear_session()
    return ensure_outputs(d, meta, log)


def litert_run(blob: bytes, x: np.ndarray, resolver: str) -> tuple[list[np.ndarray] | None, str | None]:
    """LiteRT's outputs of `blob` on the samples x with `resolver`, run in a child process
    (zoo/litert_child.py): (outputs, None), or (None, LiteRT's reason / how the process died)."""
    with tempfile.TemporaryDirectory() as tmp:
        model, inp = Path(tmp) / "model.tflite", Path(tmp) / "input.npy"
        model.write_bytes(blob)
        save_npy(inp, x)
        p = subprocess.run([sys.executable, str(CHILD), str(model), str(inp), resolver, tmp],
                           capture_output=True, text=True)
        if p.returncode != 0:
            lines = [ln.strip() for ln in p.stderr.splitlines() if ln.strip()]
            why = lines[0][:300] if p.returncode == 2 and lines else (
                f"LiteRT ended the process (exit {p.returncode}): " + " ".join(lines[-3:])[:300])
            return None, why
        outs = sorted(Path(tmp).glob("output_*.npy"), key=lambda f: int(f.stem.split("_")[1]))
        return [np.load(f) for f in outs], None


_MISSING_VERSION = re.compile(r"Didn't find op for builtin opcode '(\w+)' version '(\d+)'")


def lower_op_version(blob: bytes, op: str, version: int) -> bytes:
    """A copy of the model whose `op` operator codes say `version` (only the version field)."""
    m = flatbuffer_utils.convert_bytearray_to_object(bytearray(blob))
    code = getattr(tfl_schema.BuiltinOperator, op)
    for oc in m.operatorCodes:
        if max(oc.builtinCode, oc.deprecatedBuiltinCode) == code:
            oc.version = version
    return bytes(flatbuffer_utils.convert_object_to_bytearray(m))


def litert_outputs(blob: bytes, x: np.ndarray) -> tuple[list[np.ndarray] | None, dict]:
    """LiteRT's outputs on the samples x: BUILTIN_REF, the target. LiteRT 2.3's reference
    resolver registers some operators only up to an older version than TF 2.21 writes (int8
    TILE v3, int8 DEPTH_TO_SPACE v2: "Didn't find op for builtin opcode ..."); then the
    version field of that operator is lowered, in a copy used only for this run, until
    BUILTIN_REF loads it (same kernel, only the registration is per version), and the note says
    so. Failing that, the optimized builtin kernels (BUILTIN_WITHOUT_DEFAULT_DELEGATES) stand in.
    (None, note) when nothing runs the model."""
    outs, err = litert_run(blob, x, "reference")
    if outs is not None:
        return outs, {"resolver": "reference"}
    note: dict = {"reference_error": err}
    lowered, edited = {}, blob
    while err and (m := _MISSING_VERSION.search(err)) and int(m.group(2)) > 1:
        op, v = m.group(1), int(m.group(2)) - 1
        lowered[op] = v
        edited = lower_op_version(edited, op, v)
        outs, err = litert_run(edited, x, "reference")
        if outs is not None:
            return outs, {**note, "resolver": "reference", "lowered_versions": lowered}
    note["resolver"] = "optimized"
    outs, err = litert_run(blob, x, "optimized")
    if outs is None:
        note["optimized_error"] = err
    return outs, note


def ensure_outputs(d: Path, meta: dict, log) -> dict:
    """LiteRT's outputs of every cached model on the held-out inputs (computed once; the model
    files are TF's, so the outputs follow them)."""
    if meta.get("outputs_version") == OUTPUTS_VERSION:
        return meta
    heldout = np.load(d / "heldout.npy")
    for vname, entry in meta["variants"].items():
        if "error" in entry:
            continue
        blob = (d / f"model_{vname}.tflite").read_bytes()
        x = variant_inputs(blob, heldout)
        if x is not heldout:
            save_npy(d / f"input_{vname}_0.npy", x)
        outs, note = litert_outputs(blob, x)
        entry.update(note)
        entry.pop("litert_error", None)
        entry["outputs"] = len(outs or [])
        for k, y in enumerate(outs or []):
            save_npy(d / f"expected_{vname}_output_{k}.npy", y)
        if "reference_error" in note:
            how = (f"ran with operator versions lowered to {note['lowered_versions']}" if "lowered_versions" in note
                   else "optimized kernels used" if outs is not None else "nor can the optimized kernels")
            log(f"  LiteRT BUILTIN_REF cannot run TF's {vname} ({note['reference_error']}); {how}")
    meta["outputs_version"] = OUTPUTS_VERSION
    (d / "meta.json").write_text(json.dumps(meta, indent=1) + "\n")
    return meta
