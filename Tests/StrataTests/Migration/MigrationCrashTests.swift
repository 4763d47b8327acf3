import Foundation
@_spi(Testing) import StrataStorage
import XCTest

@_spi(Testing) @testable import Strata

/// A migration is one commit: a power loss at any sync point of it leaves either the old
/// schema and data, whole, or the migrated ones; both pass the integrity checker.
final class MigrationCrashTests: MigrationTestCase {
    func testACrashAtAnySyncPointOfAMigrationLeavesTheOldOrTheNewDatabase() throws {
        try fillV1()
        let images = Locked<[MemoryFileSystem]>([])
        fileSystem.setSyncHook { [unowned fileSystem] event in
            let policies: [MemoryFileSystem.CrashPolicy] = [.dropAll, .keepAll, .random(seed: UInt64(event.number))]
            images.withLock { $0 += policies.map { fileSystem!.crashImage($0) } }
        }
        _ = try Database(configuration: configuration(V2.types, version: 2, block: contractBlock()))
        fileSystem.setSyncHook(nil)
        // After the open returns the migration is durable: a power loss now keeps it.
        let afterOpen = fileSystem.crashImage(.dropAll)
        images.withLock { $0.append(afterOpen) }
        var outcomes = (old: 0, new: 0)
        var afterOpenIsMigrated = false
        for image in images.withLock({ $0 }) {
            fileSystem = image
            do {
                let db = try Database(configuration: configuration(V1.types, version: 1))
                XCTAssertEqual(db.objects(V1.Person.self).map(\.firstName).sorted(), ["Ann", "Bob"])
                XCTAssertEqual(db.objects(V1.Retired.self).first?.dog?.name, "Rex")
                XCTAssertEqual(db.objects(V1.Address.self).count, 2)
                assertClean(db)
                outcomes.old += 1
            } catch let error as StrataError where error.code == .schemaMismatch {
                let db = try Database(configuration: configuration(V2.types, version: 2))
                XCTAssertEqual(db.objects(V2.Person.self).sorted(byKeyPath: "_id").map(\.name), ["Ann Lee", "Bob Ray"])
                XCTAssertEqual(db.objects(V2.Dog.self).count, 3)
                assertClean(db)
                outcomes.new += 1
                afterOpenIsMigrated = afterOpenIsMigrated || image === afterOpen
            }
        }
        XCTAssertTrue(afterOpenIsMigrated, "the migration is durable once the open returns")
        XCTAssertGreaterThan(outcomes.old, 0, "some images predate the migration's commit")
        XCTAssertGreaterThan(outcomes.new, 0, "some images hold it")
        print("migration crash images: \(outcomes.old) old, \(outcomes.new) migrated")
    }

    func testEmbeddedObjectsBecomeTopLevelObjectsLinkedFromTheirParents() throws {
        try fillV1()
        _ = try Database(configuration: configuration(V2.types, version: 2, block: contractBlock()))
        let db = try Database(configuration: configuration(V3.types, version: 3) { migration, _ in
            migration.enumerateObjects(ofType: "Person") { oldObject, newObject in newObject?["address"] = oldObject?["address"] }
        })
        let people = db.objects(V3.Person.self).sorted(byKeyPath: "_id")
        XCTAssertEqual(people.map { $0.address?.city }, ["Lyon", "Paris"])
        XCTAssertEqual(db.objects(V3.Address.self).count, 2)
        XCTAssertEqual(db.objects(V3.Address.self).where { $0.city == "Lyon" }.first?.residents.map(\.name), ["Ann Lee"])
        assertClean(db)
    }
}
