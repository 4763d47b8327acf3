// Benchmarks of the storage engine (StrataStorage) against the targets in docs/benchmarks.md.
//
// One iteration of a put or get benchmark does 1M operations, so iteration counts are small and
// fixed. The harness's own throughput metric counts iterations per second (0 here), so each
// benchmark reports its rate as custom metrics, from the same measured region:
// - "… per second": operations per second of wall-clock time, the figure the targets name;
// - "… per CPU second": operations per second of this process's CPU time, which a loaded
//   machine disturbs far less (for `.full` it leaves out the time spent waiting for fsync).
// The "Time (wall clock) *" rows are per operation (scalingFactor .mega), or per open (.one).
// Stores live in scratch directories under /tmp, removed afterwards.

import Benchmark
import Foundation
import StorageWorkloads
import StrataStorage

/// Mutable state a benchmark's setup hands to its body.
private final class Fixture: @unchecked Sendable {
    var directory: String?
    var emptyDirectory: String?
    var store: Store?
    var snapshot: Snapshot?

    func removeAll() {
        try? store?.close()
        snapshot = nil
        store = nil
        for path in [directory, emptyDirectory].compactMap({ $0 }) { Workloads.removeScratchDirectory(path) }
        directory = nil
        emptyDirectory = nil
    }
}

private func rate(_ name: String) -> BenchmarkMetric {
    .custom(name, polarity: .prefersLarger, useScalingFactor: false)
}

private func cost(_ name: String) -> BenchmarkMetric {
    .custom(name, polarity: .prefersSmaller, useScalingFactor: false)
}

let benchmarks: @Sendable () -> Void = {
    let count = Workloads.recordCount

    // 1, 2. Put throughput: 1M records in batches of 1,000, per durability.
    for (label, durability, iterations) in [("none", Durability.none, 5), ("full", Durability.full, 3)] {
        let perSecond = rate("Puts per second")
        let perCPUSecond = rate("Puts per CPU second")
        Benchmark(
            "Put 1M x 100 B, batches of 1000, durability .\(label)",
            configuration: .init(
                metrics: [perSecond, perCPUSecond, .wallClock],
                units: [perSecond: .count, perCPUSecond: .count],
                warmupIterations: 1,
                scalingFactor: .mega,
                maxDuration: .seconds(120),
                maxIterations: iterations)
        ) { benchmark in
            let directory = Workloads.makeScratchDirectory("put-\(label)")
            defer { Workloads.removeScratchDirectory(directory) }
            let store = try Store(directory: directory, options: Workloads.options(durability: durability))
            benchmark.startMeasurement()
            let timing = try Workloads.timed { try Workloads.put(count: count, into: store, durability: durability) }
            benchmark.stopMeasurement()
            try store.close()
            benchmark.measurement(perSecond, Int(timing.rate(count)))
            benchmark.measurement(perCPUSecond, Int(timing.cpuRate(count)))
        }
    }

    // 3. Random gets from a snapshot of a preloaded 1M-record store.
    let gets = Fixture()
    let getsPerSecond = rate("Gets per second")
    let getsPerCPUSecond = rate("Gets per CPU second")
    Benchmark(
        "Random get 1M from a snapshot of 1M records",
        configuration: .init(
            metrics: [getsPerSecond, getsPerCPUSecond, .wallClock],
            units: [getsPerSecond: .count, getsPerCPUSecond: .count],
            warmupIterations: 1,
            scalingFactor: .mega,
            maxDuration: .seconds(60),
            maxIterations: 10,
            setup: {
                let directory = Workloads.makeScratchDirectory("get")
                gets.directory = directory
                let store = try Store(directory: directory, options: Workloads.options(durability: .none))
                try Workloads.put(count: count, into: store, durability: .none)
                gets.store = store
                gets.snapshot = store.snapshot()
            },
            teardown: { gets.removeAll() })
    ) { benchmark in
        let snapshot = gets.snapshot!
        var sum: UInt64 = 0
        benchmark.startMeasurement()
        let timing = try Workloads.timed { sum = try Workloads.randomGets(count, keyCount: count, from: snapshot) }
        benchmark.stopMeasurement()
        blackHole(sum)
        benchmark.measurement(getsPerSecond, Int(timing.rate(count)))
        benchmark.measurement(getsPerCPUSecond, Int(timing.cpuRate(count)))
    }

    // 4. Reopen: open a closed store of 1M records (recovery rebuilds the index).
    let reopen = Fixture()
    let openMilliseconds = cost("Open time (ms)")
    let openCPUMilliseconds = cost("Open CPU time (ms)")
    Benchmark(
        "Reopen a store of 1M records",
        configuration: .init(
            metrics: [openMilliseconds, openCPUMilliseconds, .wallClock],
            units: [openMilliseconds: .count, openCPUMilliseconds: .count],
            warmupIterations: 1,
            scalingFactor: .one,
            maxDuration: .seconds(60),
            maxIterations: 10,
            setup: {
                let directory = Workloads.makeScratchDirectory("reopen")
                reopen.directory = directory
                try Workloads.createStore(count: count, in: directory)
            },
            teardown: { reopen.removeAll() })
    ) { benchmark in
        var store: Store?
        benchmark.startMeasurement()
        let timing = try Workloads.timed {
            store = try Store(directory: reopen.directory!, options: Workloads.options(durability: .none))
        }
        benchmark.stopMeasurement()
        precondition(store!.statistics().keys == count)
        try store!.close()
        store = nil
        benchmark.measurement(openMilliseconds, Int((timing.wall * 1000).rounded()))
        benchmark.measurement(openCPUMilliseconds, Int((timing.cpu * 1000).rounded()))
    }

    // 5. Index memory per key: memory kept by opening a 1M-record store minus an empty one.
    let memory = Fixture()
    let heapPerKey = cost("Index heap bytes per key (malloc)")
    let anonymousPerKey = cost("Index anonymous RSS bytes per key")
    let residentPerKey = cost("RSS growth per key incl. mapped segments")
    Benchmark(
        "Index memory of 1M keys",
        configuration: .init(
            metrics: [heapPerKey, anonymousPerKey, residentPerKey],
            units: [heapPerKey: .count, anonymousPerKey: .count, residentPerKey: .count],
            warmupIterations: 0,
            scalingFactor: .one,
            maxDuration: .seconds(60),
            maxIterations: 1,
            setup: {
                memory.directory = Workloads.makeScratchDirectory("memory")
                memory.emptyDirectory = Workloads.makeScratchDirectory("memory-empty")
                try Workloads.createStore(count: count, in: memory.directory!)
                try Workloads.createStore(count: 0, in: memory.emptyDirectory!)
            },
            teardown: { memory.removeAll() })
    ) { benchmark in
        let result = try Workloads.measureIndexMemory(
            emptyDirectory: memory.emptyDirectory!, fullDirectory: memory.directory!, keys: count)
        benchmark.measurement(heapPerKey, Int(result.mallocBytesPerKey.rounded()))
        benchmark.measurement(anonymousPerKey, Int(result.residentAnonymousBytesPerKey.rounded()))
        benchmark.measurement(residentPerKey, Int(result.residentBytesPerKey.rounded()))
    }
}
