#!/usr/bin/env python3
"""Real-world-shaped .tflite files for the hardening tests (run by hand, never in CI).

The goldens (make_goldens.py) are clean converter outputs. People drop files written by
other tools and other years; this script makes small models with the structures those
files have, with TF's own converter where it can write them and with TF's flatbuffer
utilities (tensorflow.lite.tools.flatbuffer_utils) where only an older or foreign writer
would:

    deprecated_opcodes   an MLP whose operator codes fill only `deprecated_builtin_code`
                         (schema before v3a: `builtin_code` absent)
    sparse_fc            Dense layers with block-sparse weights, converted with
                         Optimize.EXPERIMENTAL_SPARSITY: sparse constant + DENSIFY
    custom_op            a model with one CUSTOM operator ("ZpTestCustom", flexbuffer-free
                         custom options) that no runtime implements
    variables            resource variables: VAR_HANDLE / READ_VARIABLE / ASSIGN_VARIABLE and
                         CALL_ONCE with an initialisation subgraph (a running total)
    streaming_kws        streaming keyword spotter: a ring buffer of the last 4 feature frames and
                         a smoothed score held in resource variables -> Conv1D -> Dense
    control_flow         tf.cond and tf.while_loop: IF / WHILE with their own subgraphs; also TF's
                         int8 conversion (float I/O) of it, calibrated on calib.npy
    lstm_classifier      Keras 3 text classifier: Embedding -> LSTM(unroll=False) -> Dense softmax
                         (int32 token ids; the LSTM becomes a WHILE over cond/body subgraphs)
    gru_kws              Keras 3 keyword spotter on feature frames: GRU(unroll=False) -> Dense
                         softmax
    bilstm               Bidirectional(LSTM) -> Dense: two WHILE loops, one over REVERSE_V2'd time
    lstm_fused           tf_keras (Keras 2) text classifier: Embedding -> LSTM(return_sequences=True)
                         -> LSTM -> Dense softmax, fused by TF's converter into two builtin
                         UNIDIRECTIONAL_SEQUENCE_LSTM (TF's dynamic-range model: the first with
                         int8 weights, hybrid; TF's int8 model: the integer LSTM); also each
                         LSTM's output sequence as LiteRT computes it (expected[_dynamic]_lstm_<k>)
    no_signature         the MLP with its signature defs removed
    signatures           a tf.Module with three signatures (encode, decode, score) sharing a weight,
                         one subgraph each; LiteRT outputs per signature (get_signature_runner) and
                         TF's dynamic-range version (realworld/signatures.py)
    metadata_heavy       the MLP with several metadata entries (one of 256 KiB) and a
                         min_runtime_version entry, as Model Maker / MediaPipe files carry
    dynamic_batch        a small CNN with the batch left dynamic (SHAPE -> STRIDED_SLICE -> PACK ->
                         RESHAPE)
    dynamic_shapes       dynamic batch with Conv2DTranspose (run-time output shape), Reshape, a
                         BROADCAST_TO and a Dense on 3-D input; also TF's int8 and 16x8 versions
                         and LiteRT outputs of all three at batch 1 and batch 3
    softmax16x8_huge_beta  a 16x8 SOFTMAX whose beta was set to 1e12 (LiteRT's rescale shift
                         above 31)
    ssd_detector         a tiny SSD (conv backbone, box/class heads) ending in the custom
                         TFLite_Detection_PostProcess (regular NMS), added with the object API;
                         also TF's post-training int8 quantization of it (float I/O) and its
                         LiteRT outputs
    int4_weights         INT4 weights (two to a byte) as AI Edge Quantizer writes them, in
                         FULLY_CONNECTED / CONV_2D / DEPTHWISE_CONV_2D (int8, 16x8, hybrid, per
                         channel and per tensor), behind DEQUANTIZE, and in ops LiteRT refuses them
                         in; one model_<variant>.tflite each with LiteRT outputs or its error
                         (realworld/int4.py)
    detpp_*              TFLite_Detection_PostProcess alone: fast and regular NMS, several classes
                         per detection, tied scores, IoU exactly at the threshold, fewer
                         candidates than max_detections, UINT8 inputs; their own inputs (box
                         encodings, class predictions) and all four LiteRT outputs, unstacked

The streaming models (variables, streaming_kws) have STREAM_FRAMES consecutive frames in input_0.npy
(stacked on a leading frames axis), run in order on ONE LiteRT interpreter so the variables carry
state from call to call (expected_output_<k>.npy, one row per frame), and the outputs of a
re-created interpreter over frames STREAM_RESET_FROM.. (expected_reset_output_<k>.npy: what a
reset must give). TF's full-integer conversion (calib.npy: two runs of 16 consecutive calibration
frames, on one calibrator interpreter) is tried in a child process and its outcome recorded
(`tf_int8`; a model it writes is kept as model_int8.tflite with the same two kinds of LiteRT
outputs, with TF's calibrate-only model of the same data as model_calibrated.tflite), and TF's dynamic-range conversion is kept as
model_dynamic.tflite with its LiteRT outputs (`tf_dynamic`), its float16 conversion as
model_float16.tflite (`tf_float16`).

The recurrent models (lstm_classifier, gru_kws, bilstm, lstm_fused) have RECURRENT_SAMPLES inputs stacked on
a leading samples axis, with one LiteRT output per sample; TF's full-integer conversion of each is
tried in a child process and its outcome recorded in the manifest (`tf_int8`: TF 2.21's
calibrator crashes with SIGSEGV on these WHILE models, tensorflow/tensorflow#75140: it logs a WHILE
output that LiteRT deallocated because the body passes that input through unchanged; a model it writes would be saved as
model_int8.tflite with LiteRT outputs; for the fused LSTM, with TF's calibrate-only model of the same
data, LSTM states included, as model_calibrated.tflite), and TF's dynamic-range conversion is kept as
model_dynamic.tflite with LiteRT outputs (`tf_dynamic`).

The model families live in tests/tools/realworld/ (common, edited, streaming, shapes, recurrent,
detection); this script lists them (MODELS) and writes the files.

Written to tests/realworld/<name>.tflite, with input_0.npy (seeded test input), LiteRT
2.3 BUILTIN_REF outputs expected_output_<k>.npy where LiteRT can run the model, and
manifest.json (sha256, size, what each file is, which ops it holds, whether LiteRT runs
it). Deterministic for the pinned versions (tests/tools/requirements.txt): a second run
gives byte-identical files.

Usage:
    tests/tools/.venv/bin/python tests/tools/make_realworld.py [--only name,name]

`--only` regenerates the named models and keeps the other folders and manifest entries.
"""

from __future__ import annotations

import os
import sys

_ENV = {
    "PYTHONHASHSEED": "0",
    "TF_CPP_MIN_LOG_LEVEL": "3",
    "TF_ENABLE_ONEDNN_OPTS": "0",
    "TF_DETERMINISTIC_OPS": "1",
    "CUDA_VISIBLE_DEVICES": "",
    "OMP_NUM_THREADS": "1",
    "KERAS_BACKEND": "tensorflow",
}
if __name__ == "__main__" and any(os.environ.get(k) != v for k, v in _ENV.items()):
    _env = dict(os.environ)
    _env.update(_ENV)
    os.execve(sys.executable, [sys.executable, os.path.abspath(__file__), *sys.argv[1:]], _env)

import hashlib  # noqa: E402
import json  # noqa: E402
import shutil  # noqa: E402
from importlib.metadata import version as pkg_version  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
from ai_edge_litert.interpreter import Interpreter  # noqa: E402

from realworld.common import OUT, convert_keras, litert_outputs, op_names  # noqa: E402
from realworld.detection import DET_CASES, _det_case, det_inputs, det_make, ssd_detector, ssd_detector_tf_int8  # noqa: E402
from realworld.edited import (  # noqa: E402
    custom_op,
    deprecated_opcodes,
    metadata_heavy,
    no_signature,
    softmax16x8_huge_beta,
    sparse_fc,
)
from realworld.int4 import aeq_dynamic_int4, int4_model, int4_variants  # noqa: E402
from realworld.recurrent import (  # noqa: E402
    FUSED,
    RECURRENT,
    RECURRENT_SAMPLES,
    bilstm_keras,
    convert_fused,
    fused_lstm_outputs,
    gru_kws_keras,
    lstm_classifier_keras,
    recurrent_inputs,
    tf_dynamic,
    tf_int8,
    tf_int8_child,
)
from realworld.shapes import (  # noqa: E402
    control_flow,
    control_flow_tf_int8,
    dynamic_batch,
    dynamic_shapes,
    dynamic_shapes_variants,
)
from realworld.signatures import signature_variants, signatures  # noqa: E402
from realworld.streaming import (  # noqa: E402
    STREAM_FRAMES,
    STREAM_RESET_FROM,
    STREAMING,
    save_stream,
    stream_inputs,
    stream_tf_int8_child,
    stream_variants,
    streaming_kws,
    variables,
)

MODELS = {
    "deprecated_opcodes": (deprecated_opcodes, "operator codes only in deprecated_builtin_code"),
    "sparse_fc": (sparse_fc, "block-sparse float weights behind DENSIFY"),
    "custom_op": (custom_op, "one CUSTOM operator ZpTestCustom no runtime implements"),
    "variables": (variables, "resource variables (VAR_HANDLE/READ_VARIABLE/ASSIGN_VARIABLE, CALL_ONCE)"),
    "streaming_kws": (
        streaming_kws,
        "streaming keyword spotter: ring buffer of the last frames and a smoothed score in resource "
        "variables -> Conv1D -> Dense, one frame per call",
    ),
    "control_flow": (control_flow, "IF and WHILE with their own subgraphs"),
    "lstm_classifier": (
        lambda: convert_keras(lstm_classifier_keras()),
        "Embedding -> LSTM(unroll=False) -> Dense softmax: WHILE over cond/body subgraphs, int32 input",
    ),
    "gru_kws": (lambda: convert_keras(gru_kws_keras()), "GRU(unroll=False) keyword spotter: WHILE"),
    "bilstm": (lambda: convert_keras(bilstm_keras()), "Bidirectional(LSTM): two WHILE loops"),
    "lstm_fused": (
        lambda: convert_fused("lstm_fused"),
        "tf_keras Embedding -> LSTM(return_sequences) -> LSTM -> Dense softmax: two fused "
        "UNIDIRECTIONAL_SEQUENCE_LSTM, int32 input",
    ),
    "no_signature": (no_signature, "no signature defs"),
    "metadata_heavy": (metadata_heavy, "metadata entries incl. 256 KiB TFLITE_METADATA"),
    "dynamic_batch": (dynamic_batch, "batch left dynamic: SHAPE -> STRIDED_SLICE -> PACK -> RESHAPE"),
    "dynamic_shapes": (
        dynamic_shapes,
        "batch left dynamic: TRANSPOSE_CONV output shape, RESHAPE, BROADCAST_TO and a 3-D Dense computed "
        "from SHAPE; float, TF int8 and 16x8 with LiteRT outputs at batch 1 and 3",
    ),
    "softmax16x8_huge_beta": (softmax16x8_huge_beta, "16x8 SOFTMAX with beta 1e12 (rescale exponent above 31)"),
    "signatures": (
        signatures,
        "tf.Module with three signatures (encode, decode, score) sharing one weight, from_saved_model with "
        "signature_keys: one subgraph each; LiteRT outputs per signature, TF's dynamic-range version",
    ),
    "ssd_detector": (ssd_detector, "tiny SSD: conv heads -> TFLite_Detection_PostProcess (regular NMS)"),
    **{n: (det_make(n), "TFLite_Detection_PostProcess op case (inputs: box encodings, class predictions)")
       for n in DET_CASES},
    "int4_weights": (
        int4_model,
        "INT4 weights (two to a byte) in FULLY_CONNECTED / CONV_2D / DEPTHWISE_CONV_2D: int8, 16x8, hybrid, "
        "behind DEQUANTIZE, and where LiteRT refuses them (realworld/int4.py); model.tflite = fc_int8_pc",
    ),
}


EXTRAS = {
    "control_flow": control_flow_tf_int8,
    "dynamic_shapes": dynamic_shapes_variants,
    "ssd_detector": ssd_detector_tf_int8,
    "signatures": signature_variants,
    **{n: fused_lstm_outputs for n in FUSED},
}

# Extras whose return value goes into the manifest entry under the given key.
MANIFEST_EXTRAS = {
    "int4_weights": [("int4_variants", int4_variants), ("aeq_dynamic_int4", aeq_dynamic_int4)],
}


def main() -> int:
    args = sys.argv[1:]
    if args[:1] == ["--tf-int8-child"]:
        tf_int8_child(args[1], Path(args[2]))
        return 0
    if args[:1] == ["--stream-int8-child"]:
        stream_tf_int8_child(args[1], Path(args[2]))
        return 0
    only = None
    if args[:1] == ["--only"] and len(args) == 2:
        only = args[1].split(",")
        unknown = [n for n in only if n not in MODELS]
        if unknown:
            raise SystemExit(f"unknown model(s) {unknown}; known: {list(MODELS)}")
    elif args:
        raise SystemExit(__doc__)
    manifest = {
        "generator": "tests/tools/make_realworld.py",
        "versions": {p: pkg_version(p) for p in ("tensorflow-cpu", "keras", "tf_keras", "ai-edge-litert", "numpy")},
        "models": {},
    }
    if only is None:
        if OUT.exists():
            shutil.rmtree(OUT)
        OUT.mkdir(parents=True)
    else:
        old = json.loads((OUT / "manifest.json").read_text())
        manifest["models"] = old["models"]
    for name, (make, what) in MODELS.items():
        if only is not None and name not in only:
            continue
        data = make()
        d = OUT / name
        if d.exists():
            shutil.rmtree(d)
        d.mkdir()
        path = d / "model.tflite"
        path.write_bytes(data)
        it = Interpreter(model_content=data)
        details = it.get_input_details()
        extra = {}
        if name in RECURRENT:
            inputs = recurrent_inputs(name, details)
            for k, x in enumerate(inputs):
                np.save(d / f"input_{k}.npy", x)
            per_sample = [litert_outputs(path, [x[s] for x in inputs]) for s in range(RECURRENT_SAMPLES)]
            err = next((e for o, e in per_sample if o is None), None)
            outs = None if err else [np.stack([o[k] for o, _ in per_sample]) for k in range(len(per_sample[0][0]))]
            if outs is not None:
                for k, y in enumerate(outs):
                    np.save(d / f"expected_output_{k}.npy", y)
            extra["samples"] = RECURRENT_SAMPLES
            extra["tf_int8"] = tf_int8(name, d)
            extra["tf_dynamic"] = tf_dynamic(name, d)
        elif name in STREAMING:
            inputs = stream_inputs(name, details)
            np.save(d / "input_0.npy", inputs[0])
            runs, err = save_stream(d, path, "expected_")
            outs = [] if runs else None
            extra["frames"] = STREAM_FRAMES
            extra["reset_from"] = STREAM_RESET_FROM
            extra.update(stream_variants(d, name))
        elif name in DET_CASES:
            # Unstacked (one sample); every output saved. The options, for the test to know which
            # slots LiteRT writes (fast NMS leaves those past the detections unwritten).
            inputs = det_inputs(name)
            for k, x in enumerate(inputs):
                np.save(d / f"input_{k}.npy", x)
            outs, err = litert_outputs(path, inputs)
            if outs is not None:
                for k, y in enumerate(outs):
                    np.save(d / f"expected_output_{k}.npy", y)
            _, _, opts, *_ = _det_case(name)
            extra["detection_options"] = opts
        else:
            rng = np.random.default_rng(int.from_bytes(hashlib.sha256(name.encode()).digest()[:4], "little"))
            inputs = [rng.uniform(-1.0, 1.0, size=dd["shape"]).astype(np.float32) for dd in details]
            for k, x in enumerate(inputs):
                np.save(d / f"input_{k}.npy", x[None, ...])
            outs, err = litert_outputs(path, inputs)
            if outs is not None:
                for k, y in enumerate(outs):
                    np.save(d / f"expected_output_{k}.npy", y[None, ...])
        if name in EXTRAS:
            EXTRAS[name](d)
        for key, fn in MANIFEST_EXTRAS.get(name, []):
            extra[key] = fn(d)
        files = {}
        for f in sorted(d.iterdir()):
            files[f.name] = {"sha256": hashlib.sha256(f.read_bytes()).hexdigest(), "size": f.stat().st_size}
        manifest["models"][name] = {
            "what": what,
            "ops": op_names(data),
            "litert_runs": outs is not None,
            "litert_error": err,
            "files": files,
            **extra,
        }
        print(f"{name:20s} {len(data):8d} B  ops={op_names(data)}  litert={'ok' if outs is not None else err}")
        if "tf_dynamic" in extra:
            print(f"{'':20s} TF dynamic: {extra['tf_dynamic']}")
        if "tf_int8" in extra:
            print(f"{'':20s} TF int8: {extra['tf_int8']}")
    (OUT / "manifest.json").write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
