# Shared machinery of the benchmark scripts (sourced, not run): paths, the release build, timed
# jobs run round-robin, and the revision line. The sourcing script sets NAME (its work folder
# under Generated/ is bench-$NAME) before sourcing.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
RUNS="${RUNS:-3}"
SCRATCH="${SCRATCH:-.build-bench}"   # another scratch path (relative to the root) may be given
ANCHORKIT="$ROOT/$SCRATCH/release/anchorkit"
GEN="$ROOT/Generated"
WORK="$GEN/bench-$NAME"
mkdir -p "$WORK"

say() { printf '== %s\n' "$*" >&2; }

command -v /usr/bin/time >/dev/null || { say "installing GNU time"; apt-get install -y time >/dev/null; }
command -v python3 >/dev/null || { echo "$NAME: python3 is required" >&2; exit 1; }

if [[ "${SKIP_BUILD:-0}" != 1 ]]; then
    say "building anchorkit (release, --scratch-path $SCRATCH)"
    swift build -c release --scratch-path "$ROOT/$SCRATCH" >"$WORK/build.log" 2>&1 \
        || { tail -30 "$WORK/build.log" >&2; exit 1; }
fi
[[ -x "$ANCHORKIT" ]] || { echo "$NAME: $ANCHORKIT missing" >&2; exit 1; }

# job LABEL FIELDS CMD...: one timed configuration. FIELDS ("a|b|c") is kept with the label in
# ROWS for the script's table; the command's output goes to $WORK/LABEL.log.
JOBS=()                 # labels, in table order
declare -A JOBCMD       # label -> shell-quoted command
ROWS=()                 # "label|fields"
job() {
    local label="$1" fields="$2"; shift 2
    JOBS+=("$label")
    JOBCMD[$label]="$(printf '%q ' "$@")"
    ROWS+=("$label|$fields")
    : >"$WORK/$label.time"
    : >"$WORK/$label.summary"
}

# Runs every job RUNS times, round-robin so that load from elsewhere hits all alike; appends
# GNU time's "wall maxRSS user sys" to LABEL.time and `track:` or `render:` summary lines to LABEL.summary.
run_jobs() {
    LOAD_BEFORE="$(cut -d' ' -f1-3 /proc/loadavg)"
    for ((r = 1; r <= RUNS; r++)); do
        for label in "${JOBS[@]}"; do
            say "round $r/$RUNS: $label"
            eval "/usr/bin/time -a -o \"\$WORK/\$label.time\" -f '%e %M %U %S' ${JOBCMD[$label]}" \
                >"$WORK/$label.log" 2>&1 || { cat "$WORK/$label.log" >&2; exit 1; }
            grep -E '^(track|render):' "$WORK/$label.log" >>"$WORK/$label.summary" || true
        done
    done
    LOAD_AFTER="$(cut -d' ' -f1-3 /proc/loadavg)"
}

# Scores every job's stream against the ground truth of its sequence (the second field of the
# job, a folder under PREFIX: pass "" for full paths) and lists the jobs in TABLE_IN
# ($WORK/rows.tsv), one per line, tab-separated: the label, the job's fields, and its file stem
# $WORK/LABEL (LABEL.jsonl, .time, .summary, .score.json).
score_jobs() {
    local prefix="$1" row label fields seq
    say "scoring"
    TABLE_IN="$WORK/rows.tsv"
    : >"$TABLE_IN"
    for row in "${ROWS[@]}"; do
        label="${row%%|*}"; fields="${row#*|}"
        IFS='|' read -r _ seq _ <<<"$fields"
        "$ANCHORKIT" score "$prefix$seq" "$WORK/$label.jsonl" --json >"$WORK/$label.score.json"
        printf '%s\t%s\t%s\n' "$label" "${fields//|/$'\t'}" "$WORK/$label" >>"$TABLE_IN"
    done
}

# The measured revision, marked when the sources differ from it.
revision() {
    local rev
    rev="$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?')"
    [[ -z "$(git -C "$ROOT" status --porcelain -- Sources CShims Package.swift 2>/dev/null)" ]] || rev="$rev+uncommitted changes"
    printf '%s' "$rev"
}
