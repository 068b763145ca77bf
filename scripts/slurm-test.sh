#!/usr/bin/env bash
# The batch on a real single-node Slurm cluster on loopback (scripts/slurm-cluster.sh), against the same batch run
# locally: 40 samples of the Pico model, one of which fails (its conditioning picture does not exist).
#   1. local and Slurm runs give the same statuses and bitwise the same latents, seed for seed;
#   2. the shard holding the failing sample is the one task that FAILED, and its error is in sample_outputs.json;
#   3. a shard cancelled while it waits is CANCELLED and its samples have not run; --resume submits only the
#      unfinished shards and completes them;
#   4. the studio's Cluster window (tests/ui/test_cluster_studio, when built) does the same from the queue.
# Needs root (apt and the daemons). Usage: scripts/slurm-test.sh [CLI] (default build/worldstudio-cli)
set -euo pipefail
cd "$(dirname "$0")/.."
cli=$(realpath "${1:-build/worldstudio-cli}")
work=$(mktemp -d /tmp/ws-slurm-XXXXXX)
cleanup() { scripts/slurm-cluster.sh stop "$work/cluster" || true; }
trap cleanup EXIT
SLURM_CONF=$(scripts/slurm-cluster.sh start "$work/cluster" | tail -n 1)
export SLURM_CONF
fail() { echo "slurm-test: $*" >&2; exit 1; }

samples="$work/shots.jsonl"
for i in $(seq 0 39); do
  if [[ $i == 17 ]]; then
    echo "{\"name\": \"shot_$i\", \"model_mode\": \"image2video\", \"prompt\": \"a ball\", \"vision_path\": \"missing.png\", \"num_steps\": 2, \"seed\": $i}"
  else
    echo "{\"name\": \"shot_$i\", \"prompt\": \"a red ball rolls across the floor, take $i\", \"num_steps\": 2, \"seed\": $i}"
  fi
done > "$samples"

status_of() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["status"])' "$1/$2/sample_outputs.json" 2>/dev/null || echo none; }
statuses() { for i in $(seq 0 39); do echo "shot_$i $(status_of "$1" "shot_$i")"; done; }

# 1. Locally, then on the cluster; the same statuses and latents.
"$cli" batch "$samples" -o "$work/local" > "$work/local.log" 2>&1 && fail "the local batch should report its failing sample"
"$cli" batch "$samples" -o "$work/slurm" --slurm --shards 4 --max-running 2 > "$work/slurm.log" 2>&1 && fail "the Slurm batch should report its failing sample"
diff <(statuses "$work/local") <(statuses "$work/slurm") || fail "local and Slurm statuses differ"
[[ $(statuses "$work/slurm" | grep -c ' success$') == 39 ]] || fail "expected 39 successes"
[[ $(status_of "$work/slurm" shot_17) == error ]] || fail "shot_17 should be an error"
grep -q 'missing.png' "$work/slurm/shot_17/sample_outputs.json" || fail "shot_17's message should name its missing picture"
for i in $(seq 0 39); do
  [[ $i == 17 ]] && continue
  "$cli" compare "$work/local/shot_$i/vision.safetensors" "$work/slurm/shot_$i/vision.safetensors" | grep -v 'relative error 0.000e+00' &&
    fail "shot_$i: the Slurm latents differ from the local ones"
done
job=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["job_id"])' "$work/slurm/.slurm/job.json")
states=$(squeue -h -r -t all -j "$job" -o '%K %T' | sort -n)
echo "$states"
[[ $(grep -c FAILED <<< "$states") == 1 && $(grep -c COMPLETED <<< "$states") == 3 ]] || fail "expected one FAILED and three COMPLETED tasks"
[[ $(grep FAILED <<< "$states" | cut -d' ' -f1) == $((17 % 4)) ]] || fail "the FAILED task should be shard $((17 % 4)), which holds shot_17"

# 2. A cancelled shard, then a resume of what is unfinished.
"$cli" batch "$samples" -o "$work/cancel" --slurm --shards 4 --max-running 1 --no-wait > "$work/cancel.log" 2>&1
"$cli" batch --slurm-cancel -o "$work/cancel" --shard 3 >> "$work/cancel.log"
job=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["job_id"])' "$work/cancel/.slurm/job.json")
for _ in $(seq 600); do
  [[ -z $(squeue -h -r -j "$job" -t PENDING,RUNNING,COMPLETING -o '%K') ]] && break
  sleep 0.5
done
# A task cancelled while pending leaves the queue without a final record; one cancelled later shows CANCELLED.
shard3=$(squeue -h -r -t all -j "$job" -o '%K %T' | grep '^3 ' || true)
[[ -z $shard3 || $shard3 == "3 CANCELLED" ]] || fail "shard 3 should be cancelled, not '$shard3'"
for i in 3 7 11; do [[ $(status_of "$work/cancel" "shot_$i") == none ]] || fail "shot_$i (shard 3) should not have run"; done
"$cli" batch "$samples" -o "$work/cancel" --slurm --shards 4 --max-running 2 --resume > "$work/resume.log" 2>&1 || true
grep -q '39 succeeded, 1 failed, 0 not run' "$work/resume.log" || { cat "$work/resume.log"; fail "the resume should finish every shard"; }
array=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["array"])' "$work/cancel/.slurm/job.json")
[[ $array == "1,3" ]] || fail "the resume should submit only shards 1 (shot_17's) and 3 (cancelled), not $array"
diff <(statuses "$work/local") <(statuses "$work/cancel") || fail "after the resume, the statuses should be the local run's"
# 3. The studio's Cluster window on the same cluster: send the queue, a failing job's shard, a cancel and a resume.
studio_test="$(dirname "$cli")/tests/test_cluster_studio"
if [[ -x $studio_test ]]; then
  QT_QPA_PLATFORM=xcb timeout 900 tests/ui/run-on-xvfb.sh "$studio_test" > "$work/studio.log" 2>&1 || { cat "$work/studio.log"; fail "the studio's Cluster window failed on the cluster"; }
  grep -q 'the cluster of SLURM_CONF' "$work/studio.log" || fail "the studio test did not use the cluster"
  studio="; the studio's Cluster window on it"
else
  studio=" (no studio build: its Cluster window not checked)"
fi
echo "slurm-test: 40 samples locally and on Slurm alike (39 success, shot_17 error in the one FAILED task); a cancelled shard resumed$studio"
