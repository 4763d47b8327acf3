// `strata demo PATH`: a newcomer's first run. By default the object database (ObjectDemo.swift);
// with --storage, the storage engine alone: creates a store, writes a mixed workload to it,
// closes it, reopens it (recovery), checks that every value reads back as written, and prints
// the times and the statistics.

import ArgumentParser
import Foundation
// For SplitMix64 (the workload's deterministic data) and Store.contents(of:).
@_spi(Tooling) import StrataStorage

struct Demo: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Create a database, fill it, reopen it and check every value read back.",
        discussion: """
            By default shows the object database: writes people (each with an embedded address \
            and a list of dogs) and dogs, queries them, follows a backlink, freezes a view, makes \
            200 changes and a delete, compacts while the frozen view is held (which still reads \
            its version), then reopens and verifies the objects, links, backlinks and indexes. \
            Look at the result with `strata schema PATH` and `strata inspect PATH --class Dog`.

            With --storage, shows the storage engine alone: writes --records operations in batches of 1,000 (one atomic, fsynced commit each) \
            across 3 keyspaces: about 80% new keys, 15% overwrites and 5% deletes, with random \
            (incompressible) values of --value-size bytes and, in keyspace 3, some 16 KiB \
            compressible values that are stored zstd-compressed. Segments are 4 MiB, so a \
            large run spans several. Then closes the database, reopens it (printing what \
            recovery did: after a clean close, nothing), reads every key back and compares it \
            with what was written, and prints the elapsed times and the statistics. \
            The workload is deterministic: the same options write the same data.

            PATH must not exist or must be empty, unless --overwrite is given.
            Exits 1 when a value does not read back as written.

            \(ToolExit.help)
            """
    )

    @Argument(help: "The directory to create the database in (must not exist or be empty).")
    var path: String

    @Option(help: "The number of operations to write: puts of new keys, overwrites and deletes.")
    var records = 100_000

    @Option(help: "The size in bytes of an ordinary value (large compressible values are 16 KiB).")
    var valueSize = 100

    @Flag(help: "Replace a Strata database already at PATH (refused when PATH holds other files).")
    var overwrite = false

    @Flag(help: "Show the storage engine (keyspaces and records) instead of the object database.")
    var storage = false

    @OptionGroup(title: "Encryption") var key: KeyFileOption

    static let batchSize = 1_000
    static let segmentSize = 4 << 20

    func validate() throws {
        guard records >= 1 else { throw ValidationError("--records must be at least 1") }
        guard (1...(16 << 20)).contains(valueSize) else {
            throw ValidationError("--value-size must be between 1 and 16 MiB")
        }
    }

    func run() throws {
        try prepareDirectory()
        if !storage { return try runObjectDemo() }
        var options = Store.Options()
        options.segmentSize = Self.segmentSize
        options.encryptionKey = try Output.reportingErrors { try key.key() }
        let clock = ContinuousClock()

        print("""
            demo: writing \(Format.counted(records, "record")) to \(path)
              3 keyspaces, batches of \(Format.count(Self.batchSize)) (one fsynced commit each), \
            \(valueSize)-byte values and some \(Format.bytes(DemoWorkload.largeValueSize)) \
            compressible ones, \(Format.bytes(Self.segmentSize)) segments
            """)

        var workload = DemoWorkload(valueSize: valueSize)
        let writeTime = try Output.reportingErrors {
            try clock.measure {
                let store = try Store(directory: path, options: options)
                var batch = WriteBatch()
                var written = 0
                while written < records {
                    batch.removeAll()
                    let count = min(Self.batchSize, records - written)
                    for _ in 0..<count {
                        workload.addOperation(to: &batch)
                    }
                    try store.commit(batch)
                    written += count
                }
                try store.close()
            }
        }
        print("""
            write:   \(Format.milliseconds(writeTime))  \
            (\(Format.rate(records, writeTime, unit: "records")); \(Format.counted(workload.newKeys, "new key")), \
            \(Format.counted(workload.overwrites, "overwrite")), \(Format.counted(workload.deletes, "delete")), \
            \(Format.counted(workload.largeValues, "large value")))
            """)

        var reopened: Store?
        let reopenTime = try Output.reportingErrors {
            try clock.measure { reopened = try Store(directory: path, options: options) }
        }
        guard let store = reopened else { throw ExitCode(ToolExit.failure) }
        let events = store.recoveryEvents
        print("reopen:  \(Format.milliseconds(reopenTime))  (recovery events: \(events.isEmpty ? "none" : String(events.count)))")
        Output.printNotes(events)

        var mismatches: [String] = []
        var checked = 0
        let verifyTime = try Output.reportingErrors {
            try clock.measure {
                (checked, mismatches) = try workload.check(store.snapshot())
            }
        }
        guard mismatches.isEmpty else {
            for mismatch in mismatches.prefix(10) { Output.error("demo: \(mismatch)") }
            Output.error("demo: FAILED: \(Format.counted(mismatches.count, "difference")) between what was written and what was read back")
            throw ExitCode(ToolExit.failure)
        }
        print("""
            verify:  \(Format.milliseconds(verifyTime))  \
            (\(Format.rate(checked, verifyTime, unit: "keys")); \(Format.counted(checked, "key")) read back \
            equal to what was written, every deleted key absent)
            """)

        let report = StatsReport(path: path, statistics: store.statistics(), recoveryEvents: events)
        print("\nstatistics of \(path):")
        for line in report.lines { print("  " + line) }
        try Output.reportingErrors { try store.close() }
        let tool = CommandLine.arguments.first ?? "strata"
        print("\nOK: demo passed. Check it again with `\(tool) verify \(path)`; see its figures with `\(tool) stats \(path)`.")
    }

    /// The object database's demo (ObjectDemo.swift).
    private func runObjectDemo() throws {
        print("demo: an object database in \(path)")
        try Output.reportingErrors { try ObjectDemo(path: path, key: try key.key()).run() }
        let tool = CommandLine.arguments.first ?? "strata"
        print("\nOK: demo passed. See its schema with `\(tool) schema \(path)`; its dogs with `\(tool) inspect \(path) --class Dog`.")
    }

    /// Makes sure `path` is a directory the demo may fill: absent, empty, or (with
    /// `--overwrite`) a Strata database, whose files are then removed. Refuses a file or a
    /// directory of another program's files (exit 4), and writes nothing there.
    private func prepareDirectory() throws {
        guard try !Output.reportingErrors({ try DatabasePath.requireNewOrDatabase(path) }) else { return }
        guard overwrite else {
            Output.error("demo: \(path) exists and is not empty; choose another path, or pass --overwrite to replace the Strata database in it")
            throw ExitCode(ToolExit.failure)
        }
        let fileManager = FileManager.default
        let names = try Output.reportingErrors { try SystemErrors.io("read \(path)") { try fileManager.contentsOfDirectory(atPath: path) } }
        let foreign = names.filter { !Store.isStoreFileName($0) }.sorted()
        guard foreign.isEmpty else {
            Output.error("demo: refusing to overwrite \(path): it holds files that are not part of a Strata database (\(foreign.prefix(3).joined(separator: ", "))\(foreign.count > 3 ? ", …" : ""))")
            throw ExitCode(ToolExit.failure)
        }
        // Refuse to delete a database another process has open: opening it takes its lock.
        do {
            try Store(directory: path).close()
        } catch StrataError.locked {
            Output.error("demo: refusing to overwrite \(path): another process has the database open")
            throw ExitCode(ToolExit.failure)
        } catch {
            // A damaged database is still replaced: that is what --overwrite is for.
        }
        try Output.reportingErrors {
            for name in names {
                try SystemErrors.io("remove \(name) in \(path)") { try fileManager.removeItem(atPath: (path as NSString).appendingPathComponent(name)) }
            }
        }
        print("demo: removed the database in \(path) (--overwrite)")
    }
}

/// The demo's deterministic workload, and what the database must hold after it.
struct DemoWorkload {
    static let keyspaces = [Keyspace(1), Keyspace(2), Keyspace(3)]
    static let largeValueSize = 16 << 10

    let valueSize: Int
    private var random = SplitMix64(seed: 0x5354_5241_5441)
    private var operations = 0
    /// Per keyspace: how many keys have been created (keys are 0, 1, 2, …).
    private var keyCounts = [UInt64](repeating: 0, count: DemoWorkload.keyspaces.count)
    /// Per keyspace: each live key and the operation number that wrote its value.
    private var expected = [[UInt64: Int]](repeating: [:], count: DemoWorkload.keyspaces.count)

    private(set) var newKeys = 0
    private(set) var overwrites = 0
    private(set) var deletes = 0
    private(set) var largeValues = 0

    init(valueSize: Int) { self.valueSize = valueSize }

    /// Adds the next operation: a put of a new key (80%), an overwrite (15%) or a delete (5%)
    /// of a key picked at random among those created so far (it may be deleted already).
    mutating func addOperation(to batch: inout WriteBatch) {
        let operation = operations
        operations += 1
        let space = Int(random.next() % UInt64(Self.keyspaces.count))
        let roll = random.next() % 100
        let created = keyCounts[space]
        if roll < 5, created > 0 {
            let id = random.next() % created
            batch.delete(Self.key(id, space: space), in: Self.keyspaces[space])
            expected[space][id] = nil
            deletes += 1
            return
        }
        let id: UInt64
        if roll < 20, created > 0 {
            id = random.next() % created
            overwrites += 1
        } else {
            id = created
            keyCounts[space] += 1
            newKeys += 1
        }
        if Self.isLarge(space: space, operation: operation) { largeValues += 1 }
        batch.put(value(space: space, id: id, operation: operation), forKey: Self.key(id, space: space), in: Self.keyspaces[space])
        expected[space][id] = operation
    }

    /// Reads every key back from `snapshot`; returns how many live keys were checked and a
    /// description of each difference from what was written.
    func check(_ snapshot: Snapshot) throws -> (checked: Int, mismatches: [String]) {
        var mismatches: [String] = []
        var checked = 0
        for (space, keyspace) in Self.keyspaces.enumerated() {
            let live = expected[space]
            if snapshot.count(in: keyspace) != live.count {
                mismatches.append("\(keyspace) holds \(Format.counted(snapshot.count(in: keyspace), "key")), expected \(live.count)")
            }
            for id in 0..<keyCounts[space] {
                let key = Self.key(id, space: space)
                let stored = try snapshot.value(for: key, in: keyspace)
                if let operation = live[id] {
                    checked += 1
                    if stored != value(space: space, id: id, operation: operation) {
                        mismatches.append(stored == nil
                            ? "\(keyspace) key \(key): missing"
                            : "\(keyspace) key \(key): value differs from what operation \(operation) wrote")
                    }
                } else if stored != nil {
                    mismatches.append("\(keyspace) key \(key): deleted, but still has a value")
                }
            }
        }
        return (checked, mismatches)
    }

    /// Keyspace 2 uses 18-byte string keys (stored on the heap); the others 8-byte integer keys
    /// (stored inline).
    static func key(_ id: UInt64, space: Int) -> StorageKey {
        guard space == 1 else { return StorageKey(id) }
        let digits = String(id)
        return StorageKey("event/" + String(repeating: "0", count: max(0, 12 - digits.count)) + digits)
    }

    /// Every 25th operation that lands in keyspace 3 writes a large compressible value.
    static func isLarge(space: Int, operation: Int) -> Bool {
        space == 2 && operation % 25 == 0
    }

    /// The value operation `operation` writes to key `id`: random bytes, or repeated text
    /// for a large value. A pure function, so the check can regenerate it.
    func value(space: Int, id: UInt64, operation: Int) -> [UInt8] {
        if Self.isLarge(space: space, operation: operation) {
            let line = Array("strata demo document \(space + 1)/\(id), written by operation \(operation)\n".utf8)
            var bytes: [UInt8] = []
            bytes.reserveCapacity(Self.largeValueSize)
            while bytes.count < Self.largeValueSize {
                bytes.append(contentsOf: line.prefix(Self.largeValueSize - bytes.count))
            }
            return bytes
        }
        var random = SplitMix64(seed: UInt64(operation) &* 0x9E37_79B9_7F4A_7C15 ^ id ^ UInt64(space) << 60)
        var bytes = [UInt8](repeating: 0, count: valueSize)
        bytes.withUnsafeMutableBytes { raw in
            var index = 0
            while index < raw.count {
                let word = random.next()
                let count = min(8, raw.count - index)
                withUnsafeBytes(of: word) { wordBytes in
                    for offset in 0..<count { raw[index + offset] = wordBytes[offset] }
                }
                index += count
            }
        }
        return bytes
    }
}

