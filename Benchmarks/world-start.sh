#!/usr/bin/env bash
# World tracking that starts at once and holds where people film (issue 29): `track --world` on one
# rendered sequence of each kind (a tripod, an approach, turns in the image plane, a fast shake
# with light swings, a hand over the poster, posters on a wall and a table, tags under changing
# light, markers on plain walls, a textured room without targets), scored against ground truth.
# and a tripod that only turns. Prints the table of Benchmarks/README.md: normal tracking from the
# first frame a target is tracked (or from initialisation where there is none), frames with a pose
# (in any state), the orientation error of the turn since the first posed frame, ATE after
# alignment (rigid when metric), the metric scale error, the largest drift of a world-locked
# anchor, tracking lost / regained, the stated position accuracy (median) and the frame-to-frame
# jumps of the error beyond 3 stated sigmas.
#
#   bash Benchmarks/world-start.sh      # from the package root (or anywhere)
#
# Environment: SCRATCH, SKIP_BUILD=1 (see lib.sh).
NAME=world-start
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

rows=(
    "images-still|tripod, a poster in view the whole time"
    "images-approach|a poster approached from 3 m to 0.4 m"
    "images-rotation|fast turns in the image plane with tilt"
    "images-shake|fast shake, blur 20-35 px, light x0.25-x2.8"
    "images-occlusion|a card over the poster, then half out of view"
    "images-table|3 posters (2 on a table), 53 references"
    "markers-room-light|4 AprilTags on a wall and a table, light x0.5-x1.5"
    "markers-plain-walls|6 ArUco markers on plain painted walls and floor"
    "room-brick|brick wall, tiled floor, furniture, no targets"
    "room-tripod|a tripod panning 80°, no targets"
)
echo "| sequence | kind | normal tracking | posed frames | orientation error median / max (°) | ATE (% of path) | metric scale error (%) | largest anchor drift (cm) | lost / regained | stated accuracy median (cm) / jumps beyond 3σ (largest, σ) |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"
for row in "${rows[@]}"; do
    scene="${row%%|*}"; kind="${row#*|}"
    [[ -f "$WORK/$scene/sequence.json" ]] || "$ANCHORKIT" synth "$scene" -o "$WORK/$scene" --quiet >/dev/null
    "$ANCHORKIT" track "$WORK/$scene" --world -o "$WORK/$scene.jsonl" --quiet >/dev/null
    "$ANCHORKIT" score "$WORK/$scene" "$WORK/$scene.jsonl" >"$WORK/$scene.score.txt"
    python3 "$ROOT/Benchmarks/world-start/start_row.py" "$scene | $kind" "$WORK/$scene.jsonl" "$WORK/$scene.score.txt" "$WORK/$scene"
done
