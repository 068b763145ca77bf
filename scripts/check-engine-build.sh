#!/usr/bin/env bash
# Builds the engine-only variant (core + model + the CLI's engine verbs) in a clean folder and proves it needs
# nothing but LibTorch, nlohmann-json, utf8proc and libcrypto:
#   - every header of the media, SQL and GUI libraries (FFmpeg, OpenCV, PortAudio, SQLite, Qt) is shadowed by one
#     that stops the compiler, so an include of any of them anywhere in the engine fails the build;
#   - the executable links none of their libraries (its own NEEDED entries; Debian's LibTorch itself pulls in
#     OpenCV and FFmpeg, so a recursive ldd would list them whatever we link);
#   - it runs: info and a text2video generation of the shipped Pico model to latents, and refuses an MP4 output.
# Usage: scripts/check-engine-build.sh [BUILD_DIR]   (default build-engine; removed first). Extra CMake arguments
# (e.g. -DCMAKE_PREFIX_PATH for a pip LibTorch) come from $ENGINE_CMAKE_ARGS.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build-engine}
rm -rf "$dir"
poison="$dir/poisoned-include"
for h in libavformat/avformat.h libavcodec/avcodec.h libavutil/avutil.h libswscale/swscale.h libswresample/swresample.h \
         opencv2/imgproc.hpp opencv2/core.hpp portaudio.h sqlite3.h QtCore/QObject QtWidgets/QWidget QObject QWidget; do
  mkdir -p "$poison/$(dirname "$h")"
  echo "#error \"the engine-only build must not include $h\"" > "$poison/$h"
done
# shellcheck disable=SC2086
cmake -S . -B "$dir" -G Ninja -DWS_ENGINE_ONLY=ON -DCMAKE_BUILD_TYPE=Release \
      "-DCMAKE_CXX_FLAGS=-isystem $PWD/$poison" ${ENGINE_CMAKE_ARGS:-} > "$dir.configure.log"
if grep -qiE 'portaudio|libavformat|sqlite|opencv|Qt6' "$dir/CMakeCache.txt"; then
  echo "check-engine-build: the engine-only configuration looked for a media, SQL or GUI library:" >&2
  grep -iE 'portaudio|libavformat|sqlite|opencv|Qt6' "$dir/CMakeCache.txt" | head >&2
  exit 1
fi
cmake --build "$dir" -j "${JOBS:-2}"
cli="$dir/worldstudio-cli"
needed=$(readelf -d "$cli" | awk '/NEEDED/ {print $5}' | tr -d '[]')
if echo "$needed" | grep -E 'libav|libsw|opencv|portaudio|sqlite|Qt'; then
  echo "check-engine-build: $cli links a media, SQL or GUI library (above)" >&2
  exit 1
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$cli" info resources/pico | grep -q 'loadable: yes'
"$cli" generate --model resources/pico --prompt "A red ball drops onto the table." --steps 4 --sound -o "$out/ball" > /dev/null
test -s "$out/ball.safetensors" && test -s "$out/ball.json"
if "$cli" generate --model resources/pico --prompt "x" --steps 1 -o "$out/ball.mp4" 2> "$out/err"; then
  echo "check-engine-build: the engine-only build wrote an MP4" >&2
  exit 1
fi
grep -q 'writes no .mp4 files' "$out/err"
echo "check-engine-build: $dir builds from core + model alone, links no media/SQL/GUI library, and generates latents; it links:"
echo "$needed" | sed 's/^/  /'

