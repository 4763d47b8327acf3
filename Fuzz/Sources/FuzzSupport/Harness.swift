// What the fuzz targets share: fixtures made by a real store, opening a store from given files,
// reading everything back, and the oracles (what must hold whatever the input).
//
// The rule every target enforces: opening, reading and writing a store may throw StrataError
// (damage is reported, never trusted), but must never trap, hang, allocate hugely, or throw
// anything else. Anything else is turned into a `fatalError` so libFuzzer records the input.

@_spi(Testing) import StrataStorage
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Writes a line to standard error at once (verbose replays may end in a trap).
public func note(_ line: String) {
    let text = Array((line + "\n").utf8)
    _ = text.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
}

/// The directory every harness store lives in (on a fresh MemoryFileSystem each time).
public let fuzzDirectory = "/db"

/// Paths of the store files in `fuzzDirectory`.
public enum FuzzPath {
    public static let manifest = fuzzDirectory + "/MANIFEST"
    public static func segment(_ number: Int) -> String {
        let digits = String(number)
        return fuzzDirectory + "/" + String(repeating: "0", count: max(0, 6 - digits.count)) + digits + ".seg"
    }
    public static func hint(_ number: Int) -> String {
        String(segment(number).dropLast(4)) + ".hint"
    }
}

/// Largest value the harness stores accept. The engine's default (256 MiB) is legitimate — zstd
/// RLE blocks expand 128 KiB from 4 bytes, so a 4 KiB segment can really hold a 256 MiB value —
/// but allocating that for each such input would make the fuzzer crawl. The limit check itself
/// is the same code whatever the limit.
public let fuzzMaxValueSize = 1 << 20

/// Segment size for the read-write opens: the smallest allowed, so the probe commit after
/// recovery rolls to a new segment whenever the fuzzed one is over 4 KiB.
public let fuzzSegmentSize = 4096

/// The probe a read-write open commits after recovery, and checks after reopening.
public enum Probe {
    public static let keyspace = Keyspace(0xF00D_F00D)
    public static let key = StorageKey("strata-fuzz-probe")
    public static let value: [UInt8] = Array("probe value written after recovery".utf8)
}

/// How a harness opens the store.
public enum OpenMode: String, Sendable, CaseIterable {
    case readOnly, salvage, readWrite
}

/// Options for a harness open.
public func fuzzOptions(_ mode: OpenMode, fileSystem: MemoryFileSystem) -> Store.Options {
    var options = Store.Options()
    options.fileSystem = fileSystem
    options.maxValueSize = fuzzMaxValueSize
    switch mode {
    case .readOnly:
        options.readOnly = true
    case .salvage:
        options.readOnly = true
        options.salvage = true
        // Reads trust what recovery checked: exercises the unchecked decode path, and the
        // harness compares what it reads with the checked read-only open.
        options.verifyChecksumsOnRead = false
    case .readWrite:
        options.segmentSize = fuzzSegmentSize
        options.durability = .full
    }
    return options
}

/// A fresh MemoryFileSystem holding `files` (path → contents), durable.
public func fileSystem(with files: [(String, [UInt8])]) -> MemoryFileSystem {
    let fileSystem = MemoryFileSystem()
    for (path, bytes) in files { fileSystem.setContents(bytes, of: path) }
    return fileSystem
}

/// Runs `body`; returns nil when it throws a StrataError, traps on any other error.
public func expectingStrataError<R>(_ what: @autoclosure () -> String, _ body: () throws -> R) -> R? {
    do {
        return try body()
    } catch let error as StrataError {
        _ = error
        return nil
    } catch {
        fatalError("\(what()) threw a non-StrataError: \(type(of: error)) \(error)")
    }
}

/// One key of a store.
public struct Entry: Hashable, Sendable, CustomStringConvertible {
    public var keyspace: Keyspace
    public var key: StorageKey
    public init(_ keyspace: Keyspace, _ key: StorageKey) {
        self.keyspace = keyspace
        self.key = key
    }
    public var description: String { "\(keyspace) key \(key.withUnsafeBytes { Array($0) })" }
}

/// What a read of one value gave: its bytes, or the StrataError code it threw.
public enum ReadOutcome: Hashable, Sendable {
    case value([UInt8])
    case error(String)
}

/// Everything a snapshot holds, read two ways (`forEach` per keyspace and `value(for:in:)` per
/// key), with consistency checks between the snapshot's counts, key lists and values.
/// Reading may throw StrataError per value (a damaged compressed value); nothing else.
public func readEverything(_ store: Store, _ context: String) -> [Entry: ReadOutcome] {
    let snapshot = store.snapshot()
    var contents: [Entry: ReadOutcome] = [:]
    var total = 0
    for keyspace in snapshot.keyspaces {
        let keys = snapshot.keys(in: keyspace)
        let count = snapshot.count(in: keyspace)
        guard keys.count == count, count > 0 else {
            fatalError("\(context): \(keyspace) lists \(keys.count) keys, counts \(count)")
        }
        total += count
        for key in keys {
            guard snapshot.contains(key, in: keyspace) else {
                fatalError("\(context): listed key not contained: \(Entry(keyspace, key))")
            }
            let outcome: ReadOutcome
            do {
                guard let value = try snapshot.value(for: key, in: keyspace) else {
                    fatalError("\(context): listed key has no value: \(Entry(keyspace, key))")
                }
                outcome = .value(value)
            } catch let error as StrataError {
                outcome = .error(error.code.name)
            } catch {
                fatalError("\(context): value(for:in:) threw a non-StrataError: \(type(of: error)) \(error)")
            }
            contents[Entry(keyspace, key)] = outcome
            // withValue must see the same bytes without copying.
            let viewed = expectingStrataError("\(context): withValue") {
                try snapshot.withValue(for: key, in: keyspace) { Array($0) }
            }
            if case .value(let value) = outcome, viewed != value {
                fatalError("\(context): withValue disagrees with value(for:in:) on \(Entry(keyspace, key))")
            }
        }
        // forEach: every value it hands over must be the one value(for:in:) read.
        var visited = 0
        _ = expectingStrataError("\(context): forEach") {
            try snapshot.forEach(in: keyspace) { key, bytes in
                visited += 1
                guard contents[Entry(keyspace, key)] == .value(Array(bytes)) else {
                    fatalError("\(context): forEach disagrees with value(for:in:) on \(Entry(keyspace, key))")
                }
                return true
            }
        }
        if !contents.values.contains(where: { if case .error = $0 { true } else { false } }),
           visited != count {
            fatalError("\(context): forEach visited \(visited) of \(count) keys")
        }
    }
    guard total == snapshot.count else {
        fatalError("\(context): keyspace counts sum to \(total), snapshot counts \(snapshot.count)")
    }
    return contents
}

/// Opens a store; nil when the open threw a StrataError.
/// With STRATA_FUZZ_VERBOSE=1, prints what each open did (for replaying one input by hand).
public func open(_ mode: OpenMode, _ fileSystem: MemoryFileSystem, _ context: String) -> Store? {
    expectingStrataError("\(context): open \(mode.rawValue)") {
        do {
            let store = try Store(directory: fuzzDirectory, options: fuzzOptions(mode, fileSystem: fileSystem))
            if KnownIssues.verbose {
                note("  \(context): opened, \(store.snapshot().count) keys, sequence \(store.sequence)")
                for event in store.recoveryEvents { note("    event \(event)") }
            }
            return store
        } catch {
            if KnownIssues.verbose { note("  \(context): \(error)") }
            throw error
        }
    }
}

/// The read-write round trip: after a successful read-write open with `contents`, commit the
/// probe, close, reopen (read-write, then read-only) and check that the reopened store holds
/// exactly `contents` plus the probe. A store that recovered must accept a commit and reopen
/// cleanly: the engine wrote everything that follows recovery itself.
///
/// `segmentNumbersExhausted`: segment UInt32.max is in the directory, so a commit that needs a
/// new segment may rightly fail with a StrataError; the reopened store must then hold exactly
/// `contents`.
public func probeRoundTrip(
    _ store: Store, _ fileSystem: MemoryFileSystem, contents: [Entry: ReadOutcome], _ context: String,
    segmentNumbersExhausted: Bool = false
) {
    var batch = WriteBatch()
    batch.put(Probe.value, forKey: Probe.key, in: Probe.keyspace)
    var committed = true
    do {
        try store.commit(batch)
    } catch let error as StrataError where segmentNumbersExhausted && error.code != .readOnly {
        committed = false
    } catch {
        fatalError("\(context): commit after a successful read-write open failed: \(error)")
    }
    do {
        try store.close()
    } catch {
        fatalError("\(context): close after the probe commit failed: \(error)")
    }
    var expected = contents
    if committed { expected[Entry(Probe.keyspace, Probe.key)] = .value(Probe.value) }
    for mode in [OpenMode.readWrite, .readOnly] {
        let reopened: Store
        do {
            reopened = try Store(directory: fuzzDirectory, options: fuzzOptions(mode, fileSystem: fileSystem))
        } catch {
            fatalError("\(context): reopening \(mode.rawValue) after the probe commit failed: \(error)")
        }
        let found = readEverything(reopened, "\(context): reopened \(mode.rawValue)")
        if found != expected {
            fatalError("\(context): reopened \(mode.rawValue) store differs: \(describeDifference(expected, found))")
        }
        try? reopened.close()
    }
}

/// A short description of how two contents differ, for fatalError messages.
public func describeDifference(_ expected: [Entry: ReadOutcome], _ found: [Entry: ReadOutcome]) -> String {
    var lines: [String] = []
    for (entry, outcome) in expected where found[entry] != outcome {
        lines.append("\(entry): expected \(outcome), found \(found[entry].map { "\($0)" } ?? "nothing")")
    }
    for entry in found.keys where expected[entry] == nil {
        lines.append("\(entry): unexpected")
    }
    return "\(lines.count) difference(s): " + lines.prefix(4).joined(separator: "; ")
}

/// Files of real stores, made once per process through the public API.
public struct Fixtures: Sendable {
    /// MANIFEST of a new store: segment 1, last sequence 0.
    public var manifest: [UInt8]
    /// 000001.seg of a new store: the 64-byte header alone.
    public var emptySegment: [UInt8]
    /// A store that rolled once: its MANIFEST (segments 1 and 2) and both segments. Segment 1
    /// is sealed and so nearly full (4,073 of 4,096 bytes) that the harness's probe commit
    /// rolls whenever it is the newest segment listed.
    public var rolledManifest: [UInt8]
    public var rolledSegment1: [UInt8]
    public var rolledSegment2: [UInt8]
    /// 000001.hint of the rolled store: the hint its roll wrote for segment 1.
    public var rolledHint1: [UInt8]
    /// The one value the rolled store's workload ever wrote to each of its keys (deleted ones
    /// too): each key is written once, and no two keys share a value.
    public var rolledValues: [Entry: [UInt8]]

    public static let shared: Fixtures = {
        do { return try Fixtures() } catch { fatalError("fuzz fixtures: \(error)") }
    }()

    init() throws {
        let fresh = MemoryFileSystem()
        try Store(directory: fuzzDirectory, options: fuzzOptions(.readWrite, fileSystem: fresh)).close()
        manifest = fresh.contents(of: FuzzPath.manifest)!
        emptySegment = fresh.contents(of: FuzzPath.segment(1))!

        // With hints, so that the roll writes one for segment 1. The files are taken before
        // `close()`, which would seal segment 2 too (it holds more than an eighth of a segment).
        let rolled = MemoryFileSystem()
        var rolledOptions = fuzzOptions(.readWrite, fileSystem: rolled)
        rolledOptions.openWithHints = true
        let store = try Store(directory: fuzzDirectory, options: rolledOptions)
        var written: [Entry: [UInt8]] = [:]
        for round in 0..<4 {
            var batch = WriteBatch()
            let large = Array(repeating: UInt8(0x61 + round), count: 1220)
            let small = Array("small \(round)".utf8)
            batch.put(large, forKey: StorageKey(UInt64(round)), in: Keyspace(1))
            batch.put(small, forKey: StorageKey("k\(round)"), in: Keyspace(2))
            written[Entry(Keyspace(1), StorageKey(UInt64(round)))] = large
            written[Entry(Keyspace(2), StorageKey("k\(round)"))] = small
            if round > 0 { batch.delete(StorageKey("k\(round - 1)"), in: Keyspace(2)) }
            try store.commit(batch)
        }
        defer { try? store.close() }
        rolledValues = written
        rolledManifest = rolled.contents(of: FuzzPath.manifest)!
        rolledSegment1 = rolled.contents(of: FuzzPath.segment(1))!
        rolledSegment2 = rolled.contents(of: FuzzPath.segment(2)) ?? []
        rolledHint1 = rolled.contents(of: FuzzPath.hint(1)) ?? []
        precondition(!rolledHint1.isEmpty, "fuzz fixtures: the roll wrote no hint for segment 1")
        precondition(!rolledSegment2.isEmpty, "fuzz fixtures: the rolled store did not roll")
        precondition(rolled.contents(of: FuzzPath.segment(3)) == nil, "fuzz fixtures: the rolled store rolled twice")
        precondition(emptySegment.count == SegmentHeader.size, "fuzz fixtures: a new store's segment is not its header alone")
        precondition(rolledSegment1.count > fuzzSegmentSize - 100, "fuzz fixtures: segment 1 is not nearly full")
    }

    /// The 64-byte header of segment 1.
    public var segmentHeader: [UInt8] { Array(emptySegment.prefix(SegmentHeader.size)) }
}

/// Recovers the same files three ways — read-only, salvage, read-write — and checks that they
/// agree: salvage keeps what read-only keeps, read-write recovers what read-only does, and a
/// successful read-write open survives a commit and a reopen (`probeRoundTrip`).
/// `readWriteMayCreate`: with no MANIFEST a read-write open creates a store where read-only
/// finds none.
public func recoverThreeWays(
    _ files: [(String, [UInt8])], readWriteMayCreate: Bool, segmentNumbersExhausted: Bool = false
) {
    let readOnlyStore = open(.readOnly, fileSystem(with: files), "read-only")
    let readOnly = readOnlyStore.map { readEverything($0, "read-only") }

    let salvageStore = open(.salvage, fileSystem(with: files), "salvage")
    let salvage = salvageStore.map { readEverything($0, "salvage") }
    if let readOnly {
        guard let salvage else { fatalError("read-only open succeeded but salvage failed") }
        if salvage != readOnly {
            fatalError("salvage and read-only recovered different data: \(describeDifference(readOnly, salvage))")
        }
    }

    let writable = fileSystem(with: files)
    let readWriteStore = open(.readWrite, writable, "read-write")
    let readWrite = readWriteStore.map { readEverything($0, "read-write") }
    switch (readOnly, readWrite) {
    case (nil, nil): break
    case (let readOnly?, let readWrite?):
        if readOnly != readWrite {
            fatalError("read-only and read-write recovered different data: \(describeDifference(readOnly, readWrite))")
        }
    case (nil, _?) where readWriteMayCreate: break
    case (nil, _?): fatalError("read-write open succeeded where read-only failed")
    case (_?, nil): fatalError("read-only open succeeded where read-write failed")
    }
    if let readWriteStore, let readWrite {
        probeRoundTrip(readWriteStore, writable, contents: readWrite, "read-write", segmentNumbersExhausted: segmentNumbersExhausted)
    }
}
