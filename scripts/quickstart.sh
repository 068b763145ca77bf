#!/usr/bin/env bash
# One command on a fresh Debian 12 machine: install what is missing, build, and run the main job
# (text-to-video with sound) on the default model. Outputs land in out/quickstart.*
set -euo pipefail
cd "$(dirname "$0")/.."
installer/install-deps.sh
scripts/build.sh
# The default model is Pico (resources/pico): its own defaults give 64x64, 33 frames at 16 fps.
./build/worldstudio-cli generate \
  --mode text2video --prompt "a red rubber ball rolls off a blue wooden box and bounces twice" \
  --sound --seed 0 -o out/quickstart.mp4
echo "quickstart: wrote out/quickstart.mp4 (record in out/quickstart.json and embedded in the MP4)"
