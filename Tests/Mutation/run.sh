#!/usr/bin/env bash
# Mutation check of the storage engine: applies one operator mutant at a time to the engine's
# format, log, recovery and compaction sources, rebuilds, runs the engine tests, restores the
# file, and reports each mutant as killed (a test failed, crashed or timed out), survived (every
# test passed) or not-viable (it did not compile). The mutants come from mutants.py beside
# this script; a mutant is named FILE:LINE:N (the N-th mutation offered on that line).
#
#   Tests/Mutation/run.sh --list                    list every mutant, run nothing
#   Tests/Mutation/run.sh                           run every mutant
#   Tests/Mutation/run.sh --sample 40 --seed 7      a reproducible sample covering every file
#   Tests/Mutation/run.sh --only SegmentScanner.swift:61:1   one mutant (repeatable)
#   Tests/Mutation/run.sh --ids survivors.txt       the mutants named in a file (first column)
#
# Options: --results FILE (default .build/mutation/results.tsv: ID, result, seconds, change,
# line), --timeout SECONDS per mutant's test run (default: twice the unmutated run plus 60 s;
# a mutant that hangs is killed), --filter TEST (default StrataStorageTests), --skip TEST
# (default KeyTreeTests: the B+tree's tests, which no mutated file reaches), --no-baseline
# (skip the unmutated run, which otherwise must pass). A test run stops at its first failure.
#
# The sources are restored after each mutant and on any exit (trap). The mutated files must
# have no uncommitted changes when it starts. Run it in a worktree of your own: it rewrites the
# files in place.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
helper="$root/Tests/Mutation/mutants.py"
files=(Sources/StrataStorage/Format/*.swift Sources/StrataStorage/Log/*.swift
       Sources/StrataStorage/Engine/Recovery/Recovery*.swift Sources/StrataStorage/Engine/Compaction/Compaction.swift)

list=false; sample=""; seed=""; results=".build/mutation/results.tsv"; timeout_seconds=""
filter="StrataStorageTests"; skip="KeyTreeTests"; baseline=true; only=(); ids_file=""
while [ $# -gt 0 ]; do
    case "$1" in
        --list) list=true ;;
        --sample) sample="$2"; shift ;;
        --seed) seed="$2"; shift ;;
        --only) only+=("$2"); shift ;;
        --ids) ids_file="$2"; shift ;;
        --results) results="$2"; shift ;;
        --timeout) timeout_seconds="$2"; shift ;;
        --filter) filter="$2"; shift ;;
        --skip) skip="$2"; shift ;;
        --no-baseline) baseline=false ;;
        -h|--help) sed -n '2,23p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "run.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
    shift
done
if [ -n "$sample" ] && [ -z "$seed" ]; then
    echo "run.sh: --sample needs --seed, so that the sample can be drawn again" >&2; exit 2
fi

# The mutants to run, one "ID<TAB>change<TAB>line" a line.
plan="$(mktemp)"
backup="$(mktemp -d)"
restore() {
    local file
    for file in "${files[@]}"; do
        if [ -f "$backup/$file" ] && ! cmp -s "$backup/$file" "$file"; then
            cp "$backup/$file" "$file"
        fi
    done
}
cleanup() { restore; rm -rf "$plan" "$backup"; }
trap cleanup EXIT
trap 'exit 130' INT TERM

if [ ${#only[@]} -gt 0 ] || [ -n "$ids_file" ]; then
    wanted=("${only[@]+"${only[@]}"}")
    if [ -n "$ids_file" ]; then
        while IFS=$'\t' read -r id _; do
            case "$id" in ''|\#*) ;; *) wanted+=("$id") ;; esac
        done < "$ids_file"
    fi
    python3 "$helper" list "${files[@]}" > "$plan.all"
    for id in "${wanted[@]}"; do
        full="$(python3 "$helper" resolve "$id" "${files[@]}")"
        grep -F -- "$full"$'\t' "$plan.all" >> "$plan" || { echo "run.sh: no mutant $id" >&2; exit 2; }
    done
    rm -f "$plan.all"
elif [ -n "$sample" ]; then
    python3 "$helper" sample "$sample" "$seed" "${files[@]}" > "$plan"
else
    python3 "$helper" list "${files[@]}" > "$plan"
fi

if $list; then cat "$plan"; exit 0; fi

if ! git diff --quiet -- "${files[@]}"; then
    echo "run.sh: the mutated sources have uncommitted changes; commit or restore them first" >&2
    exit 2
fi
for file in "${files[@]}"; do mkdir -p "$backup/$(dirname "$file")"; cp -p "$file" "$backup/$file"; done

build() { swift build --build-tests > "$log" 2>&1; }
# Stops at the first failing test: a mutant is killed by one failure.
run_tests() {
    python3 "$root/Tests/Mutation/first_failure.py" "$1" "$log" \
        swift test --skip-build --filter "$filter" --skip "$skip"
}

mkdir -p "$(dirname "$results")" .build/mutation
log=".build/mutation/last.log"
if $baseline; then
    start=$(date +%s)
    build || { echo "run.sh: the unmutated sources do not build (see $log)" >&2; exit 1; }
    start=$(date +%s)
    run_tests 3600 || { echo "run.sh: the unmutated tests fail (see $log)" >&2; exit 1; }
    took=$(( $(date +%s) - start ))
    echo "baseline: tests pass in ${took}s"
    [ -n "$timeout_seconds" ] || timeout_seconds=$(( took * 2 + 60 ))
fi
[ -n "$timeout_seconds" ] || timeout_seconds=600

total=$(wc -l < "$plan")
echo "# mutants: $total; timeout ${timeout_seconds}s; filter $filter; $(date -u +%FT%TZ)" | tee "$results"
killed=0; survived=0; unviable=0; number=0
while IFS=$'\t' read -r id change line; do
    number=$((number + 1))
    start=$(date +%s)
    python3 "$helper" apply "$id"
    if ! build; then
        result="not-viable"; unviable=$((unviable + 1))
    elif run_tests "$timeout_seconds"; then
        result="survived"; survived=$((survived + 1))
    else
        status=$?
        if [ "$status" -eq 124 ]; then result="killed(timeout)"; else result="killed"; fi
        killed=$((killed + 1))
    fi
    restore
    took=$(( $(date +%s) - start ))
    printf '%s\t%s\t%s\t%s\t%s\n' "$id" "$result" "$took" "$change" "$line" >> "$results"
    printf '[%d/%d] %-60s %-16s %4ss  %s\n' "$number" "$total" "$id" "$result" "$took" "$change"
done < "$plan"

viable=$((killed + survived))
score="n/a"
[ "$viable" -gt 0 ] && score="$(( killed * 100 / viable ))%"
summary="total $total: killed $killed, survived $survived, not-viable $unviable; killed/viable $score"
echo "# $summary" >> "$results"
echo "$summary"
echo "results: $results"
