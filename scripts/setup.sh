#!/usr/bin/env bash
# Installs whatever is missing for `npm start` / `npm test`, and nothing that is already there.
#   usage: scripts/setup.sh start|test
# What it may install:
#   - the pinned Rust toolchain with the wasm32 target, rustfmt and clippy (rust-toolchain.toml)
#   - wasm-bindgen-cli at exactly the version in Cargo.lock (cargo install, ~6 min the first time)
#   - npm dependencies (npm ci) when node_modules does not hold what package-lock.json names
#   - for `test`: Debian chromium + chromium-driver (apt, needs root), and a Python venv in
#     target/py-check with ai-edge-litert + numpy (pip) for the LiteRT cross-check
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-start}
say() { printf '\033[1m[setup]\033[0m %s\n' "$*"; }

# 1. Rust toolchain from rust-toolchain.toml (no-op when present).
rustup toolchain install >/dev/null 2>&1 || rustup show active-toolchain >/dev/null
rustup target list --installed | grep -qx wasm32-unknown-unknown || rustup target add wasm32-unknown-unknown

# 2. wasm-bindgen-cli pinned to the wasm-bindgen version in Cargo.lock (they must match exactly).
want=$(awk '/^name = "wasm-bindgen"$/{getline; gsub(/version = |"/,""); print; exit}' Cargo.lock)
have=$(wasm-bindgen --version 2>/dev/null | awk '{print $2}' || true)
if [ "$have" != "$want" ]; then
  say "installing wasm-bindgen-cli $want (found: ${have:-none}); takes a few minutes once"
  # No --locked: its lockfile pins a crate version the registry mirror may not have (TOOLCHAIN.md).
  cargo install wasm-bindgen-cli --version "$want"
fi

# 3. npm dependencies, when what is installed differs from the lockfile (by content, not by
# date: a fresh checkout's lockfile is newer than an install that equals it).
if ! node scripts/lib/deps-current.mjs; then
  if [ -L node_modules ]; then
    # npm ci empties node_modules first: through a link it would empty the folder it points to.
    echo "node_modules links to $(readlink node_modules), which is not current: run npm ci there, or remove the link" >&2
    exit 1
  fi
  say "npm ci"
  npm ci --no-audit --no-fund
fi

[ "$mode" = test ] || exit 0

# 4. Chromium for the browser tests (Debian packages; playwright-core never downloads a browser).
if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
  if [ "$(id -u)" = 0 ]; then
    say "apt-get install chromium chromium-driver"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null
  else
    echo "chromium is missing: sudo apt-get install chromium chromium-driver" >&2
    exit 1
  fi
fi

# 5. Python venv for the LiteRT cross-check (tests/tools/requirements-check.txt).
venv=target/py-check
req=tests/tools/requirements-check.txt
if [ ! -x "$venv/bin/python" ] || [ "$req" -nt "$venv/.installed" ]; then
  say "python venv for the LiteRT cross-check"
  if ! python3 -m venv "$venv" 2>/dev/null; then
    [ "$(id -u)" = 0 ] && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null
    python3 -m venv "$venv"
  fi
  "$venv/bin/pip" install -q --disable-pip-version-check -r "$req"
  touch "$venv/.installed"
fi
