"""Position and orientation error of a world stream at chosen frames, after the similarity that
fits its camera centres to the truth over a span of frames (the frames before the lens is
covered), with each frame's orientation error relative to the last fitted frame's. A frame whose world
unit is not the fitted frames' (the stream became metric in between: the world was rescaled) has
no position error in those terms and is marked so.

    python3 covered_errors.py GROUNDTRUTH.jsonl STREAM.jsonl FIRST-LAST FRAME,FRAME,...
"""
import json
import sys

import numpy as np


def matrices(path, units=None):
    out = {}
    for line in open(path):
        d = json.loads(line)
        t = d.get("camera", {}).get("transform")
        if t is not None and d["camera"].get("reason") != "initializing":
            out[d["frame"]] = np.array(t).reshape(4, 4).T  # column-major in the stream
            if units is not None:
                units[d["frame"]] = d["camera"].get("scale")
    return out


units = {}
truth, stream = matrices(sys.argv[1]), matrices(sys.argv[2], units)
first, last = map(int, sys.argv[3].split("-"))
frames = [f for f in sorted(set(truth) & set(stream)) if first <= f <= last]
a = np.array([stream[f][:3, 3] for f in frames]); b = np.array([truth[f][:3, 3] for f in frames])
ma, mb = a.mean(0), b.mean(0)
u, s, vt = np.linalg.svd((b - mb).T @ (a - ma) / len(frames))
d = np.eye(3)
if np.linalg.det(u @ vt) < 0:
    d[2, 2] = -1
r = u @ d @ vt
scale = np.trace(np.diag(s) @ d) / ((a - ma) ** 2).sum() * len(frames)


def angle(f):
    e = (r @ stream[f][:3, :3]).T @ truth[f][:3, :3]
    return np.degrees(np.arccos(np.clip((np.trace(e) - 1) / 2, -1, 1)))


reference = angle(last)
cells = []
for f in map(int, sys.argv[4].split(",")):
    if units.get(f) != units.get(last):
        cells.append(f"{f}: {units.get(f)} (the world's unit changed), {angle(f) - reference:+.2f}°")
        continue
    p = scale * r @ (stream[f][:3, 3] - ma) + mb
    cells.append(f"{f}: {100 * np.linalg.norm(p - truth[f][:3, 3]):.1f} cm, {angle(f) - reference:+.2f}°")
print("  position error, orientation error change:", "; ".join(cells))
