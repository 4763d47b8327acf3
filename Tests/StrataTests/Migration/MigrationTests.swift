import Foundation
@_spi(Testing) import StrataStorage
import XCTest

@_spi(Testing) @testable import Strata

/// Migrations as Realm's MigrationTests define them: the block's view of old and new objects,
/// rename, create, delete, deleteData, and what converts without a block; every result read
/// back after a reopen and checked by the integrity checker.
final class MigrationTests: MigrationTestCase {
    func testTheContractsMigrationConvertsEveryChange() throws {
        try fillV1()
        let calls = Locked(0)
        for reopen in [false, true] {
            let db = try Database(configuration: configuration(V2.types, version: 2, block: reopen ? nil : contractBlock(calls: calls)))
            let people = db.objects(V2.Person.self).sorted(byKeyPath: "_id")
            XCTAssertEqual(people.map(\.name), ["Ann Lee", "Bob Ray"])
            XCTAssertEqual(people.map(\.age), [30, 40], "renamed: the values follow")
            XCTAssertEqual(people.map(\.nickname), ["", "B"], "optional → required: nil becomes the default")
            XCTAssertEqual(people.map(\.score), ["7", "3"], "changed type: the block converted")
            XCTAssertEqual(people.map { $0.dog?.name }, ["Rex", "Fido"], "links follow objects whose key changed")
            XCTAssertEqual(people.map { Array($0.dogs.map(\.name)) }, [["Rex", "Fido"], ["Fido"]])
            XCTAssertEqual(people.map { $0.address?.city }, ["Lyon", "Paris"], "top-level → embedded: copied into the parent")
            XCTAssertEqual(Set(db.objects(V2.Dog.self).map(\.name)), ["Rex", "Fido", "Migrated"])
            XCTAssertEqual(db.object(ofType: V2.Dog.self, forPrimaryKey: "Rex")?.age, 5, "the new primary key finds the object")
            XCTAssertEqual(db.objects(V2.Person.self).where { $0.age == 40 }.map(\.name), ["Bob Ray"], "the new index answers")
            assertClean(db)
        }
        XCTAssertEqual(calls.withLock { $0 }, 1, "the block runs once")
        let catalog = try Catalog.load(from: try Database(configuration: configuration(V2.types, version: 2)).storeSnapshot)
        XCTAssertNil(catalog.classes.first { $0.name == "Retired" }, "deleteData drops a class the open does not declare")
        XCTAssertEqual(catalog.schemaVersion, 2)
    }

    func testWithoutABlockAHigherVersionConvertsWhatConvertsByItself() throws {
        try fillV1()
        let db = try Database(configuration: configuration(V2.types, version: 2))
        let people = db.objects(V2.Person.self).sorted(byKeyPath: "_id")
        XCTAssertEqual(people.map(\.nickname), ["", "B"])
        XCTAssertEqual(people.map(\.score), ["", ""], "a changed type starts at the default")
        XCTAssertEqual(people.map(\.age), [0, 0], "no rename: a new property")
        XCTAssertEqual(people.map { $0.dog?.name }, ["Rex", "Fido"])
        XCTAssertEqual(db.objects(V2.Dog.self).count, 2)
        assertClean(db)
    }

    func testAChangedSchemaWithoutAHigherVersionListsEveryDifference() throws {
        try fillV1()
        let error = strataError { _ = try Database(configuration: configuration(V2.types, version: 1)) }
        XCTAssertEqual(error?.code, .schemaMismatch)
        let message = error?.message ?? ""
        for difference in [
            "Person.nickname: optional → required", "Person.score: type Int → String", "Dog: primary key none → name",
            "Address: Object → EmbeddedObject", "Person.age: property added (Int) (additive)",
            "Person.yearsSinceBirth: property removed (Int) (additive)",
        ] {
            XCTAssertTrue(message.contains(difference), "\(difference) is not in: \(message)")
        }
        let old = try Database(configuration: configuration(V1.types, version: 1))
        XCTAssertEqual(old.objects(V1.Person.self).count, 2, "nothing was written")
        assertClean(old)
    }

    func testALowerVersionThanTheStoredOneIsAMismatch() throws {
        try fillV1()
        let error = strataError { _ = try Database(configuration: configuration(V1.types, version: 0)) }
        XCTAssertEqual(error?.code, .schemaMismatch)
        XCTAssertTrue(error?.message.contains("newer") ?? false, error?.message ?? "")
    }

    func testDeleteDatabaseIfMigrationNeededStartsAgainWithoutTheBlock() throws {
        try fillV1()
        var configuration = configuration(V2.types, version: 2) { _, _ in XCTFail("the block must not run") }
        configuration.deleteDatabaseIfMigrationNeeded = true
        let db = try Database(configuration: configuration)
        XCTAssertEqual(db.objects(V2.Person.self).count, 0)
        XCTAssertEqual(db.objects(V2.Dog.self).count, 0)
        try db.write { try db.add(V2.Dog()) }
        assertClean(db)
    }

    func testAnAdditiveChangeNeedsNoVersionAndRewritesNoObject() throws {
        try fillV1()
        let before = try Database(configuration: configuration(V1.types, version: 1)).storeSnapshot
        let records = { (snapshot: Snapshot) in
            snapshot.keyspaces.filter { $0.rawValue >= ObjectFormat.firstClassID }.flatMap { keyspace in
                snapshot.keys(in: keyspace).map { try? snapshot.value(for: $0, in: keyspace) }
            }
        }
        // V1 without Retired (not declared is not a change) and without Address's class
        // declared... every V1 class is kept; opening with fewer classes changes nothing.
        let db = try Database(configuration: configuration([V1.Person.self, V1.Dog.self, V1.Address.self], version: 1))
        XCTAssertEqual(records(db.storeSnapshot), records(before))
        XCTAssertEqual(db.objects(V1.Person.self).count, 2)
    }

    func testABlockThatSetsAWrongValueFailsAndWritesNothing() throws {
        try fillV1()
        let error = strataError {
            _ = try Database(configuration: configuration(V2.types, version: 2) { migration, _ in
                migration.enumerateObjects(ofType: "Person") { _, newObject in newObject?["age"] = "thirty" }
            })
        }
        XCTAssertEqual(error?.code, .invalidValue)
        XCTAssertTrue(error?.message.contains("Person.age") ?? false, error?.message ?? "")
        let old = try Database(configuration: configuration(V1.types, version: 1))
        XCTAssertEqual(old.objects(V1.Person.self).map(\.yearsSinceBirth).sorted(), [30, 40])
    }

    func testReadingAPropertyThatDoesNotExistFailsTheMigration() throws {
        try fillV1()
        let error = strataError {
            _ = try Database(configuration: configuration(V2.types, version: 2) { migration, _ in
                migration.enumerateObjects(ofType: "Person") { oldObject, _ in _ = oldObject?["noSuchColumn"] }
            })
        }
        XCTAssertEqual(error?.code, .invalidValue)
        XCTAssertTrue(error?.message.contains("noSuchColumn") ?? false)
    }

    func testAPrimaryKeyThatIsNoLongerUniqueFailsAndWritesNothing() throws {
        try fillV1()
        do {
            let db = try Database(configuration: configuration(V1.types, version: 1))
            try db.write {
                let twin = V1.Dog()
                twin.name = "Rex"
                try db.add(twin)
            }
        }
        let error = strataError { _ = try Database(configuration: configuration(V2.types, version: 2)) }
        XCTAssertEqual(error?.code, .primaryKeyExists)
        XCTAssertTrue(error?.message.contains("Rex") ?? false, error?.message ?? "")
        let db = try Database(configuration: configuration(V1.types, version: 1))
        XCTAssertEqual(db.objects(V1.Dog.self).count, 3)
    }

    func testAMigrationWaitsUntilNoDatabaseOfThisProcessUsesTheOldSchema() throws {
        try fillV1()
        let old = try Database(configuration: configuration(V1.types, version: 1))
        let error = strataError { _ = try Database(configuration: configuration(V2.types, version: 2)) }
        XCTAssertEqual(error?.code, .schemaMismatch)
        XCTAssertEqual(old.objects(V1.Person.self).count, 2)
    }

    func testEnumerateDeleteAndCreateAsRealm() throws {
        try fillV1()
        let db = try Database(configuration: configuration(V2.types, version: 2) { migration, _ in
            var seen: [String] = []
            migration.enumerateObjects(ofType: "Dog") { oldObject, newObject in
                seen.append(oldObject?["name"] as? String ?? "?")
                XCTAssertEqual(oldObject?["age"] as? Int, newObject?["age"] as? Int)
                if oldObject?["name"] as? String == "Fido" { migration.delete(newObject!) }
            }
            XCTAssertEqual(seen.sorted(), ["Fido", "Rex"])
            migration.enumerateObjects(ofType: "Dog") { oldObject, newObject in
                if oldObject?["name"] as? String == "Fido" { XCTAssertNil(newObject, "a deleted object has no new version") }
            }
            migration.enumerateObjects(ofType: "NoSuchClass") { _, _ in XCTFail("no objects") }
            XCTAssertTrue(migration.deleteData(forType: "Retired"))
            XCTAssertFalse(migration.deleteData(forType: "NoSuchClass"))
            migration.enumerateObjects(ofType: "Retired") { _, _ in XCTFail("deleted") }
            let made = migration.create("Dog", value: ["Spot", 4])
            made["age"] = Int32(6)
            migration.enumerateObjects(ofType: "Person") { oldObject, newObject in
                XCTAssertTrue(oldObject?["dog"] is MigrationObject)
                XCTAssertEqual((oldObject?["dogs"] as? [Any])?.count, oldObject?["_id"] as? Int == 1 ? 2 : 1)
                XCTAssertEqual(oldObject?.score as? Int, oldObject?["_id"] as? Int == 1 ? 7 : 3, "dynamic member lookup")
                if oldObject?["_id"] as? Int == 2 { newObject?["dog"] = made }
            }
        })
        XCTAssertEqual(Set(db.objects(V2.Dog.self).map(\.name)), ["Rex", "Spot"])
        XCTAssertEqual(db.object(ofType: V2.Dog.self, forPrimaryKey: "Spot")?.age, 6, "Int32 converts to Int")
        let bob = db.object(ofType: V2.Person.self, forPrimaryKey: 2)
        XCTAssertEqual(bob?.dog?.name, "Spot")
        XCTAssertEqual(bob?.dogs.count, 0, "links to a deleted object go")
        assertClean(db)
    }

    func testABlockSetsCollectionsAndEmbeddedObjectsFromPlainValues() throws {
        try fillV1()
        let db = try Database(configuration: configuration(V2.types, version: 2) { migration, _ in
            let spot = migration.create("Dog", value: ["name": "Spot", "age": UInt8(3)])
            migration.enumerateObjects(ofType: "Person") { oldObject, newObject in
                if oldObject?["_id"] as? Int == 2 { newObject?["dog"] = oldObject?["dog"] }
                guard oldObject?["_id"] as? Int == 1 else { return }
                let dogs = oldObject?["dogs"] as? [Any] ?? []
                newObject?["dogs"] = dogs + [spot]
                newObject?["address"] = ["city": "Nice"]
                newObject?["nickname"] = Optional("Annie")
            }
            migration.deleteData(forType: "Retired")
            migration.enumerateObjects(ofType: "Retired") { _, _ in XCTFail("deleted data is not enumerated") }
        })
        let ann = db.object(ofType: V2.Person.self, forPrimaryKey: 1)
        XCTAssertEqual(ann.map { Array($0.dogs.map(\.name)) }, ["Rex", "Fido", "Spot"], "old objects stand for their new versions")
        XCTAssertEqual(ann?.address?.city, "Nice")
        XCTAssertEqual(ann?.nickname, "Annie")
        XCTAssertEqual(db.object(ofType: V2.Dog.self, forPrimaryKey: "Spot")?.age, 3)
        assertClean(db)
    }

    func testAValueOutOfRangeForItsIntegerWidthFails() throws {
        try fillV1()
        let error = strataError {
            _ = try Database(configuration: configuration(V2.types, version: 2) { migration, _ in
                migration.create("Dog", value: ["name": "Big", "age": 1.5])
            })
        }
        XCTAssertEqual(error?.code, .invalidValue)
        XCTAssertTrue(error?.message.contains("Dog.age") ?? false, error?.message ?? "")
    }

    func testAReadOnlyOpenThatNeedsAMigrationIsRefused() throws {
        try fillV1()
        var configuration = configuration(V2.types, version: 2) { _, _ in XCTFail("the block must not run") }
        configuration.readOnly = true
        let error = strataError { _ = try Database(configuration: configuration) }
        XCTAssertEqual(error?.code, .readOnly)
        XCTAssertEqual(try Database(configuration: self.configuration(V1.types, version: 1)).objects(V1.Person.self).count, 2)
    }
}
