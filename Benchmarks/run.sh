#!/usr/bin/env bash
# Runs Strata's storage benchmarks (release build) and prints the harness's markdown tables,
# then a summary of the measured figures against the targets of docs/benchmarks.md.
#
#   Benchmarks/run.sh [OUT_DIR]        (default OUT_DIR: /tmp/benchout)
#
# The full markdown is also kept in OUT_DIR/benchmarks.md. Extra arguments for the harness can
# be passed in BENCHMARK_ARGS, e.g. BENCHMARK_ARGS="--filter Reopen.*".
set -euo pipefail

cd "$(dirname "$0")"
out="${1:-/tmp/benchout}"
mkdir -p "$out"

# The harness prints progress and an interposer warning on stderr; the tables go to stdout.
# shellcheck disable=SC2086
swift package --allow-writing-to-directory "$out" benchmark --format markdown ${BENCHMARK_ARGS:-} \
    > "$out/benchmarks.md" 2> "$out/benchmarks.log" || {
    echo "benchmark run failed; log: $out/benchmarks.log" >&2
    tail -n 30 "$out/benchmarks.log" >&2
    exit 1
}

cat "$out/benchmarks.md"

# Summary: median (p50) and best run of each figure the targets name. For "per second" rows the
# harness orders percentiles best first (p0 = highest rate); for the others p0 is the lowest.
echo
echo "## Summary ($(date -u '+%Y-%m-%d %H:%M UTC'), load average $(cut -d' ' -f1-3 /proc/loadavg))"
echo
awk -F'|' '
    function trim(s) { gsub(/^[ \t]+|[ \t]+$/, "", s); return s }
    function group(n,   s, r) { s = sprintf("%d", n); r = ""; while (length(s) > 3) { r = "," substr(s, length(s) - 2) r; s = substr(s, 1, length(s) - 3) } return s r }
    /^### / { section = substr($0, 5); next }
    /^\| / {
        metric = trim($2); sub(/ \(#\)$/, "", metric)
        key = section " / " metric
        p0[key] = trim($3); p50[key] = trim($5)
    }
    function row(label, key, target, larger,   median, best, met) {
        if (!(key in p50)) { printf "| %s | not run | | %s | |\n", label, target; return }
        median = p50[key] + 0; best = p0[key] + 0
        met = larger ? (median >= target + 0) : (median <= target + 0)
        printf "| %s | %s | %s | %s %s | %s |\n", label, group(median), group(best),
            (larger ? ">=" : "<="), group(target), (met ? "met" : "missed")
    }
    END {
        print "| Figure | Median | Best | Target | Median vs target |"
        print "|:--|--:|--:|--:|:--|"
        n = "Put 1M x 100 B, batches of 1000, durability .none"
        f = "Put 1M x 100 B, batches of 1000, durability .full"
        g = "Random get 1M from a snapshot of 1M records"
        r = "Reopen a store of 1M records"
        m = "Index memory of 1M keys"
        row("Puts/s, durability .none", n " / Puts per second", 1500000, 1)
        row("Puts/s, durability .full", f " / Puts per second", 1000000, 1)
        row("Random gets/s", g " / Gets per second", 1500000, 1)
        row("Reopen of 1M records, ms", r " / Open time (ms)", 300, 0)
        row("Index heap bytes/key (8-byte keys)", m " / Index heap bytes per key (malloc)", 72, 0)
        print ""
        print "| Same work per CPU second (less disturbed by other load) | Median | Best |"
        print "|:--|--:|--:|"
        split(n " / Puts per CPU second|" f " / Puts per CPU second|" g " / Gets per CPU second|" r " / Open CPU time (ms)", keys, "|")
        split("Puts per CPU s, .none|Puts per CPU s, .full|Gets per CPU s|Reopen CPU ms", labels, "|")
        for (i = 1; i <= 4; i++) if (keys[i] in p50) printf "| %s | %s | %s |\n", labels[i], group(p50[keys[i]]), group(p0[keys[i]])
    }
' "$out/benchmarks.md"
