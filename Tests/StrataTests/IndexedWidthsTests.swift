import Foundation
@_spi(Testing) import StrataStorage
import XCTest

@testable import Strata

/// Each indexed property beside an unindexed twin holding the same value.
final class WidthThing: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted(indexed: true) var i8: Int8
    @Persisted var p8: Int8
    @Persisted(indexed: true) var i16: Int16
    @Persisted var p16: Int16
    @Persisted(indexed: true) var i32: Int32?
    @Persisted var p32: Int32?
    @Persisted(indexed: true) var i64: Int64
    @Persisted var p64: Int64
    @Persisted(indexed: true) var mixed: AnyValue
    @Persisted var plain: AnyValue
}

/// `Meter` before and after its narrow integer and mixed properties were indexed.
final class MeterV1: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var level: Int8
    @Persisted var reading: AnyValue
    override class func className() -> String { "Meter" }
}

final class MeterV2: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted(indexed: true) var level: Int8
    @Persisted(indexed: true) var reading: AnyValue
    override class func className() -> String { "Meter" }
}

/// Indexes on every integer width and on `AnyValue` (seed 002 lists them as
/// indexable). An indexed query must answer as the same query on an unindexed twin property
/// (a scan), on random data, in and outside a write; the index must be what answers (a plan),
/// and the integrity check must agree with its entries.
final class IndexedWidthsTests: DatabaseTestCase {
    private static let pairs = [("i8", "p8"), ("i16", "p16"), ("i32", "p32"), ("i64", "p64"), ("mixed", "plain")]

    private func randomMixed(_ random: inout SplitMix64) -> AnyValue {
        let small = Int.random(in: -4...4, using: &random)
        switch Int.random(in: 0...11, using: &random) {
        case 0: return .none
        case 1: return .int(small)
        case 2: return .double(Double(small) + (Bool.random(using: &random) ? 0 : 0.5))
        case 3: return .float(Float(small))
        case 4: return .string("s\(small)")
        case 5: return .bool(small > 0)
        case 6: return .date(Date(timeIntervalSinceReferenceDate: Double(small)))
        case 7: return .list([.int(small), .string("s")])
        case 8: return .map(["k": .double(Double(small))])
        case 9: return .int((1 << 53) + small)
        case 10: return .double(small == 0 ? -0.0 : .nan)
        default: return .decimal128(Decimal128(small))
        }
    }

    private func randomArgument(_ random: inout SplitMix64) -> Any {
        let small = Int.random(in: -5...5, using: &random)
        switch Int.random(in: 0...7, using: &random) {
        case 0: return small
        case 1: return Double(small) + 0.5
        case 2: return Double(small)
        case 3: return "s\(small)"
        case 4: return small > 0
        case 5: return (1 << 53) + small
        case 6: return Date(timeIntervalSinceReferenceDate: Double(small))
        default: return NSNull()
        }
    }

    private func fill(_ db: Database, _ random: inout SplitMix64, ids: ClosedRange<Int>) {
        for id in ids {
            let thing = db.object(ofType: WidthThing.self, forPrimaryKey: id) ?? {
                let new = WidthThing()
                new.id = id
                db.add(checked: new)
                return new
            }()
            let n = Int.random(in: -5...5, using: &random)
            (thing.i8, thing.p8) = (Int8(n), Int8(n))
            (thing.i16, thing.p16) = (Int16(n * 300), Int16(n * 300))
            let optional: Int32? = n == 0 ? nil : Int32(n * 70_000)
            (thing.i32, thing.p32) = (optional, optional)
            (thing.i64, thing.p64) = (Int64(n) << 40, Int64(n) << 40)
            let mixed = randomMixed(&random)
            (thing.mixed, thing.plain) = (mixed, mixed)
        }
    }

    /// Runs random queries on an indexed property and its twin; returns how many ran (a query
    /// the parser refuses, a string against an integer say, is refused on both).
    @discardableResult
    private func check(_ db: Database, _ random: inout SplitMix64, round: Int) -> Int {
        var ran = 0
        for _ in 0..<80 {
            // Half the queries on the mixed pair, whose values are of many kinds.
            let (indexed, plain) = Bool.random(using: &random) ? ("mixed", "plain") : Self.pairs.randomElement(using: &random)!
            let a = randomArgument(&random), b = randomArgument(&random)
            let forms: [(String, [Any])] = [
                ("%K == %@", [a]), ("%K > %@", [a]), ("%K <= %@", [a]), ("%K >= %@ AND %K < %@", [a, b]),
                ("%K IN %@", [[a, b]]), ("%K BETWEEN {%@, %@}", [a, b]),
            ]
            let (format, arguments) = forms.randomElement(using: &random)!
            func run(_ property: String) -> Results<WidthThing>? {
                var args: [Any] = []
                var rest = arguments[...]
                for token in format.split(separator: " ") {
                    if token == "%K" { args.append(property) } else if token.contains("%@"), let next = rest.popFirst() { args.append(next) }
                }
                return try? db.objects(WidthThing.self).filtered(format, args)
            }
            let context = "round \(round): \(format) on \(indexed) with \(arguments)"
            let viaIndex = run(indexed), viaScan = run(plain)?.map(\.id).sorted()
            XCTAssertEqual(viaIndex?.map(\.id).sorted(), viaScan, context)
            if viaScan != nil { ran += 1 }
            // Whichever way the query ran, the index's candidates hold every match.
            if let viaScan, let candidates = indexCandidates(db, viaIndex?.query.predicate) {
                XCTAssertTrue(Set(viaScan).isSubset(of: candidates), context)
            }
        }
        return ran
    }

    /// The ids of the objects the index plan for `predicate` reads, or nil without a plan.
    private func indexCandidates(_ db: Database, _ predicate: QueryNode?) -> Set<Int>? {
        guard let predicate, let schema = db.schemas.schema(for: WidthThing.self) else { return nil }
        let keys: [ObjectKey]?
        switch IndexPlan.make(for: predicate, schema: schema) {
        case .entries(let ranges)?: keys = db.indexedObjects(schema: schema, in: ranges)
        case .range(let range)?: keys = db.indexedObjects(schema: schema, in: [range])
        default: keys = nil
        }
        return keys.map { Set($0.compactMap { (db.object(for: $0, schema: schema) as? WidthThing)?.id }) }
    }

    func testIndexedQueriesAnswerAsAScanOnRandomData() throws {
        var random = SplitMix64(seed: 0x51DE_0913)
        let db = try open([WidthThing.self])
        for round in 0..<12 {
            try db.write {
                fill(db, &random, ids: 0...40)
                if round % 3 == 1 { check(db, &random, round: round) }
            }
            XCTAssertGreaterThan(check(db, &random, round: round), 20)
        }
        XCTAssertTrue(db.checkIntegrity().isClean, "\(db.checkIntegrity())")
    }

    func testEveryWidthAndMixedIsIndexedAndPlanned() throws {
        let db = try open([WidthThing.self])
        try db.write {
            db.add(checked: WidthThing(value: ["id": 1, "i8": 3, "i16": 3, "i32": 3, "i64": 3, "mixed": AnyValue.double(3)]))
            db.add(checked: WidthThing(value: ["id": 2, "mixed": AnyValue.float(3)]))
            db.add(checked: WidthThing(value: ["id": 3, "mixed": [1, 3], "plain": [1, 3]]))
        }
        let schema = try XCTUnwrap(db.schemas.schema(for: WidthThing.self))
        for name in ["i8", "i16", "i32", "i64", "mixed"] {
            let property = try XCTUnwrap(schema[name])
            XCTAssertTrue(property.isIndexed && property.indexIsUsable, name)
            let results = db.objects(WidthThing.self).filter("%K == %@", name, 3)
            XCTAssertNotNil(IndexPlan.make(for: try XCTUnwrap(results.query.predicate), schema: schema), name)
        }
        XCTAssertEqual(db.objects(WidthThing.self).filter("mixed == 3").map(\.id).sorted(), [1, 2], "3 == 3.0 == Float(3); a list holding 3 is not 3")
        XCTAssertEqual(db.objects(WidthThing.self).filter("mixed > 2.5").map(\.id).sorted(), [1, 2])
        XCTAssertEqual(db.objects(WidthThing.self).filter("mixed < 3.5").map(\.id).sorted(), [1, 2])
    }
}

extension IndexedWidthsTests {
    /// An index declared on existing data is built at a writable open (`IndexReconciler`), with
    /// mixed numbers in their Double form: the integrity check finds every entry it expects.
    func testIndexesDeclaredOnExistingDataAreBuiltAtOpen() throws {
        do {
            let db = try open([MeterV1.self])
            try db.write {
                for id in 0..<20 {
                    let reading: AnyValue = id % 3 == 0 ? .int(id % 4) : id % 3 == 1 ? .double(Double(id % 4)) : .string("r\(id % 4)")
                    try db.add(MeterV1(value: ["id": id, "level": id % 5, "reading": reading]))
                }
            }
        }
        let db = try open([MeterV2.self])
        let schema = try XCTUnwrap(db.schemas.schema(for: MeterV2.self))
        XCTAssertTrue(schema["level"]!.indexIsUsable && schema["reading"]!.indexIsUsable)
        XCTAssertTrue(db.checkIntegrity().isClean, "\(db.checkIntegrity())")
        XCTAssertEqual(db.objects(MeterV2.self).filter("level == 3").map(\.id).sorted(), [3, 8, 13, 18])
        XCTAssertEqual(db.objects(MeterV2.self).filter("reading == 2.0").map(\.id).sorted(), [6, 10, 18])
    }

    /// A mixed list or map compared with `IN` or `BETWEEN` is a whole value on every path —
    /// inside a write (the evaluator) and outside (the columns) —, as Realm's (`mixed[*]` is not
    /// supported), not the values it holds.
    func testAMixedCollectionIsNotTheValuesItHoldsOnAnyPath() throws {
        let db = try open([WidthThing.self])
        try db.write {
            db.add(checked: WidthThing(value: ["id": 1, "mixed": [4], "plain": [4]]))
            db.add(checked: WidthThing(value: ["id": 2, "mixed": ["k": 4], "plain": ["k": 4]]))
            db.add(checked: WidthThing(value: ["id": 3, "mixed": 4, "plain": 4]))
        }
        for inWrite in [false, true] {
            if inWrite { try db.beginWrite() }
            for property in ["mixed", "plain"] {
                for format in ["%K == 4", "%K IN {4, 5}", "%K BETWEEN {3, 5}", "%K >= 4"] {
                    let ids = db.objects(WidthThing.self).filter(format, property).map(\.id)
                    XCTAssertEqual(ids, [3], "\(format) on \(property), in a write: \(inWrite)")
                }
            }
            if inWrite { db.cancelWrite() }
        }
    }
}

private extension Database {
    func add(checked object: Object) {
        do { try add(object) } catch { XCTFail("\(error)") }
    }
}
