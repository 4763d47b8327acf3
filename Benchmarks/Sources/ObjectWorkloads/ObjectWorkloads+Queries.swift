// The query workloads of issue 11, each written for Strata and for GRDB so that both sides do
// the same work and return the same answer (checked against ``ObjectWorkloads/Expected``):
//
// | workload | Strata | GRDB (a `DatabasePool`) |
// |:--|:--|:--|
// | scan reading age and name | `for o in db.objects(StrataItem.self)` | `GRDBItem.fetchCursor(db)` |
// | aggregates of `age` | `results.sum(of: \.age)`, `min`, `max`, `average` | `SELECT SUM(age) FROM item`, … |
// | indexed equality / range | `where { $0.age == k }` / `{ $0.age >= k && $0.age < k + 2 }` on an indexed `age` | `SELECT * FROM item WHERE age = ?` / `age >= ? AND age < ?` with `item_on_age` |
// | to-one link | `where { $0.dog.age > 3 }.count` | `GRDBPerson.joining(required: dog.filter(age > 3)).fetchCount(db)` |
// | sort, first 100 | `sorted(by: \.age).prefix(100)` | `SELECT * FROM item ORDER BY age LIMIT 100` |
//
// Each Strata function builds new `Results`: a query's results are evaluated once per database
// version and kept, so reading the same `Results` again would measure a cached answer.

import GRDB
import Strata

extension ObjectWorkloads {
    /// The `age` values the indexed queries ask for: one query per value (~1 % of the objects
    /// each for equality, ~2 % for the range `k..<k + indexedRangeWidth`).
    public static let indexedQueryAges = Array(stride(from: 0, to: 100, by: 10))
    /// The width of each indexed range query.
    public static let indexedRangeWidth = 2
    /// The threshold of the link query (`dog.age > 3`).
    public static let dogAgeThreshold = 3
    /// How many objects the sort workload reads (`prefix(100)`, `LIMIT 100`).
    public static let sortLimit = 100

    /// What a loop over matches reads of each: its `age` and `name`, counted and summed.
    public struct Tally: Equatable, Sendable {
        public var count = 0
        public var sum = 0

        public init() {}

        @inline(__always)
        public mutating func add(age: Int, name: String) {
            count += 1
            sum &+= age &+ name.utf8.count
        }

        public mutating func add(_ other: Tally) {
            count += other.count
            sum &+= other.sum
        }
    }

    /// An aggregate of `age`.
    public enum Aggregate: String, CaseIterable, Sendable {
        case sum, min, max, average = "avg"
    }

    /// The two indexed queries.
    public enum IndexedQuery: String, CaseIterable, Sendable {
        /// `age == k`.
        case equality = "eq"
        /// `age >= k && age < k + indexedRangeWidth`.
        case range
    }

    // MARK: Strata

    /// Reads `age` and `name` of every object of `objects`.
    @inline(__always)
    static func tally<S: Sequence>(_ objects: S) -> Tally where S.Element: WorkloadItem {
        var tally = Tally()
        for item in objects { tally.add(age: item.age, name: item.name) }
        return tally
    }

    /// Iterates `db.objects(StrataItem.self)` reading `age` and `name` of each.
    public static func strataScanAgeAndName(_ db: Strata.Database) -> Tally {
        tally(db.objects(StrataItem.self))
    }

    /// `aggregate` of `age` over every object, as a Double (sums, minima and maxima of ages are
    /// exact in a Double).
    public static func strataAggregate(_ aggregate: Aggregate, _ db: Strata.Database) -> Double {
        let items = db.objects(StrataItem.self)
        switch aggregate {
        case .sum: return Double(items.sum(of: \.age))
        case .min: return Double(items.min(of: \.age)!)
        case .max: return Double(items.max(of: \.age)!)
        case .average: return items.average(of: \.age)!
        }
    }

    /// One `query` per age in ``indexedQueryAges`` on the indexed `age`, reading `age` and
    /// `name` of each match.
    public static func strataIndexed(_ query: IndexedQuery, _ db: Strata.Database) -> Tally {
        var total = Tally()
        let items = db.objects(StrataIndexedItem.self)
        for age in indexedQueryAges {
            switch query {
            case .equality: total.add(tally(items.where { $0.age == age }))
            case .range: total.add(tally(items.where { $0.age >= age && $0.age < age + indexedRangeWidth }))
            }
        }
        return total
    }

    /// `where { $0.dog.age > 3 }.count` over the persons.
    public static func strataLinkCount(_ db: Strata.Database) -> Int {
        db.objects(StrataPerson.self).where { $0.dog.age > dogAgeThreshold }.count
    }

    /// `sorted(by: \.age).prefix(100)`, reading `age` and `name` of each.
    public static func strataSortedPrefix(_ db: Strata.Database) -> Tally {
        tally(db.objects(StrataItem.self).sorted(by: \.age).prefix(sortLimit))
    }

    /// A one-object write no query reads: `score` of item 0 (of the class `Item`) changes.
    static func strataTouchItem<Item: WorkloadItem>(_ type: Item.Type, in db: Strata.Database) throws {
        try db.write { db.object(ofType: Item.self, forPrimaryKey: 0)!.score += 1 }
    }

    /// A one-object write the link query does not read: the `name` of person 0 changes.
    static func strataTouchPerson(in db: Strata.Database) throws {
        try db.write { db.object(ofType: StrataPerson.self, forPrimaryKey: 0)!.name += "+" }
    }

    // MARK: GRDB

    /// Reads `age` and `name` of every record of `cursor`.
    @inline(__always)
    static func tally(_ cursor: RecordCursor<GRDBItem>) throws -> Tally {
        var tally = Tally()
        while let item = try cursor.next() { tally.add(age: item.age, name: item.name) }
        return tally
    }

    /// `GRDBItem.fetchCursor(db)` reading `age` and `name` of each record.
    public static func grdbScanAgeAndName(_ pool: DatabasePool) throws -> Tally {
        try pool.read { db in try tally(GRDBItem.fetchCursor(db)) }
    }

    /// SQLite's aggregate: `SELECT SUM(age) FROM item` (MIN, MAX, AVG).
    public static func grdbAggregate(_ aggregate: Aggregate, _ pool: DatabasePool) throws -> Double {
        try pool.read { db in
            let statement = try db.cachedStatement(sql: "SELECT \(aggregate.rawValue.uppercased())(age) FROM item")
            if aggregate == .average { return try Double.fetchOne(statement)! }
            return Double(try Int.fetchOne(statement)!)
        }
    }

    /// The queries of ``strataIndexed(_:_:)`` through one cached statement each, on a table
    /// with an index on `age`, decoding each matching record.
    public static func grdbIndexed(_ query: IndexedQuery, _ pool: DatabasePool) throws -> Tally {
        try pool.read { db in
            var total = Tally()
            switch query {
            case .equality:
                let statement = try db.cachedStatement(sql: "SELECT * FROM item WHERE age = ?")
                for age in indexedQueryAges {
                    total.add(try tally(GRDBItem.fetchCursor(statement, arguments: [age])))
                }
            case .range:
                let statement = try db.cachedStatement(sql: "SELECT * FROM item WHERE age >= ? AND age < ?")
                for age in indexedQueryAges {
                    total.add(try tally(GRDBItem.fetchCursor(statement, arguments: [age, age + indexedRangeWidth])))
                }
            }
            return total
        }
    }

    /// `GRDBPerson.joining(required: GRDBPerson.dog.filter(Column("age") > 3)).fetchCount(db)`:
    /// `SELECT COUNT(*) FROM person JOIN dog ON dog.id = person.dogId AND dog.age > 3`.
    public static func grdbJoinCount(_ pool: DatabasePool) throws -> Int {
        try pool.read { db in
            try GRDBPerson.joining(required: GRDBPerson.dog.filter(Column("age") > dogAgeThreshold)).fetchCount(db)
        }
    }

    /// `SELECT * FROM item ORDER BY age LIMIT 100` (a cached statement), reading `age` and
    /// `name` of each record.
    public static func grdbSortedPrefix(_ pool: DatabasePool) throws -> Tally {
        try pool.read { db in
            let statement = try db.cachedStatement(sql: "SELECT * FROM item ORDER BY age LIMIT \(sortLimit)")
            return try tally(GRDBItem.fetchCursor(statement))
        }
    }
}
