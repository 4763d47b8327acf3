import Foundation
import Strata

// The migration the SIGKILL test kills (MigrationKillTests): `count` items written at schema
// version 1, then migrated to version 2 (a rename, a type change, a new index, links kept) by a
// child process that is killed at some moment of it. After the kill the directory must hold
// either the version-1 data, whole, or the version-2 data, whole.

/// The two schema versions of the killed migration and what each must hold.
public enum KillMigration {
    public enum V1 {
        public final class MigratingItem: Object {
            @Persisted(primaryKey: true) public var _id: Int
            @Persisted public var name: String
            @Persisted public var age: Int
            @Persisted public var friend: MigratingItem?
        }
    }

    public enum V2 {
        public final class MigratingItem: Object {
            @Persisted(primaryKey: true) public var _id: Int
            @Persisted(indexed: true) public var title: String
            @Persisted public var age: String
            @Persisted public var friend: MigratingItem?
        }
    }

    /// Version 1 of the database in `directory`.
    public static func v1(_ directory: URL) -> Database.Configuration {
        Database.Configuration(directory: directory, objectTypes: [V1.MigratingItem.self], schemaVersion: 1)
    }

    /// Version 2, with the migration block.
    public static func v2(_ directory: URL) -> Database.Configuration {
        var configuration = Database.Configuration(directory: directory, objectTypes: [V2.MigratingItem.self], schemaVersion: 2)
        configuration.migrationBlock = { migration, _ in
            migration.renameProperty(onType: "MigratingItem", from: "name", to: "title")
            migration.enumerateObjects(ofType: "MigratingItem") { oldObject, newObject in
                newObject?["age"] = "age \(oldObject?["age"] as? Int ?? -1)"
            }
        }
        return configuration
    }

    /// Writes items 0..<count at version 1: item i is named "item i", is i % 90 years old and
    /// has item (i + 1) % count as its friend.
    public static func fill(_ directory: URL, count: Int) throws {
        let db = try Database(configuration: v1(directory))
        let items = (0..<count).map { i in
            let item = V1.MigratingItem()
            (item._id, item.name, item.age) = (i, "item \(i)", i % 90)
            return item
        }
        for (i, item) in items.enumerated() { item.friend = items[(i + 1) % count] }
        try db.write { try db.add(items) }
    }

    /// What is wrong with the version-1 data of `count` items in `db`, or nil.
    public static func problemInV1(_ db: Database, count: Int) -> String? {
        let items = db.objects(V1.MigratingItem.self)
        guard items.count == count else { return "\(items.count) version-1 items, not \(count)" }
        for item in items where item.name != "item \(item._id)" || item.age != item._id % 90 || item.friend?._id != (item._id + 1) % count {
            return "version-1 item \(item._id) reads \(item.name), \(item.age), friend \(String(describing: item.friend?._id))"
        }
        return nil
    }

    /// What is wrong with the version-2 data of `count` items in `db`, or nil.
    public static func problemInV2(_ db: Database, count: Int) -> String? {
        let items = db.objects(V2.MigratingItem.self)
        guard items.count == count else { return "\(items.count) version-2 items, not \(count)" }
        for item in items where item.title != "item \(item._id)" || item.age != "age \(item._id % 90)" || item.friend?._id != (item._id + 1) % count {
            return "version-2 item \(item._id) reads \(item.title), \(item.age), friend \(String(describing: item.friend?._id))"
        }
        guard db.objects(V2.MigratingItem.self).where({ $0.title == "item 7" }).count == 1 else { return "the new index does not answer" }
        return nil
    }
}
