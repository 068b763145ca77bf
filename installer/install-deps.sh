#!/usr/bin/env bash
# Installs the Debian 12 packages WorldStudio needs to build, run and test, skipping what is already there.
# Usage: installer/install-deps.sh [--runtime-only | --fuzz]   (--fuzz adds clang-14 and its libFuzzer runtime)
# (Qt's translation tools, lupdate and lrelease, come with qt6-tools-dev and qt6-l10n-tools.)
set -euo pipefail

build=(cmake ninja-build g++ pkg-config qt6-tools-dev qt6-l10n-tools)
libs=(libtorch-dev libopenblas0-pthread nlohmann-json3-dev libspdlog-dev libutf8proc-dev libssl-dev libcurl4-openssl-dev qt6-base-dev
      libavformat-dev libavcodec-dev libavutil-dev libswscale-dev libswresample-dev
      libopencv-core-dev libopencv-imgproc-dev portaudio19-dev libqt6sql6-sqlite libsqlite3-dev
      libsnappy-dev libzstd-dev libeigen3-dev)
# Peers the tests compare against: numpy (noise, sigmas), Python's json (prompts), node/npm (the JS tokenizer); the
# X server of the UI tests, and a CJK font for the Simplified Chinese window they check.
peers=(python3 python3-numpy pulseaudio pulseaudio-utils libasound2-plugins xvfb xauth fonts-wqy-microhei)

# scripts/package-test.sh: cpack's dpkg-shlibdeps, the desktop file and metainfo validators, the MIME database.
packaging=(dpkg-dev desktop-file-utils appstream shared-mime-info)

# The fuzz targets (scripts/fuzz.sh) build with clang's libFuzzer.
fuzz=(clang-14 libclang-rt-14-dev)

wanted=("${libs[@]}")
[[ "${1:-}" == "--runtime-only" ]] || wanted+=("${build[@]}" "${peers[@]}" "${packaging[@]}")
[[ "${1:-}" == "--fuzz" ]] && wanted+=("${fuzz[@]}")
command -v node >/dev/null 2>&1 || wanted+=(nodejs)
command -v npm >/dev/null 2>&1 || wanted+=(npm)

missing=()
for p in "${wanted[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
  echo "install-deps: everything is installed"
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
SUDO=""
[[ $(id -u) -eq 0 ]] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
