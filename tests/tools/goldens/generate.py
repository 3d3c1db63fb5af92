"""generate_case(): one case folder (every variant converted, run on the three LiteRT kernel
sets, traced, written with its case.toml), and the held-out labelled test sets of classifier
cases (labelled_section, add_labelled for --labelled-only). Importing this module registers
every case: whole models first, then single-operator cases (the --list and default order)."""

from __future__ import annotations

import shutil
import time
from importlib.metadata import version as pkg_version

import numpy as np

from golden_resolver import REFERENCE_DEFECTS  # BUILTIN_REF's wrong operators (run_per_op runs them on the optimized resolver)

from . import models, op_cases, op_cases_math, op_cases_layout, op_cases_shapeops, op_cases_logic, op_cases_split, op_cases_fusion, pad_fold, op_cases_matmul, op_cases_more, op_cases_bidi, op_cases_calib, models_vit  # noqa: F401 - registers the cases, in this order
from .activation_split import tf_quantize
from .frameworks import tf
from .litert import (
    diff_stats,
    input_order,
    io_desc,
    make_interpreter,
    model_ops,
    quantize,
    run_model,
    run_per_op,
    signature_maps,
    tensor_types,
    trace_model,
)
from .registry import CaseData, CaseSpec, seed_everything
from .variants import (
    RESOLVERS,
    TOLERANCE_RULE,
    TOLERANCES,
    TRACED_VARIANTS,
    VARIANTS,
    convert,
    short_error,
)
from .writer import GOLDEN, REPO, CaseWriter, toml_key, toml_value

LITERT_VERSION = pkg_version("ai-edge-litert")


def labelled_section(data: CaseData, blobs: dict[str, bytes], unavailable: set[str], w: CaseWriter) -> list[str]:
    """Writes test_x.npy / test_y.npy of a classifier case and returns the [labelled] table that
    ends its case.toml: where the set lies and the accuracy of TF's models on it (LiteRT REF)."""
    if data.labelled is None:
        return []
    assert len(data.calib) == 1, "labelled sets are for single-input classifiers"
    lx, ly, lscale = data.labelled
    files = [w.npy("test_x.npy", lx[:, None]), w.npy("test_y.npy", ly.astype(np.int32))]
    x = (lx.astype(np.float64) * lscale).astype(np.float32)[:, None]
    n_classes = int(ly.max()) + 1
    outs = make_interpreter(blobs["float"]).get_output_details()
    cls = [k for k, d in enumerate(outs) if int(d["shape"][-1]) == n_classes]
    assert len(cls) == 1, [d["shape"] for d in outs]

    def accuracy(blob: bytes) -> float:
        logits = run_model(blob, [x])[cls[0]]
        return round(float(np.mean(logits.reshape(len(ly), -1).argmax(1) == ly)) * 100.0, 4)

    lines = [
        "",
        "# Held-out labelled test set (drawn apart from the training, calibration and test",
        "# inputs): input = x * x_scale (float64, rounded to float32); label = argmax of",
        "# subgraph output `output`. Accuracies in percent, LiteRT BUILTIN_REF.",
        "[labelled]",
        f"x = {toml_value(files[0])}",
        f"y = {toml_value(files[1])}",
        f"x_scale = {toml_value(lscale)}",
        f"output = {cls[0]}",
        f"samples = {len(ly)}",
    ]
    for vname in ("float", "int8_floatio", "16x8", "dynamic"):
        if vname in blobs and vname not in unavailable:
            lines.append(f"accuracy_{vname} = {toml_value(accuracy(blobs[vname]))}")
    return lines


def add_labelled(spec: CaseSpec) -> dict:
    """--labelled-only: adds the labelled set to an existing case folder without converting
    again (the committed models are used as they are), giving the bytes a full run of the same
    machine would. Exists because Keras training differs across CPUs: a full regeneration on
    another machine rewrites every model."""
    t0 = time.time()
    seed_everything(spec.seed)
    data = spec.build(spec.seed)
    out = GOLDEN / spec.name
    toml_path = out / "case.toml"
    text = toml_path.read_text()
    marker = "\n\n# Held-out labelled test set"
    if marker in text:
        text = text[: text.index(marker)] + "\n"
    blobs = {v: (out / f"model_{v}.tflite").read_bytes() for v in spec.variants if (out / f"model_{v}.tflite").is_file()}
    lines = labelled_section(data, blobs, set(), CaseWriter(out))
    toml_path.write_text(text.rstrip("\n") + "\n" + "\n".join(lines) + "\n")
    return {"case": spec.name, "seconds": time.time() - t0, "summary": f"{spec.name}: labelled set added"}


def generate_case(spec: CaseSpec, verbose: bool) -> dict:
    t0 = time.time()
    seed_everything(spec.seed)
    data = spec.build(spec.seed)
    out = GOLDEN / spec.name
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    w = CaseWriter(out)
    keras_names = [t.name for t in data.model.inputs]
    assert len(keras_names) == len(data.calib) == len(data.inputs)

    # The float model fixes the subgraph input order that input_<k> / calib_<k> follow.
    golden = spec.resolver  # the resolver whose outputs are expected_outputs
    blobs: dict[str, bytes] = {"float": convert(data.model, VARIANTS["float"], data.calib, keras_names)}
    if spec.float_rewrite is not None:
        blobs["float"] = spec.float_rewrite(blobs["float"])
    base_order = input_order(make_interpreter(blobs["float"], golden), keras_names)

    calib_files = []
    for k, pos in enumerate(base_order):
        fn = "calib.npy" if len(data.calib) == 1 else f"calib_{k}.npy"
        calib_files.append(w.npy(fn, data.calib[pos].astype(np.float32)))
    input_files = []
    for k, pos in enumerate(base_order):
        input_files.append(w.npy(f"input_{k}.npy", data.inputs[pos].astype(np.float32)))
    input_names = [keras_names[pos] for pos in base_order]

    variants_toml = []
    unavailable: dict[str, str] = {}
    if spec.float_rewrite is not None:
        for vname in VARIANTS:
            if vname not in spec.variants:
                unavailable[vname] = (
                    "not produced: this case checks what TF's full-integer quantizer does to the "
                    "edited float file (weight-only variants rewrite no activation)"
                )
    for vname in spec.variants:
        v = VARIANTS[vname]
        if vname in spec.skip:
            unavailable[vname] = spec.skip[vname]
            continue
        if vname not in blobs:
            try:
                if spec.float_rewrite is not None:
                    blobs[vname] = tf_quantize(blobs["float"], vname, data.calib, keras_names)
                else:
                    blobs[vname] = convert(data.model, v, data.calib, keras_names)
            except Exception as e:  # noqa: BLE001 - the converter's refusal is a finding
                unavailable[vname] = f"TF {tf.__version__} converter refuses: {short_error(e)}"
                continue
            if vname in spec.rewrite:
                blobs[vname] = spec.rewrite[vname][0](blobs[vname])
        blob = blobs[vname]
        if v.needs_type and v.needs_type not in tensor_types(blob):
            why = "no weights" if not data.model.weights else "every weight tensor has < 1024 elements"
            unavailable[vname] = (
                f"nothing to quantize ({why}; TF's {vname} quantization leaves such weights float32): "
                "the converter output is the float model"
            )
            continue
        try:
            it = make_interpreter(blob, golden)
        except Exception as e:  # noqa: BLE001
            unavailable[vname] = f"LiteRT {RESOLVERS[golden].name} cannot prepare it: {short_error(e)}"
            continue

        model_fn = f"model_{vname}.tflite"
        (out / model_fn).write_bytes(blob)
        if vname in spec.copies:
            dst = REPO / spec.copies[vname]
            dst.parent.mkdir(parents=True, exist_ok=True)
            dst.write_bytes(blob)

        ins, outs = it.get_input_details(), it.get_output_details()
        sig_in, sig_out = signature_maps(it)
        order = input_order(it, keras_names)
        feed, feed_files = [], []
        for k, (d, pos) in enumerate(zip(ins, order)):
            x = data.inputs[pos]
            dt = np.dtype(d["dtype"])
            if dt == np.float32 and order == base_order:
                feed.append(x.astype(np.float32))
                feed_files.append(input_files[k])
            elif dt == np.float32:
                feed.append(x.astype(np.float32))
                feed_files.append(w.npy(f"input_{vname}_{k}.npy", feed[-1]))
            else:
                scale, zp = d["quantization"]
                assert scale > 0, (vname, d)
                q = quantize(x, scale, zp, dt)
                feed.append(q)
                feed_files.append(w.npy(f"input_{vname}_{k}.npy", q))

        if golden == "reference":
            results = {r: run_model(blob, feed, r) for r in RESOLVERS}
            trace = trace_model(blob, feed) if vname in TRACED_VARIANTS else []
        else:
            # BUILTIN_REF cannot load the model: the reference result is the model run op by op,
            # BUILTIN_REF where it has the op (its DEQUANTIZE / QUANTIZE), else `golden`.
            per_op, trace = run_per_op(blob, feed)
            results = {"reference": per_op, **{r: run_model(blob, feed, r) for r in RESOLVERS if r != "reference"}}
        # Outputs of the other kernel sets that equal an array already written are not stored
        # twice: case.toml then names the existing file.
        expected = {
            r: [
                w.npy(f"expected_{vname}_{'' if r == 'reference' else r + '_'}output_{k}.npy", a, dedupe=r != "reference")
                for k, a in enumerate(res)
            ]
            for r, res in results.items()
        }
        entry = {
            "name": vname,
            "model": model_fn,
            "description": v.description,
            "converter": (
                [f"converter.{p} = {text}" for p, _, text in v.settings] or ["(defaults: no optimizations)"]
                if spec.float_rewrite is None or vname == "float"
                else [f"tf_quantize(model_float.tflite, {vname!r}, calib) in goldens/activation_split.py: "
                      "TF's quantizer on the file, as TFLiteConverter runs it after converting"]
            ) + ([f"then edited: {spec.rewrite[vname][1]}"] if vname in spec.rewrite else []),
            "inputs": feed_files,
            "expected_outputs": expected["reference"],
            "expected_optimized_outputs": expected["optimized"],
            "expected_xnnpack_outputs": expected["xnnpack"],
            "optimized_vs_reference": diff_stats(results["optimized"], results["reference"]),
            "xnnpack_vs_reference": diff_stats(results["xnnpack"], results["reference"]),
            "tolerance": v.tolerance,
            "ops": model_ops(blob),
            "input_details": io_desc(ins, sig_in),
            "output_details": io_desc(outs, sig_out),
        }
        if vname in spec.copies:
            entry["copied_to"] = spec.copies[vname]
        if vname in spec.expected_failures:
            entry["expected_failure"] = spec.expected_failures[vname]
        if vname in spec.untraced:
            entry["intermediates_omitted"] = spec.untraced[vname]
        elif vname in TRACED_VARIANTS:
            inter = []
            for desc, arr in trace:
                desc["file"] = w.npy(f"intermediates_{vname}/t{desc['tensor']}.npy", arr[None], dedupe=True)
                inter.append(desc)
            entry["intermediates"] = inter
        variants_toml.append(entry)

    ops: list[str] = []
    for v in variants_toml:
        ops += [o for o in v["ops"] if o not in ops]
    lines = [
        "# Generated by tests/tools/make_goldens.py -- do not edit by hand.",
        "# Arrays: first axis = samples; element i has exactly the model tensor's shape",
        "# (batch dim 1 included) and is one separate invocation. expected_outputs come from",
        "# LiteRT's BUILTIN_REF (reference) kernels, the target; expected_optimized_outputs from",
        "# BUILTIN_WITHOUT_DEFAULT_DELEGATES (optimized builtin kernels) and expected_xnnpack_outputs",
        "# from AUTO (the default: XNNPACK delegate) are for comparison only. input_<k> / output_<k>",
        "# follow the subgraph's input/output order (as in input_details / output_details), which",
        "# can differ from the signature order (see signature_name). intermediates: every operator",
        "# output for sample 0 (BUILTIN_REF), one sample per file; op = index of the producing",
        "# operator in subgraph 0.",
        "",
        f"name = {toml_value(spec.name)}",
        f"kind = {toml_value(spec.kind)}",
    ]
    if spec.op:
        lines.append(f"op = {toml_value(spec.op)}")
    if golden != "reference":
        lines += [
            f"expected_resolver = {toml_value(RESOLVERS[golden].name)}",
            "expected_resolver_reason = "
            + toml_value(
                (
                    f"LiteRT {LITERT_VERSION}'s BUILTIN_REF computes {spec.op} wrongly on integer inputs "
                    "(see REFERENCE_DEFECTS in golden_resolver.py): "
                    if spec.op in REFERENCE_DEFECTS
                    else f"LiteRT {LITERT_VERSION}'s BUILTIN_REF resolver does not register {spec.op or 'an op of this model'}: "
                )
                + f"the whole model loads in {RESOLVERS[golden].name} only (XNNPACK off; its outputs are "
                "expected_optimized_outputs), and expected_outputs and intermediates are the model run "
                "operator by operator, each alone on BUILTIN_REF where it registers the operator, else on "
                f"{RESOLVERS[golden].name} (intermediates name the resolver of each)"
            ),
        ]
    lines += [
        f"description = {toml_value(data.description)}",
        f"ops = {toml_value(ops)}",
        f"seed = {spec.seed}",
        f"variants = {toml_value([v['name'] for v in variants_toml])}",
        f"calibration = {toml_value(calib_files)}",
        f"inputs = {toml_value(input_files)}",
        f"input_names = {toml_value(input_names)}",
        f"num_samples = {int(data.inputs[0].shape[0])}",
        f"num_calibration_samples = {int(data.calib[0].shape[0])}",
        "",
        f"tolerance_rule = {toml_value(TOLERANCE_RULE)}",
        "",
        "[training]",
    ]
    for k, val in data.notes.items():
        lines.append(f"{toml_key(k)} = {toml_value(val)}")
    lines += ["", "[tolerances]"]
    used = []
    for v in variants_toml:
        if v["tolerance"] not in used:
            used.append(v["tolerance"])
    for tname in used:
        val, reason = TOLERANCES[tname]
        lines.append(f"{tname} = {toml_value(val)}")
        lines.append(f"{tname}_reason = {toml_value(reason)}")
    lines += ["", "# Variants not produced, with the reason.", "[unavailable]"]
    for vname, why in unavailable.items():
        lines.append(f"{toml_key(vname)} = {toml_value(why)}")
    for v in variants_toml:
        lines += ["", "[[variant]]"]
        for key in (
            "name", "model", "description", "converter", "inputs", "expected_outputs",
            "expected_optimized_outputs", "expected_xnnpack_outputs", "optimized_vs_reference",
            "xnnpack_vs_reference", "tolerance", "expected_failure", "ops", "copied_to",
            "intermediates_omitted",
        ):
            if key in v:
                lines.append(f"{key} = {toml_value(v[key])}")
        for key in ("input_details", "output_details", "intermediates"):
            if key not in v:
                continue
            lines.append(f"{key} = [")
            for d in v[key]:
                lines.append(f"  {toml_value(d)},")
            lines.append("]")
    lines += labelled_section(data, blobs, set(unavailable), w)
    (out / "case.toml").write_text("\n".join(lines) + "\n")

    elapsed = time.time() - t0
    size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
    metrics = data.notes.get("val_metrics")
    summary = (
        f"{spec.name}: {len(variants_toml)} variants"
        + (f" ({len(unavailable)} unavailable)" if unavailable else "")
        + f", {size / 1024:.0f} KiB"
        + (f", {metrics}" if metrics else "")
        + f", {elapsed:.1f} s"
    )
    if verbose:
        for v in variants_toml:
            summary += f"\n  {v['name']:13s} {' '.join(v['ops'])}"
            for r in ("optimized", "xnnpack"):
                s = v[f"{r}_vs_reference"]
                if s["elements_differing"]:
                    summary += f"\n  {'':13s} {r}: {s['elements_differing']}/{s['elements']} differ, max {s['max_abs_diff']:g}"
        for vname, why in unavailable.items():
            summary += f"\n  {vname:13s} unavailable: {why}"
    return {"case": spec.name, "seconds": elapsed, "summary": summary}
