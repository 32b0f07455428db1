"""Prints Benchmarks/geo.sh's tables from the score files in the work folder (argv[1])."""
import json
import sys

work = sys.argv[1]


def cell(summary, key, digits=2):
    return "-" if not summary else f"{summary[key]:.{digits}f}"


def pair(summary, digits=2):
    return f"{cell(summary, 'median', digits)} / {cell(summary, 'p90', digits)}"


print("| sequence | placement | localised from (s) | horizontal error, all (m) | after 20 s (m) | in view, after 20 s (m) "
      "| heading error after 20 s (°) | jitter RMS / p90 (px) | within 3 stated σ |")
print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
bins = {}
for scene in ["street-walk", "street-drive"]:
    for mode in ["fused", "newest-fix"]:
        geo = json.load(open(f"{work}/{scene}-{mode}.score.json")).get("geo") or {}
        first = geo.get("firstLocalizedTime")
        jitter = geo.get("jitterPixels")
        rms = geo.get("jitterRMS")
        within = geo.get("withinThreeStatedPercent")
        print(f"| {scene} | {mode} | {'-' if first is None else f'{first:.1f}'} | {pair(geo.get('horizontalErrorMetres'))} "
              f"| {pair(geo.get('settledHorizontalErrorMetres'))} | {pair(geo.get('settledInViewHorizontalErrorMetres'))} "
              f"| {pair(geo.get('settledHeadingErrorDegrees'))} | {'-' if rms is None else f'{rms:.2f}'} / {cell(jitter, 'p90')} "
              f"| {'-' if within is None else f'{within:.0f} %'} |")
        bins[(scene, mode)] = {b["start"]: b for b in geo.get("overTime", [])}

print()
print("Median horizontal error (m) / heading error (°) per 10 s, fused against newest-fix:")
print()
starts = sorted({s for b in bins.values() for s in b})
print("| sequence | " + " | ".join(f"{int(s)}-{int(s) + 10} s" for s in starts) + " |")
print("|---|" + "---:|" * len(starts))
for scene in ["street-walk", "street-drive"]:
    for mode in ["fused", "newest-fix"]:
        row = bins[(scene, mode)]
        cells = [f"{row[s]['horizontalMedian']:.1f} / {row[s]['headingMedian']:.1f}" if s in row else "-" for s in starts]
        print(f"| {scene} {mode} | " + " | ".join(cells) + " |")
