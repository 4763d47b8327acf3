import Foundation
import Strata
import XCTest

/// A temporary directory per test, removed afterwards, and a database of the tour's models in it.
class ContractTestCase: XCTestCase {
    var directory: URL!

    override func setUpWithError() throws {
        directory = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("strata-contract-\(UUID().uuidString)")
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    /// A database of Dog, Person and Address in `directory`.
    func openTourDatabase() throws -> Database {
        try Database(configuration: Database.Configuration(
            directory: directory, objectTypes: [Dog.self, Person.self, Address.self], schemaVersion: 1))
    }
}
