"""Runs a float .tflite model through MediaPipe's own CPU inference, so that models with
MediaPipe's custom operators (`Convolution2DTransposeBias`, `Landmarks2TransformMatrix`, ...) have
a reference computed by the real tool. Run with the Python of a venv that has the mediapipe wheel
installed (`mediapipe/__init__.py` of the 0.10.x wheel imports cv2 and matplotlib for drawing
only: both are stubbed here, so neither is needed).

The graph is MediaPipe's own calculators:

    TfLiteCustomOpResolverCalculator  -> OP_RESOLVER (MediaPipe's builtin + custom operators)
    TensorConverterCalculator         MATRIX -> TENSORS   (one per model input: row-major copy,
                                                           no normalization)
    ConcatenateTensorVectorCalculator TENSORS... -> TENSORS (several inputs, in order)
    InferenceCalculator               TENSORS -> TENSORS  (delegate { tflite {} }: TFLite's CPU
                                                           kernels, no XNNPACK, which would run
                                                           the custom op itself)
    SplitTensorVectorCalculator       TENSORS -> one vector per output (several outputs)
    TensorsToFloatsCalculator         TENSORS -> FLOATS   (one per output)

Each input is fed as a rows x cols matrix holding the input tensor's values in row-major order
(rows = dim 1, cols = the product of the other dims): TensorConverterCalculator makes it a
[1, rows, cols, 1] tensor whose bytes are the model input's, and InferenceCalculator copies the
bytes into the interpreter's input.

    mp-venv/bin/python mediapipe_run.py MODEL.tflite N_OUTPUTS OUT.npz IN0.npy [IN1.npy ...]

writes the outputs, flat float32, as out0, out1, ... in OUT.npz.
"""

from __future__ import annotations

import sys
import types

import numpy as np

CONVERT = """
node {
  calculator: "TensorConverterCalculator"
  input_stream: "MATRIX:in%(k)d"
  output_stream: "TENSORS:t%(k)d"
  options { [mediapipe.TensorConverterCalculatorOptions.ext] { row_major_matrix: true } }
}
"""

INFER = """
node {
  calculator: "TfLiteCustomOpResolverCalculator"
  output_side_packet: "OP_RESOLVER:op_resolver"
}
node {
  calculator: "InferenceCalculator"
  input_stream: "TENSORS:%(src)s"
  output_stream: "TENSORS:out"
  input_side_packet: "OP_RESOLVER:op_resolver"
  options {
    [mediapipe.InferenceCalculatorOptions.ext] {
      model_path: "%(model)s"
      delegate { tflite {} }
    }
  }
}
"""

TO_FLOATS = """
node {
  calculator: "TensorsToFloatsCalculator"
  input_stream: "TENSORS:%s"
  output_stream: "FLOATS:f%d"
}
"""


def graph(model: str, n_in: int, n_out: int) -> str:
    """The graph config for a model with n_in inputs and n_out outputs."""
    g = "".join(f'input_stream: "in{k}"\n' for k in range(n_in))
    g += "".join(f'output_stream: "f{k}"\n' for k in range(n_out))
    g += "".join(CONVERT % {"k": k} for k in range(n_in))
    if n_in > 1:
        ins = "".join(f' input_stream: "t{k}"' for k in range(n_in))
        g += f'node {{ calculator: "ConcatenateTensorVectorCalculator"{ins} output_stream: "tensors" }}\n'
    g += INFER % {"src": "t0" if n_in == 1 else "tensors", "model": model}
    if n_out == 1:
        g += TO_FLOATS % ("out", 0)
    else:
        outs = "".join(f' output_stream: "o{k}"' for k in range(n_out))
        ranges = "".join(f" ranges {{ begin: {k} end: {k + 1} }}" for k in range(n_out))
        g += (f'node {{ calculator: "SplitTensorVectorCalculator" input_stream: "out"{outs}\n'
              f'  options {{ [mediapipe.SplitVectorCalculatorOptions.ext] {{{ranges} }} }} }}\n')
        g += "".join(TO_FLOATS % (f"o{k}", k) for k in range(n_out))
    return g


def run(model: str, xs: list, n_out: int = 1) -> list:
    """The model's outputs (flat, float32) for inputs `xs` (each any shape with dim 0 = 1)."""
    for stub in ("cv2", "matplotlib", "matplotlib.pyplot"):
        sys.modules.setdefault(stub, types.ModuleType(stub))
    import mediapipe as mp

    g = mp.CalculatorGraph(graph_config=graph(model, len(xs), n_out))
    got: dict = {k: [] for k in range(n_out)}
    for k in range(n_out):
        g.observe_output_stream(
            f"f{k}", lambda _s, p, k=k: got[k].append(np.array(mp.packet_getter.get_float_list(p), np.float32)))
    g.start_run()
    for k, x in enumerate(xs):
        rows = x.shape[1] if x.ndim > 1 else 1
        mat = np.ascontiguousarray(x.astype(np.float32).reshape(rows, -1))
        g.add_packet_to_input_stream(f"in{k}", mp.packet_creator.create_matrix(mat).at(0))
    g.close()
    if any(len(v) != 1 for v in got.values()):
        raise RuntimeError(f"MediaPipe produced {[len(v) for v in got.values()]} packets per output")
    return [got[k][0] for k in range(n_out)]


def main() -> int:
    model, n_out, out, *inputs = sys.argv[1:]
    outs = run(model, [np.load(i) for i in inputs], int(n_out))
    np.savez(out, **{f"out{k}": o for k, o in enumerate(outs)})
    return 0


if __name__ == "__main__":
    sys.exit(main())
