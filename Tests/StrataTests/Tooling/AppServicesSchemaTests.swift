import Foundation
@_spi(Testing) import StrataStorage
import XCTest

@_spi(Tooling) @_spi(Testing) @testable import Strata

// The models of MongoDB's "Model Data with Device Sync - Swift SDK" page (the seed file
// 001 of the project's brief), and the App Services schemas that page gives for them, verbatim.
enum SeedToOne {
    final class Dog: Object {
        @Persisted(primaryKey: true) var _id = ObjectId()
        @Persisted var name = ""
        @Persisted var age = 0
    }
    final class Person: Object {
        @Persisted(primaryKey: true) var _id = ObjectId()
        @Persisted var name = ""
        @Persisted var dog: Dog?
    }
}

enum SeedToMany {
    final class Dog: Object {
        @Persisted(primaryKey: true) var _id = ObjectId()
        @Persisted var name = ""
        @Persisted var age = 0
        @Persisted(originProperty: "dogs") var person: LinkingObjects<Person>
    }
    final class Person: Object {
        @Persisted(primaryKey: true) var _id = ObjectId()
        @Persisted var name = ""
        @Persisted var dogs: List<Dog>
    }
}

enum SeedEmbedded {
    final class Dog: Object {
        @Persisted(primaryKey: true) var _id = ObjectId()
        @Persisted var name = ""
    }
    final class Person: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted var dogs: List<Dog>
        @Persisted var address: Address?
    }
    final class Address: EmbeddedObject {
        @Persisted var street: String?
        @Persisted var city: String?
        @Persisted var country: String?
        @Persisted var postalCode: String?
    }
}

/// `strata schema --json` (StoredSchema.appServicesSchemas) against seed 001's examples.
final class AppServicesSchemaTests: DatabaseTestCase {
    static let seedDog = """
        {"title": "Dog", "bsonType": "object", "required": ["_id"],
         "properties": {"_id": {"bsonType": "objectId"}, "name": {"bsonType": "string"}, "age": {"bsonType": "long"}}}
        """
    static let seedPersonWithDog = """
        {"title": "Person", "bsonType": "object", "required": ["_id"],
         "properties": {"_id": {"bsonType": "objectId"}, "dog": {"bsonType": "objectId"}, "name": {"bsonType": "string"}}}
        """
    static let seedPersonWithDogs = """
        {"title": "Person", "bsonType": "object", "required": ["_id"],
         "properties": {"_id": {"bsonType": "objectId"}, "name": {"bsonType": "string"},
                        "dogs": {"bsonType": "array", "items": {"bsonType": "objectId"}}}}
        """
    // The seed gives "id" as "int" for `var id = 0`, but "age" as "long" for `var age = 0`
    // in the examples above: Strata's Int is 64 bits, so both are "long" (the one change).
    static let seedPersonWithAddress = """
        {"title": "Person", "bsonType": "object", "required": ["id"],
         "properties": {"id": { "bsonType": "long" }, "name": { "bsonType": "string" },
           "dogs": {"bsonType": "array", "items": {"bsonType": "objectId"}},
           "address": {"title": "Address", "bsonType": "object",
             "properties": {"street": { "bsonType": "string" }, "city": { "bsonType": "string" },
                            "country": { "bsonType": "string" }, "postalCode": { "bsonType": "string" }}}}}
        """

    /// The schema documents of a database opened with `types`, re-read as JSON (members sorted).
    private func schemas(_ types: [ObjectBase.Type]) throws -> [String: JSONValue] {
        let db = try open(types)
        let schema = try StoredSchema.load(from: db.storeSnapshot)
        var byTitle: [String: JSONValue] = [:]
        for document in schema.appServicesSchemas() {
            byTitle[document["title"]?.stringValue ?? ""] = try JSONValue.parse(document.rendered(pretty: true), source: "output")
        }
        return byTitle
    }

    private func seed(_ text: String) throws -> JSONValue { try JSONValue.parse(text, source: "seed") }

    func testToOneRelationshipMatchesTheSeed() throws {
        let byTitle = try schemas([SeedToOne.Dog.self, SeedToOne.Person.self])
        XCTAssertEqual(byTitle["Dog"], try seed(Self.seedDog))
        XCTAssertEqual(byTitle["Person"], try seed(Self.seedPersonWithDog))
    }

    func testToManyRelationshipAndBacklinkMatchTheSeed() throws {
        let byTitle = try schemas([SeedToMany.Dog.self, SeedToMany.Person.self])
        XCTAssertEqual(byTitle["Person"], try seed(Self.seedPersonWithDogs))
        XCTAssertEqual(byTitle["Dog"], try seed(Self.seedDog), "the backlink is not in the schema")
    }

    func testEmbeddedObjectIsNestedAsTheSeedShows() throws {
        let byTitle = try schemas([SeedEmbedded.Dog.self, SeedEmbedded.Person.self, SeedEmbedded.Address.self])
        XCTAssertEqual(byTitle["Person"], try seed(Self.seedPersonWithAddress))
        XCTAssertNil(byTitle["Address"], "an embedded class has no schema document of its own")
    }

    func testEveryScalarTypeHasItsBSONName() throws {
        let person = try XCTUnwrap(try schemas([Dog.self, Person.self])["Person"])
        let types = ["name": "string", "birthdate": "date", "dog": "objectId", "height": "double", "photo": "binData",
                     "balance": "decimal", "ref": "uuid", "small": "int", "medium": "int", "large": "long",
                     "ratio": "float", "active": "bool"]
        for (name, bsonType) in types {
            XCTAssertEqual(person["properties"]?[name]?["bsonType"], .string(bsonType), name)
        }
    }

    func testCollectionsMapsAndAClassWithoutPrimaryKey() throws {
        let byTitle = try schemas([Owner.self, Pet.self, Place.self, Counter.self])
        let owner = try XCTUnwrap(byTitle["Owner"]?["properties"])
        XCTAssertEqual(owner["favorites"], try seed(#"{"bsonType": "array", "uniqueItems": true, "items": {"bsonType": "string"}}"#))
        XCTAssertEqual(owner["byName"], try seed(#"{"bsonType": "object", "additionalProperties": {"bsonType": "string"}}"#))
        XCTAssertEqual(owner["extra"], try seed(#"{"bsonType": "mixed"}"#))
        XCTAssertEqual(byTitle["Counter"]?["required"], try seed(#"["_id"]"#))
        XCTAssertEqual(byTitle["Counter"]?["properties"]?["_id"], try seed(#"{"bsonType": "objectId"}"#))
    }
}
