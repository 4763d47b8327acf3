#!/bin/sh
# The long runs of the "Trust" suites that use real files:
#   - SIGKILL of a real writer process (KillTests), KILLS times (default 300);
#   - the corruption sweep (CorruptionSweepTests) over every byte of every file, both modes.
# Seeded: SEED replays a kill run, CORRUPTION_SEED a sampled sweep; SAMPLING (between 0 and 1)
# sweeps that share of the offsets instead of every one.
#
#   Tests/Scripts/kill-sweep.sh [kills|corruption|all]
set -eu
cd "$(dirname "$0")/../.."
what=${1:-all}
swift build --build-tests
if [ "$what" = kills ] || [ "$what" = all ]; then
    env STRATA_KILLS="${KILLS:-300}" ${SEED:+STRATA_KILL_SEED=$SEED} \
        swift test --skip-build --filter KillTests
fi
if [ "$what" = corruption ] || [ "$what" = all ]; then
    if [ -n "${SAMPLING:-}" ]; then coverage="STRATA_CORRUPTION_SAMPLING=$SAMPLING"; else coverage=STRATA_CORRUPTION_FULL=1; fi
    env "$coverage" ${CORRUPTION_SEED:+STRATA_CORRUPTION_SEED=$CORRUPTION_SEED} \
        swift test --skip-build --filter CorruptionSweepTests
fi
