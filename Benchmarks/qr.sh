#!/usr/bin/env bash
# QR codes (issue 27 part 1): decode recall and time per photo on real photos, anchorkit beside
# OpenCV's readers and zxing-cpp's ZXingReader (`anchorkit bench qr-photos`), then the anchors of
# the rendered QR sequences scored against their truth, tracking beside the naive mode (zxing's
# own corners, every frame on its own), with the QR stage's time per frame. See Benchmarks/README.md.
#
#   bash Benchmarks/qr.sh         # from the package root (or anywhere)
#
# Environment: RUNS (timed runs per photo and per sequence, default 3; medians), SCRATCH,
#              SKIP_BUILD=1 (see lib.sh).
NAME=qr
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
command -v ZXingReader >/dev/null || { say "installing zxing-cpp-tools (ZXingReader, the peer)"; apt-get install -y zxing-cpp-tools >/dev/null; }

say "real photos: anchorkit bench qr-photos Datasets/qr-photos --repeats $RUNS"
"$ANCHORKIT" bench qr-photos Datasets/qr-photos --repeats "$RUNS" 2>/dev/null

[[ -d "$WORK/qr-far-blur" ]] || "$ANCHORKIT" synth qr-far-blur -o "$WORK/qr-far-blur" --quiet >/dev/null
echo
echo "| sequence | mode | reported | success @ 3 px | corner error median / p90 (px) | rotation median / p90 (deg) | QR stage ms/frame | frames/s (process) |"
echo "|---|---|---:|---:|---:|---:|---:|---:|"
for seq in Datasets/qr-table "$WORK/qr-far-blur"; do
    name=$(basename "$seq")
    for mode in tracking detect-every-frame; do
        out="$WORK/$name-$mode"
        for ((r = 1; r <= RUNS; r++)); do
            "$ANCHORKIT" track "$seq" --mode "$mode" -o "$out.jsonl" --quiet --profile >"$out.$r.log"
        done
        "$ANCHORKIT" score "$seq" "$out.jsonl" --json >"$out.score.json"
        python3 - "$out" "$RUNS" "$name" "$mode" <<'PY'
import json, re, statistics, sys
out, runs, name, mode = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
s = json.load(open(out + ".score.json"))
ms, fps = [], []
for r in range(1, runs + 1):
    log = open(f"{out}.{r}.log").read()
    ms.append(float(re.search(r"^QR codes\s+\S+\s+(\S+)", log, re.M).group(1)))
    fps.append(float(re.search(r"([\d.]+) frames/s", log).group(1)))
c, rot = s["cornerError"], s["rotationErrorDegrees"]
rate = dict(zip(s["successThresholds"], s["successRates"]))[3.0]
print(f"| {name} | {mode} | {s['reported']} of {s['expected']} | {100 * rate:.1f} % | {c['median']:.2f} / {c['p90']:.2f} | "
      f"{rot['median']:.3f} / {rot['p90']:.3f} | {statistics.median(ms):.2f} | {statistics.median(fps):.0f} |")
PY
    done
done
echo
echo "revision $(git rev-parse --short HEAD)$(git diff --quiet || echo '+changes'), $(nproc) cores, load before ${LOAD_BEFORE:-$(cut -d' ' -f1-3 /proc/loadavg)}"
