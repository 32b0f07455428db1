#!/usr/bin/env bash
# Overlay benchmark: `anchorkit render` (tracking, compositing overlays, the debug view, H.264
# encoding) beside `anchorkit track` on the same frames in one run, and `render --anchors` (a
# recorded stream: compositing and encoding alone); then `anchorkit bench overlays`: an opaque card
# on every target, its corners measured in the composited pixels against the true corners, beside
# each anchor's own corner error. See Benchmarks/README.md.
#
#   bash Benchmarks/render.sh             # from the package root (or anywhere)
#
# Environment: RUNS (timing repetitions, default 3; the median is reported),
#              SKIP_BUILD=1 (use the existing .build-bench binary).
NAME=render
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

for s in images-approach room-walk; do
    if [[ ! -f "$GEN/$s/sequence.json" ]]; then
        say "rendering Generated/$s"
        "$ANCHORKIT" synth "$s" -o "$GEN/$s" --quiet
    fi
done
LOGO="$ROOT/Docs/logo.png"  # 256x128 RGBA: a soft-edged disc and a translucent box on a transparent ground

# images-approach: one poster, 640x480 PNG frames. markers-aruco-table: the committed mp4.
# room-walk: world tracking with planes, content tapped onto the floor.
APPROACH="$GEN/images-approach" ARUCO="$ROOT/Datasets/markers-aruco-table" ROOM="$GEN/room-walk"
OVERLAYS=(--overlay "graffiti=$LOGO:layout=below:width=0.4" --overlay "graffiti=#1e90ff80:label=Graffiti")
job "track-approach" "track|images-approach" "$ANCHORKIT" track "$APPROACH" -o "$WORK/track-approach.jsonl" --quiet
job "render-approach" "render (2 overlays, --debug)|images-approach" "$ANCHORKIT" render "$APPROACH" "${OVERLAYS[@]}" --debug -o "$WORK/render-approach.mp4" --quiet
job "mpeg4-approach" "render --codec mpeg4 (2 overlays, --debug)|images-approach" "$ANCHORKIT" render "$APPROACH" "${OVERLAYS[@]}" --debug --codec mpeg4 -o "$WORK/mpeg4-approach.mp4" --quiet
job "stream-approach" "render --anchors (no tracking)|images-approach" "$ANCHORKIT" render "$APPROACH" --anchors "$WORK/track-approach.jsonl" "${OVERLAYS[@]}" --debug -o "$WORK/stream-approach.mp4" --quiet
job "track-aruco" "track|markers-aruco-table" "$ANCHORKIT" track "$ARUCO" -o "$WORK/track-aruco.jsonl" --quiet
job "render-aruco" "render (1 overlay per marker, --debug)|markers-aruco-table" "$ANCHORKIT" render "$ARUCO" \
    --overlay "3=#ff8800cc:label=3" --overlay "7=#ff8800cc:label=7" --overlay "21=#ff8800cc:label=21" --overlay "42=#ff8800cc:label=42" --debug -o "$WORK/render-aruco.mp4" --quiet
job "track-room" "track --planes|room-walk" "$ANCHORKIT" track "$ROOM" --planes horizontal,vertical -o "$WORK/track-room.jsonl" --quiet
job "render-room" "render --planes (tap, poster caption, --debug)|room-walk" "$ANCHORKIT" render "$ROOM" --planes horizontal,vertical \
    --tap "60@320,420=$LOGO:width=0.5" --overlay "home=#ffffffd0:label=Home:layout=right:width=0.3:aspect=2" --debug -o "$WORK/render-room.mp4" --quiet

run_jobs
say "measuring overlay corners"
"$ANCHORKIT" bench overlays "$ROOT/Datasets/images-approach" "$ROOT/Datasets/images-occlusion" "$ROOT/Datasets/images-still" \
    "$ROOT/Datasets/markers-aruco-table" "$ROOT/Datasets/markers-apriltag-far" "$ROOT/Datasets/markers-blur" >"$WORK/overlays.md"

python3 - "$WORK" "$RUNS" "$(revision)" "$LOAD_BEFORE" "$LOAD_AFTER" "$(nproc)" "${JOBS[@]}" <<'PY'
import re, statistics, sys
work, runs, rev, load0, load1, ncpu = sys.argv[1:7]
labels = sys.argv[7:]
med = statistics.median
rate, rows = {}, []
for label in labels:
    t = [list(map(float, l.split())) for l in open(f"{work}/{label}.time") if l.strip() and l[0].isdigit()]
    s = [l for l in open(f"{work}/{label}.summary") if l.strip()]
    loop = [float(m.group(1)) for m in (re.search(r"([0-9.]+) frames/s \(start-up", l) for l in s) if m]
    frames = int(re.match(r"\w+: (\d+) frames", s[0]).group(1))
    rate[label] = med(loop)
    rows.append((label, frames / med(x[0] for x in t), med(loop), 1000 * med(x[2] + x[3] for x in t) / frames, med(x[1] for x in t) / 1024))
print(f"Throughput at 640x480, median of {runs} runs, on {rev} ({ncpu} CPUs, load {load0} -> {load1})")
print("| job | frames/s | loop frames/s | CPU ms/frame | peak MB |")
print("|---|---|---|---|---|")
for label, fps, loop, cpu, mb in rows: print(f"| {label} | {fps:.1f} | {loop:.1f} | {cpu:.1f} | {mb:.0f} |")
print()
for seq in ["approach", "aruco", "room"]:
    print(f"loop frames/s render / track, {seq}: {rate['render-' + seq] / rate['track-' + seq]:.2f} ({rate['render-' + seq]:.1f} vs {rate['track-' + seq]:.1f})")
print(f"loop frames/s render --codec mpeg4 / track, approach: {rate['mpeg4-approach'] / rate['track-approach']:.2f} ({rate['mpeg4-approach']:.1f} vs {rate['track-approach']:.1f})")
print(f"loop frames/s render from a recorded stream (compositing, debug view, H.264 encoding alone), approach: {rate['stream-approach']:.1f}")
print()
print("Overlay corners measured in the composited frames (anchorkit bench overlays)")
print(open(f"{work}/overlays.md").read().rstrip())
PY
