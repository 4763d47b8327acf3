import Foundation
import StrataStorage
import XCTest

@_spi(Tooling) @testable import Strata

/// `strata import` holds its schema to the rules model classes follow (`SchemaRules`): what no
/// model could declare is refused, naming the class and property, before anything is written.
final class ImportSchemaRulesTests: DatabaseTestCase {
    /// A definition of `Holder` with `properties` (JSON members of the property objects) and an
    /// embedded class `Part`.
    private func definition(_ properties: String) throws -> JSONValue {
        try JSONValue.parse(#"""
            {"classes": [
              {"name": "Holder", "isEmbedded": false, "properties": [\#(properties)]},
              {"name": "Part", "isEmbedded": true, "properties": [{"name": "label", "type": "string"}]},
              {"name": "Other", "isEmbedded": false, "properties": [{"name": "id", "type": "int", "isPrimaryKey": true}]}]}
            """#, source: "test")
    }

    private func assertRefused(_ properties: String, mentions: String..., file: StaticString = #filePath, line: UInt = #line) throws {
        let store = try Store(directory: directory.appendingPathComponent("import").path)
        XCTAssertThrowsError(try ExtendedJSONImport(definition: definition(properties), into: store.snapshot()), file: file, line: line) {
            let error = $0 as? StrataError
            XCTAssertEqual(error?.code, .invalidSchema, file: file, line: line)
            for text in mentions {
                XCTAssertTrue(error?.message.contains(text) == true, "\(error?.message ?? "") lacks \(text)", file: file, line: line)
            }
        }
        XCTAssertEqual(store.snapshot().keyspaces, [], "nothing is written", file: file, line: line)
    }

    func testAMixedPrimaryKeyIsRefused() throws {
        try assertRefused(#"{"name": "key", "type": "mixed", "isPrimaryKey": true}"#, mentions: "Holder.key", "primary key")
        try assertRefused(#"{"name": "key", "type": "double?", "isPrimaryKey": true}"#, mentions: "Holder.key")
    }

    func testAListOfListsIsRefused() throws {
        try assertRefused(#"{"name": "grid", "type": "list<list<int>>"}"#, mentions: "Holder.grid", "cannot hold a collection")
        try assertRefused(#"{"name": "grid", "type": "map<set<string>>"}"#, mentions: "Holder.grid")
        try assertRefused(#"{"name": "grid", "type": "list<int>?"}"#, mentions: "Holder.grid", "cannot be optional")
    }

    func testASetOrMapOfEmbeddedObjectsIsRefused() throws {
        try assertRefused(#"{"name": "parts", "type": "set<object:Part>"}"#, mentions: "Holder.parts", "MutableSet or Map")
        try assertRefused(#"{"name": "parts", "type": "map<object:Part?>"}"#, mentions: "Holder.parts")
    }

    func testARequiredLinkIsRefused() throws {
        try assertRefused(#"{"name": "other", "type": "object:Other"}"#, mentions: "Holder.other", "must be optional")
        try assertRefused(#"{"name": "part", "type": "object:Part"}"#, mentions: "Holder.part", "must be optional")
    }

    func testWhatAModelDeclaresIsAccepted() throws {
        let store = try Store(directory: directory.appendingPathComponent("import").path)
        let importer = try ExtendedJSONImport(definition: definition(#"""
            {"name": "id", "type": "uuid?", "isPrimaryKey": true}, {"name": "other", "type": "object:Other?"},
            {"name": "parts", "type": "list<object:Part>"}, {"name": "part", "type": "object:Part?"},
            {"name": "others", "type": "set<object:Other>"}, {"name": "byName", "type": "map<object:Other?>"},
            {"name": "values", "type": "list<mixed>"}
            """#), into: store.snapshot())
        XCTAssertEqual(importer.schema.storedClass(named: "Holder")?.properties.count, 7)
    }

    func testModelClassesFollowTheSameRules() {
        XCTAssertThrowsError(try Database(configuration: .init(directory: directory, objectTypes: [ListOfLists.self]))) {
            XCTAssertEqual(($0 as? StrataError)?.code, .invalidSchema)
            XCTAssertTrue(($0 as? StrataError)?.message.contains("ListOfLists.grid") == true)
        }
    }
}

final class ListOfLists: Object {
    @Persisted var grid: List<List<Int>>
}
