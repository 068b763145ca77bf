#!/usr/bin/env bash
# Pictures of each main view of the studio (generate, caption form, raw JSON, queue, player, history, model) at
# 1280x800, taken from a real window under Xvfb while the UI test drives an artist's workflow on the tiny model.
# Usage: scripts/screenshots.sh [OUT_DIR]   (default out/screenshots)
set -euo pipefail
cd "$(dirname "$0")/.."
out="$(realpath -m "${1:-out/screenshots}")"
mkdir -p "$out"
[[ -x build/tests/test_studio ]] || scripts/build.sh
WS_SCREENSHOT_DIR="$out" QT_QPA_PLATFORM=xcb xvfb-run -a -s "-screen 0 1280x800x24" \
  build/tests/test_studio artistWorkflowEndToEnd
ls "$out"/*.png
