#!/usr/bin/env bash
# Builds the wasm engine three times into www/pkg/: `simd` (SIMD128 on, from .cargo/config.toml),
# `relaxed` (SIMD128 + relaxed SIMD: the int8 convolutions use i32x4.relaxed_dot_i8x16_i7x16_add,
# in a way that is exact on every engine) and `nosimd` (RUSTFLAGS="" overrides the config). Each
# variant with its own RUSTFLAGS has its own target dir so they never rebuild each other.
# The page picks one at run time with feature probes (www/src/engine/loader.ts).
#   usage: scripts/build-wasm.sh [--dev]
set -euo pipefail
cd "$(dirname "$0")/.."

profile=release
[ "${1:-}" = "--dev" ] && profile=dev
dir=$([ "$profile" = dev ] && echo debug || echo release)
cargo_args=(build -p zeropoint --lib --target wasm32-unknown-unknown --no-default-features --features wasm --profile "$profile")

command -v wasm-bindgen >/dev/null || { echo "wasm-bindgen not found: run scripts/setup.sh" >&2; exit 1; }
wasm_opt=node_modules/.bin/wasm-opt

build() { # $1 = variant name, $2 = cargo target dir
  local out="www/pkg/$1" wasm="$2/wasm32-unknown-unknown/$dir/zeropoint.wasm"
  wasm-bindgen --target web --out-dir "$out" --out-name zeropoint "$wasm"
  if [ "$profile" = release ] && [ -x "$wasm_opt" ]; then
    local feats=(--enable-bulk-memory --enable-mutable-globals --enable-nontrapping-float-to-int
                 --enable-sign-ext --enable-reference-types --enable-multivalue)
    [ "$1" = simd ] && feats+=(--enable-simd)
    [ "$1" = relaxed ] && feats+=(--enable-simd --enable-relaxed-simd)
    "$wasm_opt" -O "${feats[@]}" "$out/zeropoint_bg.wasm" -o "$out/zeropoint_bg.wasm"
  fi
  echo "built $out ($(wc -c < "$out/zeropoint_bg.wasm") bytes)"
}

cargo "${cargo_args[@]}"
build simd target
RUSTFLAGS="-C target-feature=+simd128,+relaxed-simd" CARGO_TARGET_DIR=target/relaxed cargo "${cargo_args[@]}"
build relaxed target/relaxed
RUSTFLAGS="" CARGO_TARGET_DIR=target/nosimd cargo "${cargo_args[@]}"
build nosimd target/nosimd
