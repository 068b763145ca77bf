#!/usr/bin/env bash
# Renders the app icon's PNG sizes from its SVG (hicolor/scalable/apps/) with rsvg-convert (librsvg2-bin). The PNGs
# are committed, so neither the build nor the package needs rsvg; run this again after editing the SVG.
set -euo pipefail
cd "$(dirname "$0")"
id=io.github.worldstudio.WorldStudio
for size in 16 32 48 64 128 256; do
  mkdir -p "hicolor/${size}x${size}/apps"
  rsvg-convert -w "$size" -h "$size" "hicolor/scalable/apps/$id.svg" -o "hicolor/${size}x${size}/apps/$id.png"
done
echo "render: wrote hicolor/{16,32,48,64,128,256}/apps/$id.png"
