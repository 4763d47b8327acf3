// The storage workloads, shared by the benchmark target (Benchmarks/StorageBenchmarks) and the
// standalone profiling driver (Sources/StorageProfile), so both measure exactly the same work.
//
// Every workload runs in a scratch directory under /tmp that the caller removes afterwards.

import CMallocStats
import Foundation
@_spi(Testing) import StrataStorage

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

public enum Workloads {
    /// Records in every workload of the storage benchmarks.
    public static let recordCount = 1_000_000
    /// Puts per batch.
    public static let batchSize = 1_000
    /// Bytes per value.
    public static let valueSize = 100
    /// The one keyspace the workloads write.
    public static let keyspace = Keyspace(1)

    // MARK: Scratch directories

    /// A fresh, empty directory under /tmp.
    public static func makeScratchDirectory(_ label: String) -> String {
        let path = "/tmp/strata-bench-\(label)-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
        try? FileManager.default.removeItem(atPath: path)
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// Removes a directory made by ``makeScratchDirectory(_:)``.
    public static func removeScratchDirectory(_ path: String) {
        precondition(path.hasPrefix("/tmp/strata-bench-"))
        try? FileManager.default.removeItem(atPath: path)
    }

    /// Options for a store in `directory` with the given default durability.
    public static func options(durability: Durability) -> Store.Options {
        var options = Store.Options()
        options.durability = durability
        return options
    }

    // MARK: Timing

    /// Wall-clock and CPU time (this process, all threads) of one run of a workload, in seconds.
    public struct Timing: Sendable {
        public var wall: Double
        public var cpu: Double
        /// Operations per second of wall-clock time.
        public func rate(_ operations: Int) -> Double { Double(operations) / wall }
        /// Operations per second of CPU time: what one idle core would do, waits for the disk
        /// (fsync) excluded.
        public func cpuRate(_ operations: Int) -> Double { Double(operations) / cpu }
        /// Wall-clock nanoseconds per operation.
        public func nanoseconds(per operations: Int) -> Double { wall * 1e9 / Double(operations) }
        /// CPU nanoseconds per operation.
        public func cpuNanoseconds(per operations: Int) -> Double { cpu * 1e9 / Double(operations) }
    }

    static func cpuSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    static func wallSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// Runs `body` and returns how long it took.
    public static func timed(_ body: () throws -> Void) rethrows -> Timing {
        let wall0 = wallSeconds(), cpu0 = cpuSeconds()
        try body()
        let cpu1 = cpuSeconds(), wall1 = wallSeconds()
        return Timing(wall: wall1 - wall0, cpu: cpu1 - cpu0)
    }

    // MARK: Puts

    /// A 100-byte value whose first 8 bytes are the key (so values differ).
    @inline(__always)
    static func fillValue(_ value: inout [UInt8], key: UInt64) {
        withUnsafeBytes(of: key.littleEndian) { keyBytes in
            for i in 0..<8 { value[i] = keyBytes[i] }
        }
    }

    /// Puts `count` records (8-byte integer keys 0..<count, 100-byte values) into `store` in
    /// batches of ``batchSize``, each committed with `durability`. With `scattered`, key i is
    /// i × 0x9E3779B97F4A7C15 (mod 2⁶⁴) instead: as many distinct keys, in no order.
    public static func put(count: Int = recordCount, into store: Store, durability: Durability, scattered: Bool = false) throws {
        var value = [UInt8](repeating: 0xA5, count: valueSize)
        var batch = WriteBatch()
        var key = 0
        while key < count {
            batch.removeAll()
            let end = min(key + batchSize, count)
            while key < end {
                fillValue(&value, key: UInt64(key))
                let number = scattered ? UInt64(key) &* 0x9E37_79B9_7F4A_7C15 : UInt64(key)
                batch.put(value, forKey: StorageKey(number), in: keyspace)
                key += 1
            }
            try store.commit(batch, durability: durability)
        }
    }

    /// Creates a store of `count` records in `directory` (with `.none` durability, closed
    /// with a sync).
    public static func createStore(count: Int = recordCount, in directory: String, scattered: Bool = false) throws {
        let store = try Store(directory: directory, options: options(durability: .none))
        try put(count: count, into: store, durability: .none, scattered: scattered)
        try store.close()
    }

    // MARK: Gets


    /// Reads `gets` values at random keys in 0..<keyCount from `snapshot` through
    /// `withValue`, touching every value's first and last byte. Returns a checksum of what it
    /// read (for a black hole); traps if a key is missing.
    public static func randomGets(_ gets: Int, keyCount: Int, from snapshot: Snapshot, seed: UInt64 = 42) throws -> UInt64 {
        var rng = SplitMix64(seed: seed)
        var sum: UInt64 = 0
        let bound = UInt64(keyCount)
        for _ in 0..<gets {
            let key = StorageKey(rng.next(below: bound))
            let touched = try snapshot.withValue(for: key, in: keyspace) { bytes in
                UInt64(bytes[0]) &+ UInt64(bytes[bytes.count - 1]) &+ UInt64(bytes.count)
            }
            guard let touched else { fatalError("key missing from the preloaded store") }
            sum &+= touched
        }
        return sum
    }

    // MARK: Memory

    /// The process's memory figures at one moment.
    public struct MemoryReading: Sendable {
        /// Bytes malloc has handed out and not taken back (glibc `mallinfo2`: arena + mmapped).
        public var mallocInUse: Int
        /// Anonymous resident memory (`RssAnon` of /proc/self/status): the heap, not file pages.
        public var residentAnonymous: Int
        /// Resident memory (`VmRSS`), file-backed pages (the mmapped segments) included.
        public var resident: Int

        /// The reading now. Gives memory back to the system first (`malloc_trim`), so resident
        /// growth afterwards is new memory rather than reuse of freed pages.
        public static func now(trim: Bool = true) -> MemoryReading {
            if trim { strata_malloc_trim() }
            let inUse = Int(strata_malloc_in_use())
            let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
            func field(_ name: String) -> Int {
                for line in status.split(separator: "\n") where line.hasPrefix(name + ":") {
                    let digits = line.dropFirst(name.count + 1).filter(\.isNumber)
                    return (Int(String(digits)) ?? 0) * 1024
                }
                return 0
            }
            return MemoryReading(mallocInUse: inUse, residentAnonymous: field("RssAnon"), resident: field("VmRSS"))
        }

        public static func - (lhs: MemoryReading, rhs: MemoryReading) -> MemoryReading {
            MemoryReading(
                mallocInUse: lhs.mallocInUse - rhs.mallocInUse,
                residentAnonymous: lhs.residentAnonymous - rhs.residentAnonymous,
                resident: lhs.resident - rhs.resident)
        }
    }

    /// What opening a store costs in memory per key.
    public struct IndexMemory: Sendable {
        public var keys: Int
        /// Growth when opening the empty store.
        public var empty: MemoryReading
        /// Growth when opening the full store.
        public var full: MemoryReading
        /// Heap bytes per key (malloc in use, full minus empty), the key's own bytes included.
        public var mallocBytesPerKey: Double { Double(full.mallocInUse - empty.mallocInUse) / Double(keys) }
        /// Anonymous resident bytes per key (full minus empty).
        public var residentAnonymousBytesPerKey: Double {
            Double(full.residentAnonymous - empty.residentAnonymous) / Double(keys)
        }
        /// All resident bytes per key, the mmapped segment pages recovery read included.
        public var residentBytesPerKey: Double { Double(full.resident - empty.resident) / Double(keys) }
    }

    /// Opens the empty store in `emptyDirectory`, then the store of `keys` records in
    /// `fullDirectory`, and returns how much memory each open kept while the store is open.
    public static func measureIndexMemory(emptyDirectory: String, fullDirectory: String, keys: Int) throws -> IndexMemory {
        func growth(_ directory: String) throws -> MemoryReading {
            let before = MemoryReading.now()
            let store = try Store(directory: directory, options: options(durability: .none))
            let after = MemoryReading.now()
            precondition(store.statistics().keys == (directory == emptyDirectory ? 0 : keys))
            try store.close()
            withExtendedLifetime(store) {}
            return after - before
        }
        let empty = try growth(emptyDirectory)
        let full = try growth(fullDirectory)
        return IndexMemory(keys: keys, empty: empty, full: full)
    }
}

// SplitMix64 is StrataStorage's `@_spi(Testing)`, so this extension is too: a module that
// calls `next(below:)` imports this one with `@_spi(Testing) import StorageWorkloads`.
@_spi(Testing) extension SplitMix64 {
    /// Uniform in 0..<bound (multiply-shift; bias is negligible for these bounds).
    @inline(__always)
    public mutating func next(below bound: UInt64) -> UInt64 {
        next().multipliedFullWidth(by: bound).high
    }
}
