#!/usr/bin/env bash
# `npm start`: install what is missing, build what changed (the three wasm variants, the page), serve it on
# 127.0.0.1 with the bundled example model loaded. Works offline once installed.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh start
bash scripts/build-wasm.sh
# The page is built again only when one of its inputs changed (their hash is kept in
# target/dist.inputs; dist/ itself must be untouched too).
page_inputs() {
  find index.html vite.config.ts tsconfig.json package-lock.json www -type f -print0 | sort -z | xargs -0 sha256sum | sha256sum | cut -d' ' -f1
}
dist_hash() { find dist -type f -print0 2>/dev/null | sort -z | xargs -0 -r sha256sum | sha256sum | cut -d' ' -f1; }
key=$(page_inputs)
if [ -f dist/index.html ] && [ -f target/dist.inputs ] && [ "$(cat target/dist.inputs)" = "$key $(dist_hash)" ]; then
  echo "up to date dist/ (same inputs)"
else
  rm -f target/dist.inputs
  npx vite build --logLevel warn
  mkdir -p target
  echo "$key $(dist_hash)" > target/dist.inputs
fi
port=${PORT:-8787}
echo
echo "  Zeropoint is at http://127.0.0.1:$port/   (Ctrl-C to stop)"
echo
exec npx vite preview --host 127.0.0.1 --port "$port" --strictPort
