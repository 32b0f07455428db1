#!/usr/bin/env bash
# Long-video benchmark (issue 21): world tracking and plane detection over 10,000 frames of one
# room. Reports, from the progress lines `anchorkit track` prints every 10 % of the frames, the
# frames/s over each tenth, the memory resident and its peak, and the trajectory error of the
# whole run. Two videos (SEQUENCE):
#   pingpong (default)  room-walk's 300 rendered frames forward, back, forward, ... (5.5 minutes
#                       of walking to and fro; made in a minute from Generated/room-walk)
#   loop                room-loop: room-walk's room walked round in laps of 12.5 s, every frame
#                       rendered (30-70 minutes on 2 cores, once; kept in Generated/)
# See Benchmarks/README.md.
#
#   bash Benchmarks/long.sh              # from the package root (or anywhere)
#
# Environment: SEQUENCE (pingpong or loop), FRAMES (default 10000), MODES (default
#              "markers images world planes": the room's marker, its three posters, world
#              tracking, planes),
#              SKIP_BUILD=1 (use the existing .build-bench binary).
SEQUENCE="${SEQUENCE:-pingpong}"
NAME="long-$SEQUENCE"
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

FRAMES="${FRAMES:-10000}"
MODES="${MODES:-markers images world planes}"
case "$SEQUENCE" in
    loop)
        seq="$GEN/room-loop-$FRAMES"
        if [[ ! -f "$seq/sequence.json" ]]; then
            say "rendering Generated/room-loop-$FRAMES (video; this takes a while)"
            "$ANCHORKIT" synth room-loop --frames "$FRAMES" --storage video -o "$seq"
        fi ;;
    pingpong)
        seq="$GEN/room-walk-pingpong-$FRAMES"
        if [[ ! -f "$GEN/room-walk/sequence.json" ]]; then
            say "rendering Generated/room-walk"
            "$ANCHORKIT" synth room-walk -o "$GEN/room-walk" --quiet
        fi
        if [[ ! -f "$seq/sequence.json" ]]; then
            say "making Generated/room-walk-pingpong-$FRAMES (links to room-walk's frames, its truth re-numbered)"
            python3 - "$GEN/room-walk" "$seq" "$FRAMES" <<'PY'
import json, os, sys
src, dst, frames = sys.argv[1], sys.argv[2], int(sys.argv[3])
os.makedirs(dst + "/frames")
seq = json.load(open(src + "/sequence.json"))
order = []
while len(order) < frames:
    order += list(range(300)) + list(range(298, 0, -1))
order = order[:frames]
for i, k in enumerate(order):
    os.symlink(os.path.abspath(f"{src}/frames/{k:06d}.png"), f"{dst}/frames/{i:06d}.png")
for name, key in (("groundtruth.jsonl", "groundTruth"), ("gravity.jsonl", "gravity")):
    lines = [json.loads(l) for l in open(os.path.join(src, seq[key]))]
    with open(os.path.join(dst, name), "w") as f:
        for i, k in enumerate(order):
            line = dict(lines[k], frame=i)
            if "time" in line: line["time"] = i / seq["fps"]
            f.write(json.dumps(line, separators=(",", ":")) + "\n")
    seq[key] = name
seq["name"] = "room-walk-pingpong"
seq["images"] = [dict(i, file=os.path.abspath(os.path.join(src, i["file"]))) for i in seq.get("images", [])]
json.dump(seq, open(dst + "/sequence.json", "w"), indent=2)
PY
        fi ;;
    *) echo "long: SEQUENCE is pingpong or loop, not $SEQUENCE" >&2; exit 1 ;;
esac

LOAD_BEFORE="$(cut -d' ' -f1-3 /proc/loadavg)"
for mode in $MODES; do
    case "$mode" in
        markers) flags=(--markers DICT_4X4_50:0.15) ;;
        images) mapfile -t flags < <(python3 - "$seq" <<'PY'
import json, os, sys
seq = sys.argv[1]
for i in json.load(open(os.path.join(seq, "sequence.json")))["images"]:
    print("--image"); print(f"{i['name']}={os.path.join(seq, i['file'])}:{i['physicalWidth']}")
PY
) ;;
        world) flags=(--world) ;;
        planes) flags=(--planes horizontal,vertical) ;;
        *) echo "long: unknown mode $mode" >&2; exit 1 ;;
    esac
    say "track $mode over $FRAMES frames"
    /usr/bin/time -o "$WORK/$mode.time" -f '%e %M %U %S' \
        "$ANCHORKIT" track "$seq" "${flags[@]}" -o "$WORK/$mode.jsonl" 2>"$WORK/$mode.log" \
        || { tail -5 "$WORK/$mode.log" >&2; exit 1; }
    "$ANCHORKIT" score "$seq" "$WORK/$mode.jsonl" --json >"$WORK/$mode.score.json"
done
LOAD_AFTER="$(cut -d' ' -f1-3 /proc/loadavg)"

python3 - "$WORK" "$FRAMES" "$(revision)" "$LOAD_BEFORE" "$LOAD_AFTER" "$(nproc)" "$MODES" "$(basename "$seq")" <<'PY'
import json, re, sys
work, frames, rev, load0, load1, ncpu, modes, sequence = sys.argv[1:9]
pattern = re.compile(r"frame (\d+)/\d+ +([0-9.]+) frames/s \(([0-9.]+) since the last line, ([0-9.]+) ms CPU a frame\), ([0-9]+) MB resident, peak ([0-9]+) MB")
for mode in modes.split():
    lines = [m.groups() for m in map(pattern.search, open(f"{work}/{mode}.log")) if m]
    wall, peak_kb = [float(x) for x in open(f"{work}/{mode}.time").read().split()[:2]]
    score = json.load(open(f"{work}/{mode}.score.json"))
    world = score.get("world") or {}
    print(f"track {mode} over {frames} frames of {sequence}: wall {wall:.0f} s, peak {peak_kb / 1024:.0f} MB; "
          f"ATE {world.get('absoluteTrajectoryErrorPercent', float('nan')):.3f} % of the path, "
          f"lost / regained {world.get('losses', '-')} / {world.get('regains', '-')}")
    print("| frames done | CPU ms a frame over the last tenth | frames/s over the last tenth | resident MB | peak MB |")
    print("|---|---|---|---|---|")
    for done, rate, recent, cpu, resident, peak in lines[1:]:
        print(f"| {done} | {float(cpu):.1f} | {float(recent):.1f} | {resident} | {peak} |")
    tenths = [l for l in lines if int(l[0]) >= 1000]
    if len(tenths) >= 2:
        print(f"peak at the end / at {tenths[0][0]} frames: {int(tenths[-1][5]) / int(tenths[0][5]):.3f}; "
              f"CPU a frame over the last tenth / over the second: {float(tenths[-1][3]) / float(tenths[1][3]):.2f}")
    print()
# Peak resident memory after 1,000, 5,000 and all frames (the progress lines' peak, then GNU time's).
print("| mode | peak MB at 1,000 frames | at 5,000 | at the end | end / 1,000 |")
print("|---|---|---|---|---|")
for mode in modes.split():
    peaks = {int(m.group(1)): int(m.group(6)) for m in map(pattern.search, open(f"{work}/{mode}.log")) if m}
    end = float(open(f"{work}/{mode}.time").read().split()[1]) / 1024
    at = lambda n: peaks.get(n, float("nan"))
    print(f"| {mode} | {at(1000):.0f} | {at(5000):.0f} | {end:.0f} | {end / at(1000):.3f} |")
print()
print(f"anchorkit {rev}; {ncpu} CPUs; load average before {load0}, after {load1}")
PY
