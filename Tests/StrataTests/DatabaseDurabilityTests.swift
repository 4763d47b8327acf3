import Foundation
@_spi(Testing) import Strata
import StrataStorage
import XCTest

/// Each `Database` commits with its own durability, also when another `Database` of the same
/// directory opened the shared store first.
final class DatabaseDurabilityTests: XCTestCase {
    private func open(_ fileSystem: MemoryFileSystem, _ durability: Durability) throws -> Database {
        var configuration = Database.Configuration(
            directory: URL(fileURLWithPath: "/db"), objectTypes: [Dog.self], durability: durability)
        configuration.storageOptions.fileSystem = fileSystem
        return try Database(configuration: configuration)
    }

    private func addDog(_ db: Database, _ name: String) throws {
        try db.write {
            let dog = Dog()
            dog.name = name
            try db.add(dog)
        }
    }

    func testFullDatabaseSyncsThoughTheStoreWasOpenedWithNone() throws {
        let fileSystem = MemoryFileSystem()
        let fast = try open(fileSystem, .none)
        let safe = try open(fileSystem, .full)
        try addDog(fast, "Rex")
        let before = fileSystem.syncCount
        try addDog(safe, "Fido")
        XCTAssertGreaterThan(fileSystem.syncCount, before, "a .full write returned without a sync")
        // What a power cut leaves holds Fido: only synced bytes survive.
        let crashed = fileSystem.crashImage(.dropAll)
        let reopened = try open(crashed, .full)
        XCTAssertEqual(reopened.objects(Dog.self).where { $0.name == "Fido" }.count, 1)
    }

    func testNoneDatabaseDoesNotSyncThoughTheStoreWasOpenedWithFull() throws {
        let fileSystem = MemoryFileSystem()
        let safe = try open(fileSystem, .full)
        let fast = try open(fileSystem, .none)
        try addDog(safe, "Rex")
        let before = fileSystem.syncCount
        try addDog(fast, "Fido")
        XCTAssertEqual(fileSystem.syncCount, before)
    }

    func testDatabasesOnTwoMemoryFileSystemsDoNotShareAStore() throws {
        let first = try open(MemoryFileSystem(), .full)
        let second = try open(MemoryFileSystem(), .full)
        try addDog(first, "Rex")
        XCTAssertEqual(first.objects(Dog.self).count, 1)
        XCTAssertEqual(second.objects(Dog.self).count, 0)
    }
}
