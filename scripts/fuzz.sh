#!/usr/bin/env bash
# Runs one libFuzzer target on its seed corpus: scripts/fuzz.sh TARGET SECONDS [extra libFuzzer flags]
# (targets: fuzz_safetensors fuzz_tokenizer_json fuzz_json_prefix fuzz_request fuzz_generation_defaults fuzz_checkpoint_files fuzz_caption_check
# fuzz_hue_jsonl fuzz_hue_question_set fuzz_media_probe fuzz_parquet fuzz_robotics_json fuzz_batch). Builds build-fuzz/ with clang-14 (cmake --preset fuzz) first. New inputs
# that reach new code go to build-fuzz/corpus/TARGET (the seeds in tests/fuzz/corpus/TARGET stay as committed);
# a crash, leak or timeout stops the run with the input in build-fuzz/artifacts/ and exit 1.
set -euo pipefail
cd "$(dirname "$0")/.."
if (($# < 2)); then
  echo "usage: scripts/fuzz.sh TARGET SECONDS [libFuzzer flags]" >&2
  exit 2
fi
target=$1 seconds=$2
shift 2
[[ "$seconds" =~ ^[0-9]+$ ]] || { echo "fuzz.sh: SECONDS must be a whole number" >&2; exit 2; }
[[ -d "tests/fuzz/corpus/$target" ]] || { echo "fuzz.sh: no target $target (tests/fuzz/corpus/$target missing)" >&2; exit 2; }
installer/install-deps.sh --fuzz
source scripts/ccache-env.sh
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz --target "$target"
mkdir -p "build-fuzz/corpus/$target" build-fuzz/artifacts
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
exec "build-fuzz/fuzz/$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 -print_final_stats=1 \
  -artifact_prefix=build-fuzz/artifacts/ "$@" "build-fuzz/corpus/$target" "tests/fuzz/corpus/$target"
