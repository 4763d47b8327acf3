import Foundation
import StrataStorage
import XCTest

@_spi(Tooling) @_spi(Testing) @testable import Strata

/// Nothing the tool reads nests deeper than a bound: a stored type code, a legacy type
/// description, JSON text and an `inspect --where` predicate each get an error, never a stack
/// overflow, however deep the input.
final class ToolingNestingLimitTests: DatabaseTestCase {
    private static func nestedCode(_ depth: Int, _ open: String = "list<", leaf: String = "int") -> String {
        String(repeating: open, count: depth) + leaf + String(repeating: ">", count: depth)
    }

    private func definition(code: String) throws -> JSONValue {
        try JSONValue.parse(#"{"classes": [{"name": "Deep", "isEmbedded": false, "properties": [{"name": "value", "type": "\#(code)"}]}]}"#, source: "test")
    }

    func testATypeCodeNestedTwentyThousandDeepIsRefused() throws {
        let store = try Store(directory: directory.appendingPathComponent("deep").path)
        XCTAssertThrowsError(try ExtendedJSONImport(definition: definition(code: Self.nestedCode(20_000)), into: store.snapshot())) {
            let error = $0 as? StrataError
            XCTAssertEqual(error?.code, .invalidValue)
            XCTAssertTrue(error?.message.contains("Deep.value") == true, error?.message ?? "")
            XCTAssertTrue(error?.message.contains("more than \(ObjectFormat.maxNesting) levels deep") == true, error?.message ?? "")
        }
    }

    func testStoredCodesNestAtMostTheRecordLimit() {
        XCTAssertNotNil(TypeDescriptor(storedCode: Self.nestedCode(ObjectFormat.maxNesting)))
        XCTAssertEqual(TypeDescriptor(storedCode: Self.nestedCode(ObjectFormat.maxNesting))?.storedCode, Self.nestedCode(ObjectFormat.maxNesting))
        XCTAssertNil(TypeDescriptor(storedCode: Self.nestedCode(ObjectFormat.maxNesting + 1)))
        XCTAssertNil(TypeDescriptor(storedCode: Self.nestedCode(100_000, "map<", leaf: "string?")))
        XCTAssertEqual(TypeDescriptor(storedCode: "map<list<object:Dog?>?>")?.storedCode, "map<list<object:Dog?>?>")
        XCTAssertNil(TypeDescriptor(storedCode: "list<nothing>"))
    }

    func testALegacyDescriptionNestedDeepGivesACodeTheCatalogRefuses() throws {
        let depth = 100_000
        let description = String(repeating: "List<", count: depth) + "Int?" + String(repeating: ">", count: depth)
        let code = TypeDescriptor.storedCode(fromDescription: description)
        XCTAssertEqual(code, Self.nestedCode(depth, leaf: "int?"))
        XCTAssertEqual(TypeDescriptor.storedCode(fromDescription: "Map<String, MutableSet<Dog>?>"), "map<set<object:Dog>?>")
        let entry = Catalog.ClassEntry(name: "Old", id: 16, isEmbedded: false,
                                       properties: [Catalog.PropertyEntry(name: "deep", id: 1, code: code, isPrimaryKey: false)], nextPropertyID: 2)
        XCTAssertThrowsError(try ClassShape(entry)) {
            XCTAssertEqual(($0 as? StrataError)?.code, .corruption)
            XCTAssertTrue(($0 as? StrataError)?.message.contains("Old.deep") == true)
        }
    }

    func testJSONNestedDeeperThanTheLimitIsRefused() throws {
        let limit = JSONValue.maxDepth
        let atLimit = String(repeating: "[", count: limit) + String(repeating: "]", count: limit)
        XCTAssertNoThrow(try JSONValue.parse(atLimit, source: "test"))
        for text in [String(repeating: "[", count: limit + 1) + String(repeating: "]", count: limit + 1),
                     String(repeating: #"{"a":"#, count: 100_000) + "1" + String(repeating: "}", count: 100_000)] {
            XCTAssertThrowsError(try JSONValue.parse(text, source: "the document")) {
                XCTAssertEqual(($0 as? StrataError)?.code, .invalidArgument)
                XCTAssertTrue(($0 as? StrataError)?.message.contains("deeper than \(limit) levels") == true)
            }
        }
        // Brackets inside strings do not count.
        let quoted = #"["\"["# + String(repeating: "[", count: 1_000) + #""]"#
        XCTAssertEqual(try JSONValue.parse(quoted, source: "test"), .array([.string("\"[" + String(repeating: "[", count: 1_000))]))
    }

    func testAFilterNestedDeepIsAnInvalidQueryAndLongChainsEvaluate() throws {
        let db = try open()
        try addFourDogs(to: db)
        let dogs = try XCTUnwrap(StoredSchema.load(from: db.storeSnapshot).storedClass(named: "Dog"))
        for predicate in [String(repeating: "(", count: 100_000) + "age > 3" + String(repeating: ")", count: 100_000),
                          String(repeating: "NOT ", count: 100_000) + "age > 3"] {
            XCTAssertThrowsError(try StoredObjectFilter(predicate, for: dogs)) {
                XCTAssertEqual(($0 as? StrataError)?.code, .invalidQuery)
                XCTAssertTrue(($0 as? StrataError)?.message.contains("deeper than \(PredicateParser.maxDepth)") == true)
            }
        }
        let depth = PredicateParser.maxDepth
        XCTAssertNoThrow(try StoredObjectFilter(String(repeating: "(", count: depth) + "age > 3" + String(repeating: ")", count: depth), for: dogs))
        let chain = Array(repeating: "age == 99", count: 100_000).joined(separator: " OR ") + " OR age > 3"
        let filter = try StoredObjectFilter(chain, for: dogs)
        var matched = 0
        try StoredSchema.load(from: db.storeSnapshot).forEachDocument(of: dogs, in: db.storeSnapshot, where: filter) { _ in
            matched += 1
            return true
        }
        XCTAssertEqual(matched, 2)
    }
}
