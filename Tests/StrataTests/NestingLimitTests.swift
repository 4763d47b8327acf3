import Foundation
import StrataStorage
import XCTest

@testable import Strata

/// Values nest at most `RecordCodec.maxNesting` (100) levels deep, on both sides: a write refuses
/// a deeper value with `.invalidValue`, and every value a write accepts, a read returns.
final class NestingLimitTests: DatabaseTestCase {
    private func openPets() throws -> Database { try open([Owner.self, Pet.self, Place.self]) }

    /// `levels` lists, one in another, around an Int.
    private func nested(_ levels: Int) -> AnyValue {
        (0..<levels).reduce(AnyValue.int(7)) { inner, _ in .list([inner]) }
    }

    /// How many lists are around the innermost value.
    private func depth(_ value: AnyValue) -> Int {
        var value = value, levels = 0
        while case .list(let elements) = value, let first = elements.first {
            levels += 1
            value = first
        }
        return levels
    }

    func testValueNestedSeventyLevelsReadsBackAfterReopening() throws {
        do {
            let db = try openPets()
            let owner = Owner()
            owner.id = 1
            owner.extra = nested(70)
            try db.write { try db.add(owner) }
            XCTAssertEqual(depth(owner.extra), 70)
        }
        let db = try openPets()
        XCTAssertEqual(depth(try XCTUnwrap(db.object(ofType: Owner.self, forPrimaryKey: 1)).extra), 70)
        XCTAssertNil(db.readFailure)
    }

    func testValueAtTheLimitIsStoredAndOnePastItIsRefusedWhenAdded() throws {
        let db = try openPets()
        let atLimit = Owner()
        atLimit.id = 1
        atLimit.extra = nested(RecordCodec.maxNesting)
        try db.write { try db.add(atLimit) }
        XCTAssertEqual(depth(atLimit.extra), RecordCodec.maxNesting)

        let tooDeep = Owner()
        tooDeep.id = 2
        tooDeep.extra = nested(RecordCodec.maxNesting + 1)
        XCTAssertThrowsError(try db.write { try db.add(tooDeep) }) { error in
            XCTAssertEqual((error as? StrataError)?.code, .invalidValue)
            XCTAssertTrue("\(error)".contains("Owner.extra"), "\(error)")
        }
        XCTAssertNil(db.object(ofType: Owner.self, forPrimaryKey: 2))
        XCTAssertEqual(db.objects(Owner.self).count, 1)
    }

    func testSettingAValueTooDeepFailsTheWriteAndChangesNothing() throws {
        let db = try openPets()
        let owner = Owner()
        owner.id = 1
        owner.extra = .int(1)
        try db.write { try db.add(owner) }
        XCTAssertThrowsError(try db.write {
            owner.name = "changed"
            owner.extra = nested(RecordCodec.maxNesting + 1)
        }) { error in
            XCTAssertEqual((error as? StrataError)?.code, .invalidValue)
        }
        XCTAssertEqual(owner.extra, .int(1))
        XCTAssertEqual(owner.name, "")
    }

    func testAnEnclosingMapCountsTowardsTheLimit() throws {
        // A map holding the value adds a level: 100 lists in a map is 101 levels.
        let db = try openPets()
        let owner = Owner()
        owner.id = 1
        owner.extra = .map(["deep": nested(RecordCodec.maxNesting)])
        XCTAssertThrowsError(try db.write { try db.add(owner) }) { error in
            XCTAssertEqual((error as? StrataError)?.code, .invalidValue)
        }
    }
}
