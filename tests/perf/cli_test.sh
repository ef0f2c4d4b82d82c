#!/bin/sh
# End-to-end check of the two process-level entry points: `aicore profile` on the add_custom
# example (by name, with --chip) and AICORE_PROFILE=<dir> on the example binary itself; what
# `aicore profile` says when the program crashes after some launches, exits non-zero, or the
# reports cannot be written; `aicore profile --compare`.
# usage: cli_test.sh <aicore> <add_custom binary> <scratch dir> <crash_after_launch binary>
set -eu
aicore=$1
example=$2
out=$3
crash=$4
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
# A crash after two completed launches: both are reported, and the crash is told.
for how in segv abort; do
  if "$aicore" profile --out "$out/$how" "$crash" 2 $how > "$out/$how.log" 2>&1; then
    fail "a crashing program must not report success ($how)"
  fi
  grep -q "after 2 completed launches; the reports hold those launches" "$out/$how.log" ||
    fail "crash message ($how): $(cat "$out/$how.log")"
  grep -q "kernel before_crash on" "$out/$how.log" || fail "no summary after $how"
  test "$(grep -c '"kernel": "before_crash"' "$out/$how/summary.json")" -eq 2 ||
    fail "summary.json of $how does not hold the 2 launches"
  test -s "$out/$how/report.html" || fail "no report.html after $how"
done
# A crash before any launch completed says so.
if "$aicore" profile --out "$out/early" "$crash" 0 segv > "$out/early.log" 2>&1; then
  fail "a crashing program must not report success (early)"
fi
grep -q "before any kernel launch completed" "$out/early.log" ||
  fail "early-crash message: $(cat "$out/early.log")"
# A non-zero exit after launches keeps the report and the status.
set +e
"$aicore" profile --out "$out/exit3" "$crash" 1 exit3 > "$out/exit3.log" 2>&1
rc=$?
set -e
test $rc -eq 3 || fail "exit status $rc, expected the program's 3"
grep -q "exited with status 3; the reports hold its 1 launch" "$out/exit3.log" ||
  fail "exit3 message: $(cat "$out/exit3.log")"
# An unwritable report directory is reported before the program runs.
if "$aicore" profile --out /proc/aicore_no_such_dir "$crash" 1 ok > "$out/unwritable.log" 2>&1; then
  fail "an unwritable --out must fail"
fi
grep -q "the reports cannot be written: cannot create /proc/aicore_no_such_dir" \
  "$out/unwritable.log" || fail "unwritable message: $(cat "$out/unwritable.log")"

# --compare: the add_custom profile on two chips, side by side.
"$aicore" profile --chip ascend910b1 --out "$out/b1" add_custom > /dev/null 2>&1 ||
  fail "profile on ascend910b1"
"$aicore" profile --compare "$out/cli" "$out/b1" --out "$out/cmp" > "$out/cmp.log" 2>&1 ||
  fail "--compare failed: $(cat "$out/cmp.log")"
grep -q "aicore profile comparison" "$out/cmp.log" || fail "no comparison: $(cat "$out/cmp.log")"
grep -Eq "^add_custom \(0/0\) +[0-9.]+ +[0-9.]+ +[0-9.]+x" "$out/cmp.log" ||
  fail "no per-kernel row: $(cat "$out/cmp.log")"
grep -q "aiv_mte2_ratio" "$out/cmp.log" || fail "no per-pipe ratios: $(cat "$out/cmp.log")"
test -s "$out/cmp/compare.html" || fail "no compare.html"
if "$aicore" profile --compare "$out/cli" "$out/no_such" > "$out/cmp2.log" 2>&1; then
  fail "--compare of a missing directory must fail"
fi
grep -q "cannot read $out/no_such/summary.json" "$out/cmp2.log" ||
  fail "missing-dir message: $(cat "$out/cmp2.log")"
echo "cli_test: ok"
