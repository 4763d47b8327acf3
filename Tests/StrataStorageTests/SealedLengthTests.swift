import XCTest
@_spi(Testing) @testable import StrataStorage

/// The sealed length in a segment's header: a roll and a compaction record it, and recovery
/// refuses a sealed or compacted segment cut short, even exactly where a record starts (which
/// leaves only whole records, that every checksum accepts).
final class SealedLengthTests: XCTestCase {
    // MARK: - Helpers

    /// One put of a 100-byte value per commit: about 24 commits per 4 KiB segment.
    func batch(_ i: Int) -> WriteBatch {
        var batch = WriteBatch()
        batch.put(Array(repeating: UInt8(i & 0xFF), count: 100), forKey: StorageKey(UInt64(i)), in: Keyspace(1))
        return batch
    }

    /// Commits `range`, one batch each.
    func commit(_ range: Range<Int>, to store: Store) throws {
        for i in range { try store.commit(batch(i)) }
    }

    /// A closed store of `commits` commits over several log segments.
    func closedStore(commits: Int = 60) throws -> MemoryFileSystem {
        let fileSystem = MemoryFileSystem()
        let store = try openStore(fileSystem)
        try commit(0..<commits, to: store)
        try store.close()
        return fileSystem
    }

    func header(_ fileSystem: MemoryFileSystem, _ path: String) throws -> SegmentHeader {
        let bytes = try XCTUnwrap(fileSystem.contents(of: path))
        return try bytes.withUnsafeBytes { try SegmentHeader.decode($0, file: path) }
    }

    func path(_ number: UInt32) -> String { "/db/" + SegmentFile.name(for: number) }

    func listedSegments(_ fileSystem: MemoryFileSystem) throws -> [UInt32] {
        try XCTUnwrap(Manifest.read(in: "/db", fileSystem: fileSystem)).segments
    }

    /// Where each record of an intact segment starts (walking the frames' length fields).
    func recordStarts(_ bytes: [UInt8]) -> [Int] {
        var starts: [Int] = []
        var offset = SegmentHeader.size
        while offset + RecordFormat.headerSize <= bytes.count {
            starts.append(offset)
            let length = bytes.withUnsafeBytes { $0.loadLittleEndian(at: offset + 4, as: UInt32.self) }
            offset += RecordFormat.headerSize + Int(length)
        }
        return starts
    }

    /// Cuts the file at `path` where its middle put record starts (a transaction boundary in a
    /// log segment); returns the cut's offset.
    @discardableResult
    func cutAtAPutInTheMiddle(_ fileSystem: MemoryFileSystem, _ path: String) throws -> Int {
        let bytes = try XCTUnwrap(fileSystem.contents(of: path))
        let puts = recordStarts(bytes).filter { bytes[$0 + 8] == RecordKind.put.rawValue }
        XCTAssertGreaterThan(puts.count, 2, "\(path) holds too few records to cut in the middle")
        let cut = puts[puts.count / 2]
        fileSystem.setContents(Array(bytes[..<cut]), of: path)
        return cut
    }

    /// Asserts that read-only and read-write opens both refuse the store with `.corruption`
    /// naming `path` at `offset`.
    func assertCorruption(_ fileSystem: MemoryFileSystem, at path: String, offset: Int, line: UInt = #line) {
        for readOnly in [true, false] {
            XCTAssertThrowsError(try openStore(fileSystem, readOnly: readOnly), "readOnly \(readOnly)", line: line) { error in
                let error = error as? StrataError
                XCTAssertEqual(error?.code, .corruption, "\(String(describing: error))", line: line)
                XCTAssertEqual(error?.file, path, line: line)
                XCTAssertEqual(error?.offset, offset, line: line)
            }
        }
    }

    /// The keys 0..<count, as `batch` puts them.
    func keys(_ count: Int) -> Set<StorageKey> { Set((0..<count).map { StorageKey(UInt64($0)) }) }

    /// The file system a crash leaves right after a roll sealed segment 1 and before segment 2
    /// was made durable: MANIFEST lists segment 1 alone, whose header carries its sealed length.
    func crashedAfterTheFirstSeal() throws -> (MemoryFileSystem, committed: Int) {
        let fileSystem = MemoryFileSystem()
        let image = Locked<MemoryFileSystem?>(nil)
        fileSystem.setSyncHook { [unowned fileSystem] event in
            guard event.path.hasSuffix("000002.seg"), image.withLock({ $0 == nil }) else { return }
            image.withLock { $0 = fileSystem.crashImage(.dropAll) }
            throw SimulatedCrash()
        }
        let store = try openStore(fileSystem)
        var committed = 0
        while (try? store.commit(batch(committed))) != nil { committed += 1 }
        let crashed = try XCTUnwrap(image.withLock { $0 })
        XCTAssertEqual(try listedSegments(crashed), [1])
        let sealed = try header(crashed, path(1)).sealedLength
        XCTAssertEqual(sealed, UInt64(try XCTUnwrap(crashed.contents(of: path(1))).count))
        return (crashed, committed)
    }

    // MARK: - Writing the sealed length

    func testSealedLengthIsALittleEndianU64AtByte32UnderTheHeaderChecksum() throws {
        var header = SegmentHeader(segmentNumber: 3, seal: RecordSeal(salt: 0xA1B2_C3D4))
        header.sealedLength = 0x0102_0304_0506_0708
        let bytes = header.encoded()
        XCTAssertEqual(Array(bytes[32..<40]), [8, 7, 6, 5, 4, 3, 2, 1])
        XCTAssertEqual(Array(bytes[29..<32]) + Array(bytes[40..<60]), Array(repeating: 0, count: 23))
        XCTAssertEqual(try bytes.withUnsafeBytes { try SegmentHeader.decode($0, file: "x") }, header)
        var flipped = bytes
        flipped[33] ^= 1
        XCTAssertThrowsError(try flipped.withUnsafeBytes { try SegmentHeader.decode($0, file: "x") })
    }

    func testRollRecordsEachSealedLogSegmentsLengthAndLeavesTheNewestUnsealed() throws {
        let fileSystem = try closedStore()
        let listed = try listedSegments(fileSystem)
        XCTAssertGreaterThan(listed.count, 2)
        for number in listed.dropLast() {
            let size = try XCTUnwrap(fileSystem.contents(of: path(number))).count
            XCTAssertEqual(try header(fileSystem, path(number)).sealedLength, UInt64(size), "segment \(number)")
        }
        XCTAssertEqual(try header(fileSystem, path(listed.last!)).sealedLength, 0)
    }

    func testCompactionRecordsEachOutputSegmentsLength() throws {
        let fileSystem = MemoryFileSystem()
        let store = try openStore(fileSystem)
        try commit(0..<120, to: store)
        XCTAssertTrue(try store.compact().didCompact)
        try store.close()
        let compacted = try listedSegments(fileSystem).filter { try header(fileSystem, path($0)).kind == .compacted }
        XCTAssertGreaterThan(compacted.count, 1)
        for number in compacted {
            let size = try XCTUnwrap(fileSystem.contents(of: path(number))).count
            XCTAssertEqual(try header(fileSystem, path(number)).sealedLength, UInt64(size), "segment \(number)")
        }
    }

    // MARK: - Recovery

    func testSealedLogSegmentCutWhereARecordStartsIsCorruptionAtTheCut() throws {
        let fileSystem = try closedStore()
        let first = try listedSegments(fileSystem)[0]
        let cut = try cutAtAPutInTheMiddle(fileSystem, path(first))
        assertCorruption(fileSystem, at: path(first), offset: cut)
    }

    func testCompactedSegmentCutWhereARecordStartsIsCorruptionAtTheCut() throws {
        let fileSystem = MemoryFileSystem()
        let store = try openStore(fileSystem)
        try commit(0..<120, to: store)
        XCTAssertTrue(try store.compact().didCompact)
        try commit(120..<130, to: store)
        try store.close()
        let first = try listedSegments(fileSystem)[0]
        XCTAssertEqual(try header(fileSystem, path(first)).kind, .compacted)
        let cut = try cutAtAPutInTheMiddle(fileSystem, path(first))
        assertCorruption(fileSystem, at: path(first), offset: cut)
    }

    func testSalvageOfACutSealedSegmentKeepsItsTransactionsAndReadsNothingAfter() throws {
        let fileSystem = try closedStore()
        let first = try listedSegments(fileSystem)[0]
        let cut = try cutAtAPutInTheMiddle(fileSystem, path(first))
        let kept = recordStarts(try XCTUnwrap(fileSystem.contents(of: path(first)))).count / 2  // put + commit each

        let store = try openStore(fileSystem, readOnly: true, salvage: true)
        XCTAssertEqual(Set(store.snapshot().keys(in: Keyspace(1))), keys(kept))
        let salvaged = store.recoveryEvents.filter { $0.kind == .salvagedCorruption }
        XCTAssertEqual(salvaged.map(\.file), [path(first)])
        XCTAssertEqual(salvaged.map(\.offset), [cut])
    }

    func testNewestSegmentCarryingASealedLengthCutWhereARecordStartsEndsTheLogThere() throws {
        let (fileSystem, _) = try crashedAfterTheFirstSeal()
        try cutAtAPutInTheMiddle(fileSystem, path(1))
        let kept = recordStarts(try XCTUnwrap(fileSystem.contents(of: path(1)))).count / 2
        for readOnly in [true, false] {
            let store = try openStore(fileSystem, readOnly: readOnly)
            XCTAssertEqual(Set(store.snapshot().keys(in: Keyspace(1))), keys(kept), "readOnly \(readOnly)")
            XCTAssertEqual(store.recoveryEvents.filter { $0.kind == .salvagedCorruption }, [])
            try store.close()
        }
    }

    func testNewestSegmentCarryingASealedLengthTakesCommitsAndIsSealedAgainByTheNextRoll() throws {
        let (fileSystem, committed) = try crashedAfterTheFirstSeal()
        let store = try openStore(fileSystem)
        var next = committed
        while try listedSegments(fileSystem).count < 2 {
            try store.commit(batch(next))
            next += 1
        }
        try store.close()
        let size = try XCTUnwrap(fileSystem.contents(of: path(1))).count
        XCTAssertEqual(try header(fileSystem, path(1)).sealedLength, UInt64(size))
        XCTAssertEqual(Set(try openStore(fileSystem).snapshot().keys(in: Keyspace(1))), keys(next))
    }

    /// Segments sealed by a build that predates the field read 0 and are not checked: they
    /// keep the weakness (a cut where a record starts goes unnoticed), and they open.
    func testSegmentsSealedWithoutALengthAreNotChecked() throws {
        let fileSystem = try closedStore()
        let listed = try listedSegments(fileSystem)
        for number in listed.dropLast() {
            var bytes = try XCTUnwrap(fileSystem.contents(of: path(number)))
            var old = try header(fileSystem, path(number))
            old.sealedLength = 0
            bytes.replaceSubrange(0..<SegmentHeader.size, with: old.encoded())
            fileSystem.setContents(bytes, of: path(number))
        }
        XCTAssertEqual(try openStore(fileSystem, readOnly: true).snapshot().count, 60)
        try cutAtAPutInTheMiddle(fileSystem, path(listed[0]))
        XCTAssertNoThrow(try openStore(fileSystem, readOnly: true))
    }

    /// Only a build that predates the field appends past a recorded sealed length (to a newest
    /// segment that a crash left with one); the records past it are read as any others.
    func testSealedSegmentLongerThanItsSealedLengthOpens() throws {
        let fileSystem = try closedStore()
        let first = try listedSegments(fileSystem)[0]
        var bytes = try XCTUnwrap(fileSystem.contents(of: path(first)))
        let starts = recordStarts(bytes).filter { bytes[$0 + 8] == RecordKind.put.rawValue }
        var stale = try header(fileSystem, path(first))
        stale.sealedLength = UInt64(starts[starts.count / 2])
        bytes.replaceSubrange(0..<SegmentHeader.size, with: stale.encoded())
        fileSystem.setContents(bytes, of: path(first))
        XCTAssertEqual(try openStore(fileSystem, readOnly: true).snapshot().count, 60)
        XCTAssertEqual(try openStore(fileSystem).snapshot().count, 60)
    }
}
