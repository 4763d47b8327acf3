#!/usr/bin/env bash
# Smoke-runs the fuzz targets: builds them (release, libFuzzer + AddressSanitizer), replays the
# regression inputs, then fuzzes each target for SECONDS seconds on a copy of its seed corpus in
# a temporary directory (the repository's Corpus/ is never written), with its dictionary.
#
#   Fuzz/run-smoke.sh [SECONDS]        default 30 seconds per target
#
# Exits non-zero when a target crashes, hangs (> 10 s on one input), leaks, runs out of memory
# (> 2 GiB), or a regression input not covered by a known issue fails. Crash inputs are copied to
# Fuzz/artifacts/<target>/ (git-ignored) so they outlive the temporary directory.
#
# Environment:
#   STRATA_FUZZ_SKIP_KNOWN   1 (default): skip inputs that trip issues already reported
#                            (FuzzSupport/KnownIssues.swift); 0: let them crash.
#   FUZZ_TARGETS             targets to run (default: "SegmentFuzzer DictionaryFuzzer ManifestFuzzer HintFuzzer
#                            PredicateFuzzer OpsFuzzer EvaluatorFuzzer").
#   FUZZ_EXTRA_FLAGS         more libFuzzer flags, e.g. "-seed=1 -jobs=4".
set -euo pipefail

seconds="${1:-30}"
if ! [[ "$seconds" =~ ^[0-9]+$ ]]; then
    echo "usage: $0 [SECONDS]" >&2
    exit 2
fi
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here"
read -r -a targets <<<"${FUZZ_TARGETS:-SegmentFuzzer DictionaryFuzzer ManifestFuzzer HintFuzzer PredicateFuzzer OpsFuzzer EvaluatorFuzzer}"
read -r -a extra_flags <<<"${FUZZ_EXTRA_FLAGS:-}"

# The exact flag order matters (other forms fail to link or lose coverage).
build_flags=(-c release --sanitize=fuzzer -Xswiftc -sanitize=fuzzer,address -Xswiftc -use-ld=lld)
echo "== building fuzz targets (release, fuzzer + address sanitizer)"
swift build "${build_flags[@]}"
bin="$(swift build "${build_flags[@]}" --show-bin-path)"

work="$(mktemp -d "${TMPDIR:-/tmp}/strata-fuzz.XXXXXX")"
trap 'rm -rf "$work"' EXIT

# Swift's own crash backtracer fights AddressSanitizer and libFuzzer over the crash (it can
# report a bogus stack-buffer-underflow in its memory server); let libFuzzer print the trace.
export SWIFT_BACKTRACE=enable=no
export STRATA_FUZZ_SKIP_KNOWN="${STRATA_FUZZ_SKIP_KNOWN:-1}"
# Leak checking stays on (libFuzzer's default with ASan); Swift's runtime caches are reachable.

status=0
summary=()

# libFuzzer flags of one target (none beyond the common ones).
target_flags() { # target
    :
}

save_artifacts() { # target, artifact directory
    local target="$1" from="$2"
    if compgen -G "$from/*" >/dev/null; then
        mkdir -p "$here/artifacts/$target"
        cp "$from"/* "$here/artifacts/$target/"
        echo "   saved: $(cd "$from" && ls | sed "s|^|artifacts/$target/|" | tr '\n' ' ')"
    fi
}

for target in "${targets[@]}"; do
    dir="$work/$target"
    mkdir -p "$dir/corpus" "$dir/artifacts"

    # Regressions: each input once. Inputs of unfixed known issues are skipped by the harness;
    # every other input must run clean.
    regressions=0
    skipped=0
    failed=0
    if [ -d "Regressions/$target" ]; then
        for input in "Regressions/$target"/*; do
            [ -f "$input" ] || continue
            regressions=$((regressions + 1))
            if STRATA_FUZZ_VERBOSE=1 "$bin/$target" "$input" -artifact_prefix="$dir/artifacts/" $(target_flags "$target") \
                >"$dir/regression.log" 2>&1; then
                if grep -q "skipped: known issue" "$dir/regression.log"; then skipped=$((skipped + 1)); fi
            else
                failed=$((failed + 1))
                echo "!! $target: regression input fails: $input"
                grep -E "Fatal error|runtime failure|ERROR: |SUMMARY" "$dir/regression.log" | head -5 | sed 's/^/   /'
            fi
        done
    fi

    cp -R "Corpus/$target/." "$dir/corpus/"
    seeds="$(ls "$dir/corpus" | wc -l)"
    echo "== $target: fuzzing ${seconds}s from $seeds seeds"
    dictionary=()
    if [ -f "Dictionaries/$target.dict" ]; then dictionary=(-dict="Dictionaries/$target.dict"); fi
    rc=0
    "$bin/$target" "$dir/corpus" "${dictionary[@]}" -max_total_time="$seconds" -max_len=4096 \
        -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$dir/artifacts/" \
        $(target_flags "$target") "${extra_flags[@]}" >"$dir/log" 2>&1 || rc=$?

    executions="$(awk '/stat::number_of_executed_units/ {print $2}' "$dir/log" | tail -1)"
    rate="$(awk '/stat::average_exec_per_sec/ {print $2}' "$dir/log" | tail -1)"
    corpus="$(ls "$dir/corpus" | wc -l)"
    result="ok"
    if [ "$rc" -ne 0 ] || compgen -G "$dir/artifacts/*" >/dev/null || [ "$failed" -ne 0 ]; then
        result="FAILED (libFuzzer exit $rc, $failed regression failure(s))"
        status=1
        echo "!! $target failed; end of the libFuzzer log:"
        grep -vE "^#[0-9]+|^INFO:|^\s+\"|Uses:|recommended dictionary" "$dir/log" | tail -60 | sed 's/^/   /'
        save_artifacts "$target" "$dir/artifacts"
    fi
    line="$target: $result — ${executions:-?} executions (${rate:-?} exec/s) in ${seconds}s,"
    line+=" corpus $seeds → $corpus, regressions $regressions ($skipped skipped as known issues)"
    summary+=("$line")
done

echo
echo "== summary"
printf '%s\n' "${summary[@]}"
exit "$status"
