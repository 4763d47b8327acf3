import Foundation
import XCTest

@testable import Strata

/// `Object` is `Equatable` and `Hashable` by the identity of the stored object,
/// and `isSameObject(as:)` — after RealmSwift ObjectTests `testEqualityForObjectTypeWithPrimaryKey`,
/// `testEqualityForObjectTypeWithoutPrimaryKey`, `testEqualityForFrozenObjectTypeWithoutPrimaryKey`.
final class ObjectIdentityTests: DatabaseTestCase {
    private func openDogs(_ directory: URL? = nil) throws -> Database {
        try Database(configuration: .init(directory: directory ?? self.directory, objectTypes: [VDog.self, VPlace.self, VOwner.self]))
    }

    func testTwoAccessorsOfOneStoredObjectAreEqualAndHashAlike() throws {
        let db = try openDogs()
        let rex = VDog(value: ["name": "Rex"]), fido = VDog(value: ["name": "Fido"])
        try db.write { try db.add([rex, fido]) }
        let again = try XCTUnwrap(db.object(ofType: VDog.self, forPrimaryKey: "Rex"))
        XCTAssertFalse(again === rex)
        XCTAssertEqual(again, rex)
        XCTAssertEqual(again.hashValue, rex.hashValue)
        XCTAssertTrue(again.isSameObject(as: rex))
        XCTAssertNotEqual(rex, fido)
        XCTAssertFalse(rex.isSameObject(as: nil))
        let all = Array(db.objects(VDog.self))
        XCTAssertEqual(all.firstIndex(of: again), all.firstIndex { $0.name == "Rex" })
        XCTAssertTrue(all.contains(again))
        XCTAssertEqual(Set(all + [again, rex]).count, 2)
    }

    func testAnUnmanagedObjectIsOnlyItself() throws {
        let a = VDog(value: ["name": "Rex"]), b = VDog(value: ["name": "Rex"])
        XCTAssertEqual(a, a)
        XCTAssertNotEqual(a, b, "equal fields are not the same object")
        XCTAssertEqual(Set([a, b, a]).count, 2)
        let db = try openDogs()
        try db.write { try db.add(a) }
        XCTAssertNotEqual(a, b, "a managed object is not an unmanaged one")
    }

    func testObjectsOfOtherFilesOrDeletedAreNotTheSame() throws {
        let db = try openDogs()
        let otherDirectory = directory.appendingPathComponent("other")
        let other = try openDogs(otherDirectory)
        let here = VDog(value: ["name": "Rex"]), there = VDog(value: ["name": "Rex"])
        try db.write { try db.add(here) }
        try other.write { try other.add(there) }
        XCTAssertNotEqual(here, there, "the same key in other files")
        let again = try XCTUnwrap(db.object(ofType: VDog.self, forPrimaryKey: "Rex"))
        try db.write { try db.delete(here) }
        XCTAssertFalse(again.isSameObject(as: here), "deleted: no longer the same, as Realm")
        XCTAssertTrue(here == here, "still itself")
    }

    func testLiveAccessorsThroughTwoDatabaseInstancesOfOneDirectoryAreEqual() throws {
        let db = try openDogs()
        try db.write { try db.add(VDog(value: ["name": "Rex"])) }
        let second = try openDogs()
        XCTAssertEqual(db.object(ofType: VDog.self, forPrimaryKey: "Rex"), second.object(ofType: VDog.self, forPrimaryKey: "Rex"))
    }

    func testFrozenObjectsAreTheSameAtOneVersionAndNeverAsALiveOne() throws {
        let db = try openDogs()
        let rex = VDog(value: ["name": "Rex"])
        try db.write { try db.add(rex) }
        let frozen = rex.freeze(), frozenAgain = rex.freeze()
        XCTAssertFalse(frozen === frozenAgain)
        XCTAssertEqual(frozen, frozenAgain, "frozen at the same commit")
        XCTAssertNotEqual(frozen, rex, "frozen and live, as Realm")
        try db.write { rex.age = 4 }
        XCTAssertNotEqual(rex.freeze(), frozen, "frozen at another commit")
        XCTAssertEqual(rex.freeze().hashValue, frozen.hashValue)
    }

    func testMixedValuesHoldingObjectsCompareByIdentity() throws {
        let db = try openDogs()
        let rex = VDog(value: ["name": "Rex"])
        try db.write { try db.add(rex) }
        let again = try XCTUnwrap(db.object(ofType: VDog.self, forPrimaryKey: "Rex"))
        XCTAssertEqual(AnyValue.object(rex), .object(again))
        XCTAssertNotEqual(AnyValue.object(rex), .object(rex.freeze()))
    }

    /// RealmSwift EmbeddedObjectTests: `isSameObject(as:)` on embedded objects.
    func testEmbeddedAccessorsOfOneObjectAreTheSame() throws {
        let db = try openDogs()
        let owner = VOwner(value: ["id": 1, "place": ["city": "Lyon"]])
        let other = VOwner(value: ["id": 2, "place": ["city": "Lyon"]])
        try db.write { try db.add([owner, other]) }
        let place = try XCTUnwrap(owner.place)
        let again = try XCTUnwrap(db.object(ofType: VOwner.self, forPrimaryKey: 1)?.place)
        XCTAssertFalse(place === again)
        XCTAssertTrue(place.isSameObject(as: again))
        XCTAssertFalse(place.isSameObject(as: other.place), "equal fields, another parent")
        XCTAssertFalse(place.isSameObject(as: place.freeze()))
        XCTAssertTrue(place.freeze().isSameObject(as: again.freeze()))
        XCTAssertFalse(VPlace().isSameObject(as: VPlace()))
        try db.write { owner.place = VPlace(value: ["city": "Nice"]) }
        XCTAssertFalse(again.isSameObject(as: owner.place), "replaced: the old one is invalidated")
    }

    func testEmbeddedObjectsInAListAreTheSameByIdentityNotPosition() throws {
        let db = try open([VHolder.self, VTag.self, NDog.self, NPerson.self])
        let holder = VHolder(value: ["name": "h", "tags": [["label": "a"], ["label": "b"]]])
        try db.write { try db.add(holder) }
        let first = holder.tags[0], second = holder.tags[1]
        XCTAssertTrue(first.isSameObject(as: holder.tags[0]))
        XCTAssertFalse(first.isSameObject(as: second))
        try db.write { holder.tags.move(from: 0, to: 1) }
        XCTAssertTrue(first.isSameObject(as: holder.tags[1]), "it follows its object when the list changes")
    }
}
