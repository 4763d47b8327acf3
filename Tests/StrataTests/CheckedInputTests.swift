import Foundation
import StrataStorage
import XCTest

@testable import Strata

/// Every entry point that traps on a caller's mistake, as Realm's raise exceptions, has a
/// checking form that returns a typed error instead, for input that comes from outside.
final class CheckedInputTests: DatabaseTestCase {
    func testSortingByAnUnknownNameIsAnError() throws {
        let db = try open()
        try addFourDogs(to: db)
        XCTAssertEqual(try db.objects(Dog.self).sorted(checkingKeyPath: "age").map(\.name), ["Rover", "Rex", "Fido", "Rusty"])
        XCTAssertThrowsError(try db.objects(Dog.self).sorted(checkingKeyPath: "weight")) { error in
            XCTAssertEqual((error as? StrataError)?.code, .invalidQuery)
        }
    }

    func testAnInvalidPredicateIsAnError() throws {
        let db = try open()
        XCTAssertThrowsError(try db.objects(Dog.self).filter(checking: "age >")) { error in
            XCTAssertEqual((error as? StrataError)?.code, .invalidQuery)
        }
    }

    func testBadObjectIdBytesAndDecimalStringsAreRefused() {
        XCTAssertNil(ObjectId(validatingBytes: [1, 2, 3]))
        XCTAssertThrowsError(try Decimal128(string: "1.2.3"))
    }
}
