#!/usr/bin/env bash
# Rooms as they are (issue 28): world tracking and planes on room-walk-plain's walk through the
# mosaic room and the same room painted, with a brick wall, and tiled; each with the walls found
# from their foot (the default), without them (--wall-edges off) and squared (--manhattan); then a
# covered lens (frames 60-69 and 150-159 black) in the brick room, without and with an inertial
# log, to see that relocalising among repeated bricks finds the right pose and how far the pose
# carried by the motion (and the gyroscope) strays while covered. Prints the rows of
# Benchmarks/README.md.
#
#   bash Benchmarks/rooms.sh      # from the package root (or anywhere)
#
# Environment: SCRATCH, SKIP_BUILD=1 (see lib.sh).
NAME=rooms
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
HERE="$ROOT/Benchmarks/rooms"

echo "| room | lost / regained | ATE (% of path) | planes found | floor and walls, found at | normal / offset error (median) | coverage | false planes |"
echo "|---|---|---:|---:|---|---:|---:|---:|"
for room in room-walk-plain room-painted room-brick room-tiled; do
    [[ -f "$WORK/$room/sequence.json" ]] || "$ANCHORKIT" synth "$room" -o "$WORK/$room" --storage video --quiet >/dev/null
    for variant in default off manhattan; do
        [[ "$room" == room-walk-plain && "$variant" != default ]] && continue
        case $variant in
            default) extra=(); label="$room" ;;
            off) extra=(--wall-edges off); label="$room, \`--wall-edges off\`" ;;
            manhattan) extra=(--manhattan); label="$room, \`--manhattan\`" ;;
        esac
        out="$WORK/$room-$variant"
        "$ANCHORKIT" track "$WORK/$room" --world --planes horizontal,vertical "${extra[@]}" -o "$out.jsonl" --quiet >/dev/null
        "$ANCHORKIT" score "$WORK/$room" "$out.jsonl" >"$out.score.txt"
        python3 "$HERE/score_row.py" "$label" "$out.score.txt"
    done
done

say "covered lens in the brick room (frames 60-69 and 150-159 black), beside the uncovered run; with an inertial log"
for imu in "" "-imu"; do
    base="$WORK/room-brick$imu-frames"; covered="$WORK/room-brick$imu-covered"
    [[ -f "$base/sequence.json" ]] || "$ANCHORKIT" synth room-brick ${imu:+--imu} -o "$base" --quiet >/dev/null
    rm -rf "$covered" && cp -r "$base" "$covered"
    python3 "$HERE/cover_frames.py" "$covered/frames" 60-69 150-159
    for seq in "$base" "$covered"; do
        "$ANCHORKIT" track "$seq" --world -o "$seq.jsonl" --quiet >/dev/null
        printf '%s: ' "$(basename "$seq")"
        "$ANCHORKIT" score "$seq" "$seq.jsonl" | grep -E "ATE \(|lost / regained" | tr -s ' ' | paste -sd ';'
    done
    python3 "$HERE/covered_errors.py" "$covered/groundtruth.jsonl" "$covered.jsonl" 7-59 59,64,69,70,149,154,159,160
done
