#!/usr/bin/env bash
# Pico's training on a machine lent for minutes, in one command: builds the engine-only variant against the machine's
# own PyTorch (scripts/gpu-check.sh's build: no FFmpeg, OpenCV or Qt; the simulator and trainer are in it), trains a
# copy of MODEL_DIR until TRAIN_SECONDS have passed (the episodes are simulated and encoded on every core first), and
# leaves under $OUT what to bring back:
#   weights.part-aa, -ab, ...  the trained transformer weights, cut into 15 MiB parts (a lent machine returns files
#                              of at most 16 MiB); `cat weights.part-* > MODEL/transformer/diffusion_pytorch_model.safetensors`
#   weights.sha256             the whole file's checksum, to check the reassembled file against
#   train.log                  the build's summary and every line the trainer printed (loss every 10 steps, the
#                              held-out loss before and after, steps per second)
# The training state (optimizer moments) stays behind: it is twice the size of what it trains, so the next round
# starts its moments afresh (the rate's warm-up covers that).
# Usage: scripts/gpu-train.sh MODEL_DIR [train options ...]   e.g.
#   scripts/gpu-train.sh resources/pico --stage generator --steps 20000 --episodes 8192 --seed 200000 --lr 0.0005 \
#       --batch 32 --freeze-reasoner --caption-share 0.25 --timestep-shift 5 \
#       --modes text2video,image2video,video2video,forward_dynamics,inverse_dynamics,policy
# (the README's example; the cosine rate schedule follows --steps, so choose it near what TRAIN_SECONDS allows)
# Environment: OUT (out/gpu-train), TRAIN_SECONDS (420), DEVICE (cuda; cpu for the dry run on a machine without a GPU),
# BUILD_DIR (build-gpu-check, as gpu-check.sh), BUILD_TIMEOUT (300). Carry build-deps/ (scripts/fetch-engine-deps.sh)
# where the machine has no apt. Transfer is not trained here (its edge maps are OpenCV's).
set -uo pipefail
cd "$(dirname "$0")/.."
model=${1:?usage: scripts/gpu-train.sh MODEL_DIR [train options ...]}
shift
OUT=${OUT:-out/gpu-train}
mkdir -p "$OUT"
log="$OUT/train.log"
: > "$log"
export BUILD_DIR=${BUILD_DIR:-build-gpu-check}
if ! SECTIONS=build OUT="$OUT/build" scripts/gpu-check.sh > /dev/null 2>&1; then
  cat "$OUT/build/summary.md" >> "$log" 2>/dev/null
  echo "gpu-train: the build failed (above; the logs are in $OUT/build)" | tee -a "$log" >&2
  exit 1
fi
cat "$OUT/build/summary.md" >> "$log"
rm -rf "$OUT/build"  # its logs are long, and only eight files come back
[[ -d build-deps/root/usr ]] && export LD_LIBRARY_PATH="$PWD/build-deps/root/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
cli=$PWD/$BUILD_DIR/worldstudio-cli
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$model" "$work/model"
rm -f "$work/model/training_state.safetensors"  # a state from another machine's run is not this run's
echo "gpu-train: $(nproc) cores; $("$cli" --version | tail -n 1)" | tee -a "$log"
echo "gpu-train: train $* --device ${DEVICE:-cuda} --time-limit ${TRAIN_SECONDS:-420}" | tee -a "$log"
if ! "$cli" train "$work/model" "$@" --device "${DEVICE:-cuda}" --time-limit "${TRAIN_SECONDS:-420}" >> "$log" 2>&1; then
  tail -n 5 "$log" >&2
  echo "gpu-train: training failed (the log is $log)" >&2
  exit 1
fi
weights=$work/model/transformer/diffusion_pytorch_model.safetensors
(cd "$OUT" && sha256sum < "$weights" | cut -d' ' -f1 > weights.sha256 && split -b 15M -a 2 "$weights" weights.part-)
tail -n 1 "$log"
echo "gpu-train: $(ls "$OUT" | tr '\n' ' ')in $OUT"
