import Foundation
import XCTest

@testable import Strata

final class Readings: Object {
    @Persisted var counts: List<Int>
    @Persisted var levels: List<Double?>
    @Persisted var prices: MutableSet<Decimal128>
    @Persisted var days: List<Date>
}

/// `min()`, `max()`, `sum()` and `average()` of lists and sets of values, managed and not, as
/// Realm's: nils skipped, the sum of nothing 0, the others nil.
final class ValueCollectionAggregateTests: DatabaseTestCase {
    func testAggregatesOfManagedAndUnmanagedCollections() throws {
        let readings = Readings()
        readings.counts.append(objectsIn: [4, -2, 9])
        readings.levels.append(objectsIn: [1.5, nil, 2.5])
        readings.prices.insert(Decimal128(2))
        readings.prices.insert(Decimal128(5))
        readings.days.append(objectsIn: [Date(timeIntervalSince1970: 10), Date(timeIntervalSince1970: 5)])
        func check(_ readings: Readings, line: UInt = #line) {
            XCTAssertEqual(readings.counts.sum(), 11, line: line)
            XCTAssertEqual(readings.counts.min(), -2, line: line)
            XCTAssertEqual(readings.counts.max(), 9, line: line)
            let mean: Double? = readings.counts.average()
            XCTAssertEqual(mean, 11.0 / 3, line: line)
            XCTAssertEqual(readings.levels.sum(), 4.0, line: line)
            XCTAssertEqual(readings.levels.max(), 2.5, line: line)
            let levelMean: Double? = readings.levels.average()
            XCTAssertEqual(levelMean, 2.0, line: line)
            XCTAssertEqual(readings.prices.sum(), Decimal128(7), line: line)
            XCTAssertEqual(readings.days.min(), Date(timeIntervalSince1970: 5), line: line)
        }
        check(readings)
        let db = try open([Readings.self])
        try db.write { try db.add(readings) }
        check(try XCTUnwrap(db.objects(Readings.self).first))

        let empty = Readings()
        XCTAssertEqual(empty.counts.sum(), 0)
        XCTAssertNil(empty.counts.min())
        let none: Double? = empty.levels.average()
        XCTAssertNil(none)
    }
}
