#!/usr/bin/env bash
# `npm start`: install what is missing, build the wasm (SIMD + plain) and the page, serve it on
# 127.0.0.1 with the bundled example model loaded. Works offline once installed.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh start
bash scripts/build-wasm.sh
npx vite build --logLevel warn
port=${PORT:-8787}
echo
echo "  Zeropoint is at http://127.0.0.1:$port/   (Ctrl-C to stop)"
echo
exec npx vite preview --host 127.0.0.1 --port "$port" --strictPort
