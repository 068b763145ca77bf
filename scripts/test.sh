#!/usr/bin/env bash
# The whole test suite: installs what is missing (Debian packages, and .venv with the pinned torch and the Python
# peers), builds, and runs every CTest test. Extra arguments go to ctest (e.g. -L unit).
set -euo pipefail
cd "$(dirname "$0")/.."
installer/install-deps.sh
scripts/build.sh
# A test past its timeout (WS_TEST_TIMEOUT) is run once more, so one hang of the machine does not sink the run; its
# first timeout stays in the log.
ctest --test-dir build --output-on-failure -j2 --repeat after-timeout:2 "$@"
