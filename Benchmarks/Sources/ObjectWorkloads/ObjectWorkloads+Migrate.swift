// The migration workload (issue 13): `count` items written with the workload's model, then a
// new schema version that renames `name` to `title` and turns `age` from an integer into text,
// converting every value:
//
// | side | how |
// |:--|:--|
// | Strata | `Database(configuration:)` with `schemaVersion: 1` and a `migrationBlock` that calls `renameProperty(onType:from:to:)` and sets `newObject["age"]` from `oldObject["age"]` in `enumerateObjects` |
// | GRDB | a `DatabaseMigrator` migration, as GRDB's guide does a column type change: create the new table, `INSERT … SELECT` with `CAST(age AS TEXT)`, drop the old one, rename the new one |
//
// What is timed is the open that migrates (Strata) and `migrator.migrate(pool)` (GRDB), each
// committed with its side's default durability (`.full`; WAL with synchronous=NORMAL).

import Foundation
import GRDB
import Strata

/// The workload's model at schema version 1, under the same class name.
public enum MigratedSchema {
    public final class StrataItem: Object {
        @Persisted(primaryKey: true) public var _id: Int
        @Persisted public var title: String
        @Persisted public var age: String
        @Persisted public var score: Double
    }
}

extension ObjectWorkloads {
    /// Migrates the Strata items in `directory` to ``MigratedSchema``; checks the result.
    public static func strataMigrate(_ directory: String, count: Int) throws {
        var configuration = Strata.Database.Configuration(
            directory: URL(fileURLWithPath: directory), objectTypes: [MigratedSchema.StrataItem.self], schemaVersion: 1)
        configuration.migrationBlock = { migration, _ in
            migration.renameProperty(onType: "StrataItem", from: "name", to: "title")
            migration.enumerateObjects(ofType: "StrataItem") { oldObject, newObject in
                newObject?["age"] = String(oldObject?["age"] as? Int ?? 0)
            }
        }
        let db = try Strata.Database(configuration: configuration)
        precondition(db.objects(MigratedSchema.StrataItem.self).count == count)
        precondition(db.object(ofType: MigratedSchema.StrataItem.self, forPrimaryKey: 7)?.age == String(fields(7).age))
    }

    /// Migrates GRDB's `item` table the same way; checks the result.
    public static func grdbMigrate(_ pool: DatabasePool, count: Int) throws {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.create(table: "new_item") { table in
                table.primaryKey("id", .integer)
                table.column("title", .text).notNull()
                table.column("age", .text).notNull()
                table.column("score", .double).notNull()
            }
            try db.execute(sql: "INSERT INTO new_item (id, title, age, score) SELECT id, name, CAST(age AS TEXT), score FROM item")
            try db.drop(table: "item")
            try db.rename(table: "new_item", to: "item")
        }
        try migrator.migrate(pool)
        let (stored, age) = try pool.read { db in
            (try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM item") ?? 0, try String.fetchOne(db, sql: "SELECT age FROM item WHERE id = 7"))
        }
        precondition(stored == count && age == String(fields(7).age))
    }
}
