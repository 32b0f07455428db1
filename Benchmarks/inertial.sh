#!/usr/bin/env bash
# Metric scale from an inertial log, window by window (issue 28 step 4): the rooms rendered with
# an IMU log (`anchorkit synth ROOM --imu`, PNG frames and mp4), tracked with `--world` (the log's
# scale, refined every 2 s as the walk goes on) and scored by `anchorkit score`: its scale error
# over all metric frames (one similarity, which blends the units a refinement changes) and per 2 s
# window. Beside it, the same frames tracked without the log: how much the odometry's own unit
# varies from one 2 s window to the next, the floor under any scale the log can give. See
# Benchmarks/README.md, "Metric scale from an inertial log".
#
#   bash Benchmarks/inertial.sh        # from the package root (or anywhere); SKIP_BUILD=1 as elsewhere
NAME=inertial
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

echo "| room | frames | metric from | scale error, all metric frames | scale error per 2 s window (largest) | odometry's own unit per 2 s window, no log (largest) |"
echo "|---|---|---:|---:|---|---:|"
for room in room-walk-plain room-brick room-tiled; do
    for storage in png video; do
        seq="$WORK/$room-$storage"
        [[ -f "$seq/sequence.json" ]] || "$ANCHORKIT" synth "$room" --imu --storage "$( [[ $storage == png ]] && echo images || echo video )" \
            -o "$seq" --quiet >/dev/null
        # The same sequence without its log: sequence.json alone, pointing at the frames above.
        bare="$seq-no-log"
        mkdir -p "$bare"
        python3 - "$seq/sequence.json" "$bare/sequence.json" "$(basename "$seq")" <<'PY'
import json, sys
description = json.load(open(sys.argv[1]))
description.pop("imu", None)
for key in ("frames", "video", "gravity", "groundTruth"):
    if description.get(key):
        description[key] = "../" + sys.argv[3] + "/" + description[key]
json.dump(description, open(sys.argv[2], "w"), indent=2)
PY
        "$ANCHORKIT" track "$seq" --world -o "$seq.jsonl" --quiet >/dev/null
        "$ANCHORKIT" track "$bare" --world -o "$bare.jsonl" --quiet >/dev/null
        "$ANCHORKIT" score "$seq" "$seq.jsonl" >"$seq.score.txt"
        "$ANCHORKIT" score "$seq" "$bare.jsonl" >"$bare.score.txt"
        from=$(python3 -c "
import json, sys
for line in open(sys.argv[1]):
    u = json.loads(line)
    if u['camera'].get('scale') == 'metric':
        print('%.2f s' % u['time']); break
else:
    print('never')" "$seq.jsonl")
        whole=$(awk -F'  +' '/^metric scale error \(%\)/ {print $2}' "$seq.score.txt")
        windows=$(awk -F'  +' '/^metric scale error per 2 s/ {print $2}' "$seq.score.txt")
        own=$(awk -F'  +' '/^scale change per 2 s/ {print $2}' "$bare.score.txt" | sed 's/.*largest //')
        label=$( [[ $storage == png ]] && echo PNG || echo mp4 )
        echo "| $room | $label | $from | ${whole:--} % | ${windows:--} | ${own:--} % |"
    done
done
echo
echo "anchorkit $(git -C "$ROOT" rev-parse --short HEAD); $(nproc) CPUs"
