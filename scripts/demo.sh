#!/usr/bin/env bash
# Runs every example program built in <builddir>/examples (examples/<folder>/<name>.cpp builds
# <builddir>/examples/<name>), prints the one line each reports, then a summary. Exits non-zero if any fails.
# Usage: scripts/demo.sh <builddir>
set -u

if [[ $# -ne 1 ]]; then
  echo "usage: $0 <builddir>" >&2
  exit 2
fi
build_dir=$1
src_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if [[ ! -d "$build_dir/examples" ]]; then
  echo "demo: $build_dir/examples does not exist (build first: make build)" >&2
  exit 2
fi

passed=0
failed=0
missing=0
failures=()
for src in "$src_dir"/examples/*/*.cpp; do
  name=$(basename "$src" .cpp)
  exe="$build_dir/examples/$name"
  if [[ ! -x "$exe" ]]; then
    echo "$name: not built (no $exe)"
    missing=$((missing + 1))
    continue
  fi
  log=$(mktemp)
  "$exe" >"$log" 2>&1
  rc=$?
  if [[ $rc -eq 0 ]]; then
    cat "$log"
    passed=$((passed + 1))
  else
    cat "$log"
    echo "$name: exited with status $rc"
    failed=$((failed + 1))
    failures+=("$name")
  fi
  rm -f "$log"
done

total=$((passed + failed))
echo "demo: $total examples run, $passed passed, $failed failed" \
  "$( ((missing > 0)) && echo "($missing not built)")"
if ((failed > 0)); then
  echo "demo: failed: ${failures[*]}"
  exit 1
fi
if ((total == 0)); then
  echo "demo: no example programs found in $build_dir/examples" >&2
  exit 1
fi
exit 0
