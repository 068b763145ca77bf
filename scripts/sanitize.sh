#!/usr/bin/env bash
# The sanitizer build: backend, CLI and backend tests with AddressSanitizer + UndefinedBehaviorSanitizer
# (build-asan/, cmake --preset asan), then the unit and model labels with leak checks (ctest --preset asan).
# Extra arguments go to ctest (e.g. -L unit, -R test_safetensors).
set -euo pipefail
cd "$(dirname "$0")/.."
installer/install-deps.sh
source scripts/ccache-env.sh
cmake --preset asan >/dev/null
cmake --build --preset asan
ctest --preset asan -j2 "$@"
