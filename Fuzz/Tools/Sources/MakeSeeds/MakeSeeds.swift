// MakeSeeds: writes the seed corpora of the fuzz targets, and replays inputs through the
// harnesses without libFuzzer. An ordinary program; build it without the fuzzer flags:
//
//   swift run MakeSeeds [CorpusDir]          write Corpus/SegmentFuzzer/* and Corpus/ManifestFuzzer/*
//                                            (default ./Corpus), then replay every seed
//   swift run MakeSeeds --replay TARGET FILE… run each FILE through TARGET's harness
//                                            (SegmentFuzzer or ManifestFuzzer); traps on a bug
//
// Seeds are made through the public API of StrataStorage (real stores on a MemoryFileSystem),
// then cut, padded or damaged. Each starts with the mode byte its target reads (see
// FuzzSupport/*FuzzerTarget.swift). Every seed stays under 8 KiB.

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import FuzzSupport
import StrataStorage

// MARK: - Files

func writeFile(_ path: String, _ bytes: [UInt8]) {
    guard let file = fopen(path, "wb") else { fatalError("cannot create \(path): errno \(errno)") }
    defer { fclose(file) }
    let written = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
    guard written == bytes.count else { fatalError("short write to \(path)") }
}

func readFile(_ path: String) -> [UInt8] {
    guard let file = fopen(path, "rb") else { fatalError("cannot open \(path): errno \(errno)") }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
        let count = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
        if count == 0 { break }
        bytes += chunk[0..<count]
    }
    return bytes
}

func makeDirectory(_ path: String) {
    var prefix = path.hasPrefix("/") ? "/" : ""
    for component in path.split(separator: "/") {
        prefix += component + "/"
        if mkdir(prefix, 0o755) != 0 && errno != EEXIST { fatalError("mkdir \(prefix): errno \(errno)") }
    }
}

// MARK: - Stores made through the public API

/// Runs `body` on a new read-write store on a fresh MemoryFileSystem; returns the file system.
func makeStore(
    durability: Durability = .full, segmentSize: Int = 64 << 20, _ body: (Store) throws -> Void
) -> MemoryFileSystem {
    let fileSystem = MemoryFileSystem()
    var options = Store.Options()
    options.fileSystem = fileSystem
    options.durability = durability
    options.segmentSize = segmentSize
    do {
        let store = try Store(directory: fuzzDirectory, options: options)
        try body(store)
        try store.close()
    } catch {
        fatalError("MakeSeeds: building a store failed: \(error)")
    }
    return fileSystem
}

func commit(_ store: Store, _ build: (inout WriteBatch) -> Void) throws {
    var batch = WriteBatch()
    build(&batch)
    try store.commit(batch)
}

/// 5,000 bytes of repetitive text: compressed (threshold 4,096) to a few dozen bytes.
let compressibleText = Array(String(repeating: "strata fuzz seed, compressible text. ", count: 136).utf8)

/// Puts, deletes, a compressed value, a long (heap) key, an empty value, three keyspaces.
let richStore = makeStore { store in
    try commit(store) { batch in
        batch.put(Array("one".utf8), forKey: StorageKey("k1"), in: Keyspace(1))
        batch.put(Array("two".utf8), forKey: StorageKey("k2"), in: Keyspace(1))
        batch.put(Array("three".utf8), forKey: StorageKey(UInt64(3)), in: Keyspace(1))
    }
    try commit(store) { batch in
        batch.put(Array("other keyspace".utf8), forKey: StorageKey("k1"), in: Keyspace(2))
        batch.delete(StorageKey("k2"), in: Keyspace(1))
        batch.put(Array("one, overwritten".utf8), forKey: StorageKey("k1"), in: Keyspace(1))
    }
    try commit(store) { batch in
        batch.put(compressibleText, forKey: StorageKey("compressed"), in: Keyspace(3))
    }
    try commit(store) { batch in
        batch.put([], forKey: StorageKey("a key longer than fifteen bytes"), in: Keyspace(2))
        batch.delete(StorageKey("never existed"), in: Keyspace(7))
    }
}
let rich = richStore.contents(of: FuzzPath.segment(1))!

/// One transaction holding the compressed value only.
let compressedOnly = makeStore { store in
    try commit(store) { $0.put(compressibleText, forKey: StorageKey(UInt64(42)), in: Keyspace(9)) }
}.contents(of: FuzzPath.segment(1))!

/// Commits with `.none` durability: every commit's synced-through is the header size, so damage
/// anywhere after it may be a torn write.
let unsynced = makeStore(durability: .none) { store in
    for round in 0..<3 {
        try commit(store) { batch in
            batch.put(Array("unsynced \(round)".utf8), forKey: StorageKey(UInt64(round)), in: Keyspace(1))
            batch.delete(StorageKey(UInt64(round + 100)), in: Keyspace(1))
        }
    }
}.contents(of: FuzzPath.segment(1))!

let fixtures = Fixtures.shared
let header = fixtures.segmentHeader
let commitRecordSize = Layout.recordHeaderSize + 16

func records(_ segment: [UInt8]) -> [UInt8] { Array(segment.dropFirst(Layout.segmentHeaderSize)) }

func flipping(_ bytes: [UInt8], at offset: Int) -> [UInt8] {
    var copy = bytes
    copy[offset] ^= 0x5A
    return copy
}

/// A header with another version, checksum repaired by mode bit 2.
let versionTwoHeader: [UInt8] = {
    var bytes = header
    bytes.storeLE(UInt16(2), at: 8)
    return bytes
}()

let segmentSeeds: [(String, [UInt8])] = [
    ("empty-segment", [0x00] + fixtures.emptySegment),
    ("header-only-via-mode", [0x01]),
    ("rich-whole-file", [0x00] + rich),
    ("rich-records", [0x01] + records(rich)),
    ("rich-records-crc-repaired", [0x03] + records(rich)),
    ("compressed-value-records", [0x03] + records(compressedOnly)),
    ("rich-records-transactions-repaired", [0x09] + records(rich)),
    ("unsynced-transactions-repaired", [0x09] + records(unsynced)),
    ("unsynced-records", [0x03] + records(unsynced)),
    ("torn-last-record", [0x00] + rich.dropLast(9)),
    ("torn-unsynced", [0x01] + records(unsynced).dropLast(20)),
    ("zero-filled-tail", [0x00] + rich + [UInt8](repeating: 0, count: 200)),
    ("uncommitted-last-transaction", [0x00] + rich.dropLast(commitRecordSize)),
    ("damage-before-synced-commit", [0x00] + flipping(rich, at: Layout.segmentHeaderSize + 20)),
    ("damage-in-unsynced", [0x01] + flipping(records(unsynced), at: 20)),
    ("sealed-segment-of-rolled-store", [0x00] + fixtures.rolledSegment1),
    ("header-says-segment-2", [0x00] + fixtures.rolledSegment2),
    ("version-2-header", [0x06] + versionTwoHeader + records(rich)),
]

// MARK: - Manifests

let manifestSeeds: [(String, [UInt8])] = [
    ("new-store", [0x00] + fixtures.manifest),
    ("new-store-repaired", [0x03] + fixtures.manifest),
    ("rolled-store", [0x04] + fixtures.rolledManifest),
    ("rolled-store-repaired", [0x07] + fixtures.rolledManifest),
    ("rolled-segment-2-only", [0x04] + Build.manifest(segments: [2], lastSequence: 0)),
    ("rolled-segment-1-only", [0x04] + Build.manifest(segments: [1], lastSequence: 2)),
    ("rolled-out-of-order", [0x04] + Build.manifest(segments: [2, 1], lastSequence: 0)),
    ("last-sequence-ahead", [0x00] + Build.manifest(segments: [1], lastSequence: 1_000_000)),
    ("missing-segment", [0x00] + Build.manifest(segments: [1, 7], lastSequence: 0)),
    ("cut-short", [0x00] + fixtures.manifest.prefix(20)),
    ("renumbered-large-numbers", [0x0C] + Build.manifest(segments: [1_234_567, 99_999_999], lastSequence: 4)),
    ("renumbered-single", [0x08] + Build.manifest(segments: [3], lastSequence: 0)),
    ("no-manifest-new-store", [0x10]),
    ("no-manifest-rolled-store", [0x14]),
    ({ () -> (String, [UInt8]) in
        var manifest = fixtures.manifest
        manifest.storeLE(UInt16(2), at: 8)
        return ("version-2", [0x01] + manifest)
    })(),
]

// MARK: - Main

func replay(_ target: String, _ input: [UInt8]) -> CInt {
    switch target {
    case "SegmentFuzzer": return runSegmentInput(input)
    case "ManifestFuzzer": return runManifestInput(input)
    default: fatalError("unknown target \(target): SegmentFuzzer or ManifestFuzzer")
    }
}

@main
struct MakeSeeds {
    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.first == "--replay" {
            guard arguments.count >= 3 else { fatalError("usage: MakeSeeds --replay TARGET FILE…") }
            for path in arguments.dropFirst(2) {
                let result = replay(arguments[1], readFile(path))
                print("\(path): ran clean\(result == -1 ? " (skipped: known issue)" : "")")
            }
            return
        }

        let corpus = arguments.first ?? "Corpus"
        for (target, seeds) in [("SegmentFuzzer", segmentSeeds), ("ManifestFuzzer", manifestSeeds)] {
            let directory = corpus + "/" + target
            makeDirectory(directory)
            for (name, bytes) in seeds {
                guard bytes.count < 8192 else { fatalError("seed \(name) is \(bytes.count) bytes") }
                _ = replay(target, bytes)
                writeFile(directory + "/" + name, bytes)
            }
            print("\(directory): \(seeds.count) seeds, \(seeds.map(\.1.count).reduce(0, +)) bytes, all replayed clean")
        }
    }
}
