import Foundation
@_spi(Testing) import StrataStorage
import XCTest

@_spi(Testing) @testable import Strata

/// Realm's configuration options: in-memory databases, the default configuration and
/// directory, a seed copied in, compaction on launch, and the limit on active versions.
final class ConfigurationTests: DatabaseTestCase {
    private func addDog(_ name: String, to db: Database) throws {
        try db.write {
            let dog = Dog()
            dog.name = name
            try db.add(dog)
        }
    }

    func testInMemoryDatabasesShareByIdentifierAndVanishWithTheirLastDatabase() throws {
        let identifier = "cache-\(UUID().uuidString)"
        var configuration = Database.Configuration(inMemoryIdentifier: identifier, objectTypes: [Dog.self])
        configuration.schemaVersion = 1
        do {
            let first = try Database(configuration: configuration)
            try addDog("Rex", to: first)
            let second = try Database(configuration: configuration)
            XCTAssertEqual(second.objects(Dog.self).map(\.name), ["Rex"], "the same identifier shares the objects")
            let other = try Database(configuration: .init(inMemoryIdentifier: identifier + "-other", objectTypes: [Dog.self]))
            XCTAssertEqual(other.objects(Dog.self).count, 0, "another identifier is another database")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: configuration.directory.path), "nothing touches the disk")
        let again = try Database(configuration: configuration)
        XCTAssertEqual(again.objects(Dog.self).count, 0, "the objects went with the last database")
    }

    func testTheDefaultConfigurationOpensWithDatabaseInit() throws {
        let saved = Database.Configuration.defaultConfiguration
        setenv("XDG_DATA_HOME", directory.path, 1)
        defer {
            unsetenv("XDG_DATA_HOME")
            Database.Configuration.defaultConfiguration = saved
        }
        XCTAssertEqual(Database.Configuration.defaultDirectory.deletingLastPathComponent().deletingLastPathComponent().path, directory.path)
        XCTAssertEqual(Database.Configuration.defaultDirectory.lastPathComponent, "default")
        XCTAssertThrowsError(try Database()) { XCTAssertEqual(($0 as? StrataError)?.code, .invalidSchema) }
        Database.Configuration.defaultConfiguration = .init(objectTypes: [Dog.self])
        try addDog("Rex", to: try Database())
        XCTAssertEqual(try Database().objects(Dog.self).map(\.name), ["Rex"])
        XCTAssertTrue(FileManager.default.fileExists(atPath: Database.Configuration.defaultDirectory.appendingPathComponent("MANIFEST").path))
    }

    func testASeedIsCopiedOnlyWhereNoDatabaseIsYet() throws {
        let seed = directory.appendingPathComponent("seed"), target = directory.appendingPathComponent("app")
        try addDog("Seeded", to: try Database(configuration: .init(directory: seed, objectTypes: [Dog.self])))
        var configuration = Database.Configuration(directory: target, objectTypes: [Dog.self])
        configuration.seedFilePath = seed
        do {
            let db = try Database(configuration: configuration)
            XCTAssertEqual(db.objects(Dog.self).map(\.name), ["Seeded"])
            try addDog("Own", to: db)
        }
        let reopened = try Database(configuration: configuration)
        XCTAssertEqual(Set(reopened.objects(Dog.self).map(\.name)), ["Seeded", "Own"], "an existing database is not replaced")
        configuration.directory = directory.appendingPathComponent("other")
        configuration.seedFilePath = directory.appendingPathComponent("missing")
        XCTAssertThrowsError(try Database(configuration: configuration)) { XCTAssertEqual(($0 as? StrataError)?.code, .notFound) }
    }

    /// A seeded configuration (seed "Seeded") for the directory `app`.
    private func seededConfiguration() throws -> Database.Configuration {
        let seed = directory.appendingPathComponent("seed")
        try addDog("Seeded", to: try Database(configuration: .init(directory: seed, objectTypes: [Dog.self])))
        var configuration = Database.Configuration(directory: directory.appendingPathComponent("app"), objectTypes: [Dog.self])
        configuration.seedFilePath = seed
        return configuration
    }

    func testASeedIsNotCopiedIntoADirectoryHoldingOtherFiles() throws {
        let configuration = try seededConfiguration()
        let target = configuration.directory
        try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
        let notes = target.appendingPathComponent("notes.txt")
        try Data("mine".utf8).write(to: notes)
        XCTAssertThrowsError(try Database(configuration: configuration)) { error in
            XCTAssertEqual((error as? StrataError)?.code, .invalidArgument)
            XCTAssertEqual((error as? StrataError)?.file, target.path)
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: target.path), ["notes.txt"], "nothing deleted or copied")
        XCTAssertEqual(try Data(contentsOf: notes), Data("mine".utf8))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted(), ["app", "seed"], "no staged copy left")
    }

    func testASeedIsNotCopiedOverAFileInPlaceOfTheDirectory() throws {
        let configuration = try seededConfiguration()
        try Data("mine".utf8).write(to: configuration.directory)
        XCTAssertThrowsError(try Database(configuration: configuration)) { error in
            XCTAssertEqual((error as? StrataError)?.code, .invalidArgument)
        }
        XCTAssertEqual(try Data(contentsOf: configuration.directory), Data("mine".utf8))
    }

    func testASeedIsCopiedIntoAnEmptyDirectory() throws {
        let configuration = try seededConfiguration()
        try FileManager.default.createDirectory(at: configuration.directory, withIntermediateDirectories: true)
        XCTAssertEqual(try Database(configuration: configuration).objects(Dog.self).map(\.name), ["Seeded"])
    }

    func testOpenWithHintsReadsTheHintsOfEverySegmentAClosedDatabaseSealed() throws {
        var configuration = Database.Configuration(directory: directory, objectTypes: [Dog.self])
        configuration.openWithHints = true
        configuration.storageOptions.segmentSize = 16 << 10
        do {
            let db = try Database(configuration: configuration)
            for round in 0..<10 {
                try db.write {
                    for i in 0..<40 {
                        let dog = Dog()
                        dog.name = "dog \(round)-\(i)"
                        try db.add(dog)
                    }
                }
            }
        }
        let hints = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".hint") }
        let segments = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".seg") }
        XCTAssertGreaterThan(hints.count, 1)
        XCTAssertEqual(hints.count, segments.count - 1, "every segment but the new active one has a hint")
        let db = try Database(configuration: configuration)
        XCTAssertEqual(db.shared.store.recoveryEvents.filter { $0.kind == .hintIgnored }, [])
        XCTAssertEqual(db.objects(Dog.self).count, 400)
        XCTAssertEqual(Set(db.objects(Dog.self).map(\.name)).count, 400)
    }

    func testShouldCompactOnLaunchIsAskedOnceWithTheFileSizes() throws {
        var configuration = Database.Configuration(directory: directory, objectTypes: [Dog.self])
        configuration.storageOptions.segmentSize = 4096
        do {
            let db = try Database(configuration: configuration)
            let dog = Dog()
            try db.write { try db.add(dog) }
            for round in 0..<300 { try db.write { dog.name = "name \(round) " + String(repeating: "x", count: 64) } }
        }
        let asked = Locked<[(Int, Int)]>([])
        configuration.shouldCompactOnLaunch = { total, used in
            asked.withLock { $0.append((total, used)) }
            return used < total / 2
        }
        let db = try Database(configuration: configuration)
        _ = try Database(configuration: configuration)
        let calls = asked.withLock { $0 }
        XCTAssertEqual(calls.count, 1, "asked on the first open of the process only")
        XCTAssertLessThan(calls[0].1, calls[0].0 / 2)
        XCTAssertLessThan(db.shared.store.statistics().totalBytes, calls[0].0 / 2, "compacted")
        XCTAssertEqual(db.objects(Dog.self).first?.name.hasPrefix("name 299"), true)
    }

    /// Realm's `testShouldCompactOnLaunch`: a database far smaller than a segment (all of it in
    /// the active one) shrinks when compacted at launch, and keeps what was not deleted.
    func testShouldCompactOnLaunchShrinksADatabaseSmallerThanASegment() throws {
        var configuration = Database.Configuration(directory: directory, objectTypes: [Dog.self])
        do {
            let db = try Database(configuration: configuration)
            try db.write {
                for i in 0..<1000 { try db.add(Dog(value: ["name": "dog \(i) " + String(repeating: "x", count: 100)])) }
            }
            try db.write { try db.delete(Array(db.objects(Dog.self).filter { !$0.name.hasPrefix("dog 1 ") })) }
            XCTAssertEqual(db.shared.store.statistics().segments, 1)
        }
        let sizes = Locked<(total: Int, used: Int)?>(nil)
        configuration.shouldCompactOnLaunch = { total, used in
            sizes.withLock { $0 = (total, used) }
            return true
        }
        let db = try Database(configuration: configuration)
        let before = try XCTUnwrap(sizes.withLock { $0 })
        XCTAssertLessThan(db.shared.store.statistics().totalBytes, before.total / 10, "compacted")
        XCTAssertEqual(db.objects(Dog.self).map(\.name), ["dog 1 " + String(repeating: "x", count: 100)])
    }

    func testAWriteThatWouldKeepTooManyVersionsAliveThrows() throws {
        var configuration = Database.Configuration(directory: directory, objectTypes: [Dog.self])
        configuration.maximumNumberOfActiveVersions = 2
        let db = try Database(configuration: configuration)
        try addDog("A", to: db)
        var frozen: [Database] = [db.freeze()]
        try addDog("B", to: db)
        frozen.append(db.freeze())
        XCTAssertThrowsError(try addDog("C", to: db)) { XCTAssertEqual(($0 as? StrataError)?.code, .tooManyActiveVersions) }
        frozen.removeAll()
        try addDog("C", to: db)
        XCTAssertEqual(db.objects(Dog.self).count, 3)
    }
}
