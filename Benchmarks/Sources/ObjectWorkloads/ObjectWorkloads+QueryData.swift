// The databases of the query workloads beyond the plain items (the indexed items; persons and
// their dogs), and every answer the workloads must return, computed from the generator.

import GRDB
import Strata

extension ObjectWorkloads {
    /// The age of dog `i`: 0..<15 from the same hash as item `i`'s age.
    @inline(__always)
    public static func dogAge(_ i: Int) -> Int { fields(i).age % 15 }

    // MARK: Indexed items

    /// A Strata database of `count` ``StrataIndexedItem``s (the items' values, `age` indexed).
    public static func loadStrataIndexed(count: Int = objectCount, in directory: String) throws -> Strata.Database {
        let db = try openStrata(directory, durability: .none, objectTypes: [StrataIndexedItem.self])
        try insertItems(StrataIndexedItem.self, count: count, into: db)
        return db
    }

    /// A GRDB database of `count` items with an index on `age`.
    public static func loadGRDBIndexed(count: Int = objectCount, in directory: String) throws -> DatabasePool {
        try loadGRDB(count: count, in: directory) { db in
            try createItemTable(db)
            try db.create(index: "item_on_age", on: GRDBItem.databaseTableName, columns: ["age"])
        }
    }

    // MARK: Persons and dogs

    /// A Strata database of `count` dogs and `count` persons, person `i` linking to dog `i`
    /// (added together, ``objectsPerWrite`` persons per write).
    public static func loadStrataPeople(count: Int = objectCount, in directory: String) throws -> Strata.Database {
        let db = try openStrata(directory, durability: .none, objectTypes: [StrataDog.self, StrataPerson.self])
        try inWrites(count: count, of: db) { i in
            let dog = StrataDog()
            dog._id = i
            dog.age = dogAge(i)
            try db.add(dog)
            let person = StrataPerson()
            person._id = i
            person.name = fields(i).name
            person.dog = dog
            try db.add(person)
        }
        return db
    }

    /// The same persons and dogs in GRDB: tables `dog` and `person` (`belongsTo("dog")`, so
    /// `person.dogId` is a foreign key with an index, as GRDB's guide sets associations up).
    public static func loadGRDBPeople(count: Int = objectCount, in directory: String) throws -> DatabasePool {
        let pool = try openGRDBPool(directory) { db in
            try db.create(table: GRDBDog.databaseTableName) { table in
                table.primaryKey("id", .integer)
                table.column("age", .integer).notNull()
            }
            try db.create(table: GRDBPerson.databaseTableName) { table in
                table.primaryKey("id", .integer)
                table.column("name", .text).notNull()
                table.belongsTo("dog")
            }
        }
        try grdbInWrites(count: count, of: pool) { db, i in
            try db.cachedStatement(sql: "INSERT INTO dog (id, age) VALUES (?, ?)").execute(arguments: [i, dogAge(i)])
            try db.cachedStatement(sql: "INSERT INTO person (id, name, dogId) VALUES (?, ?, ?)")
                .execute(arguments: [i, fields(i).name, i])
        }
        return pool
    }

    // MARK: Answers

    /// What every workload over `count` objects must return, from the generator.
    public struct Expected: Sendable {
        /// The sum of `age` (scan) and the count of `age > 50` (count).
        public var ageSum = 0, olderCount = 0
        public var minAge = Int.max, maxAge = Int.min
        /// `age` and `name` of every object (scan reading both).
        public var all = Tally()
        /// The matches of the indexed equality and range queries.
        public var indexedEquality = Tally(), indexedRange = Tally()
        /// The first ``sortLimit`` objects by `age`. Objects of equal age may come in any
        /// order (SQL does not say which), so this relies on every name having the same length.
        public var sortedPrefix = Tally()
        /// Persons whose dog's age is > 3.
        public var linkCount = 0
        /// The checksum of the point reads (`count` reads among `count` keys).
        public var pointReads = 0
        public var count = 0

        public init() {}

        /// The mean of `age`.
        public var averageAge: Double { Double(ageSum) / Double(count) }

        /// The value of `aggregate`.
        public func value(of aggregate: Aggregate) -> Double {
            switch aggregate {
            case .sum: Double(ageSum)
            case .min: Double(minAge)
            case .max: Double(maxAge)
            case .average: averageAge
            }
        }

        /// Whether `value` is the answer of `aggregate` (an average within rounding).
        public func matches(_ value: Double, _ aggregate: Aggregate) -> Bool {
            abs(value - self.value(of: aggregate)) <= 1e-9 * Swift.max(1, abs(self.value(of: aggregate)))
        }
    }

    /// The answers for objects 0..<count.
    public static func expected(count: Int = objectCount) -> Expected {
        var expected = Expected()
        expected.count = count
        expected.pointReads = expectedPointReads(count, keyCount: count)
        var ages = [Int](repeating: 0, count: 100)
        var nameLength = 0
        for i in 0..<count {
            let f = fields(i)
            nameLength = f.name.utf8.count
            expected.ageSum += f.age
            if f.age > ageThreshold { expected.olderCount += 1 }
            expected.minAge = min(expected.minAge, f.age)
            expected.maxAge = max(expected.maxAge, f.age)
            expected.all.add(age: f.age, name: f.name)
            ages[f.age] += 1
            if let first = indexedQueryAges.last(where: { $0 <= f.age }) {
                if f.age == first { expected.indexedEquality.add(age: f.age, name: f.name) }
                if f.age < first + indexedRangeWidth { expected.indexedRange.add(age: f.age, name: f.name) }
            }
            if dogAge(i) > dogAgeThreshold { expected.linkCount += 1 }
        }
        var left = min(sortLimit, count)
        for (age, objects) in ages.enumerated() where left > 0 {
            for _ in 0..<min(objects, left) {
                expected.sortedPrefix.count += 1
                expected.sortedPrefix.sum &+= age &+ nameLength
            }
            left -= min(objects, left)
        }
        return expected
    }
}
