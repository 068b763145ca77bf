#!/usr/bin/env bash
# The user guide's pictures (docs/images/), made from the real studio window under Xvfb with the shipped Pico model:
# each workspace and the main workflows, in English and in Simplified Chinese (docs/images/zh_CN/).
# Usage: scripts/screenshots.sh [BUILD_DIR]   (about two minutes on two cores)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
studio="$build/worldstudio"
[[ -x "$studio" ]] || { echo "screenshots: build the studio first ($studio is missing)"; exit 1; }
for lang in en zh_CN; do
  out=docs/images; [[ $lang == en ]] || out=docs/images/$lang
  mkdir -p "$out"
  # A clean HOME (first-start state, the dark theme) with its own copy of the shipped model, so the pictures show
  # neutral paths rather than this checkout's.
  home=/tmp/worldstudio-guide
  rm -rf "$home" && mkdir -p "$home/models"
  cp -r resources/pico "$home/models/pico"
  HOME="$home" XDG_CONFIG_HOME="$home/.config" XDG_DATA_HOME="$home/.local/share" WORLDSTUDIO_LANGUAGE=$lang \
    WORLDSTUDIO_PICO_DIR="$home/models/pico" \
    xvfb-run -a -s "-screen 0 1600x1000x24" timeout 600 "$studio" --no-audio --screenshots "$out"
  rm -rf "$home"
done
ls -l docs/images docs/images/zh_CN
