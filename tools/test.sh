#!/usr/bin/env bash
# Set up, build and run the whole test suite: the release configuration, then the
# AddressSanitizer + UndefinedBehaviorSanitizer one.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh
for preset in release asan; do
  echo "== $preset"
  cmake --preset "$preset" >/dev/null
  cmake --build --preset "$preset"
  ctest --preset "$preset"
done
