import XCTest
@_spi(Testing) @testable import StrataStorage

/// Reads with `verifyChecksumsOnRead == false` skip the CRC, not the structural checks: a
/// record changed since recovery is reported, never read out of bounds.
final class UncheckedReadTests: XCTestCase {
    func testRecordChangedUnderAStoreThatSkipsChecksumsIsCorruption() throws {
        let fileSystem = MemoryFileSystem()
        var options = Store.Options()
        options.fileSystem = fileSystem
        options.verifyChecksumsOnRead = false
        let store = try Store(directory: "/db", options: options)
        var batch = WriteBatch()
        batch.put(Array(repeating: 5, count: 100), forKey: StorageKey("k"), in: Keyspace(1))
        try store.commit(batch)
        let location = try XCTUnwrap(store.snapshot().index.location(of: StorageKey("k"), in: Keyspace(1)))
        // Another writer shrinks the record's declared payload to nothing: no room for its key.
        fileSystem.corrupt(path: "/db/000001.seg", at: Int(location.offset) + 4, with: [0, 0, 0, 0])
        XCTAssertThrowsError(try store.snapshot().value(for: StorageKey("k"), in: Keyspace(1))) { error in
            XCTAssertEqual((error as? StrataError)?.code, .corruption)
            XCTAssertEqual((error as? StrataError)?.offset, Int(location.offset))
        }
        // An unknown kind is refused too, not read as a put.
        fileSystem.corrupt(path: "/db/000001.seg", at: Int(location.offset) + 4, with: [112, 0, 0, 0, 9])
        XCTAssertThrowsError(try store.snapshot().value(for: StorageKey("k"), in: Keyspace(1))) { error in
            XCTAssertEqual((error as? StrataError)?.code, .corruption)
        }
    }

    func testUncheckedReadsReturnIntactValues() throws {
        var options = Store.Options()
        options.fileSystem = MemoryFileSystem()
        options.verifyChecksumsOnRead = false
        let store = try Store(directory: "/db", options: options)
        try commitNumbered(store, 0..<10)
        try assertNumbered(store.snapshot(), 0..<10)
    }
}
