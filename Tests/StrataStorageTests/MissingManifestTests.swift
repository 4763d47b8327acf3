import XCTest
@_spi(Testing) @testable import StrataStorage

/// A store whose MANIFEST is gone: recovery never creates a new store over segments that hold
/// data, whatever damage they carry.
final class MissingManifestTests: XCTestCase {
    /// Fifty commits in one segment, then the MANIFEST removed; returns the segment's bytes.
    func storeWithoutManifest(_ fileSystem: MemoryFileSystem) throws -> [UInt8] {
        let store = try openStore(fileSystem, segmentSize: 1 << 20)
        for i in 0..<50 {
            var batch = WriteBatch()
            batch.put(Array("value \(i)".utf8), forKey: StorageKey(UInt64(i)), in: Keyspace(1))
            try store.commit(batch)
        }
        try store.close()
        try fileSystem.removeFile("/db/MANIFEST")
        return try XCTUnwrap(fileSystem.contents(of: "/db/000001.seg"))
    }

    func testDamagedFirstRecordWithoutManifestIsRefusedNotReplacedByAnEmptyStore() throws {
        let fileSystem = MemoryFileSystem()
        let original = try storeWithoutManifest(fileSystem)
        let damagedOffset = SegmentHeader.size + RecordFormat.headerSize + 2
        fileSystem.corrupt(path: "/db/000001.seg", at: damagedOffset, with: [original[damagedOffset] ^ 0xFF])

        XCTAssertThrowsError(try openStore(fileSystem, segmentSize: 1 << 20)) { error in
            let error = error as? StrataError
            XCTAssertEqual(error?.code, .corruption)
            XCTAssertEqual(error?.file, "/db/MANIFEST")
            XCTAssertTrue(error?.message.contains("000001.seg") == true, error?.message ?? "")
            XCTAssertTrue(error?.message.contains("byte \(SegmentHeader.size)") == true, error?.message ?? "")
        }
        XCTAssertNotNil(fileSystem.contents(of: "/db/000001.seg"), "the segment was removed")
        XCTAssertEqual(fileSystem.contents(of: "/db/000001.seg")?.count, original.count)
        XCTAssertNil(fileSystem.contents(of: "/db/MANIFEST"), "a new MANIFEST was written over the data")
    }

    func testIntactSegmentsWithoutManifestAreRefused() throws {
        let fileSystem = MemoryFileSystem()
        let original = try storeWithoutManifest(fileSystem)
        XCTAssertThrowsError(try openStore(fileSystem, segmentSize: 1 << 20)) { error in
            XCTAssertEqual((error as? StrataError)?.code, .corruption)
            XCTAssertEqual((error as? StrataError)?.file, "/db/MANIFEST")
        }
        XCTAssertEqual(fileSystem.contents(of: "/db/000001.seg"), original)
    }

    func testSegmentWithOnlyAHeaderWithoutManifestIsALeftoverOfCreation() throws {
        // A crash after the first segment was created but before the first MANIFEST was installed.
        let fileSystem = MemoryFileSystem()
        fileSystem.setContents(SegmentHeader(segmentNumber: 1, seal: .random()).encoded(), of: "/db/000001.seg")
        let store = try openStore(fileSystem, segmentSize: 1 << 20)
        XCTAssertEqual(store.snapshot().count, 0)
        XCTAssertNotNil(fileSystem.contents(of: "/db/MANIFEST"))
    }

    func testSalvageWithoutManifestReadsTheSegmentsInTheDirectory() throws {
        let fileSystem = MemoryFileSystem()
        let original = try storeWithoutManifest(fileSystem)
        // Damage the 21st commit: salvage keeps the 20 before it.
        var offset = SegmentHeader.size
        for _ in 0..<40 {
            offset += RecordFormat.headerSize + Int(original.withUnsafeBytes { $0.loadLittleEndian(at: offset + 4, as: UInt32.self) })
        }
        fileSystem.corrupt(path: "/db/000001.seg", at: offset + RecordFormat.headerSize, with: [original[offset + RecordFormat.headerSize] ^ 0xFF])

        let salvaged = try openStore(fileSystem, segmentSize: 1 << 20, readOnly: true, salvage: true)
        XCTAssertEqual(salvaged.snapshot().count, 20)
        XCTAssertEqual(try salvaged.snapshot().value(for: StorageKey(UInt64(19)), in: Keyspace(1)), Array("value 19".utf8))
        XCTAssertTrue(salvaged.recoveryEvents.contains { $0.kind == .salvagedCorruption && $0.offset == offset },
                      "\(salvaged.recoveryEvents)")
        XCTAssertNil(fileSystem.contents(of: "/db/MANIFEST"), "salvage wrote a MANIFEST")
    }

    func testReadOnlyOpenWithoutManifestOverDataIsCorruption() throws {
        let fileSystem = MemoryFileSystem()
        _ = try storeWithoutManifest(fileSystem)
        XCTAssertThrowsError(try openStore(fileSystem, segmentSize: 1 << 20, readOnly: true)) { error in
            XCTAssertEqual((error as? StrataError)?.code, .corruption)
            XCTAssertEqual((error as? StrataError)?.file, "/db/MANIFEST")
        }
    }

    func testReadOnlyOpenOfADirectoryWithoutStoreFilesIsNotFound() throws {
        let fileSystem = MemoryFileSystem()
        try fileSystem.createDirectory("/db")
        XCTAssertThrowsError(try openStore(fileSystem, segmentSize: 1 << 20, readOnly: true)) { error in
            XCTAssertEqual((error as? StrataError)?.code, .notFound)
        }
    }
}
