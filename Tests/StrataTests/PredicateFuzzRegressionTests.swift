import Foundation
import StrataStorage
import XCTest

@testable import Strata

/// The inputs of the predicate fuzzer's regression corpus (Fuzz/Regressions/PredicateFuzzer),
/// as unit tests.
final class PredicateFuzzRegressionTests: DatabaseTestCase {
    func testCanonicallyEquivalentStringsAreDifferentValues() throws {
        let db = try open()
        try db.write {
            try db.add(Person(value: ["name": "\u{e9}"]))          // é, one scalar
            try db.add(Person(value: ["name": "e\u{301}"]))        // e + combining acute
        }
        // The indexed query (by bytes) and a scan must agree: each matches exactly one.
        XCTAssertEqual(db.objects(Person.self).where { $0.name == "\u{e9}" }.count, 1)
        XCTAssertEqual(db.objects(Person.self).filter("name == %@ OR FALSEPREDICATE", "\u{e9}").count, 1)
        XCTAssertEqual(db.objects(Person.self).filter("NOT (name == %@)", "\u{e9}").count, 1)
    }

    func testReadingACollectionDoesNotKeepTheDatabaseAlive() throws {
        weak var weakDatabase: Database?
        do {
            let db = try Database(configuration: .init(directory: directory, objectTypes: [Owner.self, Pet.self, Place.self]))
            weakDatabase = db
            let owner = Owner(value: ["id": 1])
            try db.write { try db.add(owner) }
            _ = owner.pets.count
            _ = owner.tags.count
            _ = owner.favorites.count
            _ = owner.scores.count
        }
        XCTAssertNil(weakDatabase, "a collection read made a reference cycle")
    }
}
