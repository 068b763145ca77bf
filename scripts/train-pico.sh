#!/bin/sh
# The Pico recipe: an untrained Pico folder (architecture, tokenizer trained on Pico World's texts, fitted codecs),
# then the paper's curriculum in miniature, in nine rounds: the reasoner learns to upsample short prompts into
# structured captions, then the generation tower learns every mode by rectified flow while the reasoner stays
# frozen; later rounds continue both on other episodes (the generator re-adapts to the reasoner's new text
# features). Round 3 first re-installs the codecs: the shipped model's first two rounds ran with earlier codecs (a
# linear code of the sound waveform, and the first frame on a basis of its own), and its third round relearned the
# current ones; on a fresh folder the re-install changes nothing, as make-pico already installed the same codecs.
# Deterministic; each stage checkpoints and can be continued with the same command plus --resume. Last, the video
# codec's convolutional decoder stage (it changes decoding only, so it can come after the generator) and the
# preview projection (live previews' latent-to-colour map, fitted to what the codec decodes).
#   scripts/train-pico.sh OUT_DIR [CLI]
# Environment: DEVICE (cpu; cuda on a GPU machine), UPSAMPLER_STEPS (1500), GENERATOR_STEPS (20000),
# UPSAMPLER2_STEPS (1500), GENERATOR2_STEPS (5000), UPSAMPLER3_STEPS (1500), UPSAMPLER4_STEPS (1500 in each of two
# stages), SOUND3_STEPS (4000), GENERATOR3_STEPS (6000), GENERATOR4_STEPS (12000), GENERATOR5_STEPS (16000),
# GENERATOR6_STEPS (20000), TEXT7_STEPS (8000), GENERATOR7_STEPS (2500), TEXT8_STEPS (4000), GENERATOR8_STEPS
# (2500), TEXT9_STEPS (4000), GENERATOR9_STEPS (2500), DECODER_STEPS (4000), EPISODE_DIVISOR (1: every stage's
# episode count is divided by it, at least 4 are kept; with tiny step counts a quick run of the whole recipe, as its
# test does). The shipped model is this script
# with the defaults, on 2 CPU cores (rounds 1 and 2 about 29 + 60 + 37 + 19 minutes; rounds 3 to 9 see the model
# card).
set -eu
OUT=${1:?usage: scripts/train-pico.sh OUT_DIR [path to worldstudio-cli]}
CLI=${2:-build/worldstudio-cli}
DEVICE=${DEVICE:-cpu}
DIVISOR=${EPISODE_DIVISOR:-1}
case "$DIVISOR" in
  '' | *[!0-9]* | 0) echo "EPISODE_DIVISOR must be a positive integer" >&2; exit 2 ;;
esac
# A stage's episode count after EPISODE_DIVISOR.
episodes() {
  n=$(( $1 / DIVISOR ))
  [ "$n" -ge 4 ] || n=4
  echo "$n"
}
MODES=text2video,image2video,video2video,forward_dynamics,inverse_dynamics,policy,transfer
"$CLI" make-pico "$OUT" --seed 0
# Round 1.
"$CLI" train "$OUT" --stage upsampler --steps "${UPSAMPLER_STEPS:-1500}" --episodes "$(episodes 3000)" --seed 0 --lr 0.001 \
  --checkpoint-every 250 --device "$DEVICE"
"$CLI" train "$OUT" --stage generator --steps "${GENERATOR_STEPS:-20000}" --episodes "$(episodes 1024)" --seed 0 --lr 0.001 \
  --freeze-reasoner --caption-share 0.25 --checkpoint-every 1000 --device "$DEVICE" --modes "$MODES"
# Round 2.
"$CLI" train "$OUT" --stage upsampler --steps "${UPSAMPLER2_STEPS:-1500}" --episodes "$(episodes 3000)" --seed 1 --lr 0.0005 \
  --checkpoint-every 500 --device "$DEVICE"
"$CLI" train "$OUT" --stage generator --steps "${GENERATOR2_STEPS:-5000}" --episodes "$(episodes 1024)" --seed 1 --lr 0.0005 \
  --freeze-reasoner --caption-share 0.25 --checkpoint-every 1000 --device "$DEVICE" --modes "$MODES"
# Round 3: the upsampler once more on the episodes of rounds 1 and 2 (seeds 2..3001, mostly seen), then twice on
# 6000 new ones (seeds 3000..8999, 9000..14999: the held-out loss showed it had begun to memorize, swapping
# attributes between subjects on new prompts); the generator on the sound modes first (text2video, image2video,
# video2video: half of video2video is video-to-sound), then on every mode.
"$CLI" pico-codecs "$OUT"
"$CLI" train "$OUT" --stage upsampler --steps "${UPSAMPLER3_STEPS:-1500}" --episodes "$(episodes 3000)" --seed 2 --lr 0.0005 \
  --checkpoint-every 500 --device "$DEVICE"
for SEED in 3000 9000; do
  "$CLI" train "$OUT" --stage upsampler --steps "${UPSAMPLER4_STEPS:-1500}" --episodes "$(episodes 6000)" --seed "$SEED" --lr 0.0005 \
    --checkpoint-every 500 --device "$DEVICE"
done
"$CLI" train "$OUT" --stage generator --steps "${SOUND3_STEPS:-4000}" --episodes "$(episodes 1024)" --seed 2 --lr 0.0005 \
  --freeze-reasoner --caption-share 0.25 --checkpoint-every 1000 --device "$DEVICE" --modes text2video,image2video,video2video
"$CLI" train "$OUT" --stage generator --steps "${GENERATOR3_STEPS:-6000}" --episodes "$(episodes 1024)" --seed 3 --lr 0.0005 \
  --freeze-reasoner --caption-share 0.25 --checkpoint-every 1000 --device "$DEVICE" --modes "$MODES"
# Round 4: the generator on 2048 new episodes (seeds 30000..32047; rounds 1 to 3 all drew from seeds 0..1026), its
# noise levels shifted as sampling shifts them (unshifted, a step above sigma 0.9 came about one in seventy while
# sampling spends half its steps there, and the network had learned to ignore the first frame and the video), and
# three quarters of video2video as video-to-sound.
"$CLI" train "$OUT" --stage generator --steps "${GENERATOR4_STEPS:-12000}" --episodes "$(episodes 2048)" --seed 30000 --lr 0.0005 \
  --freeze-reasoner --caption-share 0.25 --timestep-shift 5 --video-to-sound-share 0.75 --checkpoint-every 1000 \
  --device "$DEVICE" --modes "$MODES"
# The generation tower as round 4 left it is kept in guide/: the weaker model that sampling steers away from
# (autoguidance, the folder's default for the modes that draw video) as the later rounds train on.
"$CLI" make-guide "$OUT"
# Round 5: the generator as in round 4, on 2048 new episodes again (seeds 50000..52047).
"$CLI" train "$OUT" --stage generator --steps "${GENERATOR5_STEPS:-16000}" --episodes "$(episodes 2048)" --seed 50000 --lr 0.0005 \
  --freeze-reasoner --caption-share 0.25 --timestep-shift 5 --video-to-sound-share 0.75 --checkpoint-every 1000 \
  --device "$DEVICE" --modes "$MODES"
# Round 6: the generator as in round 5 on 2048 new episodes (seeds 70000..72047), forward dynamics and video2video
# (three quarters of it video-to-sound) each drawn twice as often as the other modes, for the two figures that
# missed their bars.
"$CLI" train "$OUT" --stage generator --steps "${GENERATOR6_STEPS:-20000}" --episodes "$(episodes 2048)" --seed 70000 --lr 0.0005 \
  --freeze-reasoner --caption-share 0.25 --timestep-shift 5 --video-to-sound-share 0.75 --checkpoint-every 1000 \
  --device "$DEVICE" --modes text2video,image2video,video2video,video2video,forward_dynamics,forward_dynamics,inverse_dynamics,policy,transfer
# One round of two stages in batches of 8: text2video alone (steps, episodes, first seed, rate), then every mode
# at rate 0.0003 (steps, episodes, first seed).
two_stage_round() {
  "$CLI" train "$OUT" --stage generator --steps "$1" --batch 8 --episodes "$(episodes "$2")" --seed "$3" \
    --lr "$4" --freeze-reasoner --caption-share 0.25 --timestep-shift 5 --checkpoint-every 1000 --device "$DEVICE" \
    --modes text2video
  "$CLI" train "$OUT" --stage generator --steps "$5" --batch 8 --episodes "$(episodes "$6")" --seed "$7" \
    --lr 0.0003 --freeze-reasoner --caption-share 0.25 --timestep-shift 5 --checkpoint-every 500 --device "$DEVICE" \
    --modes "$MODES"
}
# Round 7: batches of 8 samples packed into one pass. First text2video alone, 8000 steps of 8 on 4096 new episodes
# (seeds 130000..134095; 64000 samples, about three quarters of what rounds 1 to 6 showed the generator), then every
# mode for 2500 steps of 8 on 1024 new ones (seeds 140000..141023), which brings back what text2video alone lets slip
# (inverse dynamics).
two_stage_round "${TEXT7_STEPS:-8000}" 4096 130000 0.0005 "${GENERATOR7_STEPS:-2500}" 1024 140000
# Round 8: the same two stages again on new episodes, at a lower rate for text2video: 4000 steps of 8 on 2048
# (seeds 150000..152047), then every mode for 2500 steps of 8 on 1024 (seeds 160000..161023).
two_stage_round "${TEXT8_STEPS:-4000}" 2048 150000 0.0003 "${GENERATOR8_STEPS:-2500}" 1024 160000
# Round 9: round 8's two stages once more on new episodes: 4000 text2video steps of 8 on 2048 (seeds
# 170000..172047), then every mode for 2500 steps of 8 on 1024 (seeds 180000..181023).
two_stage_round "${TEXT9_STEPS:-4000}" 2048 170000 0.0003 "${GENERATOR9_STEPS:-2500}" 1024 180000
"$CLI" fit-decoder "$OUT" --steps "${DECODER_STEPS:-4000}" --episodes "$(episodes 256)"
"$CLI" fit-preview "$OUT"
