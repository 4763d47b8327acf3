// MakeSeeds: writes the seed corpora of the fuzz targets, and replays inputs through the
// harnesses without libFuzzer. An ordinary program; build it without the fuzzer flags:
//
//   swift run MakeSeeds [CorpusDir]          write Corpus/SegmentFuzzer/*, Corpus/ManifestFuzzer/*,
//                                            Corpus/PredicateFuzzer/*, Corpus/OpsFuzzer/*,
//                                            Corpus/EvaluatorFuzzer/* and Corpus/HintFuzzer/*
//                                            (default ./Corpus), then
//                                            replay every seed
//   swift run MakeSeeds --replay TARGET FILE… run each FILE through TARGET's harness
//                                            (SegmentFuzzer, ManifestFuzzer, PredicateFuzzer,
//                                            OpsFuzzer, EvaluatorFuzzer or HintFuzzer); traps on a bug
//
// Store seeds are made through the public API of StrataStorage (real stores on a
// MemoryFileSystem), then cut, padded or damaged. Each starts with the mode byte its target reads
// (see FuzzSupport/*FuzzerTarget.swift). Predicate seeds are predicates in the format of
// Results.filter(_:_:) (valid and invalid) behind a header byte and argument selectors; ops seeds
// are short programs of object operations (OpsSeeds.swift); evaluator seeds an object graph and
// predicate bytes found by a seeded search (EvaluatorSeeds.swift). Every seed stays under 8 KiB.

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import FuzzSupport
@_spi(Testing) import StrataStorage

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
let commitRecordSize = RecordFormat.headerSize + RecordFormat.commitPayloadSize

func records(_ segment: [UInt8]) -> [UInt8] { Array(segment.dropFirst(SegmentHeader.size)) }

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
    ("damage-before-synced-commit", [0x00] + flipping(rich, at: SegmentHeader.size + 20)),
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

// MARK: - Predicates

/// A PredicateFuzzer input: header byte (argument count in bits 0–1, FuzzThing in bit 2), one
/// selector byte per argument (`0x60 + index` into the argument pool, so indexes 1–26 are the
/// letters a–z), then the predicate. Headers are letters too: '@' 'A' 'B' 'C' query FuzzDog
/// with 0–3 arguments, 'D' 'E' 'F' 'G' FuzzThing.
func predicate(_ text: String, thing: Bool = false, _ arguments: Int...) -> [UInt8] {
    precondition(arguments.count <= 3 && arguments.allSatisfy { (0..<32).contains($0) })
    let header = UInt8(0x40 | arguments.count | (thing ? 0x04 : 0))
    return [header] + arguments.map { UInt8(0x60 + $0) } + Array(text.utf8)
}

/// Argument pool indexes (PredicateFixtures.argumentPool).
enum Pool {
    static let int3 = 0, rex = 1, double12_5 = 2, yes = 3, null = 4, dateOfDog3 = 5, ageName = 6,
               intMin = 7, nan = 8, empty = 9, no = 10, uint64Max = 11, ints = 12, strings = 13,
               minusInfinity = 14, nickName = 15, decimal12_5 = 16, uuid = 17, objectId = 18,
               data = 19, managedDog = 20, unmanagedDog = 21, int8 = 22, float = 23,
               priceName = 24, nsNull = 25, anyValue = 26, doubles = 27, mixed = 28,
               pattern = 29, decimalNaN = 30, distantFuture = 31
}

let predicateSeeds: [(String, [UInt8])] = [
    // FuzzDog: operators, literals, options, logic.
    ("comparison", predicate("age == 3")),
    ("and-beginswith", predicate("name BEGINSWITH 'R' AND age > 2")),
    ("parentheses-or", predicate("(name == 'Fido' OR age > 5) AND alive == true")),
    ("not-symbols", predicate("NOT NOT age > 5 || !(alive == NO) && weight <> 3")),
    ("constant-predicates", predicate("truepredicate AND NOT FALSEPREDICATE")),
    ("number-literals", predicate("age == 0x7 OR age == 0b11 OR age == 0o12 OR weight == 1.25e1 OR weight => 825E-2")),
    ("signed-numbers", predicate("age > -1 AND age =< +3 OR weight < -1e300")),
    ("like-patterns", predicate(#"name LIKE[c] 'r*' OR name LIKE '?ido' OR name LIKE 'St\\*r\\?'"#)),
    ("case-insensitive-equality", predicate("name ==[c] 'REX' AND name !=[cd] 'fido'")),
    ("optional-string", predicate("nick == nil OR nick CONTAINS[c] 'E' OR nick ENDSWITH 'v' OR nick != NULL")),
    ("in-between", predicate("age IN {2, 3, 7} AND #age BETWEEN {0, 10}")),
    ("in-lists", predicate("nick IN {nil, 'fi'} OR name IN[c] {'REX', 'bella'} OR age in {}")),
    ("property-on-right", predicate("3 < age AND 'Rex' == name")),
    ("property-with-property", predicate("age < weight OR weight >= age")),
    ("primary-key", predicate("id == 3 AND alive == false")),
    ("indexed-name", predicate("name == 'Rex' OR name == \"Zo\u{E9}\"")),
    ("string-escapes", predicate(#"name == "\u00e9\t\n" OR name == 'O\'Brien' OR name == 'a\\b'"#)),
    ("unicode", predicate("name CONTAINS '名' OR name == '🐶' OR nick BEGINSWITH '🐶'")),
    // FuzzDog with arguments.
    ("argument-date", predicate("born >= %@", Pool.dateOfDog3)),
    ("argument-key", predicate("%K == %@", Pool.ageName, Pool.int3)),
    ("argument-keys", predicate("%K < %K", Pool.ageName, Pool.ageName)),
    ("argument-in-array", predicate("age IN %@", Pool.ints)),
    ("argument-in-strings", predicate("name IN[c] %@", Pool.strings)),
    ("argument-between-array", predicate("weight BETWEEN %@", Pool.doubles)),
    ("argument-bools", predicate("alive == %@ OR alive != %@", Pool.yes, Pool.no)),
    ("argument-numbers", predicate("age == %@ OR weight == %@ OR weight > %@", Pool.intMin, Pool.double12_5, Pool.nan)),
    ("argument-nil", predicate("nick == %@", Pool.null)),
    ("argument-nsnull-key", predicate("%K != %@", Pool.nickName, Pool.nsNull)),
    ("argument-like", predicate("name LIKE[c] %@ AND nick BEGINSWITH %@", Pool.pattern, Pool.empty)),
    ("argument-too-large", predicate("age < %@", Pool.uint64Max)),
    ("argument-between-list", predicate("age BETWEEN {%@, %@}", Pool.intMin, Pool.int3)),
    // Errors.
    ("unknown-property", predicate("agee > 3")),
    ("unterminated-string", predicate("name == 'Rex")),
    ("unsupported-specifiers", predicate("age > %d OR age > $x")),
    ("unbalanced", predicate("((((age == 3)")),
    ("unsupported-words", predicate("ANY age == 3 OR owner.name == 'x' OR name MATCHES 'x'")),
    ("out-of-range", predicate("age == 99999999999999999999 OR age == 0xFFFFFFFFFFFFFFFFFF OR weight == 1e999")),
    ("missing-argument", predicate("age > %@ AND name == %@", Pool.int3)),
    ("deep-nesting", predicate(String(repeating: "(", count: 98) + "NOT age == 3" + String(repeating: ")", count: 98))),
    ("long-chain", predicate((0..<60).map { "age == \($0)" }.joined(separator: " OR "))),
    // FuzzThing: conversions to Decimal128, Float, Int8, Data, UUID, ObjectId, links, AnyValue.
    ("thing-decimal", predicate("price > 1.5 AND price < 1E+10 OR price == 12.50 OR price == -0.001", thing: true)),
    ("thing-decimal-extremes", predicate("price == 1e-400 OR price >= 99999999999999999999999999999999999 OR price < -0", thing: true)),
    ("thing-small-numbers", predicate("ratio > 0.1 AND small >= -128 OR medium == nil OR medium < 1000", thing: true)),
    ("thing-int64", predicate("large == 9007199254740993 OR large > 9.007199254740992e15 OR large < -9223372036854775808", thing: true)),
    ("thing-strings-converted", predicate("blob == 'blob 1' OR ref == '00000000-0000-0000-0000-000000000001' OR oid == '000000000000000000001111'", thing: true)),
    ("thing-optional-date", predicate("when == nil OR when > %@", thing: true, Pool.dateOfDog3)),
    ("thing-mixed", predicate("mixed == 3 OR mixed BEGINSWITH 'R' OR mixed == nil OR mixed == 12.5", thing: true)),
    ("thing-link", predicate("owner == %@ OR owner == nil", thing: true, Pool.managedDog)),
    ("thing-unmanaged-link", predicate("owner != %@", thing: true, Pool.unmanagedDog)),
    ("thing-list-property", predicate("tags == 'x'", thing: true)),
    ("thing-primary-key", predicate("key == 'é' OR key == 'Rex'", thing: true)),
    ("thing-indexed-optional", predicate("code == 3 OR code == nil", thing: true)),
    ("thing-decimal-arguments", predicate("price == %@ OR price > %@ OR price != %@", thing: true, Pool.decimal12_5, Pool.nan, Pool.decimalNaN)),
    ("thing-typed-arguments", predicate("ref == %@ AND oid == %@ AND blob == %@", thing: true, Pool.uuid, Pool.objectId, Pool.data)),
    ("thing-small-arguments", predicate("small == %@ OR ratio < %@ OR mixed == %@", thing: true, Pool.int8, Pool.float, Pool.anyValue)),
    ("thing-key-argument", predicate("%K BETWEEN %@", thing: true, Pool.priceName, Pool.mixed)),
]

// MARK: - Hints

/// The rolled store's hint for segment 1 with its entries cut to none (count 0, checksum left
/// for mode bit 1 to repair).
let emptyHint: [UInt8] = {
    var bytes = Array(fixtures.rolledHint1.prefix(64)) + [0, 0, 0, 0]
    bytes.storeLE(UInt32(0), at: 60)
    return bytes
}()

let hintSeeds: [(String, [UInt8])] = [
    ("rolled-hint-matched-repaired", [0x03] + fixtures.rolledHint1),
    ("rolled-hint-as-written", [0x00] + fixtures.rolledHint1),
    ("rolled-hint-unrepaired-match", [0x01] + fixtures.rolledHint1),
    ("no-entries-repaired", [0x03] + emptyHint),
    ("cut-in-header", [0x00] + fixtures.rolledHint1.prefix(40)),
    ("empty", [0x03]),
]

// MARK: - DictionaryFuzzer

let dictionarySegment = DictionaryFixture.shared.segment
let dictionarySeeds: [(String, [UInt8])] = [
    ("as-written", [0x00] + dictionarySegment),
    ("records-repaired", [0x03] + records(dictionarySegment)),
    ("dictionary-byte-flipped-repaired", [0x03] + flipping(records(dictionarySegment), at: RecordFormat.headerSize + 40)),
    ("first-put-flipped-repaired", [0x03] + flipping(records(dictionarySegment), at: dictionaryRecordLength + RecordFormat.headerSize + 12)),
    ("dictionary-id-changed", [0x07] + flipping(Array(dictionarySegment.prefix(SegmentHeader.size)), at: 16) + records(dictionarySegment)),
    ("no-dictionary-record", [0x03] + records(dictionarySegment).dropFirst(dictionaryRecordLength)),
]
/// Bytes of the fixture's dictionary record.
var dictionaryRecordLength: Int {
    RecordFormat.headerSize + Int(dictionarySegment.loadLE(at: SegmentHeader.size + 4, as: UInt32.self))
}

// MARK: - Main

func replay(_ target: String, _ input: [UInt8]) -> CInt {
    switch target {
    case "SegmentFuzzer": return runSegmentInput(input)
    case "ManifestFuzzer": return runManifestInput(input)
    case "PredicateFuzzer": return runPredicateInput(input)
    case "OpsFuzzer": return runOpsInput(input)
    case "EvaluatorFuzzer": return runEvaluatorInput(input)
    case "HintFuzzer": return runHintInput(input)
    case "DictionaryFuzzer": return runDictionaryInput(input)
    default: fatalError("unknown target \(target): SegmentFuzzer, ManifestFuzzer, PredicateFuzzer, OpsFuzzer, EvaluatorFuzzer or HintFuzzer")
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
        for (target, seeds) in [
            ("SegmentFuzzer", segmentSeeds), ("ManifestFuzzer", manifestSeeds), ("PredicateFuzzer", predicateSeeds),
            ("OpsFuzzer", opsSeeds), ("EvaluatorFuzzer", evaluatorSeeds), ("HintFuzzer", hintSeeds),
            ("DictionaryFuzzer", dictionarySeeds),
        ] {
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
