#!/bin/sh
# Regenerates the model-accuracy page into a scratch file and fails when the committed
# docs/model-accuracy.md differs, so the page cannot drift from the calibration kernels and the
# timing model. The page holds modeled numbers only, so a difference is a real change (or a model
# that stopped being deterministic). usage: model_accuracy_test.sh <source dir> <build dir>
set -u
src=$1
build=$2
fresh=$(mktemp /tmp/model-accuracy.XXXXXX.md)
trap 'rm -f "$fresh"' EXIT
/usr/bin/python3 "$src/scripts/calibrate.py" --build "$build" --out "$fresh" || {
  echo "FAIL: scripts/calibrate.py failed (see above)" >&2
  exit 1
}
if ! diff -u "$src/docs/model-accuracy.md" "$fresh"; then
  echo "FAIL: docs/model-accuracy.md is stale (diff above: committed page -> fresh run)." \
       "Regenerate it with scripts/calibrate.py --build <builddir> --out docs/model-accuracy.md" \
       "and commit it." >&2
  exit 1
fi
echo "model_accuracy_test: docs/model-accuracy.md is up to date"
