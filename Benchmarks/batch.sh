#!/usr/bin/env bash
# Batch benchmark (issue 25 step 6): `anchorkit batch` over 8 committed videos on 2 workers,
# against running them one by one (`anchorkit track` after `anchorkit track`, as a shell loop
# would) and against the batch on 1 worker; and the manifest split into shards 0/2 and 1/2 (run
# at the same time, as two machines would; shard 1 through Scripts/cluster/slurm-batch.sbatch
# with a Slurm array task's environment), whose streams must be byte-identical to the unsharded
# run's. Every configuration runs RUNS times, round-robin; the median wall time is reported.
# See Benchmarks/README.md.
#
#   bash Benchmarks/batch.sh            # from the package root (or anywhere)
#
# Environment: RUNS (default 3), SKIP_BUILD=1 (use the existing .build-bench binary).
NAME=batch
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# Eight videos: markers near, far, blurred and walked past; image targets approached, shaken and
# far; and one with world tracking (the heaviest, listed first so that it starts first).
JOBS=("room-walk --world" markers-apriltag-far markers-aruco-table markers-blur markers-blur-walk
      markers-far-walk images-approach images-shake)
CONFIGS=(one-by-one workers-1 workers-2 shards)

# One folder per configuration, each with the same manifest (outputs relative to it).
for config in "${CONFIGS[@]}"; do
    rm -rf "$WORK/$config"; mkdir -p "$WORK/$config"
    for job in "${JOBS[@]}"; do
        read -r name options <<<"$job"
        python3 -c 'import json, sys; print(json.dumps({"input": sys.argv[1], "output": "out/" + sys.argv[2] + ".jsonl",
                                                         "options": sys.argv[3].split()}))' \
            "$ROOT/Datasets/$name" "$name" "${options:-}" >>"$WORK/$config/manifest.jsonl"
    done
done
FRAMES=0
for job in "${JOBS[@]}"; do read -r name _ <<<"$job"; FRAMES=$((FRAMES + $(wc -l <"$ROOT/Datasets/$name/groundtruth.jsonl"))); done

run_config() {  # CONFIG: one run, outputs removed first
    local dir="$WORK/$1"
    rm -rf "$dir/out" "$dir"/*.summary.json
    case "$1" in
        one-by-one)
            mkdir -p "$dir/out"
            for job in "${JOBS[@]}"; do
                read -r name options <<<"$job"
                # shellcheck disable=SC2086
                "$ANCHORKIT" track "$ROOT/Datasets/$name" $options -o "$dir/out/$name.jsonl" --quiet >/dev/null
            done ;;
        workers-1) "$ANCHORKIT" batch "$dir/manifest.jsonl" --workers 1 --quiet >/dev/null ;;
        workers-2) "$ANCHORKIT" batch "$dir/manifest.jsonl" --workers 2 --quiet >/dev/null ;;
        shards)
            "$ANCHORKIT" batch "$dir/manifest.jsonl" --shard 0/2 --workers 1 --quiet >/dev/null &
            local first=$!
            SLURM_ARRAY_TASK_ID=1 SLURM_ARRAY_TASK_MIN=0 SLURM_ARRAY_TASK_COUNT=2 SLURM_CPUS_PER_TASK=1 ANCHORKIT="$ANCHORKIT" \
                bash "$ROOT/Scripts/cluster/slurm-batch.sbatch" "$dir/manifest.jsonl" --quiet >/dev/null
            wait "$first" ;;
    esac
}

for config in "${CONFIGS[@]}"; do : >"$WORK/$config.ms"; done
LOAD_BEFORE="$(cut -d' ' -f1-3 /proc/loadavg)"
for ((r = 1; r <= RUNS; r++)); do
    for config in "${CONFIGS[@]}"; do
        say "round $r/$RUNS: $config"
        start=$(date +%s%N)
        run_config "$config"
        echo "$(( ($(date +%s%N) - start) / 1000000 ))" >>"$WORK/$config.ms"
    done
done
LOAD_AFTER="$(cut -d' ' -f1-3 /proc/loadavg)"

python3 - "$WORK" "$FRAMES" "$(revision)" "$LOAD_BEFORE" "$LOAD_AFTER" "$(nproc)" "$RUNS" "${CONFIGS[@]}" <<'PY'
import hashlib, os, statistics, sys
work, frames, rev, load0, load1, ncpu, runs = sys.argv[1:8]
configs = sys.argv[8:]
frames = int(frames)
def digests(config):
    out = os.path.join(work, config, "out")
    return {name: hashlib.md5(open(os.path.join(out, name), "rb").read()).hexdigest() for name in sorted(os.listdir(out))}
reference = digests("one-by-one")
wall = {c: statistics.median(float(x) / 1000 for x in open(os.path.join(work, c + ".ms")) if x.strip()) for c in configs}
labels = {"one-by-one": "one by one (`anchorkit track` x 8)", "workers-1": "`batch --workers 1`",
          "workers-2": "`batch --workers 2`", "shards": "`batch --shard 0/2` + Slurm task 1/2, at once"}
print(f"8 videos, {frames} frames; median of {runs} runs each, round-robin")
print("| how | wall s | frames/s | speed-up over one by one | streams identical to one by one |")
print("|---|---|---|---|---|")
for c in configs:
    same = digests(c) == reference and len(reference) == 8
    print(f"| {labels[c]} | {wall[c]:.1f} | {frames / wall[c]:.1f} | {wall['one-by-one'] / wall[c]:.2f}x | {'yes' if same else 'NO'} |")
print(f"\nanchorkit {rev}; {ncpu} CPUs; load average before {load0}, after {load1}")
PY
