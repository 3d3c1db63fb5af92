"""Copy a kept mutant into tests/fixtures/mutants/<seed>-<n>/ with the harness's inputs for it
(`litert_worker.inputs_for`, seed = mutant number) and LiteRT 2.3 BUILTIN_REF's outputs, for a
Rust regression test of a wrong-answer fix.

    python tests/tools/mutation/make_fixture.py KEPT_DIR/mutant-4-2418.tflite
"""

import shutil
import sys
from pathlib import Path

import numpy as np
from ai_edge_litert.interpreter import Interpreter, OpResolverType

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from mutation.litert_worker import inputs_for  # noqa: E402

REPO = Path(__file__).resolve().parents[3]


def main() -> None:
    src = Path(sys.argv[1])
    seed, n = src.stem.split("-")[1:3]
    out = REPO / "tests" / "fixtures" / "mutants" / f"{seed}-{n}"
    out.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(src, out / "model.tflite")
    it = Interpreter(model_path=str(src), experimental_op_resolver_type=OpResolverType.BUILTIN_REF)
    it.allocate_tensors()
    details = it.get_input_details()
    for i, (d, x) in enumerate(zip(details, inputs_for(details, int(n)))):
        np.save(out / f"input_{i}.npy", x)
        it.set_tensor(d["index"], x)
    it.invoke()
    for i, d in enumerate(it.get_output_details()):
        np.save(out / f"litert_output_{i}.npy", it.get_tensor(d["index"]))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
