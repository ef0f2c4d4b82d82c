#!/bin/sh
# Regenerates the optimisation walkthrough into a scratch file and fails when the committed
# docs/optimization-walkthrough.md differs, so the page cannot drift from the examples and the
# timing model. The page holds modeled numbers only, so a difference is a real change (or a model
# that stopped being deterministic). usage: walkthrough_test.sh <source dir> <build dir>
set -u
src=$1
build=$2
fresh=$(mktemp /tmp/walkthrough.XXXXXX.md)
trap 'rm -f "$fresh"' EXIT
/usr/bin/python3 "$src/scripts/walkthrough.py" --build "$build" --out "$fresh" || {
  echo "FAIL: scripts/walkthrough.py failed (see above)" >&2
  exit 1
}
if ! diff -u "$src/docs/optimization-walkthrough.md" "$fresh"; then
  echo "FAIL: docs/optimization-walkthrough.md is stale (diff above: committed page -> fresh" \
       "run). Regenerate it with \`make walkthrough\` (or scripts/walkthrough.py --build" \
       "<builddir> --out docs/optimization-walkthrough.md) and commit it." >&2
  exit 1
fi
echo "walkthrough_test: docs/optimization-walkthrough.md is up to date"
