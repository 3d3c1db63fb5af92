"""The LiteRT op resolver a golden case's expected outputs come from, for the cross-check scripts.

BUILTIN_REF (the reference kernels) unless the case's case.toml names another in
`expected_resolver`: the generator (goldens/generate.py) writes that key for an op LiteRT's
BUILTIN_REF resolver does not register (CEIL, ROUND and ELU in LiteRT 2.3), whose goldens come
from BUILTIN_WITHOUT_DEFAULT_DELEGATES. Standard library only (no tomllib needed).
"""

from __future__ import annotations

import re
from pathlib import Path

DEFAULT = "BUILTIN_REF"
# Operators LiteRT 2.3's BUILTIN_REF registers but computes wrongly on integer inputs: SUM with
# rescaling reads int8 / int16 inputs as unsigned (every negative int8 sum comes out -1), and an
# int16 SUM with the same scale in and out fills only part of each output element (the rest is
# whatever the arena held, so the result changes from run to run; the optimized kernel saturates
# the int16 sum, as our engine does). The goldens generator runs them on
# BUILTIN_WITHOUT_DEFAULT_DELEGATES (goldens/litert.py run_per_op), the mutation harness checks a
# mismatch on a model holding one against it, and check_quantized.py runs a several-subgraph
# model holding one (per_op.reference_defect_ops) whole on that resolver.
REFERENCE_DEFECTS = {"SUM"}
_KEY = re.compile(r'^expected_resolver = "([A-Z_]+)"$', re.M)


def resolver_name(case_dir: Path) -> str:
    """The `OpResolverType` member name for the case in `case_dir` (DEFAULT when it has no
    case.toml or the key is absent)."""
    toml = case_dir / "case.toml"
    if not toml.is_file():
        return DEFAULT
    m = _KEY.search(toml.read_text())
    return m.group(1) if m else DEFAULT
