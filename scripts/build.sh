#!/usr/bin/env bash
# Configures and builds WorldStudio in build/ (all targets, tests included).
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --preset default >/dev/null
cmake --build --preset default
