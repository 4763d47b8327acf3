// `strata schema PATH [--json]`: the schema a database stores, read from its catalog alone.

import ArgumentParser
import Foundation
@_spi(Tooling) import Strata

struct Schema: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the stored schema: classes, properties, types, keys, indexes, embedded objects.",
        discussion: """
            Opens the database read-only and prints the schema its catalog records: each class \
            (embedded ones marked), and each stored property with its type as Swift spells it, \
            whether it is the primary key, indexed, a link or an embedded object. Backlinks \
            (LinkingObjects) are computed, not stored, so they are not listed. No model classes \
            are needed.

            With --json prints a JSON array of Atlas App Services JSON schemas, one per class \
            that is not embedded: {"title", "bsonType": "object", "required": [the primary \
            key], "properties"}; Int and Int64 are "long", Int8/16/32 "int"; a link is its \
            target's primary-key type, a List an "array" of "items", a MutableSet adds \
            "uniqueItems", a Map is an "object" of "additionalProperties"; embedded objects are \
            nested. A class without a primary key gets "_id" (its generated ObjectId).

            \(ToolExit.help)
            """
    )

    @Argument(help: "The database directory.")
    var path: String

    @Flag(help: "Print App Services JSON schemas instead of a table.")
    var json = false

    @OptionGroup var key: KeyFileOption

    func run() throws {
        let database = try StoredDatabase.open(path, key: key)
        if json {
            print(JSONValue.array(database.schema.appServicesSchemas()).rendered(pretty: true))
            return
        }
        guard !database.schema.classes.isEmpty else { return print("no classes: the database holds no object catalog") }
        for storedClass in database.schema.classes { print(lines(of: storedClass, in: database.schema).joined(separator: "\n")) }
    }

    private func lines(of storedClass: StoredClass, in schema: StoredSchema) -> [String] {
        let kind = storedClass.isEmbedded ? "embedded, " : ""
        let rows = storedClass.properties.map { property -> (String, String, String) in
            var notes: [String] = []
            if property.isPrimaryKey { notes.append("primary key") }
            if property.isIndexed { notes.append("indexed") }
            if let target = property.linkedClassName {
                let embedded = schema.storedClass(named: target)?.isEmbedded ?? false
                notes.append(embedded ? "embedded \(target)" : "link to \(target)")
            }
            return (property.name, property.typeName, notes.joined(separator: ", "))
        }
        let nameWidth = rows.map(\.0.count).max() ?? 0
        let typeWidth = rows.map(\.1.count).max() ?? 0
        return ["\(storedClass.name) (\(kind)class id \(storedClass.id))"] + rows.map { name, type, notes in
            let line = "  " + name.padding(toLength: nameWidth + 2, withPad: " ", startingAt: 0)
                + type.padding(toLength: typeWidth + 2, withPad: " ", startingAt: 0) + notes
            return String(line.reversed().drop { $0 == " " }.reversed())
        }
    }
}
