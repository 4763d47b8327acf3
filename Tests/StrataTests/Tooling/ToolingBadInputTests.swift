import Foundation
@_spi(Testing) import StrataStorage
import XCTest

@_spi(Tooling) @_spi(Testing) @testable import Strata

/// What `strata import` and `inspect --where` get from bad input: an error, never a trap, and
/// nothing half-built. Seeded random edits of good input (SplitMix64, so a failure reproduces).
final class ToolingBadInputTests: DatabaseTestCase {
    /// `text` with 1–3 characters replaced, inserted or removed, drawn from JSON's own.
    private static func mutated(_ text: String, _ random: inout SplitMix64) -> String {
        var characters = Array(text)
        let alphabet = Array("{}[]\":,$0123456789-.eEtrufalsn \\x")
        for _ in 0...Int(random.next() % 3) where !characters.isEmpty {
            let position = Int(random.next() % UInt64(characters.count))
            switch random.next() % 3 {
            case 0: characters[position] = alphabet[Int(random.next() % UInt64(alphabet.count))]
            case 1: characters.insert(alphabet[Int(random.next() % UInt64(alphabet.count))], at: position)
            default: characters.remove(at: position)
            }
        }
        return String(characters)
    }

    func testMutatedDocumentsAreAddedOrRefusedWithAStrataError() throws {
        let db = try open([Owner.self, Pet.self, Place.self])
        try db.write {
            let rex = Pet(value: ["name": "Rex"])
            try db.add(Owner(value: ["id": 1, "name": "Ann", "pet": rex, "pets": [rex], "home": Place(value: ["city": "Oslo"]),
                                     "scores": ["x": 3], "extra": AnyValue.list([.int(1), .string("s")]), "tags": ["a"]]))
        }
        let snapshot = db.storeSnapshot
        let schema = try StoredSchema.load(from: snapshot)
        let owners = try XCTUnwrap(schema.storedClass(named: "Owner"))
        var lines: [String] = []
        try schema.forEachDocument(of: owners, in: snapshot) { lines.append($0.rendered()); return true }
        let good = try XCTUnwrap(lines.first)
        var random = SplitMix64(seed: 2026)
        let empty = try Store(directory: directory.appendingPathComponent("empty").path)
        var added = 0, refused = 0
        for round in 0..<3_000 {
            var importer = try ExtendedJSONImport(definition: schema.definition(), into: empty.snapshot())
            let text = Self.mutated(good, &random)
            do {
                try importer.add(JSONValue.parse(text, source: "line"), className: "Owner")
                _ = try importer.batch()
                added += 1
            } catch is StrataError {
                refused += 1
            } catch {
                XCTFail("round \(round): \(text) threw \(error), not a StrataError")
            }
        }
        XCTAssertEqual(added + refused, 3_000)
        XCTAssertGreaterThan(refused, 1_000, "most edits break the JSON or the types")
    }

    func testMutatedPredicatesParseOrAreAnInvalidQuery() throws {
        let db = try open()
        let dogs = try XCTUnwrap(StoredSchema.load(from: db.storeSnapshot).storedClass(named: "Dog"))
        var random = SplitMix64(seed: 14)
        for _ in 0..<3_000 {
            let predicate = Self.mutated("(age >= 3 AND name BEGINSWITH 'R') OR NOT breed == nil", &random)
            do {
                _ = try StoredObjectFilter(predicate, for: dogs)
            } catch let error as StrataError {
                XCTAssertEqual(error.code, .invalidQuery, predicate)
            }
        }
    }
}
