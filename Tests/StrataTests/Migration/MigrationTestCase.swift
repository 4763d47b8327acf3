import Foundation
@_spi(Testing) import StrataStorage
import XCTest

@_spi(Testing) @testable import Strata

/// Opens the V1/V2 models on an in-memory file system and fills V1 with a known set of objects.
class MigrationTestCase: XCTestCase {
    var fileSystem: MemoryFileSystem!

    override func setUp() {
        fileSystem = MemoryFileSystem()
    }

    override func tearDown() {
        fileSystem = nil
    }

    func configuration(_ types: [ObjectBase.Type], version: UInt64, block: MigrationBlock? = nil) -> Database.Configuration {
        var configuration = Database.Configuration(directory: URL(fileURLWithPath: "/db"), objectTypes: types, schemaVersion: version)
        configuration.storageOptions.fileSystem = fileSystem
        configuration.storageOptions.segmentSize = 4096
        configuration.migrationBlock = block
        return configuration
    }

    /// Ann Lee (30, no nickname, score 7, dog Rex, dogs Rex and Fido, lives in Lyon), Bob Ray
    /// (40, "B", score 3, dog Fido, dogs Fido, Paris); Old Joe, retired, with Rex.
    func fillV1() throws {
        let db = try Database(configuration: configuration(V1.types, version: 1))
        try db.write {
            let rex = V1.Dog(), fido = V1.Dog()
            (rex.name, rex.age, fido.name, fido.age) = ("Rex", 5, "Fido", 2)
            for (id, first, last, age, nickname, score, dog, dogs, city) in [
                (1, "Ann", "Lee", 30, nil, 7, rex, [rex, fido], "Lyon"), (2, "Bob", "Ray", 40, "B", 3, fido, [fido], "Paris"),
            ] as [(Int, String, String, Int, String?, Int, V1.Dog, [V1.Dog], String)] {
                let person = V1.Person()
                (person._id, person.firstName, person.lastName, person.yearsSinceBirth) = (id, first, last, age)
                (person.nickname, person.score, person.dog) = (nickname, score, dog)
                person.dogs.append(objectsIn: dogs)
                let address = V1.Address()
                address.city = city
                person.address = address
                try db.add(person)
            }
            let joe = V1.Retired()
            (joe.name, joe.dog) = ("Old Joe", rex)
            try db.add(joe)
        }
    }

    /// The contract's migration: rename, combine, convert, delete a class, create an object.
    func contractBlock(calls: Locked<Int>? = nil) -> MigrationBlock {
        { migration, oldSchemaVersion in
            calls?.withLock { $0 += 1 }
            guard oldSchemaVersion < 2 else { return }
            migration.renameProperty(onType: "Person", from: "yearsSinceBirth", to: "age")
            migration.enumerateObjects(ofType: "Person") { oldObject, newObject in
                let first = oldObject?["firstName"] as? String ?? ""
                let last = oldObject?["lastName"] as? String ?? ""
                newObject?["name"] = "\(first) \(last)"
                newObject?["score"] = "\(oldObject?["score"] as? Int ?? 0)"
            }
            migration.deleteData(forType: "Retired")
            migration.create("Dog", value: ["name": "Migrated"])
        }
    }

    /// Fails unless the database's objects and indexes are consistent.
    func assertClean(_ db: Database, file: StaticString = #filePath, line: UInt = #line) {
        let report = db.checkIntegrity()
        XCTAssertTrue(report.isClean, report.description, file: file, line: line)
    }

    /// The error `body` throws, as a `StrataError`.
    func strataError(_ body: () throws -> Void, file: StaticString = #filePath, line: UInt = #line) -> StrataError? {
        do {
            try body()
            XCTFail("expected an error", file: file, line: line)
        } catch let error as StrataError {
            return error
        } catch {
            XCTFail("expected a StrataError, got \(error)", file: file, line: line)
        }
        return nil
    }
}
