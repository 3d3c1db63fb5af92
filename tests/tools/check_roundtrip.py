#!/usr/bin/env python3
"""Cross-tool round-trip check: `zeropoint rewrite` must be lossless for LiteRT.

For every *.tflite under tests/golden/ and www/assets/ and for two variants

    rewrite            zeropoint rewrite MODEL -o OUT
    external-buffers   zeropoint rewrite MODEL -o OUT --external-buffers

it loads the original and the rewritten model with LiteRT's reference kernels
(OpResolverType.BUILTIN_REF, or the resolver the case's `expected_resolver` names), feeds both the same inputs (the case's
input_*.npy where present, otherwise seeded random data) and requires:

  * identical input/output details (name, shape, shape_signature, dtype,
    quantization parameters) and identical signature lists,
  * bit-identical values for every output tensor,
  * identical `zeropoint inspect MODEL --json` text (and valid JSON),
  * the same description, metadata entries (name and buffer bytes) and metadata_buffer contents.

tests/real/ holds files real tools wrote (MediaPipe's wheel, AI Edge Quantizer; see
tests/tools/make_real_models.py); where its manifest says LiteRT refuses one, both the original
and the rewrite must be refused with the same message. Each of these files is also run by us
(variant `run`): `zeropoint run` with both kernel sets must give LiteRT BUILTIN_REF's outputs bit
for bit on seeded random inputs, and must refuse to run the files LiteRT refuses.

One line per model per variant, then `N passed, M failed`. Exit status 1 if
anything failed or nothing was checked. Needs only ai-edge-litert and numpy
(see requirements-check.txt).

Usage:
    python tests/tools/check_roundtrip.py --zeropoint PATH [--out-dir DIR] [--only PART[,PART…]]

`--only` (default: the ZP_CASE environment variable, as for the Rust tests) keeps the models
whose case name (folder under tests/golden/ or tests/realworld/, else the file name: tests/real/
files by their stem, e.g. `aeq`) contains one
of the parts.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import multiprocessing
import os
import shutil
import subprocess
import sys
import tempfile
import traceback
import zlib
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

try:
    import tomllib
except ImportError:  # Python < 3.11: fall back to file-name matching of inputs
    tomllib = None

import numpy as np  # noqa: E402
from ai_edge_litert.interpreter import Interpreter, OpResolverType  # noqa: E402

import case_filter  # noqa: E402
from golden_resolver import resolver_name  # noqa: E402
from tflite_meta import MetaError, metadata_of  # noqa: E402

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
MODEL_ROOTS = (REPO / "tests" / "golden", REPO / "tests" / "realworld", REPO / "tests" / "real", REPO / "www" / "assets")
# Real-world-shaped files LiteRT itself refuses (e.g. an unregistered custom op), by
# tests/realworld/manifest.json: for those the rewrite must be refused with the same message.
REALWORLD_MANIFEST = REPO / "tests" / "realworld" / "manifest.json"
# Files real tools wrote (tests/tools/make_real_models.py), by file name, with the same fields.
REAL_MANIFEST = REPO / "tests" / "real" / "manifest.json"
VARIANTS = (("rewrite", ()), ("external-buffers", ("--external-buffers",)))
COMMAND_TIMEOUT_S = 120
COMPARE_TIMEOUT_S = 300
RANDOM_SAMPLES = 2


class CheckFailure(Exception):
    """A check failed; the message is the one-line reason."""


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


def find_models() -> list[Path]:
    models: list[Path] = []
    for root in MODEL_ROOTS:
        if root.is_dir():
            models.extend(p for p in root.rglob("*.tflite") if p.is_file())
    return sorted(set(models))


def case_of(model: Path) -> str:
    """The case a model belongs to: its folder under a model root, else its file name."""
    for root in MODEL_ROOTS:
        if model.is_relative_to(root):
            parts = model.relative_to(root).parts
            return parts[0] if len(parts) > 1 else model.stem
    return model.stem


def rel(path: Path) -> str:
    try:
        return path.relative_to(REPO).as_posix()
    except ValueError:
        return str(path)


def last_line(text: bytes) -> str:
    lines = [ln.strip() for ln in text.decode(errors="replace").splitlines() if ln.strip()]
    return lines[-1][:300] if lines else "(no output)"


def run_cli(argv: list[str]) -> bytes:
    label = " ".join(["zeropoint", argv[1], *(a for a in argv[2:] if a.startswith("--"))])
    try:
        proc = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, timeout=COMMAND_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        raise CheckFailure(f"`{label}` timed out after {COMMAND_TIMEOUT_S} s") from None
    except OSError as e:
        raise CheckFailure(f"cannot run {argv[0]}: {e.strerror or e}") from None
    if proc.returncode != 0:
        raise CheckFailure(f"`{label}` exited with {proc.returncode}: {last_line(proc.stderr or proc.stdout)}")
    return proc.stdout


# ---------------------------------------------------------------------------
# Inputs
# ---------------------------------------------------------------------------


def _fit(arr: np.ndarray, detail: dict) -> np.ndarray | None:
    """Samples stacked on axis 0 -> list of tensors of the model's shape, or None."""
    shape = tuple(int(s) for s in detail["shape"])
    if arr.dtype != np.dtype(detail["dtype"]) or arr.ndim == 0:
        return None
    if arr.shape[1:] == shape:
        return arr
    size = int(np.prod(shape))
    if arr[0].size == size:  # e.g. stored without the batch-1 dim
        return arr.reshape((arr.shape[0], *shape))
    return None


def case_inputs(model: Path, details: list[dict]) -> list[np.ndarray] | None:
    """The case's inputs for this model (case.toml mapping first, then by name/dtype)."""
    case_dir = model.parent
    toml_path = case_dir / "case.toml"
    if tomllib is not None and toml_path.is_file():
        with open(toml_path, "rb") as f:
            meta = tomllib.load(f)
        for v in meta.get("variant", []):
            if v.get("model") == model.name and v.get("inputs"):
                arrays = [np.load(case_dir / name, allow_pickle=False) for name in v["inputs"]]
                if len(arrays) != len(details):
                    raise CheckFailure(f"case.toml lists {len(arrays)} inputs, model has {len(details)}")
                fitted = [_fit(a, d) for a, d in zip(arrays, details)]
                for name, a, d in zip(v["inputs"], fitted, details):
                    if a is None:
                        raise CheckFailure(f"{name} does not match input {d['name']} ({d['dtype'].__name__}{list(d['shape'])})")
                return fitted
    fitted = []
    for k, d in enumerate(details):
        candidates = sorted(case_dir.glob(f"input_{k}.npy")) + sorted(case_dir.glob(f"input_*_{k}.npy"))
        match = None
        for c in candidates:
            match = _fit(np.load(c, allow_pickle=False), d)
            if match is not None:
                break
        if match is None:
            return None
        fitted.append(match)
    return fitted if fitted else None


def random_inputs(model: Path, details: list[dict]) -> list[np.ndarray]:
    seed = zlib.crc32(rel(model).encode())
    rng = np.random.default_rng(seed)
    out = []
    for d in details:
        shape = (RANDOM_SAMPLES, *(int(s) for s in d["shape"]))
        dt = np.dtype(d["dtype"])
        if dt.kind == "f":
            a = rng.uniform(-1.0, 1.0, shape).astype(dt)
        elif dt == np.bool_:
            a = rng.integers(0, 2, shape).astype(np.bool_)
        elif dt in (np.int8, np.uint8, np.int16, np.uint16):
            info = np.iinfo(dt)
            a = rng.integers(info.min, int(info.max) + 1, shape).astype(dt)
        elif dt.kind in "iu":
            a = rng.integers(0, 8, shape).astype(dt)  # small: plausible indices/sizes
        else:
            raise CheckFailure(f"no random generator for input dtype {dt}")
        out.append(a)
    return out


# ---------------------------------------------------------------------------
# LiteRT comparison
# ---------------------------------------------------------------------------


def load(path: Path, resolver: str = "BUILTIN_REF") -> Interpreter:
    """The model in LiteRT with the named op resolver (BUILTIN_REF unless the case's goldens
    come from another, see golden_resolver.py)."""
    try:
        with quiet_fds():
            it = Interpreter(
                model_path=str(path),
                experimental_op_resolver_type=getattr(OpResolverType, resolver),
                num_threads=1,
            )
            it.allocate_tensors()
    except Exception as e:  # noqa: BLE001 - any load error is a failure reason
        raise CheckFailure(f"LiteRT cannot load {path.name}: {str(e).strip().splitlines()[-1] if str(e).strip() else type(e).__name__}") from None
    return it


def describe(details: list[dict]) -> list[dict]:
    out = []
    for d in details:
        qp = d.get("quantization_parameters", {})
        out.append(
            {
                "name": d["name"],
                "shape": [int(s) for s in d["shape"]],
                "shape_signature": [int(s) for s in d.get("shape_signature", d["shape"])],
                "dtype": np.dtype(d["dtype"]).name,
                "quantization": [float(d["quantization"][0]).hex(), int(d["quantization"][1])],
                "scales": [float(s).hex() for s in qp.get("scales", [])],
                "zero_points": [int(z) for z in qp.get("zero_points", [])],
                "quantized_dimension": int(qp.get("quantized_dimension", 0)),
            }
        )
    return out


def diff_details(kind: str, a: list[dict], b: list[dict]) -> None:
    if len(a) != len(b):
        raise CheckFailure(f"{kind} count differs: {len(a)} vs {len(b)}")
    for k, (x, y) in enumerate(zip(a, b)):
        for key in x:
            if x[key] != y[key]:
                raise CheckFailure(f"{kind} {k} ({x['name']}) {key} differs: {x[key]} vs {y[key]}")


def invoke_all(it: Interpreter, inputs: list[np.ndarray]) -> list[list[np.ndarray]]:
    ins, outs = it.get_input_details(), it.get_output_details()
    results = []
    with quiet_fds():
        for i in range(inputs[0].shape[0] if inputs else 1):
            for d, arr in zip(ins, inputs):
                it.set_tensor(d["index"], np.ascontiguousarray(arr[i]))
            it.invoke()
            results.append([it.get_tensor(d["index"]).copy() for d in outs])
    return results


def litert_refuses(model: Path) -> str | None:
    """The load error LiteRT gives for a real-world model the manifest says it cannot run."""
    entry = None
    if REAL_MANIFEST.is_file() and model.resolve().parent == REAL_MANIFEST.parent:
        entry = json.loads(REAL_MANIFEST.read_text()).get("files", {}).get(model.name)
    elif REALWORLD_MANIFEST.is_file():
        try:
            key = model.resolve().parent.relative_to(REALWORLD_MANIFEST.parent).as_posix()
        except ValueError:
            return None
        entry = json.loads(REALWORLD_MANIFEST.read_text()).get("models", {}).get(key)
    if entry is None or entry.get("litert_runs", True):
        return None
    return entry.get("litert_error") or "?"


def int4_variant(model: Path) -> dict | None:
    """A variant of tests/realworld/int4_weights (model_<variant>.tflite): its manifest entry
    (`litert_runs`, `litert_error`, `litert_undefined`), or None for any other file."""
    if not REALWORLD_MANIFEST.is_file() or not model.name.startswith("model_"):
        return None
    try:
        key = model.resolve().parent.relative_to(REALWORLD_MANIFEST.parent).as_posix()
    except ValueError:
        return None
    entry = json.loads(REALWORLD_MANIFEST.read_text()).get("models", {}).get(key) or {}
    return (entry.get("int4_variants") or {}).get(model.stem[len("model_"):])


def _load_and_invoke(path: Path, resolver: str) -> str | None:
    """The error LiteRT gives loading or running `path` on zero inputs, or None."""
    try:
        it = load(path, resolver)
        with quiet_fds():
            it.invoke()
        return None
    except CheckFailure as e:
        return str(e).split(": ", 1)[-1]
    except RuntimeError as e:
        return str(e).strip().splitlines()[0] if str(e).strip() else "RuntimeError"


def fast_nms_options(model: Path) -> dict | None:
    """The options of a real-world TFLite_Detection_PostProcess op case with fast NMS, whose
    output slots past its detections LiteRT leaves unwritten (whatever the arena held)."""
    if not REALWORLD_MANIFEST.is_file():
        return None
    try:
        key = model.resolve().parent.relative_to(REALWORLD_MANIFEST.parent).as_posix()
    except ValueError:
        return None
    entry = json.loads(REALWORLD_MANIFEST.read_text()).get("models", {}).get(key) or {}
    opts = entry.get("detection_options")
    return opts if opts and not opts.get("use_regular_nms") else None


def mask_unwritten(opts: dict, outs: list[np.ndarray]) -> list[np.ndarray]:
    """Outputs (boxes, classes, scores, num) with the slots fast NMS does not write zeroed."""
    per = int(opts["max_classes_per_detection"])
    cols = min(per, int(opts["num_classes"]))
    num = int(outs[3].reshape(-1)[0])
    slots = outs[1].size
    keep = np.array([s // per < num and s % per < cols for s in range(slots)])
    boxes = np.where(keep[:, None], outs[0].reshape(slots, 4), 0).reshape(outs[0].shape)
    return [boxes.astype(outs[0].dtype)] + [
        np.where(keep, o.reshape(-1), 0).reshape(o.shape).astype(o.dtype) for o in outs[1:3]
    ] + outs[3:]


def compare_models(original: Path, rewritten: Path) -> str:
    """Raises CheckFailure on any difference; returns a short note on the inputs used."""
    refused = litert_refuses(original)
    resolver = resolver_name(original.parent)
    if refused is not None:
        errors = []
        for path in (original, rewritten):
            try:
                load(path, resolver)
                errors.append(None)
            except CheckFailure as e:
                errors.append(str(e).split(": ", 1)[-1])
        if errors[0] is None or errors[0] != errors[1]:
            raise CheckFailure(f"LiteRT should refuse both identically ({refused!r}): {errors}")
        return f"LiteRT refuses both: {errors[0]}"
    int4 = int4_variant(original)
    if int4 is not None and not int4["litert_runs"]:
        # Refused when it runs (hybrid DEPTHWISE_CONV_2D) or loads (TRANSPOSE_CONV): the same
        # error for both files.
        errors = [_load_and_invoke(p, resolver) for p in (original, rewritten)]
        if errors[0] is None or errors[0] != errors[1]:
            raise CheckFailure(f"LiteRT should refuse both identically ({int4['litert_error']!r}): {errors}")
        return f"LiteRT refuses both: {errors[0]}"
    a, b = load(original, resolver), load(rewritten, resolver)
    ia, ib = a.get_input_details(), b.get_input_details()
    oa, ob = a.get_output_details(), b.get_output_details()
    diff_details("input", describe(ia), describe(ib))
    diff_details("output", describe(oa), describe(ob))
    if a.get_signature_list() != b.get_signature_list():
        raise CheckFailure(f"signatures differ: {a.get_signature_list()} vs {b.get_signature_list()}")
    if int4 is not None and int4.get("litert_undefined"):
        # LiteRT reads past the packed buffer's end: its outputs depend on the bytes after it.
        return f"I/O details only (LiteRT's result is undefined: {int4['litert_undefined'][:60]}…)"

    inputs = case_inputs(original, ia)
    note = "case inputs"
    if inputs is None:
        inputs = random_inputs(original, ia)
        note = "random inputs"
    ra, rb = invoke_all(a, inputs), invoke_all(b, inputs)
    fast = fast_nms_options(original)
    if fast is not None:
        ra = [mask_unwritten(fast, s) for s in ra]
        rb = [mask_unwritten(fast, s) for s in rb]
        note += " (unwritten fast-NMS slots ignored)"
    for i, (sa, sb) in enumerate(zip(ra, rb)):
        for k, (x, y) in enumerate(zip(sa, sb)):
            name = oa[k]["name"]
            if x.dtype != y.dtype or x.shape != y.shape:
                raise CheckFailure(f"output {k} ({name}) sample {i}: {x.dtype}{list(x.shape)} vs {y.dtype}{list(y.shape)}")
            if x.tobytes() != y.tobytes():
                n = int(np.count_nonzero(x.view(np.uint8).reshape(-1) != y.view(np.uint8).reshape(-1)))
                with np.errstate(all="ignore"):
                    md = float(np.nanmax(np.abs(x.astype(np.float64) - y.astype(np.float64))))
                raise CheckFailure(f"output {k} ({name}) sample {i} not bit-identical ({n} bytes differ, max |diff| {md:g})")
    return note


def check_run(zeropoint: str, model: Path, work: Path) -> None:
    """A tests/real file run by us: both kernel sets equal LiteRT BUILTIN_REF bit for bit on
    seeded random inputs; a file LiteRT refuses must be refused (`zeropoint run` fails)."""
    work.mkdir(parents=True, exist_ok=True)
    with quiet_fds():
        probe = Interpreter(model_path=str(model))
    details = probe.get_input_details()
    inputs = random_inputs(model, details)
    args = []
    for k, arr in enumerate(inputs):
        np.save(work / f"input_{k}.npy", arr)
        args += ["--input", str(work / f"input_{k}.npy")]
    refused = litert_refuses(model)
    if refused is not None:
        try:
            run_cli([zeropoint, "run", str(model), *args, "--out-dir", str(work / "out")])
        except CheckFailure:
            return
        raise CheckFailure(f"LiteRT refuses it ({refused}), we ran it")
    it = load(model)
    want = invoke_all(it, inputs)
    outs = it.get_output_details()
    for kernels in ("reference", "fast"):
        out = work / kernels
        run_cli([zeropoint, "run", str(model), *args, "--out-dir", str(out), "--kernels", kernels])
        for k, d in enumerate(outs):
            got = np.load(out / f"output_{k}.npy", allow_pickle=False)
            for i, sample in enumerate(want):
                x, y = sample[k], got[i].reshape(sample[k].shape) if got[i].size == sample[k].size else got[i]
                if x.dtype != y.dtype or x.shape != y.shape or x.tobytes() != y.tobytes():
                    with np.errstate(all="ignore"):
                        md = float(np.nanmax(np.abs(x.astype(np.float64) - y.astype(np.float64)))) if x.shape == y.shape else float("nan")
                    raise CheckFailure(f"{kernels} kernels: output {k} ({d['name']}) sample {i} differs from LiteRT "
                                       f"({x.dtype}{list(x.shape)} vs {y.dtype}{list(y.shape)}, max |diff| {md:g})")


def _compare_worker(conn, original: str, rewritten: str) -> None:
    try:
        conn.send(("ok", compare_models(Path(original), Path(rewritten))))
    except CheckFailure as e:
        conn.send(("fail", str(e)))
    except Exception:  # noqa: BLE001
        conn.send(("fail", "checker error: " + traceback.format_exc().strip().splitlines()[-1]))
    finally:
        conn.close()


def compare_isolated(original: Path, rewritten: Path) -> str:
    """Run compare_models in a forked child so a LiteRT crash on a malformed
    rewrite is reported as a failure instead of killing the checker."""
    ctx = multiprocessing.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_compare_worker, args=(child, str(original), str(rewritten)))
    proc.start()
    child.close()
    result = None
    if parent.poll(COMPARE_TIMEOUT_S):
        try:
            result = parent.recv()
        except EOFError:
            result = None
    proc.join(5)
    if proc.is_alive():
        proc.kill()
        proc.join()
        raise CheckFailure(f"LiteRT comparison timed out after {COMPARE_TIMEOUT_S} s")
    if result is None:
        code = proc.exitcode
        why = f"signal {-code}" if code is not None and code < 0 else f"exit {code}"
        raise CheckFailure(f"LiteRT crashed while loading/running the models ({why})")
    status, msg = result
    if status != "ok":
        raise CheckFailure(msg)
    return msg


# ---------------------------------------------------------------------------
# Driver
# ---------------------------------------------------------------------------


def check_one(zeropoint: str, model: Path, flags: tuple[str, ...], out: Path) -> None:
    before = hashlib.sha256(model.read_bytes()).digest()
    out.parent.mkdir(parents=True, exist_ok=True)
    if out.exists():
        out.unlink()
    run_cli([zeropoint, "rewrite", str(model), "-o", str(out), *flags])
    if hashlib.sha256(model.read_bytes()).digest() != before:
        raise CheckFailure("rewrite modified the input model")
    if not out.is_file() or out.stat().st_size == 0:
        raise CheckFailure("rewrite did not write the output file")

    compare_isolated(model, out)

    try:
        meta = [metadata_of(path.read_bytes()) for path in (model, out)]
    except MetaError as e:
        raise CheckFailure(f"cannot read the metadata: {e}") from None
    for key in meta[0]:
        if meta[0][key] != meta[1][key]:
            raise CheckFailure(f"{key} not kept: {len(meta[0][key])} vs {len(meta[1][key])} entries/bytes, contents differ")

    texts = []
    for path in (model, out):
        raw = run_cli([zeropoint, "inspect", str(path), "--json"])
        try:
            text = raw.decode("utf-8")
            json.loads(text)
        except (UnicodeDecodeError, json.JSONDecodeError) as e:
            raise CheckFailure(f"inspect --json on {path.name} did not print valid JSON: {e}") from None
        texts.append(text)
    if texts[0] != texts[1]:
        a, b = texts[0].splitlines(), texts[1].splitlines()
        line = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
        raise CheckFailure(f"inspect --json output differs (first at line {line + 1})")


def main() -> int:
    ap = argparse.ArgumentParser(description="zeropoint rewrite round-trip check against LiteRT")
    ap.add_argument("--zeropoint", required=True, help="path to the zeropoint CLI binary")
    ap.add_argument("--out-dir", help="keep rewritten models here (default: a temporary directory)")
    case_filter.add_argument(ap)
    args = ap.parse_args()
    models = case_filter.select(find_models(), case_of, args.only, "models")
    if models is None:
        return 1

    zeropoint = args.zeropoint
    if os.sep in zeropoint or (os.altsep and os.altsep in zeropoint):
        zeropoint = str(Path(zeropoint).resolve())

    tmp = None
    if args.out_dir:
        out_root = Path(args.out_dir).resolve()
        out_root.mkdir(parents=True, exist_ok=True)
    else:
        tmp = tempfile.mkdtemp(prefix="zeropoint-roundtrip-")
        out_root = Path(tmp)

    passed = failed = 0
    try:
        for model in models:
            r = rel(model)
            for variant, flags in VARIANTS:
                out = out_root / (Path(r).with_suffix("").as_posix() + f".{variant}.tflite")
                try:
                    check_one(zeropoint, model, flags, out)
                except CheckFailure as e:
                    failed += 1
                    print(f"{r} [{variant}]: FAIL: {e}", flush=True)
                else:
                    passed += 1
                    print(f"{r} [{variant}]: ok", flush=True)
            if model.resolve().parent == REAL_MANIFEST.parent:
                try:
                    check_run(zeropoint, model, out_root / (Path(r).with_suffix("").as_posix() + ".run"))
                except CheckFailure as e:
                    failed += 1
                    print(f"{r} [run]: FAIL: {e}", flush=True)
                else:
                    passed += 1
                    print(f"{r} [run]: ok", flush=True)
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)

    print(f"{passed} passed, {failed} failed", flush=True)
    return 1 if failed or passed == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
