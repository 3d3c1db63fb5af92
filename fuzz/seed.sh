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
# Plus mutants from the mutation harness (byte-level and structure-aware), which reach deeper
# than random bytes from the goldens: ZP_FUZZ_MUTANTS of them (default 2000; 0 to skip). Needs
# the check venv (scripts/setup.sh test) and a built CLI.
n=${ZP_FUZZ_MUTANTS:-2000}
if [ "$n" -gt 0 ]; then
  ../target/py-check/bin/python ../tests/tools/mutate.py --zeropoint ../target/debug/zeropoint \
    --count "$n" --seed 7 --corpus corpus/mutants --allow wrong,wrote-invalid --keep ../artifacts/mutants >/dev/null || true
  for t in read rewrite run quantize; do cp corpus/mutants/*.tflite "corpus/$t/"; done
fi
echo "seeded $(ls corpus/read | wc -l) files per target"
