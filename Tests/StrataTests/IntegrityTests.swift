import Foundation
@_spi(Testing) import Strata
import StrataStorage
import XCTest

/// The object-level integrity checker: a whole database has no problem, and each kind of damage,
/// written into the store with StrataStorage directly, is reported by its kind and names what
/// is wrong, never trapping.
final class IntegrityTests: XCTestCase {
    private let fileSystem = MemoryFileSystem()
    private static let directory = "/db"

    private func openDatabase() throws -> Database {
        var configuration = Database.Configuration(
            directory: URL(fileURLWithPath: Self.directory),
            objectTypes: [Owner.self, Pet.self, Place.self, Dog.self, Person.self])
        configuration.storageOptions.fileSystem = fileSystem
        return try Database(configuration: configuration)
    }

    /// Ann links to pets through every kind of link (to-one, list, set, map, mixed value, and
    /// inside embedded objects, alone and in a list); two people named Zed and one Amy (an
    /// indexed name), Zed 1 linking to a dog.
    private func populate() throws {
        let db = try openDatabase()
        try db.write {
            let ann = Owner(value: ["id": 1, "name": "Ann"])
            ann.pet = Pet(value: ["name": "Rex"])
            ann.pets.append(Pet(value: ["name": "Max"]))
            ann.pets.append(ann.pet!)
            ann.favorites.insert(Pet(value: ["name": "Bo"]))
            ann.byName["c"] = Pet(value: ["name": "Cy"])
            ann.extra = .object(Pet(value: ["name": "Di"]))
            ann.home = Place(value: ["city": "Lyon", "landlord": Pet(value: ["name": "Ed"])])
            ann.pastHomes.append(Place(value: ["landlord": Pet(value: ["name": "Fi"])]))
            try db.add(ann)
            for name in ["Zed", "Zed", "Amy"] {
                let person = Person()
                person.name = name
                try db.add(person)
            }
            let dog = Dog()
            dog.name = "Rover"
            db.objects(Person.self).where { $0.name == "Zed" }.first?.dog = dog
        }
    }

    /// Opens the store the database wrote, applies `edit` (with StrataStorage only) and checks it.
    private func check(after edit: (Snapshot, inout WriteBatch) throws -> Void) throws -> IntegrityReport {
        try populate()
        var options = Store.Options()
        options.fileSystem = fileSystem
        let store = try Store(directory: Self.directory, options: options)
        var batch = WriteBatch()
        try edit(store.snapshot(), &batch)
        if !batch.isEmpty { try store.commit(batch) }
        return Database.checkIntegrity(of: store.snapshot())
    }

    private func kinds(_ report: IntegrityReport) -> Set<IntegrityProblem.Kind> { Set(report.problems.map(\.kind)) }

    // MARK: The catalog, as stored JSON: class and property ids.

    private func catalog(_ snapshot: Snapshot) throws -> [[String: Any]] {
        let bytes = try XCTUnwrap(try snapshot.value(for: StorageKey("catalog"), in: Keyspace(0)))
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
        return try XCTUnwrap(json["classes"] as? [[String: Any]])
    }

    private func classID(_ name: String, _ snapshot: Snapshot) throws -> UInt32 {
        let entry = try XCTUnwrap(try catalog(snapshot).first { $0["name"] as? String == name })
        return try XCTUnwrap(entry["id"] as? UInt32)
    }

    private func propertyID(_ className: String, _ property: String, _ snapshot: Snapshot) throws -> UInt8 {
        let entry = try XCTUnwrap(try catalog(snapshot).first { $0["name"] as? String == className })
        let properties = try XCTUnwrap(entry["properties"] as? [[String: Any]])
        return try XCTUnwrap(properties.first { $0["name"] as? String == property }?["id"] as? UInt8)
    }

    private func ownerKey(_ id: Int64) -> StorageKey { StorageKey(UInt64(bitPattern: id) ^ (1 << 63)) }

    private func backlinkKey(_ classID: UInt32, _ key: StorageKey) -> StorageKey {
        StorageKey(withUnsafeBytes(of: classID.bigEndian, Array.init) + key.bytes)
    }

    /// The keys of the Person objects named `name`, read from their records.
    private func personKeys(named name: String, _ snapshot: Snapshot) throws -> [StorageKey] {
        let keyspace = Keyspace(try classID("Person", snapshot))
        return try snapshot.keys(in: keyspace).filter { key in
            let record = try XCTUnwrap(try snapshot.value(for: key, in: keyspace))
            return record.firstRange(of: Array(name.utf8)) != nil
        }
    }

    private func indexKeys(_ snapshot: Snapshot) -> [StorageKey] { snapshot.keys(in: Keyspace(2)) }

    /// The index entries of the people named `name` (their keys hold the name's bytes).
    private func nameEntries(_ name: String, _ snapshot: Snapshot) -> [StorageKey] {
        indexKeys(snapshot).filter { $0.bytes.firstRange(of: Array(name.utf8)) != nil }
    }

    // MARK: Whole databases

    func testWholeDatabaseWithEveryKindOfLinkHasNoProblem() throws {
        let report = try check { _, _ in }
        XCTAssertEqual(report.problems, [], "\(report)")
        XCTAssertEqual(report.objectsChecked, 1 + 7 + 3 + 1, "Ann, seven pets, three people, one dog")
        XCTAssertEqual(report.linksChecked, 9, "eight links from Ann (to Rex through pet and pets), one from Zed")
        XCTAssertEqual(report.backlinksChecked, 9, "one per (source, property, target): Rex's record lists Ann twice")
        XCTAssertEqual(report.indexEntriesChecked, 3)
    }

    func testOpenDatabaseChecksItsLatestCommit() throws {
        try populate()
        let db = try openDatabase()
        XCTAssertTrue(db.checkIntegrity().isClean)
        XCTAssertEqual(db.checkIntegrity().objectsChecked, 12)
    }

    func testStoreWithoutCatalogOrObjectsIsNotAnObjectDatabase() throws {
        var options = Store.Options()
        options.fileSystem = fileSystem
        let store = try Store(directory: Self.directory, options: options)
        var batch = WriteBatch()
        batch.put([0xff, 0x00], forKey: StorageKey("k"), in: Keyspace(1))
        batch.put([0xff], forKey: StorageKey("k"), in: Keyspace(2))
        try store.commit(batch)
        let report = Database.checkIntegrity(of: store.snapshot())
        XCTAssertTrue(report.isClean, "\(report)")
        XCTAssertTrue(report.notes.contains { $0.contains("not an object database") })
    }

    func testObjectsWithoutCatalogAreReported() throws {
        let report = try check { _, batch in batch.delete(StorageKey("catalog"), in: Keyspace(0)) }
        XCTAssertEqual(kinds(report), [.catalog])
    }

    func testUndecodableCatalogIsReported() throws {
        let report = try check { _, batch in batch.put(Array("{".utf8), forKey: StorageKey("catalog"), in: Keyspace(0)) }
        XCTAssertEqual(kinds(report), [.catalog])
        XCTAssertTrue((report.problems.first?.message ?? "no problem").contains("cannot be read"))
    }

    // MARK: Keyspaces

    func testKeyspaceOfNoClassIsReported() throws {
        let report = try check { _, batch in batch.put([1, 0], forKey: StorageKey("x"), in: Keyspace(99)) }
        XCTAssertEqual(kinds(report), [.unknownClass])
    }

    func testRecordInReservedKeyspaceIsReported() throws {
        let report = try check { _, batch in batch.put([1, 0], forKey: StorageKey("x"), in: Keyspace(5)) }
        XCTAssertEqual(kinds(report), [.reservedKeyspace])
    }

    func testTopLevelRecordOfEmbeddedClassIsReported() throws {
        let report = try check { snapshot, batch in
            batch.put([1, 0], forKey: StorageKey("x"), in: Keyspace(try classID("Place", snapshot)))
        }
        XCTAssertEqual(kinds(report), [.recordInEmbeddedClass])
        XCTAssertTrue((report.problems.first?.message ?? "no problem").contains("Place"))
    }

    // MARK: Object records

    func testUndecodableObjectRecordIsReportedNotTrapped() throws {
        let report = try check { snapshot, batch in
            batch.put([1, 5, 1], forKey: StorageKey("Max"), in: Keyspace(try classID("Pet", snapshot)))
        }
        XCTAssertTrue(kinds(report).contains(.undecodableRecord))
        XCTAssertTrue(report.problems.contains { $0.kind == .undecodableRecord && $0.message.hasPrefix("Pet Max: ") })
    }

    func testUnknownPropertyIdIsReported() throws {
        let report = try check { snapshot, batch in
            let keyspace = Keyspace(try classID("Pet", snapshot))
            let name = try propertyID("Pet", "name", snapshot)
            batch.put([1, 2, name, 6, 3] + Array("Max".utf8) + [99, 0], forKey: StorageKey("Max"), in: keyspace)
        }
        XCTAssertEqual(kinds(report), [.unknownProperty])
    }

    func testObjectStoredUnderAnotherPrimaryKeyIsReported() throws {
        let report = try check { snapshot, batch in
            let keyspace = Keyspace(try classID("Pet", snapshot))
            let name = try propertyID("Pet", "name", snapshot)
            batch.put([1, 1, name, 6, 3] + Array("Zoe".utf8), forKey: StorageKey("Max"), in: keyspace)
        }
        XCTAssertEqual(kinds(report), [.primaryKeyMismatch])
    }

    func testEmbeddedValueNamingATopLevelClassIsReported() throws {
        let report = try check { snapshot, batch in
            let id = try propertyID("Owner", "id", snapshot)
            let home = try propertyID("Owner", "home", snapshot)
            let pet = UInt8(try classID("Pet", snapshot))
            batch.put([1, 2, id, 3, 18, home, 16, pet, 0], forKey: ownerKey(9), in: Keyspace(try classID("Owner", snapshot)))
        }
        XCTAssertEqual(kinds(report), [.badEmbeddedClass])
    }

    func testLinkToAnEmbeddedClassIsReported() throws {
        let report = try check { snapshot, batch in
            let id = try propertyID("Owner", "id", snapshot)
            let pet = try propertyID("Owner", "pet", snapshot)
            let place = UInt8(try classID("Place", snapshot))
            batch.put([1, 2, id, 3, 18, pet, 12, place, 1, 0x41], forKey: ownerKey(9), in: Keyspace(try classID("Owner", snapshot)))
        }
        XCTAssertTrue(report.problems.contains { $0.kind == .danglingLink && $0.message.contains("not a top-level class") }, "\(report)")
    }

    func testTwoEmbeddedObjectsOfAListWithOneIdentityAreReported() throws {
        let report = try check { snapshot, batch in
            let id = try propertyID("Owner", "id", snapshot)
            let pastHomes = try propertyID("Owner", "pastHomes", snapshot)
            let place = UInt8(try classID("Place", snapshot))
            let home: [UInt8] = [17, place, 5, 0]   // an embedded Place with identity 5, no fields
            batch.put([1, 2, id, 3, 18, pastHomes, 13, 2] + home + home, forKey: ownerKey(9), in: Keyspace(try classID("Owner", snapshot)))
        }
        XCTAssertEqual(kinds(report), [.duplicateEmbeddedIdentity])
    }

    func testDeleteThroughADatabaseWithoutTheLinkingClassLeavesNoProblem() throws {
        try populate()
        var configuration = Database.Configuration(directory: URL(fileURLWithPath: Self.directory), objectTypes: [Dog.self])
        configuration.storageOptions.fileSystem = fileSystem
        let dogsOnly = try Database(configuration: configuration)
        try dogsOnly.write { try dogsOnly.delete(XCTUnwrap(dogsOnly.objects(Dog.self).first)) }
        let report = dogsOnly.checkIntegrity()
        XCTAssertEqual(report.objectsChecked, 11, "Rover is gone")
        XCTAssertTrue(report.isClean, "\(report)")
    }

    func testLinkToADeletedObjectIsReported() throws {
        let report = try check { snapshot, batch in
            batch.delete(StorageKey("Max"), in: Keyspace(try classID("Pet", snapshot)))
        }
        XCTAssertEqual(kinds(report), [.danglingLink])
        XCTAssertTrue((report.problems.first?.message ?? "no problem").contains("Owner"), (report.problems.first?.message ?? "no problem"))
        XCTAssertTrue((report.problems.first?.message ?? "no problem").contains("Pet Max, which does not exist"), (report.problems.first?.message ?? "no problem"))
    }

    // MARK: Backlinks

    func testEveryKindOfLinkWithoutItsBacklinkIsReported() throws {
        let report = try check { snapshot, batch in
            for key in snapshot.keys(in: Keyspace(1)) { batch.delete(key, in: Keyspace(1)) }
        }
        XCTAssertEqual(kinds(report), [.missingBacklink])
        XCTAssertEqual(report.problems.count, 9)
        for property in ["pet", "pets", "favorites", "byName", "extra", "home", "pastHomes"] {
            XCTAssertTrue(report.problems.contains { $0.message.contains("through Owner.\(property),") }, property)
        }
        XCTAssertTrue(report.problems.contains { $0.message.contains("through Person.dog,") })
    }

    func testBacklinkRecordOfAnotherTargetIsReportedBothWays() throws {
        let report = try check { snapshot, batch in
            let pet = try classID("Pet", snapshot)
            let rexRecord = try XCTUnwrap(try snapshot.value(for: backlinkKey(pet, StorageKey("Rex")), in: Keyspace(1)))
            batch.put(rexRecord, forKey: backlinkKey(pet, StorageKey("Bo")), in: Keyspace(1))
        }
        XCTAssertEqual(kinds(report), [.missingBacklink, .extraBacklink])
        XCTAssertEqual(report.problems.filter { $0.kind == .extraBacklink }.count, 2, "Ann through pet and pets")
        XCTAssertTrue(report.problems.contains { $0.kind == .missingBacklink && $0.message.contains("through Owner.favorites") })
    }

    func testUndecodableBacklinkRecordIsReported() throws {
        let report = try check { snapshot, batch in
            batch.put([0xff], forKey: backlinkKey(try classID("Pet", snapshot), StorageKey("Rex")), in: Keyspace(1))
        }
        XCTAssertEqual(kinds(report), [.undecodableBacklinks])
    }

    // MARK: Secondary indexes

    func testIndexMissingAnEntryForOneObjectIsReported() throws {
        let report = try check { snapshot, batch in
            let zedEntries = nameEntries("Zed", snapshot)
            XCTAssertEqual(zedEntries.count, 2, "one entry per object")
            batch.delete(zedEntries[0], in: Keyspace(2))
        }
        XCTAssertEqual(kinds(report), [.missingIndexEntry])
        XCTAssertEqual(report.problems.count, 1)
        XCTAssertTrue((report.problems.first?.message ?? "").contains("Person.name = string(\"Zed\")"), "\(report)")
    }

    func testIndexEntryForAnObjectWithAnotherValueIsReported() throws {
        let report = try check { snapshot, batch in
            let amyEntry = try XCTUnwrap(nameEntries("Amy", snapshot).first)
            let zed = try XCTUnwrap(personKeys(named: "Zed", snapshot).first)
            let amyPrefix = amyEntry.bytes.dropLast(12)   // the entry without Amy's ObjectId key
            batch.put([], forKey: StorageKey(amyPrefix + zed.bytes), in: Keyspace(2))
        }
        XCTAssertEqual(kinds(report), [.extraIndexEntry])
        XCTAssertTrue((report.problems.first?.message ?? "no problem").contains("which holds another value"), (report.problems.first?.message ?? "no problem"))
    }

    func testIndexedValueWithoutIndexEntryIsReported() throws {
        let report = try check { snapshot, batch in
            batch.delete(try XCTUnwrap(nameEntries("Amy", snapshot).first), in: Keyspace(2))
        }
        XCTAssertEqual(kinds(report), [.missingIndexEntry])
        XCTAssertTrue((report.problems.first?.message ?? "no problem").contains("Person.name"), (report.problems.first?.message ?? "no problem"))
    }

    func testIndexEntryWithAValueIsReported() throws {
        let report = try check { snapshot, batch in
            batch.put([5], forKey: try XCTUnwrap(nameEntries("Amy", snapshot).first), in: Keyspace(2))
        }
        XCTAssertTrue(kinds(report).contains(.undecodableIndexEntry), "\(report)")
    }

    func testIndexEntryKeyWithAMalformedValueIsReported() throws {
        let report = try check { snapshot, batch in
            let amyEntry = try XCTUnwrap(nameEntries("Amy", snapshot).first)
            // The class and property ids, the string tag and "Am" with no terminator.
            batch.put([], forKey: StorageKey(Array(amyEntry.bytes.prefix(11))), in: Keyspace(2))
        }
        XCTAssertEqual(kinds(report), [.undecodableIndexEntry])
    }

    func testIndexEntryOfAPropertyThatIsNotIndexedIsReported() throws {
        let report = try check { snapshot, batch in
            let amyEntry = try XCTUnwrap(nameEntries("Amy", snapshot).first)
            var bytes = amyEntry.bytes
            bytes[7] = try propertyID("Person", "height", snapshot)
            batch.put([], forKey: StorageKey(bytes), in: Keyspace(2))
        }
        XCTAssertEqual(kinds(report), [.undecodableIndexEntry])
        XCTAssertTrue((report.problems.first?.message ?? "").contains("Person.height"), "\(report)")
    }

    // MARK: A directory on disk

    func testDirectoryIsCheckedReadOnly() throws {
        let directory = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("strata-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let db = try Database(configuration: .init(directory: directory, objectTypes: [Dog.self, Person.self]))
        try db.write {
            let person = Person()
            person.dog = Dog()
            try db.add(person)
        }
        // A writer holds the directory's lock; the read-only check does not need it.
        let report = try Database.checkIntegrity(directory: directory)
        XCTAssertTrue(report.isClean, "\(report)")
        XCTAssertEqual(report.objectsChecked, 2)
    }

    func testMissingDirectoryIsNotFound() throws {
        XCTAssertThrowsError(try Database.checkIntegrity(directory: URL(fileURLWithPath: "/nonexistent/strata"))) { error in
            XCTAssertEqual((error as? StrataError)?.code, .notFound)
        }
    }
}
