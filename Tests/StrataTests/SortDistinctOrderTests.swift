import Foundation
import XCTest

@testable import Strata

// `sorted` and `distinct` apply in the order they are chained, as Realm's DescriptorOrdering.
// The data and the expected answers are realm-core's test/object-store/results.cpp
// "distinct" cases: ten rows i = 0…9 with num1 = i % 3, num2 = 10 - i, num3 = i % 2.

final class DistinctRow: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var num1: Int
    @Persisted var label: String
    @Persisted var num2: Int
    @Persisted var num3: Int
}

final class SortDistinctOrderTests: DatabaseTestCase {
    private var db: Database?

    /// The ten rows, written on the first call of a test.
    private func rows() throws -> Results<DistinctRow> {
        if let db { return db.objects(DistinctRow.self) }
        let db = try open([DistinctRow.self])
        self.db = db
        try db.write {
            for i in 0..<10 {
                try db.add(DistinctRow(value: ["id": i, "num1": i % 3, "label": "Foo_\(i % 3)", "num2": 10 - i, "num3": i % 2]))
            }
        }
        return db.objects(DistinctRow.self)
    }

    func testDistinctAloneKeepsTheFirstOfEachInKeyOrder() throws {
        XCTAssertEqual(try rows().distinct(by: ["num1"]).map(\.num2), [10, 9, 8])
        XCTAssertEqual(try rows().distinct(by: ["label"]).map(\.num2), [10, 9, 8])
    }

    /// realm-core "Order after sort and distinct": the distinct keeps the first of each in the
    /// sorted order.
    func testSortThenDistinctKeepsTheFirstOfEachInSortedOrder() throws {
        XCTAssertEqual(try rows().sorted(byKeyPath: "num2").distinct(by: ["num1"]).map(\.num2), [1, 2, 3])
    }

    /// realm-core "Order after distinct and sort": the sort orders only what the distinct kept
    /// (the old evaluation sorted first whatever the call order, giving [1, 2, 3]).
    func testDistinctThenSortSortsWhatTheDistinctKept() throws {
        XCTAssertEqual(try rows().distinct(by: ["num1"]).sorted(byKeyPath: "num2").map(\.num2), [8, 9, 10])
        XCTAssertEqual(try rows().distinct(by: [\DistinctRow.num1]).sorted(by: \.num2, ascending: false).map(\.num2), [10, 9, 8])
    }

    /// realm-core "Chaining distinct": a second distinct applies to what the first kept; it is
    /// not one distinct over both key paths (which keeps 6 rows).
    func testChainedDistinctsApplyOneAfterTheOther() throws {
        let results = try rows().distinct(by: ["num1"]).distinct(by: ["num3"])
        XCTAssertEqual(results.count, 2)
        XCTAssertEqual(results.map(\.num2), [10, 9])
        XCTAssertEqual(try rows().distinct(by: ["num1", "num3"]).count, 6)
    }

    /// realm-core "Chaining sort": `sort(a).sort(b)` is `sort(b, a)`.
    func testChainedSortsLetTheLaterDecideFirst() throws {
        let sorted = try rows().sorted(byKeyPath: "num1").sorted(byKeyPath: "num3")
        let pairs = sorted.map { [$0.num1, $0.num3] }
        XCTAssertEqual(pairs, [[0, 0], [0, 0], [1, 0], [2, 0], [2, 0], [0, 1], [0, 1], [1, 1], [1, 1], [2, 1]])
    }

    /// A sort after a distinct is stable over the distinct's order, and a further distinct
    /// applies to the sorted rows: [sort num2, distinct num1, sort num3, distinct num3].
    func testSortsAndDistinctsInterleaved() throws {
        let results = try rows().sorted(byKeyPath: "num2").distinct(by: ["num1"])   // num2 1, 2, 3
            .sorted(byKeyPath: "num3")                                              // 2 (num3 0), 1, 3 (num3 1)
        XCTAssertEqual(results.map(\.num2), [2, 1, 3])
        XCTAssertEqual(results.distinct(by: ["num3"]).map(\.num2), [2, 1])
    }

    /// realm-core "Distinct is carried over to new queries": a filter after a distinct filters
    /// first (the distinct keeps the first of the rows that pass both), as Realm's
    /// `Results::filter` keeps the ordering.
    func testAFilterAfterADistinctAppliesBeforeIt() throws {
        XCTAssertEqual(try rows().distinct(by: ["num1"]).where { $0.num1 < 2 }.map(\.num2), [10, 9])
        XCTAssertEqual(try rows().distinct(by: ["num1"]).filter("num2 < 10").map(\.num2), [9, 8, 7])
    }

    /// The first k of a distinct followed by a sort are those of the whole evaluation.
    func testPrefixOfADistinctThenSort() throws {
        let results = try rows().distinct(by: ["num1"]).sorted(byKeyPath: "num2")
        XCTAssertEqual(results.prefix(2).map(\.num2), [8, 9])
        XCTAssertEqual(results.count, 3)
    }

    /// A distinct drops the objects whose key path goes through a nil link (realm-core's
    /// `DistinctDescriptor::execute` removes "rows which have a null link along the way");
    /// a nil value at the end of the path is a value like any other.
    func testDistinctThroughANilLinkDropsTheObject() throws {
        let db = try ResultsOperationTests.pack(try open([ODog.self, OOwner.self]))
        let owners = db.objects(OOwner.self)   // Ann (dog Rex, 5), Bob (Rover, 9), Cy (no dog)
        XCTAssertEqual(owners.distinct(by: ["dog.age"]).map(\.name), ["Ann", "Bob"])
        XCTAssertEqual(owners.distinct(by: ["dog.weight"]).map(\.name), ["Ann", "Bob"])
        let dogs = db.objects(ODog.self)       // weights: Fido nil, Rex 20, Rover 30, Spot nil
        XCTAssertEqual(dogs.distinct(by: ["weight"]).map(\.name), ["Fido", "Rex", "Rover"])
    }
}
