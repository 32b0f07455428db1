#!/usr/bin/env python3
"""Marker-corner accuracy on real ChArUco photos against an independent reference.

The gold corners of OpenCV's ArUco test are its own unrefined detections (integers, "±1 px").
A ChArUco board gives a better reference: its chessboard corners are saddle points that
cornerSubPix locates to a few hundredths of a pixel, and each marker sits at a known place inside
its square. So the marker corners predicted by a local homography from the nearest chessboard
corners are the reference here, and every corner-refinement mode of `anchorkit track` is scored
against it (RMS and max distance, px).

Needs OpenCV's Python bindings for the ChArUco reference only (pip install opencv-python-headless);
the detections scored are anchorkit's own.

    python3 Benchmarks/real-photos/charuco_reference.py [path/to/anchorkit]
"""
import json, os, shutil, subprocess, sys, tempfile

import cv2
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PHOTOS = os.path.join(ROOT, "..", "shared", "datasets", "opencv-aruco-photos")
ANCHORKIT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, ".build", "release", "anchorkit")
IMAGES = ["images/choriginal.jpg", "images/chocclusion_original.jpg"] + [f"calib_charuco/img_0{i}.jpg" for i in range(4)]
MODES = ["none", "subpixel", "contour", "apriltag", "template"]


def reference_corners(gray):
    """Marker corners predicted from the refined chessboard corners (5x7 squares, 4/2 cm, 6x6_250)."""
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_6X6_250)
    board = cv2.aruco.CharucoBoard((5, 7), 0.04, 0.02, dictionary)
    corners, ids, _, _ = cv2.aruco.CharucoDetector(board).detectBoard(gray)
    if corners is None:
        return {}
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 100, 0.001)
    corners = cv2.cornerSubPix(gray, corners, (5, 5), (-1, -1), criteria).reshape(-1, 2)
    chess = board.getChessboardCorners()
    board_xy = {int(i): chess[int(i)][:2] for i in ids.flatten()}
    image_xy = {int(i): corners[k] for k, i in enumerate(ids.flatten())}
    truth = {}
    for k, marker in enumerate(board.getIds().flatten()):
        model = board.getObjPoints()[k][:, :2]
        near = [i for i in board_xy if np.linalg.norm(board_xy[i] - model.mean(0)) < 0.045]
        if len(near) < 4:
            continue  # a square on the board's edge: too few chessboard corners around it
        src = np.array([board_xy[i] for i in near], np.float32).reshape(-1, 1, 2)
        dst = np.array([image_xy[i] for i in near], np.float32).reshape(-1, 1, 2)
        h, _ = cv2.findHomography(src, dst)
        truth[int(marker)] = cv2.perspectiveTransform(model.reshape(-1, 1, 2).astype(np.float64), h).reshape(-1, 2)
    return truth


def anchorkit_corners(image_path, mode, work):
    ext = os.path.splitext(image_path)[1]
    for i in range(2):  # two frames: a new id is reported from its second detection
        shutil.copy(image_path, os.path.join(work, f"{i:06d}{ext}"))
    out = os.path.join(work, "out.jsonl")
    subprocess.run([ANCHORKIT, "track", os.path.join(work, "%06d" + ext),
                    "--camera", os.path.join(PHOTOS, "tutorial_camera_charuco.yml"),
                    "--markers", "DICT_6X6_250:0.02", "--corner-refinement", mode, "-o", out, "--quiet"],
                   check=True, capture_output=True)
    last = [json.loads(line) for line in open(out)][-1]
    return {int(a["name"]): np.array(a["corners"]) for a in last["anchors"] if a["tracked"]}


def main():
    work = tempfile.mkdtemp()
    totals = {m: [] for m in MODES}
    print("| photo | markers | " + " | ".join(f"{m} RMS / max (px)" for m in MODES) + " |")
    print("|---|---|" + "---|" * len(MODES))
    for name in IMAGES:
        path = os.path.join(PHOTOS, name)
        truth = reference_corners(cv2.imread(path, cv2.IMREAD_GRAYSCALE))
        cells = []
        for mode in MODES:
            found = anchorkit_corners(path, mode, work)
            d = np.array([np.linalg.norm(found[m][k] - truth[m][k]) for m in truth if m in found for k in range(4)])
            totals[mode].extend(d)
            cells.append(f"{np.sqrt((d ** 2).mean()):.2f} / {d.max():.2f}")
        print(f"| {os.path.basename(name)} | {len(truth)} | " + " | ".join(cells) + " |")
    print("| all | | " + " | ".join(f"{np.sqrt((np.array(v) ** 2).mean()):.2f} / {np.max(v):.2f}" for v in totals.values()) + " |")
    shutil.rmtree(work)


if __name__ == "__main__":
    main()
