import Foundation
import XCTest

@testable import Strata

// A map's values as a query source, as Realm's Map (MapTests.swift testFilter,
// testKeyedSortable, testKeyedAggregatable): a map of objects answers where, filter, sorted,
// distinct and the aggregates with live Results of its objects, in ascending key order, nil
// values and deleted objects left out; a map of values has min()/max()/sum()/average().

final class MapDog: Object {
    @Persisted(primaryKey: true) var name: String
    @Persisted var age: Int
}

final class Kennel: Object {
    @Persisted(primaryKey: true) var name: String
    @Persisted var dogs: Map<String, MapDog?>
    @Persisted var scores: Map<String, Int>
    @Persisted var weights: Map<String, Double?>
}

final class MapQueryTests: DatabaseTestCase {
    /// Kennel "K": dogs a: Rex 5, b: Fido 2, c: nil, d: Rex again, e: Spot 4; scores math 9,
    /// art 3; weights x: 2.5, y: nil, z: 4.5. Kennel "Empty" has nothing.
    private func kennels() throws -> (Database, Kennel, Kennel) {
        let db = try open([MapDog.self, Kennel.self])
        try db.write {
            let dogs = [("Rex", 5), ("Fido", 2), ("Spot", 4)].map { MapDog(value: ["name": $0.0, "age": $0.1]) }
            for dog in dogs { try db.add(dog) }
            let kennel = Kennel(), empty = Kennel()
            (kennel.name, empty.name) = ("K", "Empty")
            try db.add(kennel)
            try db.add(empty)
            kennel.dogs["a"] = dogs[0]
            kennel.dogs["b"] = dogs[1]
            kennel.dogs["c"] = .some(nil)
            kennel.dogs["d"] = dogs[0]
            kennel.dogs["e"] = dogs[2]
            kennel.scores["math"] = 9
            kennel.scores["art"] = 3
            kennel.weights["x"] = 2.5
            kennel.weights["y"] = .some(nil)
            kennel.weights["z"] = 4.5
        }
        let kennel = try XCTUnwrap(db.object(ofType: Kennel.self, forPrimaryKey: "K"))
        let empty = try XCTUnwrap(db.object(ofType: Kennel.self, forPrimaryKey: "Empty"))
        return (db, kennel, empty)
    }

    func testQueriesGoOverTheObjectValuesInKeyOrder() throws {
        let (_, kennel, _) = try kennels()
        XCTAssertEqual(kennel.dogs.count, 5)
        XCTAssertEqual(kennel.dogs.where { $0.age > 3 }.map(\.name), ["Rex", "Rex", "Spot"])
        XCTAssertEqual(kennel.dogs.filter("age > %@", 3).map(\.name), ["Rex", "Rex", "Spot"])
        XCTAssertEqual(kennel.dogs.sorted(byKeyPath: "age").map(\.name), ["Fido", "Spot", "Rex", "Rex"])
        XCTAssertEqual(kennel.dogs.sorted(by: \.age, ascending: false).map(\.name), ["Rex", "Rex", "Spot", "Fido"])
        XCTAssertEqual(kennel.dogs.sorted(by: [SortDescriptor(keyPath: "name", ascending: false)]).map(\.name), ["Spot", "Rex", "Rex", "Fido"])
        XCTAssertEqual(kennel.dogs.distinct(by: ["name"]).map(\.name), ["Rex", "Fido", "Spot"])
        XCTAssertEqual(kennel.dogs.distinct(by: [\MapDog.age]).count, 3)
        XCTAssertThrowsError(try kennel.dogs.filter(checking: "nope > 1"))
    }

    func testAggregatesOverTheObjectValues() throws {
        let (_, kennel, _) = try kennels()
        XCTAssertEqual(kennel.dogs.sum(of: \.age), 16)          // Rex twice, as a list's duplicates
        XCTAssertEqual(kennel.dogs.min(of: \.age), 2)
        XCTAssertEqual(kennel.dogs.max(of: \.age), 5)
        XCTAssertEqual(kennel.dogs.average(of: \.age), 4)
        XCTAssertEqual(kennel.dogs.sum(ofProperty: "age") as Int, 16)
        XCTAssertEqual(kennel.dogs.max(ofProperty: "age") as Int?, 5)
    }

    func testAnEmptyMapGivesEmptyResults() throws {
        let (_, _, empty) = try kennels()
        XCTAssertEqual(empty.dogs.where { $0.age > 0 }.count, 0)
        XCTAssertEqual(empty.dogs.sorted(byKeyPath: "age").first?.name, nil)
        XCTAssertEqual(empty.dogs.sum(of: \.age), 0)
        XCTAssertNil(empty.dogs.min(of: \.age))
        XCTAssertNil(empty.dogs.average(of: \.age))
        XCTAssertNil(empty.scores.max())
        XCTAssertEqual(empty.scores.sum(), 0)
    }

    func testNilValuesAndDeletedObjectsAreLeftOut() throws {
        let (db, kennel, _) = try kennels()
        let all = kennel.dogs.where { $0.age >= 0 }
        XCTAssertEqual(all.map(\.name), ["Rex", "Fido", "Rex", "Spot"])   // "c" is nil
        try db.write { try db.delete(db.object(ofType: MapDog.self, forPrimaryKey: "Rex")!) }
        XCTAssertEqual(kennel.dogs.count, 5, "a deleted object's keys stay, with nil values")
        XCTAssertNil(kennel.dogs["a"] ?? nil)
        XCTAssertEqual(all.map(\.name), ["Fido", "Spot"])
        XCTAssertEqual(kennel.dogs.sum(of: \.age), 6)
    }

    func testMapResultsAreLive() throws {
        let (db, kennel, _) = try kennels()
        let old = kennel.dogs.where { $0.age > 3 }
        let frozen = old.freeze()
        try db.write {
            db.object(ofType: MapDog.self, forPrimaryKey: "Fido")!.age = 7   // a value changes
            kennel.dogs["d"] = nil                                            // a key goes
        }
        XCTAssertEqual(old.map(\.name), ["Rex", "Fido", "Spot"])
        XCTAssertEqual(frozen.map(\.name), ["Rex", "Rex", "Spot"])
        try db.write { try db.delete(kennel) }                                // the owner goes
        XCTAssertEqual(old.count, 0)
    }

    func testMapsOfValuesHaveRealmsAggregates() throws {
        let (_, kennel, _) = try kennels()
        XCTAssertEqual(kennel.scores.values, [3, 9])                          // art, math
        XCTAssertEqual(kennel.scores.min(), 3)
        XCTAssertEqual(kennel.scores.max(), 9)
        XCTAssertEqual(kennel.scores.sum(), 12)
        XCTAssertEqual(kennel.scores.average() as Double?, 6)
        XCTAssertEqual(kennel.weights.sum(), 7)                                // nil skipped
        XCTAssertEqual(kennel.weights.average() as Double?, 3.5)
        XCTAssertEqual(kennel.weights.min(), 2.5)
        let unmanaged = Map<String, Int>()
        unmanaged["a"] = 4
        unmanaged["b"] = 1
        XCTAssertEqual([unmanaged.min(), unmanaged.max()], [1, 4])
        XCTAssertEqual(unmanaged.sum(), 5)
    }
}
