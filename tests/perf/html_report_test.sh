#!/bin/sh
# Loads report.html in a real headless browser (Debian's chromium) and checks the page ran its
# script without an error and shows its charts and tables: a DOM check through --dump-dom.
# usage: html_report_test.sh <aicore> <scratch dir>
set -u
aicore=$1
out=$2
fail() { echo "FAIL: $*" >&2; exit 1; }
rm -rf "$out"
mkdir -p "$out"
browser=$(command -v chromium || command -v chromium-browser || true)
test -n "$browser" ||
  fail "chromium is not installed (scripts/install-deps.sh installs it: apt-get install chromium)"
# Root cannot run chromium's sandbox; --no-sandbox is what makes it start at all then.
if ! "$browser" --headless --no-sandbox --disable-gpu --dump-dom about:blank \
     > "$out/probe.html" 2> "$out/probe.log"; then
  echo "SKIP: chromium cannot start headless here, even with --no-sandbox:" >&2
  cat "$out/probe.log" >&2
  exit 77  # ctest: SKIP_RETURN_CODE
fi
"$aicore" profile --out "$out/prof" add_custom > "$out/profile.log" 2>&1 ||
  fail "aicore profile add_custom: $(cat "$out/profile.log")"
"$browser" --headless --no-sandbox --disable-gpu --enable-logging=stderr --v=0 \
  --virtual-time-budget=5000 --window-size=1300,2000 --dump-dom "file://$out/prof/report.html" \
  > "$out/dom.html" 2> "$out/chromium.log" || fail "chromium failed: $(cat "$out/chromium.log")"
dom="$out/dom.html"
if grep -q "Uncaught" "$out/chromium.log"; then
  fail "script error: $(grep Uncaught "$out/chromium.log")"
fi
if grep -q 'data-js-error="' "$dom"; then
  fail "script error: $(grep -o 'data-js-error="[^"]*"' "$dom")"
fi
grep -q 'data-timelines="1"' "$dom" || fail "the timeline script did not run to its end"
for id in timeline-canvas-0 triangle-0 roofline-0 cores-0 stalls-0 hotspots-0 numbers-0; do
  grep -q "id=\"$id\"" "$dom" || fail "no element $id in the rendered page"
done
# The script sized the canvas to the page and its rows (the default canvas is 300 x 150).
grep -Eq '<canvas id="timeline-canvas-0"[^>]* width="[0-9]{4}"' "$dom" ||
  fail "the timeline canvas was not drawn: $(grep -o '<canvas[^>]*>' "$dom")"
test "$(grep -o 'class="legend"' "$dom" | wc -l)" -ge 4 || fail "legends missing"
grep -q "arithmetic intensity (flop per byte, log)" "$dom" || fail "no roofline axis title"
grep -q "performance (flop/s, log)" "$dom" || fail "no roofline y-axis title"
grep -q "L2 roof" "$dom" || fail "no L2 roof in the legend"
grep -q "of HBM bandwidth" "$dom" || fail "triangle labels are not utilisations"
"$browser" --headless --no-sandbox --disable-gpu --window-size=1300,1600 \
  --screenshot="$out/report.png" "file://$out/prof/report.html" > /dev/null 2>&1 ||
  fail "chromium could not take a screenshot"
size=$(wc -c < "$out/report.png")
test "$size" -gt 20000 || fail "screenshot of $size bytes: an empty page?"
echo "html_report_test: ok (screenshot $out/report.png, $size bytes)"
