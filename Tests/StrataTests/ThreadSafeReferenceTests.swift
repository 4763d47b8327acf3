import Foundation
import StrataStorage
import XCTest

@testable import Strata

/// `ThreadSafeReference` and `Database.resolve(_:)`, modelled on Realm's
/// ThreadSafeReferenceTests: each reference is resolved in a `Database` opened in another task
/// from the `Sendable` configuration.
final class ThreadSafeReferenceTests: DatabaseTestCase {
    func testAnObjectResolvedInAnotherTaskIsWrittenThereAndSeenHere() throws {
        let db = try open()
        let dog = Dog()
        try db.write { try db.add(dog) }
        let (ref, configuration) = (ThreadSafeReference(to: dog), db.configuration)
        try waitForDetachedTask {
            let other = try Database(configuration: configuration)
            let resolved = try XCTUnwrap(other.resolve(ref))
            XCTAssertFalse(resolved.isFrozen)
            try other.write { resolved.name = "the meaning of life" }
        }
        XCTAssertEqual(dog.name, "", "until this database advances")
        db.refresh()
        XCTAssertEqual(dog.name, "the meaning of life")
    }

    func testAReferenceResolvesOnce() throws {
        let db = try open()
        let dog = Dog()
        try db.write { try db.add(dog) }
        let ref = ThreadSafeReference(to: dog)
        XCTAssertFalse(ref.isInvalidated)
        let copy = ref
        let other = try open()
        XCTAssertNotNil(other.resolve(ref))
        XCTAssertTrue(ref.isInvalidated)
        XCTAssertTrue(copy.isInvalidated)
        XCTAssertNil(other.resolve(copy))
        // Another reference to the same object resolves.
        XCTAssertNotNil(other.resolve(ThreadSafeReference(to: dog)))
    }

    func testAReferenceToADeletedObjectResolvesToNilAndIsUsedUp() throws {
        let db = try open()
        let dog = Dog()
        try db.write { try db.add(dog) }
        let ref = ThreadSafeReference(to: dog)
        try db.write { try db.delete(dog) }
        XCTAssertNil(try open().resolve(ref))
        XCTAssertTrue(ref.isInvalidated)
    }

    func testAReferenceMadeInAWriteResolvesOnceCommittedAndNotIfCancelled() throws {
        let db = try open()
        let (kept, dropped) = (Dog(), Dog())
        var refs: [ThreadSafeReference<Dog>] = []
        try db.write {
            try db.add(kept)
            refs.append(ThreadSafeReference(to: kept))
        }
        try db.beginWrite()
        try db.add(dropped)
        refs.append(ThreadSafeReference(to: dropped))
        db.cancelWrite()
        let other = try open()
        XCTAssertNotNil(other.resolve(refs[0]))
        XCTAssertNil(other.resolve(refs[1]))
    }

    func testAReferenceResolvesOnlyInADatabaseOfItsFiles() throws {
        let db = try open()
        let dog = Dog()
        try db.write { try db.add(dog) }
        let ref = ThreadSafeReference(to: dog)
        let elsewhere = try Database(configuration: .init(
            directory: directory.appendingPathComponent("elsewhere"), objectTypes: [Dog.self]))
        XCTAssertNil(elsewhere.resolve(ref))
        XCTAssertFalse(ref.isInvalidated)
        XCTAssertNotNil(try open().resolve(ref))
    }

    func testADatabaseWithoutTheClassResolvesNothing() throws {
        let db = try open([Dog.self, Counter.self])
        let dog = Dog()
        try db.write { try db.add(dog) }
        let ref = ThreadSafeReference(to: dog)
        XCTAssertNil(try open([Counter.self]).resolve(ref))
    }

    func testUnmanagedAndInvalidatedValuesCannotBeReferenced() throws {
        // Realm raises "Cannot construct reference to unmanaged/invalidated object";
        // `init(checking:)` reports it.
        func code<T: ThreadConfined>(_ value: T) -> StrataError.Code? {
            do {
                _ = try ThreadSafeReference(checking: value)
                return nil
            } catch {
                return (error as? StrataError)?.code
            }
        }
        let owner = Owner()
        XCTAssertEqual(code(owner), .invalidArgument)
        XCTAssertEqual(code(owner.pets), .invalidArgument)
        XCTAssertEqual(code(owner.favorites), .invalidArgument)
        XCTAssertEqual(code(owner.byName), .invalidArgument)
        let db = try openOwnerDatabase()
        try db.write { try db.add(owner) }
        let (pets, favorites) = (owner.pets, owner.favorites)
        try db.write { try db.delete(owner) }
        XCTAssertEqual(code(owner), .objectInvalidated)
        XCTAssertEqual(code(pets), .objectInvalidated)
        XCTAssertEqual(code(favorites), .objectInvalidated)
    }

    func testAFrozenObjectIsReferencedAndResolvesLive() throws {
        let db = try open()
        let dog = Dog()
        try db.write { try db.add(dog) }
        let ref = ThreadSafeReference(to: dog.freeze())
        try db.write { dog.name = "later" }
        let resolved = try XCTUnwrap(try open().resolve(ref))
        XCTAssertFalse(resolved.isFrozen)
        XCTAssertEqual(resolved.name, "later")
    }

    func testResolvingInAFrozenDatabaseGivesTheObjectAtItsVersion() throws {
        let db = try open()
        let dog = Dog()
        try db.write { try db.add(dog) }
        let frozen = try open().freeze()
        try db.write { dog.name = "later" }
        let resolved = try XCTUnwrap(frozen.resolve(ThreadSafeReference(to: dog)))
        XCTAssertTrue(resolved.isFrozen)
        XCTAssertEqual(resolved.name, "")
    }

    func testAnEmbeddedObjectResolves() throws {
        let db = try openOwnerDatabase()
        let owner = try addOwnerWithPets(to: db)
        let ref = ThreadSafeReference(to: owner.pastHomes[0])
        let configuration = db.configuration
        let city = try waitForDetachedTask {
            let other = try Database(configuration: configuration)
            return other.resolve(ref)?.city
        }
        XCTAssertEqual(city, "Lyon")
    }
}
