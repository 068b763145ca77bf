#!/bin/sh
# The Pico recipe: an untrained Pico folder (architecture, tokenizer trained on Pico World's texts, fitted codecs),
# then the paper's curriculum in miniature, in two rounds: the reasoner learns to upsample short prompts into
# structured captions, then the generation tower learns every mode by rectified flow while the reasoner stays
# frozen; the second round continues both at half the rate on other episodes (the generator re-adapts to the
# reasoner's new text features). Deterministic; each stage checkpoints and can be continued with the same command
# plus --resume.
#   scripts/train-pico.sh OUT_DIR [CLI]
# Environment: DEVICE (cpu; cuda on a GPU machine), UPSAMPLER_STEPS (1500), GENERATOR_STEPS (20000),
# UPSAMPLER2_STEPS (1500), GENERATOR2_STEPS (5000). The shipped model is this script with the defaults, on 2 CPU
# cores (about 29 + 60 + 37 + 19 minutes).
set -eu
OUT=${1:?usage: scripts/train-pico.sh OUT_DIR [path to worldstudio-cli]}
CLI=${2:-build/worldstudio-cli}
DEVICE=${DEVICE:-cpu}
MODES=text2video,image2video,video2video,forward_dynamics,inverse_dynamics,policy,transfer
"$CLI" make-pico "$OUT" --seed 0
# Round 1.
"$CLI" train "$OUT" --stage upsampler --steps "${UPSAMPLER_STEPS:-1500}" --episodes 3000 --seed 0 --lr 0.001 \
  --checkpoint-every 250 --device "$DEVICE"
"$CLI" train "$OUT" --stage generator --steps "${GENERATOR_STEPS:-20000}" --episodes 1024 --seed 0 --lr 0.001 \
  --freeze-reasoner --caption-share 0.25 --checkpoint-every 1000 --device "$DEVICE" --modes "$MODES"
# Round 2.
"$CLI" train "$OUT" --stage upsampler --steps "${UPSAMPLER2_STEPS:-1500}" --episodes 3000 --seed 1 --lr 0.0005 \
  --checkpoint-every 500 --device "$DEVICE"
"$CLI" train "$OUT" --stage generator --steps "${GENERATOR2_STEPS:-5000}" --episodes 1024 --seed 1 --lr 0.0005 \
  --freeze-reasoner --caption-share 0.25 --checkpoint-every 1000 --device "$DEVICE" --modes "$MODES"
