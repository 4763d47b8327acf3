#!/usr/bin/env bash
# Runs Strata's benchmarks (release build) — the storage engine's (StorageBenchmarks) and the
# object layer's against GRDB (ObjectBenchmarks) — and prints the harness's markdown tables,
# then a summary of the measured figures against the targets of docs/benchmarks.md, with the
# Strata/GRDB ratios.
#
#   Benchmarks/run.sh [OUT_DIR]        (default OUT_DIR: /tmp/benchout)
#
# The full markdown is also kept in OUT_DIR/benchmarks.md. Extra arguments for the harness can
# be passed in BENCHMARK_ARGS, e.g. BENCHMARK_ARGS="--target ObjectBenchmarks" for one target or
# BENCHMARK_ARGS="--filter Reopen.*". Both targets take ~15 minutes on the 2-core machine.
set -euo pipefail

cd "$(dirname "$0")"
out="${1:-/tmp/benchout}"
mkdir -p "$out"

# SwiftPM can keep a stale build plan when files are added to the main package (a path
# dependency), and then fails with "cannot find type …": drop the plan (not the build products).
rm -f .build/release.yaml .build/release/description.json

# The harness prints the build's progress and an interposer warning on stderr; the tables go to
# stdout, with its progress bars and, when the build fails, the compiler's errors.
# shellcheck disable=SC2086
swift package --allow-writing-to-directory "$out" benchmark --format markdown ${BENCHMARK_ARGS:-} \
    > "$out/benchmarks.md" 2> "$out/benchmarks.log" || {
    echo "benchmark run failed; output: $out/benchmarks.md, log: $out/benchmarks.log" >&2
    grep -v -e $'\e' "$out/benchmarks.md" | grep -v '^$' | tail -n 30 >&2
    tail -n 10 "$out/benchmarks.log" >&2
    exit 1
}

# Leave the progress bars (escape sequences) and build lines out.
grep -v -e $'\e' -e '^\[[0-9]*/[0-9]*\]' "$out/benchmarks.md" | cat -s

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
        if (!("Put 1M x 100 B, batches of 1000, durability .none / Puts per second" in p50) &&
            !("Random get 1M from a snapshot of 1M records / Gets per second" in p50)) exit
        print "### Storage engine"
        print ""
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

# The object layer against GRDB: medians of both sides, measured in the same run, and their ratio.
awk -F'|' '
    function trim(s) { gsub(/^[ \t]+|[ \t]+$/, "", s); return s }
    function group(n,   s, r) { s = sprintf("%d", n); r = ""; while (length(s) > 3) { r = "," substr(s, length(s) - 2) r; s = substr(s, 1, length(s) - 3) } return s r }
    /^### / { section = substr($0, 5); next }
    /^\| / {
        metric = trim($2); sub(/ \(#\)$/, "", metric)
        key = section " / " metric
        p50[key] = trim($5)
    }
    # One row: Strata and GRDB medians of `metric`, their ratio, and the target ratio (0: none).
    function pair(label, strata, grdb, metric, target,   s, g, ratio, verdict) {
        if (!((strata " / " metric) in p50) || !((grdb " / " metric) in p50)) { printf "| %s | not run | | | |\n", label; return }
        s = p50[strata " / " metric] + 0; g = p50[grdb " / " metric] + 0
        ratio = g > 0 ? s / g : 0
        verdict = target > 0 ? sprintf(">= %g: %s", target, ratio >= target ? "met" : "missed") : "(no target)"
        printf "| %s | %s | %s | %.2f | %s |\n", label, group(s), group(g), ratio, verdict
    }
    function table(metric, title) {
        print ""
        print "| " title " | Strata | GRDB | Strata/GRDB | Target |"
        print "|:--|--:|--:|--:|:--|"
        i = "Insert 1M objects, 10000 per write: "
        p = "Point read 1M random by primary key: "
        s = "Scan 1M summing age: "
        c = "Count age > 50 of 1M: "
        pair("Insert: Strata .full vs GRDB WAL, synchronous=NORMAL", i "Strata .full", i "GRDB WAL, synchronous=NORMAL", metric, 5)
        pair("Insert: Strata .none vs GRDB WAL, synchronous=NORMAL", i "Strata .none", i "GRDB WAL, synchronous=NORMAL", metric, 0)
        pair("Insert: Strata .full vs GRDB WAL, synchronous=FULL (both fsync per commit)", i "Strata .full", i "GRDB WAL, synchronous=FULL", metric, 0)
        pair("Point read: Strata vs GRDB fetchOne(key:)", p "Strata", p "GRDB fetchOne(key:)", metric, 10)
        pair("Point read: Strata vs GRDB cached statement", p "Strata", p "GRDB cached statement", metric, 0)
        pair("Scan (sum of age): Strata vs GRDB record cursor", s "Strata", s "GRDB record cursor", metric, 2)
        pair("Scan (sum of age): Strata vs GRDB SELECT SUM(age)", s "Strata", s "GRDB SELECT SUM(age)", metric, 0)
        pair("Count age > 50: Strata where vs GRDB fetchCount", c "Strata where", c "GRDB fetchCount", metric, 1.5)
    }
    # The queries of issue 11 (rates in the unit of each workload: objects, or queries for the indexed ones).
    function queries(metric, title,   a, n) {
        print ""
        print "| " title " | Strata | GRDB | Strata/GRDB | Target |"
        print "|:--|--:|--:|--:|:--|"
        pair("Scan reading age and name vs GRDB record cursor", "Scan 1M reading age and name: Strata", "Scan 1M reading age and name: GRDB record cursor", metric, 1.5)
        split("sum min max avg", a, " ")
        for (n = 1; n <= 4; n++)
            pair(a[n] " of age vs SQLite " toupper(a[n]) "(age)", "Aggregate " a[n] " of age over 1M: Strata", "Aggregate " a[n] " of age over 1M: GRDB " toupper(a[n]) "(age)", metric, 1.5)
        pair("Indexed equality vs GRDB with an index", "Indexed age == k, 10 queries over 1M: Strata", "Indexed age == k, 10 queries over 1M: GRDB item_on_age", metric, 5)
        pair("Indexed range vs GRDB with an index", "Indexed age in k..<k+2, 10 queries over 1M: Strata", "Indexed age in k..<k+2, 10 queries over 1M: GRDB item_on_age", metric, 5)
        pair("dog.age > 3 count vs SQL join", "Count dog.age > 3 of 1M persons: Strata where", "Count dog.age > 3 of 1M persons: GRDB JOIN fetchCount", metric, 2)
        pair("Sort by age, first 100 vs ORDER BY LIMIT 100", "Sort 1M by age, first 100, reading name: Strata", "Sort 1M by age, first 100, reading name: GRDB ORDER BY age LIMIT 100", metric, 1)
    }
    function nanoseconds(label, metric,   key) {
        key = "Property read 10M on a managed object: Strata / " metric
        if (key in p50) printf "| %s | %s | <= 100 | %s |\n", label, p50[key], (p50[key] + 0 <= 100 ? "met" : "missed")
        else printf "| %s | not run | <= 100 | |\n", label
    }
    END {
        if (!("Point read 1M random by primary key: Strata / Objects per second" in p50) &&
            !("Insert 1M objects, 10000 per write: Strata .full / Objects per second" in p50)) exit
        print ""
        print "### Object layer vs GRDB (medians; objects per second)"
        table("Objects per second", "Objects per second")
        table("Objects per CPU second", "Objects per CPU second (less disturbed by other load)")
        queries("Operations per second", "Queries (issue 11), operations per second")
        queries("Operations per CPU second", "Queries (issue 11), operations per CPU second")
        print ""
        print "| Property read on a managed object | Median ns | Target ns | |"
        print "|:--|--:|--:|:--|"
        nanoseconds("name (String)", "ns per String read")
        nanoseconds("age (Int)", "ns per Int read")
        nanoseconds("name (String), CPU time", "CPU ns per String read")
        nanoseconds("age (Int), CPU time", "CPU ns per Int read")
    }
' "$out/benchmarks.md"
