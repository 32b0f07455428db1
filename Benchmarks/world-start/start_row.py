"""One row of the "World tracking that starts at once" table (issue 29).

    python3 start_row.py LABEL STREAM.jsonl SCORE.txt

Normal tracking is counted from the first frame in which a target (marker, image, code) is
tracked, or, where none ever is, from the first frame tracked normally (initialisation). ATE,
the metric scale error and the anchors' drift are `anchorkit score`'s.
"""
import json
import re
import sys

label, stream, score = sys.argv[1], sys.argv[2], open(sys.argv[3]).read()
frames = [json.loads(line) for line in open(stream)]
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
print(f"| {label} | {share:.1f} % (from frame {start}) | {ate} | {scale} | {drift} | {lost.group(1)} / {lost.group(2)} |")
