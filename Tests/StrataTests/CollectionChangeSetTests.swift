import XCTest

@_spi(Testing) import StrataStorage
@testable import Strata

// CollectionChangeSet against its definition: applied to the previous collection, the changes
// give the new one; modifications are the modified objects that stay; what stays is as long a
// run as the two orders share.

final class CollectionChangeSetTests: XCTestCase {
    /// The previous collection with the deletions removed and the new elements inserted.
    private func apply(_ changes: CollectionChangeSet, to old: [Int], new: [Int]) -> [Int] {
        var result = old
        for position in changes.deletions.reversed() { result.remove(at: position) }
        for position in changes.insertions { result.insert(new[position], at: position) }
        return result
    }

    /// The length of a longest common subsequence, which is how many elements must stay.
    private func longestCommonRun(_ a: [Int], _ b: [Int]) -> Int {
        var row = [Int](repeating: 0, count: b.count + 1)
        for x in a {
            var diagonal = 0
            for (j, y) in b.enumerated() {
                let above = row[j + 1]
                row[j + 1] = x == y ? diagonal + 1 : max(row[j + 1], row[j])
                diagonal = above
            }
        }
        return row[b.count]
    }

    func testRandomCollectionsRoundTrip() {
        var random = SplitMix64(seed: 0xC4A6_6E5E)
        for round in 0..<500 {
            let distinct = round % 2 == 0   // results hold each object once; lists may repeat
            let universe = Int(random.next() % 30) + 1
            func collection() -> [Int] {
                let length = Int(random.next() % 25)
                if distinct { return Array((0..<universe).shuffled(using: &random).prefix(length)) }
                return (0..<length).map { _ in Int(random.next() % UInt64(universe)) }
            }
            let old = collection(), new = collection()
            let modified = Set((0..<universe).filter { _ in random.next() % 4 == 0 })
            let changes = CollectionChangeSet.between(old, new, modified: modified)
            XCTAssertEqual(apply(changes, to: old, new: new), new, "round \(round): \(old) → \(new)")
            XCTAssertEqual(changes.deletions, changes.deletions.sorted())
            XCTAssertEqual(changes.insertions, changes.insertions.sorted())
            if distinct {
                // With each object once, what stays is a longest common run: as few moves as can be.
                XCTAssertEqual(old.count - changes.deletions.count, longestCommonRun(old, new), "round \(round)")
            }
            let stayed = Set(old.indices).subtracting(changes.deletions)
            XCTAssertEqual(changes.modifications, stayed.sorted().filter { modified.contains(old[$0]) }, "round \(round)")
        }
    }

    func testRealmStyleExamples() {
        // A deletion and an insertion at the same place, a modification kept in place.
        XCTAssertEqual(
            CollectionChangeSet.between([1, 2, 3], [1, 4, 3], modified: [3]),
            CollectionChangeSet(deletions: [1], insertions: [1], modifications: [2]))
        // A move to the front is a deletion and an insertion.
        XCTAssertEqual(
            CollectionChangeSet.between([1, 2, 3], [3, 1, 2], modified: []),
            CollectionChangeSet(deletions: [2], insertions: [0], modifications: []))
        XCTAssertTrue(CollectionChangeSet.between([1, 2], [1, 2], modified: [7]).isEmpty)
        XCTAssertEqual(CollectionChangeSet.between([], [5, 6], modified: []).insertions, [0, 1])
        XCTAssertEqual(CollectionChangeSet.between([5, 6], [], modified: [5]).deletions, [0, 1])
    }
}
