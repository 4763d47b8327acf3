import Foundation
import XCTest
@testable import Strata
import StrataStorage

final class Owner: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var name: String
    @Persisted var pet: Pet?
    @Persisted var pets: List<Pet>
    @Persisted var favorites: MutableSet<Pet>
    @Persisted var byName: Map<String, Pet?>
    @Persisted var home: Place?
    @Persisted var pastHomes: List<Place>
    @Persisted var tags: List<String>
    @Persisted var nicknames: MutableSet<String>
    @Persisted var scores: Map<String, Int>
    @Persisted var extra: AnyValue
    @Persisted var size: PetSize?
    @Persisted var level: Level
}

final class Pet: Object {
    @Persisted(primaryKey: true) var name: String
    @Persisted(originProperty: "pets") var owners: LinkingObjects<Owner>
    @Persisted(originProperty: "pet") var mainOwners: LinkingObjects<Owner>
}

final class Place: EmbeddedObject {
    @Persisted var street: String?
    @Persisted var city: String?
    @Persisted var landlord: Pet?
}

enum PetSize: String, PersistableEnum { case small, large }
enum Level: Int, PersistableEnum { case low = 1, high = 5 }

final class RelationshipTests: DatabaseTestCase {
    func openPets() throws -> Database { try open([Owner.self, Pet.self, Place.self]) }

    func pet(_ name: String) -> Pet { Pet(value: ["name": name]) }

    func testToOneLinkAndBacklink() throws {
        let db = try openPets()
        let ann = Owner(value: ["id": 1, "name": "Ann"])
        let rex = pet("Rex")
        ann.pet = rex
        try db.write { try db.add(ann) }
        XCTAssertEqual(rex.mainOwners.count, 1)
        XCTAssertEqual(rex.mainOwners.first?.name, "Ann")
        try db.write { ann.pet = nil }
        XCTAssertEqual(rex.mainOwners.count, 0, "unlinking updates the backlink in the same commit")
        XCTAssertNotNil(db.object(ofType: Pet.self, forPrimaryKey: "Rex"), "unlinking never deletes the target")
    }

    func testListOrderDuplicatesAndDeleteRemovesEveryEntry() throws {
        let db = try openPets()
        let ann = Owner(value: ["id": 1])
        try db.write { try db.add(ann) }
        let rex = pet("Rex")
        let max = pet("Max")
        try db.write {
            ann.pets.append(rex)
            ann.pets.append(max)
            ann.pets.append(rex)
            ann.pets.insert(max, at: 0)
        }
        XCTAssertTrue(rex.isManaged, "appending to a managed list adds the object")
        XCTAssertEqual(ann.pets.map(\.name), ["Max", "Rex", "Max", "Rex"])
        XCTAssertEqual(rex.owners.map(\.id), [1])
        try db.write { ann.pets.move(from: 0, to: 3) }
        XCTAssertEqual(ann.pets.map(\.name), ["Rex", "Max", "Rex", "Max"])
        try db.write { try db.delete(rex) }
        XCTAssertEqual(ann.pets.map(\.name), ["Max", "Max"], "deleting a target removes every entry of it")
        try db.write { ann.pets.remove(at: 0) }
        XCTAssertEqual(ann.pets.count, 1)
        XCTAssertEqual(try open([Owner.self, Pet.self, Place.self]).object(ofType: Owner.self, forPrimaryKey: 1)?.pets.map(\.name), ["Max"])
    }

    func testDeletingTargetNullsToOneAndSetAndMapEntries() throws {
        let db = try openPets()
        let ann = Owner(value: ["id": 1])
        let rex = pet("Rex")
        ann.pet = rex
        ann.favorites.insert(rex)
        ann.byName["r"] = rex
        try db.write { try db.add(ann) }
        XCTAssertEqual(ann.favorites.count, 1)
        XCTAssertEqual(ann.byName["r"]??.name, "Rex")
        try db.write { try db.delete(rex) }
        XCTAssertNil(ann.pet)
        XCTAssertEqual(ann.favorites.count, 0)
        XCTAssertEqual(ann.byName.count, 1, "a map keeps the key")
        XCTAssertNil(ann.byName["r"] ?? nil, "and its value becomes null")
    }

    func testEmbeddedObjectsAreOwnedAndCascade() throws {
        let db = try openPets()
        let ann = Owner(value: ["id": 1])
        ann.home = Place()
        ann.home?.city = "Lyon"
        ann.pastHomes.append(Place())
        try db.write { try db.add(ann) }
        XCTAssertEqual(ann.home?.city, "Lyon")
        try db.write { ann.home?.city = "Paris" }
        XCTAssertEqual(ann.home?.city, "Paris")
        try db.write { ann.pastHomes[0].street = "Rue A" }
        XCTAssertEqual(ann.pastHomes[0].street, "Rue A")
        // Assigning an embedded object that already has a parent is an error; nothing is written.
        let bob = Owner(value: ["id": 2])
        try db.write { try db.add(bob) }
        XCTAssertThrowsError(try db.write { bob.home = ann.home }) { error in
            XCTAssertEqual((error as? StrataError)?.code, .invalidValue)
        }
        XCTAssertNil(bob.home)
        // Replacing or clearing the property deletes the old embedded object.
        try db.write { ann.home = Place(value: ["city": "Nice"]) }
        XCTAssertEqual(ann.home?.city, "Nice")
        try db.write { ann.home = nil }
        XCTAssertNil(ann.home)
        try db.write { ann.pastHomes.removeAll() }
        XCTAssertEqual(ann.pastHomes.count, 0)
        XCTAssertEqual(try open([Owner.self, Pet.self, Place.self]).object(ofType: Owner.self, forPrimaryKey: 1)?.pastHomes.count, 0)
    }

    func testLinksInsideEmbeddedObjectsAreMaintained() throws {
        let db = try openPets()
        let ann = Owner(value: ["id": 1])
        ann.home = Place()
        ann.home?.landlord = pet("Boss")
        try db.write { try db.add(ann) }
        XCTAssertEqual(ann.home?.landlord?.name, "Boss")
        try db.write { try db.delete(db.object(ofType: Pet.self, forPrimaryKey: "Boss")!) }
        XCTAssertNil(ann.home?.landlord)
    }

    func testScalarCollectionsAndMaps() throws {
        let db = try openPets()
        let ann = Owner(value: ["id": 1])
        ann.tags.append(contentsOf: ["a", "b", "a"])
        ann.nicknames.insert("A")
        ann.nicknames.insert("A")
        ann.scores["math"] = 9
        try db.write { try db.add(ann) }
        XCTAssertEqual(Array(ann.tags), ["a", "b", "a"])
        XCTAssertEqual(ann.nicknames.count, 1)
        try db.write {
            ann.nicknames.insert("B")
            ann.nicknames.insert("A")
            ann.scores["art"] = 3
            ann.scores["math"] = nil
            ann.tags[1] = "c"
        }
        XCTAssertEqual(Set(ann.nicknames), ["A", "B"])
        XCTAssertEqual(ann.scores.keys, ["art"])
        XCTAssertEqual(ann.scores["art"], 3)
        XCTAssertEqual(Array(ann.tags), ["a", "c", "a"])
        XCTAssertTrue(ann.nicknames.contains("B"))
        try db.write { ann.tags.append(objectsIn: ["d", "e"]) }  // Realm's name
        XCTAssertEqual(Array(ann.tags), ["a", "c", "a", "d", "e"])
    }

    func testMapKeysWithDotOrDollarAreRefused() throws {
        let db = try openPets()
        let ann = Owner(value: ["id": 1])
        try db.write { try db.add(ann) }
        XCTAssertThrowsError(try db.write { ann.scores["a.b"] = 1 }) { error in
            XCTAssertEqual((error as? StrataError)?.code, .invalidValue)
            XCTAssertTrue((error as? StrataError)?.message.contains("a.b") ?? false)
        }
        XCTAssertThrowsError(try db.write { ann.scores["$x"] = 1 })
        XCTAssertEqual(ann.scores.count, 0)
        let bob = Owner(value: ["id": 2])
        bob.scores["$bad"] = 1
        XCTAssertThrowsError(try db.write { try db.add(bob) }) { error in
            XCTAssertEqual((error as? StrataError)?.code, .invalidValue)
        }
        XCTAssertNil(db.object(ofType: Owner.self, forPrimaryKey: 2))
    }

    func testAnyValueNestedListsMapsAndLinks() throws {
        let db = try openPets()
        let ann = Owner(value: ["id": 1])
        ann.extra = .map(["tags": .list([.string("a"), .int(1), .none]), "ok": .bool(true)])
        try db.write { try db.add(ann) }
        XCTAssertEqual(ann.extra, .map(["tags": .list([.string("a"), .int(1), .none]), "ok": .bool(true)]))
        let rex = pet("Rex")
        try db.write { ann.extra = .object(rex) }
        guard case .object(let linked) = ann.extra else { return XCTFail("not an object") }
        XCTAssertEqual((linked as? Pet)?.name, "Rex")
        try db.write { try db.delete(rex) }
        XCTAssertEqual(ann.extra, AnyValue.none, "a mixed link to a deleted object becomes none")
    }

    func testEnums() throws {
        let db = try openPets()
        let ann = Owner(value: ["id": 1])
        XCTAssertEqual(ann.level, .low, "an enum defaults to its first case")
        ann.size = .large
        ann.level = .high
        try db.write { try db.add(ann) }
        let again = try XCTUnwrap(try open([Owner.self, Pet.self, Place.self]).object(ofType: Owner.self, forPrimaryKey: 1))
        XCTAssertEqual(again.size, .large)
        XCTAssertEqual(again.level, .high)
    }

    func testBacklinksSurviveReopenAndFrozenViews() throws {
        let db = try openPets()
        let ann = Owner(value: ["id": 1])
        let bob = Owner(value: ["id": 2])
        let rex = pet("Rex")
        ann.pets.append(rex)
        bob.pets.append(rex)
        try db.write {
            try db.add(ann)
            try db.add(bob)
        }
        let again = try open([Owner.self, Pet.self, Place.self])
        let stored = try XCTUnwrap(again.object(ofType: Pet.self, forPrimaryKey: "Rex"))
        XCTAssertEqual(Set(stored.owners.map(\.id)), [1, 2])
        let frozen = stored.freeze()
        try db.write { bob.pets.removeAll() }
        XCTAssertEqual(Set(stored.owners.map(\.id)), [1, 2], "until the other database advances")
        again.refresh()
        XCTAssertEqual(stored.owners.map(\.id), [1])
        XCTAssertEqual(Set(frozen.owners.map(\.id)), [1, 2], "a frozen object keeps its version's backlinks")
    }
}

final class IndexTests: DatabaseTestCase {
    func testIndexedEqualityUsesThePersistentIndexAndStaysCorrect() throws {
        let db = try open()
        try db.write {
            for i in 0..<50 {
                let person = Person()
                person.name = "p\(i % 5)"
                person.height = Double(i)
                try db.add(person)
            }
        }
        XCTAssertEqual(db.objects(Person.self).where { $0.name == "p3" }.count, 10)
        // The index has an entry for exactly those objects.
        let schema = db.schemas.schema(for: Person.self)!
        let name = schema["name"]!
        XCTAssertEqual(db.indexedObjects(schema: schema, in: IndexBounds.equal([.string("p3")], schema: schema, property: name))?.count, 10)
        // Changes inside a write are visible to indexed queries in that write.
        try db.write {
            // Copy the matches first: live results re-evaluate as the loop changes them.
            let tallest = Array(db.objects(Person.self).where({ $0.name == "p3" }).sorted(by: \.height, ascending: false).prefix(4))
            for person in tallest { person.name = "moved" }
            XCTAssertEqual(db.objects(Person.self).where { $0.name == "p3" }.count, 6)
            XCTAssertEqual(db.objects(Person.self).where { $0.name == "moved" }.count, 4)
        }
        try db.write { try db.delete(db.objects(Person.self).where { $0.name == "moved" }) }
        XCTAssertEqual(db.objects(Person.self).where { $0.name == "moved" }.count, 0)
        XCTAssertEqual(db.indexedObjects(schema: schema, in: IndexBounds.equal([.string("moved")], schema: schema, property: name)), [])
        let reopened = try open()
        // p3 had heights 3, 8, …, 48; the four tallest (33…48) moved and were deleted.
        XCTAssertEqual(reopened.objects(Person.self).where { $0.name == "p3" && $0.height > 20 }.count, 2)
        XCTAssertEqual(reopened.objects(Person.self).where { $0.name == "p1" }.count, 10)
    }

    func testPrimaryKeyEqualityIsADirectLookup() throws {
        let db = try open()
        let dog = Dog()
        try db.write { try db.add(dog) }
        XCTAssertEqual(db.objects(Dog.self).where { $0._id == dog._id }.count, 1)
        XCTAssertEqual(db.objects(Dog.self).where { $0._id == ObjectId() }.count, 0)
    }
}

final class LinkByKeyTests: DatabaseTestCase {
    func testSetAndReadALinkByTheTargetsPrimaryKey() throws {
        let db = try open([Owner.self, Pet.self, Place.self])
        try db.write {
            try db.add(Pet(value: ["name": "Rex"]))
            try db.add(Owner(value: ["id": 1]))
        }
        let ann = try XCTUnwrap(db.object(ofType: Owner.self, forPrimaryKey: 1))
        XCTAssertNil(ann.targetPrimaryKey(of: \.pet, as: String.self))
        try db.write { try ann.setTarget(\.pet, primaryKey: "Rex") }
        XCTAssertEqual(ann.pet?.name, "Rex")
        XCTAssertEqual(ann.targetPrimaryKey(of: \.pet, as: String.self), "Rex")
        XCTAssertEqual(ann.pet?.mainOwners.count, 1, "the backlink index follows links set by key")
        XCTAssertThrowsError(try db.write { try ann.setTarget(\.pet, primaryKey: "Ghost") }) { error in
            XCTAssertEqual((error as? StrataError)?.code, .invalidValue)
        }
        XCTAssertThrowsError(try ann.setTarget(\.pet, primaryKey: "Rex")) { error in
            XCTAssertEqual((error as? StrataError)?.code, .notInWriteTransaction)
        }
        // Unmanaged: a reference resolved when the owner is added, without touching the target.
        let bob = Owner(value: ["id": 2])
        try bob.setTarget(\.pet, primaryKey: "Rex")
        XCTAssertEqual(bob.targetPrimaryKey(of: \.pet, as: String.self), "Rex")
        try db.write { try db.add(bob) }
        XCTAssertEqual(bob.pet?.name, "Rex")
        XCTAssertEqual(db.objects(Pet.self).count, 1)
    }
}

final class LinkingObjectsSchemaTests: DatabaseTestCase {
    final class Kennel: Object {
        @Persisted(originProperty: "nope") var dogs: LinkingObjects<Walker>
    }
    final class Walker: Object {
        @Persisted var name: String
    }
    final class Shelter: Object {
        @Persisted(originProperty: "name") var walkers: LinkingObjects<Walker>
    }

    func testOriginPropertyMustExist() {
        XCTAssertThrowsError(try open([Kennel.self, Walker.self])) { error in
            XCTAssertEqual((error as? StrataError)?.code, .invalidSchema)
            XCTAssertTrue((error as? StrataError)?.message.contains("Kennel.dogs") ?? false)
        }
    }

    func testOriginPropertyMustLinkBack() {
        XCTAssertThrowsError(try open([Shelter.self, Walker.self])) { error in
            XCTAssertEqual((error as? StrataError)?.code, .invalidSchema)
            XCTAssertTrue((error as? StrataError)?.message.contains("does not link to Shelter") ?? false)
        }
    }
}
