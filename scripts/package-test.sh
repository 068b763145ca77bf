#!/usr/bin/env bash
# Packages an already built build folder as a Debian package and checks it installed: cpack -G DEB (into
# BUILD_DIR/package), the desktop file and AppStream metainfo validated, the package's contents and binaries
# (no RPATH into the build tree), dpkg -i (apt-get -f install when dependencies are missing), worldstudio-cli
# --version and a small generation with the installed Pico model from a clean HOME, worldstudio --version and the
# studio started offscreen, then dpkg -r and nothing left behind. Installs and removes the package on this machine
# (root, or sudo). One PASS/FAIL line per check; exit 1 when any fails.
# Usage: scripts/package-test.sh [BUILD_DIR]   (default build; the CI builds it with scripts/test.sh first)
# No -e: a failed check is counted and the others still run. pass/fail always succeed, so `test && pass || fail` is
# an if-then-else here.
# shellcheck disable=SC2015
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
build=$(realpath "${1:-build}")
pkg=worldstudio
SUDO=""
[[ $(id -u) -eq 0 ]] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive

failures=0
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
die() { echo "FAIL: $*"; echo "package-test: stopped"; exit 1; }
step_start=$SECONDS
timing() { echo "  ($1: $((SECONDS - step_start)) s)"; step_start=$SECONDS; }

tmp=$(mktemp -d)
installed_here=0
cleanup() {
  if ((installed_here)); then $SUDO dpkg -r "$pkg" > /dev/null 2>&1 || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT

for tool in cpack dpkg-deb dpkg-shlibdeps desktop-file-validate appstreamcli readelf; do
  command -v "$tool" > /dev/null || die "$tool is missing (installer/install-deps.sh installs it)"
done
[[ -x "$build/worldstudio" && -x "$build/worldstudio-cli" ]] || die "$build holds no built worldstudio and worldstudio-cli"
if [[ ! -f "$build/CPackConfig.cmake" ]]; then
  cmake "$build" > "$tmp/configure.log" 2>&1 || { cat "$tmp/configure.log"; die "cmake $build did not configure"; }
fi

# --- package -------------------------------------------------------------------------------------------------
rm -rf "$build/package"
if (cd "$build" && cpack -G DEB -B "$build/package") > "$tmp/cpack.log" 2>&1; then
  pass "cpack -G DEB"
else
  cat "$tmp/cpack.log"
  die "cpack -G DEB"
fi
debs=("$build"/package/*.deb)
((${#debs[@]} == 1)) && [[ -f "${debs[0]}" ]] || die "cpack made ${#debs[@]} .deb files in $build/package"
deb=${debs[0]}
version=$(dpkg-deb -f "$deb" Version)
echo "  $(basename "$deb"): $(du -h "$deb" | cut -f1), version $version"
echo "  Depends: $(dpkg-deb -f "$deb" Depends)"
timing cpack

depends=$(dpkg-deb -f "$deb" Depends)
missing_deps=""
for d in libqt6widgets6 libavformat libportaudio2 libsqlite3 libqt6sql6-sqlite; do
  grep -q "$d" <<< "$depends" || missing_deps+=" $d"
done
[[ -z "$missing_deps" ]] && pass "Depends names Qt, FFmpeg, PortAudio, SQLite and the Qt SQLite driver" ||
  fail "Depends lacks$missing_deps"

dpkg-deb -c "$deb" | awk '{print $6}' | sed 's|^\./|/|' > "$tmp/contents"
expected=(/usr/bin/worldstudio /usr/bin/worldstudio-cli /usr/share/worldstudio/pico/model_index.json
          /usr/share/worldstudio/pico/transformer/diffusion_pytorch_model.safetensors
          /usr/lib/worldstudio/libtorch_cpu.so /usr/lib/worldstudio/libc10.so
          /usr/share/worldstudio/presets/embodiments.json /usr/share/worldstudio/translations/worldstudio_zh_CN.qm
          /usr/share/doc/worldstudio/user-guide.md
          /usr/share/applications/io.github.worldstudio.WorldStudio.desktop
          /usr/share/metainfo/io.github.worldstudio.WorldStudio.metainfo.xml
          /usr/share/mime/packages/io.github.worldstudio.WorldStudio.xml
          /usr/share/icons/hicolor/scalable/apps/io.github.worldstudio.WorldStudio.svg)
for s in 16 32 48 64 128 256; do expected+=("/usr/share/icons/hicolor/${s}x${s}/apps/io.github.worldstudio.WorldStudio.png"); done
absent=""
for f in "${expected[@]}"; do grep -qx "$f" "$tmp/contents" || absent+=" $f"; done
[[ -z "$absent" ]] && pass "the package holds the programs, LibTorch's CPU library, the Pico model, presets, desktop file, metainfo, MIME types and icons" ||
  fail "the package lacks$absent"
stray=$(grep -v -e '^/usr/$' -e '^/usr/bin/' -e '^/usr/share/' -e '^/usr/lib/$' -e '^/usr/lib/worldstudio/' "$tmp/contents" | grep -v '^/$' || true)
cuda=$(grep -E 'libtorch_cuda|libworldstudio_cuda|libcublas|libcudnn' "$tmp/contents" || true)
[[ -z "$cuda" ]] && pass "no CUDA kernels in the package (a CPU studio)" || fail "CUDA libraries in the package: $cuda"
tests=$(grep -E '/test_|/tests?/|/fuzz_' "$tmp/contents" | grep -v '^/usr/share/worldstudio/pico/' || true)
[[ -z "$stray" && -z "$tests" ]] && pass "nothing outside /usr/bin, /usr/lib/worldstudio and /usr/share, no tests" ||
  fail "unexpected files in the package: $stray $tests"

dpkg-deb -x "$deb" "$tmp/root"
if desktop-file-validate "$tmp/root/usr/share/applications/io.github.worldstudio.WorldStudio.desktop"; then
  pass "desktop-file-validate"
else
  fail "desktop-file-validate"
fi
metainfo="$tmp/root/usr/share/metainfo/io.github.worldstudio.WorldStudio.metainfo.xml"
if appstreamcli validate --no-net "$metainfo"; then pass "appstreamcli validate --no-net"; else fail "appstreamcli validate --no-net"; fi
# The metainfo with the desktop file it launches, as installed.
if appstreamcli validate-tree --no-net "$tmp/root" > "$tmp/tree.log" 2>&1; then
  pass "appstreamcli validate-tree --no-net"
else
  cat "$tmp/tree.log"
  fail "appstreamcli validate-tree --no-net"
fi
release=$(grep -o '<release version="[^"]*"' "$metainfo" | head -1 | cut -d'"' -f2)
[[ "$release" == "$version" ]] && pass "the metainfo's newest release is the package version ($version)" ||
  fail "the metainfo's newest release is '$release', the package is $version (add a <release> to installer/*.metainfo.xml)"
mkdir -p "$tmp/mime/packages"
cp "$tmp/root/usr/share/mime/packages/io.github.worldstudio.WorldStudio.xml" "$tmp/mime/packages/"
if command -v update-mime-database > /dev/null; then
  if update-mime-database "$tmp/mime" > "$tmp/mime.log" 2>&1 && ! grep -qiE 'error|warning|invalid' "$tmp/mime.log"; then
    pass "update-mime-database reads the MIME types"
  else
    cat "$tmp/mime.log"
    fail "update-mime-database"
  fi
fi
for b in worldstudio worldstudio-cli; do
  rpath=$(readelf -d "$tmp/root/usr/bin/$b" | grep -E 'R(UN)?PATH' | grep -o '\[.*\]' || true)
  [[ "$rpath" == '[$ORIGIN/../lib/worldstudio]' ]] && pass "$b's run path is its bundled libraries alone ($rpath)" ||
    fail "$b's run path is '$rpath', not [\$ORIGIN/../lib/worldstudio]"
done
timing "package checks"

# --- install -------------------------------------------------------------------------------------------------
if ! $SUDO dpkg -i "$deb" > "$tmp/dpkg.log" 2>&1; then
  echo "  dpkg -i left dependencies to install:"
  grep -i 'depends on\|not installed' "$tmp/dpkg.log" | sed 's/^/    /'
  $SUDO apt-get -f install -y -qq > "$tmp/apt.log" 2>&1 ||
    { $SUDO apt-get update -qq && $SUDO apt-get -f install -y -qq >> "$tmp/apt.log" 2>&1; } || true
fi
installed_here=1
if dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
  pass "dpkg -i $(basename "$deb")"
else
  cat "$tmp/dpkg.log" "$tmp/apt.log" 2> /dev/null
  die "the package did not install"
fi
timing install

for b in worldstudio worldstudio-cli; do
  unresolved=$(ldd "/usr/bin/$b" | grep 'not found' || true)
  [[ -z "$unresolved" ]] && pass "ldd /usr/bin/$b: every library found" || fail "ldd /usr/bin/$b: $unresolved"
done

# A clean environment: a fresh HOME (no settings, no data folder, no model made before), no WORLDSTUDIO_* variables.
home=$(mktemp -d -p "$tmp")
mkdir -m 700 "$tmp/runtime"
clean_env=(env -i PATH=/usr/bin:/bin HOME="$home" XDG_RUNTIME_DIR="$tmp/runtime" LANG=C.UTF-8)
if out=$("${clean_env[@]}" /usr/bin/worldstudio-cli --version 2>&1) && grep -qF "$version" <<< "$out"; then
  pass "worldstudio-cli --version: $out"
else
  fail "worldstudio-cli --version: $out"
fi

gen="$tmp/gen"
mkdir -p "$gen"
if "${clean_env[@]}" /usr/bin/worldstudio-cli generate --prompt "A red ball drops onto the table." --frames 9 --steps 2 \
     -o "$gen/ball.mp4" > "$tmp/generate.log" 2>&1 &&
   [[ -s "$gen/ball.mp4" && -s "$gen/ball.json" ]] && grep -q '/usr/share/worldstudio/pico' "$gen/ball.json"; then
  pass "worldstudio-cli generate with the installed Pico model from a clean HOME ($(du -h "$gen/ball.mp4" | cut -f1) MP4)"
else
  tail -20 "$tmp/generate.log"
  ls -la "$gen"
  fail "worldstudio-cli generate with the installed Pico model (ball.mp4 and ball.json naming /usr/share/worldstudio/pico)"
fi
timing "cli checks"

if out=$("${clean_env[@]}" QT_QPA_PLATFORM=offscreen /usr/bin/worldstudio --version 2>&1) && grep -qF "$version" <<< "$out"; then
  pass "worldstudio --version: $out"
else
  fail "worldstudio --version: $out"
fi

# The studio, offscreen, on a fresh HOME, until it is stopped after a while: exit 124 (stopped by timeout) is a
# studio that was still running; any other exit is a crash or an early failure.
home=$(mktemp -d -p "$tmp")
"${clean_env[@]}" HOME="$home" QT_QPA_PLATFORM=offscreen timeout 10 /usr/bin/worldstudio --no-audio > "$tmp/studio.log" 2>&1
rc=$?
problems=$(grep -iE 'driver not loaded|cannot load|could not load|not found|segmentation|abort' "$tmp/studio.log" || true)
opened=$(grep -s '^last=' "$home/.config/WorldStudio/WorldStudio.conf" | cut -d= -f2-)
if ((rc == 124)) && [[ -z "$problems" ]] && [[ -d "$home/.local/share/WorldStudio" ]] &&
   [[ "$opened" == /usr/share/worldstudio/pico ]]; then
  pass "the studio ran offscreen for 10 s from a clean HOME (opened /usr/share/worldstudio/pico, no plugin missing)"
else
  tail -20 "$tmp/studio.log"
  fail "the studio offscreen: exit $rc (124 expected: still running when stopped), model '${opened}'${problems:+; $problems}"
fi
timing "studio checks"

# --- remove --------------------------------------------------------------------------------------------------
if $SUDO dpkg -r "$pkg" > "$tmp/remove.log" 2>&1; then
  installed_here=0
  left=""
  for p in /usr/bin/worldstudio /usr/bin/worldstudio-cli /usr/share/worldstudio \
           /usr/share/applications/io.github.worldstudio.WorldStudio.desktop \
           /usr/share/mime/packages/io.github.worldstudio.WorldStudio.xml; do
    [[ -e "$p" ]] && left+=" $p"
  done
  [[ -z "$left" ]] && pass "dpkg -r $pkg removed everything" || fail "dpkg -r $pkg left$left"
else
  cat "$tmp/remove.log"
  fail "dpkg -r $pkg"
fi
timing remove

if ((failures)); then
  echo "package-test: $failures check(s) failed"
  exit 1
fi
echo "package-test: every check passed ($(basename "$deb"))"
