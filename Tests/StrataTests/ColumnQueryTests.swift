import Foundation
import XCTest

@_spi(Testing) import StrataStorage
@testable import Strata

// Queries over a whole class read cached columns outside a write (`ClassColumns`) and decode
// each object inside one; both must give the same answers, and a commit must not leave a
// query reading columns of the version before it.

final class ColumnQueryTests: DatabaseTestCase {
    func testColumnsAndRecordsGiveTheSameMatchesCountsSortsAndAggregates() throws {
        let db = try open()
        try addRandomPeople(to: db, count: 300, seed: 7)
        let predicates = [
            "large > 10", "large BETWEEN {-5, 5} OR active == true", "NOT (height < 50) AND medium != nil",
            "medium IN {1, 2, 3}", "name BEGINSWITH[cd] 'e'", "medium == nil", "TRUEPREDICATE AND large <= 0",
            "name LIKE '*1' OR name CONTAINS 'o'", "height >= 99.5",
            // Integer constants take the integer fast path on columns (nulls the general test).
            "large == 3", "large != 3", "large < -49", "large >= 50", "medium < 5", "medium >= 5",
            "medium != 4", "NOT medium == 4", "large == 9223372036854775807",
        ]
        for format in predicates {
            let outside = db.objects(Person.self).filter(format)
            let sortedOutside = outside.sorted(byKeyPath: "large").map(\._id)
            let count = db.objects(Person.self).filter(format).count
            let sum = db.objects(Person.self).filter(format).sum(of: \.large)
            let maximum = db.objects(Person.self).filter(format).max(of: \.height)
            try db.write {
                // Inside a write the same query decodes each object.
                let inside = db.objects(Person.self).filter(format)
                XCTAssertEqual(Set(outside.map(\._id)), Set(inside.map(\._id)), format)
                XCTAssertEqual(sortedOutside, inside.sorted(byKeyPath: "large").map(\._id), format)
                XCTAssertEqual(count, inside.count, format)
                XCTAssertEqual(sum, inside.sum(of: \.large), format)
                XCTAssertEqual(maximum, inside.max(of: \.height), format)
            }
        }
    }

    func testSortsAreStableAndAgreeWithSwiftsOwnSort() throws {
        let db = try open()
        try addRandomPeople(to: db, count: 200, seed: 10)
        let inKeyOrder = Array(db.objects(Person.self))
        for ascending in [true, false] {
            // Swift's `sorted(by:)` is not guaranteed stable: sort positions instead.
            let expected = inKeyOrder.indices.sorted { lhs, rhs in
                let (a, b) = (inKeyOrder[lhs].large, inKeyOrder[rhs].large)
                return a != b ? (ascending ? a < b : a > b) : lhs < rhs
            }.map { inKeyOrder[$0]._id }
            XCTAssertEqual(db.objects(Person.self).sorted(by: \.large, ascending: ascending).map(\._id), expected)
            let heights = db.objects(Person.self).sorted(by: \.height, ascending: ascending).map(\.height)
            XCTAssertEqual(heights, inKeyOrder.map(\.height).sorted(by: ascending ? (<) : (>)))
        }
    }

    func testACommitIsSeenByTheNextQuery() throws {
        let db = try open()
        try addRandomPeople(to: db, count: 50, seed: 8)
        let before = db.objects(Person.self).where { $0.large > 1000 }.count
        XCTAssertEqual(before, 0)
        try db.write {
            let person = Person()
            person.large = 5000
            try db.add(person)
        }
        XCTAssertEqual(db.objects(Person.self).where { $0.large > 1000 }.count, 1)
        XCTAssertEqual(db.objects(Person.self).max(of: \.large), 5000)
        // Another Database of the same store commits: this one sees it on its next query once
        // it has advanced.
        let other = try Database(configuration: db.configuration)
        try other.write { other.objects(Person.self).where { $0.large == 5000 }.first!.large = 7 }
        XCTAssertEqual(db.objects(Person.self).where { $0.large > 1000 }.count, 1, "until it advances")
        XCTAssertTrue(db.refresh())
        XCTAssertEqual(db.objects(Person.self).where { $0.large > 1000 }.count, 0)
        XCTAssertEqual(db.objects(Person.self).sum(of: \.large), db.objects(Person.self).map(\.large).reduce(0, +))
    }

    func testAFrozenViewKeepsItsColumnsWhileTheLiveOneMovesOn() throws {
        let db = try open()
        try addRandomPeople(to: db, count: 40, seed: 9)
        let frozen = db.freeze()
        let frozenCount = frozen.objects(Person.self).where { $0.large >= 0 }.count
        try db.write { for person in db.objects(Person.self) { person.large = -1 } }
        XCTAssertEqual(db.objects(Person.self).where { $0.large >= 0 }.count, 0)
        XCTAssertEqual(frozen.objects(Person.self).where { $0.large >= 0 }.count, frozenCount)
    }
}

final class IndexedInQueryTests: DatabaseTestCase {
    func testInOnAnIndexedPropertyOrThePrimaryKeyAgreesWithAScan() throws {
        let db = try open()
        var ids: [ObjectId] = []
        try db.write {
            for index in 0..<60 {
                let person = Person()
                person.name = "n\(index % 10)"
                try db.add(person)
                ids.append(person._id)
            }
        }
        let names = ["n1", "n3", "n3", "nobody"]
        let byIndex = db.objects(Person.self).where { $0.name.in(names) }
        XCTAssertEqual(byIndex.count, 12)
        // `FALSEPREDICATE OR` keeps the index from answering: a scan.
        let byScan = db.objects(Person.self).filter("FALSEPREDICATE OR name IN %@", names)
        XCTAssertEqual(Set(byIndex.map(\._id)), Set(byScan.map(\._id)))
        XCTAssertEqual(db.objects(Person.self).filter("name IN {}").count, 0)
        let someIDs = [ids[3], ids[40], ids[3]]
        XCTAssertEqual(Set(db.objects(Person.self).where { $0._id.in(someIDs) }.map(\._id)), [ids[3], ids[40]])
        XCTAssertEqual(db.objects(Person.self).where { $0._id.in(someIDs) }.count, 2)
        try db.write {
            // Inside a write the index sees the write's own changes.
            db.objects(Person.self).where { $0._id == ids[3] }.first!.name = "n7"
            XCTAssertEqual(db.objects(Person.self).where { $0.name.in(["n3"]) }.count, 5)
        }
    }
}

final class LinkColumnQueryTests: DatabaseTestCase {
    /// `dog.age > n` and the like read the persons' link column and the dogs' columns; inside a
    /// write the same predicates follow each link. Nil links, links to deleted dogs and a dog
    /// added after the columns were built must agree.
    func testToOneLinkPredicatesOnColumnsAgreeWithFollowingEachLink() throws {
        let db = try open([QDog.self, QPerson.self, QAddress.self])
        var random = SplitMix64(seed: 0xC01)
        try db.write {
            var dogs: [QDog] = []
            for index in 0..<30 {
                let dog = QDog()
                dog.name = "d\(index)"
                dog.age = Int.random(in: 0...9, using: &random)
                try db.add(dog)
                dogs.append(dog)
            }
            for index in 0..<120 {
                let person = QPerson()
                person.name = "p\(index)"
                if Int.random(in: 0...3, using: &random) > 0 { person.dog = dogs.randomElement(using: &random) }
                try db.add(person)
            }
        }
        let formats = ["dog.age > 4", "dog.age == nil", "dog == nil OR dog.age < 2", "dog.name BEGINSWITH 'd1'",
                       "NOT dog.age BETWEEN {2, 6}", "dog.age IN {1, 3, 5} AND name CONTAINS '1'"]
        func compare(line: UInt = #line) throws {
            for format in formats {
                let outside = Set(db.objects(QPerson.self).filter(format).map(\.name))
                let count = db.objects(QPerson.self).filter(format).count
                try db.write {
                    let inside = Set(db.objects(QPerson.self).filter(format).map(\.name))
                    XCTAssertEqual(outside, inside, format, line: line)
                    XCTAssertEqual(count, inside.count, format, line: line)
                }
            }
        }
        try compare()
        try db.write {
            for dog in db.objects(QDog.self).where({ $0.age == 3 }) { try db.delete(dog) }
            db.objects(QDog.self).first!.age = 42
        }
        try compare()
        XCTAssertEqual(db.objects(QPerson.self).where { $0.dog.age == 42 }.count,
                       db.objects(QPerson.self).filter { $0.dog?.age == 42 }.count)
    }
}
