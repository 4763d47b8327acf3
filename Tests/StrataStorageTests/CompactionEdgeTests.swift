import XCTest
@_spi(Testing) @testable import StrataStorage

/// Compaction at the edges of its output segments.
final class CompactionEdgeTests: XCTestCase {
    func put(_ key: UInt64, bytes: Int, into store: Store) throws {
        var batch = WriteBatch()
        batch.put([UInt8](repeating: UInt8(key), count: bytes), forKey: StorageKey(key), in: Keyspace(1))
        try store.commit(batch)
    }

    /// Commits keys 1…`count` with 2016-byte put records (18 + 6 + 8 for the key + 1984), one
    /// per segment, then deletes the last so that only keys 1…`count - 1` are live in sealed
    /// segments.
    func storeOfFullSegments(
        _ count: UInt64, on fileSystem: MemoryFileSystem = MemoryFileSystem(), durability: Durability = .full
    ) throws -> Store {
        let store = try openStore(fileSystem, segmentSize: 4096, durability: durability, compressionThreshold: .max)
        for key in 1...count { try put(key, bytes: 1984, into: store) }
        var deleteLast = WriteBatch()
        deleteLast.delete(StorageKey(count), in: Keyspace(1))
        try store.commit(deleteLast)
        return store
    }

    /// Two live records whose sizes add up, with the header, to exactly the segment size are
    /// copied into one output segment, not split over two.
    func testRecordsFillingAnOutputSegmentExactlyShareIt() throws {
        let store = try storeOfFullSegments(3)
        let index = store.snapshot().index
        let first = try XCTUnwrap(index.location(of: StorageKey(UInt64(1)), in: Keyspace(1)))
        let second = try XCTUnwrap(index.location(of: StorageKey(UInt64(2)), in: Keyspace(1)))
        XCTAssertEqual([first.segment, second.segment], [1, 2])
        XCTAssertEqual(SegmentHeader.size + Int(first.length) + Int(second.length), 4096)

        let report = try store.compact()
        XCTAssertEqual(report.recordsCopied, 2)
        XCTAssertEqual(report.segmentsWritten, 1)
        XCTAssertEqual(report.bytesWritten, 4096)
        XCTAssertEqual(try store.snapshot().value(for: StorageKey(UInt64(2)), in: Keyspace(1)), [UInt8](repeating: 2, count: 1984))
    }

    /// A record that would take an output segment past the segment size starts the next one.
    func testRecordOverflowingAnOutputSegmentStartsTheNext() throws {
        let store = try storeOfFullSegments(4)
        let report = try store.compact()
        XCTAssertEqual(report.recordsCopied, 3)
        XCTAssertEqual(report.segmentsWritten, 2)
        XCTAssertEqual(report.bytesWritten, 4096 + SegmentHeader.size + 2016)
    }

    /// The paths a compaction syncs, in order.
    func pathsSyncedByCompaction(durability: Durability) throws -> [String] {
        let fileSystem = MemoryFileSystem()
        let store = try storeOfFullSegments(3, on: fileSystem, durability: durability)
        let synced = Locked<[String]>([])
        fileSystem.setSyncHook { event in synced.withLock { $0.append(event.path) } }
        _ = try store.compact()
        return synced.withLock { $0 }
    }

    /// A compaction seals a non-empty active segment (3) first, which syncs it once whatever the
    /// durability of its commits, and then compacts it with the others: its put and delete of
    /// key 3 are both dropped.
    func testCompactionSealsANonEmptyActiveSegmentWithOneSync() throws {
        let active = "/db/000003.seg"
        XCTAssertEqual(try pathsSyncedByCompaction(durability: .none).filter { $0 == active }.count, 1)
        XCTAssertEqual(try pathsSyncedByCompaction(durability: .full).filter { $0 == active }.count, 1)
        let store = try storeOfFullSegments(3)
        let report = try store.compact()
        XCTAssertEqual(report.segmentsCompacted, 3)
        XCTAssertEqual(report.recordsCopied, 2)
        XCTAssertEqual(try store.snapshot().value(for: StorageKey(UInt64(3)), in: Keyspace(1)), nil)
    }

    /// A compaction of a store whose active segment is empty seals nothing and leaves it active.
    func testCompactionLeavesAnEmptyActiveSegmentActive() throws {
        let fileSystem = MemoryFileSystem()
        let store = try storeOfFullSegments(3, on: fileSystem)
        _ = try store.compact()
        let active = try XCTUnwrap(Manifest.read(in: "/db", fileSystem: fileSystem)).segments.last
        let second = try store.compact()
        XCTAssertEqual(try XCTUnwrap(Manifest.read(in: "/db", fileSystem: fileSystem)).segments.last, active)
        XCTAssertEqual(second.segmentsCompacted, second.segmentsBefore - 1)
    }
}
