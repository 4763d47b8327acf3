import Foundation
@_spi(Testing) import StrataStorage
import XCTest

@testable import Strata

/// A class with an index on every indexable type, optional and not.
final class IndexedThing: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted(indexed: true) var count: Int
    @Persisted(indexed: true) var score: Int?
    @Persisted(indexed: true) var label: String
    @Persisted(indexed: true) var note: String?
    @Persisted(indexed: true) var flag: Bool
    @Persisted(indexed: true) var when: Date
    @Persisted(indexed: true) var oid: ObjectId?
    @Persisted(indexed: true) var uid: UUID
    @Persisted var plain: Int
}

/// Equality, `IN`, ranges and `BETWEEN` answered by the indexes find exactly what the evaluator
/// finds testing every object, in key order: on random data, random bounds, inside and outside
/// writes, after updates and deletes, with nulls, NaNs, signed zeros and long strings.
final class IndexQueryTests: DatabaseTestCase {
    private var schema: ObjectSchema!

    private func openThings() throws -> Database {
        let db = try open([IndexedThing.self])
        schema = db.schemas.schema(for: IndexedThing.self)
        return db
    }

    // MARK: Random values, from small pools so that values repeat

    private static let longText = String(repeating: "L", count: IndexKeyEncoding.maxStringBytes)
    private static let strings = ["", "\0", "a", "a\0b", "ab", "b", "é", "e\u{301}", longText, longText + "1", longText + "2", String(longText.dropLast())]
    private static let seconds: [Double] = [-0.0, 0, 1, -1, 2.5, .infinity, -.infinity, .nan, 1e9]
    private static let oids = (0..<4).map { ObjectId(bytes: [UInt8](repeating: UInt8($0 * 60), count: 12)) }
    private static let uids = (0..<4).map { UUID(uuid: (UInt8($0 * 70), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, UInt8($0))) }

    /// A random value for property `name` (nil is a choice for optional properties).
    private static func value(for name: String, _ random: inout SplitMix64) -> FieldValue {
        let null = Int.random(in: 0..<5, using: &random) == 0
        switch name {
        case "count", "score":
            if name == "score" && null { return .null }
            return .int([Int64.min, .max, 0, -1].randomElement(using: &random)! &+ Int64.random(in: -3...3, using: &random) * (Bool.random(using: &random) ? 1 : 0))
        case "label", "note":
            if name == "note" && null { return .null }
            return .string(strings.randomElement(using: &random)!)
        case "flag": return .bool(Bool.random(using: &random))
        case "when": return .date(seconds.randomElement(using: &random)!)
        case "oid": return null ? .null : .objectId(oids.randomElement(using: &random)!)
        default: return .uuid(uids.randomElement(using: &random)!)
        }
    }

    private static let indexedNames = ["count", "score", "label", "note", "flag", "when", "oid", "uid"]

    private func randomize(_ thing: IndexedThing, _ random: inout SplitMix64) {
        func set(_ name: String) {
            switch Self.value(for: name, &random) {
            case .int(let number) where name == "count": thing.count = Int(number)
            case .int(let number): thing.score = Int(number)
            case .null where name == "score": thing.score = nil
            case .string(let text) where name == "label": thing.label = text
            case .string(let text): thing.note = text
            case .null where name == "note": thing.note = nil
            case .bool(let flag): thing.flag = flag
            case .date(let seconds): thing.when = Date(timeIntervalSinceReferenceDate: seconds)
            case .objectId(let id): thing.oid = id
            case .null: thing.oid = nil
            case .uuid(let uuid): thing.uid = uuid
            default: break
            }
        }
        for name in Self.indexedNames where Bool.random(using: &random) || !thing.isManaged { set(name) }
    }

    // MARK: Random predicates

    private func path(_ name: String) -> QueryValue {
        .path(QueryPath([.property(index: schema[name]!.index, target: nil, isMultiple: false)]))
    }

    private func compare(_ name: String, _ op: QueryOperator, _ rhs: QueryValue) -> QueryNode {
        .compare(QueryComparison(op: op, lhs: path(name), rhs: rhs))
    }

    /// A predicate on one indexed property that an index can answer (`isPlanned`) or one whose
    /// constant is of a kind only a scan answers.
    private func randomPredicate(_ random: inout SplitMix64) -> (node: QueryNode, isPlanned: Bool) {
        let name = Self.indexedNames.randomElement(using: &random)!
        let a = Self.value(for: name, &random), b = Self.value(for: name, &random)
        // Null and NaN bound nothing (null is never less or greater; NaN compares greater both ways).
        let bounds = { (value: FieldValue) -> Bool in !value.isNull && !self.isNaN(value) }
        switch Int.random(in: 0..<9, using: &random) {
        case 0: return (compare(name, .equal, .constant(a)), true)
        case 1: return (compare(name, .equal, .list([a, b, a])), true)
        case 2: return (compare(name, [.less, .lessOrEqual, .greater, .greaterOrEqual].randomElement(using: &random)!, .constant(a)), bounds(a))
        case 3: return (compare(name, .between, .list([a, b])), bounds(a) || bounds(b))
        case 4:
            let lower = compare(name, Bool.random(using: &random) ? .greater : .greaterOrEqual, .constant(a))
            let upper = compare(name, Bool.random(using: &random) ? .less : .lessOrEqual, .constant(b))
            return (.and(lower, upper), bounds(a) || bounds(b))
        case 5:
            // A Double against the Int property: converted to integer bounds, or a scan.
            let number = [2.5, -0.5, 3.0, 1e300, -.infinity, .nan, 9.2e18].randomElement(using: &random)!
            let op = [QueryOperator.equal, .less, .greaterOrEqual, .greater].randomElement(using: &random)!
            return (compare("count", op, .constant(.double(number))), abs(number) < 0x1p53)
        case 6:
            // An indexed term and another, unindexed one.
            return (.and(compare(name, .greaterOrEqual, .constant(a)), compare("plain", .less, .constant(.int(5)))), bounds(a))
        case 7:
            // A top-level OR: never planned.
            return (.or(compare(name, .equal, .constant(a)), compare(name, .less, .constant(b))), false)
        default:
            return (.and(compare(name, .equal, .constant(a)), compare(name, .greater, .constant(b))), true)
        }
    }

    private func isNaN(_ value: FieldValue) -> Bool {
        if case .date(let seconds) = value { return seconds.isNaN }
        return false
    }

    // MARK: Checks

    /// The keys `node` matches, read through the query (index or not), through the index plan's
    /// candidates (whatever their number) and by testing every object; they must agree, in key
    /// order.
    private func checkAgainstAScan(_ db: Database, _ node: QueryNode, isPlanned: Bool, _ context: String) {
        let plan = IndexPlan.make(for: node, schema: schema)
        XCTAssertEqual(plan != nil, isPlanned, "\(context): planned? \(node)")
        let evaluator = QueryEvaluator(database: db)
        func matches(_ key: ObjectKey) -> Bool {
            db.loadFields(key, schema: schema).map { evaluator.matches(node, QueryObject(key: key, fields: $0)) } ?? false
        }
        var expected: [ObjectKey] = []
        db.forEachObject(of: schema) { key, fields in
            if evaluator.matches(node, QueryObject(key: key, fields: fields)) { expected.append(key) }
        }
        expected.sort { $0.key < $1.key }
        let found = ObjectQuery(database: db, schema: schema, predicate: node).rows.map(\.key)
        XCTAssertEqual(found, expected, "\(context): \(node)")
        let candidates: [ObjectKey]?
        switch plan {
        case .entries(let ranges)?: candidates = db.indexedObjects(schema: schema, in: ranges)
        case .range(let range)?: candidates = db.indexedObjects(schema: schema, in: [range])
        default: candidates = nil
        }
        if let candidates {
            XCTAssertEqual(candidates, candidates.sorted { $0.key < $1.key }, "\(context): candidates not in key order")
            XCTAssertEqual(candidates.filter(matches), expected, "\(context): the index's candidates, \(node)")
        }
    }

    func testIndexedQueriesAgreeWithAScanInAndOutsideWrites() throws {
        var random = SplitMix64(seed: 0x1DE5_1001)
        let db = try openThings()
        var nextID = 0
        for round in 0..<12 {
            try db.write {
                for _ in 0..<Int.random(in: 5...25, using: &random) {
                    let thing = IndexedThing()
                    thing.id = nextID
                    thing.plain = Int.random(in: 0...9, using: &random)
                    nextID += 1
                    randomize(thing, &random)
                    try db.add(thing)
                }
                let things = Array(db.objects(IndexedThing.self))
                for thing in things where Int.random(in: 0..<6, using: &random) == 0 { randomize(thing, &random) }
                for thing in things where Int.random(in: 0..<12, using: &random) == 0 { try db.delete(thing) }
                for query in 0..<30 {
                    let (node, isPlanned) = randomPredicate(&random)
                    checkAgainstAScan(db, node, isPlanned: isPlanned, "round \(round), in the write, query \(query)")
                }
            }
            for query in 0..<40 {
                let (node, isPlanned) = randomPredicate(&random)
                checkAgainstAScan(db, node, isPlanned: isPlanned, "round \(round), query \(query)")
            }
        }
        XCTAssertNil(db.readFailure)
        XCTAssertEqual(db.checkIntegrity().problems, [])
    }

    /// Every value of a property's pool (and null), for the exhaustive test.
    private static func pool(of name: String) -> [FieldValue] {
        switch name {
        case "count", "score": return [Int64.min, .min + 1, -2, -1, 0, 1, 2, .max - 1, .max].map(FieldValue.int) + [.null]
        case "label", "note": return strings.map(FieldValue.string) + [.null]
        case "flag": return [.bool(false), .bool(true), .null]
        case "when": return seconds.map(FieldValue.date) + [.null]
        case "oid": return oids.map(FieldValue.objectId) + [.null]
        default: return uids.map(FieldValue.uuid) + [.null]
        }
    }

    func testEveryOperatorAndBoundOfThePoolsAgreesWithAScan() throws {
        var random = SplitMix64(seed: 0x1DE5_1002)
        let db = try openThings()
        try db.write {
            for id in 0..<80 {
                let thing = IndexedThing()
                thing.id = id
                randomize(thing, &random)
                try db.add(thing)
            }
        }
        for name in Self.indexedNames {
            let pool = Self.pool(of: name)
            for a in pool {
                let planned = !a.isNull && !isNaN(a)
                for op in [QueryOperator.less, .lessOrEqual, .greater, .greaterOrEqual] {
                    checkAgainstAScan(db, compare(name, op, .constant(a)), isPlanned: planned, "\(name) \(op) \(a)")
                }
                let storedKind = a.isStoredKind(of: schema[name]!.type)
                checkAgainstAScan(db, compare(name, .equal, .constant(a)), isPlanned: storedKind, "\(name) == \(a)")
                for b in pool {
                    let bounded = planned || (!b.isNull && !isNaN(b))
                    checkAgainstAScan(db, compare(name, .between, .list([a, b])), isPlanned: bounded, "\(name) BETWEEN \(a), \(b)")
                    let lower = compare(name, .greater, .constant(a)), upper = compare(name, .less, .constant(b))
                    checkAgainstAScan(db, .and(lower, upper), isPlanned: bounded, "\(name) > \(a) && < \(b)")
                }
            }
        }
        XCTAssertNil(db.readFailure)
    }
}
