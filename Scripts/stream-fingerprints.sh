#!/bin/bash
# Fingerprints of everything a refactor must keep: the anchor, world and plane streams of the
# committed sequences, an overlay render with its debug drawing, a synthesised sequence, scores
# and raycasts, each as an md5 sum, plus the score table of every stream. Run it with the build
# before a change and after; `diff` the two outputs. Same bytes = same behaviour; where the
# change is allowed to move last digits (a library routine for a hand-written one), the score
# tables (*.score.txt in OUT) must still match.
#   bash Scripts/stream-fingerprints.sh [ANCHORKIT_BINARY] [OUT]   (defaults: the release build, Generated/fingerprints)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$root/.build/release/anchorkit}; out=${2:-$root/Generated/fingerprints}
[ -x "$bin" ] || { echo "stream-fingerprints: no binary at $bin (swift build -c release --product anchorkit)" >&2; exit 1; }
rm -rf "$out"; mkdir -p "$out"; cd "$root"
for d in Datasets/*; do n=$(basename "$d"); extra=()
  [ -f "$d/sequence.json" ] || continue  # qr-photos: photos, not a sequence
  [ "$n" = room-walk ] && extra=(--world --planes horizontal,vertical)
  [ "$n" = room-painted ] && extra=(--world --planes horizontal,vertical)  # no target: world and planes only
  "$bin" track "$d" "${extra[@]}" -o "$out/$n.jsonl" --quiet > /dev/null
  "$bin" score "$d" "$out/$n.jsonl" > "$out/$n.score.txt"
done
"$bin" track Datasets/room-walk --world -o "$out/room-walk-world.jsonl" --quiet > /dev/null
"$bin" score Datasets/room-walk "$out/room-walk-world.jsonl" > "$out/room-walk-world.score.txt"
"$bin" render Datasets/room-walk --planes horizontal,vertical --debug --quiet \
  --overlay "home=#1e90ffcc:label=Home:width=0.3:layout=right" -o "$out/render.mp4" > /dev/null
"$bin" synth markers-blur -o "$out/synth" --quiet > /dev/null
"$bin" score Datasets/markers-blur-walk "$out/markers-blur-walk.jsonl" --json > "$out/score.json"
"$bin" raycast Datasets/room-walk --frame 119 --pixel 320,400 --grid 8x6 > "$out/raycast.txt"
cd "$out" && md5sum *.jsonl *.score.txt render.mp4 score.json raycast.txt synth/groundtruth.jsonl synth/sequence.json \
  $(ls synth/frames/* | head -3)
