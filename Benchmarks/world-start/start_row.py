"""One row of the "World tracking that starts at once" table (issue 29).

    python3 start_row.py LABEL STREAM.jsonl SCORE.txt SEQUENCE

Normal tracking is counted from the first frame in which a target (marker, image, code) is
tracked, or, where none ever is, from the first frame tracked normally (initialisation). Posed
frames are those with a pose, whatever their state; their orientation error is the angle between
the reported and the true turn since the first posed frame (no alignment needed). ATE, the metric
scale error, the anchors' drift and the stated accuracy (its median, the jumps beyond 3 stated
sigmas between consecutive frames, the largest in sigmas) are `anchorkit score`'s.
"""
import json
import math
import re
import sys

label, stream, score, sequence = sys.argv[1], sys.argv[2], open(sys.argv[3]).read(), sys.argv[4]
frames = [json.loads(line) for line in open(stream)]
truth = {d["frame"]: d["camera"]["transform"] for d in map(json.loads, open(f"{sequence}/groundtruth.jsonl"))}


def rotation(m):
    """The rotation of a column-major 4x4 transform, as rows."""
    return [[m[c * 4 + r] for c in range(3)] for r in range(3)]


def relative_angle(a0, a, b0, b):
    """Degrees between the turns a0 -> a and b0 -> b (rotations as rows)."""
    def mul_t(x, y):  # xᵀ y
        return [[sum(x[k][i] * y[k][j] for k in range(3)) for j in range(3)] for i in range(3)]
    ra, rb = mul_t(a0, a), mul_t(b0, b)
    d = mul_t(ra, rb)
    return math.degrees(math.acos(max(-1.0, min(1.0, (d[0][0] + d[1][1] + d[2][2] - 1) / 2))))


identity = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]
posed = [f for f in frames if f["camera"]["tracking"] == "normal" or f["camera"]["transform"] != identity]
angles = []
if posed:
    first = posed[0]
    a0, b0 = rotation(first["camera"]["transform"]), rotation(truth[first["frame"]])
    angles = sorted(relative_angle(a0, rotation(f["camera"]["transform"]), b0, rotation(truth[f["frame"]])) for f in posed)
orientation = f"{angles[len(angles) // 2]:.2f} / {angles[-1]:.2f}" if angles else "-"
normal = [f["camera"]["tracking"] == "normal" for f in frames]
targeted = [any(a.get("tracked") and a.get("type") != "plane" for a in f["anchors"]) for f in frames]
start = targeted.index(True) if any(targeted) else (normal.index(True) if any(normal) else len(frames))
counted = normal[start:]
share = 100 * sum(counted) / len(counted) if counted else 0


def value(pattern):
    m = re.search(pattern, score)
    return m.group(1) if m else "-"


ate = value(r"ATE \(% of path\)\s+([-\d.]+)")
scale = value(r"metric scale error \(%\)\s+([-\d.]+)") if "alignment                  rigid" in score or re.search(r"alignment\s+rigid", score) else "arbitrary"
lost = re.search(r"tracking lost / regained\s+(\d+) / (\d+)", score)
drifts = [float(d) for d in re.findall(r"drift \S+ \(cm\)\s+([\d.]+)", score)]
drift = f"{max(drifts):.2f}" if drifts else "-"
stated = re.search(r"stated accuracy: frames, median \(cm\)\s+\d+, ([\d.]+)", score)
jumps = re.search(r"jumps beyond 3 stated sigmas\s+(\d+) \(largest ([\d.]+) sigmas\)", score)
accuracy = f"{stated.group(1)} / {jumps.group(1)} ({jumps.group(2)})" if stated and jumps else "-"
print(f"| {label} | {share:.1f} % (from frame {start}) | {100 * len(posed) / len(frames):.1f} % | {orientation} | {ate} | {scale} | "
      f"{drift} | {f'{lost.group(1)} / {lost.group(2)}' if lost else '-'} | {accuracy} |")
