#!/usr/bin/env bash
# Configures and builds WorldStudio in build/ (all targets, tests included), with ccache where installed: the cache is
# keyed on paths relative to the checkout, so a fresh clone of the same sources reuses what an earlier build compiled.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/ccache-env.sh
cmake --preset default >/dev/null
cmake --build --preset default
