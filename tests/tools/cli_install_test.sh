#!/bin/sh
# The `aicore` command from an install prefix: bundled examples found by name by `check` and
# `profile` (installed to share/aicore/examples), listed by `examples`, and the bash completion
# installed where bash-completion loads it.
# usage: cli_install_test.sh <cmake> <build dir> <scratch dir>
set -eu
cmake=$1
build=$2
work=$3
prefix=$work/prefix
rm -rf "$work"
mkdir -p "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }

"$cmake" --install "$build" --prefix "$prefix" > "$work/install.log" 2>&1 ||
  fail "cmake --install: $(tail -20 "$work/install.log")"
aicore=$prefix/bin/aicore
test -x "$prefix/share/aicore/examples/add_custom" || fail "add_custom is not installed"
test -s "$prefix/share/bash-completion/completions/aicore" || fail "no bash completion installed"
grep -q "complete -F _aicore aicore" "$prefix/share/bash-completion/completions/aicore" ||
  fail "the installed completion registers nothing"

# Run from elsewhere, so nothing of the build tree or the working directory is found instead.
cd "$work"
"$aicore" examples > examples.log 2>&1 || fail "aicore examples: $(cat examples.log)"
grep -q "^add_custom  *$prefix/share/aicore/examples/add_custom$" examples.log ||
  fail "aicore examples does not list the installed add_custom: $(cat examples.log)"

"$aicore" check add_custom > check.log 2>&1 || fail "aicore check add_custom: $(cat check.log)"
grep -q "add_custom: .*check=pass" check.log || fail "check ran no add_custom: $(cat check.log)"
grep -q "no defects found" check.log || fail "check found defects: $(cat check.log)"

"$aicore" profile --out "$work/profile" add_custom > profile.log 2>&1 ||
  fail "aicore profile add_custom: $(cat profile.log)"
grep -q "kernel add_custom on" profile.log || fail "no profile summary: $(cat profile.log)"

if "$aicore" check no_such_example > missing.log 2>&1; then
  fail "an unknown program must fail"
fi
grep -q "cannot run no_such_example" missing.log || fail "missing program: $(cat missing.log)"
rm -rf "$prefix"  # about half a gigabyte, mostly debug info
echo "cli_install_test: ok"
