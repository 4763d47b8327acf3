import Foundation
import XCTest
@testable import Strata
import StrataStorage

final class ObjectModelTests: DatabaseTestCase {
    func testAddReadBackAndReopen() throws {
        var id = ObjectId.generate()
        do {
            let db = try open()
            let rex = Dog()
            rex.name = "Rex"
            rex.age = 3
            XCTAssertFalse(rex.isManaged)
            id = rex._id
            try db.write { try db.add(rex) }
            XCTAssertTrue(rex.isManaged)
            XCTAssertEqual(rex.name, "Rex")
            XCTAssertEqual(rex.age, 3)
            XCTAssertNil(rex.breed)
        }
        let db = try open()
        let found = try XCTUnwrap(db.object(ofType: Dog.self, forPrimaryKey: id))
        XCTAssertEqual(found.name, "Rex")
        XCTAssertEqual(found.age, 3)
        XCTAssertEqual(db.objects(Dog.self).count, 1)
    }

    func testEveryScalarTypeRoundTrips() throws {
        let db = try open()
        let person = Person()
        person.name = "Ann"
        person.birthdate = Date(timeIntervalSince1970: 123_456.789)
        person.height = 1.72
        person.photo = Data([1, 2, 3])
        person.balance = try Decimal128(string: "1234567890.123456789012345678901234")
        let ref = UUID()
        person.ref = ref
        person.small = -8
        person.medium = 1600
        person.large = .max
        person.ratio = 0.5
        person.active = true
        person.scratch = 99
        try db.write { try db.add(person) }

        let again = try XCTUnwrap(try open().object(ofType: Person.self, forPrimaryKey: person._id))
        XCTAssertEqual(again.name, "Ann")
        XCTAssertEqual(again.birthdate, Date(timeIntervalSince1970: 123_456.789))
        XCTAssertEqual(again.height, 1.72)
        XCTAssertEqual(again.photo, Data([1, 2, 3]))
        XCTAssertEqual(again.balance.description, "1234567890.123456789012345678901234")
        XCTAssertEqual(again.ref, ref)
        XCTAssertEqual(again.small, -8)
        XCTAssertEqual(again.medium, 1600)
        XCTAssertEqual(again.large, .max)
        XCTAssertEqual(again.ratio, 0.5)
        XCTAssertTrue(again.active)
        XCTAssertEqual(again.scratch, 0, "a property without @Persisted is not stored")
    }

    func testDefaultsAndCustomDefaults() throws {
        let db = try open()
        let counter = Counter()
        try db.write { try db.add(counter) }
        let stored = try XCTUnwrap(db.objects(Counter.self).first)
        XCTAssertEqual(stored.label, "unnamed")
        XCTAssertEqual(stored.value, 0)
        XCTAssertNotEqual(Dog()._id, Dog()._id, "each object gets its own ObjectId")
    }

    func testManagedPropertyWritesNeedAWriteAndPersist() throws {
        let db = try open()
        let dog = Dog()
        try db.write { try db.add(dog) }
        try db.write { dog.age = 7 }
        XCTAssertEqual(dog.age, 7)
        XCTAssertEqual(try open().object(ofType: Dog.self, forPrimaryKey: dog._id)?.age, 7)
    }

    func testThrowInsideWriteRollsBackEverything() throws {
        let db = try open()
        let dog = Dog()
        dog.name = "Rex"
        try db.write { try db.add(dog) }
        struct Oops: Error {}
        let added = Dog()
        XCTAssertThrowsError(try db.write {
            dog.name = "Changed"
            try db.add(added)
            XCTAssertEqual(dog.name, "Changed", "the write sees its own change")
            throw Oops()
        })
        XCTAssertEqual(dog.name, "Rex", "the in-memory property was rolled back")
        XCTAssertTrue(added.isInvalidated, "an object added in a cancelled write is invalidated")
        XCTAssertEqual(db.objects(Dog.self).count, 1)
        XCTAssertEqual(try open().objects(Dog.self).count, 1)
    }

    func testAnObjectOfACancelledWriteStaysInvalidWhenItsKeyIsAddedLater() throws {
        let db = try open()
        let first = Dog()
        first.name = "First"
        try db.beginWrite()
        try db.add(first)
        XCTAssertEqual(first.name, "First", "managed inside its write")
        let id = first._id
        db.cancelWrite()
        XCTAssertTrue(first.isInvalidated)
        // Another object with the same primary key: the cancelled one must not come back as it.
        let second = Dog(value: ["_id": id, "name": "Second"])
        try db.write { try db.add(second) }
        XCTAssertTrue(first.isInvalidated, "an object of a cancelled write never comes back")
        XCTAssertFalse(second.isInvalidated)
        XCTAssertThrowsError(try db.write { try db.add(first) }) { error in
            XCTAssertEqual((error as? StrataError)?.code, .objectInvalidated)
        }
        XCTAssertEqual(db.objects(Dog.self).map(\.name), ["Second"])
        XCTAssertEqual(db.cancelledWrites.count, 1, "only the write that added an object is listed")
        try db.beginWrite()
        second.name = "Renamed"
        db.cancelWrite()
        XCTAssertEqual(db.cancelledWrites.count, 1, "a cancelled write that added nothing is not listed")
        XCTAssertEqual(second.name, "Second")
    }


    func testAWriteStartsEmptyOnTheTablesThePreviousWriteLeft() throws {
        let db = try open([Numbered.self])
        // A cancelled write, then a committed one, each leaving its tables for the next.
        try db.beginWrite()
        for number in 0..<50 { try db.add(Numbered(value: ["number": number, "label": "cancelled \(number)"])) }
        db.cancelWrite()
        XCTAssertNotNil(db.spareWriteTables, "a cancelled write leaves its tables")
        try db.write {
            XCTAssertEqual(db.objects(Numbered.self).count, 0, "nothing of the cancelled write is left")
            XCTAssertNil(db.object(ofType: Numbered.self, forPrimaryKey: 7))
            for number in 100..<120 { try db.add(Numbered(value: ["number": number, "label": "kept \(number)"])) }
            // Read back inside the write: decoded from the records the write encoded.
            XCTAssertEqual(db.object(ofType: Numbered.self, forPrimaryKey: 103)?.label, "kept 103")
            XCTAssertEqual(db.objects(Numbered.self).count, 20)
        }
        XCTAssertNotNil(db.spareWriteTables, "a committed write leaves its tables")
        try db.write {
            XCTAssertEqual(db.objects(Numbered.self).count, 20)
            // Keys only the cancelled write had: free, so `.error` does not throw.
            for number in 0..<10 { try db.add(Numbered(value: ["number": number, "label": "again \(number)"])) }
            XCTAssertEqual(db.object(ofType: Numbered.self, forPrimaryKey: 4)?.label, "again 4")
        }
        XCTAssertEqual(db.objects(Numbered.self).map(\.label).sorted().first, "again 0")
        XCTAssertEqual(db.objects(Numbered.self).count, 30)
        XCTAssertEqual(db.object(ofType: Numbered.self, forPrimaryKey: 119)?.label, "kept 119")
    }
    func testBeginCommitCancel() throws {
        let db = try open()
        try db.beginWrite()
        try db.add(Dog())
        db.cancelWrite()
        XCTAssertEqual(db.objects(Dog.self).count, 0)
        try db.beginWrite()
        try db.add(Dog())
        try db.commitWrite()
        XCTAssertEqual(db.objects(Dog.self).count, 1)
        XCTAssertThrowsError(try db.commitWrite()) { error in
            XCTAssertEqual((error as? StrataError)?.code, .notInWriteTransaction)
        }
    }

    func testAddOutsideWriteIsATypedError() throws {
        let db = try open()
        XCTAssertThrowsError(try db.add(Dog())) { error in
            XCTAssertEqual((error as? StrataError)?.code, .notInWriteTransaction)
        }
        XCTAssertEqual(db.objects(Dog.self).count, 0)
    }

    func testDuplicatePrimaryKeyIsRefusedAndNothingIsWritten() throws {
        let db = try open()
        let first = Dog()
        first.name = "First"
        try db.write { try db.add(first) }
        let duplicate = Dog(value: ["_id": first._id, "name": "Second"])
        let other = Dog()
        do {
            try db.write {
                try db.add(other)
                try db.add(duplicate)
            }
            XCTFail("a duplicate primary key was accepted")
        } catch StrataError.primaryKeyExists {
            // expected
        }
        XCTAssertEqual(db.objects(Dog.self).count, 1, "the whole write was rolled back")
        XCTAssertEqual(db.object(ofType: Dog.self, forPrimaryKey: first._id)?.name, "First")
    }

    func testDuplicateKeysBelowAtAndAboveTheGreatestStoredKeyAreFound() throws {
        // A write skips the lookup of a key greater than every stored one: the keys at, below
        // and between stored keys must still be found, in key order (negative numbers, string
        // prefixes).
        let db = try open([Numbered.self, Tagged.self])
        try db.write {
            for number in [-5, 0, 7, 1_000] { try db.add(Numbered(value: ["number": number, "label": "stored"])) }
            for tag in ["b", "ab", "abc"] { try db.add(Tagged(value: ["tag": tag])) }
        }
        for number in [-5, 0, 7, 1_000] {
            XCTAssertThrowsError(try db.write { try db.add(Numbered(value: ["number": number])) }, "\(number)") { error in
                XCTAssertEqual((error as? StrataError)?.code, .primaryKeyExists)
            }
        }
        for tag in ["b", "ab", "abc"] {
            XCTAssertThrowsError(try db.write { try db.add(Tagged(value: ["tag": tag])) }, tag) { error in
                XCTAssertEqual((error as? StrataError)?.code, .primaryKeyExists)
            }
        }
        try db.write {
            for number in [-6, 3, 1_001] { try db.add(Numbered(value: ["number": number, "label": "new"])) }
            for tag in ["a", "abcd", "c"] { try db.add(Tagged(value: ["tag": tag])) }
            try db.add(Numbered(value: ["number": 7, "label": "upserted"]), update: .modified)
        }
        XCTAssertEqual(db.objects(Numbered.self).count, 7)
        XCTAssertEqual(db.objects(Tagged.self).count, 6)
        XCTAssertEqual(db.object(ofType: Numbered.self, forPrimaryKey: 7)?.label, "upserted")
        XCTAssertEqual(db.object(ofType: Numbered.self, forPrimaryKey: 1_001)?.label, "new")
    }

    func testUpsertByPrimaryKey() throws {
        let db = try open()
        let ann = Person()
        ann.name = "Ann"
        ann.height = 1.6
        try db.write { try db.add(ann) }
        try db.write { try db.add(Person(value: ["_id": ann._id, "name": "Anne"]), update: .modified) }
        XCTAssertEqual(db.objects(Person.self).count, 1)
        XCTAssertEqual(ann.name, "Anne")
        XCTAssertEqual(ann.height, 0, "properties the new object did not set take its defaults")
        try db.write { try db.add(Person(value: ["_id": ann._id, "name": "Annie"]), update: .all) }
        XCTAssertEqual(db.object(ofType: Person.self, forPrimaryKey: ann._id)?.name, "Annie")
    }

    func testDeleteInvalidatesAndLinksReadNil() throws {
        let db = try open()
        let rex = Dog()
        let ann = Person()
        ann.dog = rex
        try db.write { try db.add(ann) }
        XCTAssertTrue(rex.isManaged, "adding a person adds the dog it links to")
        XCTAssertEqual(ann.dog?._id, rex._id)
        let frozen = db.freeze()
        try db.write { try db.delete(rex) }
        XCTAssertTrue(rex.isInvalidated)
        XCTAssertNil(ann.dog, "a link to a deleted object reads nil")
        XCTAssertEqual(frozen.objects(Dog.self).count, 1, "the frozen view still sees the dog")
        XCTAssertEqual(db.objects(Dog.self).count, 0)
        XCTAssertThrowsError(try db.write { try db.delete(rex) }) { error in
            XCTAssertEqual((error as? StrataError)?.code, .objectInvalidated)
        }
    }

    func testSettingALinkToNilKeepsTheTarget() throws {
        let db = try open()
        let ann = Person()
        ann.dog = Dog()
        try db.write { try db.add(ann) }
        try db.write { ann.dog = nil }
        XCTAssertNil(ann.dog)
        XCTAssertEqual(db.objects(Dog.self).count, 1)
    }

    func testStringOverLimitIsATypedErrorAndNothingIsWritten() throws {
        let db = try open()
        let dog = Dog()
        dog.name = String(repeating: "x", count: 16 * 1024 * 1024 + 1)
        XCTAssertThrowsError(try db.write { try db.add(dog) }) { error in
            XCTAssertEqual((error as? StrataError)?.code, .invalidValue)
            XCTAssertTrue((error as? StrataError)?.message.contains("Dog.name") ?? false, "\(error)")
        }
        XCTAssertFalse(dog.isManaged)
        // Caught inside the write: the objects added before and after it are stored whole.
        try db.write {
            let before = Dog(value: ["name": "Before", "age": 1])
            try db.add(before)
            XCTAssertThrowsError(try db.add(dog))
            XCTAssertFalse(dog.isManaged)
            try db.add(Dog(value: ["name": "After", "age": 2]))
            XCTAssertEqual(before.name, "Before")
        }
        XCTAssertEqual(Set(db.objects(Dog.self).map(\.name)), ["Before", "After"])
        XCTAssertEqual(Set(try open().objects(Dog.self).map(\.age)), [1, 2])
        try db.write { try db.delete(db.objects(Dog.self)) }
        let managed = Dog()
        try db.write { try db.add(managed) }
        XCTAssertThrowsError(try db.write { managed.name = String(repeating: "y", count: 16 * 1024 * 1024 + 1) }) { error in
            XCTAssertEqual((error as? StrataError)?.code, .invalidValue)
            XCTAssertTrue((error as? StrataError)?.message.contains("Dog.name") ?? false)
        }
        XCTAssertEqual(managed.name, "")
        XCTAssertEqual(db.objects(Dog.self).count, 1)
    }

    func testAddingAnUnregisteredTypeIsATypedError() throws {
        let db = try open([Dog.self])
        XCTAssertThrowsError(try db.write { try db.add(Counter()) }) { error in
            XCTAssertEqual((error as? StrataError)?.code, .wrongDatabase)
            XCTAssertTrue((error as? StrataError)?.message.contains("Counter") ?? false)
        }
        XCTAssertEqual(db.objects(Dog.self).count, 0)
    }

    func testDataOverLimitIsATypedError() throws {
        let db = try open()
        let person = Person()
        person.photo = Data(count: 16 * 1024 * 1024 + 1)
        XCTAssertThrowsError(try db.write { try db.add(person) }) { error in
            XCTAssertEqual((error as? StrataError)?.code, .invalidValue)
        }
        XCTAssertEqual(db.objects(Person.self).count, 0)
        person.photo = Data(count: 16 * 1024 * 1024)
        try db.write { try db.add(person) }
        XCTAssertEqual(person.photo?.count, 16 * 1024 * 1024, "exactly 16 MB is allowed")
    }

    func testObjectsOfAnotherDatabaseAreRefused() throws {
        let db = try open()
        let dog = Dog()
        try db.write { try db.add(dog) }
        let otherDirectory = directory.appendingPathComponent("other")
        let other = try Database(configuration: .init(directory: otherDirectory, objectTypes: [Dog.self, Person.self, Counter.self]))
        XCTAssertThrowsError(try other.write { try other.add(dog) }) { error in
            XCTAssertEqual((error as? StrataError)?.code, .wrongDatabase)
        }
        XCTAssertThrowsError(try other.write { try other.delete(dog) }) { error in
            XCTAssertEqual((error as? StrataError)?.code, .wrongDatabase)
        }
        XCTAssertThrowsError(try db.write { try db.delete(Dog()) }) { error in
            XCTAssertEqual((error as? StrataError)?.code, .wrongDatabase)
        }
    }

    func testResultsWhereAndSorted() throws {
        let db = try open()
        try addFourDogs(to: db)
        let old = db.objects(Dog.self).where { $0.age > 2 && $0.name.starts(with: "R") }
        XCTAssertEqual(Set(old.map(\.name)), ["Rex", "Rusty"])
        let byName = db.objects(Dog.self).sorted(by: \.name)
        XCTAssertEqual(byName.map(\.name), ["Fido", "Rex", "Rover", "Rusty"])
        XCTAssertEqual(db.objects(Dog.self).sorted(byKeyPath: "age", ascending: false).map(\.age), [9, 5, 3, 1])
        XCTAssertEqual(db.objects(Dog.self).where { !($0.age >= 3) || $0.name == "Fido" }.sorted(by: \.age).map(\.name), ["Rover", "Fido"])
        XCTAssertEqual(byName.first?.name, "Fido")
        XCTAssertEqual(byName.last?.name, "Rusty")
        // Live: a new commit shows up in existing results.
        try db.write { try db.add(Dog(value: ["name": "Ace", "age": 4])) }
        XCTAssertEqual(byName.first?.name, "Ace")
        XCTAssertEqual(old.count, 2)
        let frozen = byName.freeze()
        try db.write { try db.add(Dog(value: ["name": "Zed"])) }
        XCTAssertEqual(frozen.count, 5)
        XCTAssertEqual(byName.count, 6)
        XCTAssertTrue(frozen.isFrozen)
        XCTAssertEqual(frozen.thaw().count, 6)
        XCTAssertFalse(frozen.thaw().isFrozen)
    }

    func testAFrozenObjectCanBeSentToAnotherTask() async throws {
        let db = try open()
        let dog = Dog()
        dog.name = "Rex"
        try db.write { try db.add(dog) }
        let frozen = dog.freeze()            // `sending`: a disconnected value another task may take
        try db.write { dog.name = "Max" }
        let name = await Task.detached { frozen.name }.value
        XCTAssertEqual(name, "Rex")
    }

    func testFrozenObjectsAreSendable() throws {
        let db = try open()
        let dog = Dog()
        dog.name = "Rex"
        try db.write { try db.add(dog) }
        let frozen = dog.freeze()
        try db.write { dog.name = "Max" }
        let name = try DispatchQueue.global().sync { () throws -> String in frozen.name }
        XCTAssertEqual(name, "Rex")
        XCTAssertTrue(frozen.isFrozen)
        XCTAssertEqual(frozen.thaw()?.name, "Max")
    }
}
