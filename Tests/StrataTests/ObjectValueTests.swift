import Foundation
import XCTest

@testable import Strata

final class VDog: Object {
    @Persisted(primaryKey: true) var name: String
    @Persisted var age: Int
    @Persisted var small: Int8
    @Persisted var weight: Float
    @Persisted var height: Double?
    @Persisted(originProperty: "dogs") var owners: LinkingObjects<VOwner>
}

final class VPlace: EmbeddedObject {
    @Persisted var street: String?
    @Persisted var city: String?
}

enum VSize: String, PersistableEnum { case small, large }

final class VOwner: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var name: String
    @Persisted var dogs: List<VDog>
    @Persisted var best: VDog?
    @Persisted var place: VPlace?
    @Persisted var tags: MutableSet<String>
    @Persisted var scores: Map<String, Int>
    @Persisted var extra: AnyValue
    @Persisted var size: VSize?
    @Persisted var note: String? = "none"
}

/// `init(value:)`, `create(_:value:update:)`, adding and deleting sequences,
/// `deleteAll()` — after RealmSwift's ObjectCreationTests (`testInitWithDictionary`,
/// `testInitWithArray`, `testCreateWithDictionary`, `testUpdateWithObject…`) and RealmTests
/// (`testDeleteAll`, `testAddMultipleObjects`).
final class ObjectValueTests: DatabaseTestCase {
    private func openOwners() throws -> Database { try open([VDog.self, VPlace.self, VOwner.self]) }

    private func assertInvalidValue(_ body: () throws -> Void, mentions words: [String], file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try body(), file: file, line: line) { error in
            guard let error = error as? StrataError else { return XCTFail("\(error)", file: file, line: line) }
            XCTAssertEqual(error.code, .invalidValue, "\(error)", file: file, line: line)
            for word in words { XCTAssertTrue(error.message.contains(word), "\(error.message) should name \(word)", file: file, line: line) }
        }
    }

    func testDictionarySetsTheNamedPropertiesAndLeavesTheOthersAtTheirDefaults() {
        let owner = VOwner(value: ["id": 7, "name": "Ann"])
        XCTAssertEqual(owner.id, 7)
        XCTAssertEqual(owner.name, "Ann")
        XCTAssertEqual(owner.note, "none", "the declared default")
        XCTAssertEqual(owner.dogs.count, 0)
        XCTAssertNil(owner.valueError)
    }

    func testArrayFollowsTheStoredPropertiesInOrderWithoutLinkingObjects() {
        let place = VPlace(value: ["1 Main St", "Lyon"])
        XCTAssertEqual(place.street, "1 Main St")
        XCTAssertEqual(place.city, "Lyon")
        let dog = VDog(value: ["Rex", 3, 2, 1.5, 0.5])
        XCTAssertEqual([dog.name, "\(dog.age)", "\(dog.small)", "\(dog.weight)", "\(dog.height ?? -1)"], ["Rex", "3", "2", "1.5", "0.5"])
        XCTAssertNil(dog.valueError)
        let short = VPlace(value: ["2 Rue"])
        XCTAssertEqual(short.street, "2 Rue")
        XCTAssertNil(short.city, "fewer values than properties: the rest keep their defaults")
    }

    func testNumbersConvertToEveryNumericWidthWhenTheyFit() {
        let dog = VDog(value: ["name": "Rex", "small": 12, "weight": 3, "height": 2])
        XCTAssertEqual(dog.small, 12)
        XCTAssertEqual(dog.weight, 3)
        XCTAssertEqual(dog.height, 2)
        XCTAssertNil(dog.valueError)
        XCTAssertEqual(VDog(value: ["small": Int64(-128)]).small, -128)
        XCTAssertNotNil(VDog(value: ["small": 300]).valueError, "out of Int8's range")
        XCTAssertNotNil(VDog(value: ["weight": 1e300]).valueError, "out of Float's range")
        XCTAssertNotNil(VDog(value: ["age": 2.5]).valueError, "a Double is not an Int")
        XCTAssertEqual(try Decimal128._strataConvert(2.5), Decimal128(2.5))
        XCTAssertEqual(try Decimal128._strataConvert(7), Decimal128(7))
        XCTAssertThrowsError(try Decimal128._strataConvert(Double.nan))
    }

    func testNilAndNSNullClearOptionalsAndRawValuesMakeEnums() {
        let owner = VOwner(value: ["note": NSNull(), "size": "large"])
        XCTAssertNil(owner.note)
        XCTAssertEqual(owner.size, .large)
        let none: String? = nil
        XCTAssertNil(VOwner(value: ["note": none as Any]).note)
        XCTAssertNotNil(VOwner(value: ["size": "huge"]).valueError)
        XCTAssertNotNil(VOwner(value: ["name": NSNull()]).valueError, "nil for a non-optional")
    }

    func testNestedValuesMakeLinksListsSetsMapsEmbeddedObjectsAndMixed() throws {
        let rex = VDog(value: ["name": "Rex"])
        let owner = VOwner(value: [
            "id": 1, "dogs": [rex, ["name": "Fido", "age": 2]], "best": ["Max", 5], "place": ["city": "Nice"],
            "tags": ["a", "b", "a"], "scores": ["x": 1], "extra": ["k": [1, "two"]],
        ])
        XCTAssertNil(owner.valueError)
        XCTAssertTrue(owner.dogs[0] === rex, "an object given is linked as is")
        XCTAssertEqual(owner.dogs[1].name, "Fido")
        XCTAssertEqual(owner.best?.age, 5)
        XCTAssertEqual(owner.place?.city, "Nice")
        XCTAssertEqual(owner.tags.count, 2)
        XCTAssertEqual(owner.scores["x"], 1)
        XCTAssertEqual(owner.extra, .map(["k": .list([.int(1), .string("two")])]))

        let db = try openOwners()
        try db.write { try db.add(owner) }
        let stored = try XCTUnwrap(db.object(ofType: VOwner.self, forPrimaryKey: 1))
        XCTAssertEqual(stored.dogs.map(\.name), ["Rex", "Fido"])
        XCTAssertEqual(stored.best?.name, "Max")
        XCTAssertEqual(stored.place?.city, "Nice")
        XCTAssertEqual(db.objects(VDog.self).count, 3)
    }

    func testAMismatchIsThrownByAddNamingTheClassAndPropertyAndNothingIsWritten() throws {
        let db = try openOwners()
        let cases: [(VOwner, [String])] = [
            (VOwner(value: ["id": 1, "nmae": "Ann"]), ["VOwner", "nmae"]),
            (VOwner(value: ["id": 1, "name": 5]), ["VOwner.name", "String"]),
            (VOwner(value: [1, "Ann", [], NSNull(), NSNull(), [], [:], AnyValue.none, NSNull(), "n", "extra"]), ["VOwner", "11 values"]),
            (VOwner(value: ["id": 1, "dogs": [["name": "Rex", "age": "old"]]]), ["VOwner.dogs", "element 0", "VDog.age"]),
            (VOwner(value: ["id": 1, "place": ["town": "Nice"]]), ["VOwner.place", "VPlace", "town"]),
            (VOwner(value: 42), ["VOwner", "dictionary"]),
        ]
        for (owner, words) in cases {
            assertInvalidValue({ try db.write { try db.add(owner) } }, mentions: words)
        }
        let dog = VDog(value: ["name": "Rex", "owners": []])
        assertInvalidValue({ try db.write { try db.add(dog) } }, mentions: ["VDog", "owners", "LinkingObjects"])
        XCTAssertEqual(db.objects(VOwner.self).count, 0)
        XCTAssertEqual(db.objects(VDog.self).count, 0)
    }

    func testAnObjectLinkingToAMismatchedObjectCannotBeAdded() throws {
        let db = try openOwners()
        let owner = VOwner(value: ["id": 1])
        owner.best = VDog(value: ["name": "Rex", "age": "three"])
        assertInvalidValue({ try db.write { try db.add(owner) } }, mentions: ["VDog.age"])
        XCTAssertEqual(db.objects(VOwner.self).count, 0)
    }

    func testCreateReturnsTheManagedObjectAndThrowsAMismatchDirectly() throws {
        let db = try openOwners()
        let rex: VDog = try db.write { try db.create(VDog.self, value: ["name": "Rex", "age": 4]) }
        XCTAssertTrue(rex.isManaged)
        XCTAssertEqual(db.object(ofType: VDog.self, forPrimaryKey: "Rex")?.age, 4)
        assertInvalidValue({ try db.write { _ = try db.create(VDog.self, value: ["name": "Max", "age": "4"]) } }, mentions: ["VDog.age"])
        XCTAssertThrowsError(try db.write { _ = try db.create(VDog.self, value: ["name": "Rex"]) }) { error in
            XCTAssertEqual((error as? StrataError)?.code, .primaryKeyExists)
        }
        XCTAssertThrowsError(try db.create(VDog.self, value: ["name": "Out"])) { error in
            XCTAssertEqual((error as? StrataError)?.code, .notInWriteTransaction)
        }
    }

    func testCreateWithAnUpdatePolicyWritesOnlyTheNamedPropertiesOfTheStoredObject() throws {
        let db = try openOwners()
        try db.write { _ = try db.create(VOwner.self, value: ["id": 1, "name": "Ann", "note": "kept", "scores": ["a": 1]]) }
        for policy in [Database.UpdatePolicy.modified, .all] {
            let updated = try db.write { try db.create(VOwner.self, value: ["id": 1, "name": "Bo \(policy)"], update: policy) }
            XCTAssertEqual(updated.name, "Bo \(policy)")
            XCTAssertEqual(updated.note, "kept", "not named: keeps its stored value")
            XCTAssertEqual(updated.scores["a"], 1)
        }
        XCTAssertEqual(db.objects(VOwner.self).count, 1)
        let new = try db.write { try db.create(VOwner.self, value: ["id": 2], update: .modified) }
        XCTAssertEqual(new.note, "none", "a new object takes its defaults")
    }

    func testCreateUpdatesNestedObjectsWithTheSamePolicy() throws {
        let db = try openOwners()
        try db.write { _ = try db.create(VDog.self, value: ["name": "Rex", "age": 3, "small": 1]) }
        let owner = try db.write {
            try db.create(VOwner.self, value: ["id": 1, "dogs": [["name": "Rex", "age": 9]]], update: .modified)
        }
        XCTAssertEqual(owner.dogs.first?.age, 9)
        XCTAssertEqual(db.objects(VDog.self).count, 1)
        XCTAssertEqual(db.object(ofType: VDog.self, forPrimaryKey: "Rex")?.small, 1, "the nested object keeps what is not named")
    }

    func testAddSequenceDeleteResultsAndDeleteAll() throws {
        let db = try openOwners()
        try db.write {
            try db.add([VDog(value: ["name": "A", "age": 1]), VDog(value: ["name": "B", "age": 12])])
            try db.add([VOwner(value: ["id": 1, "best": ["name": "C", "age": 20]])])
        }
        XCTAssertEqual(db.objects(VDog.self).count, 3)
        try db.write { try db.delete(db.objects(VDog.self).where { $0.age > 10 }) }
        XCTAssertEqual(db.objects(VDog.self).map(\.name), ["A"])
        XCTAssertNil(db.object(ofType: VOwner.self, forPrimaryKey: 1)?.best)
        try db.write { try db.deleteAll() }
        XCTAssertEqual(db.objects(VDog.self).count, 0)
        XCTAssertEqual(db.objects(VOwner.self).count, 0)
        XCTAssertThrowsError(try db.deleteAll())
    }

    /// RealmTests `testAddWithUpdateLinkedObjects`: objects linked from an added object are
    /// added with its update policy.
    func testAddWithAnUpdatePolicyUpdatesLinkedObjectsWithIt() throws {
        let db = try openOwners()
        try db.write { try db.add(VDog(value: ["name": "Rex", "age": 3])) }
        let owner = VOwner(value: ["id": 1, "dogs": [["name": "Rex", "age": 7]]])
        try db.write { try db.add(owner, update: .modified) }
        XCTAssertEqual(db.object(ofType: VDog.self, forPrimaryKey: "Rex")?.age, 7)
        XCTAssertEqual(db.objects(VDog.self).count, 1)
        let again = VOwner(value: ["id": 2, "dogs": [["name": "Rex", "age": 8]]])
        XCTAssertThrowsError(try db.write { try db.add(again) }) { error in
            XCTAssertEqual((error as? StrataError)?.code, .primaryKeyExists, "with .error, as the owner")
        }
    }

    /// ObjectCreationTests `testInitWithObject`, `testCreateWithObject`: an object given as the
    /// value is copied; an embedded object that already has a parent is copied too.
    func testAnObjectGivenAsTheValueIsCopied() throws {
        let db = try openOwners()
        let owner = try db.write { try db.create(VOwner.self, value: ["id": 1, "name": "Ann", "place": ["city": "Lyon"], "tags": ["a"]]) }
        let copy = VOwner(value: owner)
        XCTAssertFalse(copy.isManaged)
        XCTAssertEqual(copy.name, "Ann")
        XCTAssertEqual(Array(copy.tags), ["a"])
        copy.id = 2
        try db.write { try db.add(copy) }
        XCTAssertEqual(copy.place?.city, "Lyon")
        XCTAssertEqual(owner.place?.city, "Lyon", "the original keeps its own embedded object")
        let second = try db.write { try db.create(VOwner.self, value: ["id": 3, "place": owner.place as Any]) }
        XCTAssertEqual(second.place?.city, "Lyon")
        XCTAssertEqual(db.objects(VOwner.self).count, 3)
        try db.write { try db.delete(owner) }
        XCTAssertEqual(VOwner(value: owner).valueError?.code, .objectInvalidated, "a deleted object is not read")
    }

    /// ObjectCreationTests `testUpdateWithoutPrimaryKey` (RealmSwift: "does not have a primary
    /// key and can not be updated").
    func testUpdatingAClassWithoutAPrimaryKeyIsRefused() throws {
        let db = try open([Counter.self])
        for policy in [Database.UpdatePolicy.modified, .all] {
            XCTAssertThrowsError(try db.write { try db.add(Counter(), update: policy) }) { error in
                XCTAssertEqual((error as? StrataError)?.code, .invalidArgument)
            }
            XCTAssertThrowsError(try db.write { _ = try db.create(Counter.self, update: policy) }) { error in
                XCTAssertEqual((error as? StrataError)?.code, .invalidArgument)
            }
        }
        try db.write { _ = try db.create(Counter.self) }
        XCTAssertEqual(db.objects(Counter.self).count, 1)
    }

    /// The conversion migrations use without an object of the class:
    /// `PropertySchema.fieldValue(converting:context:)`.
    func testFieldValueConvertsAnUntypedValueForAPropertyWithoutAnObject() throws {
        let db = try openOwners()
        let dogs = try XCTUnwrap(db.schemas.schema(for: VDog.self))
        let owners = try XCTUnwrap(db.schemas.schema(for: VOwner.self))
        XCTAssertEqual(try dogs["small"]!.fieldValue(converting: 12, context: nil), .int(12))
        XCTAssertEqual(try dogs["height"]!.fieldValue(converting: NSNull(), context: nil), .null)
        XCTAssertEqual(try owners["size"]!.fieldValue(converting: "large", context: nil), .string("large"))
        XCTAssertThrowsError(try dogs["small"]!.fieldValue(converting: 300, context: nil)) { error in
            XCTAssertEqual((error as? StrataError)?.code, .invalidValue)
            XCTAssertTrue("\(error)".contains("small"), "\(error)")
        }
        XCTAssertThrowsError(try dogs["owners"]!.fieldValue(converting: [Any](), context: nil))
        try db.write {
            let field = try owners["best"]!.fieldValue(converting: ["name": "Rex", "age": 2], context: db)
            guard case .link = field else { return XCTFail("\(field)") }
        }
        XCTAssertEqual(db.object(ofType: VDog.self, forPrimaryKey: "Rex")?.age, 2, "the linked object was added")
    }
}
