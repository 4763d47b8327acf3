import XCTest
@testable import StrataStorage

/// Recovery in the cases its main tests pass by: read-only opens, and records that belong to
/// no commit in front of a committed transaction.
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
}
