#!/usr/bin/env python3
"""The range of versions of each builtin operator the pinned LiteRT registers, asked of LiteRT.

LiteRT's op resolvers register each builtin for a range of versions (`AddBuiltin(op, reg, min,
max)` in `tflite/core/kernels/register.cc` for the default resolver, `register_ref.cc` for
`BUILTIN_REF`), and the interpreter builder refuses a model whose operator code asks for a
version outside it ("Didn't find op for builtin opcode 'X' version 'N'"). Rather than copy the
numbers from those files, this tool builds, for every builtin of the schema, a one-operator model
(no tensors or options: the builder resolves operator codes before it reads operators, so
any later complaint, e.g. missing LSTM options, means the version resolved) with versions
1, 2, … and records the first and last one `ai_edge_litert.Interpreter` constructs with, once for the
default resolver (`AUTO`) and once for `BUILTIN_REF`. The registered versions must be one run
(checked; BROADCAST_TO starts at 2); [0, 0] means "not registered". The custom operator LiteRT
registers, `TFLite_Detection_PostProcess`, is probed on `tests/realworld/detpp_fast` with its
operator code's version set to 0, 1, 2, …: an unresolved custom operator only fails at
`allocate_tensors` ("Encountered unresolved custom op"), so that is called too (the `custom` map).

It writes `tests/fixtures/litert_op_versions.json`; `tests/rust/op_table.rs` checks the op
table's `versions` column (`crate/src/ops/registry.rs`) against its `default` map.

Usage (from tests/tools, with the pinned TF env):
    PYTHONDONTWRITEBYTECODE=1 python op_versions.py [--out FILE]
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import os
import pathlib

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import flatbuffers  # noqa: E402
from ai_edge_litert import schema_py_generated as tfl  # noqa: E402
from ai_edge_litert.interpreter import Interpreter, OpResolverType  # noqa: E402

# Versions above this are not probed; a builtin still loading here is an error (raise it).
PROBE_LIMIT = 32
REPO = pathlib.Path(__file__).resolve().parents[2]


def one_op_model(code: int, version: int) -> bytes:
    m = tfl.ModelT()
    m.version = 3
    oc = tfl.OperatorCodeT()
    oc.builtinCode = code
    oc.deprecatedBuiltinCode = min(code, 127)
    oc.version = version
    m.operatorCodes = [oc]
    sg = tfl.SubGraphT()
    sg.tensors, sg.inputs, sg.outputs = [], [], []
    op = tfl.OperatorT()
    op.opcodeIndex = 0
    op.inputs, op.outputs = [], []
    sg.operators = [op]
    m.subgraphs = [sg]
    m.buffers = [tfl.BufferT()]
    b = flatbuffers.Builder(256)
    b.Finish(m.Pack(b), file_identifier=b"TFL3")
    return bytes(b.Output())


def resolves(code: int, version: int, resolver: OpResolverType) -> bool:
    try:
        Interpreter(model_content=one_op_model(code, version), experimental_op_resolver_type=resolver)
    except (ValueError, RuntimeError) as e:
        if "Didn't find op for builtin opcode" in str(e):
            return False
        # Any later failure (e.g. "No valid LSTM builtin options exist" while reading the
        # operator) comes after the operator code resolved.
    return True


def version_range(code: int, resolver: OpResolverType) -> list[int]:
    found = [v for v in range(1, PROBE_LIMIT + 1) if resolves(code, v, resolver)]
    if found and found != list(range(found[0], found[-1] + 1)):
        raise RuntimeError(f"builtin {code}: registered versions {found} are not one run")
    if found and found[-1] == PROBE_LIMIT:
        raise RuntimeError(f"builtin {code}: still loads at version {PROBE_LIMIT}; raise PROBE_LIMIT")
    return [found[0], found[-1]] if found else [0, 0]


def custom_resolves(name: str, model: pathlib.Path, version: int, resolver: OpResolverType) -> bool:
    m = tfl.ModelT.InitFromPackedBuf(bytearray(model.read_bytes()), 0)
    for oc in m.operatorCodes:
        code = oc.customCode.decode() if isinstance(oc.customCode, bytes) else oc.customCode
        if code == name:
            oc.version = version
    b = flatbuffers.Builder(1024)
    b.Finish(m.Pack(b), file_identifier=b"TFL3")
    try:
        it = Interpreter(model_content=bytes(b.Output()), experimental_op_resolver_type=resolver)
        it.allocate_tensors()
    except (ValueError, RuntimeError) as e:
        if "unresolved custom op" in str(e):
            return False
        raise
    return True


def custom_range(name: str, model: pathlib.Path, resolver: OpResolverType) -> list[int]:
    found = [v for v in range(0, PROBE_LIMIT + 1) if custom_resolves(name, model, v, resolver)]
    if found and found != list(range(found[0], found[-1] + 1)):
        raise RuntimeError(f"{name}: registered versions {found} are not one run")
    if found and found[-1] == PROBE_LIMIT:
        raise RuntimeError(f"{name}: still loads at version {PROBE_LIMIT}; raise PROBE_LIMIT")
    return [found[0], found[-1]] if found else [0, 0]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=pathlib.Path, default=REPO / "tests/fixtures/litert_op_versions.json")
    args = ap.parse_args()
    names = {v: k for k, v in vars(tfl.BuiltinOperator).items() if not k.startswith("_") and isinstance(v, int)}
    out = {
        "source": "tests/tools/op_versions.py: [lowest, highest] version each builtin loads with "
        "in ai_edge_litert.Interpreter ([0, 0]: not registered); default = OpResolverType.AUTO "
        "(register.cc), builtin_ref = OpResolverType.BUILTIN_REF (register_ref.cc)",
        "ai_edge_litert": importlib.metadata.version("ai-edge-litert"),
        "default": {},
        "builtin_ref": {},
    }
    for code in sorted(names):
        if names[code] == "CUSTOM":
            continue
        out["default"][names[code]] = version_range(code, OpResolverType.AUTO)
        out["builtin_ref"][names[code]] = version_range(code, OpResolverType.BUILTIN_REF)
    det = REPO / "tests/realworld/detpp_fast/model.tflite"
    out["custom"] = {"TFLite_Detection_PostProcess": custom_range("TFLite_Detection_PostProcess", det, OpResolverType.AUTO)}
    args.out.write_text(json.dumps(out, indent=1) + "\n")
    differ = {k: (v, out["builtin_ref"][k]) for k, v in out["default"].items() if v != out["builtin_ref"][k]}
    print(f"wrote {args.out}: {len(out['default'])} builtins; default != BUILTIN_REF for {differ}")


if __name__ == "__main__":
    main()
