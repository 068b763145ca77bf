#!/usr/bin/env bash
# Builds the engine-only variant (core + model + the CLI's engine verbs) in a clean folder and proves it needs
# nothing but LibTorch, nlohmann-json, utf8proc and libcrypto:
#   - every header of the media, SQL and GUI libraries (FFmpeg, OpenCV, PortAudio, SQLite, Qt) is shadowed by one
#     that stops the compiler, so an include of any of them anywhere in the engine fails the build;
#   - the executable links none of their libraries (its own NEEDED entries), and LibTorch's CPU library, not its
#     CUDA one: the CUDA side is the plugin libworldstudio_cuda.so, compiled against the CUDA runtime's headers and
#     linked against libtorch_cuda in the same build;
#   - it runs: info and a text2video generation of the shipped Pico model to latents, and refuses an MP4 output;
#   - it trains: two generator steps on a copy of the shipped Pico model (the GPU machines' trainer, scripts/gpu-train.sh),
#     and refuses transfer (its edge maps are OpenCV's) with a reason.
# Usage: scripts/check-engine-build.sh [BUILD_DIR]   (default build-engine; removed first). LibTorch is found as the
# README's build finds it (cmake/WorldStudioTorch.cmake); extra CMake arguments come from $ENGINE_CMAKE_ARGS.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/ccache-env.sh
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
if ! grep -q 'libtorch_cpu.so' <<< "$needed" || grep -q 'libtorch_cuda' <<< "$needed"; then
  echo "check-engine-build: $cli should link libtorch_cpu and not libtorch_cuda (the CUDA plugin brings that); it links:" >&2
  echo "$needed" >&2
  exit 1
fi
plugin="$dir/libworldstudio_cuda.so"
plugin_needed=$(readelf -d "$plugin" 2> /dev/null | awk '/NEEDED/ {print $5}' | tr -d '[]')
if ! grep -q 'libtorch_cuda.so' <<< "$plugin_needed" || ! grep -q 'libcudart' <<< "$plugin_needed"; then
  echo "check-engine-build: the CUDA plugin $plugin was not built against libtorch_cuda and the CUDA runtime" >&2
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
cp -r resources/pico "$out/pico"
"$cli" train "$out/pico" --steps 2 --episodes 4 --freeze-reasoner --modes text2video,forward_dynamics --time-limit 600 \
  > "$out/train.log"
if ! grep -q '^trained 2 steps' "$out/train.log"; then
  echo "check-engine-build: the engine-only build did not train:" >&2
  cat "$out/train.log" >&2
  exit 1
fi
if "$cli" train "$out/pico" --steps 1 --episodes 4 --modes transfer 2> "$out/err"; then
  echo "check-engine-build: the engine-only build trained transfer without edge maps" >&2
  exit 1
fi
grep -q 'edge maps' "$out/err"
echo "check-engine-build: $dir builds from core + model (+ pico's simulator and trainer) alone, links no media/SQL/GUI library, generates latents and trains"
echo "  $(grep '^trained' "$out/train.log")"
echo "  $(grep -o 'LibTorch [0-9.]* (CUDA build) at .*' "$dir.configure.log" | head -n 1)"
echo "  worldstudio-cli links: $(tr '\n' ' ' <<< "$needed")"
echo "  the CUDA plugin (libworldstudio_cuda.so, CUDA sources compiled) links: $(tr '\n' ' ' <<< "$plugin_needed")"
echo "  $("$cli" --version | tail -n 1)"

