#!/usr/bin/env bash
# Plane-detection benchmark: `anchorkit track --planes horizontal,vertical` on the rendered rooms
# (room-walk, room-planes, room-planes-weak with weakly textured floor and table), scored with
# `anchorkit score` (per true plane: time found, normal and offset error, extent coverage; false
# planes), its throughput beside world tracking alone on the same frames in one run, and
# `anchorkit raycast` taps on a grid of pixels checked against the true surfaces.
# See Benchmarks/README.md.
#
#   bash Benchmarks/planes.sh             # from the package root (or anywhere)
#
# Environment: RUNS (timing repetitions, default 3; the median is reported),
#              SKIP_BUILD=1 (use the existing .build-bench binary), SCRATCH (another scratch path).
NAME=planes
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

SEQUENCES=(room-walk room-planes room-planes-weak)
for s in "${SEQUENCES[@]}"; do
    if [[ ! -f "$GEN/$s/sequence.json" ]]; then
        say "rendering Generated/$s"
        "$ANCHORKIT" synth "$s" -o "$GEN/$s" --quiet
    fi
done

for s in "${SEQUENCES[@]}"; do
    job "world-$s" "track --world|$s" "$ANCHORKIT" track "$GEN/$s" --world -o "$WORK/world-$s.jsonl" --quiet
    job "planes-$s" "track --planes horizontal,vertical|$s" \
        "$ANCHORKIT" track "$GEN/$s" --planes horizontal,vertical -o "$WORK/planes-$s.jsonl" --quiet
done

run_jobs
score_jobs "$GEN/"

# Taps: an 8x6 grid of pixels at three moments of each walk, on plane geometry.
for s in "${SEQUENCES[@]}"; do
    say "raycast $s"
    "$ANCHORKIT" raycast "$GEN/$s" --frame 100 --frame 200 --frame 299 --grid 8x6 >"$WORK/raycast-$s.log"
done

python3 - "$TABLE_IN" "$RUNS" "$(revision)" "$LOAD_BEFORE" "$LOAD_AFTER" "$(nproc)" "$WORK" <<'PY'
import json, os, re, statistics, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip()]
runs, rev, load0, load1, ncpu, work = sys.argv[2:8]
med = statistics.median
def f(x, d=2): return "-" if x is None else ("%." + str(d) + "f") % x
def table(head, out):
    wd = [max(len(r[i]) for r in out + [head]) for i in range(len(head))]
    line = lambda r: "| " + " | ".join(c.ljust(wd[i]) for i, c in enumerate(r)) + " |"
    print(line(head)); print("|" + "|".join("-" * (x + 2) for x in wd) + "|")
    for r in out: print(line(r))
loop, speed, planes = {}, [], []
for label, tool, seq, base in rows:
    t = [list(map(float, l.split())) for l in open(base + ".time") if l.strip() and l[0].isdigit()]
    rates = [float(m.group(1)) for m in (re.search(r"([0-9.]+) frames/s \(start-up", l) for l in open(base + ".summary")) if m]
    sc = json.load(open(base + ".score.json"))
    frames = sc["frames"]
    loop[label] = med(rates)
    speed.append([tool, seq, f(frames / med(x[0] for x in t), 1), f(med(rates), 1),
                  f(1000 * med(x[2] + x[3] for x in t) / frames, 1), f(med(x[1] for x in t) / 1024, 0)])
    p = sc.get("planes")
    if not label.startswith("planes-") or not p: continue
    for tp in p["planes"]:
        cov = tp.get("coverage")
        planes.append([seq, tp["identifier"].replace("plane/", ""), tp.get("alignment") or "-",
                       f(tp["firstExpectedTime"], 2), f(tp.get("foundTime"), 2) if tp.get("foundTime") is not None else "not found",
                       f(tp.get("normalErrorDegreesMedian"), 2), f(tp.get("offsetCentimetresMedian"), 2),
                       f(tp.get("offsetPercentMedian"), 2), "-" if cov is None else f(100 * cov, 0)])
    planes.append([seq, "false planes", "", "", str(len(p["falsePlanes"])), "", "", "", ""])
print("Throughput, median of %s runs" % runs)
table(["configuration", "sequence", "frames/s", "loop frames/s", "CPU ms/frame", "peak MB"], speed)
print()
for s in sorted({r[2] for r in rows}):
    a, b = loop.get("planes-" + s), loop.get("world-" + s)
    if a and b: print("loop frames/s with planes / world tracking alone, %s: %.2f (%.1f vs %.1f)" % (s, a / b, a, b))
print()
print("Planes (medians over the frames where the true plane is matched; coverage of its seen area at the end)")
table(["sequence", "true plane", "alignment", "in view from (s)", "found at (s)", "normal error (deg)",
       "offset (cm)", "offset (% of distance)", "coverage (%)"], planes)
print()
print("Raycasts (8x6 grid of taps at frames 100, 200, 299; error = distance to the true surface point, in the camera's frame)")
for s in sorted({r[2] for r in rows}):
    for l in open(os.path.join(work, "raycast-%s.log" % s)):
        if l.startswith("raycast:"): print("  %s %s" % (s, l.strip()[len("raycast: "):]))
print()
print("anchorkit %s; %s CPUs; load average before %s, after %s" % (rev, ncpu, load0, load1))
PY
