// The DictionaryFuzzer target: recovery and reads of a fuzzed compacted segment that carries a
// zstd dictionary (its dictionary record and the puts compressed with it, flags 0x03).
//
// Input: one mode byte, then segment bytes.
//
//   mode bit 0 (0x01)  prepend the fixture segment's valid 64-byte header (compacted, naming
//                      the fixture's dictionary): the rest of the input is records only, the
//                      dictionary record first. Clear: the rest is the whole file.
//   mode bit 1 (0x02)  repair every record checksum along the length chain after the header
//                      (the dictionary record's included), so that mutations reach the
//                      dictionary loader and the decompression of each value.
//   mode bit 2 (0x04)  repair the header checksum (explores the dictionary id field).
//   other bits         ignored.
//
// The bytes replace the first compacted segment of a real store written with dictionaries on
// (Fixtures.dictionaryStore: two compacted segments with a dictionary, then a log segment);
// the other files are kept. The store is recovered three ways and every value read, with the
// oracles of `recoverThreeWays` (SegmentFuzzerTarget.swift): each open and each read succeeds
// or throws StrataError, never traps.
//
// Seeds: Corpus/DictionaryFuzzer, written by Tools/MakeSeeds.

@_spi(Testing) import StrataStorage

/// Runs one DictionaryFuzzer input (mode byte + bytes, see the file header). Traps on a bug.
public func runDictionaryInput(_ input: [UInt8]) -> CInt {
    guard let mode = input.first else { return 0 }
    let fixture = DictionaryFixture.shared
    var segment = Array(input.dropFirst())
    if mode & 0x01 != 0 { segment = Array(fixture.segment.prefix(SegmentHeader.size)) + segment }
    if mode & 0x02 != 0 { Repair.recordChecksums(&segment) }
    if mode & 0x04 != 0 { Repair.segmentHeaderChecksum(&segment) }
    let files = fixture.files.map { path, bytes in (path, path == fixture.path ? segment : bytes) }
    recoverThreeWays(files, readWriteMayCreate: false)
    return 0
}

/// A store written with dictionaries on: small similar values, compacted.
public struct DictionaryFixture: Sendable {
    /// Every file of the store (MANIFEST, segments, hints).
    public var files: [(String, [UInt8])]
    /// The path of the compacted segment the input replaces, and its bytes as written.
    public var path: String
    public var segment: [UInt8]

    public static let shared: DictionaryFixture = {
        do { return try DictionaryFixture() } catch { fatalError("dictionary fixture: \(error)") }
    }()

    init() throws {
        let fileSystem = MemoryFileSystem()
        var options = fuzzOptions(.readWrite, fileSystem: fileSystem)
        options.dictionaryCompression = .always
        options.compaction = .manual
        let store = try Store(directory: fuzzDirectory, options: options)
        for round in 0..<12 {
            var batch = WriteBatch()
            for id in 0..<6 {
                let n = round * 6 + id
                let value = "{\"id\":\(n),\"name\":\"customer-\(n % 9)\",\"city\":\"\(["Lyon", "Oslo"][n % 2])\",\"tier\":\(n % 4)}"
                batch.put(Array(value.utf8), forKey: StorageKey(UInt64(n)), in: Keyspace(UInt32(1 + n % 2)))
            }
            try store.commit(batch)
        }
        _ = try store.compact()
        try store.close()
        let names = try fileSystem.contentsOfDirectory(fuzzDirectory).sorted()
        files = names.filter { $0 == "MANIFEST" || $0.hasSuffix(".seg") || $0.hasSuffix(".hint") }
            .map { (fuzzDirectory + "/" + $0, fileSystem.contents(of: fuzzDirectory + "/" + $0)!) }
        guard let first = files.first(where: {
            $0.0.hasSuffix(".seg") && $0.1.count > SegmentHeader.size && $0.1.loadLE(at: 16, as: UInt32.self) != 0
        }) else {
            fatalError("dictionary fixture: no segment with a dictionary")
        }
        (path, segment) = first
    }
}
