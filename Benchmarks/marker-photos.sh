#!/usr/bin/env bash
# Real-photo marker benchmark: `anchorkit bench marker-photos`, anchorkit's marker detector beside
# libapriltag (decimate 1 and 2) and OpenCV 4.6's ArUco detector on ViSP's AprilTag sheet and
# OpenCV's ArUco tutorial photos, shrunk to small markers, in one process: recall, false
# detections, corner error and ms per photo. See Benchmarks/README.md.
#
#   bash Benchmarks/marker-photos.sh            # from the package root (or anywhere)
#
# Environment: REPEATS (timed runs per tool and photo, default 5; the median is kept),
#              DATASETS (the shared data sets, default <root>/../shared/datasets; read, never copied),
#              PIN_CPU (run pinned to this CPU with taskset; default: not pinned),
#              JSON=1 (print the JSON report instead of the tables),
#              MISSES=1 (also list every marker each tool missed, with its side),
#              SKIP_BUILD=1 (use the existing .build-bench binary as it is).
NAME=marker-photos
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
REPEATS="${REPEATS:-5}"
DATASETS="${DATASETS:-$ROOT/../shared/datasets}"

ARGS=(bench marker-photos "$DATASETS" --repeats "$REPEATS")
[[ "${JSON:-0}" == 1 ]] && ARGS+=(--json)
[[ "${MISSES:-0}" == 1 ]] && ARGS+=(--misses)
PIN=()
if [[ -n "${PIN_CPU:-}" ]]; then
    command -v taskset >/dev/null || { echo "marker-photos.sh: taskset is required for PIN_CPU" >&2; exit 1; }
    PIN=(taskset -c "$PIN_CPU")
fi

say "running anchorkit ${ARGS[*]}${PIN_CPU:+ (pinned to CPU $PIN_CPU)}"
# The report goes to the terminal and to Generated/bench-marker-photos/report.md (or .json).
EXT=md; [[ "${JSON:-0}" == 1 ]] && EXT=json
"${PIN[@]}" "$ANCHORKIT" "${ARGS[@]}" | tee "$WORK/report.$EXT"
echo "anchorkit $(revision)${PIN_CPU:+; pinned to CPU $PIN_CPU}"
