#!/usr/bin/env bash
# One command on a fresh Debian 12 machine: install what is missing, build, and run the main job
# (text-to-video with sound) on the default model. Outputs land in out/quickstart.*
set -euo pipefail
cd "$(dirname "$0")/.."
installer/install-deps.sh
scripts/build.sh
./build/worldstudio-cli generate \
  --mode text2video --prompt "A red rubber ball rolls off a blue box and bounces twice on a wooden table." \
  --resolution 256 --aspect 16,9 --frames 25 --fps 24 --steps 8 --sound --seed 0 \
  -o out/quickstart.mp4
echo "quickstart: wrote out/quickstart.mp4 (record in out/quickstart.json and embedded in the MP4)"
