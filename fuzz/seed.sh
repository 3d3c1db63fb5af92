#!/usr/bin/env bash
# Seeds the fuzz corpora from the golden models (every variant) and the example model.
set -euo pipefail
cd "$(dirname "$0")"
for t in read rewrite run quantize; do
  mkdir -p "corpus/$t"
  for f in ../tests/golden/*/*.tflite ../www/assets/example.tflite; do
    cp "$f" "corpus/$t/$(echo "$f" | sed 's|\.\./||; s|/|_|g')"
  done
done
echo "seeded $(ls corpus/read | wc -l) files per target"
