#!/usr/bin/env bash
# The GPU round in one command: builds the engine-only variant against the machine's own PyTorch (its LibTorch and
# CUDA), then measures, writing everything under $OUT (default out/gpu-check; summary.md is the table):
#   1. the build (time, what it links);
#   2. parity: every shared golden case (velocity, logits, positions, video VAE, audio VAE) on the device in float32
#      and bfloat16 against the reference, and generate on the tiny model and on Pico, device against CPU;
#   3. seconds per denoising step of a Nano-shaped network (random weights made on the device, bf16, text2video 480p
#      16:9, 93 and 189 frames, CFG, text K/V reused) against its FLOPs and the peak, with the tower split and
#      layerwise offload too, and peak device memory (nvidia-smi, sampled);
#   4. video VAE decode at the real width, 480p and 24 latent frames (93 frames): plain, chunked, tiled;
#   5. the memory levers on a checkpoint read from disk (bench-memory on the device).
# Without a CUDA device (or with --cpu) it runs the same steps on the CPU at sizes a CPU affords: the dry run.
# A user with a GPU runs it as it is; the small libraries a machine without apt lacks come from
# scripts/fetch-engine-deps.sh (run where apt is, then carry build-deps/ along).
# Usage: scripts/gpu-check.sh [--cpu]        SECTIONS="build parity step vae memory" (the default) picks sections
# (the build always runs). Each section has its own time limit; the whole stays under 9 minutes on a
# 16-core GPU machine. BUILD_DIR and BUILD_TIMEOUT (seconds, default 300) change the build's folder and limit.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-out/gpu-check}
mkdir -p "$OUT"
summary="$OUT/summary.md"
: > "$summary"
start=$SECONDS
say() { echo "$*" | tee -a "$summary"; }
section() { say ""; say "## $*"; }
elapsed() { echo $((SECONDS - start)); }

device=cuda
has_torch=0
if python3 -c 'import torch' 2>/dev/null; then has_torch=1; fi
if [[ "${1:-}" == "--cpu" || $has_torch == 0 ]] || ! python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
  device=cpu
fi
say "# GPU check ($(date -u +%Y-%m-%dT%H:%MZ), device $device)"
if [[ $device == cuda ]]; then
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null | sed 's/^/GPU: /' | tee -a "$summary"
  python3 -c 'import torch; print("PyTorch", torch.__version__, "CUDA", torch.version.cuda)' | tee -a "$summary"
fi

# 1. Build, by the README's CMake path: LibTorch is found as cmake/WorldStudioTorch.cmake says (.venv's torch, else
# python3's: the machine's own PyTorch on a GPU machine).
section "1. Build (engine only)"
args=(-DWS_ENGINE_ONLY=ON -DCMAKE_BUILD_TYPE=Release)
prefix=""
if [[ -d build-deps/root/usr ]]; then
  deps=$PWD/build-deps/root/usr
  prefix="$deps"
  args+=("-DOPENSSL_INCLUDE_DIR=$deps/include" "-DOPENSSL_CRYPTO_LIBRARY=$deps/lib/x86_64-linux-gnu/libcrypto.so"
         "-DCMAKE_CXX_FLAGS=-isystem $deps/include/x86_64-linux-gnu")
  export LD_LIBRARY_PATH="$deps/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
[[ -n $prefix ]] && args+=("-DCMAKE_PREFIX_PATH=$prefix")
bdir=${BUILD_DIR:-build-gpu-check}  # BUILD_DIR=build-engine reuses check-engine-build's folder (the dry run on 2 cores)
gen=(); command -v ninja >/dev/null && gen=(-G Ninja)
t0=$SECONDS
if ! timeout 300 cmake -S . -B "$bdir" "${gen[@]}" "${args[@]}" > "$OUT/configure.log" 2>&1 ||
   ! timeout "${BUILD_TIMEOUT:-300}" cmake --build "$bdir" -j "$(nproc)" > "$OUT/build.log" 2>&1; then
  say "build FAILED after $((SECONDS - t0)) s; see configure.log and build.log"
  tail -n 30 "$OUT/build.log" "$OUT/configure.log" 2>/dev/null | tee -a "$summary"
  exit 1
fi
cli=$PWD/$bdir/worldstudio-cli
say "built in $((SECONDS - t0)) s; $(grep -o 'LibTorch [0-9.]* (CUDA build)' "$OUT/configure.log" | head -n 1)"
say "worldstudio-cli links: $(readelf -d "$cli" | awk '/NEEDED/ {print $5}' | tr -d '[]' | tr '\n' ' ')"
say "libworldstudio_cuda.so links: $(readelf -d "$bdir/libworldstudio_cuda.so" | awk '/NEEDED/ {print $5}' | tr -d '[]' | tr '\n' ' ')"
say "CUDA: $("$cli" --version | grep -i cuda || echo '(not reported)')"

sections=" ${SECTIONS:-build parity step vae memory} "
want() { [[ $sections == *" $1 "* ]]; }

# 2. Parity against the reference's golden cases, float32 and bfloat16; generation on the device against the CPU.
if want parity; then
section "2. Parity"
say "| case | dtype | tensor | relative error (max abs) |"
say "| --- | --- | --- | --- |"
golden=tests/data/golden
for dtype in float32 bfloat16; do
  for spec in "velocity t2v_a case" "logits reasoner_a case" "vae-check vae_a case" "vae-check avae_a case" "positions seq_a positions"; do
    read -r verb name ref <<< "$spec"
    extra=(); [[ $verb != positions ]] && extra=(--device "$device" --dtype "$dtype")
    [[ $verb == positions && $dtype != float32 ]] && continue  # integer positions: no device, no dtype
    if timeout 60 "$cli" "$verb" "$golden/$name" -o "$OUT/$name-$dtype.safetensors" "${extra[@]}" > /dev/null 2> "$OUT/$name-$dtype.err"; then
      "$cli" compare "$golden/$name/$ref.safetensors" "$OUT/$name-$dtype.safetensors" | while read -r line; do
        say "| $name | $dtype | ${line%%:*} | ${line#*: } |"
      done
    else
      say "| $name | $dtype | FAILED | $(head -c 200 "$OUT/$name-$dtype.err" | tr '\n' ' ') |"
    fi
  done
done
"$cli" make-tiny "$OUT/tiny" > /dev/null
say ""
say "| model | dtype on $device | generate on $device against the CPU in float32 (latents) |"
say "| --- | --- | --- |"
for model in "$OUT/tiny" resources/pico; do
  job=(--prompt "A red ball drops onto the table." --steps 4 --seed 5)
  [[ $model == "$OUT/tiny" ]] && job+=(--resolution 256 --frames 9)
  timeout 120 "$cli" generate --model "$model" --device cpu --dtype float32 "${job[@]}" -o "$OUT/gen-cpu" > /dev/null 2>&1
  for dtype in float32 bfloat16; do
    if timeout 120 "$cli" generate --model "$model" --device "$device" --dtype "$dtype" "${job[@]}" -o "$OUT/gen-dev" > /dev/null 2> "$OUT/gen.err"; then
      say "| $(basename "$model") | $dtype | $("$cli" compare "$OUT/gen-cpu.safetensors" "$OUT/gen-dev.safetensors" | tr '\n' ';') |"
    else
      say "| $(basename "$model") | $dtype | FAILED: $(head -c 200 "$OUT/gen.err" | tr '\n' ' ') |"
    fi
  done
done

# FP8: W8A8 (activations quantized, the FP8 product) against W8A16 (dequantized weights) on the same FP8 checkpoint.
"$cli" make-tiny "$OUT/tiny-fp8" --fp8 > /dev/null
say ""
say "| FP8 tiny model on $device | W8A8 against W8A16 (latents, 8 steps; the step policy keeps 6 of them W8A16) |"
say "| --- | --- |"
fp8job=(--model "$OUT/tiny-fp8" --device "$device" --prompt "A red ball drops onto the table." --steps 8 --seed 5 --resolution 256 --frames 9)
if timeout 120 "$cli" generate "${fp8job[@]}" --fp8-compute w8a16 -o "$OUT/fp8-a16" > /dev/null 2> "$OUT/fp8.err" &&
   timeout 120 "$cli" generate "${fp8job[@]}" --fp8-compute w8a8 -o "$OUT/fp8-a8" > /dev/null 2>> "$OUT/fp8.err"; then
  say "| tiny-fp8 | $("$cli" compare "$OUT/fp8-a16.safetensors" "$OUT/fp8-a8.safetensors" | tr '\n' ';') |"
  say "| record | $(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r.get("fp8_compute"), r.get("attention"))' "$OUT/fp8-a8.json" 2>&1) |"
else
  say "| tiny-fp8 | FAILED: $(head -c 300 "$OUT/fp8.err" | tr '\n' ' ') |"
fi

fi

# 3. Seconds per step against the FLOP floor, with the memory levers; peak device memory sampled by nvidia-smi.
if want step; then
section "3. Per-step time"
watch_memory() {  # $1: file; samples the GPU's used memory every 100 ms until killed
  if [[ $device == cuda ]] && command -v nvidia-smi >/dev/null; then
    nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 100 > "$1" 2>/dev/null &
    echo $!
  else
    echo 0
  fi
}
peak_of() { sort -n "$1" 2>/dev/null | tail -n 1; }
if [[ $device == cuda ]]; then
  step=(--preset nano --dtype bfloat16 --resolution 480 --aspect 16,9 --steps 3 --peak-tflops "${PEAK_TFLOPS:-790}")
  all_frames=93,189; short_frames=93
else
  step=(--preset nano --hidden 512 --layers 4 --dtype float32 --resolution 256 --aspect 16,9 --steps 2 --prompt-tokens 64)
  all_frames=9,17; short_frames=9
fi
# Both towers at both lengths, then SDPA against matmul + softmax at the shorter, the tower split and offload.
for variant in "" "--compare-attention" "--tower-split" "--resident-layers 8"; do
  frames=$all_frames; [[ -n $variant ]] && frames=$short_frames
  [[ $device == cpu && $variant == "--resident-layers 8" ]] && variant="--resident-layers 2"
  mem="$OUT/memory-$(echo "${variant:-plain}" | tr -d ' -').csv"
  watcher=$(watch_memory "$mem")
  # shellcheck disable=SC2086
  timeout 150 "$cli" bench-step "${step[@]}" --frames "$frames" --device "$device" $variant > "$OUT/step.log" 2>&1
  status=$?
  [[ $watcher != 0 ]] && kill "$watcher" 2>/dev/null
  say ""
  say "bench-step ${variant:-(both towers resident)}$([[ $status != 0 ]] && echo " FAILED ($status)")"
  sed 's/^/    /' "$OUT/step.log" | tee -a "$summary"
  [[ -s $mem ]] && say "    peak GPU memory used (nvidia-smi): $(peak_of "$mem") MiB"
  (( $(elapsed) > 420 )) && { say "(time: the remaining step variants are left out)"; break; }
done

fi

# 4. Video VAE at the real width.
if want vae; then
section "4. Video VAE decode"
if (( $(elapsed) < 450 )); then
  if [[ $device == cuda ]]; then
    vae=(--full-width --latent-height 30 --latent-width 52 --latent-frames 24 --device cuda --dtype bfloat16)
  else
    vae=(--latent-frames 2,4)
  fi
  timeout 120 "$cli" bench-vae "${vae[@]}" > "$OUT/vae.log" 2>&1 || say "bench-vae FAILED or ran out of time"
  sed 's/^/    /' "$OUT/vae.log" | tee -a "$summary"
else
  say "(time: left out)"
fi

fi

# 5. The memory levers on a checkpoint read from disk.
if want memory; then
section "5. Memory levers (bench-memory)"
if (( $(elapsed) < 480 )); then
  timeout 90 "$cli" bench-memory --device "$device" > "$OUT/memory.log" 2>&1 || say "bench-memory FAILED or ran out of time"
  sed 's/^/    /' "$OUT/memory.log" | tee -a "$summary"
else
  say "(time: left out)"
fi
fi
say ""
say "gpu-check: $(elapsed) s in all; files in $OUT"
