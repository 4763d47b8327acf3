import XCTest
@_spi(Testing) @testable import StrataStorage

/// A hint whose checksum holds but whose entry points at another key's record: a read of the
/// key is `.corruption` naming the segment and the offset, never the other key's value.
final class ForgedHintTests: XCTestCase {
    private let segment1 = "/db/000001.seg"
    private let hint1 = "/db/000001.hint"

    private func put(_ key: String, _ value: String, in keyspace: UInt32 = 1) -> WriteBatch {
        var batch = WriteBatch()
        batch.put(Array(value.utf8), forKey: StorageKey(key), in: Keyspace(keyspace))
        return batch
    }

    /// A closed store whose first segment, sealed with a hint, holds "a" and "b" in keyspace 1
    /// and "a" in keyspace 2.
    private func storeWithHint() throws -> MemoryFileSystem {
        let memory = MemoryFileSystem()
        let store = try openStore(memory, segmentSize: 1 << 20, openWithHints: true)
        try store.commit(put("a", "value of a"))
        try store.commit(put("b", "value of b"))
        try store.commit(put("a", "value of a in 2", in: 2))
        try sealActiveSegment(of: store)
        try store.close()
        XCTAssertNotNil(memory.contents(of: hint1))
        return memory
    }

    /// Rewrites the hint so that the entry of "a" in keyspace 1 points at the record of `key`
    /// in `keyspace`, with the hint's checksum recomputed; returns that record's offset.
    private func forgeHint(_ memory: MemoryFileSystem, pointingAt key: String, in keyspace: UInt32) throws -> UInt32 {
        var hint = try XCTUnwrap(memory.contents(of: hint1)).withUnsafeBytes { try HintFile.decode($0, file: hint1) }
        let target = try XCTUnwrap(hint.entries.first { $0.key == StorageKey(key) && $0.keyspace == Keyspace(keyspace) })
        let forged = try XCTUnwrap(hint.entries.firstIndex { $0.key == StorageKey("a") && $0.keyspace == Keyspace(1) })
        hint.entries[forged].offset = target.offset
        hint.entries[forged].length = target.length
        memory.setContents(hint.encoded(), of: hint1)
        return target.offset
    }

    private func assertCorruptionAt(_ offset: UInt32, _ read: () throws -> Void, line: UInt = #line) {
        XCTAssertThrowsError(try read(), line: line) { error in
            let error = error as? StrataError
            XCTAssertEqual(error?.code, .corruption, "\(String(describing: error))", line: line)
            XCTAssertEqual(error?.file, segment1, line: line)
            XCTAssertEqual(error?.offset, Int(offset), line: line)
        }
    }

    func testAHintPointingAtAnotherKeysRecordIsCorruptionOnEveryRead() throws {
        let memory = try storeWithHint()
        let offset = try forgeHint(memory, pointingAt: "b", in: 1)
        let store = try openStore(memory, segmentSize: 1 << 20, readOnly: true, openWithHints: true)
        XCTAssertFalse(store.recoveryEvents.contains { $0.kind == .hintIgnored }, "the forged hint was used")
        let snapshot = store.snapshot()
        let key = StorageKey("a")
        assertCorruptionAt(offset) { _ = try snapshot.value(for: key, in: Keyspace(1)) }
        assertCorruptionAt(offset) { _ = try snapshot.withValue(for: key, in: Keyspace(1)) { Array($0) } }
        let entry = try XCTUnwrap(snapshot.entries(in: Keyspace(1)).entry(for: key))
        assertCorruptionAt(offset) { _ = try snapshot.withValue(of: entry) { Array($0) } }
        assertCorruptionAt(offset) { try snapshot.forEach(in: Keyspace(1)) { _, _ in true } }
        XCTAssertEqual(try snapshot.value(for: StorageKey("b"), in: Keyspace(1)), Array("value of b".utf8))
    }

    func testAHintPointingAtTheSameKeyInAnotherKeyspaceIsCorruption() throws {
        let memory = try storeWithHint()
        let offset = try forgeHint(memory, pointingAt: "a", in: 2)
        let store = try openStore(memory, segmentSize: 1 << 20, readOnly: true, openWithHints: true)
        assertCorruptionAt(offset) { _ = try store.snapshot().value(for: StorageKey("a"), in: Keyspace(1)) }
    }
}
