#!/usr/bin/env bash
# World-tracking benchmark: `anchorkit track --world` (monocular visual odometry, gravity-aligned,
# made metric by the markers and posters it sees) on the rendered room walks, scored with
# `anchorkit score` (absolute trajectory error, scale error, time to normal tracking, losses,
# anchor drift), and its throughput beside markers-only tracking of the same frames, in one run.
# See Benchmarks/README.md.
#
#   bash Benchmarks/world.sh             # from the package root (or anywhere)
#
# Environment: RUNS (timing repetitions, default 3; the median is reported),
#              SKIP_BUILD=1 (use the existing .build-bench binary).
NAME=world
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

SEQUENCES=(room-walk room-walk-plain)
for s in "${SEQUENCES[@]}"; do
    if [[ ! -f "$GEN/$s/sequence.json" ]]; then
        say "rendering Generated/$s"
        "$ANCHORKIT" synth "$s" -o "$GEN/$s" --quiet
    fi
done
# room-walk with frames 150-164 black (a covered lens): tracking must be lost and regained by
# relocalisation against the map. Made from Generated/room-walk's frames (links) and ground truth.
blackout="$GEN/room-walk-blackout"
if [[ ! -f "$blackout/sequence.json" ]]; then
    say "making Generated/room-walk-blackout"
    python3 - "$GEN/room-walk" "$blackout" <<'PY'
import json, os, shutil, struct, sys, zlib
src, dst = sys.argv[1:3]
os.makedirs(dst + "/frames")
for name in ("groundtruth.jsonl", "gravity.jsonl"): shutil.copy(os.path.join(src, name), dst)
shutil.copytree(os.path.join(src, "targets"), os.path.join(dst, "targets"))
seq = json.load(open(os.path.join(src, "sequence.json"))); seq["name"] = "room-walk-blackout"
json.dump(seq, open(os.path.join(dst, "sequence.json"), "w"), indent=2)
w, h = seq["camera"]["width"], seq["camera"]["height"]
chunk = lambda t, d: struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xffffffff)
black = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
         + chunk(b"IDAT", zlib.compress(b"".join(b"\x00" + bytes(3 * w) for _ in range(h)))) + chunk(b"IEND", b""))
for f in sorted(os.listdir(os.path.join(src, "frames"))):
    if 150 <= int(f.split(".")[0]) < 165: open(os.path.join(dst, "frames", f), "wb").write(black)
    else: os.symlink(os.path.join(src, "frames", f), os.path.join(dst, "frames", f))
PY
fi

markers_of() {  # the sequence's marker sets as --markers arguments
    python3 -c 'import json,sys; print(" ".join("%s:%r" % (m["dictionary"], m["size"]) for m in json.load(open(sys.argv[1])).get("markers", [])))' "$1/sequence.json"
}

for s in "${SEQUENCES[@]}" room-walk-blackout; do
    seq="$GEN/$s"
    job "world-$s" "track --world|$s" "$ANCHORKIT" track "$seq" --world -o "$WORK/world-$s.jsonl" --quiet
done
seq="$GEN/room-walk"
job "targets-room-walk" "track (no world)|room-walk" "$ANCHORKIT" track "$seq" -o "$WORK/targets-room-walk.jsonl" --quiet
# shellcheck disable=SC2046
job "markers-room-walk" "track --markers (markers only)|room-walk" \
    "$ANCHORKIT" track "$seq" --markers $(markers_of "$seq") -o "$WORK/markers-room-walk.jsonl" --quiet
# shellcheck disable=SC2046
job "world-markers-room-walk" "track --world --markers|room-walk" \
    "$ANCHORKIT" track "$seq" --world --markers $(markers_of "$seq") -o "$WORK/world-markers-room-walk.jsonl" --quiet
job "poses-room-walk" "track --world --poses (recorded)|room-walk" \
    "$ANCHORKIT" track "$seq" --world --poses "$seq/groundtruth.jsonl" -o "$WORK/poses-room-walk.jsonl" --quiet

run_jobs

score_jobs "$GEN/"

python3 - "$TABLE_IN" "$RUNS" "$(revision)" "$LOAD_BEFORE" "$LOAD_AFTER" "$(nproc)" <<'PY'
import json, re, statistics, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip()]
runs, rev, load0, load1, ncpu = sys.argv[2:7]
med = statistics.median
def f(x, d=2): return "-" if x is None else ("%." + str(d) + "f") % x
out, loop = [], {}
for label, tool, seq, base in rows:
    t = [list(map(float, l.split())) for l in open(base + ".time") if l.strip() and l[0].isdigit()]
    rates = [float(m.group(1)) for m in (re.search(r"([0-9.]+) frames/s \(start-up", l) for l in open(base + ".summary")) if m]
    sc = json.load(open(base + ".score.json"))
    w = sc.get("world") or {}
    frames = sc["frames"]
    loop[label] = med(rates)
    drift = max(w.get("anchorDriftCentimetres", {}).values(), default=None)
    out.append([tool, seq, f(frames / med(x[0] for x in t), 1), f(med(rates), 1),
                f(1000 * med(x[2] + x[3] for x in t) / frames, 1), f(med(x[1] for x in t) / 1024, 0),
                "%s of %d" % (w.get("posedFrames", "-"), frames) if w else "-",
                f(w.get("absoluteTrajectoryErrorPercent"), 3), f(w.get("metricScaleErrorPercent"), 2),
                f(w.get("timeToNormal"), 2), "%s / %s" % (w.get("losses", "-"), w.get("regains", "-")) if w else "-",
                f(drift, 2)])
head = ["configuration", "sequence", "frames/s", "loop frames/s", "CPU ms/frame", "peak MB", "posed frames",
        "ATE (% of path)", "scale error (%)", "time to normal (s)", "lost / regained", "max anchor drift (cm)"]
wd = [max(len(r[i]) for r in out + [head]) for i in range(len(head))]
line = lambda r: "| " + " | ".join(c.ljust(wd[i]) for i, c in enumerate(r)) + " |"
print("World tracking on the room walks (median of %s runs)" % runs)
print(line(head)); print("|" + "|".join("-" * (x + 2) for x in wd) + "|")
for r in out: print(line(r))
if all(k in loop for k in ("world-room-walk", "markers-room-walk", "world-markers-room-walk", "targets-room-walk")):
    print()
    print("loop frames/s with world tracking / without: markers only %.2f (%.1f vs %.1f); markers and posters %.2f (%.1f vs %.1f)"
          % (loop["world-markers-room-walk"] / loop["markers-room-walk"], loop["world-markers-room-walk"], loop["markers-room-walk"],
             loop["world-room-walk"] / loop["targets-room-walk"], loop["world-room-walk"], loop["targets-room-walk"]))
print()
print("anchorkit %s; %s CPUs; load average before %s, after %s" % (rev, ncpu, load0, load1))
PY
