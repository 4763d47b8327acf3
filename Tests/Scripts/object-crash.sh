#!/usr/bin/env bash
# The long run of the object-level crash suite (Tests/StrataTests/ObjectCrashTests.swift):
# seeded object workloads crashed at every sync point, seed after seed, until STATES distinct
# crash images (default 10,000) have been checked against the oracle.
#
#   Tests/Scripts/object-crash.sh [STATES] [FIRST-SEED]
#
# Prints the seeds, sync points and crash states it ran; a failure names the seed, the sync
# point and the crash policy (replay it with FIRST-SEED). Exits non-zero when any check failed.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

export STRATA_OBJECT_CRASH_STATES=${1:-10000}
export STRATA_OBJECT_CRASH_SEED=${2:-100}
echo "object-crash: at least $STRATA_OBJECT_CRASH_STATES distinct crash states, from seed $STRATA_OBJECT_CRASH_SEED"
log=$(mktemp "${TMPDIR:-/tmp}/object-crash.XXXXXX")
trap 'rm -f "$log"' EXIT
status=0
swift test --filter ObjectCrashTests/testManyCrashStates >"$log" 2>&1 || status=$?
grep -E "^object crash suite:|Executed [0-9]+ test" "$log" | sort -u || true
grep -E "error:" "$log" | head -n 40 || true
if (( status != 0 )) || grep -q "error:" "$log"; then
    echo "object-crash: FAILED (exit $status); full log kept in $log.failed"
    cp "$log" "$log.failed"
    exit 1
fi
echo "object-crash: passed"
