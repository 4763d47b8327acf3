import Foundation
import StrataStorage
import XCTest

@testable import Strata

/// A temporary directory per test, removed afterwards, and the fixtures object-layer tests share.
class DatabaseTestCase: XCTestCase {
    var directory: URL!

    override func setUpWithError() throws {
        directory = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("strata-\(UUID().uuidString)")
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    func open(_ types: [ObjectBase.Type] = [Dog.self, Person.self, Counter.self], schemaVersion: UInt64 = 1) throws -> Database {
        try Database(configuration: .init(directory: directory, objectTypes: types, schemaVersion: schemaVersion))
    }

    /// Adds Rex (3), Rover (1), Fido (5) and Rusty (9), in one write.
    func addFourDogs(to db: Database) throws {
        try db.write {
            for (name, age) in [("Rex", 3), ("Rover", 1), ("Fido", 5), ("Rusty", 9)] {
                let dog = Dog()
                dog.name = name
                dog.age = age
                try db.add(dog)
            }
        }
    }
}
