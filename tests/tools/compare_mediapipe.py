"""MediaPipe's models as shipped in the mediapipe 0.10.14 wheel (BlazeFace face_detection_short_range,
pose_detection, selfie_segmentation and its landscape variant with the custom op `Convolution2DTransposeBias`,
face_landmark_with_attention with `Landmarks2TransformMatrix`, `TransformTensorBilinear`, `TransformLandmarks`): our float run
against the real tool, TF 2.21's int8 of each run by our engine against LiteRT's BUILTIN_REF, and
our int8 quantization against TF's on the same calibration data (output SQNR of both against the
float model). Prints a Markdown table; with --readme also writes it into the README between its
mediapipe-table markers.

Run by hand (needs the network once, never in CI): the mediapipe wheel is fetched with
`pip download` into tests/tools/.cache/ (gitignored; the models are not committed). Weights are
float16 behind DEQUANTIZE, which TF's MLIR quantizer refuses ("scale out of expressed type
range"), so TF gets a float32 copy (the DEQUANTIZEs folded); ours quantizes the shipped file (it
folds them itself). References: LiteRT BUILTIN_REF for builtin-only models; for the model with
MediaPipe's custom op, MediaPipe itself (`mediapipe/mediapipe_run.py`: its InferenceCalculator
with TFLite's CPU kernels, not LiteRT's reference ones, so a float difference there can come
from any op, not only the custom one), and our engine runs TF's int8 of it (LiteRT has no kernel
for the custom op). Calibration: 16 seeded synthetic images at the model's input size in its
input range; SQNR on the first 4.

    /path/to/venv-tf/bin/python tests/tools/compare_mediapipe.py --zeropoint target/release/zeropoint
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
CACHE = HERE / ".cache"
WHEEL = "mediapipe==0.10.14"
MEMBER = "mediapipe/modules/face_detection/face_detection_short_range.tflite"

# name: (wheel member, input range)
MODELS = {
    "face_detection_short_range": (MEMBER, (-1.0, 1.0)),
    "pose_detection": ("mediapipe/modules/pose_detection/pose_detection.tflite", (-1.0, 1.0)),
    "selfie_segmentation": ("mediapipe/modules/selfie_segmentation/selfie_segmentation.tflite", (0.0, 1.0)),
    "selfie_segmentation_landscape": (
        "mediapipe/modules/selfie_segmentation/selfie_segmentation_landscape.tflite", (0.0, 1.0)),
}


def wheel() -> Path:
    """The mediapipe wheel, downloaded with pip into the cache once."""
    wheels = CACHE / "wheels"
    wheels.mkdir(parents=True, exist_ok=True)
    if not list(wheels.glob("mediapipe-*.whl")):
        subprocess.run(
            [sys.executable, "-m", "pip", "download", WHEEL, "--no-deps", "--only-binary=:all:",
             "--python-version", "3.11", "--platform", "manylinux_2_17_x86_64", "-d", str(wheels)],
            check=True,
        )
    return next(wheels.glob("mediapipe-*.whl"))


def fetch(member: str = MEMBER) -> bytes:
    """A model file of the wheel (cached under its file name)."""
    model = CACHE / Path(member).name
    if not model.is_file():
        with zipfile.ZipFile(wheel()) as z:
            model.write_bytes(z.read(member))
    return model.read_bytes()


def densified(model: bytes) -> dict:
    """The dense values of each DENSIFY output, as LiteRT computes them (at prepare)."""
    import numpy as np
    from ai_edge_litert.interpreter import Interpreter, OpResolverType

    from goldens.frameworks import tfl_schema

    m = tfl_schema.ModelT.InitFromPackedBuf(model, 0)
    sg = m.subgraphs[0]
    outs = [op.outputs[0] for op in sg.operators
            if max(m.operatorCodes[op.opcodeIndex].builtinCode,
                   m.operatorCodes[op.opcodeIndex].deprecatedBuiltinCode) == tfl_schema.BuiltinOperator.DENSIFY]
    if not outs:
        return {}
    it = Interpreter(model_content=model, experimental_op_resolver_type=OpResolverType.BUILTIN_REF,
                     experimental_preserve_all_tensors=True)
    it.allocate_tensors()
    d = it.get_input_details()[0]
    it.set_tensor(d["index"], np.zeros(d["shape"], d["dtype"]))
    it.invoke()
    return {int(t): it.get_tensor(int(t)).copy() for t in outs}


def float32_copy(model: bytes) -> bytes:
    """The model with each DEQUANTIZE of a float16 constant (or of a DENSIFY of a sparse float16
    constant, densified by LiteRT) folded into a float32 constant."""
    import flatbuffers
    import numpy as np

    from goldens.frameworks import tfl_schema

    dense = densified(model)
    m = tfl_schema.ModelT.InitFromPackedBuf(model, 0)
    sg = m.subgraphs[0]
    dq = tfl_schema.BuiltinOperator.DEQUANTIZE
    keep = []
    for op in sg.operators:
        oc = m.operatorCodes[op.opcodeIndex]
        src = sg.tensors[op.inputs[0]] if len(op.inputs) else None
        if max(oc.builtinCode, oc.deprecatedBuiltinCode) == dq and src is not None and src.type == tfl_schema.TensorType.FLOAT16:
            if int(op.inputs[0]) in dense:
                vals = dense[int(op.inputs[0])].astype(np.float32)
            else:
                vals = np.frombuffer(bytes(m.buffers[src.buffer].data), dtype=np.float16).astype(np.float32)
            buf = tfl_schema.BufferT()
            buf.data = np.frombuffer(vals.tobytes(), dtype=np.uint8)
            m.buffers.append(buf)
            sg.tensors[op.outputs[0]].buffer = len(m.buffers) - 1
            continue
        keep.append(op)
    # A DENSIFY whose output only fed folded DEQUANTIZEs goes too.
    read = {int(i) for op in keep for i in op.inputs} | {int(i) for i in sg.outputs}
    keep = [op for op in keep if not (int(op.outputs[0]) in dense and int(op.outputs[0]) not in read)]
    # TF's calibrator registers every operator code of the table: drop the unused ones.
    used = sorted({op.opcodeIndex for op in keep})
    remap = {old: new for new, old in enumerate(used)}
    m.operatorCodes = [m.operatorCodes[i] for i in used]
    for op in keep:
        op.opcodeIndex = remap[op.opcodeIndex]
    sg.operators = keep
    b = flatbuffers.Builder(0)
    b.Finish(m.Pack(b), file_identifier=b"TFL3")
    return bytes(b.Output())


def images(n: int, h: int, w: int, lo: float, hi: float, seed: int = 1):
    """Seeded synthetic images: 16x16 blocks of uniform colour plus noise, clipped to the range."""
    import numpy as np

    rng = np.random.default_rng(seed)
    blocks = rng.uniform(lo, hi, (n, 1, -(-h // 16), -(-w // 16), 3)).astype(np.float32)
    x = np.repeat(np.repeat(blocks, 16, axis=2), 16, axis=3)[:, :, :h, :w]
    x = x + rng.uniform(-0.1, 0.1, (n, 1, h, w, 3)).astype(np.float32) * (hi - lo)
    return np.clip(x, lo, hi).astype(np.float32)


def run_ours(zp: str, model: Path, x: Path, out: Path) -> list:
    import numpy as np

    subprocess.run([zp, "run", str(model), "--input", str(x), "--out-dir", str(out)], check=True,
                   capture_output=True)
    return [np.load(p) for p in sorted(out.glob("output_*.npy"), key=lambda p: int(p.stem.split("_")[1]))]


def run_litert(model: bytes, x) -> tuple[list | None, str]:
    """LiteRT BUILTIN_REF's outputs on the samples x, through the zoo's runner (which lowers an
    operator version LiteRT 2.3's reference resolver lacks, in a copy used for that run only):
    (outputs, how they were obtained) or (None, why not)."""
    from zoo.convert import litert_outputs

    outs, note = litert_outputs(model, x)
    if outs is None or note.get("resolver") != "reference":
        return None, f"LiteRT BUILTIN_REF cannot run it: {note.get('reference_error', '')[:100]}"
    how = "LiteRT BUILTIN_REF"
    if "lowered_versions" in note:
        how += f" (versions lowered: {note['lowered_versions']})"
    return outs, how


CUSTOM = "Convolution2DTransposeBias"


def custom_op_index(model: bytes) -> int | None:
    from goldens.frameworks import tfl_schema

    m = tfl_schema.ModelT.InitFromPackedBuf(model, 0)
    for k, op in enumerate(m.subgraphs[0].operators):
        code = m.operatorCodes[op.opcodeIndex].customCode
        if code is not None and bytes(code).decode() == CUSTOM:
            return k
    return None


def prefix(model: bytes, k: int) -> bytes:
    """The model cut before operator k: its operators before k, the input of operator k as the
    only output, unused operator codes dropped (builtin operators only, for LiteRT and TF)."""
    import flatbuffers

    from goldens.frameworks import tfl_schema

    m = tfl_schema.ModelT.InitFromPackedBuf(model, 0)
    sg = m.subgraphs[0]
    sg.outputs = [int(sg.operators[k].inputs[0])]
    sg.operators = sg.operators[:k]
    used = sorted({op.opcodeIndex for op in sg.operators})
    remap = {old: new for new, old in enumerate(used)}
    m.operatorCodes = [m.operatorCodes[i] for i in used]
    for op in sg.operators:
        op.opcodeIndex = remap[op.opcodeIndex]
    m.signatureDefs = []
    b = flatbuffers.Builder(0)
    b.Finish(m.Pack(b), file_identifier=b"TFL3")
    return bytes(b.Output())


def custom_op_alone(model: bytes, k: int) -> bytes:
    """Operator k (the custom op) alone with the shipped model's weights and bias (float16
    constants behind DEQUANTIZE made float32: exact) and options."""
    import numpy as np

    from goldens.frameworks import tfl_schema
    from mediapipe.make_goldens import model as one_op

    m = tfl_schema.ModelT.InitFromPackedBuf(model, 0)
    sg = m.subgraphs[0]
    op = sg.operators[k]

    def const(t: int):
        for p in sg.operators:
            if t in list(p.outputs):  # a DEQUANTIZE of a float16 constant
                t = int(p.inputs[0])
        src = sg.tensors[t]
        dt = np.float16 if src.type == tfl_schema.TensorType.FLOAT16 else np.float32
        return np.frombuffer(bytes(m.buffers[src.buffer].data), dt).astype(np.float32).reshape(src.shape)

    w, b = const(int(op.inputs[1])), const(int(op.inputs[2]))
    padding, sw, sh = np.frombuffer(bytes(op.customOptions), "<i4")[:3]
    inp = [int(d) for d in sg.tensors[int(op.inputs[0])].shape]
    return one_op(inp, list(w.shape), int(padding), (int(sw), int(sh)), w, b)


def run_mediapipe(model: Path, x, n_out: int = 1) -> list:
    """MediaPipe's own run of a one-input model (see mediapipe/mediapipe_run.py), per sample: its
    n_out outputs, each [samples, dim 1 of the input, -1] for one output, else [samples, -1]."""
    import numpy as np

    from mediapipe.make_goldens import mp_python

    py = mp_python()
    outs = []
    for s in range(len(x)):
        np.save(CACHE / "_mp_in.npy", x[s])
        subprocess.run([py, HERE / "mediapipe" / "mediapipe_run.py", model, str(n_out), CACHE / "_mp_out.npz",
                        CACHE / "_mp_in.npy"], check=True, capture_output=True)
        got = np.load(CACHE / "_mp_out.npz")
        outs.append([got[f"out{k}"] for k in range(n_out)])
    if n_out == 1:
        return [np.stack([o[0] for o in outs]).reshape((len(x),) + x.shape[1:2] + (-1,))]
    return [np.stack([o[k] for o in outs]) for k in range(n_out)]


def agreement(got: list, want: list) -> str:
    """"bit-exact", or the largest absolute difference and how many elements differ."""
    import numpy as np

    diffs, n, total = 0.0, 0, 0
    for g, w in zip(got, want):
        g, w = g.reshape(-1), w.reshape(-1)
        if g.shape != w.shape:
            return f"shape {g.shape} vs {w.shape}"
        d = np.abs(g.astype(np.float64) - w.astype(np.float64))
        diffs, n, total = max(diffs, float(d.max())), n + int((g.view(np.uint8 if g.dtype == np.int8 else np.uint32) != w.view(np.uint8 if w.dtype == np.int8 else np.uint32)).sum()), total + g.size
    return "bit-exact" if n == 0 else f"max abs {diffs:.3g} ({n}/{total} differ)"


def output_names(model: Path) -> list[str]:
    """Short names of a model's outputs (the last part of each tensor name)."""
    from goldens.frameworks import tfl_schema

    m = tfl_schema.ModelT.InitFromPackedBuf(model.read_bytes(), 0)
    sg = m.subgraphs[0]
    return [sg.tensors[i].name.decode().split(";")[0].split("/")[-1] for i in sg.outputs]


def sqnr(ref: list, q: list, names: list[str]) -> str:
    """Output SQNR (dB) of q against ref, per output, as `name value`."""
    import numpy as np

    out = []
    for name, r, x in zip(names, ref, q):
        r, x = r.astype(np.float64).reshape(-1), x.astype(np.float64).reshape(-1)
        noise = float(((r - x) ** 2).sum())
        out.append(f"{name} " + ("inf" if noise == 0 else f"{10 * np.log10(float((r ** 2).sum()) / noise):.2f}"))
    return ", ".join(out)


def quantize_both(zp: str, out: Path, tag: str, src: Path, f32: bytes, calib: Path, test: Path, row: dict):
    """Our int8 (float I/O) of src and TF's of the float32 copy f32, on the same calibration
    data; fills row with TF's bit-exactness and both output SQNRs against our float run."""
    import numpy as np

    from goldens.activation_split import tf_quantize

    ours_float = run_ours(zp, out / f"{tag}float32.tflite", test, out / f"{tag}ours_float")
    ours_q = out / f"{tag}ours_int8_floatio.tflite"
    subprocess.run([zp, "quantize", str(src), "--data", str(calib), "--mode", "int8", "--io", "float",
                    "-o", str(ours_q)], check=True, capture_output=True)
    names = output_names(src)
    row["sqnr_ours"] = sqnr(ours_float, run_ours(zp, ours_q, test, out / f"{tag}ours_q"), names)
    try:
        tf_q = tf_quantize(f32, "int8_floatio", [np.load(calib)])
    except Exception as e:  # TF's refusal is a result, reported in the table
        msg = str(e).replace("\n", " ")
        row["tf"] = "TF refuses: " + (f"unresolved custom op {CUSTOM}" if CUSTOM in msg else msg[:120])
        return ours_q, None
    tf_path = out / f"{tag}tf_int8_floatio.tflite"
    tf_path.write_bytes(tf_q)
    tf_ours = run_ours(zp, tf_path, test, out / f"{tag}tf_q")
    tf_ref, how = run_litert(tf_q, np.load(test))
    row["tf"] = f"{agreement(tf_ours, tf_ref)} vs {how}" if tf_ref is not None else how
    row["sqnr_tf"] = sqnr(ours_float, tf_ours, names)
    return ours_q, tf_path


FACE = "mediapipe/modules/face_landmark/face_landmark_with_attention.tflite"
LANDMARK_OPS = ("Landmarks2TransformMatrix", "TransformTensorBilinear", "TransformLandmarks")


def around_custom_ops(model: Path) -> str:
    """How a (quantized) model feeds its MediaPipe landmark operators: the types of their
    inputs and outputs and the operators producing / consuming them, counted."""
    from collections import Counter

    from goldens.frameworks import tfl_schema

    m = tfl_schema.ModelT.InitFromPackedBuf(model.read_bytes(), 0)
    sg = m.subgraphs[0]

    def name(op):
        oc = m.operatorCodes[op.opcodeIndex]
        if oc.customCode is not None:
            return bytes(oc.customCode).decode()
        code = max(oc.builtinCode, oc.deprecatedBuiltinCode)
        return next(k for k, v in vars(tfl_schema.BuiltinOperator).items() if v == code)

    producer = {int(t): op for op in sg.operators for t in op.outputs}
    seen = Counter()
    for op in sg.operators:
        if name(op) not in LANDMARK_OPS:
            continue
        for t in op.inputs:
            p = producer.get(int(t))
            dtype = next(k for k, v in vars(tfl_schema.TensorType).items() if v == sg.tensors[t].type)
            seen[f"in {dtype} from {name(p) if p else 'graph'}"] += 1
        for t in op.outputs:
            users = [name(u) for u in sg.operators if int(t) in [int(i) for i in u.inputs]]
            seen[f"out to {'/'.join(sorted(set(users)))}"] += 1
    return ", ".join(f"{k}: {v}" for k, v in sorted(seen.items()))


def face_landmark(zp: str, out: Path) -> dict:
    """face_landmark_with_attention: our float run against MediaPipe's (all 7 outputs); our int8
    quantization (the landmark operators kept float) run by our engine, SQNR against our float."""
    import numpy as np

    out.mkdir(parents=True, exist_ok=True)
    fetch(FACE)
    src = CACHE / Path(FACE).name
    x = images(16, 192, 192, 0.0, 1.0)
    np.save(out / "calib.npy", x)
    np.save(out / "test.npy", x[:4])
    ours = run_ours(zp, src, out / "test.npy", out / "ours_float")
    ref = run_mediapipe(src, x[:4], n_out=len(ours))
    names = output_names(src)
    per = []
    for n, g, w in zip(names, ours, ref):
        g, w = g.reshape(len(w), -1), w.reshape(len(w), -1)
        d = np.abs(g.astype(np.float64) - w)
        per.append(f"{n}: {agreement([g], [w])}, max rel {float(d.max() / np.abs(w).max()):.2g}")
    row = {"model": "face_landmark_with_attention", "float": "; ".join(per)}
    q = out / "ours_int8_floatio.tflite"
    r = subprocess.run([zp, "quantize", str(src), "--data", str(out / "calib.npy"), "--mode", "int8", "--io",
                        "float", "-o", str(q)], capture_output=True, text=True)
    if r.returncode != 0:
        row["sqnr_ours"] = "quantize failed: " + (r.stderr or r.stdout).strip().splitlines()[-1][:200]
        return row
    row["around"] = around_custom_ops(q)
    row["sqnr_ours"] = sqnr(ours, run_ours(zp, q, out / "test.npy", out / "ours_q"), names)
    return row


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--zeropoint", required=True, help="the zeropoint binary")
    ap.add_argument("--out-dir", default=str(CACHE / "compare"))
    ap.add_argument("--only", nargs="*", help="model names (default: all)")
    ap.add_argument("--compare-quant", action="store_true", help="also print zeropoint compare-quant")
    ap.add_argument("--readme", action="store_true",
                    help="also write the table into README.md between its mediapipe-table markers "
                         "(with --only: just the rows of those models)")
    args = ap.parse_args()
    sys.path.insert(0, str(HERE))
    import numpy as np

    from goldens.frameworks import tfl_schema

    zp = args.zeropoint
    rows = []
    if not args.only or "face_landmark_with_attention" in args.only:
        face = face_landmark(zp, Path(args.out_dir) / "face_landmark_with_attention")
        face["tf"] = ("not compared (TF's calibrator cannot run the custom ops); ours keeps the landmark ops "
                      f"float: {face.pop('around', '-')}")
        rows.append(face)
    for name, (member, (lo, hi)) in MODELS.items():
        if args.only and name not in args.only:
            continue
        out = Path(args.out_dir) / name
        out.mkdir(parents=True, exist_ok=True)
        shipped = fetch(member)
        src = CACHE / Path(member).name
        m = tfl_schema.ModelT.InitFromPackedBuf(shipped, 0)
        shape = [int(d) for d in m.subgraphs[0].tensors[m.subgraphs[0].inputs[0]].shape]
        x = images(16, shape[1], shape[2], lo, hi)
        np.save(out / "calib.npy", x)
        test = x[:4]
        np.save(out / "test.npy", test)
        ours_float = run_ours(zp, src, out / "test.npy", out / "ours_float")
        k = custom_op_index(shipped)
        if k is None:
            (out / "float32.tflite").write_bytes(float32_copy(shipped))
            ref, how = run_litert(shipped, test)
            row = {"model": name, "float": f"{agreement(ours_float, ref)} vs {how}" if ref is not None else how}
            ours_q, tf_q = quantize_both(zp, out, "", src, float32_copy(shipped), out / "calib.npy",
                                         out / "test.npy", row)
        else:
            # The whole model against MediaPipe; the part before the custom op against LiteRT
            # and quantized by both (TF's calibrator cannot run the custom op); the custom op
            # alone, with the shipped weights, on that part's output, against MediaPipe.
            whole = agreement(ours_float, run_mediapipe(src, test))
            cut = prefix(shipped, k)
            (out / "prefix.tflite").write_bytes(cut)
            (out / "prefix_float32.tflite").write_bytes(float32_copy(cut))
            (out / "float32.tflite").write_bytes(float32_copy(shipped))
            ref, how = run_litert(cut, test)
            mid = run_ours(zp, out / "prefix.tflite", out / "test.npy", out / "prefix_ours_float")
            np.save(out / "custom_in.npy", mid[0])
            (out / "custom_op.tflite").write_bytes(custom_op_alone(shipped, k))
            alone = agreement(run_ours(zp, out / "custom_op.tflite", out / "custom_in.npy", out / "custom_ours"),
                              run_mediapipe(out / "custom_op.tflite", mid[0]))
            row = {"model": name, "float": (
                f"whole model vs MediaPipe (TFLite CPU kernels): {whole}; before {CUSTOM}: "
                f"{agreement(mid, ref) if ref is not None else '-'} vs {how}; {CUSTOM} alone on that: {alone} "
                "vs MediaPipe")}
            sub = {}
            quantize_both(zp, out, "prefix_", out / "prefix.tflite", float32_copy(cut), out / "calib.npy",
                          out / "test.npy", sub)
            whole_row = {}
            ours_q, _ = quantize_both(zp, out, "", src, float32_copy(shipped), out / "calib.npy",
                                      out / "test.npy", whole_row)
            row["tf"] = f"before {CUSTOM}: {sub['tf']}; whole model: {whole_row['tf']}"
            row["sqnr_tf"] = f"before {CUSTOM}: {sub.get('sqnr_tf', '-')}"
            row["sqnr_ours"] = f"before {CUSTOM}: {sub['sqnr_ours']}; whole model: {whole_row['sqnr_ours']}"
            tf_q = out / "prefix_tf_int8_floatio.tflite" if "sqnr_tf" in sub else None
            ours_q = out / "prefix_ours_int8_floatio.tflite"
        if args.compare_quant and tf_q is not None:
            ref_float = out / ("prefix_float32.tflite" if k is not None else "float32.tflite")
            subprocess.run([zp, "compare-quant", str(ours_q), str(tf_q), "--float", str(ref_float), "--input",
                            str(out / "test.npy")], check=True)
        rows.append(row)
    table = [
        "| model | our float run | TF's int8 run by our engine | output SQNR, TF's int8 (dB) | output SQNR, ours (dB) |",
        "|---|---|---|---|---|",
        *(f"| {r['model']} | {r['float']} | {r['tf']} | {r.get('sqnr_tf', '-')} | {r['sqnr_ours']} |" for r in rows),
    ]
    print("\n".join(table))
    if args.readme:
        write_readme(table, args.only)
    return 0


README_BEGIN = "<!-- mediapipe-table:begin"
README_END = "<!-- mediapipe-table:end -->"


def write_readme(table: list[str], only: list[str] | None = None) -> None:
    """Replaces the lines between the README's mediapipe-table markers with `table`; with `only`
    (the models this run made), replaces just those models' rows and keeps the others."""
    readme = HERE.parent.parent / "README.md"
    lines = readme.read_text().split("\n")
    begin = next(i for i, line in enumerate(lines) if line.startswith(README_BEGIN))
    end = lines.index(README_END)
    if only:
        def model(row: str) -> str:
            return row.split("|")[1].strip()

        new = {model(r): r for r in table[2:]}
        old = lines[begin + 1: end]
        kept = [new.pop(model(r), r) if r.startswith("| ") and model(r) in only else r for r in old]
        table = kept + list(new.values())
    readme.write_text("\n".join(lines[: begin + 1] + table + lines[end:]))


if __name__ == "__main__":
    sys.exit(main())
