#!/usr/bin/env bash
# Installs what WorldStudio needs to build, run and test, skipping what is already there: Debian 12 packages, and the
# project's Python environment .venv from installer/requirements.txt (LibTorch comes as the pinned torch wheel there;
# the build finds it without a typed path).
# Usage: installer/install-deps.sh [--runtime-only | --fuzz | --no-venv]
#   --fuzz adds clang-14 and its libFuzzer runtime; --no-venv installs the Debian packages only.
# (Qt's translation tools, lupdate and lrelease, come with qt6-tools-dev and qt6-l10n-tools.)
set -euo pipefail

build=(cmake ninja-build g++ pkg-config ccache qt6-tools-dev qt6-l10n-tools python3-venv clang-format)
libs=(nlohmann-json3-dev libspdlog-dev libutf8proc-dev libssl-dev libcurl4-openssl-dev qt6-base-dev
      libavformat-dev libavcodec-dev libavutil-dev libswscale-dev libswresample-dev
      libopencv-core-dev libopencv-imgproc-dev portaudio19-dev libqt6sql6-sqlite libsqlite3-dev
      libsnappy-dev libzstd-dev libeigen3-dev)
# The X server of the UI tests, a paced null audio sink for the player's, and a CJK font for the Simplified Chinese
# window they check. (The Python peers are in .venv, below.)
peers=(python3 pulseaudio pulseaudio-utils libasound2-plugins xvfb xauth fonts-wqy-microhei)

# scripts/package-test.sh: cpack's dpkg-shlibdeps, the desktop file and metainfo validators, the MIME database.
packaging=(dpkg-dev desktop-file-utils appstream shared-mime-info)

# The fuzz targets (scripts/fuzz.sh) build with clang's libFuzzer.
fuzz=(clang-14 libclang-rt-14-dev)

wanted=("${libs[@]}")
[[ "${1:-}" == "--runtime-only" ]] || wanted+=("${build[@]}" "${peers[@]}" "${packaging[@]}")
[[ "${1:-}" == "--fuzz" ]] && wanted+=("${fuzz[@]}")

venv=true
[[ "${1:-}" == "--runtime-only" || "${1:-}" == "--no-venv" ]] && venv=false

missing=()
for p in "${wanted[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]} > 0)); then
  echo "install-deps: installing ${missing[*]}"
  SUDO=""
  [[ $(id -u) -eq 0 ]] || SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  if ! { $SUDO apt-get update -qq && $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"; } > /tmp/ws-apt.$$.log 2>&1; then
    echo "install-deps: apt-get could not install ${missing[*]}: $(grep -E '^(E|Err):' /tmp/ws-apt.$$.log | head -n 1)" >&2
    rm -f /tmp/ws-apt.$$.log
    exit 1
  fi
  rm -f /tmp/ws-apt.$$.log
else
  echo "install-deps: the Debian packages are installed"
fi
$venv || exit 0

# The Python environment: made once, then brought to the pins whenever requirements.txt changes.
req=installer/requirements.txt
stamp=.venv/.requirements.sha256
want=$(sha256sum "$req" | cut -d' ' -f1)
if [[ -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
  echo "install-deps: .venv matches $req"
  exit 0
fi
[[ -x .venv/bin/python3 ]] || python3 -m venv .venv || { echo "install-deps: python3 -m venv .venv failed (install python3-venv)" >&2; exit 1; }
echo "install-deps: installing $req into .venv (torch is about 3.5 GB with its CUDA libraries)"
log=$(mktemp)
if ! .venv/bin/python3 -m pip install --quiet --disable-pip-version-check -r "$req" > "$log" 2>&1; then
  line=$(grep -E 'ERROR|error:' "$log" | grep -v '^ ' | head -n 1)
  if grep -qiE 'Max retries|Name or service not known|Temporary failure in name resolution|Connection (refused|reset)|timed out|NewConnectionError|from versions: none' "$log"; then
    echo "install-deps: the package registry gave nothing (unreachable from this machine?): $line; set PIP_INDEX_URL for a mirror or PIP_FIND_LINKS for a folder of wheels" >&2
  elif grep -qE 'No matching distribution|not a supported wheel|Could not find a version' "$log"; then
    echo "install-deps: a pinned version in $req has no wheel for this machine's Python $(python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])') and platform: $line" >&2
  else
    echo "install-deps: pip could not install $req: ${line:-see $log}" >&2
  fi
  exit 1
fi
rm -f "$log"
echo "$want" > "$stamp"
echo "install-deps: .venv ready ($(.venv/bin/python3 -c 'import torch; print("torch", torch.__version__)'))"
