"""Recurrent models: Keras 3 LSTM/GRU/Bidirectional (WHILE loops) and tf_keras LSTMs fused into
UNIDIRECTIONAL_SEQUENCE_LSTM, with TF's int8 (in a child process) and dynamic-range conversions."""

from __future__ import annotations

import functools
import hashlib
import subprocess
import sys
from pathlib import Path

import numpy as np
import tensorflow as tf
import keras
from ai_edge_litert.interpreter import Interpreter, OpResolverType
from tensorflow.lite.python import schema_py_generated as schema
from tensorflow.lite.tools import flatbuffer_utils

from .common import MAIN, convert_keras, litert_outputs, op_names, seed


@functools.cache  # one model for the float and dynamic-range conversions: same tensor names
def lstm_classifier_keras() -> keras.Model:
    seed(31)
    inp = keras.Input((12,), batch_size=1, dtype="int32", name="tokens")
    x = keras.layers.Embedding(50, 16, name="embed")(inp)
    x = keras.layers.LSTM(32, name="lstm")(x)
    out = keras.layers.Dense(3, activation="softmax", name="probs")(x)
    return keras.Model(inp, out)


@functools.cache  # one model for the float and dynamic-range conversions: same tensor names
def gru_kws_keras() -> keras.Model:
    seed(32)
    inp = keras.Input((10, 12), batch_size=1, name="frames")
    x = keras.layers.GRU(32, name="gru")(inp)
    out = keras.layers.Dense(4, activation="softmax", name="keywords")(x)
    return keras.Model(inp, out)


@functools.cache  # one model for the float and dynamic-range conversions: same tensor names
def bilstm_keras() -> keras.Model:
    seed(33)
    inp = keras.Input((6, 4), batch_size=1, name="sequence")
    x = keras.layers.Bidirectional(keras.layers.LSTM(5), name="bilstm")(inp)
    out = keras.layers.Dense(2, name="head")(x)
    return keras.Model(inp, out)



# --- Fused recurrent ops (tf_keras) -----------------------------------------------------------
# Keras 2 (tf_keras) LSTM layers carry TF's `api_implements` marker, which TF's converter fuses
# into the builtin UNIDIRECTIONAL_SEQUENCE_LSTM (Keras 3 gives WHILE loops instead). Exported
# through a concrete function (from_keras_model expects Keras 3 models).


@functools.cache  # one model for the float, dynamic-range and int8 conversions: same tensor names
def lstm_fused_tf_keras():
    import tf_keras

    seed(34)
    tf_keras.utils.set_random_seed(34)
    inp = tf_keras.Input((10,), batch_size=1, dtype="int32", name="tokens")
    x = tf_keras.layers.Embedding(50, 32, name="embed")(inp)
    # 32x32 gate weights (>= 1024 elements: int8 in TF's dynamic-range model, hybrid kernel) ...
    x = tf_keras.layers.LSTM(32, return_sequences=True, name="lstm_seq")(x)
    # ... and 16x32 / 16x16 ones (below 1024: stay float there).
    x = tf_keras.layers.LSTM(16, name="lstm_last")(x)
    out = tf_keras.layers.Dense(3, activation="softmax", name="probs")(x)
    return tf_keras.Model(inp, out)


def fused_converter(name: str) -> tf.lite.TFLiteConverter:
    model = FUSED[name]()
    spec = [tf.TensorSpec(t.shape, t.dtype, name=t.name.split(":")[0]) for t in model.inputs]
    fn = tf.function(lambda *xs: model(list(xs) if len(xs) > 1 else xs[0])).get_concrete_function(*spec)
    return tf.lite.TFLiteConverter.from_concrete_functions([fn], model)


def convert_fused(name: str, **opts) -> bytes:
    conv = fused_converter(name)
    for k, v in opts.items():
        setattr(conv, k, v)
    return conv.convert()


FUSED = {"lstm_fused": lstm_fused_tf_keras}


# The edge copy of TF's int8 model: the embedding (GATHER's table and output, the first LSTM's
# input) at 64x its scale, so that the gates saturate, and both cell states at 2^-12, inside the
# range LiteRT's int16 tanh of the cell handles (TF's calibrated 2^-19 and 2^-20 are outside it).
EDGE_INPUT_GAIN = 64.0
EDGE_CELL_SCALE = 2.0**-12


def lstm_op_indices(m) -> list[int]:
    code = schema.BuiltinOperator.UNIDIRECTIONAL_SEQUENCE_LSTM
    return [
        i
        for i, op in enumerate(m.subgraphs[0].operators)
        if max(m.operatorCodes[op.opcodeIndex].builtinCode, m.operatorCodes[op.opcodeIndex].deprecatedBuiltinCode)
        == code
    ]


def int8_edge_model(d: Path) -> None:
    """model_int8_edge.tflite: model_int8.tflite with the edits above (see EDGE_*)."""
    m = flatbuffer_utils.convert_bytearray_to_object(bytearray((d / "model_int8.tflite").read_bytes()))
    sg = m.subgraphs[0]
    lstms = [sg.operators[i] for i in lstm_op_indices(m)]
    x = lstms[0].inputs[0]
    gather = next(op for op in sg.operators if x in list(op.outputs))
    for t in (x, gather.inputs[0]):
        q = sg.tensors[t].quantization
        q.scale = np.array(q.scale, dtype=np.float32) * np.float32(EDGE_INPUT_GAIN)
    for op in lstms:
        q = sg.tensors[op.inputs[19]].quantization
        q.scale = np.array([EDGE_CELL_SCALE], dtype=np.float32)
    (d / "model_int8_edge.tflite").write_bytes(bytes(flatbuffer_utils.convert_object_to_bytearray(m)))


def fused_lstm_outputs(d: Path) -> None:
    """The output of every UNIDIRECTIONAL_SEQUENCE_LSTM in model.tflite, model_dynamic.tflite,
    model_int8.tflite and model_int8_edge.tflite (written here, int8_edge_model) as LiteRT
    BUILTIN_REF computes it on each test sample (a fresh interpreter per sample, all tensors
    preserved): expected_lstm_<k>.npy, expected_dynamic_lstm_<k>.npy, expected_int8_lstm_<k>.npy
    and expected_int8_edge_lstm_<k>.npy for the k-th LSTM in operator order, samples stacked first
    (the classifier's softmax output alone hides last-bit differences inside the LSTMs); for the
    edge model also its output (expected_int8_edge_output_0.npy). The int8 files only when TF's
    int8 conversion wrote model_int8.tflite."""
    x = np.load(d / "input_0.npy")
    files = [("model.tflite", "expected_"), ("model_dynamic.tflite", "expected_dynamic_")]
    if (d / "model_int8.tflite").exists():
        int8_edge_model(d)
        files += [("model_int8.tflite", "expected_int8_"), ("model_int8_edge.tflite", "expected_int8_edge_")]
    for file, prefix in files:
        m = flatbuffer_utils.convert_bytearray_to_object(bytearray((d / file).read_bytes()))
        outs = [m.subgraphs[0].operators[i].outputs[0] for i in lstm_op_indices(m)]
        per_sample = []
        model_out = []
        for sample in x:
            it = Interpreter(
                model_path=str(d / file),
                experimental_op_resolver_type=OpResolverType.BUILTIN_REF,
                experimental_preserve_all_tensors=True,
            )
            it.allocate_tensors()
            it.set_tensor(it.get_input_details()[0]["index"], sample)
            it.invoke()
            per_sample.append([it.get_tensor(t).copy() for t in outs])
            model_out.append(it.get_tensor(it.get_output_details()[0]["index"]).copy())
        for k in range(len(outs)):
            np.save(d / f"{prefix}lstm_{k}.npy", np.stack([p[k] for p in per_sample]))
        if file == "model_int8_edge.tflite":
            np.save(d / f"{prefix}output_0.npy", np.stack(model_out))


RECURRENT = {
    "lstm_classifier": lstm_classifier_keras,
    "gru_kws": gru_kws_keras,
    "bilstm": bilstm_keras,
    **FUSED,
}
RECURRENT_SAMPLES = 3


def recurrent_inputs(name: str, details) -> list[np.ndarray]:
    """RECURRENT_SAMPLES samples per input, stacked on a leading axis: token ids in [0, 50) for
    int32 inputs, uniform [-1, 1) features otherwise."""
    rng = np.random.default_rng(int.from_bytes(hashlib.sha256(name.encode()).digest()[:4], "little"))
    out = []
    for dd in details:
        shape = (RECURRENT_SAMPLES, *dd["shape"])
        if dd["dtype"] == np.int32:
            out.append(rng.integers(0, 50, size=shape).astype(np.int32))
        else:
            out.append(rng.uniform(-1.0, 1.0, size=shape).astype(np.float32))
    return out


def tf_int8_child(name: str, out: Path) -> None:
    """Child process: TF's full-integer conversion (float I/O, representative data from
    recurrent_inputs' generator) of recurrent model `name`, written to `out`; for the fused LSTMs
    also TF's calibrate-only model of the same data (the float model with the calibrator's
    min/max on its tensors, the LSTM states included) as model_calibrated.tflite beside it."""
    if name in FUSED:
        conv = fused_converter(name)
        details = Interpreter(model_content=convert_fused(name)).get_input_details()
    else:
        model = RECURRENT[name]()
        conv = tf.lite.TFLiteConverter.from_keras_model(model)
        details = Interpreter(model_content=convert_keras(model)).get_input_details()
    conv.optimizations = [tf.lite.Optimize.DEFAULT]

    def rep():
        for k in range(8):
            xs = recurrent_inputs(f"{name}-calibration-{k}", details)
            yield [x[0] for x in xs]

    conv.representative_dataset = rep
    out.write_bytes(conv.convert())
    if name in FUSED:
        cal = fused_converter(name)
        cal.optimizations = [tf.lite.Optimize.DEFAULT]
        cal.representative_dataset = rep
        cal._experimental_calibrate_only = True
        (out.parent / "model_calibrated.tflite").write_bytes(cal.convert())


def tf_dynamic(name: str, d: Path) -> dict:
    """TF's dynamic-range conversion (Optimize.DEFAULT, no representative data: int8 weights of
    at least 1024 elements, hybrid kernels) of recurrent model `name`, kept as model_dynamic.tflite
    with LiteRT BUILTIN_REF outputs on the test inputs (expected_dynamic_output_<k>.npy)."""
    opts = {"optimizations": [tf.lite.Optimize.DEFAULT]}
    data = convert_fused(name, **opts) if name in FUSED else convert_keras(RECURRENT[name](), **opts)
    path = d / "model_dynamic.tflite"
    path.write_bytes(data)
    xs = recurrent_inputs(name, Interpreter(model_content=data).get_input_details())
    outs = []
    for s in range(RECURRENT_SAMPLES):
        o, err = litert_outputs(path, [x[s] for x in xs])
        if o is None:
            return {"litert_runs": False, "litert_error": err, "ops": op_names(data)}
        outs.append(o)
    for k in range(len(outs[0])):
        np.save(d / f"expected_dynamic_output_{k}.npy", np.stack([o[k] for o in outs]))
    return {"litert_runs": True, "ops": op_names(data)}


def tf_int8(name: str, d: Path) -> dict:
    """Runs tf_int8_child in a child process (TF's calibrator may crash) and records the outcome;
    a model TF writes is kept as model_int8.tflite with LiteRT outputs on the test inputs. For the
    fused LSTMs, TF's representative samples are kept as calib.npy (stacked first), so that our
    quantizer can calibrate on the same data."""
    path = d / "model_int8.tflite"
    if name in FUSED:
        details = Interpreter(model_content=convert_fused(name)).get_input_details()
        calib = [recurrent_inputs(f"{name}-calibration-{k}", details)[0][0] for k in range(8)]
        np.save(d / "calib.npy", np.stack(calib))
    r = subprocess.run(
        [sys.executable, str(MAIN), "--tf-int8-child", name, str(path)],
        capture_output=True,
        text=True,
    )
    if r.returncode != 0:
        path.unlink(missing_ok=True)
        (d / "model_calibrated.tflite").unlink(missing_ok=True)
        how = f"signal {-r.returncode}" if r.returncode < 0 else f"exit {r.returncode}"
        return {"converts": False, "outcome": f"TF's full-integer conversion died ({how})"}
    data = path.read_bytes()
    xs = recurrent_inputs(name, Interpreter(model_content=data).get_input_details())
    outs = []
    for s in range(RECURRENT_SAMPLES):
        o, err = litert_outputs(path, [x[s] for x in xs])
        if o is None:
            return {"converts": True, "litert_runs": False, "outcome": err, "ops": op_names(data)}
        outs.append(o)
    for k in range(len(outs[0])):
        np.save(d / f"expected_int8_output_{k}.npy", np.stack([o[k] for o in outs]))
    return {"converts": True, "litert_runs": True, "ops": op_names(data)}
