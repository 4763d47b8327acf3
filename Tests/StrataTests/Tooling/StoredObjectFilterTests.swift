import Foundation
@_spi(Testing) import StrataStorage
import XCTest

@_spi(Tooling) @_spi(Testing) @testable import Strata

/// `strata inspect --where` (StoredObjectFilter) over the four dogs of `addFourDogs`.
final class StoredObjectFilterTests: DatabaseTestCase {
    /// The names of the dogs `predicate` matches, in key order.
    private func names(_ predicate: String) throws -> [String] {
        let db = try open()
        if db.objects(Dog.self).isEmpty { try addFourDogs(to: db) }
        let snapshot = db.storeSnapshot
        let schema = try StoredSchema.load(from: snapshot)
        let dogs = try XCTUnwrap(schema.storedClass(named: "Dog"))
        let filter = try StoredObjectFilter(predicate, for: dogs)
        var names: [String] = []
        try schema.forEachDocument(of: dogs, in: snapshot, where: filter) {
            names.append($0["name"]?.stringValue ?? "?")
            return true
        }
        return names.sorted()
    }

    func testComparisonsOfNumbersAndStrings() throws {
        XCTAssertEqual(try names("age > 3"), ["Fido", "Rusty"])
        XCTAssertEqual(try names("age >= 3 AND age < 9"), ["Fido", "Rex"])
        XCTAssertEqual(try names("age == 1 OR name == 'Rusty'"), ["Rover", "Rusty"])
        XCTAssertEqual(try names("age <= 2.5"), ["Rover"])
        XCTAssertEqual(try names("age != -1 && NOT (name BEGINSWITH \"R\")"), ["Fido"])
        XCTAssertEqual(try names("name CONTAINS 'us' || name ENDSWITH 'x'"), ["Rex", "Rusty"])
        XCTAssertEqual(try names("breed == nil"), ["Fido", "Rex", "Rover", "Rusty"])
        XCTAssertEqual(try names("breed != nil"), [])
    }

    func testWhatItCannotDoIsAnInvalidQuery() throws {
        for predicate in ["weight > 3", "age > 'three'", "name > 3", "age BEGINSWITH 1", "name == nil", "age >", "(age > 3", "age > 3 extra", "_id == 3"] {
            XCTAssertThrowsError(try names(predicate), predicate) {
                XCTAssertEqual(($0 as? StrataError)?.code, .invalidQuery, predicate)
            }
        }
    }
}
