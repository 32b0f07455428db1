"""One row of the "Rooms as they are" table from `anchorkit score` text output.

    python3 score_row.py LABEL SCORE.txt

Prints: | LABEL | lost / regained | ATE (% of path) | planes found | floor and walls, found at (and
the seconds each was in view before: a wall that leaves the view is not late while out of it) |
normal / offset error (median over the planes found) | coverage (median) | false planes |
"""
import re
import statistics
import sys

label, path = sys.argv[1], sys.argv[2]
text = open(path).read()
lost = re.search(r"tracking lost / regained\s+(\d+) / (\d+)", text).groups()
ate = re.search(r"ATE \(% of path\)\s+([\d.]+)", text).group(1)
found = re.search(r"planes found\s+(\d+) of (\d+)", text).groups()
normals, offsets, coverages, times = [], [], [], {}
for m in re.finditer(r"plane (\S+)\s+found ([\d.]+) s \(frame \d+; in view ([\d.]+) s before\)\s+normal ([\d.]+)°\s+offset .*?\(([\d.]+) %\)\s+coverage ([\d.]+) %", text):
    name, time, seen, normal, offset, coverage = m.groups()
    normals.append(float(normal)); offsets.append(float(offset)); coverages.append(float(coverage)); times[name] = f"{time} s ({seen} s in view)"
for m in re.finditer(r"plane (\S+)\s+not found \(expected from [\d.]+ s; in view ([\d.]+) s\)", text):
    times[m.group(1)] = f"never ({m.group(2)} s in view)"
false = re.search(r"false planes\s+(\d+)", text).group(1)
walls = "; ".join(f"{k} {times.get(k, '-')}" for k in ["floor", "wall-back", "wall-right", "wall-left"])
print(f"| {label} | {lost[0]} / {lost[1]} | {ate} % | {found[0]} of {found[1]} | {walls} | "
      f"{statistics.median(normals):.2f}° / {statistics.median(offsets):.2f} % | {statistics.median(coverages):g} % | {false} |")
