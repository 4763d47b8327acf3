// A standalone driver of the object workloads, for profilers (perf, valgrind) and for
// measurements outside the benchmark harness (which preloads malloc and runtime interposers).
//
//   ObjectProfile <workload> [objects [property reads]]
//                 (default 1,000,000 objects; 10,000,000 reads of each property in `property`)
//   OBJECTPROFILE_REPEATS=n   timed runs of each read workload (default 3), after one untimed
//                             warm-up run; 0: a single run, no warm-up (for profilers)
//
// Workloads (no argument: the list). Inserts: insert-full, insert-none (Strata); grdb-insert,
// grdb-insert-full, grdb-insert-rollback (GRDB). Reads, each with a GRDB twin named grdb-<mode>
// (point also has grdb-point-cached): point, scan (sum of age), scan2 (age and name), count
// (age > 50), agg-sum, agg-min, agg-max, agg-avg (agg: the four), indexed-eq, indexed-range
// (indexed: both), join (dog.age > 3, count), sortlimit (sorted by age, first 100), and property
// (Strata only). Groups: strata and grdb (every workload of one side), queries (issue 11's
// query workloads, both sides, and Strata's point read), all.
//
// Notifications (issue 12; ObjectWorkloads+Notify.swift): notify-latency (-full, -none: one
// durability) times commit → delivery of a one-object write to an observed `Results` (filtered,
// and the whole class) and to an observed object, in a database of 100,000 items (or the count
// given), OBJECTPROFILE_NOTIFY_WRITES writes (default 300) after 20 untimed, each waiting for its
// delivery: p50, p99, max. notify-insert (-none) runs insert-full's (insert-none's) workload
// without observers and with 10, alternating, OBJECTPROFILE_REPEATS runs of each (default 3),
// and gives the medians' ratio. notify: notify-latency and notify-insert. Each line ends with
// the load average when it was printed.
//
// Collections (Collections.swift): `collections [n …]` times List appends, Map sets and gets
// (managed and unmanaged) and MutableSet inserts one by one, per operation, as they grow.
//
// Cold (Cold.swift): `load PATH COUNT` writes persons with dogs into PATH/strata and
// PATH/grdb.sqlite; `cold-strata PATH QUERY` and `cold-grdb PATH QUERY` open them, run one query
// (scan, sum, maxavg, link, indexed, point) and print its time and RssAnon.
//
// Size (Size.swift): `size [persons]` writes the same persons and dogs into Strata and into
// SQLite, compacts / vacuums, and prints the bytes of each, as loaded and after an update of half.
//
// Every read workload checks its answer against the one computed from the generator. A read
// workload runs once untimed, then OBJECTPROFILE_REPEATS times; its line gives the median run
// (and every run). Strata's query workloads are then run again, each run right after a write
// of one object ("after write": a write makes a new database version, so nothing a query keeps
// per version is reused). At the end, the ratios of each Strata workload to its GRDB twin, for
// those measured. Loading the databases happens first and is reported separately; for a
// profile of one workload, run it under perf/valgrind with OBJECTPROFILE_REPEATS=0 and look at
// the workload's function (e.g. `ObjectWorkloads.strataPointReads`), which leaves the load out.

import Foundation
import GRDB
import ObjectWorkloads
import StorageWorkloads
import Strata
import StrataStorage

let arguments = CommandLine.arguments
let mode = arguments.count > 1 ? arguments[1] : "usage"
// The cold modes (Cold.swift) run before anything else is computed, in a process of their own.
if ["load", "cold-strata", "cold-grdb"].contains(mode) {
    do { try runCold(mode, Array(arguments.dropFirst(2))) } catch let usage as ColdUsage {
        print(usage)
        exit(2)
    }
    exit(0)
}
let count = arguments.count > 2 ? Int(arguments[2])! : ObjectWorkloads.objectCount
/// Reads of each property in `property` (fewer for a slow profiler such as callgrind).
let propertyReads = arguments.count > 3 ? Int(arguments[3])! : ObjectWorkloads.propertyReads
let repeats = ProcessInfo.processInfo.environment["OBJECTPROFILE_REPEATS"].flatMap { Int($0) } ?? 3

func report(_ label: String, _ operations: Int, _ unit: String, _ timing: ObjectWorkloads.Timing, _ extra: String = "") {
    print(String(
        format: "%@: %d %@ in %.3f s = %.0f/s (CPU %.3f s = %.0f/CPU s)%@",
        label, operations, unit, timing.wall, timing.rate(operations), timing.cpu, timing.cpuRate(operations), extra))
}

func scratch<R>(_ label: String, _ body: (String) throws -> R) rethrows -> R {
    let directory = Workloads.makeScratchDirectory(label)
    defer { Workloads.removeScratchDirectory(directory) }
    return try body(directory)
}

// MARK: Inserts

func strataInsert(_ durability: Durability, _ label: String) throws {
    try scratch("profile-insert") { directory in
        let db = try ObjectWorkloads.openStrata(directory, durability: durability)
        let timing = try ObjectWorkloads.timed { try ObjectWorkloads.strataInsert(count: count, into: db) }
        precondition(db.objects(StrataItem.self).count == count)
        report("Strata insert .\(label)", count, "objects", timing)
    }
}

func grdbInsert(_ setup: ObjectWorkloads.GRDBSetup) throws {
    try scratch("profile-grdb-insert") { directory in
        let writer = try ObjectWorkloads.openGRDB(directory, setup: setup)
        let timing = try ObjectWorkloads.timed { try ObjectWorkloads.grdbInsert(count: count, into: writer) }
        let stored = try writer.read { try GRDBItem.fetchCount($0) }
        precondition(stored == count)
        report("GRDB insert (\(setup.rawValue))", count, "records", timing)
        try writer.close()
    }
}

// MARK: Migration

/// The migration workload, both sides, on the same `count` items: the median of `repeats`
/// runs of the migration alone (each on a newly loaded database).
func migrate() throws {
    for side in ["Strata", "GRDB"] {
        var timings: [ObjectWorkloads.Timing] = []
        for _ in 0..<max(repeats, 1) {
            try scratch("profile-migrate") { directory in
                if side == "Strata" {
                    do { try ObjectWorkloads.strataInsert(count: count, into: try ObjectWorkloads.openStrata(directory, durability: .full)) }
                    timings.append(try ObjectWorkloads.timed { try ObjectWorkloads.strataMigrate(directory, count: count) })
                } else {
                    let pool = try ObjectWorkloads.openGRDBPool(directory)
                    try ObjectWorkloads.grdbInsert(count: count, into: pool)
                    timings.append(try ObjectWorkloads.timed { try ObjectWorkloads.grdbMigrate(pool, count: count) })
                    try pool.close()
                }
            }
        }
        timings.sort { $0.wall < $1.wall }
        let runs = timings.map { String(format: "%.3f", $0.wall) }.joined(separator: ", ")
        report("\(side) migration (rename + Int → String)", count, "objects", timings[timings.count / 2], " [median of \(timings.count): \(runs) s]")
    }
}

// MARK: Read workloads

/// The median run (by wall-clock time) of each measured read workload, by mode ("<mode>@write"
/// for the runs after a write), for the ratios at the end.
nonisolated(unsafe) var medians: [String: ObjectWorkloads.Timing] = [:]

/// The median run of `body` over `repeats` timed runs (after an untimed one), reported.
func measure(
    _ key: String, _ label: String, _ operations: Int, _ unit: String,
    before: () throws -> Void = {}, _ body: () throws -> Void
) throws {
    if repeats > 0 { try body() }
    var timings: [ObjectWorkloads.Timing] = []
    for _ in 0..<max(repeats, 1) {
        try before()
        timings.append(try ObjectWorkloads.timed(body))
    }
    timings.sort { $0.wall < $1.wall }
    let median = timings[timings.count / 2]
    medians[key] = median
    let runs = timings.map { String(format: "%.4f", $0.wall) }.joined(separator: ", ")
    report(label, operations, unit, median, " [median of \(timings.count): \(runs) s]")
}

let expected = ObjectWorkloads.expected(count: count)
let strataWorkloads = ObjectWorkloads.strataReadWorkloads(count: count)
let grdbWorkloads = ObjectWorkloads.grdbReadWorkloads(count: count)

/// Runs `workloads` of one side, each data set loaded once (into a scratch directory removed
/// afterwards), in the order the data sets first appear; with Strata's items, `extra` after
/// their workloads.
func runReads<Store>(
    _ workloads: [ReadWorkload<Store>], side: String, load: (Dataset, Int, String) throws -> Store,
    touch: (Dataset, Store) throws -> Void = { _, _ in }, extra: (Store) -> Void = { _ in }
) throws {
    for dataset in Dataset.allCases where workloads.contains(where: { $0.dataset == dataset }) {
        try scratch("profile-\(side)") { directory in
            var store: Store?
            let timing = try ObjectWorkloads.timed { store = try load(dataset, count, directory) }
            print(String(format: "(loaded %@ %@ in %.3f s)", side, dataset.rawValue, timing.wall))
            for workload in workloads where workload.dataset == dataset {
                try measure(workload.mode, "\(workload.title): \(workload.variant)", workload.operations, workload.unit) {
                    try workload.run(store!, expected)
                }
            }
            for workload in workloads where workload.dataset == dataset && workload.afterWrite {
                try measure(
                    workload.mode + "@write", "\(workload.title): \(workload.variant), after a write", workload.operations,
                    workload.unit, before: { try touch(dataset, store!) }
                ) { try workload.run(store!, expected) }
            }
            if dataset == .items { extra(store!) }
        }
    }
}

/// Times 10M reads of `name`, then of `age`, of one managed object.
func propertyReads(_ db: Strata.Database) {
    let item = db.object(ofType: StrataItem.self, forPrimaryKey: count / 2)!
    let reads = propertyReads
    let result = ObjectWorkloads.strataPropertyReads(reads, of: item)
    print(String(
        format: "Strata property read: String %.1f ns (CPU %.1f), Int %.1f ns (CPU %.1f) per read, %d reads each",
        result.name.nanoseconds(per: reads), result.name.cpuNanoseconds(per: reads),
        result.age.nanoseconds(per: reads), result.age.cpuNanoseconds(per: reads), reads))
}

func strataReads(_ modes: [String], property: Bool) throws {
    let workloads = strataWorkloads.filter { modes.contains($0.mode) }
    try runReads(
        workloads, side: "Strata", load: ObjectWorkloads.loadStrata, touch: ObjectWorkloads.strataTouch,
        extra: { db in if property { propertyReads(db) } })
    if property && !workloads.contains(where: { $0.dataset == .items }) {
        try scratch("profile-strata") { directory in propertyReads(try ObjectWorkloads.loadStrata(count: count, in: directory)) }
    }
}

func grdbReads(_ modes: [String]) throws {
    try runReads(grdbWorkloads.filter { modes.contains($0.mode) }, side: "GRDB", load: ObjectWorkloads.loadGRDB)
}

// MARK: Ratios

/// Strata's workloads and the GRDB twin each is compared with, with issue 11's target (0: none).
let pairs: [(strata: String, grdb: String, target: Double)] = [
    ("point", "grdb-point", 10), ("point", "grdb-point-cached", 0),
    ("scan", "grdb-scan", 2), ("scan", "grdb-sum", 0), ("scan2", "grdb-scan2", 1.5), ("count", "grdb-count", 1.5),
] + ObjectWorkloads.Aggregate.allCases.map { ("agg-\($0.rawValue)", "grdb-agg-\($0.rawValue)", 1.5) }
    + ObjectWorkloads.IndexedQuery.allCases.map { ("indexed-\($0.rawValue)", "grdb-indexed-\($0.rawValue)", 5) }
    + [("join", "grdb-join", 2), ("sortlimit", "grdb-sortlimit", 1)]

/// Prints Strata/GRDB (GRDB's median time over Strata's; also the same runs' CPU times) for
/// every pair measured, warm and after a write.
func printRatios() {
    var lines: [String] = []
    for pair in pairs {
        guard let grdb = medians[pair.grdb] else { continue }
        for suffix in ["", "@write"] {
            guard let strata = medians[pair.strata + suffix] else { continue }
            let ratio = grdb.wall / strata.wall
            let verdict = pair.target > 0 ? String(format: " (target >= %g: %@)", pair.target, ratio >= pair.target ? "met" : "missed") : ""
            lines.append(String(
                format: "%@%@ / %@: %.3f (CPU time: %.3f)%@", pair.strata, suffix, pair.grdb, ratio, grdb.cpu / strata.cpu, verdict))
        }
    }
    guard !lines.isEmpty else { return }
    print("Strata/GRDB, medians (GRDB's wall-clock time over Strata's, and their CPU times):")
    for line in lines { print("  " + line) }
}

// MARK: Notifications

/// Objects in the delivery-latency database (100,000 unless the command line names a count).
let notifyCount = arguments.count > 2 ? count : ObjectWorkloads.notifyObjectCount
let notifyWrites = ProcessInfo.processInfo.environment["OBJECTPROFILE_NOTIFY_WRITES"].flatMap { Int($0) }
    ?? ObjectWorkloads.notifyWrites

/// The load averages (1, 5 and 15 minutes) now, as `uptime` gives them.
func loadAverage() -> String {
    let text = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "?"
    return "load average " + text.split(separator: " ").prefix(3).joined(separator: " ")
}

/// The `q` quantile (nearest rank) of `sorted`, in milliseconds.
func quantile(_ sorted: [UInt64], _ q: Double) -> Double {
    let rank = max(1, Int((Double(sorted.count) * q).rounded(.up)))
    return Double(sorted[min(rank, sorted.count) - 1]) / 1e6
}

func durabilityName(_ durability: Durability) -> String { durability == .full ? ".full" : ".none" }

/// Commit → delivery latency of each observed target, with each durability, in one database
/// of `notifyCount` items.
func notifyLatency(_ durabilities: [Durability]) throws {
    try scratch("profile-notify") { directory in
        var loaded: Strata.Database?
        let load = try ObjectWorkloads.timed { loaded = try ObjectWorkloads.loadStrata(count: notifyCount, in: directory) }
        print(String(format: "(loaded Strata %d items in %.3f s)", notifyCount, load.wall))
        // The loader stays open: each `Database` below shares its store.
        defer { withExtendedLifetime(loaded) {} }
        for durability in durabilities {
            // Another `Database` of the same files, committing with `durability`.
            let db = try ObjectWorkloads.openStrata(directory, durability: durability)
            for target in ObjectWorkloads.ObservedTarget.allCases {
                let run = try ObjectWorkloads.deliveryLatencies(target, in: db, count: notifyCount, writes: notifyWrites)
                let delivery = run.delivery.sorted(), commit = run.commit.sorted()
                let p99 = quantile(delivery, 0.99)
                print(String(
                    format: "Delivery latency %@, %@, %d objects: p50 %.3f ms, p99 %.3f ms, max %.3f ms "
                        + "(commit alone: p50 %.3f, p99 %.3f ms; CPU per write and delivery %.3f ms) "
                        + "[%d writes after %d untimed; %@] (target p99 <= 5 ms: %@)",
                    durabilityName(durability), target.rawValue, notifyCount,
                    quantile(delivery, 0.5), p99, quantile(delivery, 1), quantile(commit, 0.5), quantile(commit, 0.99),
                    run.timing.cpu * 1e3 / Double(notifyWrites), notifyWrites, ObjectWorkloads.notifyWarmUpWrites,
                    loadAverage(), p99 <= 5 ? "met" : "missed"))
            }
        }
    }
}

/// The insert workload without observers and with 10, alternating, `repeats` runs of each;
/// medians by wall-clock time and their ratio.
func notifyInsert(_ durability: Durability) throws {
    var runs: [Bool: [ObjectWorkloads.ObservedInsertRun]] = [false: [], true: []]
    for round in 0..<max(repeats, 1) {
        for observed in round % 2 == 0 ? [false, true] : [true, false] {
            let run = try scratch("profile-notify-insert") { directory in
                try ObjectWorkloads.observedInsert(count: count, durability: durability, observed: observed, in: directory)
            }
            runs[observed]!.append(run)
            let extra = observed
                ? String(format: ", then %.3f s until delivered; %d Results, %d object, %d list callbacks",
                         run.drain, run.resultsDeliveries, run.objectDeliveries, run.listDeliveries)
                : ""
            report("  run \(round + 1), \(observed ? "10 observers" : "no observer")", count, "objects", run.timing,
                   extra + " [\(loadAverage())]")
        }
    }
    let median = { (observed: Bool) -> ObjectWorkloads.ObservedInsertRun in
        let sorted = runs[observed]!.sorted { $0.timing.wall < $1.timing.wall }
        return sorted[sorted.count / 2]
    }
    let (plain, observed) = (median(false), median(true))
    report("Strata insert \(durabilityName(durability)), no observer", count, "objects", plain.timing,
           " [median of \(runs[false]!.count)]")
    report("Strata insert \(durabilityName(durability)), 10 observers", count, "objects", observed.timing,
           String(format: " [median of %d; then %.3f s until delivered]", runs[true]!.count, observed.drain))
    let ratio = plain.timing.wall / observed.timing.wall
    print(String(
        format: "With 10 observers / without: %.1f %% of the objects/s (CPU time, observer threads included: %.1f %%) "
            + "(target >= 90 %%: %@) [%@]",
        ratio * 100, plain.timing.cpu / observed.timing.cpu * 100, ratio >= 0.9 ? "met" : "missed", loadAverage()))
}

// MARK: Modes

let queryModes = ObjectWorkloads.queryModes
let strataReadModes = strataWorkloads.map(\.mode)
let grdbReadModes = grdbWorkloads.map(\.mode)
/// Modes standing for several read workloads of one side.
let readGroups: [String: [String]] = [
    "agg": ["agg-sum", "agg-min", "agg-max", "agg-avg"],
    "indexed": ["indexed-eq", "indexed-range"],
]

/// Runs the read workloads `modes` (Strata's and GRDB's, "property" included).
func runReads(_ modes: [String]) throws {
    let strata = modes.filter { strataReadModes.contains($0) }
    if !strata.isEmpty || modes.contains("property") { try strataReads(strata, property: modes.contains("property")) }
    let grdb = modes.filter { grdbReadModes.contains($0) }
    if !grdb.isEmpty { try grdbReads(grdb) }
}

func run(_ mode: String) throws {
    switch mode {
    case "insert-full": try strataInsert(.full, "full")
    case "insert-none": try strataInsert(.none, "none")
    case "grdb-insert": try grdbInsert(.walNormal)
    case "grdb-insert-full": try grdbInsert(.walFull)
    case "grdb-insert-rollback": try grdbInsert(.rollbackFull)
    case _ where strataReadModes.contains(mode) || grdbReadModes.contains(mode) || mode == "property":
        try runReads([mode])
    case _ where readGroups[mode] != nil: try runReads(readGroups[mode]!)
    case _ where mode.hasPrefix("grdb-") && readGroups[String(mode.dropFirst(5))] != nil:
        try runReads(readGroups[String(mode.dropFirst(5))]!.map { "grdb-" + $0 })
    case "strata":
        try run("insert-full")
        try run("insert-none")
        try runReads(strataReadModes + ["property"])
    case "grdb":
        try run("grdb-insert")
        try run("grdb-insert-full")
        try run("grdb-insert-rollback")
        try runReads(grdbReadModes)
    case "queries":
        try runReads(["point"] + queryModes + queryModes.map { "grdb-" + $0 })
    case "notify-latency": try notifyLatency([.full, .none])
    case "notify-latency-full": try notifyLatency([.full])
    case "notify-latency-none": try notifyLatency([.none])
    case "notify-insert": try notifyInsert(.full)
    case "notify-insert-none": try notifyInsert(.none)
    case "migrate": try migrate()
    case "size": try sizeComparison(persons: count)
    case "collections":
        let sizes = arguments.count > 2 ? arguments.dropFirst(2).compactMap { Int($0) } : [1_000, 10_000, 100_000]
        try collectionChanges(sizes)
    case "notify":
        try run("notify-latency")
        try run("notify-insert")
    case "all":
        try run("strata")
        try run("grdb")
    default:
        print("""
            usage: ObjectProfile <workload> [objects [property reads]]   (OBJECTPROFILE_REPEATS=n: timed runs)
              Strata: insert-full insert-none point scan scan2 count agg(-sum -min -max -avg) indexed(-eq -range)
                      join sortlimit property | strata
              GRDB:   grdb-insert grdb-insert-full grdb-insert-rollback grdb-point grdb-point-cached grdb-scan grdb-sum
                      grdb-scan2 grdb-count grdb-agg(-sum …) grdb-indexed(-eq -range) grdb-join grdb-sortlimit | grdb
              notify: notify-latency(-full -none) (100,000 objects unless named) notify-insert(-none) | notify
              migrate: a schema migration of every object (rename + Int → String), Strata and GRDB
              size: bytes on disk of the same persons (and a dog per 4) in Strata and SQLite (Size.swift)
              collections [n …]: one List append, Map set/get, MutableSet insert as collections grow (Collections.swift)
              load PATH COUNT, cold-strata PATH QUERY [COUNT], cold-grdb PATH QUERY [COUNT]: one query in a fresh
                      process on databases written by load (Cold.swift)
              queries (issue 11's query workloads, both sides, and Strata's point read), all
            """)
        exit(2)
    }
}

try run(mode)
printRatios()
