import Foundation
import StrataStorage
import XCTest

@_spi(Testing) @testable import Strata

/// A write left open does not hold the writer lock past the life of its `Database`, and limits
/// that derived records impose are checked where the user's value comes in.
final class WriteLifecycleTests: DatabaseTestCase {
    func testReleasingADatabaseWithAnOpenWriteLetsOtherWritersIn() throws {
        // Open first, so that both databases share one store and its writer lock.
        let db = try open()
        do {
            let abandoned = try open()
            try abandoned.beginWrite()
            let dog = Dog()
            dog.name = "never committed"
            try abandoned.add(dog)
        }
        let finished = DispatchSemaphore(value: 0)
        let configuration = db.configuration
        let writer = Thread {
            // A live Database is not Sendable: the thread opens its own, on the same store.
            guard let other = try? Database(configuration: configuration) else { return }
            try? other.write {
                let dog = Dog()
                dog.name = "Rex"
                try other.add(dog)
            }
            finished.signal()
        }
        writer.start()
        XCTAssertEqual(finished.wait(timeout: .now() + 10), .success, "the writer lock was never released")
        db.refresh()
        XCTAssertEqual(db.objects(Dog.self).map(\.name), ["Rex"])
    }

    func testAWriteWhoseBlockCancelsCommitsNothingAndMayBeginAnother() throws {
        // As Realm's `write`: the commit happens only if the block left a write open.
        let db = try open()
        try db.write {
            try db.add(Dog())
            db.cancelWrite()
        }
        XCTAssertEqual(db.objects(Dog.self).count, 0)
        try db.write {
            db.cancelWrite()
            try db.beginWrite()
            let dog = Dog()
            dog.name = "Rex"
            try db.add(dog)
        }
        XCTAssertEqual(db.objects(Dog.self).map(\.name), ["Rex"])
    }

    func testAnObjectWithTheLongestPrimaryKeyCanBeLinkedTo() throws {
        let db = try open([Owner.self, Pet.self, Place.self])
        let longest = String(repeating: "k", count: ObjectFormat.maxObjectKeyLength)
        try db.write {
            let pet = Pet()
            pet.name = longest
            let owner = Owner()
            owner.id = 1
            owner.pet = pet
            owner.pets.append(pet)
            try db.add(owner)
        }
        let pet = try XCTUnwrap(db.object(ofType: Pet.self, forPrimaryKey: longest))
        XCTAssertEqual(pet.owners.map(\.id), [1])
        try db.write { try db.delete(pet) }
        XCTAssertNil(try XCTUnwrap(db.object(ofType: Owner.self, forPrimaryKey: 1)).pet)
    }

    func testAPrimaryKeyTooLongToLinkToIsRefusedWhenAdded() throws {
        let db = try open([Owner.self, Pet.self, Place.self])
        let pet = Pet()
        pet.name = String(repeating: "k", count: ObjectFormat.maxObjectKeyLength + 1)
        XCTAssertThrowsError(try db.write { try db.add(pet) }) { error in
            XCTAssertEqual((error as? StrataError)?.code, .invalidValue)
        }
        XCTAssertEqual(db.objects(Pet.self).count, 0)
    }
}

/// A read-only `Database` opens a store that has no catalog yet, or lacks some classes.
final class ReadOnlyOpenTests: DatabaseTestCase {
    private func openReadOnly() throws -> Database {
        var configuration = Database.Configuration(directory: directory, objectTypes: [Dog.self, Person.self], schemaVersion: 1)
        configuration.storageOptions.readOnly = true
        return try Database(configuration: configuration)
    }

    func testAStoreWithoutACatalogOpensReadOnlyAsEmpty() throws {
        do {
            let store = try Store(directory: directory.path)
            var batch = WriteBatch()
            batch.put([1], forKey: StorageKey("x"), in: Keyspace(3))
            try store.commit(batch)
            try store.close()
        }
        let db = try openReadOnly()
        XCTAssertEqual(db.objects(Dog.self).count, 0)
    }

    func testClassesTheCatalogLacksReadAsEmptyReadOnly() throws {
        do {
            let db = try open([Counter.self])
            try db.write { try db.add(Counter()) }
        }
        let db = try openReadOnly()
        XCTAssertEqual(db.objects(Person.self).count, 0)
        XCTAssertEqual(db.objects(Dog.self).count, 0)
    }
}
