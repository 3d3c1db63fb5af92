"""Runs a one-input, one-output float .tflite model through MediaPipe's own CPU inference, so
that models with MediaPipe's custom operators (`Convolution2DTransposeBias`, ...) have a
reference computed by the real tool. Run with the Python of a venv that has the mediapipe wheel
installed (`mediapipe/__init__.py` of the 0.10.x wheel imports cv2 and matplotlib for drawing
only: both are stubbed here, so neither is needed).

The graph is MediaPipe's own calculators:

    TfLiteCustomOpResolverCalculator  -> OP_RESOLVER (MediaPipe's builtin + custom operators)
    TensorConverterCalculator         MATRIX -> TENSORS   (row-major copy, no normalization)
    InferenceCalculator               TENSORS -> TENSORS  (delegate { tflite {} }: TFLite's CPU
                                                           kernels, no XNNPACK, which would run
                                                           the custom op itself)
    TensorsToFloatsCalculator         TENSORS -> FLOATS

The input is fed as a rows x cols matrix holding the input tensor's values in row-major order
(rows = dim 1, cols = the product of the other dims): TensorConverterCalculator makes it a
[1, rows, cols, 1] tensor whose bytes are the model input's, and InferenceCalculator copies the
bytes into the interpreter's input.

    mp-venv/bin/python mediapipe_run.py MODEL.tflite IN.npy OUT.npy
"""

from __future__ import annotations

import sys
import types

import numpy as np

GRAPH = """
input_stream: "matrix"
output_stream: "floats"
node {
  calculator: "TfLiteCustomOpResolverCalculator"
  output_side_packet: "OP_RESOLVER:op_resolver"
}
node {
  calculator: "TensorConverterCalculator"
  input_stream: "MATRIX:matrix"
  output_stream: "TENSORS:tensors"
  options { [mediapipe.TensorConverterCalculatorOptions.ext] { row_major_matrix: true } }
}
node {
  calculator: "InferenceCalculator"
  input_stream: "TENSORS:tensors"
  output_stream: "TENSORS:out"
  input_side_packet: "OP_RESOLVER:op_resolver"
  options {
    [mediapipe.InferenceCalculatorOptions.ext] {
      model_path: "%s"
      delegate { tflite {} }
    }
  }
}
node {
  calculator: "TensorsToFloatsCalculator"
  input_stream: "TENSORS:out"
  output_stream: "FLOATS:floats"
}
"""


def run(model: str, x: np.ndarray) -> np.ndarray:
    """The model's single output for input `x` (any shape with dim 0 = 1), flat, float32."""
    for stub in ("cv2", "matplotlib", "matplotlib.pyplot"):
        sys.modules.setdefault(stub, types.ModuleType(stub))
    import mediapipe as mp

    graph = mp.CalculatorGraph(graph_config=GRAPH % model)
    got: list[np.ndarray] = []
    graph.observe_output_stream(
        "floats", lambda _s, p: got.append(np.array(mp.packet_getter.get_float_list(p), np.float32))
    )
    graph.start_run()
    rows = x.shape[1] if x.ndim > 1 else 1
    mat = np.ascontiguousarray(x.astype(np.float32).reshape(rows, -1))
    graph.add_packet_to_input_stream("matrix", mp.packet_creator.create_matrix(mat).at(0))
    graph.close()
    if len(got) != 1:
        raise RuntimeError(f"MediaPipe produced {len(got)} outputs")
    return got[0]


def main() -> int:
    model, inp, out = sys.argv[1:4]
    x = np.load(inp)
    np.save(out, run(model, x))
    return 0


if __name__ == "__main__":
    sys.exit(main())
