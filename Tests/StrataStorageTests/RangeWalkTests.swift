import XCTest
@_spi(Testing) import StrataStorage

/// `Snapshot.Entries.makeIterator(from:)`: a walk from a lower bound, the start of the object
/// layer's index range walks.
final class RangeWalkTests: XCTestCase {
    /// Random keys of 0…40 bytes over a small alphabet (so that prefixes are shared), some of
    /// them around the 15-byte inline limit, committed in a few batches.
    private func storeWithRandomKeys(_ random: inout SplitMix64) throws -> (Store, [StorageKey]) {
        let store = try openStore(MemoryFileSystem(), segmentSize: 1 << 16)
        var keys = Set<StorageKey>()
        for _ in 0..<4 {
            var batch = WriteBatch()
            for _ in 0..<150 {
                let length = Int.random(in: 0...40, using: &random)
                let key = StorageKey((0..<length).map { _ in [0x00, 0x01, 0x7F, 0xFF].randomElement(using: &random)! })
                keys.insert(key)
                batch.put([1], forKey: key, in: Keyspace(3))
            }
            try store.commit(batch)
        }
        return (store, keys.sorted())
    }

    func testAWalkFromAnyBoundGivesTheKeysAtOrAboveItInOrder() throws {
        var random = seededGenerator(0x5EED_0A11)
        let (store, keys) = try storeWithRandomKeys(&random)
        let entries = store.snapshot().entries(in: Keyspace(3))
        for _ in 0..<300 {
            let bound = Bool.random(using: &random) ? keys.randomElement(using: &random)!
                : StorageKey((0..<Int.random(in: 0...20, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) })
            var walk = entries.makeIterator(from: bound)
            var walked: [StorageKey] = []
            while let entry = walk.next() { walked.append(entry.key) }
            XCTAssertEqual(walked, keys.filter { !($0 < bound) }, "from \(bound)")
        }
    }

    func testAWalkPastTheGreatestKeyIsEmpty() throws {
        var random = seededGenerator(0x5EED_0A12)
        let (store, keys) = try storeWithRandomKeys(&random)
        let beyond = StorageKey(keys.last!.bytes + [0])
        var walk = store.snapshot().entries(in: Keyspace(3)).makeIterator(from: beyond)
        XCTAssertNil(walk.next())
        var empty = store.snapshot().entries(in: Keyspace(9)).makeIterator(from: StorageKey("a"))
        XCTAssertNil(empty.next(), "a keyspace with no keys")
    }

    func testAWalkSeesItsSnapshotWhateverIsCommittedAfter() throws {
        let store = try openStore(MemoryFileSystem())
        var batch = WriteBatch()
        for key in ["a", "b", "c", "d"] { batch.put([1], forKey: StorageKey(key), in: Keyspace(3)) }
        try store.commit(batch)
        var walk = store.snapshot().entries(in: Keyspace(3)).makeIterator(from: StorageKey("b"))
        var change = WriteBatch()
        change.delete(StorageKey("c"), in: Keyspace(3))
        change.put([2], forKey: StorageKey("bb"), in: Keyspace(3))
        try store.commit(change)
        var walked: [StorageKey] = []
        while let entry = walk.next() { walked.append(entry.key) }
        XCTAssertEqual(walked, ["b", "c", "d"].map { StorageKey($0) })
    }
}
