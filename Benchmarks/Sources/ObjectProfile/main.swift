// A standalone driver of the object workloads, for profilers (perf, valgrind) and for
// measurements outside the benchmark harness (which preloads malloc and runtime interposers).
//
//   ObjectProfile <workload> [objects [property reads]]
//                 (default 1,000,000 objects; 10,000,000 reads of each property in `property`)
//
// Workloads: insert-full, insert-none, point, scan, count, property (Strata);
// grdb-insert, grdb-insert-full, grdb-insert-rollback, grdb-point, grdb-point-cached, grdb-scan,
// grdb-sum, grdb-count (GRDB); strata (every Strata workload), grdb (every GRDB one), all.
//
// Prints one line per workload with its rate, wall and CPU time. Only the named workload is
// timed; loading a database for the read workloads happens first and is reported separately.
// For a profile of one workload, run it under perf/valgrind and look at the workload's function
// (e.g. `ObjectWorkloads.strataPointReads`), which leaves the load out.

import Foundation
import GRDB
import StorageWorkloads
import ObjectWorkloads
import Strata
import StrataStorage

let arguments = CommandLine.arguments
let mode = arguments.count > 1 ? arguments[1] : "usage"
let count = arguments.count > 2 ? Int(arguments[2])! : ObjectWorkloads.objectCount
/// Reads of each property in `property` (fewer for a slow profiler such as callgrind).
let propertyReads = arguments.count > 3 ? Int(arguments[3])! : ObjectWorkloads.propertyReads

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
        let queue = try ObjectWorkloads.openGRDB(directory, setup: setup)
        let timing = try ObjectWorkloads.timed { try ObjectWorkloads.grdbInsert(count: count, into: queue) }
        let stored = try queue.read { try GRDBItem.fetchCount($0) }
        precondition(stored == count)
        report("GRDB insert (\(setup.rawValue))", count, "records", timing)
    }
}

func withStrata(_ body: (Strata.Database) throws -> Void) throws {
    try scratch("profile-strata") { directory in
        var db: Strata.Database?
        let timing = try ObjectWorkloads.timed { db = try ObjectWorkloads.loadStrata(count: count, in: directory) }
        print(String(format: "(loaded %d Strata objects in %.3f s)", count, timing.wall))
        try body(db!)
    }
}

func withGRDB(_ body: (DatabasePool) throws -> Void) throws {
    try scratch("profile-grdb") { directory in
        var queue: DatabasePool?
        let timing = try ObjectWorkloads.timed { queue = try ObjectWorkloads.loadGRDB(count: count, in: directory) }
        print(String(format: "(loaded %d GRDB records in %.3f s)", count, timing.wall))
        try body(queue!)
    }
}

func strataReads(_ workloads: [String]) throws {
    let expected = ObjectWorkloads.expected(count: count)
    try withStrata { db in
        for workload in workloads {
            switch workload {
            case "point":
                var sum = 0
                let timing = ObjectWorkloads.timed { sum = ObjectWorkloads.strataPointReads(count, keyCount: count, in: db) }
                report("Strata point read", count, "reads", timing, " checksum \(sum)")
            case "scan":
                var sum = 0
                let timing = ObjectWorkloads.timed { sum = ObjectWorkloads.strataScan(db) }
                precondition(sum == expected.ageSum)
                report("Strata scan (sum of age)", count, "objects", timing)
            case "count":
                var older = 0
                let timing = ObjectWorkloads.timed { older = ObjectWorkloads.strataCount(db) }
                precondition(older == expected.olderCount)
                report("Strata where { age > 50 }.count", count, "objects", timing, " (\(older) match)")
            case "property":
                let item = db.object(ofType: StrataItem.self, forPrimaryKey: count / 2)!
                let reads = propertyReads
                let result = ObjectWorkloads.strataPropertyReads(reads, of: item)
                print(String(
                    format: "Strata property read: String %.1f ns (CPU %.1f), Int %.1f ns (CPU %.1f) per read, %d reads each",
                    result.name.nanoseconds(per: reads), result.name.cpuNanoseconds(per: reads),
                    result.age.nanoseconds(per: reads), result.age.cpuNanoseconds(per: reads), reads))
            default: fatalError()
            }
        }
    }
}

func grdbReads(_ workloads: [String]) throws {
    let expected = ObjectWorkloads.expected(count: count)
    try withGRDB { queue in
        for workload in workloads {
            switch workload {
            case "grdb-point":
                var sum = 0
                let timing = try ObjectWorkloads.timed { sum = try ObjectWorkloads.grdbPointReads(count, keyCount: count, in: queue) }
                report("GRDB point read", count, "reads", timing, " checksum \(sum)")
            case "grdb-point-cached":
                var sum = 0
                let timing = try ObjectWorkloads.timed { sum = try ObjectWorkloads.grdbPointReadsCached(count, keyCount: count, in: queue) }
                report("GRDB point read, cached statement", count, "reads", timing, " checksum \(sum)")
            case "grdb-scan":
                var sum = 0
                let timing = try ObjectWorkloads.timed { sum = try ObjectWorkloads.grdbCursorScan(queue) }
                precondition(sum == expected.ageSum)
                report("GRDB scan (record cursor)", count, "records", timing)
            case "grdb-sum":
                var sum = 0
                let timing = try ObjectWorkloads.timed { sum = try ObjectWorkloads.grdbSQLSum(queue) }
                precondition(sum == expected.ageSum)
                report("GRDB SELECT SUM(age)", count, "records", timing)
            case "grdb-count":
                var older = 0
                let timing = try ObjectWorkloads.timed { older = try ObjectWorkloads.grdbCount(queue) }
                precondition(older == expected.olderCount)
                report("GRDB filter(age > 50).fetchCount", count, "records", timing, " (\(older) match)")
            default: fatalError()
            }
        }
    }
}

let strataReadModes = ["point", "scan", "count", "property"]
let grdbReadModes = ["grdb-point", "grdb-point-cached", "grdb-scan", "grdb-sum", "grdb-count"]

func run(_ mode: String) throws {
    switch mode {
    case "insert-full": try strataInsert(.full, "full")
    case "insert-none": try strataInsert(.none, "none")
    case "grdb-insert": try grdbInsert(.walNormal)
    case "grdb-insert-full": try grdbInsert(.walFull)
    case "grdb-insert-rollback": try grdbInsert(.rollbackFull)
    case _ where strataReadModes.contains(mode): try strataReads([mode])
    case _ where grdbReadModes.contains(mode): try grdbReads([mode])
    case "strata":
        try run("insert-full")
        try run("insert-none")
        try strataReads(strataReadModes)
    case "grdb":
        try run("grdb-insert")
        try run("grdb-insert-full")
        try run("grdb-insert-rollback")
        try grdbReads(grdbReadModes)
    case "all":
        try run("strata")
        try run("grdb")
    default:
        print("""
            usage: ObjectProfile <workload> [objects [property reads]]
              Strata: insert-full insert-none point scan count property | strata
              GRDB:   grdb-insert grdb-insert-full grdb-insert-rollback grdb-point grdb-point-cached grdb-scan grdb-sum grdb-count | grdb
              all
            """)
        exit(2)
    }
}

try run(mode)
