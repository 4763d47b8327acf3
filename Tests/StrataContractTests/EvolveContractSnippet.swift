// The evolve-and-port contract, verbatim: migrations, encryption and the porting surface.
// Realm Swift's names with Realm→Database.
import Foundation
import Strata

func evolve(directory: URL, key: Data, rex: Dog, other: Dog) throws {
    // Migrations.
    var config = Database.Configuration(directory: directory, objectTypes: [Dog.self, Person.self, Address.self],
                                        schemaVersion: 2)
    config.migrationBlock = { (migration: Migration, oldSchemaVersion: UInt64) in
        if oldSchemaVersion < 2 {
            migration.renameProperty(onType: "Person", from: "yearsSinceBirth", to: "age")
            migration.enumerateObjects(ofType: "Person") { (oldObject: MigrationObject?, newObject: MigrationObject?) in
                let first = oldObject?["firstName"] as? String ?? ""
                let last = oldObject?["lastName"] as? String ?? ""
                newObject?["name"] = "\(first) \(last)"
            }
            migration.deleteData(forType: "Retired")
            _ = migration.create("Dog", value: ["name": "Migrated"])
        }
    }
    config.deleteDatabaseIfMigrationNeeded = false

    // Configuration.
    config.encryptionKey = key                       // 64 bytes; wrong key → StrataError(.invalidKey)
    config.readOnly = false
    var memory = Database.Configuration(inMemoryIdentifier: "cache", objectTypes: [Dog.self])
    memory.schemaVersion = 1
    config.shouldCompactOnLaunch = { totalBytes, usedBytes in totalBytes > 100 << 20 && Double(usedBytes) / Double(totalBytes) < 0.5 }
    let db = try Database(configuration: config)
    try db.writeCopy(toDirectory: directory.appendingPathComponent("copy"), encryptionKey: nil)

    // The Realm CRUD surface.
    try db.write {
        try db.add([Dog(), Dog()])
        try db.add([rex], update: .modified)
        let made: Dog = try db.create(Dog.self, value: ["name": "Made", "age": 4])
        _ = try db.create(Person.self, value: ["_id": ObjectId(), "name": "Bo", "dogs": [made], "address": ["city": "Nice"]],
                          update: .modified)
        try db.delete(db.objects(Dog.self).where { $0.age > 10 })
        try db.delete([other])
    }
    try db.write { try db.deleteAll() }
    _ = Dog(value: ["name": "Rex", "age": 3])
    _ = Address(value: ["1 Main St", "Lyon"])            // array form, in property order

    // Identity.
    _ = rex.isSameObject(as: other)
    _ = rex == other                                     // Equatable by stored identity when managed
    _ = Set([rex, other]).count                          // Hashable
    _ = Dog.className()

    // AnyValue accessors.
    let v: AnyValue = .int(3)
    _ = (v.intValue, v.stringValue, v.boolValue, v.doubleValue, v.dateValue, v.objectValue(Dog.self))

    // Errors worth matching.
    _ = StrataError.Code.invalidKey
    _ = StrataError.Code.schemaMismatch
    _ = StrataError.Code.readOnly
}
