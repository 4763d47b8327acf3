// The models of the size workload (ObjectWorkloads+Size.swift): persons with several scalar
// properties (two strings, an indexed integer, a double), a to-one link and a to-many list of
// links to dogs; and the same data as a GRDB user would declare it in SQLite.

import GRDB
import Strata

/// Dog `j` of the size workload: a name of 15 characters and an age in 0..<15.
public final class StrataSizeDog: Object {
    @Persisted(primaryKey: true) public var _id: Int
    @Persisted public var name: String
    @Persisted public var age: Int
}

/// Person `i` of the size workload: the name, age and score of item `i`, an e-mail address
/// (the name and "@example.com": 28 characters), `age` indexed as ``StrataIndexedItem``'s, a
/// to-one link `dog` and a list `dogs` of two more links (to dogs shared with other persons).
public final class StrataSizePerson: Object {
    @Persisted(primaryKey: true) public var _id: Int
    @Persisted public var name: String
    @Persisted public var email: String
    @Persisted(indexed: true) public var age: Int
    @Persisted public var score: Double
    @Persisted public var dog: StrataSizeDog?
    @Persisted public var dogs: List<StrataSizeDog>
}

extension ObjectWorkloads {
    /// The size workload's schema in SQLite, as GRDB's guides declare it:
    ///
    /// ```sql
    /// CREATE TABLE sizeDog (id INTEGER PRIMARY KEY, name TEXT NOT NULL, age INTEGER NOT NULL)
    /// CREATE TABLE sizePerson (id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL,
    ///   age INTEGER NOT NULL, score DOUBLE NOT NULL, dogId INTEGER REFERENCES sizeDog(id))
    /// CREATE INDEX sizePerson_on_dogId ON sizePerson(dogId)          -- belongsTo's index
    /// CREATE INDEX sizePerson_on_age ON sizePerson(age)              -- as @Persisted(indexed:)
    /// CREATE TABLE sizePersonDog (personId INTEGER NOT NULL REFERENCES sizePerson(id)
    ///   ON DELETE CASCADE, position INTEGER NOT NULL, dogId INTEGER NOT NULL
    ///   REFERENCES sizeDog(id) ON DELETE CASCADE, PRIMARY KEY (personId, position))
    /// CREATE INDEX sizePersonDog_on_dogId ON sizePersonDog(dogId)    -- belongsTo's index
    /// ```
    ///
    /// The list is the join table `sizePersonDog`, ordered by `position`; its primary key
    /// serves a person's list, and the index on `dogId` serves the reverse direction (what
    /// Strata's backlinks answer), as the index on `sizePerson.dogId` does for the link.
    public static func createSizeTables(_ db: GRDB.Database) throws {
        try db.create(table: "sizeDog") { table in
            table.primaryKey("id", .integer)
            table.column("name", .text).notNull()
            table.column("age", .integer).notNull()
        }
        try db.create(table: "sizePerson") { table in
            table.primaryKey("id", .integer)
            table.column("name", .text).notNull()
            table.column("email", .text).notNull()
            table.column("age", .integer).notNull().indexed()
            table.column("score", .double).notNull()
            table.belongsTo("dog", inTable: "sizeDog", onDelete: .setNull)
        }
        try db.create(table: "sizePersonDog") { table in
            table.primaryKey {
                table.belongsTo("person", inTable: "sizePerson", onDelete: .cascade)
                table.column("position", .integer)
            }
            table.belongsTo("dog", inTable: "sizeDog", onDelete: .cascade).notNull()
        }
    }
}
