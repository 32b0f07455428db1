#!/usr/bin/env bash
# Image-anchor benchmark: `anchorkit track` (tracking) beside its naive per-frame mode
# (`--mode detect-every-frame`: ORB every frame, brute-force matching with a ratio test against
# each reference, RANSAC, no tracking or filtering) on the same frames, in one run, timed and
# scored with `anchorkit score`. See Benchmarks/README.md.
#
#   bash Benchmarks/images.sh             # from the package root (or anywhere)
#
# Tables: (1) accuracy and throughput per image sequence (640x480 PNG frames, the committed
# 640x480 mp4, and 1280x720 PNG frames); (2) time per frame against the number of reference
# images in the set (images-multi with 10, 100 and 500 distractor references).
#
# Environment: RUNS (timing repetitions, default 3; the median is reported),
#              SCALING=0 (skip table 2), SKIP_BUILD=1 (use the existing .build-bench binary),
#              BASELINE=path/to/anchorkit (an earlier build: its rows are added to table 1, in the
#              same rounds).
NAME=images
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# --- sequences (rendered deterministically; reused when present) ----------------------
render() {  # render FOLDER SCENE [synth options...]
    local folder="$1" scene="$2"; shift 2
    if [[ ! -f "$GEN/$folder/sequence.json" ]]; then
        say "rendering Generated/$folder"
        "$ANCHORKIT" synth "$scene" -o "$GEN/$folder" --quiet "$@"
    fi
}
SEQUENCES=(images-approach images-rotation images-blur-light images-occlusion images-multi images-still
           images-far-approach images-shake images-table)
for s in "${SEQUENCES[@]}"; do render "$s" "$s"; done
render images-approach-720p images-approach --width 1280 --height 720
SCALE_SIZES=(10 100 500)
if [[ "${SCALING:-1}" != 0 ]]; then
    for n in "${SCALE_SIZES[@]}"; do render "images-multi-$n" images-multi --distractors "$n" --storage video; done
fi

track_job() {  # track_job LABEL-SUFFIX SEQUENCE-FOLDER TABLE [naive]
    local suffix="$1" seq="$2" table="$3" naive="${4:-}"
    job "ours-$suffix" "anchorkit|$seq|$table" "$ANCHORKIT" track "$seq" -o "$WORK/ours-$suffix.jsonl" --quiet
    [[ -n "$naive" ]] && job "naive-$suffix" "anchorkit detect-every-frame|$seq|$table" \
        "$ANCHORKIT" track "$seq" --mode detect-every-frame -o "$WORK/naive-$suffix.jsonl" --quiet
    [[ -n "${BASELINE:-}" && "$table" == sequences ]] && job "base-$suffix" "anchorkit baseline|$seq|$table" \
        "$BASELINE" track "$seq" -o "$WORK/base-$suffix.jsonl" --quiet
    return 0
}
for s in "${SEQUENCES[@]}"; do track_job "$s" "$GEN/$s" sequences naive; done
track_job images-approach-mp4 "$ROOT/Datasets/images-approach" sequences naive
track_job images-approach-720p "$GEN/images-approach-720p" sequences naive
if [[ "${SCALING:-1}" != 0 ]]; then
    for n in "${SCALE_SIZES[@]}"; do
        # The naive mode matches every reference in turn: at 500 it would take ~10 minutes a run.
        if (( n <= 100 )); then track_job "multi-$n" "$GEN/images-multi-$n" scaling naive
        else track_job "multi-$n" "$GEN/images-multi-$n" scaling; fi
    done
fi

run_jobs

score_jobs ""

REV="$(revision)"
python3 - "$TABLE_IN" "$RUNS" "$REV" "$LOAD_BEFORE" "$LOAD_AFTER" "$(nproc)" "$ROOT" <<'EOF'
import json, os, re, statistics, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip()]
runs, rev, load0, load1, ncpu, root = sys.argv[2:8]
med = statistics.median

def timing(base):
    t = [list(map(float, l.split())) for l in open(base + ".time") if l.strip() and l[0].isdigit()]
    loop, startup = [], []
    for line in open(base + ".summary"):
        m = re.search(r"([0-9.]+) frames/s \(start-up ([0-9.]+) s\)", line)
        if m:
            loop.append(float(m.group(1))); startup.append(float(m.group(2)))
    return (med(x[0] for x in t), med(x[1] for x in t) / 1024, med(x[2] + x[3] for x in t),
            med(loop) if loop else float("nan"), med(startup) if startup else float("nan"))

def stat(sc, key):
    v = sc.get(key)
    return v["median"] if v and v.get("count", 1) else float("nan")

def name(seq):
    rel = os.path.relpath(seq, root)
    return rel + (" (mp4)" if rel.startswith("Datasets") else "")

data = {}
for label, tool, seq, table, base in rows:
    sc = json.load(open(base + ".score.json"))
    wall, rss, cpu, loop, startup = timing(base)
    data[label] = dict(tool=tool, seq=name(seq), table=table, frames=sc["frames"], wall=wall, rss=rss, cpu=cpu,
                       loop=loop, startup=startup, sc=sc)

def table(head, out):
    w = [max(len(r[i]) for r in out + [head]) for i in range(len(head))]
    line = lambda r: "| " + " | ".join(c.ljust(w[i]) for i, c in enumerate(r)) + " |"
    print(line(head)); print("|" + "|".join("-" * (x + 2) for x in w) + "|")
    for r in out: print(line(r))

print("Image anchors: anchorkit tracking vs its naive per-frame mode (median of %s runs)" % runs)
print("frames/s: frames / wall s of the whole process; loop frames/s: without start-up (loading the references)")
head = ["tool", "sequence", "frames/s", "loop frames/s", "start-up s", "CPU ms/frame", "peak MB", "success@5px",
        "false pos.", "rot. median (deg)", "transl. median (%)", "jitter RMS (px)"]
out = []
for label, d in data.items():
    if d["table"] != "sequences": continue
    sc = d["sc"]
    jitter = sc.get("jitterRMS")
    out.append([d["tool"], d["seq"], "%.1f" % (d["frames"] / d["wall"]), "%.1f" % d["loop"], "%.2f" % d["startup"],
                "%.1f" % (1000 * d["cpu"] / d["frames"]), "%.0f" % d["rss"], "%.1f %%" % (100 * sc["successRates"][1]),
                str(sc["falsePositives"]), "%.3f" % stat(sc, "rotationErrorDegrees"),
                "%.3f" % stat(sc, "translationErrorPercent"), "-" if jitter is None else "%.3f" % jitter])
table(head, out)
print()
ratios = []
for label, d in data.items():
    naive = data.get(label.replace("ours-", "naive-", 1))
    if not label.startswith("ours-") or not naive: continue
    ratios.append([d["seq"], "%.2f" % ((d["frames"] / d["wall"]) / (naive["frames"] / naive["wall"])),
                   "%.2f" % (d["loop"] / naive["loop"]), "%.2f" % ((naive["cpu"] / naive["frames"]) / (d["cpu"] / d["frames"]))])
table(["sequence", "ours/naive frames/s (whole process)", "ours/naive loop frames/s", "ours/naive by CPU time per frame"], ratios)

scaling = [d for d in data.values() if d["table"] == "scaling"]
if scaling:
    print()
    print("Reference-set size: images-multi (3 posters in view) with N references in the set")
    out = []
    for d in scaling:
        sc = d["sc"]
        refs = len(json.load(open(os.path.join(root, d["seq"].split(" ")[0], "sequence.json"))).get("images", []))
        out.append([d["tool"], str(refs), "%.2f" % (1000 / d["loop"]), "%.1f" % d["loop"], "%.2f" % d["startup"],
                    "%.0f" % d["rss"], "%.1f %%" % (100 * sc["successRates"][1]), str(sc["falsePositives"])])
    table(["tool", "references", "ms/frame (loop)", "loop frames/s", "start-up s", "peak MB", "success@5px", "false pos."], out)
print()
print("anchorkit %s; %s CPUs; load average before %s, after %s" % (rev, ncpu, load0, load1))
EOF
