// The models of the query workloads of issue 11 beyond the plain item: an item whose `age` is
// indexed, and persons each linking to a dog (for `dog.age > 3` against an SQL join).

import GRDB
import Strata

/// The workload's item with `age` indexed (`@Persisted(indexed: true)`); on the GRDB side the
/// same table `item` with `CREATE INDEX item_on_age ON item(age)`.
public final class StrataIndexedItem: Object, WorkloadItem {
    @Persisted(primaryKey: true) public var _id: Int
    @Persisted public var name: String
    @Persisted(indexed: true) public var age: Int
    @Persisted public var score: Double
}

/// Dog `i` of the join workload: `age` is ``ObjectWorkloads/dogAge(_:)``.
public final class StrataDog: Object {
    @Persisted(primaryKey: true) public var _id: Int
    @Persisted public var age: Int
}

/// Person `i` of the join workload: the name of item `i`, and a to-one link to dog `i`.
public final class StrataPerson: Object {
    @Persisted(primaryKey: true) public var _id: Int
    @Persisted public var name: String
    @Persisted public var dog: StrataDog?
}

/// Table `dog (id INTEGER PRIMARY KEY, age INTEGER NOT NULL)`.
public struct GRDBDog: TableRecord, Sendable {
    public static let databaseTableName = "dog"
}

/// Table `person (id INTEGER PRIMARY KEY, name TEXT NOT NULL, dogId REFERENCES dog)`, made with
/// GRDB's `belongsTo` (which also indexes `dogId`), and its association to `dog`.
public struct GRDBPerson: TableRecord, Sendable {
    public static let databaseTableName = "person"
    public static let dog = belongsTo(GRDBDog.self)
}
