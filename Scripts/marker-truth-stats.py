#!/usr/bin/env python3
"""How large, how oblique and how blurred a sequence's markers are, from its ground truth.

    python3 Scripts/marker-truth-stats.py SEQUENCE_FOLDER [--exposure SECONDS]

Over every expected marker observation (tracked, visible >= 0.5; FORMATS.md) it prints the
distribution (min, 10 %, median, 90 %, max, and a histogram) of:
  * side: the mean of the four edge lengths of the true corners, px (and the shortest edge);
  * view angle: between the marker's normal and the ray to the camera, degrees (0 = frontal);
  * blur (with --exposure): how far the fastest corner moves during the exposure, px, estimated
    from the truth's corner motion between the neighbouring frames (central difference, so
    motion faster than the frame rate, like hand tremor, is smoothed).
Needs numpy.
"""
import argparse, json, os
import numpy as np

parser = argparse.ArgumentParser()
parser.add_argument("sequence")
parser.add_argument("--exposure", type=float, help="shutter time, seconds (for the blur estimate)")
args = parser.parse_args()
seq = json.load(open(os.path.join(args.sequence, "sequence.json")))
fps = seq.get("fps", 30)
lines = [json.loads(l) for l in open(os.path.join(args.sequence, seq["groundTruth"])) if l.strip()]
by_frame = {l["frame"]: l for l in lines}

def matrix(m):
    return np.array(m, dtype=float).reshape(4, 4).T  # column-major

sides, shortest, angles, blurs, instances = [], [], [], [], set()
for line in lines:
    camera = matrix(line["camera"]["transform"])
    for a in line["anchors"]:
        if a["type"] != "marker" or not a.get("tracked") or a.get("visible", 1) < 0.5:
            continue
        instances.add(a["id"])
        c = np.array(a["corners"])
        edges = np.linalg.norm(c - np.roll(c, -1, axis=0), axis=1)
        sides.append(edges.mean())
        shortest.append(edges.min())
        pose = np.linalg.inv(camera) @ matrix(a["transform"])
        p, n = pose[:3, 3], pose[:3, 1]
        angles.append(np.degrees(np.arccos(np.clip(np.dot(n, -p) / np.linalg.norm(p), -1, 1))))
        if args.exposure:
            near = [by_frame.get(line["frame"] + d) for d in (-1, 1)]
            found = [next((b for b in l["anchors"] if b["id"] == a["id"] and b.get("corners")), None) if l else None
                     for l in near]
            if all(found):
                v = (np.array(found[1]["corners"]) - np.array(found[0]["corners"])) / 2 * fps  # px/s
                blurs.append(np.linalg.norm(v, axis=1).max() * args.exposure)

def show(name, values, bins):
    v = np.array(values)
    q = np.percentile(v, [0, 10, 50, 90, 100])
    print("%-22s n=%d  min %.1f  p10 %.1f  median %.1f  p90 %.1f  max %.1f" % ((name, len(v)) + tuple(q)))
    counts, edges = np.histogram(v, bins=bins)
    for k, count in enumerate(counts):
        print("    %6.1f-%-6.1f %5.1f %%  %s" % (edges[k], edges[k + 1], 100 * count / len(v), "#" * int(round(60 * count / len(v)))))

print("%s: %d frames, %d marker instances (%s), %d expected observations"
      % (seq["name"], len(lines), len(instances), ", ".join(sorted(instances)), len(sides)))
show("side (mean edge, px)", sides, [0, 10, 12, 15, 20, 25, 30, 40, 60, 1000])
show("shortest edge (px)", shortest, [0, 5, 8, 10, 12, 15, 20, 30, 1000])
show("view angle (deg)", angles, [0, 15, 30, 40, 50, 55, 60, 65, 70, 90])
if blurs:
    show("blur (px, estimated)", blurs, [0, 0.5, 1, 2, 3, 4, 6, 8, 12, 1000])
