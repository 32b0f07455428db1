#!/usr/bin/env bash
# Image anchors on real phone footage: `anchorkit track` on ../shared/datasets/real-sign-video
# (1280x720, 120 frames, the reference cut from frame 0) at native resolution, beside its naive
# per-frame mode, scored against the measured corners of every 5th frame. See Benchmarks/README.md.
#
#   bash Benchmarks/real-sign.sh            # from the package root (or anywhere)
#
# Environment: RUNS (timing repetitions, default 3; the median is reported),
#              DATASETS (the shared data sets, default <root>/../shared/datasets; read, never copied),
#              SKIP_BUILD=1 (use the existing .build-bench binary as it is),
#              BASELINE=path/to/anchorkit (an earlier build: its row is added, in the same rounds).
NAME=real-sign
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
DATASETS="${DATASETS:-$ROOT/../shared/datasets}"
SEQ="$DATASETS/real-sign-video"
[[ -f "$SEQ/sequence.json" && -f "$SEQ/pseudo_corners.jsonl" ]] \
    || { echo "real-sign.sh: $SEQ: no such data set (sequence.json and pseudo_corners.jsonl)" >&2; exit 1; }

job ours "anchorkit" "$ANCHORKIT" track "$SEQ" -o "$WORK/ours.jsonl" --quiet
job naive "anchorkit detect-every-frame" "$ANCHORKIT" track "$SEQ" --mode detect-every-frame -o "$WORK/naive.jsonl" --quiet
if [[ -n "${BASELINE:-}" ]]; then
    job baseline "anchorkit baseline" "$BASELINE" track "$SEQ" -o "$WORK/baseline.jsonl" --quiet
fi
run_jobs

say "scoring"
python3 - "$SEQ/pseudo_corners.jsonl" "$WORK" "$RUNS" "$(revision)" "$LOAD_BEFORE" "$LOAD_AFTER" "${JOBS[@]}" <<'EOF'
import json, math, statistics, sys
measured_file, work, runs, rev, load0, load1, *labels = sys.argv[1:]
names = {"ours": "anchorkit", "naive": "anchorkit detect-every-frame", "baseline": "anchorkit baseline"}
measured = {l["frame"]: l["corners"] for l in map(json.loads, open(measured_file))}
frames = 120
print("Image anchors on real 1280x720 footage (real-sign-video, %d measured frames; median of %s runs)" % (len(measured), runs))
head = ["tool", "frames/s", "CPU ms/frame", "peak MB", "within 5 px", "within 10 px", "reported", "corner err median (px)", "first found"]
rows = []
for label in labels:
    stream = {l["frame"]: l for l in map(json.loads, open("%s/%s.jsonl" % (work, label)))}
    errors, first = [], None
    for f in sorted(stream):
        if first is None and any(a.get("tracked") and a["id"] == "image/sign" for a in stream[f]["anchors"]): first = f
    for f, truth in sorted(measured.items()):
        a = [x for x in stream.get(f, {}).get("anchors", []) if x.get("tracked") and x["id"] == "image/sign" and "corners" in x]
        errors.append(math.sqrt(sum((p[0] - q[0]) ** 2 + (p[1] - q[1]) ** 2 for p, q in zip(a[0]["corners"], truth)) / 4) if a else math.inf)
    times = [list(map(float, l.split())) for l in open("%s/%s.time" % (work, label)) if l.strip()]
    wall = statistics.median(t[0] for t in times); cpu = statistics.median(t[2] + t[3] for t in times)
    peak = statistics.median(t[1] for t in times) / 1024
    found = [e for e in errors if math.isfinite(e)]
    rows.append([names.get(label, label), "%.1f" % (frames / wall), "%.1f" % (1000 * cpu / frames), "%.0f" % peak,
                 "%d/%d" % (sum(e <= 5 for e in errors), len(errors)), "%d/%d" % (sum(e <= 10 for e in errors), len(errors)),
                 "%d/%d" % (len(found), len(errors)), "%.2f" % statistics.median(found) if found else "-",
                 str(first) if first is not None else "never"])
w = [max(len(r[i]) for r in rows + [head]) for i in range(len(head))]
line = lambda r: "| " + " | ".join(c.ljust(w[i]) for i, c in enumerate(r)) + " |"
print(line(head)); print("|" + "|".join("-" * (x + 2) for x in w) + "|")
for r in rows: print(line(r))
print("anchorkit %s; load average before %s, after %s; frames/s = 120 frames / wall s of the whole process" % (rev, load0, load1))
EOF
