// The HintFuzzer target: recovery of a store whose hint file for sealed segment 1 is fuzzed
// (the hint decoder, Log/HintFile+Decode.swift, and Engine/Recovery/Recovery+Hint.swift).
//
// Input: one mode byte, then the bytes of 000001.hint.
//
//   mode bit 0 (0x01)  make the hint name segment 1 exactly as its header does (kind, number,
//                      salt and sealed length at bytes 10, 12, 16 and 24), when the header is
//                      whole, so that mutations reach the entries.
//   mode bit 1 (0x02)  repair the hint checksum (the last 4 bytes, over every byte before),
//                      applied after bit 0.
//   other bits         ignored.
//
// The files are the rolled store of the fixtures (MANIFEST, 000001.seg sealed, 000002.seg)
// plus the fuzzed hint. The store is opened read-only and read-write; each open must succeed
// or throw StrataError, and every read must give a value or throw StrataError. Oracle: when
// the hint's checksum does not hold, the hint is ignored, so both opens recover exactly what
// the store holds without a hint (a hint whose checksum holds is trusted as Bitcask trusts
// one: a lying one may point at the wrong bytes, which the record checksums then refuse).
// Whatever the hint says, a read never gives a key a value the workload did not write to that
// key: a hint entry pointing at another key's record is `.corruption` (every read compares the
// record's key with the one asked for); each fixture key was written once, with its own value.
//
// Seeds: Corpus/HintFuzzer, written by Tools/MakeSeeds.

@_spi(Testing) import StrataStorage

/// Runs one HintFuzzer input (mode byte + bytes, see the file header). Traps on a bug.
public func runHintInput(_ input: [UInt8]) -> CInt {
    guard let mode = input.first else { return 0 }
    var hint = Array(input.dropFirst())
    let fixtures = Fixtures.shared
    let segment = fixtures.rolledSegment1
    if mode & 0x01 != 0, hint.count >= 32 {
        hint[10] = 0  // a log segment
        hint.storeLE(UInt32(1), at: 12)
        hint.storeLE(segment.loadLE(at: SegmentHeader.saltOffset, as: UInt32.self), at: 16)
        hint.storeLE(UInt64(segment.count), at: 24)
    }
    if mode & 0x02 != 0 { Repair.manifestChecksum(&hint) }  // a hint ends in a checksum of the same kind
    let checksumHolds = hint.count >= 4
        && hint.loadLE(at: hint.count - 4, as: UInt32.self) == maskedChecksum(hint.dropLast(4))

    let base: [(String, [UInt8])] = [
        (FuzzPath.manifest, fixtures.rolledManifest), (FuzzPath.segment(1), segment),
        (FuzzPath.segment(2), fixtures.rolledSegment2),
    ]
    let files = base + [(FuzzPath.hint(1), hint)]
    for mode in [OpenMode.readOnly, .readWrite] {
        let store = openWithHints(mode, fileSystem(with: files), "hinted \(mode.rawValue)")
        let contents = store.map { readEverything($0, "hinted \(mode.rawValue)") }
        try? store?.close()
        checkNoValueOfAnotherKey(contents ?? [:], written: fixtures.rolledValues, "hinted \(mode.rawValue)")
        guard !checksumHolds else { continue }
        let plain = open(mode, fileSystem(with: base), "plain \(mode.rawValue)")
        let expected = plain.map { readEverything($0, "plain \(mode.rawValue)") }
        try? plain?.close()
        guard let contents, let expected, contents == expected else {
            fatalError("a hint that fails its checksum changed what \(mode.rawValue) recovery gives")
        }
    }
    return 0
}

/// Traps when a read gave a key a value the workload never wrote to it (`written`: the one
/// value each key was given; reads of keys it never wrote must throw).
func checkNoValueOfAnotherKey(_ contents: [Entry: ReadOutcome], written: [Entry: [UInt8]], _ context: String) {
    for (entry, outcome) in contents {
        guard case .value(let value) = outcome else { continue }
        guard written[entry] == value else {
            fatalError("\(context): \(entry) read a value the workload never wrote to it (another key's record)")
        }
    }
}

/// Opens the harness store as `open` does, with `openWithHints`.
func openWithHints(_ mode: OpenMode, _ fileSystem: MemoryFileSystem, _ context: String) -> Store? {
    expectingStrataError("\(context): open \(mode.rawValue)") {
        var options = fuzzOptions(mode, fileSystem: fileSystem)
        options.openWithHints = true
        let store = try Store(directory: fuzzDirectory, options: options)
        if KnownIssues.verbose {
            note("  \(context): opened, \(store.snapshot().count) keys, sequence \(store.sequence)")
            for event in store.recoveryEvents { note("    event \(event)") }
        }
        return store
    }
}
