"""Copy a kept mutant into tests/fixtures/mutants/<seed>-<n>/ with the harness's inputs for it
(`litert_worker.inputs_for`, seed = mutant number) and LiteRT 2.3 BUILTIN_REF's outputs, for a
Rust regression test of a wrong-answer fix. A model holding an operator BUILTIN_REF computes
wrongly (golden_resolver.REFERENCE_DEFECTS) gets the outputs the harness compares with there:
the model run per operator (per_op.py), that operator on the optimized kernels, unless
`--reference` is given: BUILTIN_REF's outputs anyway, for a mutant where the defect does not
apply and the harness compared with BUILTIN_REF (an empty SUM: BUILTIN_REF writes 0, the
optimized kernel leaves its output unwritten).

    python tests/tools/mutation/make_fixture.py KEPT_DIR/mutant-4-2418.tflite [--reference]
"""

import shutil
import sys
from pathlib import Path

import numpy as np
from ai_edge_litert.interpreter import Interpreter, OpResolverType

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import per_op  # noqa: E402
from mutate import has_reference_defect  # noqa: E402
from mutation.litert_worker import inputs_for, interpreter  # noqa: E402

REPO = Path(__file__).resolve().parents[3]


def main() -> None:
    src = Path(sys.argv[1])
    reference = "--reference" in sys.argv[2:]
    seed, n = src.stem.split("-")[1:3]
    out = REPO / "tests" / "fixtures" / "mutants" / f"{seed}-{n}"
    out.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(src, out / "model.tflite")
    it = Interpreter(model_path=str(src), experimental_op_resolver_type=OpResolverType.BUILTIN_REF)
    it.allocate_tensors()
    details = it.get_input_details()
    inputs = inputs_for(details, int(n))
    for i, (d, x) in enumerate(zip(details, inputs)):
        np.save(out / f"input_{i}.npy", x)
        it.set_tensor(d["index"], x)
    data = src.read_bytes()
    if has_reference_defect(data) and not reference:
        m, parts = per_op.pieces(data, interpreter)
        values = {int(t): x for t, x in zip(m.subgraphs[0].inputs, inputs)}
        for _ in per_op.run_sample(parts, values):
            pass
        outputs = [values[int(t)] for t in m.subgraphs[0].outputs]
    else:
        it.invoke()
        outputs = [it.get_tensor(d["index"]) for d in it.get_output_details()]
    for i, y in enumerate(outputs):
        np.save(out / f"litert_output_{i}.npy", y)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
