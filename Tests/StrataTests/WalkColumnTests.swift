import Foundation
import XCTest

@_spi(Testing) import StrataStorage
@testable import Strata

// A walk over every object of a class hands its objects out with their row of the class's
// column table: a property whose column is decoded is read from it, another from the record
// (and noted, so that the walk's table decodes it). Whatever the source, a read returns what
// the object holds in the view now.

final class WalkColumnTests: DatabaseTestCase {
    private func addPeople(_ db: Database, count: Int) throws {
        try db.write {
            for index in 0..<count {
                let person = Person()
                person.name = "p\(index)"
                person.large = Int64(index)
                try db.add(person)
            }
        }
    }

    private func largeIndex(_ db: Database) -> Int {
        db.schemas.schema(for: Person.self)!.properties.firstIndex { $0.name == "large" }!
    }

    /// Reads during a long walk make the walk's table decode the property read, and every
    /// read, before and after, gives the object's value.
    func testAWalkDecodesTheColumnsItsObjectsAreReadFor() throws {
        let db = try open()
        try addPeople(db, count: 3 * ObjectWalk.demandInterval)
        var seen: [Int64] = []
        for person in db.objects(Person.self) { seen.append(person.large) }
        XCTAssertEqual(seen.sorted(), (0..<Int64(3 * ObjectWalk.demandInterval)).map { $0 })
        let table = try XCTUnwrap(db.columnCache.withLock { $0[db.schemas.schema(for: Person.self)!.classID] })
        XCTAssertTrue(table.hasColumn(largeIndex(db)), "the walk's reads of `large` were noted and decoded")
        // A second walk reads the column; the values are the same.
        XCTAssertEqual(db.objects(Person.self).map(\.large), db.objects(Person.self).map { $0.large })
        XCTAssertEqual(db.objects(Person.self).map(\.name).sorted(), (0..<3 * ObjectWalk.demandInterval).map { "p\($0)" }.sorted())
    }

    /// An object handed out from a table reads its new value after a write changes it (the
    /// view's version moved), in this database and from another writer; a deleted one is
    /// invalidated.
    func testObjectsFromATableFollowLaterWrites() throws {
        let db = try open()
        try addPeople(db, count: 50)
        for person in db.objects(Person.self) { _ = person.large }   // notes `large`
        var people: [Person] = []
        for person in db.objects(Person.self) { people.append(person) }   // handed out with the column
        XCTAssertTrue(db.columnCache.withLock { $0.values.contains { $0.hasColumn(largeIndex(db)) } })
        let first = people[0], second = people[1], secondID = second._id
        let before = first.large
        try db.write { first.large = 1_000 }
        XCTAssertEqual(first.large, 1_000)
        let other = try open()
        try other.write {
            other.object(ofType: Person.self, forPrimaryKey: secondID)!.large = 2_000
        }
        db.refresh()
        XCTAssertEqual(second.large, 2_000)
        XCTAssertNotEqual(before, 1_000)
        try db.write { try db.delete(second) }
        XCTAssertTrue(second.isInvalidated)
        XCTAssertEqual(db.objects(Person.self).filter("large == 1000").count, 1)
    }

    /// A frozen view's walks read its own tables, from any number of threads at once.
    func testFrozenWalksFromManyThreads() throws {
        let db = try open()
        try addPeople(db, count: 2 * ObjectWalk.demandInterval)
        let frozen = db.freeze()
        nonisolated(unsafe) let shared = frozen
        let expected = Int64((0..<2 * ObjectWalk.demandInterval).reduce(0, +))
        try db.write { db.objects(Person.self).first!.large = -1 }
        let sums = Locked<[Int64]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            let sum = shared.objects(Person.self).reduce(Int64(0)) { $0 + $1.large }
            sums.withLock { $0.append(sum) }
        }
        XCTAssertEqual(sums.withLock { $0 }, Array(repeating: expected, count: 8))
    }

    /// Objects of a query evaluated on columns (a predicate and a sort on the class's own
    /// properties) are handed out with their rows too: they read the columns, and follow later
    /// writes.
    func testObjectsOfAColumnQueryReadTheColumnsAndFollowWrites() throws {
        let db = try open()
        try addPeople(db, count: 200)
        let results = db.objects(Person.self).where { $0.large >= 100 }.sorted(by: \.large, ascending: false)
        XCTAssertEqual(results.map(\.large), (100..<200).reversed().map { Int64($0) })
        XCTAssertEqual(results.map(\.name), (100..<200).reversed().map { "p\($0)" })
        let top = results[0]
        guard case .row? = db.objects(Person.self).where({ $0.large >= 100 }).query.rows.first?.source else {
            return XCTFail("a column query's matches are rows of its table")
        }
        try db.write { top.large = -5 }
        XCTAssertEqual(top.large, -5)
        XCTAssertEqual(results.first?.large, 198)
        XCTAssertEqual(results.count, 99)
    }

    /// Reads of a `Data` property (whose values can be large) never make a walk keep its column.
    func testWalksKeepNoColumnOfData() throws {
        let db = try open()
        try db.write {
            for index in 0..<(2 * ObjectWalk.demandInterval) {
                let person = Person()
                person.photo = Data(repeating: UInt8(index % 256), count: 64)
                try db.add(person)
            }
        }
        for _ in 0..<2 { for person in db.objects(Person.self) { XCTAssertEqual(person.photo?.count, 64) } }
        let photo = db.schemas.schema(for: Person.self)!.properties.firstIndex { $0.name == "photo" }!
        XCTAssertFalse(db.columnCache.withLock { $0.values.contains { $0.hasColumn(photo) } })
        XCTAssertTrue(db.columnDemand.withLock { $0.values.allSatisfy { !$0.contains(photo) } })
    }
}
