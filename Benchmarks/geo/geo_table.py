"""Prints Benchmarks/geo.sh's tables from the score files in the work folder (argv[1])."""
import json
import statistics
import sys

work = sys.argv[1]
SCENES = ["street-walk", "street-drive"]
MODES = ["fused", "newest-fix"]
LOGS = ["", "101", "102"]  # the sequence's own log, then the logs of --location-seed 101 and 102


def cell(summary, key, digits=2):
    return "-" if not summary else f"{summary[key]:.{digits}f}"


def pair(summary, digits=2):
    return f"{cell(summary, 'median', digits)} / {cell(summary, 'p90', digits)}"


def geo(scene, log, mode):
    name = f"{scene}-log{log}" if log else scene
    return json.load(open(f"{work}/{name}-{mode}.score.json")).get("geo") or {}


print("| sequence | log | placement | localised from (s) | horizontal error, all (m) | after 20 s (m) | in view, after 20 s (m) "
      "| heading error after 20 s (°) | jitter RMS / p90 (px) | within 3 stated σ |")
print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|")
for scene in SCENES:
    for mode in MODES:
        for log in LOGS:
            g = geo(scene, log, mode)
            first, jitter, rms, within = g.get("firstLocalizedTime"), g.get("jitterPixels"), g.get("jitterRMS"), g.get("withinThreeStatedPercent")
            print(f"| {scene} | {log or 'own'} | {mode} | {'-' if first is None else f'{first:.1f}'} | {pair(g.get('horizontalErrorMetres'))} "
                  f"| {pair(g.get('settledHorizontalErrorMetres'))} | {pair(g.get('settledInViewHorizontalErrorMetres'))} "
                  f"| {pair(g.get('settledHeadingErrorDegrees'))} | {'-' if rms is None else f'{rms:.2f}'} / {cell(jitter, 'p90')} "
                  f"| {'-' if within is None else f'{within:.0f} %'} |")

print()
print("Over the three logs (median of their medians after 20 s; the issue's targets: 1.5 m, 2°, 2 px):")
print()
print("| sequence | placement | horizontal (m) | heading (°) | jitter RMS (px) | localised from (s), latest |")
print("|---|---|---:|---:|---:|---:|")
for scene in SCENES:
    for mode in MODES:
        runs = [geo(scene, log, mode) for log in LOGS]

        def median(key, field="median"):
            values = [r[key][field] if field else r[key] for r in runs if r.get(key) is not None]
            return f"{statistics.median(values):.2f}" if values else "-"
        latest = [r.get("firstLocalizedTime") for r in runs]
        print(f"| {scene} | {mode} | {median('settledHorizontalErrorMetres')} | {median('settledHeadingErrorDegrees')} "
              f"| {median('jitterRMS', None)} | {'-' if None in latest else f'{max(latest):.1f}'} |")

print()
print("Median horizontal error (m) / heading error (°) per 10 s, the sequence's own log, fused against newest-fix:")
print()
bins = {(scene, mode): {b["start"]: b for b in geo(scene, "", mode).get("overTime", [])} for scene in SCENES for mode in MODES}
starts = sorted({s for b in bins.values() for s in b})
print("| sequence | " + " | ".join(f"{int(s)}-{int(s) + 10} s" for s in starts) + " |")
print("|---|" + "---:|" * len(starts))
for scene in SCENES:
    for mode in MODES:
        row = bins[(scene, mode)]
        cells = [f"{row[s]['horizontalMedian']:.1f} / {row[s]['headingMedian']:.1f}" if s in row else "-" for s in starts]
        print(f"| {scene} {mode} | " + " | ".join(cells) + " |")
