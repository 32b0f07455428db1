#!/usr/bin/env bash
# Speed per mode and per stage (issue 25): `anchorkit track --profile` on markers (6 in view),
# one image target, world tracking and planes, at 640x480 and 1280x720, beside the naive
# per-frame mode (markers and images) and beside decoding alone (the profile's decode row:
# decoding on its own thread, the ceiling of any tracker), all in one run, round-robin.
# The 1280x720 sequences are the same scenes rendered by `anchorkit synth --width 1280
# --height 720` into Generated/ (once; the room takes several minutes). See Benchmarks/README.md.
#
#   bash Benchmarks/speed.sh            # from the package root (or anywhere)
#
# Environment: RUNS (default 3; the median is reported), MODES (default "markers images world
#              planes"), SIZES (default "640x480 1280x720"), SKIP_BUILD=1,
#              BASELINE=path/to/anchorkit (an earlier build: its loop frames/s beside ours, same rounds).
NAME=speed
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
MODES="${MODES:-markers images world planes}"
SIZES="${SIZES:-640x480 1280x720}"

declare -A SCENE=([markers]=markers-far-walk [images]=images-approach [world]=room-walk [planes]=room-walk)
declare -A FLAGS=([markers]="" [images]="" [world]="--world" [planes]="--planes horizontal,vertical")
sequence() {  # MODE SIZE -> the sequence folder (rendered if missing)
    local scene="${SCENE[$1]}"
    if [[ "$2" == 640x480 ]]; then echo "$ROOT/Datasets/$scene"; return; fi
    local folder="$GEN/$scene-${2#*x}p"
    if [[ ! -f "$folder/sequence.json" ]]; then
        say "rendering Generated/$scene-${2#*x}p at $2"
        "$ANCHORKIT" synth "$scene" --width "${2%x*}" --height "${2#*x}" --storage video -o "$folder" --quiet >&2
    fi
    echo "$folder"
}

for mode in $MODES; do
    for size in $SIZES; do
        seq="$(sequence "$mode" "$size")"
        # shellcheck disable=SC2086
        job "$mode-$size-ours" "$mode|$seq|$size|ours" "$ANCHORKIT" track "$seq" ${FLAGS[$mode]} -o "$WORK/$mode-$size-ours.jsonl" --quiet --profile
        if [[ -n "${BASELINE:-}" ]]; then
            # shellcheck disable=SC2086
            job "$mode-$size-baseline" "$mode|$seq|$size|baseline" "$BASELINE" track "$seq" ${FLAGS[$mode]} \
                -o "$WORK/$mode-$size-baseline.jsonl" --quiet
        fi
        if [[ "$mode" == markers || "$mode" == images ]]; then
            job "$mode-$size-naive" "$mode|$seq|$size|naive" "$ANCHORKIT" track "$seq" --mode detect-every-frame \
                -o "$WORK/$mode-$size-naive.jsonl" --quiet --profile
        fi
    done
done
run_jobs

python3 - "$WORK" "$(revision)" "$LOAD_BEFORE" "$LOAD_AFTER" "$(nproc)" "$RUNS" "${ROWS[@]}" <<'PY'
import re, statistics, sys
work, rev, load0, load1, ncpu, runs = sys.argv[1:7]
rows = [r.split("|") for r in sys.argv[7:]]
summary = re.compile(r"^track: (\d+) frames, .*?([0-9.]+) frames/s \(start-up ([0-9.]+) s\)")
stage = re.compile(r"^(\s*\S.*?)\s{2,}([0-9.]+)\s+([0-9.]+)\s+([0-9.]+)\s+([0-9.]+) %$")
def parse(label):
    # LABEL.summary holds every run's summary line; LABEL.log (rewritten by each run) the last
    # run's stage table.
    rates = [float(m.group(2)) for m in map(summary.match, open(f"{work}/{label}.summary")) if m]
    stages, parent = {}, ""
    for line in open(f"{work}/{label}.log"):
        m = stage.match(line.rstrip())
        if not m: continue
        name = m.group(1)
        if name.startswith(" "):
            name = f"{parent}: {name.strip()}"  # "of which flow" is world tracking's or image targets'
        else:
            parent = name
        stages[name] = float(m.group(3))
    return statistics.median(rates) if rates else float("nan"), stages
results = {}
for label, mode, seq, size, kind in rows:
    results[(mode, size, kind)] = parse(label)
print(f"Loop frames/s (median of {runs} runs, round-robin); decode alone: the profile's decode row of our run")
baseline = any(k[2] == "baseline" for k in results)
print("| mode | size | ours | naive per-frame | ours / naive | decode alone | ours / decode alone |" + (" baseline | ours / baseline |" if baseline else ""))
print("|---|---|---|---|---|---|---|" + ("---|---|" if baseline else ""))
for (mode, size, kind), (rate, stages) in results.items():
    if kind != "ours": continue
    naive = results.get((mode, size, "naive"), (None, None))[0]
    decode = stages.get("decode (its own threads)")
    decode_rate = 1000 / decode if decode else float("nan")
    naive_text = f"{naive:.1f} | {rate / naive:.2f}x" if naive else "- | -"
    base = results.get((mode, size, "baseline"), (None, None))[0]
    base_text = (f" {base:.1f} | {rate / base:.2f}x |" if base else " - | - |") if baseline else ""
    print(f"| {mode} | {size} | {rate:.1f} | {naive_text} | {decode_rate:.0f} | {rate / decode_rate:.3f} |" + base_text)
print()
print("Stages of our runs (the last run's profile): ms a frame (frames/s the stage alone would allow)")
# Stages in the pipeline's order (the profile's), each parent followed by its parts.
order = ["decode (its own threads)", "waiting for frames", "markers", "marker passes ahead (2nd core)", "image targets", "world tracking", "planes", "writing"]
names = []
for top in order:
    for (mode, size, kind), (_, stages) in results.items():
        if kind != "ours": continue
        for n in stages:
            if (n == top or n.startswith(top + ": ")) and n not in names: names.append(n)
print("| stage | " + " | ".join(f"{m} {s}" for (m, s, k) in results if k == "ours") + " |")
print("|---|" + "---|" * sum(1 for k in results if k[2] == "ours"))
for n in names:
    cells = []
    for (mode, size, kind), (_, stages) in results.items():
        if kind != "ours": continue
        v = stages.get(n)
        cells.append(f"{v:.2f} ({1000 / v:.0f})" if v else "-")
    print(f"| {n} | " + " | ".join(cells) + " |")
print(f"\nanchorkit {rev}; {ncpu} CPUs; load average before {load0}, after {load1}")
PY
