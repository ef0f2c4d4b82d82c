#!/usr/bin/env bash
# Installs the Debian packages aicore needs to build, test and benchmark. Idempotent: installs only
# what is missing, and runs apt-get only when something is.
set -euo pipefail

packages=(
  build-essential cmake ninja-build git pkg-config
  libgtest-dev libgmock-dev libbenchmark-dev
  nlohmann-json3-dev
  libopenblas-dev libdnnl-dev
  python3
  # The HTML report's browser test (tests/perf/html_report_test.sh) loads report.html in a headless
  # chromium; without it that test fails with a message.
  chromium
  # The PyTorch integration (python/, docs/pytorch.md): Debian's torch 1.13, pybind11 for the
  # module, pytest for its tests. The C++ build does not need them; CMake skips python/ without.
  python3-torch libtorch-dev pybind11-dev python3-pytest
)

# `--fuzz` adds the clang that builds the libFuzzer targets (libstdc++'s <source_location> needs
# clang >= 15; Debian 12's default clang is 14).
if [ "${1:-}" = "--fuzz" ]; then
  packages+=(clang-16 libclang-rt-16-dev)
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
  SUDO=sudo
else
  SUDO=
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
