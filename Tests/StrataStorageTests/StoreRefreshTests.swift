import XCTest
@_spi(Testing) @testable import StrataStorage

/// A read-only store follows a writer on the same files: `refresh()` reads what was committed
/// since, whole transactions only, across rolls and compactions, leaving old snapshots alone.
final class StoreRefreshTests: XCTestCase {
    private let segment1 = "/db/000001.seg"

    private func put(_ key: UInt64, _ value: String, in keyspace: UInt32 = 1) -> WriteBatch {
        var batch = WriteBatch()
        batch.put(Array(value.utf8), forKey: StorageKey(key), in: Keyspace(keyspace))
        return batch
    }

    func testRefreshReadsTheCommitsMadeSinceTheOpen() throws {
        let fileSystem = MemoryFileSystem()
        let writer = try openStore(fileSystem)
        try writer.commit(put(1, "one"))
        let reader = try openStore(fileSystem, readOnly: true)
        XCTAssertFalse(try reader.refresh(), "nothing new yet")
        var model = try contents(of: writer.snapshot())
        for batch in makeWorkload(commits: 20, seed: 7).prefix(20) where !batch.isEmpty {
            try writer.commit(batch)
            apply(batch, to: &model)
        }
        XCTAssertTrue(try reader.refresh())
        XCTAssertEqual(reader.sequence, writer.sequence)
        XCTAssertEqual(try contents(of: reader.snapshot()), model)
        XCTAssertFalse(try reader.refresh(), "caught up: a second refresh finds nothing")
    }

    func testAWritableStoreIsAlwaysCurrent() throws {
        let writer = try openStore(MemoryFileSystem())
        try writer.commit(put(1, "one"))
        XCTAssertFalse(try writer.refresh())
    }

    func testATornTransactionIsLeftForTheNextRefreshThenReadWhole() throws {
        let fileSystem = MemoryFileSystem()
        let writer = try openStore(fileSystem)
        try writer.commit(put(1, "one"))
        let reader = try openStore(fileSystem, readOnly: true)
        let before = fileSystem.contents(of: segment1)!.count
        var batch = put(2, "two")
        batch.put(Array("three".utf8), forKey: StorageKey(3), in: Keyspace(1))
        try writer.commit(batch)
        let whole = fileSystem.contents(of: segment1)!
        // The writer's write seen half done: in its first record, further on, short by one byte.
        for cut in [before + 5, (before + whole.count) / 2, whole.count - 1] {
            fileSystem.setContents(Array(whole.prefix(cut)), of: segment1)
            XCTAssertFalse(try reader.refresh(), "cut at \(cut): no whole transaction yet")
            XCTAssertEqual(try reader.snapshot().value(for: StorageKey(2), in: Keyspace(1)), nil)
            XCTAssertEqual(reader.sequence, 1)
        }
        fileSystem.setContents(whole, of: segment1)
        XCTAssertTrue(try reader.refresh())
        XCTAssertEqual(try contents(of: reader.snapshot()), try contents(of: writer.snapshot()))
        XCTAssertEqual(reader.sequence, 2)
        XCTAssertEqual(reader.fullRecoveries, 0, "the torn tail was waited out, not recovered from scratch")
    }

    func testRefreshFollowsSegmentRolls() throws {
        let fileSystem = MemoryFileSystem()
        let writer = try openStore(fileSystem, segmentSize: 4096)
        let reader = try openStore(fileSystem, segmentSize: 4096, readOnly: true)
        var model: Contents = [:]
        for (number, batch) in makeWorkload(commits: 120, seed: 11).enumerated() where !batch.isEmpty {
            try writer.commit(batch)
            apply(batch, to: &model)
            if number % 9 == 0 {
                XCTAssertTrue(try reader.refresh())
                XCTAssertEqual(try contents(of: reader.snapshot()), model, "after commit \(number)")
            }
        }
        XCTAssertGreaterThan(writer.statistics().segments, 3, "the workload rolled")
        _ = try reader.refresh()
        XCTAssertEqual(try contents(of: reader.snapshot()), model)
        XCTAssertEqual(reader.sequence, writer.sequence)
        XCTAssertEqual(reader.fullRecoveries, 0, "rolls are followed incrementally")
    }

    func testRefreshAfterACompactionReplacedTheSegmentsItRead() throws {
        let fileSystem = MemoryFileSystem()
        let writer = try openStore(fileSystem, segmentSize: 4096)
        var model: Contents = [:]
        let workload = makeWorkload(commits: 100, seed: 3)
        for batch in workload.prefix(60) where !batch.isEmpty {
            try writer.commit(batch)
            apply(batch, to: &model)
        }
        let reader = try openStore(fileSystem, segmentSize: 4096, readOnly: true)
        let old = reader.snapshot()
        let oldModel = model
        XCTAssertTrue(try writer.compact().didCompact)
        for batch in workload.dropFirst(60) where !batch.isEmpty {
            try writer.commit(batch)
            apply(batch, to: &model)
        }
        XCTAssertTrue(try reader.refresh())
        XCTAssertEqual(reader.fullRecoveries, 1, "a new MANIFEST prefix is recovered from scratch")
        XCTAssertEqual(try contents(of: reader.snapshot()), model)
        XCTAssertEqual(try contents(of: old), oldModel, "a snapshot from before reads the replaced segments")
        try writer.commit(put(500, "after"))
        XCTAssertTrue(try reader.refresh(), "and goes on incrementally after the full pass")
        XCTAssertEqual(try reader.snapshot().value(for: StorageKey(500), in: Keyspace(1)), Array("after".utf8))
        XCTAssertEqual(reader.fullRecoveries, 1)
    }

    func testASnapshotTakenBeforeARefreshIsUnchanged() throws {
        let fileSystem = MemoryFileSystem()
        let writer = try openStore(fileSystem)
        for key in 0..<10 as Range<UInt64> { try writer.commit(put(key, "v\(key)")) }
        let reader = try openStore(fileSystem, readOnly: true)
        let before = reader.snapshot()
        let beforeContents = try contents(of: before)
        var batch = WriteBatch()
        batch.delete(StorageKey(3), in: Keyspace(1))
        batch.put(Array("new".utf8), forKey: StorageKey(4), in: Keyspace(1))
        batch.put(Array("added".utf8), forKey: StorageKey(40), in: Keyspace(2))
        try writer.commit(batch)
        XCTAssertTrue(try reader.refresh())
        XCTAssertEqual(try contents(of: before), beforeContents)
        XCTAssertEqual(before.sequence, 10)
        XCTAssertEqual(try contents(of: reader.snapshot()), try contents(of: writer.snapshot()))
    }

    func testDamageThrowsCorruptionAndLeavesTheStoreAsItWas() throws {
        let fileSystem = MemoryFileSystem()
        let writer = try openStore(fileSystem)
        try writer.commit(put(1, "one"))
        let reader = try openStore(fileSystem, readOnly: true)
        let damaged = fileSystem.contents(of: segment1)!.count + 12
        try writer.commit(put(2, "two"))
        try writer.commit(put(3, "three"))  // synced past the damage: no crash explains it
        let original = fileSystem.contents(of: segment1)![damaged]
        fileSystem.corrupt(path: segment1, at: damaged, with: [original ^ 0xFF])
        let before = try contents(of: reader.snapshot())
        XCTAssertThrowsError(try reader.refresh()) { error in
            XCTAssertEqual((error as? StrataError)?.code, .corruption)
            XCTAssertEqual((error as? StrataError)?.file, segment1)
        }
        XCTAssertEqual(reader.sequence, 1)
        XCTAssertEqual(try contents(of: reader.snapshot()), before)
        fileSystem.corrupt(path: segment1, at: damaged, with: [original])
        XCTAssertTrue(try reader.refresh(), "a failed refresh left the store able to go on")
        XCTAssertEqual(reader.sequence, 3)
    }

    func testRefreshWithTheManifestGoneThrowsAndKeepsTheStore() throws {
        let fileSystem = MemoryFileSystem()
        let writer = try openStore(fileSystem)
        try writer.commit(put(1, "one"))
        let reader = try openStore(fileSystem, readOnly: true)
        try fileSystem.removeFile("/db/MANIFEST")
        XCTAssertThrowsError(try reader.refresh()) { error in
            XCTAssertEqual((error as? StrataError)?.code, .corruption)
            XCTAssertEqual((error as? StrataError)?.file, "/db/MANIFEST")
        }
        XCTAssertEqual(try reader.snapshot().value(for: StorageKey(1), in: Keyspace(1)), Array("one".utf8))
    }

    /// The incremental path reads only the bytes after where the last refresh stopped: damage
    /// in a sealed segment it already read does not stop it (a full recovery would refuse it).
    func testRefreshReadsOnlyWhatIsNew() throws {
        let fileSystem = MemoryFileSystem()
        let writer = try openStore(fileSystem, segmentSize: 4096)
        for batch in makeWorkload(commits: 60, seed: 5) where !batch.isEmpty { try writer.commit(batch) }
        let reader = try openStore(fileSystem, segmentSize: 4096, readOnly: true)
        fileSystem.corrupt(path: segment1, at: SegmentHeader.size + 2, with: [0xEE, 0xEE])
        try writer.commit(put(900, "new"))
        XCTAssertTrue(try reader.refresh())
        XCTAssertEqual(try reader.snapshot().value(for: StorageKey(900), in: Keyspace(1)), Array("new".utf8))
        XCTAssertThrowsError(try openStore(fileSystem, readOnly: true), "a full recovery sees the damage")
    }
}

extension Store {
    /// How many refreshes recovered from scratch.
    fileprivate var fullRecoveries: Int { follow.withLock { $0.fullRecoveries } }
}
