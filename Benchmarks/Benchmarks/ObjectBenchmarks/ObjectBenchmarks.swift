// Benchmarks of Strata's object layer against GRDB (SQLite), the targets of docs/benchmarks.md
// section "Object layer vs GRDB".
//
// The data set is 1M objects {_id: Int primary key, name: 16-character String, age: Int in
// 0..<100, score: Double} (Sources/ObjectWorkloads). Every benchmark runs in its own process
// (the harness's rule), so the read benchmarks each load their own database in `setup`, outside
// the measurement. One iteration does the whole workload (1M objects, or 10M property reads), so
// iteration counts are small and fixed. As in the storage benchmarks, rates are custom metrics
// from the same measured region:
// - "… per second": per second of wall-clock time, the figure the targets name;
// - "… per CPU second": per second of this process's CPU time, which a loaded machine disturbs
//   far less (for durable inserts it leaves out the time spent waiting for fsync).
// Benchmark names are "<workload>: <Strata | GRDB variant>"; run.sh pairs them up for ratios.

import Benchmark
import Foundation
import GRDB
import ObjectWorkloads
import StorageWorkloads
import Strata
import StrataStorage

/// State a benchmark's setup hands to its body.
private final class Fixture: @unchecked Sendable {
    var directory: String?
    var strata: Strata.Database?
    var grdb: DatabasePool?
    var expected = ObjectWorkloads.Expected()

    func loadStrata(_ dataset: Dataset = .items) throws {
        let directory = Workloads.makeScratchDirectory("objects-strata")
        self.directory = directory
        strata = try ObjectWorkloads.loadStrata(dataset, in: directory)
        expected = ObjectWorkloads.expected()
    }

    func loadGRDB(_ dataset: Dataset = .items) throws {
        let directory = Workloads.makeScratchDirectory("objects-grdb")
        self.directory = directory
        grdb = try ObjectWorkloads.loadGRDB(dataset, in: directory)
        expected = ObjectWorkloads.expected()
    }

    func removeAll() {
        strata = nil
        try? grdb?.close()
        grdb = nil
        if let directory { Workloads.removeScratchDirectory(directory) }
        directory = nil
    }
}

private func rate(_ name: String) -> BenchmarkMetric {
    .custom(name, polarity: .prefersLarger, useScalingFactor: false)
}

private func cost(_ name: String) -> BenchmarkMetric {
    .custom(name, polarity: .prefersSmaller, useScalingFactor: false)
}

/// A rate per second of wall-clock time and per second of CPU time.
private typealias Rates = (wall: BenchmarkMetric, cpu: BenchmarkMetric)

private let objectRates: Rates = (rate("Objects per second"), rate("Objects per CPU second"))
/// For the query workloads, whose operations are objects or queries (ReadWorkload.unit).
private let operationRates: Rates = (rate("Operations per second"), rate("Operations per CPU second"))

/// A configuration for a workload of 1M objects per iteration, reporting its rates.
private func objectsConfiguration(
    iterations: Int, warmup: Int = 0, rates: Rates = objectRates,
    setup: Benchmark.BenchmarkSetupHook? = nil, teardown: Benchmark.BenchmarkTeardownHook? = nil
) -> Benchmark.Configuration {
    .init(
        metrics: [rates.wall, rates.cpu, .wallClock],
        units: [rates.wall: .count, rates.cpu: .count],
        warmupIterations: warmup,
        scalingFactor: .mega,
        maxDuration: .seconds(600),
        maxIterations: iterations,
        setup: setup,
        teardown: teardown)
}

/// Measures `body` (which does `count` objects' work) and records its rates.
private func measure(
    _ benchmark: Benchmark, count: Int = ObjectWorkloads.objectCount, rates: Rates = objectRates, _ body: () throws -> Void
) rethrows {
    benchmark.startMeasurement()
    let timing = try ObjectWorkloads.timed(body)
    benchmark.stopMeasurement()
    benchmark.measurement(rates.wall, Int(timing.rate(count)))
    benchmark.measurement(rates.cpu, Int(timing.cpuRate(count)))
}

/// One benchmark per workload of `workloads` named in `modes`: "<title>: <variant>", loading its
/// data set in `setup` (`load`) and running it on the store `store` gives.
private func queryBenchmarks<Store>(
    _ workloads: [ReadWorkload<Store>], _ modes: [String],
    load: @escaping @Sendable (Fixture, Dataset) throws -> Void, store: @escaping @Sendable (Fixture) -> Store
) {
    for workload in workloads where modes.contains(workload.mode) {
        let fixture = Fixture()
        Benchmark(
            "\(workload.title): \(workload.variant)",
            configuration: objectsConfiguration(
                iterations: 5, warmup: 1, rates: operationRates,
                setup: { try load(fixture, workload.dataset) }, teardown: { fixture.removeAll() })
        ) { benchmark in
            try measure(benchmark, count: workload.operations, rates: operationRates) {
                try workload.run(store(fixture), fixture.expected)
            }
        }
    }
}

let benchmarks: @Sendable () -> Void = {
    let count = ObjectWorkloads.objectCount

    // 1. Insert: 1M objects, 10,000 per write transaction, into an empty database.
    for (label, durability) in [("full", Durability.full), ("none", Durability.none)] {
        Benchmark(
            "Insert 1M objects, 10000 per write: Strata .\(label)",
            configuration: objectsConfiguration(iterations: 3)
        ) { benchmark in
            let directory = Workloads.makeScratchDirectory("objects-insert")
            defer { Workloads.removeScratchDirectory(directory) }
            let db = try ObjectWorkloads.openStrata(directory, durability: durability)
            try measure(benchmark) { try ObjectWorkloads.strataInsert(into: db) }
            precondition(db.objects(StrataItem.self).count == count)
        }
    }
    for setup in [ObjectWorkloads.GRDBSetup.walNormal, .walFull] {
        Benchmark(
            "Insert 1M objects, 10000 per write: GRDB \(setup.rawValue)",
            configuration: objectsConfiguration(iterations: 3)
        ) { benchmark in
            let directory = Workloads.makeScratchDirectory("objects-grdb-insert")
            defer { Workloads.removeScratchDirectory(directory) }
            let writer = try ObjectWorkloads.openGRDB(directory, setup: setup)
            try measure(benchmark) { try ObjectWorkloads.grdbInsert(into: writer) }
            let stored = try writer.read { try GRDBItem.fetchCount($0) }
            precondition(stored == count)
            try writer.close()
        }
    }

    // 2. Point read: 1M lookups by primary key at the same random ids, reading name and age.
    let strataPoint = Fixture()
    Benchmark(
        "Point read 1M random by primary key: Strata",
        configuration: objectsConfiguration(
            iterations: 3, warmup: 1, setup: { try strataPoint.loadStrata() }, teardown: { strataPoint.removeAll() })
    ) { benchmark in
        let db = strataPoint.strata!
        var sum = 0
        measure(benchmark) { sum = ObjectWorkloads.strataPointReads(count, keyCount: count, in: db) }
        blackHole(sum)
    }
    let grdbPoint = Fixture()
    Benchmark(
        "Point read 1M random by primary key: GRDB fetchOne(key:)",
        configuration: objectsConfiguration(
            iterations: 3, setup: { try grdbPoint.loadGRDB() }, teardown: { grdbPoint.removeAll() })
    ) { benchmark in
        let pool = grdbPoint.grdb!
        var sum = 0
        try measure(benchmark) { sum = try ObjectWorkloads.grdbPointReads(count, keyCount: count, in: pool) }
        blackHole(sum)
    }
    let grdbPointCached = Fixture()
    Benchmark(
        "Point read 1M random by primary key: GRDB cached statement",
        configuration: objectsConfiguration(
            iterations: 3, warmup: 1, setup: { try grdbPointCached.loadGRDB() }, teardown: { grdbPointCached.removeAll() })
    ) { benchmark in
        let pool = grdbPointCached.grdb!
        var sum = 0
        try measure(benchmark) { sum = try ObjectWorkloads.grdbPointReadsCached(count, keyCount: count, in: pool) }
        blackHole(sum)
    }

    // 3. Scan: the sum of age over all 1M objects.
    let strataScan = Fixture()
    Benchmark(
        "Scan 1M summing age: Strata",
        configuration: objectsConfiguration(
            iterations: 3, warmup: 1, setup: { try strataScan.loadStrata() }, teardown: { strataScan.removeAll() })
    ) { benchmark in
        let db = strataScan.strata!
        var sum = 0
        measure(benchmark) { sum = ObjectWorkloads.strataScan(db) }
        precondition(sum == strataScan.expected.ageSum)
    }
    let grdbScan = Fixture()
    Benchmark(
        "Scan 1M summing age: GRDB record cursor",
        configuration: objectsConfiguration(
            iterations: 5, warmup: 1, setup: { try grdbScan.loadGRDB() }, teardown: { grdbScan.removeAll() })
    ) { benchmark in
        let pool = grdbScan.grdb!
        var sum = 0
        try measure(benchmark) { sum = try ObjectWorkloads.grdbCursorScan(pool) }
        precondition(sum == grdbScan.expected.ageSum)
    }
    let grdbSum = Fixture()
    Benchmark(
        "Scan 1M summing age: GRDB SELECT SUM(age)",
        configuration: objectsConfiguration(
            iterations: 10, warmup: 1, setup: { try grdbSum.loadGRDB() }, teardown: { grdbSum.removeAll() })
    ) { benchmark in
        let pool = grdbSum.grdb!
        var sum = 0
        try measure(benchmark) { sum = try ObjectWorkloads.grdbSQLSum(pool) }
        precondition(sum == grdbSum.expected.ageSum)
    }

    // 4. Count of age > 50 (age not indexed on either side).
    let strataCount = Fixture()
    Benchmark(
        "Count age > 50 of 1M: Strata where",
        configuration: objectsConfiguration(
            iterations: 5, warmup: 1, setup: { try strataCount.loadStrata() }, teardown: { strataCount.removeAll() })
    ) { benchmark in
        let db = strataCount.strata!
        var older = 0
        measure(benchmark) { older = ObjectWorkloads.strataCount(db) }
        precondition(older == strataCount.expected.olderCount)
    }
    let grdbCount = Fixture()
    Benchmark(
        "Count age > 50 of 1M: GRDB fetchCount",
        configuration: objectsConfiguration(
            iterations: 10, warmup: 1, setup: { try grdbCount.loadGRDB() }, teardown: { grdbCount.removeAll() })
    ) { benchmark in
        let pool = grdbCount.grdb!
        var older = 0
        try measure(benchmark) { older = try ObjectWorkloads.grdbCount(pool) }
        precondition(older == grdbCount.expected.olderCount)
    }

    // 5. Property reads on one managed object: 10M reads of name (String), then 10M of age (Int).
    let property = Fixture()
    let stringNanoseconds = cost("ns per String read")
    let intNanoseconds = cost("ns per Int read")
    let stringCPUNanoseconds = cost("CPU ns per String read")
    let intCPUNanoseconds = cost("CPU ns per Int read")
    Benchmark(
        "Property read 10M on a managed object: Strata",
        configuration: .init(
            metrics: [stringNanoseconds, intNanoseconds, stringCPUNanoseconds, intCPUNanoseconds, .wallClock],
            units: [stringNanoseconds: .count, intNanoseconds: .count, stringCPUNanoseconds: .count, intCPUNanoseconds: .count],
            warmupIterations: 1,
            scalingFactor: .one,
            maxDuration: .seconds(600),
            maxIterations: 5,
            setup: { try property.loadStrata() },
            teardown: { property.removeAll() })
    ) { benchmark in
        let item = property.strata!.object(ofType: StrataItem.self, forPrimaryKey: count / 2)!
        let reads = ObjectWorkloads.propertyReads
        benchmark.startMeasurement()
        let result = ObjectWorkloads.strataPropertyReads(reads, of: item)
        benchmark.stopMeasurement()
        blackHole(result.checksum)
        benchmark.measurement(stringNanoseconds, Int(result.name.nanoseconds(per: reads).rounded()))
        benchmark.measurement(intNanoseconds, Int(result.age.nanoseconds(per: reads).rounded()))
        benchmark.measurement(stringCPUNanoseconds, Int(result.name.cpuNanoseconds(per: reads).rounded()))
        benchmark.measurement(intCPUNanoseconds, Int(result.age.cpuNanoseconds(per: reads).rounded()))
    }

    // 6. Issue 11's queries (ObjectWorkloads' ReadWorkloads.swift; the count is 4. above), each
    // iteration a new query on an unchanged database: "warm" (ObjectProfile also measures
    // Strata's right after a write). Rates count the workload's unit: objects, or queries for
    // the indexed ones.
    let queryModes = ObjectWorkloads.queryModes.filter { $0 != "count" }
    queryBenchmarks(
        ObjectWorkloads.strataReadWorkloads(), queryModes,
        load: { try $0.loadStrata($1) }, store: { $0.strata! })
    queryBenchmarks(
        ObjectWorkloads.grdbReadWorkloads(), queryModes.map { "grdb-" + $0 },
        load: { try $0.loadGRDB($1) }, store: { $0.grdb! })
}
