import Foundation
@_spi(Testing) import StrataStorage
import XCTest

@_spi(Testing) @testable import Strata

/// `renameProperty` across a type change: as Realm, a rename keeps the type (or makes a required
/// property optional); Strata also widens integers, element types included. Any other change
/// fails the open with the property named, and nothing is written.
final class RenamePropertyTests: MigrationTestCase {
    enum Stored {
        final class Item: Object {
            @Persisted(primaryKey: true) var _id: Int
            @Persisted var code: Int
            @Persisted var small: Int8
            @Persisted var note: String?
            @Persisted var count: Int
            @Persisted var tags: List<Int16>
        }
    }

    /// `code` (Int) renamed to a String.
    enum ToText {
        final class Item: Object {
            @Persisted(primaryKey: true) var _id: Int
            @Persisted var label: String
        }
    }

    /// `code` (Int) renamed to a narrower integer.
    enum ToNarrower {
        final class Item: Object {
            @Persisted(primaryKey: true) var _id: Int
            @Persisted var shortCode: Int8
        }
    }

    /// `note` (String?) renamed to a required String.
    enum ToRequired {
        final class Item: Object {
            @Persisted(primaryKey: true) var _id: Int
            @Persisted var text: String
        }
    }

    /// Every rename keeps every value.
    enum Widened {
        final class Item: Object {
            @Persisted(primaryKey: true) var _id: Int
            @Persisted var wide: Int64
            @Persisted var remark: String?
            @Persisted var total: Int?
            @Persisted var labels: List<Int32>
        }
    }

    private func fillStored() throws {
        let db = try Database(configuration: configuration([Stored.Item.self], version: 1))
        try db.write {
            for id in 1...2 {
                let item = Stored.Item()
                (item._id, item.code, item.small, item.note, item.count) = (id, 40 + id, Int8(-id), id == 1 ? nil : "n\(id)", id * 100)
                item.tags.append(objectsIn: [Int16(id), -300])
                try db.add(item)
            }
        }
    }

    /// Fails unless opening `types` at version 2 with `block` fails naming `property`, leaving
    /// the version-1 objects and schema as they were.
    private func assertRenameRefused(
        _ types: [ObjectBase.Type], naming property: String, file: StaticString = #filePath, line: UInt = #line,
        _ block: @escaping MigrationBlock
    ) throws {
        try fillStored()
        let error = strataError({ _ = try Database(configuration: configuration(types, version: 2, block: block)) }, file: file, line: line)
        XCTAssertEqual(error?.code, .invalidValue, file: file, line: line)
        XCTAssertTrue(error?.message.contains(property) == true, "\(String(describing: error))", file: file, line: line)
        let db = try Database(configuration: configuration([Stored.Item.self], version: 1))
        XCTAssertEqual(db.objects(Stored.Item.self).sorted(byKeyPath: "_id").map(\.code), [41, 42], "nothing was written", file: file, line: line)
        XCTAssertEqual(try Catalog.load(from: db.storeSnapshot).schemaVersion, 1, file: file, line: line)
    }

    func testRenamingToAnotherTypeFailsTheOpenNamingTheProperty() throws {
        try assertRenameRefused([ToText.Item.self], naming: "Item.code") { migration, _ in
            migration.renameProperty(onType: "Item", from: "code", to: "label")
        }
    }

    func testRenamingToANarrowerIntegerFailsEvenWhenTheValuesFit() throws {
        try assertRenameRefused([ToNarrower.Item.self], naming: "Item.code") { migration, _ in
            migration.renameProperty(onType: "Item", from: "code", to: "shortCode")
        }
    }

    func testRenamingAnOptionalPropertyToARequiredOneFails() throws {
        try assertRenameRefused([ToRequired.Item.self], naming: "Item.note") { migration, _ in
            migration.renameProperty(onType: "Item", from: "note", to: "text")
        }
    }

    func testRenamesThatKeepEveryValueConvert() throws {
        try fillStored()
        let db = try Database(configuration: configuration([Widened.Item.self], version: 2) { migration, _ in
            migration.renameProperty(onType: "Item", from: "small", to: "wide")
            migration.renameProperty(onType: "Item", from: "note", to: "remark")
            migration.renameProperty(onType: "Item", from: "count", to: "total")
            migration.renameProperty(onType: "Item", from: "tags", to: "labels")
        })
        let items = db.objects(Widened.Item.self).sorted(byKeyPath: "_id")
        XCTAssertEqual(items.map(\.wide), [-1, -2], "a wider integer")
        XCTAssertEqual(items.map(\.remark), [nil, "n2"], "the same type")
        XCTAssertEqual(items.map(\.total), [100, 200], "required → optional")
        XCTAssertEqual(items.map { Array($0.labels) }, [[1, -300], [2, -300]], "a list of a wider integer")
        assertClean(db)
    }
}
