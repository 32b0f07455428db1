#!/usr/bin/env bash
# Geo tracking (issue 26): a 60 s walk down a street and a 60 s drive down an avenue, rendered with
# a location log of 1 Hz fixes (σ 5 m: white noise and a slowly drifting bias) and a 10 Hz compass
# (σ 5° white, a drifting bias, magnetic disturbances), tracked with geo anchors two ways in one
# run: fused (the log fitted to the world tracker's trajectory) and the naive baseline (each frame
# from the newest fix and compass reading alone, --geo-mode newest-fix). Prints the geo anchors'
# horizontal and heading errors (all frames, after 20 s, places in view), the projected jitter and
# the errors per 10 s. Each video is tracked with three logs (its own and two more draws of the
# same errors, --location-seed 101 and 102): one log's figures move by a metre with its fixes'
# bias, so the median over the three is the figure to quote.
#
#   bash Benchmarks/geo.sh      # from the package root (or anywhere)
#
# Environment: SCRATCH, SKIP_BUILD=1 (see lib.sh).
NAME=geo
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

for scene in street-walk street-drive; do
    [[ -f "$WORK/$scene/sequence.json" ]] || "$ANCHORKIT" synth "$scene" -o "$WORK/$scene" --quiet >/dev/null
    for seed in 101 102; do
        # Only the log is used (with the first sequence's frames): an mp4 keeps the folder small.
        [[ -f "$WORK/$scene-log$seed/location.jsonl" ]] ||
            "$ANCHORKIT" synth "$scene" --location-seed "$seed" --storage video -o "$WORK/$scene-log$seed" --quiet >/dev/null
    done
    for log in "" 101 102; do
        for mode in fused newest-fix; do
            run="$scene${log:+-log$log}-$mode"
            "$ANCHORKIT" track "$WORK/$scene" ${log:+--location "$WORK/$scene-log$log/location.jsonl"} --geo-mode "$mode" \
                -o "$WORK/$run.jsonl" --quiet >/dev/null
            "$ANCHORKIT" score "$WORK/$scene" "$WORK/$run.jsonl" --json >"$WORK/$run.score.json"
        done
    done
done
python3 "$ROOT/Benchmarks/geo/geo_table.py" "$WORK"
