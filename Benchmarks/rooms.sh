#!/usr/bin/env bash
# Rooms as they are (issue 28): world tracking and planes on room-walk-plain's walk through the
# mosaic room and the same room painted, with a brick wall, and tiled; each with the walls found
# from their foot (the default), without them (--wall-edges off) and squared (--manhattan); then a
# covered lens (frames 60-69 and 150-159 black) in the brick room, to see that relocalising among
# repeated bricks finds the right pose. Prints the table rows of Benchmarks/README.md.
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

say "covered lens in the brick room (frames 60-69 and 150-159 black), beside the uncovered run"
[[ -f "$WORK/room-brick-frames/sequence.json" ]] || "$ANCHORKIT" synth room-brick -o "$WORK/room-brick-frames" --quiet >/dev/null
rm -rf "$WORK/room-brick-covered" && cp -r "$WORK/room-brick-frames" "$WORK/room-brick-covered"
python3 "$HERE/cover_frames.py" "$WORK/room-brick-covered/frames" 60-69 150-159
for seq in room-brick-frames room-brick-covered; do
    "$ANCHORKIT" track "$WORK/$seq" --world -o "$WORK/$seq.jsonl" --quiet >/dev/null
    printf '%s: ' "$seq"
    "$ANCHORKIT" score "$WORK/$seq" "$WORK/$seq.jsonl" | grep -E "ATE \(|lost / regained" | tr -s ' ' | paste -sd ';'
done
