#!/usr/bin/env bash
# Builds the wasm engine three times into www/pkg/: `simd` (SIMD128 on), `relaxed` (SIMD128 +
# relaxed SIMD: the int8 convolutions use i32x4.relaxed_dot_i8x16_i7x16_add, in a way that is
# exact on every engine) and `nosimd` (no target feature). RUSTFLAGS, set for each, overrides
# .cargo/config.toml's +simd128. Each
# variant with its own RUSTFLAGS has its own target dir so they never rebuild each other.
# The page picks one at run time with feature probes (www/src/engine/loader.ts).
# Release builds add the size flags below and run wasm-opt; the script prints each file's raw and
# gzip size and fails if the SIMD build is over the size budget (WASM_SIZE_BUDGET bytes; README
# "Wasm size" has the breakdown and the measurements behind the flags).
#   usage: scripts/build-wasm.sh [--dev]
set -euo pipefail
cd "$(dirname "$0")/.."

# Release builds use the workspace's `wasm-release` profile: `release` with the `zeropoint` crate
# (everything but the kernels, which are the `zeropoint-kernels` crate) at opt-level "z".
profile=wasm-release
[ "${1:-}" = "--dev" ] && profile=dev
dir=$([ "$profile" = dev ] && echo debug || echo "$profile")
budget=${WASM_SIZE_BUDGET:-1730000}
# Size flags (release only), measured on the SIMD build with int8 inference and calibration timed
# before/after (no slowdown seen): no auto-vectorization (-95 KB; the fast kernels are written
# with SIMD intrinsics, the reference and calibration kernels keep their scalar summation orders
# anyway). opt-level "s" / "z" for the kernels slowed them; the rest is at "z" in the
# `wasm-release` profile (the workspace Cargo.toml; the generated TFLite schema too). LLVM's
# inliner keeps its per-level thresholds: an explicit -inline-threshold (it was 50, when the
# kernels shared a crate with the rest) would also raise opt-level "z" code's threshold of 5
# (README "Wasm size").
size_flags=""
[ "$profile" = wasm-release ] && size_flags="-C no-vectorize-loops -C no-vectorize-slp"
cargo_args=(build -p zeropoint --lib --target wasm32-unknown-unknown --no-default-features --features wasm --profile "$profile")

command -v wasm-bindgen >/dev/null || { echo "wasm-bindgen not found: run scripts/setup.sh" >&2; exit 1; }
wasm_opt=node_modules/.bin/wasm-opt

# What wasm-bindgen + wasm-opt make of variant $1 depends on: cargo's .wasm, the tools' versions,
# the profile and this script's build step. Its hash, with the hash of the output it gave, is kept
# in target/wasm-stamps/$1; an unchanged input with an untouched output is not built again (a
# second `npm start` with nothing changed skips wasm-bindgen and wasm-opt).
stamps=target/wasm-stamps
input_hash() { # $1 = variant, $2 = cargo's .wasm
  {
    sha256sum < "$2"
    echo "$1 $profile"
    wasm-bindgen --version
    [ -x "$wasm_opt" ] && "$wasm_opt" --version
    sed -n '/^build() {/,/^}/p' "$0"
  } | sha256sum | cut -d' ' -f1
}
output_hash() { cat "$1/zeropoint_bg.wasm" "$1/zeropoint.js" "$1/zeropoint.d.ts" "$1/zeropoint_bg.wasm.d.ts" 2>/dev/null | sha256sum | cut -d' ' -f1; }

build() { # $1 = variant name, $2 = cargo target dir
  local out="www/pkg/$1" wasm="$2/wasm32-unknown-unknown/$dir/zeropoint.wasm" stamp="$stamps/$1" key
  key=$(input_hash "$1" "$wasm")
  if [ -f "$stamp" ] && [ -f "$out/zeropoint_bg.wasm" ] && [ "$(cat "$stamp")" = "$key $(output_hash "$out")" ]; then
    echo "up to date $out ($(wc -c < "$out/zeropoint_bg.wasm") bytes): same input, output untouched"
    return
  fi
  rm -f "$stamp"
  wasm-bindgen --target web --out-dir "$out" --out-name zeropoint "$wasm"
  if [ "$profile" = wasm-release ] && [ -x "$wasm_opt" ]; then
    local feats=(--enable-bulk-memory --enable-mutable-globals --enable-nontrapping-float-to-int
                 --enable-sign-ext --enable-reference-types --enable-multivalue)
    [ "$1" = simd ] && feats+=(--enable-simd)
    [ "$1" = relaxed ] && feats+=(--enable-simd --enable-relaxed-simd)
    # -O is binaryen's -Os; -Oz came out larger here, -O3 too. --strip-producers: build metadata.
    "$wasm_opt" -O --strip-producers "${feats[@]}" "$out/zeropoint_bg.wasm" -o "$out/zeropoint_bg.wasm"
  fi
  echo "built $out ($(wc -c < "$out/zeropoint_bg.wasm") bytes, $(gzip -9c "$out/zeropoint_bg.wasm" | wc -c) gzip -9)"
  mkdir -p "$stamps"
  echo "$key $(output_hash "$out")" > "$stamp"
}

# The size budget of the SIMD build (the one almost every browser loads), release builds only.
check_size() {
  local wasm=www/pkg/simd/zeropoint_bg.wasm size
  size=$(wc -c < "$wasm")
  if [ "$size" -gt "$budget" ]; then
    echo "FAILED: $wasm is $size bytes, over the budget of $budget bytes (README: wasm size)" >&2
    exit 1
  fi
  echo "size budget: $wasm is $size bytes <= $budget"
}

RUSTFLAGS="-C target-feature=+simd128 $size_flags" CARGO_TARGET_DIR=target/wasm-simd cargo "${cargo_args[@]}"
build simd target/wasm-simd
[ "$profile" = dev ] || check_size
RUSTFLAGS="-C target-feature=+simd128,+relaxed-simd $size_flags" CARGO_TARGET_DIR=target/relaxed cargo "${cargo_args[@]}"
build relaxed target/relaxed
RUSTFLAGS="$size_flags" CARGO_TARGET_DIR=target/nosimd cargo "${cargo_args[@]}"
build nosimd target/nosimd
