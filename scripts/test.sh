#!/usr/bin/env bash
# `npm test`: every layer, in order, failing fast and failing loudly if a layer ran no test.
#   fmt → clippy (native + wasm) → Rust tests (native) → Rust tests in wasm (Node, SIMD on)
#   → wasm builds → TS lint/typecheck → TS unit tests → LiteRT cross-check → LiteRT check of
#   our quantized models → mutation harness → browser e2e
# Logs of each step go to artifacts/logs/; screenshots to artifacts/e2e/.
set -euo pipefail
cd "$(dirname "$0")/.."
logs=artifacts/logs
mkdir -p "$logs"
total=0
summary=()

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

# run NAME CMD…: runs CMD with output to the terminal and to $logs/NAME.log; stops on failure.
run() {
  local name=$1; shift
  if ! "$@" 2>&1 | tee "$logs/$name.log"; then
    echo "FAILED: $name (log: $logs/$name.log)" >&2
    exit 1
  fi
}

# count NAME N: records that layer NAME ran N tests; zero tests is a failure.
count() {
  if [ "${2:-0}" -le 0 ]; then
    echo "FAILED: $1 ran no test" >&2
    exit 1
  fi
  total=$((total + $2))
  summary+=("$(printf '%-28s %5d passed' "$1" "$2")")
}

# A log without colour codes.
plain() { sed 's/\x1b\[[0-9;]*m//g' "$1"; }
# Sum of "test result: ok. N passed" lines (cargo test / wasm-bindgen-test-runner).
cargo_passed() { plain "$1" | grep -Eo 'test result: ok\. [0-9]+ passed' | awk '{s += $4} END {print s + 0}'; }
# The "N passed, M failed" closing line of our own runners.
plain_passed() { plain "$1" | grep -E '^[0-9]+ passed, 0 failed' | tail -1 | awk '{print $1 + 0}'; }
# Vitest's "Tests  N passed" line.
vitest_passed() { plain "$1" | grep -E '^\s*Tests\s+[0-9]+ passed' | grep -Eo '[0-9]+ passed' | tail -1 | awk '{print $1 + 0}'; }

step "setup (installs only what is missing)"
bash scripts/setup.sh test

step "cargo fmt --check"
run fmt cargo fmt --all -- --check

step "cargo clippy -D warnings (native, all targets)"
run clippy cargo clippy --workspace --all-targets --locked -- -D warnings
step "cargo clippy -D warnings (wasm32, features wasm + npy for the wasm tests)"
run clippy-wasm cargo clippy -p zeropoint -p zeropoint-kernels --all-targets --locked --target wasm32-unknown-unknown \
  --no-default-features --features zeropoint/wasm,zeropoint/npy -- -D warnings

step "cargo doc -D warnings (every public item documented, links resolve)"
run doc env RUSTDOCFLAGS="-D warnings" cargo doc -p zeropoint -p zeropoint-kernels --no-deps --locked

step "Rust tests (native)"
run cargo-test cargo test --workspace --locked
count "rust native" "$(cargo_passed "$logs/cargo-test.log")"
# The golden round trip must itself have run (it walks tests/golden and www/assets).
# awk reads to the end (no early `exit`): under pipefail, a reader that stops early kills the
# writer with SIGPIPE once the log outgrows the pipe buffer, and the step fails with 141.
n=$(plain "$logs/cargo-test.log" | awk '/Running rust\/roundtrip.rs/{f=1} f && !n && /test result: ok/{n=$4} END{print n + 0}')
[ "${n:-0}" -gt 0 ] || { echo "FAILED: the golden round-trip test did not run" >&2; exit 1; }

step "Rust tests compiled to wasm32, run in Node (SIMD128 on)"
run wasm-test env CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner \
  cargo test -p zeropoint -p zeropoint-kernels --locked --target wasm32-unknown-unknown --no-default-features --features zeropoint/wasm,zeropoint/npy
count "rust wasm (node, simd128)" "$(cargo_passed "$logs/wasm-test.log")"

step "Rust tests compiled to wasm32 with relaxed SIMD, run in Node"
run wasm-test-relaxed env RUSTFLAGS="-C target-feature=+simd128,+relaxed-simd" CARGO_TARGET_DIR=target/relaxed \
  NODE_ARGS=--experimental-wasm-relaxed-simd CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner \
  cargo test -p zeropoint -p zeropoint-kernels --locked --target wasm32-unknown-unknown --no-default-features --features zeropoint/wasm,zeropoint/npy
count "rust wasm (node, relaxed)" "$(cargo_passed "$logs/wasm-test-relaxed.log")"

step "wasm builds (simd + nosimd) and the CLI"
run build-wasm bash scripts/build-wasm.sh
run build-cli cargo build -p zeropoint --bin zeropoint --locked

step "TypeScript: ESLint + tsc (strict)"
run lint npm run --silent lint

step "TypeScript unit tests (vitest)"
run vitest npx vitest run
count "ts unit (vitest)" "$(vitest_passed "$logs/vitest.log")"

step "LiteRT cross-check: rewrite every shipped model, compare outputs in LiteRT (BUILTIN_REF)"
run litert target/py-check/bin/python tests/tools/check_roundtrip.py --zeropoint target/debug/zeropoint
count "litert cross-check" "$(plain_passed "$logs/litert.log")"

step "LiteRT check of our quantized models (BUILTIN_REF): load, run, equal to TF's models; our engine equal to LiteRT"
# Needs target/quantized/*.tflite, written by the quantizer test in "Rust tests (native)".
run litert-quantized target/py-check/bin/python tests/tools/check_quantized.py --zeropoint target/debug/zeropoint
count "litert quantized models" "$(plain_passed "$logs/litert-quantized.log")"

step "LiteRT default path (XNNPACK delegate): --arithmetic xnnpack equal to LiteRT AUTO on random inputs"
run litert-xnnpack target/py-check/bin/python tests/tools/check_xnnpack.py --zeropoint target/debug/zeropoint
count "litert xnnpack models" "$(plain_passed "$logs/litert-xnnpack.log")"

step "Mutation harness: hostile variants of the shipped models, LiteRT (BUILTIN_REF) beside us"
# A fixed seed and a bounded count (about a minute). Fails on any panic, abort or timeout of
# ours, on any wrong answer (both ran, outputs not bit-identical) and on any quantized file
# LiteRT's default resolver refuses. Report: artifacts/mutation.md.
run mutate target/py-check/bin/python tests/tools/mutate.py --zeropoint target/debug/zeropoint \
  --count "${ZP_MUTANTS:-1000}" --seed 1 --report artifacts/mutation.md
count "mutation harness" "$(plain_passed "$logs/mutate.log")"

step "Bomb set: huge outputs, long chains, endless loops, deep nesting (tests/tools/mutation/bombs.py)"
# Each built at test time and run under a 1.5 GB address-space cap; fails on an outcome, wall
# time or peak RSS other than the one listed for it (about 30 s).
run bombs target/py-check/bin/python tests/tools/bombs.py --zeropoint target/debug/zeropoint
count "bomb set" "$(plain_passed "$logs/bombs.log")"

step "browser e2e (Debian Chromium, Playwright)"
run vite-build npx vite build --logLevel warn
run e2e node tests/e2e/run.mjs
count "browser e2e" "$(plain_passed "$logs/e2e.log")"

printf '\n\033[1m== summary\033[0m\n'
printf '  %s\n' "${summary[@]}"
echo "$total passed, 0 failed"
