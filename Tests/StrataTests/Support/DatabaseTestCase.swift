import Foundation
@_spi(Testing) import StrataStorage
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
        // XCTest keeps test-case instances until exit; what they hold would show as leaks
        // under `make asan`.
        directory = nil
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

    /// Adds `count` people with random names (of few kinds), heights, `large` values and
    /// optional `medium` values: many ties and some nils, for queries, sorts and aggregates.
    func addRandomPeople(to db: Database, count: Int, seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        try db.write {
            for index in 0..<count {
                let person = Person()
                person.name = ["Ann", "Bob", "Cy", "Dee", "émile"].randomElement(using: &random)! + "\(index % 7)"
                person.height = Double(Int.random(in: 0...200, using: &random)) / 2
                person.large = Int64.random(in: -50...50, using: &random)
                person.medium = Bool.random(using: &random) ? Int16.random(in: 0...9, using: &random) : nil
                person.active = Bool.random(using: &random)
                try db.add(person)
            }
        }
    }
}
