#!/usr/bin/env bash
# The main job on an embedded dataset: install what is missing, build, track the markers of
# Datasets/markers-aruco-table (an mp4 with ground truth) and score the result.
set -euo pipefail
cd "$(dirname "$0")/.."
bash Scripts/install-dependencies.sh
swift build -c release --product anchorkit
bin="$(swift build -c release --show-bin-path)/anchorkit"
sequence=${1:-Datasets/markers-aruco-table}
mkdir -p Generated
"$bin" track "$sequence" -o Generated/demo-anchors.jsonl
"$bin" score "$sequence" Generated/demo-anchors.jsonl
