// The object-layer workloads: Strata's object API against GRDB (SQLite), shared by the benchmark
// target (Benchmarks/ObjectBenchmarks) and the standalone profiling driver
// (Sources/ObjectProfile), so both measure exactly the same work.
//
// The data set: `count` objects {_id: Int primary key, name: String of 16 characters,
// age: Int in 0..<100, score: Double}. Strata has no Int64 primary key; its `Int` is 64-bit, and
// so is SQLite's INTEGER PRIMARY KEY (the rowid) on the GRDB side.
//
// Every database lives in a scratch directory under /tmp that the caller removes afterwards.

import Foundation
@_spi(Testing) import StorageWorkloads  // SplitMix64.next(below:)
import GRDB
import Strata
@_spi(Testing) import StrataStorage

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// MARK: The models

/// The properties every Strata item model of the workloads has, so that loading and reading
/// them is written once (generic code, specialized inside this module).
public protocol WorkloadItem: Object {
    var _id: Int { get set }
    var name: String { get set }
    var age: Int { get set }
    var score: Double { get set }
}

/// The Strata model of the workload.
public final class StrataItem: Object, WorkloadItem {
    @Persisted(primaryKey: true) public var _id: Int
    @Persisted public var name: String
    @Persisted public var age: Int
    @Persisted public var score: Double
}

/// The GRDB record of the workload, table `item`, written as GRDB's performance guide advises:
/// decoded from row positions (`row[0]`, in the table's column order, which `SELECT *` and
/// every query of the workloads keep) and encoded into a persistence container, not through
/// `Codable`.
public struct GRDBItem: FetchableRecord, PersistableRecord, Sendable {
    public static let databaseTableName = "item"
    public var id: Int
    public var name: String
    public var age: Int
    public var score: Double

    public init(id: Int, name: String, age: Int, score: Double) {
        self.id = id
        self.name = name
        self.age = age
        self.score = score
    }

    @inline(__always)
    public init(row: Row) {
        id = row[0]
        name = row[1]
        age = row[2]
        score = row[3]
    }

    public func encode(to container: inout PersistenceContainer) {
        container["id"] = id
        container["name"] = name
        container["age"] = age
        container["score"] = score
    }
}

public enum ObjectWorkloads {
    /// Objects in every workload.
    public static let objectCount = 1_000_000
    /// Objects added per write transaction.
    public static let objectsPerWrite = 10_000
    /// Property reads (of `name`, then again of `age`) in the property-read workload.
    public static let propertyReads = 10_000_000
    /// The `age` threshold of the count query (`age > 50`).
    public static let ageThreshold = 50

    // MARK: Timing

    /// Wall-clock and CPU time of one run: the storage benchmarks' measure, shared.
    public typealias Timing = Workloads.Timing

    /// Runs `body` and returns how long it took.
    public static func timed(_ body: () throws -> Void) rethrows -> Timing { try Workloads.timed(body) }

    // MARK: The data


    /// The fields of object `i`: name "item-" + 11 zero-padded digits (16 ASCII characters),
    /// age in 0..<100 and a score in [0, 1000), both from a hash of `i`.
    @inline(__always)
    public static func fields(_ i: Int) -> (name: String, age: Int, score: Double) {
        var mix = SplitMix64(seed: UInt64(i))
        let bits = mix.next()
        let name = String(unsafeUninitializedCapacity: 16) { buffer in
            for (j, byte) in "item-".utf8.enumerated() { buffer[j] = byte }
            var n = i
            for j in stride(from: 15, through: 5, by: -1) {
                buffer[j] = UInt8(truncatingIfNeeded: 48 + n % 10)
                n /= 10
            }
            return 16
        }
        return (name, Int(bits % 100), Double(bits >> 11) * 0x1p-53 * 1000)
    }

    // MARK: Strata

    /// Opens (creating) a Strata database of `objectTypes` (the workload's model by default) in
    /// `directory`.
    public static func openStrata(
        _ directory: String, durability: Durability, objectTypes: [ObjectBase.Type] = [StrataItem.self]
    ) throws -> Strata.Database {
        try Strata.Database(configuration: .init(
            directory: URL(fileURLWithPath: directory), objectTypes: objectTypes, durability: durability))
    }

    /// Inserts objects 0..<count: unmanaged objects, `db.add`ed ``objectsPerWrite`` per
    /// `db.write` (each committed with the database's durability).
    public static func strataInsert(count: Int = objectCount, into db: Strata.Database) throws {
        try insertItems(StrataItem.self, count: count, into: db)
    }

    /// ``strataInsert(count:into:)`` for any item model.
    static func insertItems<Item: WorkloadItem>(_ type: Item.Type, count: Int, into db: Strata.Database) throws {
        try inWrites(count: count, of: db) { i in
            let item = Item()
            let f = fields(i)
            item._id = i
            item.name = f.name
            item.age = f.age
            item.score = f.score
            try db.add(item)
        }
    }

    /// Calls `body` for 0..<count inside `db.write`s of ``objectsPerWrite`` calls each.
    @inline(__always)
    public static func inWrites(count: Int, of db: Strata.Database, _ body: (Int) throws -> Void) throws {
        var i = 0
        while i < count {
            let end = min(i + objectsPerWrite, count)
            try db.write {
                while i < end {
                    try body(i)
                    i += 1
                }
            }
        }
    }

    /// A Strata database of `count` objects in `directory` (durability `.none` for the load; the
    /// returned database reads it).
    public static func loadStrata(count: Int = objectCount, in directory: String) throws -> Strata.Database {
        let db = try openStrata(directory, durability: .none)
        try strataInsert(count: count, into: db)
        return db
    }

    /// `reads` lookups by primary key at random ids in 0..<keyCount, reading `name` and `age` of
    /// each. Returns a checksum; traps if an object is missing.
    public static func strataPointReads(_ reads: Int, keyCount: Int, in db: Strata.Database, seed: UInt64 = 42) -> Int {
        var sum = 0
        forEachRandomID(reads, keyCount: keyCount, seed: seed) { id in
            guard let item = db.object(ofType: StrataItem.self, forPrimaryKey: id) else {
                fatalError("object \(id) missing")
            }
            sum &+= item.name.utf8.count &+ item.age
        }
        return sum
    }

    /// Calls `body` with `reads` ids drawn by SplitMix64 from 0..<keyCount: the lookups of every
    /// point-read workload.
    @inline(__always)
    public static func forEachRandomID(_ reads: Int, keyCount: Int, seed: UInt64, _ body: (Int) throws -> Void) rethrows {
        var rng = SplitMix64(seed: seed)
        let bound = UInt64(keyCount)
        for _ in 0..<reads { try body(Int(rng.next(below: bound))) }
    }

    /// The checksum every point-read workload must return, from the generator.
    public static func expectedPointReads(_ reads: Int, keyCount: Int, seed: UInt64 = 42) -> Int {
        var sum = 0
        forEachRandomID(reads, keyCount: keyCount, seed: seed) { id in
            let f = fields(id)
            sum &+= f.name.utf8.count &+ f.age
        }
        return sum
    }

    /// The sum of `age` over every object, iterating `db.objects(StrataItem.self)`.
    public static func strataScan(_ db: Strata.Database) -> Int {
        var sum = 0
        for item in db.objects(StrataItem.self) { sum &+= item.age }
        return sum
    }

    /// `where { $0.age > 50 }.count` (age is not indexed).
    public static func strataCount(_ db: Strata.Database) -> Int {
        db.objects(StrataItem.self).where { $0.age > ageThreshold }.count
    }

    /// Times `reads` reads of `name`, then `reads` reads of `age`, of one managed object.
    public static func strataPropertyReads(_ reads: Int = propertyReads, of item: StrataItem)
        -> (name: Timing, age: Timing, checksum: Int)
    {
        var sum = 0
        let name = timed {
            for _ in 0..<reads { sum &+= item.name.utf8.count }
        }
        let age = timed {
            for _ in 0..<reads { sum &+= item.age }
        }
        return (name, age, sum)
    }

    // MARK: GRDB

    /// How the GRDB database is set up.
    public enum GRDBSetup: String, CaseIterable, Sendable {
        /// `DatabasePool`, GRDB's recommended (and fastest) setup: WAL with
        /// `synchronous = NORMAL` (a commit appends to the WAL without fsync; checkpoints sync),
        /// reads on their own connections. Every GRDB read workload uses it.
        case walNormal = "WAL, synchronous=NORMAL"
        /// `DatabasePool` with `PRAGMA synchronous = FULL`: one fsync of the WAL per commit, as
        /// Strata's `.full`.
        case walFull = "WAL, synchronous=FULL"
        /// A plain `DatabaseQueue` (a `DatabasePool` needs WAL): rollback journal (DELETE),
        /// SQLite's default `synchronous = FULL`.
        case rollbackFull = "rollback journal, synchronous=FULL"
    }

    /// Creates table `item` (only the primary key indexed).
    public static func createItemTable(_ db: GRDB.Database) throws {
        try db.create(table: GRDBItem.databaseTableName, ifNotExists: true) { table in
            table.primaryKey("id", .integer)
            table.column("name", .text).notNull()
            table.column("age", .integer).notNull()
            table.column("score", .double).notNull()
        }
    }

    /// Opens (creating) the GRDB database `item.sqlite` in `directory` as a `DatabasePool` (a
    /// WAL setup), with the tables `schema` creates (table `item` by default).
    public static func openGRDBPool(
        _ directory: String, setup: GRDBSetup = .walNormal, schema: (GRDB.Database) throws -> Void = createItemTable
    ) throws -> DatabasePool {
        precondition(setup != .rollbackFull, "a DatabasePool needs WAL")
        var configuration = Configuration()
        if setup == .walFull {
            configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
        }
        let pool = try DatabasePool(path: directory + "/item.sqlite", configuration: configuration)
        try pool.write { try schema($0) }
        return pool
    }

    /// Opens (creating) the GRDB database `item.sqlite` in `directory`, with table `item`: a
    /// `DatabasePool` for the WAL setups, a `DatabaseQueue` for the rollback journal.
    public static func openGRDB(_ directory: String, setup: GRDBSetup = .walNormal) throws -> any DatabaseWriter {
        guard setup == .rollbackFull else { return try openGRDBPool(directory, setup: setup) }
        let queue = try DatabaseQueue(path: directory + "/item.sqlite")
        try queue.write { try createItemTable($0) }
        return queue
    }

    /// Inserts records 0..<count with `insert(db)`, ``objectsPerWrite`` per `write`.
    public static func grdbInsert(count: Int = objectCount, into writer: any DatabaseWriter) throws {
        try grdbInWrites(count: count, of: writer) { db, i in
            let f = fields(i)
            try GRDBItem(id: i, name: f.name, age: f.age, score: f.score).insert(db)
        }
    }

    /// Calls `body` for 0..<count inside `write`s of ``objectsPerWrite`` calls each.
    @inline(__always)
    public static func grdbInWrites(
        count: Int, of writer: any DatabaseWriter, _ body: (GRDB.Database, Int) throws -> Void
    ) throws {
        var i = 0
        while i < count {
            let end = min(i + objectsPerWrite, count)
            try writer.write { db in
                while i < end {
                    try body(db, i)
                    i += 1
                }
            }
        }
    }

    /// A GRDB database (`DatabasePool`: WAL, synchronous=NORMAL) of `count` records in
    /// `directory`, with the tables `schema` creates.
    public static func loadGRDB(
        count: Int = objectCount, in directory: String, schema: (GRDB.Database) throws -> Void = createItemTable
    ) throws -> DatabasePool {
        let pool = try openGRDBPool(directory, schema: schema)
        try grdbInsert(count: count, into: pool)
        return pool
    }

    /// The same lookups as ``strataPointReads(_:keyCount:in:seed:)`` with
    /// `GRDBItem.fetchOne(db, key:)`, all inside one read transaction.
    public static func grdbPointReads(_ reads: Int, keyCount: Int, in pool: DatabasePool, seed: UInt64 = 42) throws -> Int {
        try pool.read { db in
            var sum = 0
            try forEachRandomID(reads, keyCount: keyCount, seed: seed) { id in
                guard let item = try GRDBItem.fetchOne(db, key: id) else { fatalError("record \(id) missing") }
                sum &+= item.name.utf8.count &+ item.age
            }
            return sum
        }
    }

    /// The same lookups through one cached prepared statement
    /// (`SELECT * FROM item WHERE id = ?`): GRDB's fastest way to fetch a record by key, without
    /// the query interface building and compiling the SQL on every call as `fetchOne(db, key:)`
    /// does.
    public static func grdbPointReadsCached(_ reads: Int, keyCount: Int, in pool: DatabasePool, seed: UInt64 = 42) throws -> Int {
        try pool.read { db in
            var sum = 0
            let statement = try db.cachedStatement(sql: "SELECT * FROM item WHERE id = ?")
            try forEachRandomID(reads, keyCount: keyCount, seed: seed) { id in
                guard let item = try GRDBItem.fetchOne(statement, arguments: [id]) else { fatalError("record \(id) missing") }
                sum &+= item.name.utf8.count &+ item.age
            }
            return sum
        }
    }

    /// The sum of `age` over every record, decoding each through `GRDBItem.fetchCursor(db)`.
    public static func grdbCursorScan(_ pool: DatabasePool) throws -> Int {
        try pool.read { db in
            var sum = 0
            let cursor = try GRDBItem.fetchCursor(db)
            while let item = try cursor.next() { sum &+= item.age }
            return sum
        }
    }

    /// The sum of `age` computed by SQLite: `SELECT SUM(age) FROM item`.
    public static func grdbSQLSum(_ pool: DatabasePool) throws -> Int {
        try pool.read { db in try Int.fetchOne(db, sql: "SELECT SUM(age) FROM item") ?? 0 }
    }

    /// `GRDBItem.filter(Column("age") > 50).fetchCount(db)` (age is not indexed).
    public static func grdbCount(_ pool: DatabasePool) throws -> Int {
        try pool.read { db in try GRDBItem.filter(Column("age") > ageThreshold).fetchCount(db) }
    }
}
