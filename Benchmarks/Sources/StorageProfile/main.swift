// A standalone driver of the storage workloads, for profilers (perf, valgrind) and for
// measurements outside the benchmark harness (which preloads malloc and runtime interposers).
//
//   StorageProfile <put-none|put-none-hints|put-none-single|put-full|get|reopen|reopen-hints|reopen-hints-scattered|memory|encryption|all> [records]
//   (put-none-single: one put per commit, so per-commit costs are not shared by a batch)
//   (reopen-hints-scattered: the keys written in no order, so each hint is merged into the index)
//   StorageProfile background [megabytes]   (BackgroundCompaction.swift)
//
// Prints one line per workload: its rate or time. Only the named workload's measured part is
// timed; preparing a store for get/reopen/memory happens first and is reported separately.
// With STORAGE_PROFILE_STORE=DIR, get and reopen use the store in DIR, preparing it there first
// when DIR does not exist, and keep it (so a profiler can record the measured part alone); with
// HINTS_ONLY set, reopen-hints opens from hints every time instead of alternating with scans.

import Foundation
import StorageWorkloads
import StrataStorage

let arguments = CommandLine.arguments
let mode = arguments.count > 1 ? arguments[1] : "all"
let count = arguments.count > 2 ? Int(arguments[2])! : Workloads.recordCount

func seconds(_ body: () throws -> Void) rethrows -> Double {
    let timing = try Workloads.timed(body)
    print(String(format: "  (wall %.3f s, CPU %.3f s)", timing.wall, timing.cpu))
    return timing.wall
}

func format(_ value: Double) -> String { String(format: "%.0f", value) }

func runPut(_ durability: Durability, label: String, hints: Bool = false) throws {
    let directory = Workloads.makeScratchDirectory("profile-put")
    defer { Workloads.removeScratchDirectory(directory) }
    var options = Workloads.options(durability: durability)
    options.openWithHints = hints  // each roll then writes the sealed segment's hint
    let store = try Store(directory: directory, options: options)
    let time = try seconds { try Workloads.put(count: count, into: store, durability: durability) }
    try store.close()
    print("put .\(label): \(count) records in \(String(format: "%.3f", time)) s = \(format(Double(count) / time)) puts/s")
}

/// `count` commits of one put each, `.none` durability: what a commit costs beyond its records.
func runPutSingles() throws {
    let directory = Workloads.makeScratchDirectory("profile-put-single")
    defer { Workloads.removeScratchDirectory(directory) }
    let store = try Store(directory: directory, options: Workloads.options(durability: .none))
    let value = [UInt8](repeating: 0xA5, count: 100)
    let time = try seconds {
        for key in 0..<count {
            var batch = WriteBatch()
            batch.put(value, forKey: StorageKey(UInt64(key)), in: Keyspace(1))
            try store.commit(batch, durability: .none)
        }
    }
    try store.close()
    print("put .none, one per commit: \(count) commits in \(String(format: "%.3f", time)) s = \(format(Double(count) / time)) commits/s")
}

func withStore(scattered: Bool = false, _ body: (String) throws -> Void) throws {
    if let kept = ProcessInfo.processInfo.environment["STORAGE_PROFILE_STORE"] {
        if !FileManager.default.fileExists(atPath: kept) {
            try FileManager.default.createDirectory(atPath: kept, withIntermediateDirectories: true)
            try Workloads.createStore(count: count, in: kept, scattered: scattered)
        }
        return try body(kept)
    }
    let directory = Workloads.makeScratchDirectory("profile-store")
    defer { Workloads.removeScratchDirectory(directory) }
    let time = try seconds { try Workloads.createStore(count: count, in: directory, scattered: scattered) }
    print("(prepared a store of \(count) records in \(String(format: "%.3f", time)) s)")
    try body(directory)
}

func runGet() throws {
    try withStore { directory in
        let store = try Store(directory: directory, options: Workloads.options(durability: .none))
        let snapshot = store.snapshot()
        var sum: UInt64 = 0
        let time = try seconds { sum = try Workloads.randomGets(count, keyCount: count, from: snapshot) }
        print("get: \(count) random gets in \(String(format: "%.3f", time)) s = \(format(Double(count) / time)) gets/s (checksum \(sum))")
        try store.close()
    }
}

func runReopen() throws {
    try withStore { directory in
        for _ in 0..<3 {
            var store: Store?
            let time = try seconds { store = try Store(directory: directory, options: Workloads.options(durability: .none)) }
            precondition(store!.statistics().keys == count)
            try store!.close()
            store = nil
            print("reopen: \(count) records in \(String(format: "%.1f", time * 1000)) ms")
        }
    }
}

/// Reopens of the same store, alternating a scan of every segment and an open from the sealed
/// segments' hint files (`openWithHints`), three of each.
func runReopenWithHints(scattered: Bool = false) throws {
    try withStore(scattered: scattered) { directory in
        // A store used with `openWithHints` seals its active segment at close (when it holds an
        // eighth of a segment or more): one such open and close first, as an app's last run did.
        var sealing = Workloads.options(durability: .none)
        sealing.openWithHints = true
        try Store(directory: directory, options: sealing).close()
        for _ in 0..<3 {
            for hints in (ProcessInfo.processInfo.environment["HINTS_ONLY"] != nil ? [true, true] : [false, true]) {
                var options = Workloads.options(durability: .none)
                options.openWithHints = hints
                var store: Store?
                let time = try seconds { store = try Store(directory: directory, options: options) }
                precondition(store!.statistics().keys == count)
                let scanned = store!.recoveryEvents.filter { $0.kind == .hintIgnored }.count
                try store!.close()
                store = nil
                print("reopen \(hints ? "with hints" : "by scan"): \(count) records in \(String(format: "%.1f", time * 1000)) ms"
                    + (hints ? " (\(scanned) sealed segment(s) scanned for want of a hint)" : ""))
            }
        }
    }
}

func runMemory() throws {
    let empty = Workloads.makeScratchDirectory("profile-empty")
    defer { Workloads.removeScratchDirectory(empty) }
    try Workloads.createStore(count: 0, in: empty)
    try withStore { directory in
        let result = try Workloads.measureIndexMemory(emptyDirectory: empty, fullDirectory: directory, keys: count)
        print("""
            memory: \(count) keys: heap (malloc in use) \(String(format: "%.1f", result.mallocBytesPerKey)) B/key, \
            anonymous RSS \(String(format: "%.1f", result.residentAnonymousBytesPerKey)) B/key, \
            all RSS incl. mapped segments \(String(format: "%.1f", result.residentBytesPerKey)) B/key
            """)
    }
}

switch mode {
case "put-none": try runPut(.none, label: "none")
case "put-none-hints": try runPut(.none, label: "none, openWithHints", hints: true)
case "put-full": try runPut(.full, label: "full")
case "put-none-single": try runPutSingles()
case "get": try runGet()
case "reopen": try runReopen()
case "reopen-hints": try runReopenWithHints()
case "reopen-hints-scattered": try runReopenWithHints(scattered: true)
case "memory": try runMemory()
case "encryption": try runEncryption()
case "dictionary": try runDictionary(records: arguments.count > 2 ? Int(arguments[2])! : 200_000)
case "background": try runBackground(megabytes: arguments.count > 2 ? Int(arguments[2])! : 1024)
case "all":
    try runMemory()
    try runPut(.none, label: "none")
    try runPut(.full, label: "full")
    try runGet()
    try runReopen()
default:
    print("usage: StorageProfile <put-none|put-none-hints|put-none-single|put-full|get|reopen|reopen-hints|reopen-hints-scattered|memory|encryption|background|all> [records]")
    exit(2)
}
