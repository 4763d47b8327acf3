import Foundation
import StrataStorage
import XCTest

@testable import Strata

/// The catalog stores each property's type as a stable code, not as its printed description.
final class CatalogTests: DatabaseTestCase {
    func testStoredCodesOfEveryKindOfType() throws {
        let schema = try ObjectSchema(Owner.self)
        let codes = Dictionary(uniqueKeysWithValues: schema.properties.filter(\.isStored).map { ($0.name, $0.type.storedCode) })
        XCTAssertEqual(codes, [
            "id": "int", "name": "string", "pet": "object:Pet?", "pets": "list<object:Pet>",
            "favorites": "set<object:Pet>", "byName": "map<object:Pet?>", "home": "object:Place?",
            "pastHomes": "list<object:Place>", "tags": "list<string>", "nicknames": "set<string>",
            "scores": "map<int>", "extra": "mixed", "size": "string?", "level": "int",
        ])
        let scalars = try ObjectSchema(EveryScalar.self)
        XCTAssertEqual(
            scalars.properties.map(\.type.storedCode),
            ["int", "bool", "int8", "int16", "int32", "int64", "float", "double", "string", "data", "date", "uuid",
             "objectId", "decimal128", "bool?", "int8?", "int?", "float?", "double?", "string?", "data?", "date?",
             "uuid?", "objectId?", "decimal128?", "int?", "list<int>"])
    }

    func testDescriptionsOfAnOlderCatalogReadAsTheirCodes() throws {
        for type in try ObjectSchema(Owner.self).properties.filter(\.isStored).map(\.type)
            + ObjectSchema(EveryScalar.self).properties.map(\.type) {
            XCTAssertEqual(TypeDescriptor.storedCode(fromDescription: type.description), type.storedCode, "\(type)")
        }
    }

    func testADatabaseWhoseCatalogKeptDescriptionsOpens() throws {
        let types: [ObjectBase.Type] = [Owner.self, Pet.self, Place.self]
        do {
            let db = try open(types)
            try db.write { try db.add(Owner(value: ["id": 1, "name": "Ann"])) }
        }
        // The catalog as an older version wrote it: each property's `type` is its description.
        let schemas = try SchemaSet(types)
        let store = try Store(directory: directory.path)
        let stored = try XCTUnwrap(store.snapshot().value(for: ObjectFormat.catalogKey, in: ObjectFormat.catalogKeyspace))
        var json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(stored)) as? [String: Any])
        json["classes"] = (json["classes"] as? [[String: Any]])?.map { entry -> [String: Any] in
            var entry = entry
            let schema = schemas.all.first { $0.className == entry["name"] as? String }
            entry["properties"] = (entry["properties"] as? [[String: Any]])?.map { property -> [String: Any] in
                var property = property
                property["code"] = nil
                property["type"] = schema?[property["name"] as? String ?? ""]?.type.description
                return property
            }
            return entry
        }
        var batch = WriteBatch()
        batch.put(Array(try JSONSerialization.data(withJSONObject: json)), forKey: ObjectFormat.catalogKey, in: ObjectFormat.catalogKeyspace)
        try store.commit(batch)
        try store.close()

        let db = try open(types)
        XCTAssertEqual(db.object(ofType: Owner.self, forPrimaryKey: 1)?.name, "Ann")
        let catalog = try Catalog.load(from: db.shared.store.snapshot())
        let owner = try XCTUnwrap(catalog.classes.first { $0.name == "Owner" })
        XCTAssertEqual(owner.properties.first { $0.name == "pets" }?.code, "list<object:Pet>")
    }
}
