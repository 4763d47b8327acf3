import Foundation
import StrataStorage
import XCTest

@testable import Strata

/// `Database.Configuration` is `Sendable` as the compiler checks it: its migration block is
/// `@Sendable`, so a configuration that carries one may be handed to another task, which
/// migrates there.
final class ConfigurationSendableTests: DatabaseTestCase {
    /// Compiles only when `T` is `Sendable`.
    private func requireSendable<T: Sendable>(_: T.Type) {}

    func testAMigrationBlockIsSendableAndRunsInTheTaskThatOpens() throws {
        requireSendable(MigrationBlock.self)
        requireSendable(Database.Configuration.self)
        _ = try open([Dog.self], schemaVersion: 1)
        let versions = Locked<[UInt64]>([])
        var configuration = Database.Configuration(directory: directory, objectTypes: [Dog.self], schemaVersion: 2)
        configuration.migrationBlock = { _, oldSchemaVersion in versions.withLock { $0.append(oldSchemaVersion) } }
        let opened = try waitForDetachedTask { [configuration] in
            try Database(configuration: configuration).configuration.schemaVersion
        }
        XCTAssertEqual(opened, 2)
        XCTAssertEqual(versions.withLock { $0 }, [1], "the block ran once, with the stored version")
    }
}
