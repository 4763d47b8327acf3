import Foundation
import XCTest
@testable import Strata
import StrataStorage

/// A class whose stored form grows a property: `Gauge` with `reading` only, then with `unit`.
final class GaugeV1: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var unit: String
    @Persisted var reading: Double
    override class func className() -> String { "Gauge" }
}

final class GaugeV2: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var reading: Double
    @Persisted var label: String = "none"
    override class func className() -> String { "Gauge" }
}

/// Iterating `Results`: objects handed out by a walk decode their record when a property is
/// first read, and stay consistent with the version the walk started at.
final class ScanTests: DatabaseTestCase {
    private func addCounters(_ db: Database, _ count: Int) throws -> [Counter] {
        var counters: [Counter] = []
        try db.write {
            for i in 0..<count {
                let counter = Counter(value: ["label": "c\(i)", "value": Int32(i)])
                try db.add(counter)
                counters.append(counter)
            }
        }
        return counters
    }

    func testAWalkYieldsEveryObjectWithAllItsProperties() throws {
        let db = try open()
        _ = try addCounters(db, 50)
        var seen: [Int32: String] = [:]
        for counter in db.objects(Counter.self) {
            // The first read decodes one field, the second all of them: both must agree.
            let value = counter.value
            let label = counter.label
            XCTAssertEqual(counter.value, value)
            seen[value] = label
        }
        XCTAssertEqual(seen.count, 50)
        for (value, label) in seen { XCTAssertEqual(label, "c\(value)") }
    }

    func testAWalkIsStableAcrossAWriteInsideIt() throws {
        let db = try open()
        let added = try addCounters(db, 10)
        let deletedLabel = added[7].label
        var labels: [String] = []
        var walked = 0
        for counter in db.objects(Counter.self) {
            walked += 1
            if walked == 1 {
                try db.write {
                    try db.delete(added[7])
                    for (i, other) in added.enumerated() where i != 7 { other.value += 100 }
                    try db.add(Counter(value: ["label": "late", "value": Int32(-1)]))
                }
            }
            if counter.isInvalidated { continue }
            // Objects reached after the write read its values, not the walk's version.
            XCTAssertGreaterThanOrEqual(counter.value, 100, counter.label)
            labels.append(counter.label)
        }
        XCTAssertEqual(walked, 10, "the walk yields the objects of the version it started at")
        XCTAssertEqual(labels.count, 9)
        XCTAssertFalse(labels.contains(deletedLabel))
        XCTAssertFalse(labels.contains("late"))
        XCTAssertEqual(db.objects(Counter.self).count, 10)
    }

    func testAScannedObjectReadsTheLatestCommit() throws {
        let db = try open()
        _ = try addCounters(db, 3)
        let scanned = Array(db.objects(Counter.self))
        let other = db.freeze().thaw()
        try db.write { for counter in scanned { counter.value = 42 } }
        other.refresh()
        for counter in other.objects(Counter.self) { XCTAssertEqual(counter.value, 42) }
        for counter in scanned { XCTAssertEqual(counter.value, 42) }
    }

    func testCountMatchesTheObjectsInsideAndOutsideAWrite() throws {
        let db = try open()
        let added = try addCounters(db, 5)
        XCTAssertEqual(db.objects(Counter.self).count, 5)
        try db.write {
            try db.delete(added[0])
            try db.add(Counter())
            try db.add(Counter())
            XCTAssertEqual(db.objects(Counter.self).count, 6)
            XCTAssertEqual(Array(db.objects(Counter.self)).count, 6)
        }
        XCTAssertEqual(db.objects(Counter.self).count, 6)
        let frozen = db.freeze()
        try db.write { try db.add(Counter()) }
        XCTAssertEqual(frozen.objects(Counter.self).count, 6)
        XCTAssertEqual(Array(frozen.objects(Counter.self)).count, 6)
        XCTAssertEqual(db.objects(Counter.self).count, 7)
    }

    func testAWalkInsideAWriteSeesItsChanges() throws {
        let db = try open()
        let added = try addCounters(db, 4)
        try db.write {
            added[1].value = 99
            try db.delete(added[2])
            try db.add(Counter(value: ["label": "new", "value": Int32(7)]))
            let walked = db.objects(Counter.self).map { "\($0.label)=\($0.value)" }.sorted()
            XCTAssertEqual(walked, ["c0=0", "c1=99", "c3=3", "new=7"])
        }
    }

    func testQueryMatchesReadEveryPropertyNotOnlyTheQueriedOnes() throws {
        let db = try open()
        _ = try addCounters(db, 20)
        // The query decodes `value` alone; its matches must still read their labels.
        let matches = db.objects(Counter.self).where { $0.value >= 15 }.sorted(by: \.value, ascending: false)
        XCTAssertEqual(matches.map(\.label), ["c19", "c18", "c17", "c16", "c15"])
        let byLabel = db.objects(Counter.self).where { $0.value < 3 }.sorted(by: \.label)
        XCTAssertEqual(byLabel.map(\.value), [0, 1, 2])
        XCTAssertEqual(db.objects(Counter.self).filter("label BEGINSWITH %@", "c1").map(\.value).sorted(),
                       [1, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19])
    }

    func testFrozenResultsCanBeReadFromManyThreadsAtOnce() throws {
        let db = try open()
        _ = try addCounters(db, 200)
        // Frozen results are safe from any thread, a fact of their value the type system cannot
        // see (`Results` is one type for live and frozen results), so the test says so.
        nonisolated(unsafe) let frozen = db.objects(Counter.self).where { $0.value >= 100 }.sorted(by: \.value).freeze()
        nonisolated(unsafe) let all = db.objects(Counter.self).freeze()
        let failures = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            // First touches race to evaluate the shared cache.
            let values = frozen.map(\.value)
            let labels = Set(all.map(\.label))
            if values != (100..<200).map(Int32.init) || frozen.count != 100 || frozen[0].value != 100
                || labels.count != 200 || all.count != 200 {
                failures.withLock { $0 += 1 }
            }
        }
        XCTAssertEqual(failures.withLock { $0 }, 0)
    }

    func testRecordsOfAnOlderSchemaReadWithDefaults() throws {
        do {
            let db = try open([GaugeV1.self])
            try db.write {
                for i in 0..<3 { try db.add(GaugeV1(value: ["id": i, "unit": "kPa", "reading": Double(i) / 2])) }
            }
        }
        // `unit` is gone (its fields are skipped), `label` is new (its default is read).
        let db = try open([GaugeV2.self], schemaVersion: 2)
        var readings: [Double] = []
        for gauge in db.objects(GaugeV2.self) {
            XCTAssertEqual(gauge.label, "none")
            readings.append(gauge.reading)
        }
        for gauge in db.objects(GaugeV2.self) {
            readings.append(gauge.reading)
            XCTAssertEqual(gauge.label, "none")
        }
        XCTAssertEqual(readings.sorted(), [0, 0, 0.5, 0.5, 1, 1])
    }
}
