// The read workloads as a table, for the profiling driver and the benchmark harness: each with
// its data set, how many operations one run does, and a run that checks its answer against
// ``ObjectWorkloads/Expected``. A Strata workload `m` has a GRDB twin `grdb-m` with the same
// title (the point read has a second one, `grdb-point-cached`; the scan one more,
// `grdb-sum`).

import GRDB
import Strata

/// The data set a read workload reads.
public enum Dataset: String, CaseIterable, Sendable {
    /// `count` items (`StrataItem`, table `item`).
    case items
    /// `count` items with `age` indexed (`StrataIndexedItem`, table `item` with an index).
    case indexedItems = "indexed items"
    /// `count` persons, each linking to one of `count` dogs.
    case people
}

/// A read workload of one side (`Store`: a Strata database or a GRDB pool).
///
/// Sendable (for the harness's `@Sendable` closures): a constant whose `run` captures only
/// constants.
public struct ReadWorkload<Store>: @unchecked Sendable {
    /// Its name in `ObjectProfile` (`grdb-` first for GRDB's).
    public var mode: String
    /// What it measures, the same for both sides: "Scan 1M reading age and name".
    public var title: String
    /// The side and how it does it: "Strata", "GRDB record cursor".
    public var variant: String
    public var dataset: Dataset
    /// Operations one run does, and what they are ("objects", "queries").
    public var operations: Int
    public var unit: String
    /// Whether it is also measured right after a one-object write (Strata's queries).
    public var afterWrite = false
    /// Runs the workload once; stops the program if the answer is not `Expected`'s.
    public var run: (Store, ObjectWorkloads.Expected) throws -> Void
}

extension ObjectWorkloads {
    /// The Strata workloads that have an issue 11 target against GRDB (after the point read,
    /// the first scan and the count, which came first).
    public static let queryModes = [
        "scan2", "count", "agg-sum", "agg-min", "agg-max", "agg-avg", "indexed-eq", "indexed-range", "join", "sortlimit",
    ]

    /// Stops the program unless a workload returned `answer`.
    static func expect<T: Equatable>(_ value: T, _ answer: T, _ mode: String) {
        precondition(value == answer, "\(mode): \(value) instead of \(answer)")
    }

    /// "1M" for a million, else the number.
    static func amount(_ count: Int) -> String {
        count % 1_000_000 == 0 ? "\(count / 1_000_000)M" : "\(count)"
    }

    /// The titles of the workloads over `count` objects, by mode (without `grdb-`).
    static func title(_ mode: String, count: Int) -> String {
        let n = amount(count)
        switch mode {
        case "point", "point-cached": return "Point read \(n) random by primary key"
        case "scan", "sum": return "Scan \(n) summing age"
        case "scan2": return "Scan \(n) reading age and name"
        case "count": return "Count age > 50 of \(n)"
        case "sortlimit": return "Sort \(n) by age, first 100, reading name"
        case "join": return "Count dog.age > 3 of \(n) persons"
        default:
            if let kind = Aggregate(rawValue: String(mode.dropFirst(4))) { return "Aggregate \(kind.rawValue) of age over \(n)" }
            let kind = IndexedQuery(rawValue: String(mode.dropFirst(8)))!
            return "Indexed \(kind == .equality ? "age == k" : "age in k..<k+2"), \(indexedQueryAges.count) queries over \(n)"
        }
    }

    /// A workload over `count` objects of the items (or `dataset`).
    static func workload<Store>(
        _ mode: String, _ variant: String, count: Int, dataset: Dataset = .items, operations: Int? = nil,
        unit: String = "objects", run: @escaping (Store, Expected) throws -> Void
    ) -> ReadWorkload<Store> {
        let strata = !mode.hasPrefix("grdb-")
        let base = strata ? mode : String(mode.dropFirst(5))
        return ReadWorkload(
            mode: mode, title: title(base, count: count), variant: variant, dataset: dataset,
            operations: operations ?? count, unit: unit, afterWrite: strata && base != "point", run: run)
    }

    /// The aggregate and indexed workloads of one side (`prefix`: "" or "grdb-").
    static func perKind<Store>(
        _ prefix: String, _ variant: (String) -> String, count: Int,
        aggregate: @escaping (Aggregate, Store) throws -> Double,
        indexed: @escaping (IndexedQuery, Store) throws -> Tally
    ) -> [ReadWorkload<Store>] {
        Aggregate.allCases.map { kind in
            let mode = "\(prefix)agg-\(kind.rawValue)"
            return workload(mode, variant("\(kind.rawValue.uppercased())(age)"), count: count) { store, expected in
                let value = try aggregate(kind, store)
                precondition(expected.matches(value, kind), "\(mode): \(value)")
            }
        } + IndexedQuery.allCases.map { kind in
            let mode = "\(prefix)indexed-\(kind.rawValue)"
            return workload(
                mode, variant("item_on_age"), count: count, dataset: .indexedItems, operations: indexedQueryAges.count,
                unit: "queries"
            ) { store, expected in
                expect(try indexed(kind, store), kind == .equality ? expected.indexedEquality : expected.indexedRange, mode)
            }
        }
    }

    /// Strata's read workloads over `count` objects.
    public static func strataReadWorkloads(count: Int = objectCount) -> [ReadWorkload<Strata.Database>] {
        [
            workload("point", "Strata", count: count, unit: "reads") { db, expected in
                expect(strataPointReads(count, keyCount: count, in: db), expected.pointReads, "point")
            },
            workload("scan", "Strata", count: count) { db, expected in expect(strataScan(db), expected.ageSum, "scan") },
            workload("scan2", "Strata", count: count) { db, expected in
                expect(strataScanAgeAndName(db), expected.all, "scan2")
            },
            workload("count", "Strata where", count: count) { db, expected in
                expect(strataCount(db), expected.olderCount, "count")
            },
            workload("sortlimit", "Strata", count: count) { db, expected in
                expect(strataSortedPrefix(db), expected.sortedPrefix, "sortlimit")
            },
            workload("join", "Strata where", count: count, dataset: .people, unit: "persons") { db, expected in
                expect(strataLinkCount(db), expected.linkCount, "join")
            },
        ] + perKind("", { _ in "Strata" }, count: count, aggregate: strataAggregate, indexed: strataIndexed)
    }

    /// GRDB's read workloads over `count` records.
    public static func grdbReadWorkloads(count: Int = objectCount) -> [ReadWorkload<DatabasePool>] {
        [
            workload("grdb-point", "GRDB fetchOne(key:)", count: count, unit: "reads") { pool, expected in
                expect(try grdbPointReads(count, keyCount: count, in: pool), expected.pointReads, "grdb-point")
            },
            workload("grdb-point-cached", "GRDB cached statement", count: count, unit: "reads") { pool, expected in
                expect(try grdbPointReadsCached(count, keyCount: count, in: pool), expected.pointReads, "grdb-point-cached")
            },
            workload("grdb-scan", "GRDB record cursor", count: count) { pool, expected in
                expect(try grdbCursorScan(pool), expected.ageSum, "grdb-scan")
            },
            workload("grdb-sum", "GRDB SELECT SUM(age)", count: count) { pool, expected in
                expect(try grdbSQLSum(pool), expected.ageSum, "grdb-sum")
            },
            workload("grdb-scan2", "GRDB record cursor", count: count) { pool, expected in
                expect(try grdbScanAgeAndName(pool), expected.all, "grdb-scan2")
            },
            workload("grdb-count", "GRDB fetchCount", count: count) { pool, expected in
                expect(try grdbCount(pool), expected.olderCount, "grdb-count")
            },
            workload("grdb-sortlimit", "GRDB ORDER BY age LIMIT 100", count: count) { pool, expected in
                expect(try grdbSortedPrefix(pool), expected.sortedPrefix, "grdb-sortlimit")
            },
            workload("grdb-join", "GRDB JOIN fetchCount", count: count, dataset: .people, unit: "persons") { pool, expected in
                expect(try grdbJoinCount(pool), expected.linkCount, "grdb-join")
            },
        ] + perKind("grdb-", { "GRDB " + $0 }, count: count, aggregate: grdbAggregate, indexed: grdbIndexed)
    }

    // MARK: Data sets

    /// A Strata database of `dataset` with `count` objects (of each class) in `directory`.
    public static func loadStrata(_ dataset: Dataset, count: Int = objectCount, in directory: String) throws -> Strata.Database {
        switch dataset {
        case .items: try loadStrata(count: count, in: directory)
        case .indexedItems: try loadStrataIndexed(count: count, in: directory)
        case .people: try loadStrataPeople(count: count, in: directory)
        }
    }

    /// A GRDB database of `dataset` with `count` records (of each table) in `directory`.
    public static func loadGRDB(_ dataset: Dataset, count: Int = objectCount, in directory: String) throws -> DatabasePool {
        switch dataset {
        case .items: try loadGRDB(count: count, in: directory)
        case .indexedItems: try loadGRDBIndexed(count: count, in: directory)
        case .people: try loadGRDBPeople(count: count, in: directory)
        }
    }

    /// A one-object write to the class `dataset`'s queries read, changing nothing they check.
    public static func strataTouch(_ dataset: Dataset, in db: Strata.Database) throws {
        switch dataset {
        case .items: try strataTouchItem(StrataItem.self, in: db)
        case .indexedItems: try strataTouchItem(StrataIndexedItem.self, in: db)
        case .people: try strataTouchPerson(in: db)
        }
    }
}
