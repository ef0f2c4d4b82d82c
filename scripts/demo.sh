#!/usr/bin/env bash
# Runs every example program built in <builddir>/examples (examples/<folder>/<name>.cpp builds
# <builddir>/examples/<name>), prints the one line each reports, then one kernel's modelled chip
# time from `aicore profile`, then a summary. Exits non-zero if any fails.
# The examples' host_* figures are wall-clock on this CPU, not the chip's; the profile's are the
# timing model's. The legend printed first says so.
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

echo "demo: every example runs its AscendC kernel on this CPU and checks the result."
echo "demo: host_time, host_bandwidth and host_gflops are host (CPU) wall-clock figures, not the"
echo "demo: chip's; modelled chip time comes from 'aicore profile' (one example at the end)."
echo
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

# One kernel through the timing model: the figures a chip would give, not the host's.
aicore=$build_dir/tools/aicore
if [[ -x "$aicore" && -x "$build_dir/examples/add_custom" ]]; then
  echo
  echo "demo: modelled chip time (aicore profile add_custom):"
  profile_log=$build_dir/demo-profile.log
  if "$aicore" profile --out "$build_dir/demo-profile" add_custom >"$profile_log" 2>&1; then
    sed -n '/^kernel /,/^  roofline/p' "$profile_log"
    echo "demo: full reports in $build_dir/demo-profile (report.html, trace.json for ui.perfetto.dev)"
  else
    cat "$profile_log"
    echo "demo: aicore profile add_custom failed"
    failed=$((failed + 1))
    failures+=("profile add_custom")
  fi
fi

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
