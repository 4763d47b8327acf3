import XCTest
@_spi(Testing) @testable import StrataStorage

/// Recovery in the cases its main tests pass by: read-only opens, records that belong to no
/// commit, a repeated sequence, damage at the end of a sealed segment, and unlisted segments
/// when the MANIFEST is missing.
final class RecoveryEdgeTests: XCTestCase {
    let segment1 = "/db/000001.seg"

    /// Appends a put of "v" under `key` to `buffer`, whose first byte is at file offset `base`
    /// of a segment sealed with `seal`.
    func putRecord(sequence: UInt64, key: String, into buffer: inout [UInt8], seal: RecordSeal = .unsalted, at base: Int = 0) {
        Array("v".utf8).withUnsafeBytes { value in
            _ = RecordEncoder.appendPut(
                to: &buffer, sequence: sequence, keyspace: Keyspace(1), key: StorageKey(key),
                value: value, compression: CompressionPolicy(threshold: .max, level: 3), seal: seal, bufferOffset: base)
        }
    }

    /// The seal of the segment at `path` and its length: where records appended to it start.
    func tail(of path: String, in fileSystem: MemoryFileSystem) throws -> (seal: RecordSeal, end: Int) {
        let bytes = try XCTUnwrap(fileSystem.contents(of: path))
        let header = try bytes.withUnsafeBytes { try SegmentHeader.decode(UnsafeRawBufferPointer(rebasing: $0[..<SegmentHeader.size]), file: path) }
        return (header.recordSeal, bytes.count)
    }

    /// A read-only open reports a torn tail but neither cuts it off nor syncs the segment.
    func testReadOnlyOpenLeavesATornTailInPlaceAndSyncsNothing() throws {
        let fileSystem = try storeWithThreeCommits()
        let (seal, end) = try tail(of: segment1, in: fileSystem)
        var torn: [UInt8] = []
        putRecord(sequence: 4, key: "torn", into: &torn, seal: seal, at: end)
        append(Array(torn.dropLast(3)), to: segment1, in: fileSystem)
        let before = fileSystem.contents(of: segment1)
        let syncsBefore = fileSystem.syncCount

        let store = try openStore(fileSystem, segmentSize: 1 << 20, readOnly: true)
        XCTAssertEqual(store.sequence, 3)
        XCTAssertEqual(store.recoveryEvents.map(\.kind), [.tornTail])
        XCTAssertEqual(fileSystem.contents(of: segment1), before)
        XCTAssertEqual(fileSystem.syncCount, syncsBefore)
    }

    /// The records of a transaction whose commit never came (sequence 4) are skipped; the
    /// transaction after them (sequence 5) is applied on its own.
    func testRecordsOfAnUncommittedTransactionDoNotJoinTheNextCommittedOne() throws {
        let fileSystem = try storeWithThreeCommits()
        let (seal, end) = try tail(of: segment1, in: fileSystem)
        var records: [UInt8] = []
        putRecord(sequence: 4, key: "orphan", into: &records, seal: seal, at: end)
        putRecord(sequence: 5, key: "five", into: &records, seal: seal, at: end)
        _ = RecordEncoder.appendCommit(to: &records, sequence: 5, recordCount: 1, syncedThrough: 0, seal: seal, bufferOffset: end)
        append(records, to: segment1, in: fileSystem)

        let store = try openStore(fileSystem, segmentSize: 1 << 20)
        XCTAssertEqual(store.sequence, 5)
        XCTAssertEqual(try store.snapshot().value(for: StorageKey("five"), in: Keyspace(1)), Array("v".utf8))
        XCTAssertNil(try store.snapshot().value(for: StorageKey("orphan"), in: Keyspace(1)))
        XCTAssertEqual(store.snapshot().count, 4)
        XCTAssertEqual(store.recoveryEvents.map(\.kind), [.uncommittedTransaction])
    }

    /// A transaction that repeats the sequence of the last committed one is corruption, at the
    /// offset of its first record, even at the tail of the newest segment.
    func testTransactionRepeatingTheLastCommittedSequenceIsCorruption() throws {
        let fileSystem = try storeWithThreeCommits()
        let (seal, offset) = try tail(of: segment1, in: fileSystem)
        var records: [UInt8] = []
        putRecord(sequence: 3, key: "again", into: &records, seal: seal, at: offset)
        _ = RecordEncoder.appendCommit(to: &records, sequence: 3, recordCount: 1, syncedThrough: 0, seal: seal, bufferOffset: offset)
        append(records, to: segment1, in: fileSystem)
        XCTAssertThrowsError(try openStore(fileSystem, segmentSize: 1 << 20)) { error in
            XCTAssertEqual((error as? StrataError)?.code, .corruption)
            XCTAssertEqual((error as? StrataError)?.file, segment1)
            XCTAssertEqual((error as? StrataError)?.offset, offset)
        }
    }

    /// A sealed segment was synced when it was sealed, so even damage a crash could leave in
    /// the newest segment (a record cut short) is corruption at its end.
    func testRecordCutShortAtTheEndOfASealedSegmentIsCorruption() throws {
        let fileSystem = MemoryFileSystem()
        let store = try openStore(fileSystem, segmentSize: 4096, compressionThreshold: .max)
        for key in 0..<3 {
            var batch = WriteBatch()
            batch.put([UInt8](repeating: 1, count: 3000), forKey: StorageKey(UInt64(key)), in: Keyspace(1))
            try store.commit(batch)
        }
        try store.close()
        XCTAssertNotNil(fileSystem.contents(of: "/db/000002.seg"), "segment 1 should be sealed")
        let (seal, offset) = try tail(of: segment1, in: fileSystem)
        var torn: [UInt8] = []
        putRecord(sequence: 99, key: "torn", into: &torn, seal: seal, at: offset)
        append(Array(torn.dropLast(3)), to: segment1, in: fileSystem)
        XCTAssertThrowsError(try openStore(fileSystem, segmentSize: 4096)) { error in
            XCTAssertEqual((error as? StrataError)?.code, .corruption)
            XCTAssertEqual((error as? StrataError)?.file, segment1)
            XCTAssertEqual((error as? StrataError)?.offset, offset)
        }
    }

    /// With no MANIFEST, an unlisted segment of a newer format that holds bytes past its header
    /// is neither read nor deleted: the open fails with `.unsupportedFormat` and the file stays.
    func testUnlistedSegmentOfANewerFormatIsKeptWhenTheManifestIsMissing() throws {
        let fileSystem = MemoryFileSystem()
        var newer = SegmentHeader(segmentNumber: 1, seal: .unsalted)
        newer.version = SegmentHeader.currentVersion + 1
        fileSystem.setContents(newer.encoded() + [UInt8](repeating: 1, count: 100), of: segment1)
        XCTAssertThrowsError(try openStore(fileSystem)) { error in
            XCTAssertEqual((error as? StrataError)?.code, .unsupportedFormat)
        }
        XCTAssertEqual(fileSystem.contents(of: segment1)?.count, 164)
    }

    /// With no MANIFEST, an unlisted segment with a damaged header that holds bytes past it is
    /// not taken for a leftover: the open fails with `.corruption` naming MANIFEST, and the
    /// file stays (salvage can read it).
    func testUnlistedSegmentWithADamagedHeaderHoldingBytesIsKeptWhenTheManifestIsMissing() throws {
        let fileSystem = MemoryFileSystem()
        var damaged = SegmentHeader(segmentNumber: 7, seal: .unsalted).encoded()
        damaged[60] ^= 0xFF
        var records: [UInt8] = []
        putRecord(sequence: 1, key: "uncommitted", into: &records, at: SegmentHeader.size)
        fileSystem.setContents(damaged + records, of: "/db/000007.seg")
        XCTAssertThrowsError(try openStore(fileSystem)) { error in
            XCTAssertEqual((error as? StrataError)?.code, .corruption)
            XCTAssertEqual((error as? StrataError)?.file, "/db/MANIFEST")
        }
        XCTAssertEqual(fileSystem.contents(of: "/db/000007.seg"), damaged + records)
    }

    /// Damage in the second of three `.full` commits is below the synced point that only the
    /// third commit record, the last bytes of the file, declares: corruption, not a torn tail.
    func testDamageThatOnlyTheFilesLastCommitDeclaresSyncedIsCorruption() throws {
        let fileSystem = try storeWithThreeCommits()
        let store = try openStore(fileSystem, segmentSize: 1 << 20)
        let second = try XCTUnwrap(store.snapshot().index.location(of: StorageKey(UInt64(1)), in: Keyspace(1)))
        try store.close()
        fileSystem.corrupt(path: segment1, at: Int(second.offset) + 20, with: [0xEE])
        XCTAssertThrowsError(try openStore(fileSystem, segmentSize: 1 << 20)) { error in
            XCTAssertEqual((error as? StrataError)?.code, .corruption)
            XCTAssertEqual((error as? StrataError)?.offset, Int(second.offset))
        }
    }

    /// Damage that starts exactly at the offset a later commit declares synced was not synced:
    /// a crash tore the group written there (its commit survived, an earlier sector did not).
    func testDamageStartingExactlyAtTheSyncedPointIsATornTail() throws {
        let fileSystem = try storeWithThreeCommits()
        let (seal, syncedEnd) = try tail(of: segment1, in: fileSystem)
        var group: [UInt8] = []
        putRecord(sequence: 4, key: "four", into: &group, seal: seal, at: syncedEnd)
        _ = RecordEncoder.appendCommit(to: &group, sequence: 4, recordCount: 1, syncedThrough: syncedEnd, seal: seal, bufferOffset: syncedEnd)
        group[20] ^= 0xFF  // a byte of the put: its checksum no longer matches
        append(group, to: segment1, in: fileSystem)

        let store = try openStore(fileSystem, segmentSize: 1 << 20)
        XCTAssertEqual(store.sequence, 3)
        XCTAssertEqual(store.recoveryEvents.map(\.kind), [.tornTail])
        XCTAssertEqual(store.recoveryEvents.first?.offset, syncedEnd)
        XCTAssertEqual(fileSystem.contents(of: segment1)?.count, syncedEnd)
    }

    /// The statistics of a reopened store count the records recovery read: here three puts and
    /// three commits, then one put whose commit declares the wrong count (salvage stops there).
    func testReopenedStoreCountsTheRecordsRecoveryRead() throws {
        let fileSystem = try storeWithThreeCommits()
        XCTAssertEqual(try openStore(fileSystem, segmentSize: 1 << 20).statistics().records, 6)
        let (seal, end) = try tail(of: segment1, in: fileSystem)
        var records: [UInt8] = []
        putRecord(sequence: 4, key: "four", into: &records, seal: seal, at: end)
        _ = RecordEncoder.appendCommit(to: &records, sequence: 4, recordCount: 2, syncedThrough: 0, seal: seal, bufferOffset: end)
        append(records, to: segment1, in: fileSystem)
        let salvaged = try openStore(fileSystem, segmentSize: 1 << 20, readOnly: true, salvage: true)
        XCTAssertEqual(salvaged.recoveryEvents.map(\.kind), [.salvagedCorruption, .uncommittedTransaction])
        XCTAssertEqual(salvaged.statistics().records, 7)
    }

    /// The log segment after compacted segments must continue past the highest sequence they
    /// hold: a transaction there that repeats one of theirs is corruption.
    func testLogSegmentAfterCompactedSegmentsMustContinueTheirSequences() throws {
        let fileSystem = MemoryFileSystem()
        let store = try openStore(fileSystem, segmentSize: 4096, compressionThreshold: .max)
        for key in 1...3 {  // one put of sequence `key` per segment: 1 and 2 are sealed
            var batch = WriteBatch()
            batch.put([UInt8](repeating: 1, count: 3000), forKey: StorageKey(UInt64(key)), in: Keyspace(1))
            try store.commit(batch)
        }
        _ = try store.compact()  // seals 3 and compacts 1–3; 4 is the (empty) active segment
        try store.close()
        let active = "/db/000004.seg"
        XCTAssertEqual(try Manifest.read(in: "/db", fileSystem: fileSystem)?.segments.last, 4)
        let (seal, _) = try tail(of: active, in: fileSystem)
        var rewritten = Array(try XCTUnwrap(fileSystem.contents(of: active)).prefix(SegmentHeader.size))
        putRecord(sequence: 2, key: "again", into: &rewritten, seal: seal)
        _ = RecordEncoder.appendCommit(to: &rewritten, sequence: 2, recordCount: 1, syncedThrough: 0, seal: seal, bufferOffset: 0)
        fileSystem.setContents(rewritten, of: active)
        XCTAssertThrowsError(try openStore(fileSystem, segmentSize: 4096)) { error in
            XCTAssertEqual((error as? StrataError)?.code, .corruption)
            XCTAssertEqual((error as? StrataError)?.file, active)
            XCTAssertEqual((error as? StrataError)?.offset, SegmentHeader.size)
        }
    }

    /// A listed segment whose header fails its checksum, or that is missing, is corruption; with
    /// salvage, the segments before it are kept and nothing from it on is read.
    func testSalvageStopsAtASegmentWhoseHeaderIsDamagedOrMissing() throws {
        for damage in ["header", "missing"] {
            let fileSystem = MemoryFileSystem()
            let store = try openStore(fileSystem, segmentSize: 4096, compressionThreshold: .max)
            for key in 1...3 {  // one put per segment: segments 1 and 2 sealed, 3 active
                var batch = WriteBatch()
                batch.put([UInt8](repeating: UInt8(key), count: 3000), forKey: StorageKey(UInt64(key)), in: Keyspace(1))
                try store.commit(batch)
            }
            try store.close()
            let second = "/db/000002.seg"
            if damage == "header" {
                fileSystem.corrupt(path: second, at: 30, with: [0x5A])
            } else {
                try fileSystem.removeFile(second)
            }
            XCTAssertThrowsError(try openStore(fileSystem, readOnly: true), damage) { error in
                XCTAssertEqual((error as? StrataError)?.code, .corruption)
                XCTAssertEqual((error as? StrataError)?.file, second)
            }
            let salvaged = try openStore(fileSystem, readOnly: true, salvage: true)
            XCTAssertEqual(
                try contents(of: salvaged.snapshot()),
                [Keyspace(1): [StorageKey(UInt64(1)): [UInt8](repeating: 1, count: 3000)]], damage)
            XCTAssertEqual(salvaged.recoveryEvents.map(\.kind), [.salvagedCorruption], damage)
            XCTAssertEqual(salvaged.recoveryEvents.first?.file, second, damage)
        }
    }
}
