#!/usr/bin/env bash
# Marker-tracking peer benchmark: AnchorKit's `anchorkit track` vs Debian's AprilTag 3
# library (libapriltag-dev, tag36h11) on the same rendered frames, timed and scored
# with `anchorkit score`. See Benchmarks/README.md.
#
#   bash Benchmarks/markers.sh            # from the package root (or anywhere)
#
# Environment: RUNS (timing repetitions, default 3; the median is reported),
#              PIN_CPU (the CPU single-core rows are pinned to, default 0),
#              SKIP_BUILD=1 (use the existing .build-bench binary as it is),
#              BASELINE=path/to/anchorkit (an earlier build, e.g. of the previous release: its
#              rows and the ours/baseline ratios are added, measured in the same rounds).
NAME=markers
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
PIN_CPU="${PIN_CPU:-0}"
BIN="$ROOT/Benchmarks/bin"
mkdir -p "$BIN"

for tool in python3 g++ pkg-config taskset; do
    command -v "$tool" >/dev/null || { echo "markers.sh: $tool is required" >&2; exit 1; }
done

# --- (a) build anchorkit (release) ---------------------------------------------------
if pkg-config --exists apriltag; then
    AT_CFLAGS="$(pkg-config --cflags apriltag)"; AT_LIBS="$(pkg-config --libs apriltag)"
else
    AT_CFLAGS="-I/usr/include/apriltag"; AT_LIBS="-lapriltag"
fi
say "compiling Benchmarks/bin/apriltag_peer"
# Only the OpenCV modules the peer uses (imread); --cflags for the include path.
g++ -O2 -std=c++17 -Wall -o "$BIN/apriltag_peer" Benchmarks/apriltag-peer/apriltag_peer.cpp \
    $AT_CFLAGS $(pkg-config --cflags opencv4) $AT_LIBS -lopencv_imgcodecs -lopencv_imgproc -lopencv_core

# --- (c) sequences -------------------------------------------------------------------
# far-walk and blur-walk: handheld walks with far, small, oblique, blurred markers and
# several printed copies of one id (see MarkerScenes).
SEQUENCES=(apriltag-far aruco-table blur far-walk blur-walk)
declare -A SYNTH_NAME=([apriltag-far]=markers-apriltag-far [aruco-table]=markers-aruco-table [blur]=markers-blur
                       [far-walk]=markers-far-walk [blur-walk]=markers-blur-walk)
for s in "${SEQUENCES[@]}"; do
    if [[ ! -f "$GEN/$s/sequence.json" ]]; then
        say "rendering Generated/$s"
        "$ANCHORKIT" synth "${SYNTH_NAME[$s]}" -o "$GEN/$s" --quiet
    fi
done

# The peer's command line from a sequence.json: frame pattern, count, fps, intrinsics,
# and one --tag ID:SIZE per expected DICT_APRILTAG_36h11 id. Empty if the sequence
# has no AprilTag markers (the peer only knows tag36h11).
peer_args() {
    python3 - "$1" <<'EOF'
import json, os, sys
folder = sys.argv[1]
seq = json.load(open(os.path.join(folder, "sequence.json")))
tags = []
for m in seq.get("markers", []):
    if m["dictionary"] != "DICT_APRILTAG_36h11":
        continue
    if "ids" not in m:
        sys.exit("markers.sh: DICT_APRILTAG_36h11 without an ids list in " + folder)
    for i in m["ids"]:
        tags += ["--tag", "%d:%r" % (i, m["size"])]
if not tags or not seq.get("frames"):
    sys.exit(0)
pattern = os.path.join(folder, seq["frames"])
count = 0
while os.path.exists(pattern % count):
    count += 1
c = seq["camera"]
if any(abs(d) > 0 for d in c.get("distortion", []) or []):
    sys.exit("markers.sh: the peer assumes no lens distortion")
args = ["--frames", pattern, "--count", count, "--fps", seq.get("fps", 30),
        "--fx", c["fx"], "--fy", c["fy"], "--cx", c["cx"], "--cy", c["cy"]] + tags
print("\n".join(str(a) for a in args))
EOF
}

# job LABEL TOOL SEQUENCE THREADS CMD...: register one timed configuration.
# Every job writes its stream to $WORK/LABEL.jsonl.
for s in "${SEQUENCES[@]}"; do
    seqdir="$GEN/$s"
    job "ours-$s" "anchorkit|$s|all ($(nproc) cores)" \
        "$ANCHORKIT" track "$seqdir" -o "$WORK/ours-$s.jsonl" --quiet
    if [[ -n "${BASELINE:-}" ]]; then
        job "base-$s" "anchorkit baseline|$s|all ($(nproc) cores)" \
            "$BASELINE" track "$seqdir" -o "$WORK/base-$s.jsonl" --quiet
    fi
    # The naive per-frame baseline in the same binary (OpenCV's sub-pixel corners, the
    # lower-error IPPE solution, nothing carried between frames).
    job "naive-$s" "anchorkit detect-every-frame|$s|all ($(nproc) cores)" \
        "$ANCHORKIT" track "$seqdir" --mode detect-every-frame -o "$WORK/naive-$s.jsonl" --quiet

    mapfile -t PEER < <(peer_args "$seqdir")
    [[ ${#PEER[@]} -gt 0 ]] || continue

    # Single-core comparison: OpenCV's parallel_for_ (TBB) would use both cores, and
    # the tracker has no thread setting, so it is pinned to one CPU; the peer runs
    # nthreads=1 and is pinned the same way.
    job "ours1-$s" "anchorkit|$s|1 (pinned)" \
        taskset -c "$PIN_CPU" "$ANCHORKIT" track "$seqdir" -o "$WORK/ours1-$s.jsonl" --quiet
    for dec in 1 2; do
        job "peer-d$dec-$s" "apriltag3 decimate $dec|$s|1 (pinned)" \
            taskset -c "$PIN_CPU" "$BIN/apriltag_peer" "${PEER[@]}" \
            --decimate "$dec" --threads 1 -o "$WORK/peer-d$dec-$s.jsonl"
    done
done

# Round-robin (lib.sh): a burst of load from elsewhere hits all tools alike. GNU time
# measures the whole process: wall s, peak RSS KB, user s, sys s.
run_jobs

# --- score and print -----------------------------------------------------------------
score_jobs "$GEN/"

REV="$(revision)"
python3 - "$TABLE_IN" "$RUNS" "$REV" "$LOAD_BEFORE" "$LOAD_AFTER" "$(nproc)" <<'EOF'
import json, statistics, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip()]
runs, rev, load0, load1, ncpu = sys.argv[2:7]
out, fps, cpums = [], {}, {}
for label, tool, seq, threads, base in rows:
    t = [list(map(float, l.split())) for l in open(base + ".time") if l.strip() and l[0].isdigit()]
    sc = json.load(open(base + ".score.json"))
    frames = sc["frames"]
    wall = statistics.median(x[0] for x in t)
    rss = statistics.median(x[1] for x in t) / 1024.0
    cpu = statistics.median(x[2] + x[3] for x in t)
    fps[label] = frames / wall
    cpums[label] = 1000 * cpu / frames
    med = lambda key: sc[key]["median"] if sc.get(key) and sc[key].get("count", 1) else float("nan")
    out.append([tool, seq, threads, "%.1f" % (frames / wall), "%.1f" % (1000 * cpu / frames), "%.0f" % rss,
                "%.1f %%" % (100 * sc["successRates"][1]), "%.1f %%" % (100 * sc["successRates"][2]),
                str(sc["falsePositives"]), str(sc.get("identitySwitches", 0)), "%.2f" % med("rotationErrorDegrees"),
                "%.2f" % med("translationErrorPercent"), "%d/%d" % (sc["reported"], sc["expected"])])
head = ["tool", "sequence", "threads", "frames/s", "CPU ms/frame", "peak MB", "success@5px",
        "success@10px", "false pos.", "id switches", "rot. err. median (deg)", "transl. err. median (%)", "reported/expected"]
w = [max(len(r[i]) for r in out + [head]) for i in range(len(head))]
line = lambda r: "| " + " | ".join(c.ljust(w[i]) for i, c in enumerate(r)) + " |"
print("Marker tracking: anchorkit vs its naive per-frame mode and AprilTag 3 (median of %s runs; frames/s = frames / wall s of the whole process)" % runs)
print(line(head))
print("|" + "|".join("-" * (x + 2) for x in w) + "|")
for r in out:
    print(line(r))
print("anchorkit %s; %s CPUs; load average before %s, after %s" % (rev, ncpu, load0, load1))
for seq in sorted({r[2] for r in rows}):
    if "ours-" + seq in fps and "base-" + seq in fps:
        print("ratio ours/baseline frames/s, %s: %.2f (by CPU time per frame: %.2f)"
              % (seq, fps["ours-" + seq] / fps["base-" + seq], cpums["base-" + seq] / cpums["ours-" + seq]))
    if "ours-" + seq in fps and "naive-" + seq in fps:
        print("ratio ours/naive frames/s, %s: %.2f (by CPU time per frame: %.2f)"
              % (seq, fps["ours-" + seq] / fps["naive-" + seq], cpums["naive-" + seq] / cpums["ours-" + seq]))
    for ours, ours_name in (("ours-" + seq, "anchorkit (all cores)"), ("ours1-" + seq, "anchorkit (1 core)")):
        for dec in (1, 2):
            peer = "peer-d%d-%s" % (dec, seq)
            if ours in fps and peer in fps:
                print("ratio ours/peer frames/s, %s: %s / apriltag3 decimate %d = %.2f"
                      " (by CPU time per frame: %.2f)"
                      % (seq, ours_name, dec, fps[ours] / fps[peer], cpums[peer] / cpums[ours]))
EOF
