import XCTest
@_spi(Testing) @testable import StrataStorage

/// `KeyTree.forEachDifference(from:_:)` and `Snapshot.Entries.changes(since:)` against a model:
/// the differences between two versions of a tree are exactly the keys whose entries a
/// dictionary comparison finds different, in ascending key order.
final class KeyTreeDifferenceTests: XCTestCase {
    /// The differences a dictionary comparison finds, in ascending key order.
    private func modelDifferences(
        _ older: [StorageKey: RecordLocation], _ newer: [StorageKey: RecordLocation]
    ) -> [(StorageKey, RecordLocation?, RecordLocation?)] {
        Set(older.keys).union(newer.keys).sorted(by: <).compactMap { key in
            older[key] == newer[key] ? nil : (key, older[key], newer[key])
        }
    }

    private func assertDifferences(
        _ older: KeyTree, _ newer: KeyTree,
        _ olderModel: [StorageKey: RecordLocation], _ newerModel: [StorageKey: RecordLocation],
        file: StaticString = #filePath, line: UInt = #line
    ) {
        var found: [(StorageKey, RecordLocation?, RecordLocation?)] = []
        newer.forEachDifference(from: older) { found.append(($0, $1, $2)) }
        let expected = modelDifferences(olderModel, newerModel)
        XCTAssertEqual(found.count, expected.count, file: file, line: line)
        for (got, want) in zip(found, expected) {
            XCTAssertEqual(got.0, want.0, file: file, line: line)
            XCTAssertEqual(got.1, want.1, file: file, line: line)
            XCTAssertEqual(got.2, want.2, file: file, line: line)
        }
    }

    /// Random versions: a tree, then a copy changed by a random number of random insertions,
    /// replacements and removals (few, so most leaves stay shared, or many); small node
    /// capacities so that the changes split and merge nodes.
    func testDifferencesMatchTheModel() {
        var random = seededGenerator(0x5EED_D1FF)
        for round in 0..<60 {
            let capacities = round % 2 == 0 ? (4, 4) : (64, 64)
            var older = KeyTree(leafCapacity: capacities.0, branchCapacity: capacities.1)
            var olderModel: [StorageKey: RecordLocation] = [:]
            let pool = KeyTreeTests.keyPool(size: 50 + Int(random.next() % 600), &random)
            for (position, key) in pool.enumerated() where random.next() % 3 != 0 {
                older.updateValue(KeyTreeTests.location(position), forKey: key)
                olderModel[key] = KeyTreeTests.location(position)
            }
            var newer = older, newerModel = olderModel
            let changes = round % 3 == 0 ? Int(random.next() % 400) : Int(random.next() % 6)
            for change in 0..<changes {
                let key = pool[Int(random.next() % UInt64(pool.count))]
                if random.next() % 3 == 0 {
                    newer.removeValue(forKey: key)
                    newerModel[key] = nil
                } else {
                    let location = KeyTreeTests.location(10_000 + round * 1000 + change)
                    newer.updateValue(location, forKey: key)
                    newerModel[key] = location
                }
            }
            assertDifferences(older, newer, olderModel, newerModel)
            assertDifferences(newer, older, newerModel, olderModel)
            assertDifferences(newer, newer, newerModel, newerModel)
        }
    }

    /// Two trees built apart share no node: every entry is compared, and equal entries are
    /// still no difference.
    func testTreesBuiltApartDifferOnlyWhereTheirEntriesDo() {
        var first = KeyTree(leafCapacity: 4, branchCapacity: 4), second = KeyTree()
        var model: [StorageKey: RecordLocation] = [:]
        for number in 0..<300 {
            first.updateValue(KeyTreeTests.location(number), forKey: StorageKey(UInt64(number)))
            second.updateValue(KeyTreeTests.location(number), forKey: StorageKey(UInt64(number)))
            model[StorageKey(UInt64(number))] = KeyTreeTests.location(number)
        }
        second.updateValue(KeyTreeTests.location(-1), forKey: StorageKey(UInt64(150)))
        var secondModel = model
        secondModel[StorageKey(UInt64(150))] = KeyTreeTests.location(-1)
        assertDifferences(first, second, model, secondModel)
        assertDifferences(KeyTree(), first, [:], model)
    }

    /// Through a store: the changes between two snapshots' entries of a keyspace are what the
    /// commits between them added, replaced and removed.
    func testSnapshotChangesAreTheCommitsBetween() throws {
        let store = try openStore(MemoryFileSystem(), segmentSize: 1 << 20)
        let space = Keyspace(7)
        var batch = WriteBatch()
        for number in 0..<500 { batch.put([UInt8(number % 256)], forKey: StorageKey(UInt64(number)), in: space) }
        try store.commit(batch)
        let before = store.snapshot()
        batch = WriteBatch()
        batch.put([1], forKey: StorageKey(UInt64(10)), in: space)
        batch.delete(StorageKey(UInt64(20)), in: space)
        batch.put([2], forKey: StorageKey(UInt64(1000)), in: space)
        batch.put([3], forKey: StorageKey(UInt64(1)), in: Keyspace(8))
        try store.commit(batch)
        let changes = store.snapshot().entries(in: space).changes(since: before.entries(in: space))
        XCTAssertEqual(changes.map(\.key), [10, 20, 1000].map { StorageKey(UInt64($0)) })
        guard changes.count == 3 else { return }
        if case .replaced = changes[0] {} else { XCTFail("10 was replaced: \(changes[0])") }
        if case .removed = changes[1] {} else { XCTFail("20 was removed: \(changes[1])") }
        if case .added = changes[2] {} else { XCTFail("1000 was added: \(changes[2])") }
        XCTAssertTrue(before.entries(in: space).changes(since: before.entries(in: space)).isEmpty)
    }
}
