#!/bin/bash
# Our bundle adjustment (CShims/AnchorKitSolvers/bundle_adjustment.cpp) against Ceres Solver 2.1
# on the problems `anchorkit track --world` really poses: they are dumped by a hook (dump.patch,
# applied to a private clone only), replayed by both solvers in one process (bench.cpp), and
# summarised by analyse.py. Needs libceres-dev (not a dependency of AnchorKit). Figures and the
# decision: Benchmarks/README.md, "Bundle adjustment: ours or Ceres".
#   bash Benchmarks/bundle-adjustment-ceres/run.sh [WORKDIR]   (default Generated/ceres-ba)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd); repo=$(cd "$here/../.." && pwd)
work=$(mkdir -p "${1:-$repo/Generated/ceres-ba}" && cd "${1:-$repo/Generated/ceres-ba}" && pwd)
dpkg -s libceres-dev >/dev/null 2>&1 || apt-get install -y libceres-dev
[ -d "$work/repo" ] || { git clone -q "$repo" "$work/repo"; git -C "$work/repo" apply "$here/dump.patch"; }
swift build -c release --product anchorkit --package-path "$work/repo" --scratch-path "$work/build"
for s in room-walk markers-blur-walk markers-far-walk images-shake images-approach; do
  mkdir -p "$work/problems_$s"; extra=(); [ $s = room-walk ] && extra=(--planes horizontal,vertical)
  AK_DUMP_BA="$work/problems_$s" "$work/build/release/anchorkit" track "$repo/Datasets/$s" --world "${extra[@]}" -o "$work/out_$s.jsonl"
done
# Ours is the repository's unpatched file; status.cpp and pose.cpp are what it links against.
cv=$repo/CShims/AnchorKitCV; solvers=$repo/CShims/AnchorKitSolvers
flags="-std=c++17 -O2 -DNDEBUG -I$cv -I$cv/include -I$solvers -I$solvers/include $(pkg-config --cflags eigen3 opencv4 apriltag)"
cd "$work"
for f in "$cv/status.cpp" "$cv/pose.cpp" "$solvers/bundle_adjustment.cpp" "$here/bench.cpp"; do g++ $flags -c "$f" -o "$(basename "$f" .cpp).o"; done
g++ -o bench bench.o bundle_adjustment.o status.o pose.o -lceres -lglog -lgflags $(pkg-config --libs opencv4 apriltag) -lm
./bench --reps 5 problems_*/*.bin > results.csv && python3 "$here/analyse.py" results.csv
./bench --reps 3 --perturb 1 problems_*/*.bin > results_perturbed.csv && python3 "$here/analyse.py" results_perturbed.csv
mkdir -p synthetic && python3 "$here/make_synthetic.py" 7 15 30 60 120 && ./bench --reps 1 synthetic/*.bin > results_synthetic.csv
