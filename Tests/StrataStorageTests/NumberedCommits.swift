import XCTest
@testable import StrataStorage

/// Commits key i = "v\(i)" in keyspace 1 for each i of `range`, one commit each.
func commitNumbered(_ store: Store, _ range: Range<Int>) throws {
    for i in range {
        var batch = WriteBatch()
        batch.put(Array("v\(i)".utf8), forKey: StorageKey(UInt64(i)), in: Keyspace(1))
        try store.commit(batch)
    }
}

/// Checks that `snapshot` holds exactly the keys `commitNumbered` wrote for `range`.
func assertNumbered(_ snapshot: Snapshot, _ range: Range<Int>, file: StaticString = #filePath, line: UInt = #line) throws {
    XCTAssertEqual(snapshot.count, range.count, file: file, line: line)
    for i in range {
        XCTAssertEqual(try snapshot.value(for: StorageKey(UInt64(i)), in: Keyspace(1)), Array("v\(i)".utf8), file: file, line: line)
    }
}
