import Foundation
import StrataStorage
import XCTest

@testable import Strata

/// `freeze()`, `thaw()` and `isFrozen` on `List`, `MutableSet`, `Map` and `LinkingObjects`, as
/// Realm's collections (RealmCollectionTypeTests: testIsFrozen, testThaw,
/// testThawPreviousVersion, testThawDeletedParent, testAccessFrozenCollectionFromDifferentThread).
final class CollectionFreezeTests: DatabaseTestCase {
    private func ownerWithPets() throws -> (db: Database, owner: Owner) {
        let db = try openOwnerDatabase()
        return (db, try addOwnerWithPets(to: db))
    }

    func testFreezingGivesFrozenCollectionsAndLiveOnesAreNot() throws {
        let (_, owner) = try ownerWithPets()
        let rex = owner.pets[0]
        XCTAssertEqual(
            [owner.pets.isFrozen, owner.favorites.isFrozen, owner.byName.isFrozen, rex.owners.isFrozen],
            [false, false, false, false])
        XCTAssertEqual(
            [owner.pets.freeze().isFrozen, owner.favorites.freeze().isFrozen, owner.byName.freeze().isFrozen,
             rex.owners.freeze().isFrozen],
            [true, true, true, true])
        XCTAssertFalse(List<Pet>().isFrozen)
        XCTAssertFalse(MutableSet<String>().isFrozen)
        XCTAssertFalse(Map<String, Int>().isFrozen)
    }

    func testAFrozenCollectionReadsTheVersionItWasFrozenAt() throws {
        let (db, owner) = try ownerWithPets()
        let rex = owner.pets[0]
        let (pets, favorites, byName, owners) = (owner.pets.freeze(), owner.favorites.freeze(), owner.byName.freeze(), rex.owners.freeze())
        try db.write {
            owner.pets.removeAll()
            owner.favorites.removeAll()
            owner.byName.removeAll()
        }
        XCTAssertEqual(pets.map(\.name), ["Rex", "Fido"])
        XCTAssertEqual(Set(favorites.map(\.name)), ["Rex", "Fido"])
        XCTAssertEqual(byName.keys, ["Fido", "Rex"])
        XCTAssertEqual(owners.map(\.id), [1])
        XCTAssertEqual([owner.pets.count, owner.favorites.count, owner.byName.count, rex.owners.count], [0, 0, 0, 0])
    }

    func testTheObjectsOfAFrozenCollectionAreFrozen() throws {
        let (_, owner) = try ownerWithPets()
        let rex = owner.pets[0]
        XCTAssertTrue(owner.pets.freeze().allSatisfy(\.isFrozen))
        XCTAssertTrue(owner.favorites.freeze().allSatisfy(\.isFrozen))
        XCTAssertTrue(owner.byName.freeze().values.allSatisfy { $0?.isFrozen == true })
        XCTAssertTrue(rex.owners.freeze().allSatisfy(\.isFrozen))
    }

    func testThawingGivesTheLiveCollectionWithLaterChanges() throws {
        let (db, owner) = try ownerWithPets()
        let frozen = owner.pets.freeze()
        try db.write { owner.pets.remove(at: 0) }
        let live = try XCTUnwrap(frozen.thaw())
        XCTAssertFalse(live.isFrozen)
        XCTAssertEqual(live.map(\.name), ["Fido"])
        XCTAssertEqual(frozen.map(\.name), ["Rex", "Fido"])
        // A thawed list reads a new live view of the files: it is written through that view.
        let liveDatabase = try XCTUnwrap(live.database)
        try liveDatabase.write { live.append(live[0]) }
        db.refresh()
        XCTAssertEqual(owner.pets.map(\.name), ["Fido", "Fido"])
        XCTAssertEqual(try XCTUnwrap(owner.favorites.freeze().thaw()).count, 2)
        XCTAssertEqual(try XCTUnwrap(owner.byName.freeze().thaw()).count, 2)
        XCTAssertEqual(try XCTUnwrap(owner.pets[0].owners.freeze().thaw()).map(\.id), [1])
    }

    func testThawingALiveOrUnmanagedCollectionGivesItself() throws {
        let (_, owner) = try ownerWithPets()
        let unmanaged = List<String>()
        XCTAssertTrue(unmanaged.thaw() === unmanaged)
        let live = owner.pets
        XCTAssertTrue(live.thaw() === live)
    }

    func testThawingACollectionWhoseOwnerWasDeletedGivesNil() throws {
        let (db, owner) = try ownerWithPets()
        let rex = owner.pets[0]
        let (pets, favorites, byName, owners) = (owner.pets.freeze(), owner.favorites.freeze(), owner.byName.freeze(), rex.owners.freeze())
        try db.write {
            try db.delete(rex)
            try db.delete(owner)
        }
        XCTAssertNil(pets.thaw())
        XCTAssertNil(favorites.thaw())
        XCTAssertNil(byName.thaw())
        XCTAssertNil(owners.thaw())
        XCTAssertEqual(pets.count, 2)
    }

    func testAFrozenCollectionIsReadFromAnotherTask() throws {
        let (_, owner) = try ownerWithPets()
        let frozen = owner.pets.freeze()
        let names = try waitForDetachedTask { frozen.map(\.name) }
        XCTAssertEqual(names, ["Rex", "Fido"])
    }

    func testAListOfEmbeddedObjectsFreezesAndThaws() throws {
        let (db, owner) = try ownerWithPets()
        let frozen = owner.pastHomes.freeze()
        try db.write { owner.pastHomes[0].city = "Paris" }
        XCTAssertEqual(frozen.map(\.city), ["Lyon"])
        XCTAssertTrue(frozen[0].isFrozen)
        XCTAssertEqual(frozen.thaw()?.map(\.city), ["Paris"])
    }
}
