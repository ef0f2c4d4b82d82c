#!/bin/sh
# End-to-end check of the two process-level entry points: `aicore profile` on the add_custom
# example (by name, with --chip) and AICORE_PROFILE=<dir> on the example binary itself.
# usage: cli_test.sh <aicore> <add_custom binary> <scratch dir>
set -eu
aicore=$1
example=$2
out=$3
rm -rf "$out"
mkdir -p "$out"
fail() { echo "FAIL: $*" >&2; exit 1; }

"$aicore" profile --chip ascend910b4 --out "$out/cli" add_custom > "$out/cli.log" 2>&1 ||
  fail "aicore profile add_custom exited non-zero: $(cat "$out/cli.log")"
grep -q "kernel add_custom on ascend910b4" "$out/cli.log" ||
  fail "no summary: $(cat "$out/cli.log")"
grep -q "binding        memory corner" "$out/cli.log" || fail "add_custom is not memory-bound"
for f in summary.txt summary.json trace.json pipe_utilization.csv memory.csv instructions.csv \
         report.html; do
  test -s "$out/cli/$f" || fail "missing $out/cli/$f"
done

env -u AICORE_CHIP AICORE_PROFILE="$out/env" "$example" > "$out/env.log" 2>&1 ||
  fail "AICORE_PROFILE run failed: $(cat "$out/env.log")"
grep -q "kernel add_custom on ascend910b1" "$out/env/summary.txt" || fail "env summary"
grep -q "aicore profile: 1 launch modelled" "$out/env.log" || fail "env stderr line"

if "$aicore" profile --out "$out/none" /bin/true > "$out/none.log" 2>&1; then
  fail "a program without kernels must not report success"
fi
grep -q "launched no kernel" "$out/none.log" || fail "no-kernel message: $(cat "$out/none.log")"

if "$aicore" profile --chip no_such_chip "$example" > "$out/chip.log" 2>&1; then
  fail "an unknown chip must fail"
fi
grep -q "ascend910b1" "$out/chip.log" || fail "unknown-chip message lists no presets"
echo "cli_test: ok"
