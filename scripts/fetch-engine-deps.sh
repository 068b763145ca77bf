#!/usr/bin/env bash
# Fetches the small libraries the engine-only build needs beside LibTorch (nlohmann-json's headers, utf8proc,
# OpenSSL's libcrypto and headers) as this machine's Debian packages and unpacks them under build-deps/root, for a
# machine that has LibTorch, CMake and a compiler but no apt (the GPU check, scripts/gpu-check.sh). build-deps/ is
# ignored by git; it travels with the working tree. Usage: scripts/fetch-engine-deps.sh
set -euo pipefail
cd "$(dirname "$0")/.."
dir=build-deps
rm -rf "$dir"
mkdir -p "$dir/debs" "$dir/root"
(cd "$dir/debs" && apt-get download nlohmann-json3-dev libutf8proc-dev libutf8proc2 libssl-dev libssl3 >/dev/null)
for deb in "$dir"/debs/*.deb; do dpkg -x "$deb" "$dir/root"; done
# Only what the build reads: headers, CMake files and shared libraries (the static archives and docs are most of the size).
find "$dir/root" \( -name '*.a' -o -path '*/doc/*' -o -path '*/man/*' \) -delete
rm -rf "$dir/debs"
echo "fetch-engine-deps: $(du -sh "$dir" | cut -f1) in $dir/root:"
find "$dir/root" -name '*.so*' -o -name 'nlohmann_jsonConfig.cmake' -o -name utf8proc.h | sed "s|^$dir/root|  |"
