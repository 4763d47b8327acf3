import Foundation
import XCTest

@testable import Strata

/// A managed embedded object has its own identity, as in Realm: a held reference follows the
/// object through changes of the list around it, and is invalidated when the object is removed,
/// replaced, or deleted with its parent.
final class EmbeddedIdentityTests: DatabaseTestCase {
    private func openPets() throws -> Database { try open([Owner.self, Pet.self, Place.self]) }

    private func place(_ city: String) -> Place {
        let place = Place()
        place.city = city
        return place
    }

    /// An owner (id 1) with past homes A and B, and home H.
    private func addOwner(to db: Database) throws -> Owner {
        let owner = Owner()
        owner.id = 1
        owner.home = place("H")
        owner.pastHomes.append(objectsIn: [place("A"), place("B")])
        try db.write { try db.add(owner) }
        return owner
    }

    func testRemovingAnElementInvalidatesItsReferenceAndNotTheOthers() throws {
        let db = try openPets()
        let owner = try addOwner(to: db)
        let first = owner.pastHomes[0]
        let second = owner.pastHomes[1]
        try db.write { owner.pastHomes.remove(at: 0) }
        XCTAssertTrue(first.isInvalidated)
        XCTAssertFalse(second.isInvalidated)
        XCTAssertEqual(second.city, "B")
        try db.write { second.city = "B2" }
        XCTAssertEqual(owner.pastHomes.map(\.city), ["B2"])
    }

    func testAHeldReferenceFollowsItsObjectWhenTheListIsReordered() throws {
        let db = try openPets()
        let owner = try addOwner(to: db)
        let a = owner.pastHomes[0]
        try db.write {
            owner.pastHomes.insert(place("Z"), at: 0)
            owner.pastHomes.move(from: 1, to: 2)
        }
        XCTAssertEqual(owner.pastHomes.map(\.city), ["Z", "B", "A"])
        XCTAssertEqual(a.city, "A")
        try db.write { a.city = "A2" }
        XCTAssertEqual(owner.pastHomes.map(\.city), ["Z", "B", "A2"])
    }

    func testReplacingAListElementInvalidatesTheReplacedObject() throws {
        let db = try openPets()
        let owner = try addOwner(to: db)
        let a = owner.pastHomes[0]
        try db.write { owner.pastHomes[0] = place("C") }
        XCTAssertTrue(a.isInvalidated)
        XCTAssertEqual(owner.pastHomes.map(\.city), ["C", "B"])
    }

    func testReplacingAToOneEmbeddedObjectInvalidatesTheOldOne() throws {
        let db = try openPets()
        let owner = try addOwner(to: db)
        let old = try XCTUnwrap(owner.home)
        try db.write { owner.home = place("N") }
        XCTAssertTrue(old.isInvalidated)
        XCTAssertEqual(owner.home?.city, "N")
        try db.write { owner.home = nil }
        XCTAssertNil(owner.home)
    }

    func testDeletingTheParentInvalidatesItsEmbeddedObjects() throws {
        let db = try openPets()
        let owner = try addOwner(to: db)
        let home = try XCTUnwrap(owner.home)
        let a = owner.pastHomes[0]
        try db.write { try db.delete(owner) }
        XCTAssertTrue(home.isInvalidated)
        XCTAssertTrue(a.isInvalidated)
    }

    func testEmbeddedObjectsPassedToAddBecomeManaged() throws {
        let db = try openPets()
        let home = place("H")
        let a = place("A")
        let owner = Owner()
        owner.id = 1
        owner.home = home
        owner.pastHomes.append(a)
        XCTAssertFalse(home.isManaged)
        try db.write { try db.add(owner) }
        XCTAssertTrue(home.isManaged)
        XCTAssertTrue(a.isManaged)
        XCTAssertTrue(home.database === db)
        XCTAssertFalse(home.isFrozen)
        XCTAssertFalse(home.isInvalidated)
        try db.write {
            home.street = "Main"
            a.city = "A2"
        }
        XCTAssertEqual(owner.home?.street, "Main")
        XCTAssertEqual(owner.pastHomes.first?.city, "A2")
    }

    func testEmbeddedObjectsSetOnAManagedParentBecomeManaged() throws {
        let db = try openPets()
        let owner = try addOwner(to: db)
        let fresh = place("F")
        let appended = place("G")
        try db.write {
            owner.home = fresh
            owner.pastHomes.append(appended)
        }
        XCTAssertTrue(fresh.isManaged)
        XCTAssertTrue(appended.isManaged)
        try db.write { appended.city = "G2" }
        XCTAssertEqual(owner.pastHomes.map(\.city), ["A", "B", "G2"])
        // A managed embedded object has one parent.
        let other = Owner()
        other.id = 2
        other.home = fresh
        XCTAssertThrowsError(try db.write { try db.add(other) })
    }

    func testAnEmbeddedObjectStoredInACancelledWriteIsNotKeptPending() throws {
        let db = try openPets()
        let owner = try addOwner(to: db)
        let fresh = place("F")
        XCTAssertThrowsError(try db.write {
            owner.home = fresh
            throw StrataError(.invalidArgument, "cancel")
        })
        XCTAssertEqual(owner.home?.city, "H")
        // The write that stored it was cancelled: it can be stored again.
        try db.write { owner.home = Place() }
        XCTAssertTrue(db.pendingEmbedded.isEmpty)
    }

    func testFreezeAndThawAnEmbeddedObject() throws {
        let db = try openPets()
        let owner = try addOwner(to: db)
        let b = owner.pastHomes[1]
        let frozen = b.freeze()
        XCTAssertTrue(frozen.isFrozen)
        try db.write {
            b.city = "B2"
            owner.pastHomes.remove(at: 0)
        }
        XCTAssertEqual(frozen.city, "B")
        let thawed = try XCTUnwrap(frozen.thaw())
        XCTAssertFalse(thawed.isFrozen)
        XCTAssertEqual(thawed.city, "B2")
        let done = try XCTUnwrap(owner.home).freeze()
        try db.write { owner.home = nil }
        XCTAssertNil(done.thaw())
        XCTAssertEqual(done.city, "H")
    }

    func testAFrozenEmbeddedObjectCanBeReadFromAnotherTask() async throws {
        let db = try openPets()
        let owner = try addOwner(to: db)
        let frozen = try XCTUnwrap(owner.home).freeze()
        let city = await Task.detached { frozen.city }.value
        XCTAssertEqual(city, "H")
    }
}
