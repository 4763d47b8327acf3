import XCTest
@testable import StrataStorage

/// Recovery in the cases its main tests pass by: read-only opens, records that belong to no
/// commit, a repeated sequence, damage at the end of a sealed segment, and unlisted segments
/// when the MANIFEST is missing.
final class RecoveryEdgeTests: XCTestCase {
    let segment1 = "/db/000001.seg"

    func putRecord(sequence: UInt64, key: String, into buffer: inout [UInt8]) {
        Array("v".utf8).withUnsafeBytes { value in
            _ = RecordEncoder.appendPut(
                to: &buffer, sequence: sequence, keyspace: Keyspace(1), key: StorageKey(key),
                value: value, compression: CompressionPolicy(threshold: .max, level: 3))
        }
    }

    /// A read-only open reports a torn tail but neither cuts it off nor syncs the segment.
    func testReadOnlyOpenLeavesATornTailInPlaceAndSyncsNothing() throws {
        let fileSystem = try storeWithThreeCommits()
        var torn: [UInt8] = []
        putRecord(sequence: 4, key: "torn", into: &torn)
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
        var records: [UInt8] = []
        putRecord(sequence: 4, key: "orphan", into: &records)
        putRecord(sequence: 5, key: "five", into: &records)
        _ = RecordEncoder.appendCommit(to: &records, sequence: 5, recordCount: 1, syncedThrough: 0)
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
        let offset = try XCTUnwrap(fileSystem.contents(of: segment1)).count
        var records: [UInt8] = []
        putRecord(sequence: 3, key: "again", into: &records)
        _ = RecordEncoder.appendCommit(to: &records, sequence: 3, recordCount: 1, syncedThrough: 0)
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
        let offset = try XCTUnwrap(fileSystem.contents(of: segment1)).count
        var torn: [UInt8] = []
        putRecord(sequence: 99, key: "torn", into: &torn)
        append(Array(torn.dropLast(3)), to: segment1, in: fileSystem)
        XCTAssertThrowsError(try openStore(fileSystem, segmentSize: 4096)) { error in
            XCTAssertEqual((error as? StrataError)?.code, .corruption)
            XCTAssertEqual((error as? StrataError)?.file, segment1)
            XCTAssertEqual((error as? StrataError)?.offset, offset)
        }
    }

    /// With no MANIFEST, an unlisted segment whose header is of a newer format is neither read
    /// nor deleted: the open fails with `.unsupportedFormat` and the file stays.
    func testUnlistedSegmentOfANewerFormatIsKeptWhenTheManifestIsMissing() throws {
        let fileSystem = MemoryFileSystem()
        let newer = SegmentHeader(version: SegmentHeader.currentVersion + 1, segmentNumber: 1).encoded()
        fileSystem.setContents(newer + [UInt8](repeating: 0, count: 100), of: segment1)
        XCTAssertThrowsError(try openStore(fileSystem)) { error in
            XCTAssertEqual((error as? StrataError)?.code, .unsupportedFormat)
        }
        XCTAssertEqual(fileSystem.contents(of: segment1)?.count, 164)
    }

    /// With no MANIFEST, an unlisted segment whose header is damaged is judged by its records:
    /// holding no committed transaction, it is removed as a leftover and a new store starts.
    func testUnlistedSegmentWithADamagedHeaderAndNoCommitsIsRemovedAsALeftover() throws {
        let fileSystem = MemoryFileSystem()
        var damaged = SegmentHeader(segmentNumber: 7).encoded()
        damaged[60] ^= 0xFF
        var records: [UInt8] = []
        putRecord(sequence: 1, key: "uncommitted", into: &records)
        fileSystem.setContents(damaged + records, of: "/db/000007.seg")
        let store = try openStore(fileSystem)
        XCTAssertEqual(store.recoveryEvents.map(\.kind), [.leftoverFileRemoved])
        XCTAssertNil(fileSystem.contents(of: "/db/000007.seg"))
        XCTAssertEqual(store.snapshot().count, 0)
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
        let syncedEnd = try XCTUnwrap(fileSystem.contents(of: segment1)).count
        var group: [UInt8] = []
        putRecord(sequence: 4, key: "four", into: &group)
        _ = RecordEncoder.appendCommit(to: &group, sequence: 4, recordCount: 1, syncedThrough: syncedEnd)
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
        var records: [UInt8] = []
        putRecord(sequence: 4, key: "four", into: &records)
        _ = RecordEncoder.appendCommit(to: &records, sequence: 4, recordCount: 2, syncedThrough: 0)
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
        _ = try store.compact()
        try store.close()
        let active = "/db/000003.seg"
        XCTAssertEqual(try Manifest.read(in: "/db", fileSystem: fileSystem)?.segments.last, 3)
        var rewritten = Array(try XCTUnwrap(fileSystem.contents(of: active)).prefix(SegmentHeader.size))
        putRecord(sequence: 2, key: "again", into: &rewritten)
        _ = RecordEncoder.appendCommit(to: &rewritten, sequence: 2, recordCount: 1, syncedThrough: 0)
        fileSystem.setContents(rewritten, of: active)
        XCTAssertThrowsError(try openStore(fileSystem, segmentSize: 4096)) { error in
            XCTAssertEqual((error as? StrataError)?.code, .corruption)
            XCTAssertEqual((error as? StrataError)?.file, active)
            XCTAssertEqual((error as? StrataError)?.offset, SegmentHeader.size)
        }
    }
}
