import Foundation
import XCTest

@_spi(Testing) import StrataStorage
@testable import Strata

// A class's cached columns are brought up to date by each commit's changes
// (`ClassColumns.updated(to:keys:decoding:)`) rather than decoded again: the updated table must
// hold exactly what a table decoded afresh at the new version holds, whatever the commits added,
// changed or removed, and whichever writer made them.

final class ColumnUpdateTests: DatabaseTestCase {
    /// Every property's column of `Person`, from the database's cache (updated when it can be).
    private func cachedTable(_ db: Database) -> ClassColumns? {
        let schema = db.schemas.schema(for: Person.self)!
        _ = db.readVersion()
        return db.columns(of: schema, reading: Set(schema.properties.indices.filter { schema.readsPlainField[$0] }))
    }

    /// The same, decoded afresh.
    private func freshTable(_ db: Database) -> ClassColumns? {
        db.columnCache.withLock { $0 = [:] }
        return cachedTable(db)
    }

    private func assertSame(_ updated: ClassColumns, _ fresh: ClassColumns, _ message: String, line: UInt = #line) {
        XCTAssertEqual(updated.entries.map(\.key), fresh.entries.map(\.key), message, line: line)
        XCTAssertEqual(updated.version, fresh.version, message, line: line)
        XCTAssertEqual(updated.decodedProperties, fresh.decodedProperties, message, line: line)
        for property in fresh.decodedProperties {
            let values = fresh.column(property)
            let row = Array(zip(updated.column(property), values)).firstIndex { $0 != $1 }
            XCTAssertTrue(updated.column(property).count == values.count && row == nil,
                          "\(message): property \(property) differs at row \(row ?? -1)", line: line)
        }
    }

    private func randomPerson(_ random: inout SplitMix64) -> Person {
        let person = Person()
        person.name = ["Ann", "Bob", "Cy"].randomElement(using: &random)! + "\(random.next() % 100)"
        person.large = Int64.random(in: -50...50, using: &random)
        person.medium = Bool.random(using: &random) ? Int16.random(in: 0...9, using: &random) : nil
        return person
    }

    /// Random commits of adds, changes and deletes (few, so the table is updated; now and then
    /// many, so it is decoded afresh), each followed by a comparison with a fresh table.
    func testUpdatedColumnsEqualFreshOnes() throws {
        var random = SplitMix64(seed: 0xC0_1D)
        let db = try open()
        try db.write { for _ in 0..<400 { try db.add(randomPerson(&random)) } }
        for round in 0..<40 {
            _ = cachedTable(db)
            let changes = round % 7 == 6 ? 150 : Int(random.next() % 12)
            try db.write {
                let people = Array(db.objects(Person.self))
                for _ in 0..<changes {
                    switch random.next() % 3 {
                    case 0: try db.add(randomPerson(&random))
                    case 1:
                        if let person = people.randomElement(using: &random), !person.isInvalidated {
                            person.large += 1
                            person.name += "+"
                        }
                    default:
                        if let victim = people.randomElement(using: &random), !victim.isInvalidated { try db.delete(victim) }
                    }
                }
            }
            let updated = try XCTUnwrap(cachedTable(db))
            assertSame(updated, try XCTUnwrap(freshTable(db)), "round \(round)")
        }
    }

    /// Commits by another `Database` on the same files reach this one's table too.
    func testAnotherWritersCommitsAreApplied() throws {
        var random = SplitMix64(seed: 0xC0_1E)
        let db = try open()
        try db.write { for _ in 0..<100 { try db.add(randomPerson(&random)) } }
        _ = cachedTable(db)
        let other = try open()
        try other.write {
            other.objects(Person.self).first!.large = 1_000
            try other.delete(other.objects(Person.self).last!)
            try other.add(randomPerson(&random))
        }
        db.refresh()
        let updated = try XCTUnwrap(cachedTable(db))
        XCTAssertTrue(updated.column(db.schemas.schema(for: Person.self)!.properties.firstIndex { $0.name == "large" }!).contains(.int(1_000)))
        assertSame(updated, try XCTUnwrap(freshTable(db)), "after another writer")
        XCTAssertEqual(db.objects(Person.self).filter("large == 1000").count, 1)
    }

    /// A commit that touches no object of the class keeps its table as it is.
    func testACommitElsewhereKeepsTheTable() throws {
        let db = try open()
        try db.write { for index in 0..<50 { let person = Person(); person.large = Int64(index); try db.add(person) } }
        let before = try XCTUnwrap(cachedTable(db))
        try db.write { try db.add(Dog()) }
        let after = try XCTUnwrap(cachedTable(db))
        XCTAssertNotEqual(before.version, after.version)
        XCTAssertEqual(before.entries.map(\.key), after.entries.map(\.key))
        XCTAssertEqual(db.objects(Person.self).filter("large < 10").count, 10)
    }

    /// `dog.age > k` over the people, read from columns whose link rows follow each commit,
    /// equals the count made by walking each person's dog, through commits that change ages,
    /// relink, unlink, add and delete people and dogs.
    func testLinkRowsFollowCommits() throws {
        var random = SplitMix64(seed: 0xC0_1F)
        let db = try open()
        try db.write {
            for index in 0..<120 {
                let dog = Dog()
                dog.age = index % 10
                try db.add(dog)
                let person = Person()
                person.dog = index % 5 == 0 ? nil : dog
                try db.add(person)
            }
        }
        for round in 0..<30 {
            let threshold = Int(random.next() % 10)
            let expected = db.objects(Person.self).filter { ($0.dog?.age ?? -1) > threshold }.count
            XCTAssertEqual(db.objects(Person.self).where { $0.dog.age > threshold }.count, expected, "round \(round)")
            try db.write {
                let dogs = Array(db.objects(Dog.self)), people = Array(db.objects(Person.self))
                for _ in 0..<Int(random.next() % 6) {
                    switch random.next() % 5 {
                    case 0: dogs.randomElement(using: &random).map { if !$0.isInvalidated { $0.age = Int(random.next() % 10) } }
                    case 1: people.randomElement(using: &random).map { if !$0.isInvalidated { $0.dog = dogs.randomElement(using: &random).flatMap { $0.isInvalidated ? nil : $0 } } }
                    case 2: let dog = Dog(); dog.age = 7; try db.add(dog)
                    case 3: if let dog = dogs.randomElement(using: &random), !dog.isInvalidated { try db.delete(dog) }
                    default: let person = Person(); person.dog = dogs.first { !$0.isInvalidated }; try db.add(person)
                    }
                }
            }
        }
    }
}
