import Foundation
import XCTest

@testable import Strata

final class Measured: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted(indexed: true) var name: String
    @Persisted var label: String
    @Persisted var height: Double
    @Persisted(indexed: true) var seen: Date
    @Persisted var price: Decimal128
}

/// Equality is equality of stored bytes, the same in the index, in queries with and without an
/// index, and in the `.modified` comparison of an upsert: what a write accepts, a read returns.
final class StoredEqualityTests: DatabaseTestCase {
    private let composed = "\u{E9}"  // é
    private let decomposed = "e\u{301}"  // e + combining acute: equal to `composed` under Swift's ==

    private func openMeasured() throws -> Database { try open([Measured.self]) }

    private func add(_ db: Database, id: Int = 1, name: String = "", height: Double = 0, seen: Double = 0, price: Decimal128 = 0) throws {
        try db.write {
            let object = Measured()
            object.id = id
            object.name = name
            object.label = name
            object.height = height
            object.seen = Date(timeIntervalSinceReferenceDate: seen)
            object.price = price
            try db.add(object, update: .modified)
        }
    }

    func testIndexFollowsAStringChangedToACanonicallyEquivalentOne() throws {
        XCTAssertEqual(composed, decomposed)
        let db = try openMeasured()
        try add(db, name: composed)
        let object = try XCTUnwrap(db.object(ofType: Measured.self, forPrimaryKey: 1))
        try db.write { object.name = decomposed }
        XCTAssertTrue(object.name.utf8.elementsEqual(decomposed.utf8))
        XCTAssertEqual(db.objects(Measured.self).where { $0.name == self.decomposed }.count, 1)
        XCTAssertEqual(db.objects(Measured.self).where { $0.name == self.composed }.count, 0)
        // Without an index the query agrees.
        XCTAssertEqual(db.objects(Measured.self).where { $0.label == self.composed }.count, 1)
        try db.write { object.label = decomposed }
        XCTAssertEqual(db.objects(Measured.self).where { $0.label == self.composed }.count, 0)
        XCTAssertEqual(db.objects(Measured.self).filter("label == %@", decomposed).count, 1)
    }

    func testModifiedUpsertWritesAValueThatDiffersOnlyInItsBytes() throws {
        let db = try openMeasured()
        try add(db, name: composed, height: 0.0, price: try Decimal128(string: "1.0"))
        try add(db, name: decomposed, height: -0.0, price: try Decimal128(string: "1.00"))
        let object = try XCTUnwrap(db.object(ofType: Measured.self, forPrimaryKey: 1))
        XCTAssertTrue(object.name.utf8.elementsEqual(decomposed.utf8))
        XCTAssertEqual(object.height.sign, .minus)
        XCTAssertEqual(object.price.description, "1.00")
        XCTAssertEqual(db.objects(Measured.self).where { $0.name == self.decomposed }.count, 1, "the index was updated")
    }

    func testIndexedDateQueryAgreesWithAScanForNegativeZero() throws {
        let db = try openMeasured()
        try add(db, id: 1, seen: 0.0)
        try add(db, id: 2, seen: -0.0)
        let zero = Date(timeIntervalSinceReferenceDate: 0.0)
        let negativeZero = Date(timeIntervalSinceReferenceDate: -0.0)
        XCTAssertEqual(db.objects(Measured.self).where { $0.seen == zero }.map(\.id), [1])
        XCTAssertEqual(db.objects(Measured.self).where { $0.seen == negativeZero }.map(\.id), [2])
        XCTAssertEqual(db.objects(Measured.self).where { $0.seen >= zero && $0.seen <= zero }.count, 2, "ordering is numeric")
    }

    func testDoubleAndDecimalEqualityIsOfStoredBytesAndOrderingIsNumeric() throws {
        let db = try openMeasured()
        try add(db, id: 1, height: 0.0, price: try Decimal128(string: "1.0"))
        try add(db, id: 2, height: -0.0, price: try Decimal128(string: "1.00"))
        XCTAssertEqual(db.objects(Measured.self).where { $0.height == 0.0 }.map(\.id), [1])
        XCTAssertEqual(db.objects(Measured.self).where { $0.height == -0.0 }.map(\.id), [2])
        let one = try Decimal128(string: "1.0")
        XCTAssertEqual(db.objects(Measured.self).where { $0.price == one }.map(\.id), [1])
        XCTAssertEqual(db.objects(Measured.self).where { $0.price >= one && $0.price <= one }.count, 2)
        XCTAssertEqual(db.objects(Measured.self).filter("price == 1.00").map(\.id), [2])
    }

    func testAStringPrimaryKeyIsItsBytes() throws {
        let db = try open([Pet.self, Owner.self, Place.self])
        try db.write {
            let first = Pet()
            first.name = composed
            let second = Pet()
            second.name = decomposed
            try db.add(first)
            try db.add(second)
        }
        XCTAssertEqual(db.objects(Pet.self).count, 2)
        XCTAssertTrue(try XCTUnwrap(db.object(ofType: Pet.self, forPrimaryKey: decomposed)).name.utf8.elementsEqual(decomposed.utf8))
    }
}
