#!/usr/bin/env python3
"""The metric scale error of a world-tracking stream window by window.

    scale_windows.py STREAM GROUNDTRUTH [--seconds 2] [--fps 30] [--relative]

`anchorkit score` fits one similarity over all metric frames: when an inertial log's scale is
refined during the walk, the frames before and after each refinement are in different units and
that one figure is their blend. Here a similarity (Umeyama) is fitted to the camera centres of
each window of consecutive frames (`--seconds` long, from the first metric frame), and its scale
is reported as the score does: 100 * (s - 1) %, s the factor that takes the stream's unit to
metres. With --relative (for a stream in arbitrary units) each window's scale is given relative
to the similarity over all its normal frames: how much the odometry's own unit varies.
Prints one line: the windows' errors, then the largest in magnitude.
"""
import json
import sys

import numpy as np


def transform_translation(values):
    return np.array(values, dtype=float).reshape(4, 4).T[:3, 3]


def similarity_scale(estimates, truths):
    a = estimates - estimates.mean(0)
    b = truths - truths.mean(0)
    u, s, vt = np.linalg.svd(b.T @ a)
    d = np.diag([1.0, 1.0, np.sign(np.linalg.det(u @ vt))])
    return float((s * np.diag(d)).sum() / (a ** 2).sum())


def main(argv):
    args = [a for a in argv if not a.startswith("--")]
    seconds = float(argv[argv.index("--seconds") + 1]) if "--seconds" in argv else 2.0
    fps = float(argv[argv.index("--fps") + 1]) if "--fps" in argv else 30.0
    relative = "--relative" in argv
    args = [a for a in args if a not in (str(seconds), str(fps))]
    stream, truth_path = args[0], args[1]
    reported, truth = {}, {}
    for line in open(stream):
        update = json.loads(line)
        camera = update["camera"]
        if camera.get("tracking") != "normal" or (not relative and camera.get("scale") != "metric"):
            continue
        reported[update["frame"]] = transform_translation(camera["transform"])
    for line in open(truth_path):
        update = json.loads(line)
        truth[update["frame"]] = transform_translation(update["camera"]["transform"])
    frames = sorted(f for f in reported if f in truth)
    if len(frames) < 3:
        print("no metric frames" if not relative else "no tracked frames")
        return
    whole = similarity_scale(np.array([reported[f] for f in frames]), np.array([truth[f] for f in frames]))
    span = int(round(seconds * fps))
    cells, errors = [], []
    for start in range(frames[0], frames[-1] + 1, span):
        window = [f for f in frames if start <= f < start + span]
        if len(window) < span // 2:
            continue
        s = similarity_scale(np.array([reported[f] for f in window]), np.array([truth[f] for f in window]))
        error = 100 * (s / whole - 1) if relative else 100 * (s - 1)
        errors.append(error)
        cells.append("%.1f-%.1f s %+.2f %%" % (window[0] / fps, (window[-1] + 1) / fps, error))
    largest = max(errors, key=abs) if errors else float("nan")
    print("; ".join(cells) + "; largest %+.2f %%" % largest)


if __name__ == "__main__":
    main(sys.argv[1:])
