// The size workload: the same persons and dogs (SizeModels.swift) written into Strata and into
// SQLite through GRDB, then, for the second scenario, half of every class updated once. The
// driver (ObjectProfile's `size` mode) compacts or vacuums and measures the files.
//
// Persons 0..<n and dogs 0..<max(1, n / 4): person i links to dog i / 4 (`dog`) and lists the
// two dogs after it (`dogs`, wrapping around). The update changes `age` and `score` of every
// even person (`age` is indexed on both sides) and `age` of every even dog.

import Foundation
import GRDB
import Strata

extension ObjectWorkloads {
    /// Dogs of the size workload for `persons` persons.
    public static func sizeDogCount(persons: Int) -> Int { max(1, persons / 4) }

    /// The name of dog `j`: "dog-" and 11 zero-padded digits (15 characters).
    static func sizeDogName(_ j: Int) -> String { "dog-" + fields(j).name.dropFirst(5) }

    /// The dogs person `i` links to: its `dog`, then the two entries of its `dogs` list.
    static func sizeDogLinks(_ i: Int, dogs: Int) -> (dog: Int, list: (Int, Int)) {
        let first = (i / 4) % dogs
        return (first, ((first + 1) % dogs, (first + 2) % dogs))
    }

    // MARK: Strata

    /// Writes the dogs, then `persons` persons, ``objectsPerWrite`` objects per `db.write`.
    public static func strataSizeLoad(persons: Int, into db: Strata.Database) throws {
        let dogs = sizeDogCount(persons: persons)
        try inWrites(count: dogs, of: db) { j in
            let dog = StrataSizeDog()
            dog._id = j
            dog.name = sizeDogName(j)
            dog.age = dogAge(j)
            try db.add(dog)
        }
        let dog = { (j: Int) -> StrataSizeDog in db.object(ofType: StrataSizeDog.self, forPrimaryKey: j)! }
        try inWrites(count: persons, of: db) { i in
            let f = fields(i)
            let links = sizeDogLinks(i, dogs: dogs)
            let person = StrataSizePerson()
            person._id = i
            person.name = f.name
            person.email = f.name + "@example.com"
            person.age = f.age
            person.score = f.score
            person.dog = dog(links.dog)
            person.dogs.append(dog(links.list.0))
            person.dogs.append(dog(links.list.1))
            try db.add(person)
        }
    }

    /// Updates every even person (`age`, `score`) and every even dog (`age`).
    public static func strataSizeUpdate(persons: Int, in db: Strata.Database) throws {
        try inWrites(count: (sizeDogCount(persons: persons) + 1) / 2, of: db) { k in
            let dog = db.object(ofType: StrataSizeDog.self, forPrimaryKey: 2 * k)!
            dog.age = (dog.age + 1) % 15
        }
        try inWrites(count: (persons + 1) / 2, of: db) { k in
            let person = db.object(ofType: StrataSizePerson.self, forPrimaryKey: 2 * k)!
            person.age = (person.age + 1) % 100
            person.score += 1
        }
    }

    // MARK: GRDB

    /// The same dogs and persons, and the persons' list entries, with cached `INSERT`s,
    /// ``objectsPerWrite`` objects per `write`.
    public static func grdbSizeLoad(persons: Int, into pool: DatabasePool) throws {
        let dogs = sizeDogCount(persons: persons)
        try grdbInWrites(count: dogs, of: pool) { db, j in
            try db.cachedStatement(sql: "INSERT INTO sizeDog (id, name, age) VALUES (?, ?, ?)")
                .execute(arguments: [j, sizeDogName(j), dogAge(j)])
        }
        try grdbInWrites(count: persons, of: pool) { db, i in
            let f = fields(i)
            let links = sizeDogLinks(i, dogs: dogs)
            try db.cachedStatement(sql: "INSERT INTO sizePerson (id, name, email, age, score, dogId) VALUES (?, ?, ?, ?, ?, ?)")
                .execute(arguments: [i, f.name, f.name + "@example.com", f.age, f.score, links.dog])
            let entry = try db.cachedStatement(sql: "INSERT INTO sizePersonDog (personId, position, dogId) VALUES (?, ?, ?)")
            try entry.execute(arguments: [i, 0, links.list.0])
            try entry.execute(arguments: [i, 1, links.list.1])
        }
    }

    /// The same update as ``strataSizeUpdate(persons:in:)``, one `UPDATE` per row.
    public static func grdbSizeUpdate(persons: Int, in pool: DatabasePool) throws {
        try grdbInWrites(count: (sizeDogCount(persons: persons) + 1) / 2, of: pool) { db, k in
            try db.cachedStatement(sql: "UPDATE sizeDog SET age = (age + 1) % 15 WHERE id = ?").execute(arguments: [2 * k])
        }
        try grdbInWrites(count: (persons + 1) / 2, of: pool) { db, k in
            try db.cachedStatement(sql: "UPDATE sizePerson SET age = (age + 1) % 100, score = score + 1 WHERE id = ?")
                .execute(arguments: [2 * k])
        }
    }

    // MARK: Files

    /// Every regular file directly in `directory` with its size in bytes, by name.
    public static func fileSizes(in directory: String) throws -> [(name: String, bytes: Int)] {
        try FileManager.default.contentsOfDirectory(atPath: directory).sorted().compactMap { name in
            let attributes = try FileManager.default.attributesOfItem(atPath: directory + "/" + name)
            guard attributes[.type] as? FileAttributeType == .typeRegular else { return nil }
            return (name, (attributes[.size] as? NSNumber)?.intValue ?? 0)
        }
    }
}
