// The background compactor's figures (issue 14): its throughput on a store half dead, p99
// point-read latency while it runs against idle, and insert throughput with it on against off.
//
//   StorageProfile background [megabytes]   (default 1024: the store's size before compaction)
//
// The store: k keys with 1 KiB values, each written twice (so half of it is dead), with 64 MiB
// segments and `.none` durability, closed; reopened with an eager automatic policy and
// `scheduleBackgroundCompaction()`.

import Foundation
import StorageWorkloads
@_spi(Testing) import StrataStorage  // waitForBackgroundCompaction

let backgroundValueSize = 1024

func backgroundOptions(_ policy: CompactionPolicy) -> Store.Options {
    var options = Workloads.options(durability: .none)
    options.compaction = policy
    options.compressionThreshold = Int.max
    return options
}

/// Writes keys 0..<keys, `passes` times, with 1 KiB values, in batches of 1,000.
func writeKiBValues(keys: Int, passes: Int, into store: Store) throws {
    var value = [UInt8](repeating: 0x5A, count: backgroundValueSize)
    var batch = WriteBatch()
    for pass in 0..<passes {
        var key = 0
        while key < keys {
            batch.removeAll()
            let end = min(key + 1000, keys)
            while key < end {
                value[0] = UInt8(truncatingIfNeeded: pass)
                withUnsafeBytes(of: UInt64(key).littleEndian) { for i in 0..<8 { value[1 + i] = $0[i] } }
                batch.put(value, forKey: StorageKey(UInt64(key)), in: Workloads.keyspace)
                key += 1
            }
            try store.commit(batch, durability: .none)
        }
    }
}

/// Times `reads` point reads (a snapshot each, as a reader that wants the latest commit), one
/// by one, until `until()` is true or `reads` are done; returns the latencies in ns.
func timedPointReads(_ store: Store, keys: Int, reads: Int, until: () -> Bool = { false }) throws -> [Double] {
    var random = SystemRandomNumberGenerator()
    var latencies: [Double] = []
    latencies.reserveCapacity(reads)
    let clock = ContinuousClock()
    while latencies.count < reads, !until() {
        let key = StorageKey(UInt64.random(in: 0..<UInt64(keys), using: &random))
        let start = clock.now
        let found = try store.snapshot().withValue(for: key, in: Workloads.keyspace) { $0.count }
        let elapsed = clock.now - start
        guard found == backgroundValueSize else { fatalError("key \(key) missing") }
        latencies.append(Double(elapsed.components.attoseconds) / 1e9 + Double(elapsed.components.seconds) * 1e9)
    }
    return latencies
}

func percentile(_ values: [Double], _ p: Double) -> Double {
    let sorted = values.sorted()
    return sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
}

/// Puts `count` fresh 1 KiB records (keys from `first`) and returns puts per second.
func insertRate(_ store: Store, first: Int, count: Int) throws -> Double {
    var value = [UInt8](repeating: 0x33, count: backgroundValueSize)
    var batch = WriteBatch()
    var key = first
    let timing = try Workloads.timed {
        while key < first + count {
            batch.removeAll()
            for _ in 0..<1000 {
                withUnsafeBytes(of: UInt64(key).littleEndian) { for i in 0..<8 { value[i] = $0[i] } }
                batch.put(value, forKey: StorageKey(UInt64(key)), in: Workloads.keyspace)
                key += 1
            }
            try store.commit(batch, durability: .none)
        }
    }
    return timing.rate(count)
}

func runBackground(megabytes: Int) throws {
    let keys = megabytes * 1024 / 2 * 1024 / (backgroundValueSize + 40)
    let eager = CompactionPolicy.automatic(minimumDeadRatio: 0.4, minimumBytes: 0)
    let directory = Workloads.makeScratchDirectory("profile-background")
    defer { Workloads.removeScratchDirectory(directory) }
    func prepare() throws {
        try? FileManager.default.removeItem(atPath: directory)
        let store = try Store(directory: directory, options: backgroundOptions(.manual))
        try writeKiBValues(keys: keys, passes: 2, into: store)
        try store.close()
    }
    try prepare()
    let bytes = try Store(directory: directory, options: backgroundOptions(.manual)).statistics().totalBytes
    print("background: store of \(keys) keys x 2 writes = \(bytes >> 20) MiB, half dead")

    // Idle read latency, then latency while the compactor runs (it starts at open).
    let idleStore = try Store(directory: directory, options: backgroundOptions(.manual))
    _ = try timedPointReads(idleStore, keys: keys, reads: 100_000)  // warm
    let idle = try timedPointReads(idleStore, keys: keys, reads: 200_000)
    try idleStore.close()

    let store = try Store(directory: directory, options: backgroundOptions(eager))
    store.scheduleBackgroundCompaction()
    let during = try timedPointReads(store, keys: keys, reads: 10_000_000) { store.backgroundCompaction.completedRuns > 0 }
    store.waitForBackgroundCompaction()
    let status = store.backgroundCompaction
    guard let report = status.lastReport else { fatalError("no background compaction: \(String(describing: status.lastFailure))") }
    let seconds = Double(report.duration.components.seconds) + Double(report.duration.components.attoseconds) / 1e18
    print(String(format: "background compaction: %d MiB compacted (%d MiB written) in %.2f s = %.0f MB/s in, %.0f MB/s out",
                 report.bytesCompacted >> 20, report.bytesWritten >> 20, seconds,
                 Double(report.bytesCompacted) / 1e6 / seconds, Double(report.bytesWritten) / 1e6 / seconds))
    print(String(format: "point reads: p50 idle %.0f ns, during %.0f ns; p99 idle %.0f ns, during %.0f ns (%.2fx; %d reads during)",
                 percentile(idle, 0.5), percentile(during, 0.5), percentile(idle, 0.99), percentile(during, 0.99),
                 percentile(during, 0.99) / percentile(idle, 0.99), during.count))
    try store.close()

    // Inserts while a compaction of the same store runs, against the same inserts with it off.
    let inserts = max(50_000, keys / 4)
    try prepare()
    let off = try Store(directory: directory, options: backgroundOptions(.manual))
    let offRate = try insertRate(off, first: keys, count: inserts)
    try off.close()
    try prepare()
    let on = try Store(directory: directory, options: backgroundOptions(eager))
    on.scheduleBackgroundCompaction()
    let onRate = try insertRate(on, first: keys, count: inserts)
    let ranDuring = on.backgroundCompaction.isRunning || on.backgroundCompaction.completedRuns > 0
    on.waitForBackgroundCompaction()
    try on.close()
    print(String(format: "inserts (%d x 1 KiB, .none): compactor off %.0f/s, active %.0f/s = %.0f%% (compaction ran: %@)",
                 inserts, offRate, onRate, onRate / offRate * 100, ranDuring ? "yes" : "no"))
}
