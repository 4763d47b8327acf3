// Cold figures: the first query of a fresh process on databases written earlier.
//
//   ObjectProfile load PATH COUNT      writes COUNT persons {id, name (16 chars), age, score, dog}
//                                      and COUNT dogs {id, age} (person i links to dog i) into
//                                      PATH/strata (then `compact()`, close, reopen and close,
//                                      which removes the replaced segments) and PATH/grdb.sqlite
//                                      (a `DatabasePool`, then `wal_checkpoint(TRUNCATE)`, close)
//   ObjectProfile cold-strata PATH QUERY [COUNT]
//   ObjectProfile cold-grdb PATH QUERY [COUNT] opens the files, runs QUERY once, prints the time of open +
//                                      query and of the query alone, and RssAnon after the query
//
// QUERY: scan (age and name of every person), sum (of age), maxavg (max and average of score),
// link (persons whose dog is older than 3), indexed (skipped: no property of this model is
// indexed), point (10,000 reads by primary key of name and age). The answer is checked against
// the generator after RssAnon is read. GRDB reads as fast as it can: positional `row[i]`
// decoding of only the columns the query needs, cached statements, one SQL statement per query.

import Foundation
import GRDB
import ObjectWorkloads
import StorageWorkloads
import Strata

/// Dog `i` of the cold data set: `age` is ``ObjectWorkloads/dogAge(_:)``.
final class ColdDog: Object {
    @Persisted(primaryKey: true) var _id: Int
    @Persisted var age: Int
}

/// Person `i` of the cold data set: item `i`'s fields and a link to dog `i`.
final class ColdPerson: Object {
    @Persisted(primaryKey: true) var _id: Int
    @Persisted var name: String
    @Persisted var age: Int
    @Persisted var score: Double
    @Persisted var dog: ColdDog?
}

let coldObjectTypes: [ObjectBase.Type] = [ColdDog.self, ColdPerson.self]
/// Point reads of the `point` query.
let coldPointReads = 10_000

func coldStrataDirectory(_ path: String) -> String { path + "/strata" }
func coldGRDBPath(_ path: String) -> String { path + "/grdb.sqlite" }

func openColdStrata(_ path: String) throws -> Strata.Database {
    try ObjectWorkloads.openStrata(coldStrataDirectory(path), durability: .none, objectTypes: coldObjectTypes)
}

// MARK: Load

/// Writes the cold data set of `count` persons into both databases under `path`.
func coldLoad(_ path: String, count: Int) throws {
    try FileManager.default.createDirectory(atPath: coldStrataDirectory(path), withIntermediateDirectories: true)
    do {
        let db = try openColdStrata(path)
        let timing = try ObjectWorkloads.timed {
            try ObjectWorkloads.inWrites(count: count, of: db) { i in
                let f = ObjectWorkloads.fields(i)
                let dog = ColdDog()
                dog._id = i
                dog.age = ObjectWorkloads.dogAge(i)
                let person = ColdPerson()
                person._id = i
                person.name = f.name
                person.age = f.age
                person.score = f.score
                person.dog = dog
                try db.add(dog)
                try db.add(person)
            }
        }
        let report = try db.compact()
        print(String(format: "Strata: %ld persons and dogs in %.3f s; compact(): %@", count, timing.wall, report.description))
    }
    do { _ = try openColdStrata(path) }
    let pool = try DatabasePool(path: coldGRDBPath(path))
    try pool.write { db in
        try db.create(table: "dog") { table in
            table.primaryKey("id", .integer)
            table.column("age", .integer).notNull()
        }
        try db.create(table: "person") { table in
            table.primaryKey("id", .integer)
            table.column("name", .text).notNull()
            table.column("age", .integer).notNull()
            table.column("score", .double).notNull()
            table.belongsTo("dog")
        }
    }
    let timing = try ObjectWorkloads.timed {
        try ObjectWorkloads.grdbInWrites(count: count, of: pool) { db, i in
            let f = ObjectWorkloads.fields(i)
            try db.cachedStatement(sql: "INSERT INTO dog (id, age) VALUES (?, ?)").execute(arguments: [i, ObjectWorkloads.dogAge(i)])
            try db.cachedStatement(sql: "INSERT INTO person (id, name, age, score, dogId) VALUES (?, ?, ?, ?, ?)")
                .execute(arguments: [i, f.name, f.age, f.score, i])
        }
    }
    try pool.writeWithoutTransaction { try $0.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
    try pool.close()
    print(String(format: "GRDB: %ld persons and dogs in %.3f s; checkpointed", count, timing.wall))
    for directory in [coldStrataDirectory(path), path] {
        let files = try ObjectWorkloads.fileSizes(in: directory)
        print("  \(directory): \(files.map { "\($0.name) \($0.bytes)" }.joined(separator: ", "))")
    }
}

// MARK: Queries

/// What a query returned, to check against the generator after the measurement.
enum ColdAnswer {
    case tally(ObjectWorkloads.Tally)
    case int(Int)
    case maxAverage(Double, Double)
}

/// The answer `query` must give over `count` persons.
func coldExpected(_ query: String, count: Int) -> ColdAnswer {
    var tally = ObjectWorkloads.Tally(), ageSum = 0, link = 0, maxScore = -Double.infinity, scoreSum = 0.0
    if query == "point" { return .int(ObjectWorkloads.expectedPointReads(coldPointReads, keyCount: count, seed: 42)) }
    for i in 0..<count {
        let f = ObjectWorkloads.fields(i)
        tally.add(age: f.age, name: f.name)
        ageSum += f.age
        if ObjectWorkloads.dogAge(i) > ObjectWorkloads.dogAgeThreshold { link += 1 }
        maxScore = max(maxScore, f.score)
        scoreSum += f.score
    }
    switch query {
    case "scan": return .tally(tally)
    case "sum": return .int(ageSum)
    case "link": return .int(link)
    default: return .maxAverage(maxScore, scoreSum / Double(count))
    }
}

func coldMatches(_ a: ColdAnswer, _ b: ColdAnswer) -> Bool {
    switch (a, b) {
    case let (.tally(x), .tally(y)): x == y
    case let (.int(x), .int(y)): x == y
    case let (.maxAverage(m1, a1), .maxAverage(m2, a2)): m1 == m2 && abs(a1 - a2) <= 1e-9 * max(1, abs(a2))
    default: false
    }
}

func strataColdQuery(_ query: String, _ db: Strata.Database, count: Int) -> ColdAnswer {
    let persons = db.objects(ColdPerson.self)
    switch query {
    case "scan":
        var tally = ObjectWorkloads.Tally()
        for person in persons { tally.add(age: person.age, name: person.name) }
        return .tally(tally)
    case "sum": return .int(persons.sum(of: \.age))
    case "maxavg": return .maxAverage(persons.max(of: \.score)!, persons.average(of: \.score)!)
    case "link": return .int(persons.where { $0.dog.age > ObjectWorkloads.dogAgeThreshold }.count)
    default:
        var sum = 0
        ObjectWorkloads.forEachRandomID(coldPointReads, keyCount: count, seed: 42) { id in
            guard let person = db.object(ofType: ColdPerson.self, forPrimaryKey: id) else { fatalError("person \(id) missing") }
            sum &+= person.name.utf8.count &+ person.age
        }
        return .int(sum)
    }
}

func grdbColdQuery(_ query: String, _ db: GRDB.Database, count: Int) throws -> ColdAnswer {
    switch query {
    case "scan":
        var tally = ObjectWorkloads.Tally()
        let rows = try Row.fetchCursor(db.cachedStatement(sql: "SELECT age, name FROM person"))
        while let row = try rows.next() { tally.add(age: row[0], name: row[1]) }
        return .tally(tally)
    case "sum": return .int(try Int.fetchOne(db.cachedStatement(sql: "SELECT SUM(age) FROM person"))!)
    case "maxavg":
        let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT MAX(score), AVG(score) FROM person"))!
        return .maxAverage(row[0], row[1])
    case "link":
        let sql = "SELECT COUNT(*) FROM person JOIN dog ON dog.id = person.dogId WHERE dog.age > ?"
        return .int(try Int.fetchOne(db.cachedStatement(sql: sql), arguments: [ObjectWorkloads.dogAgeThreshold])!)
    default:
        let statement = try db.cachedStatement(sql: "SELECT name, age FROM person WHERE id = ?")
        var sum = 0
        try ObjectWorkloads.forEachRandomID(coldPointReads, keyCount: count, seed: 42) { id in
            guard let row = try Row.fetchOne(statement, arguments: [id]) else { fatalError("person \(id) missing") }
            sum &+= (row[0] as String).utf8.count &+ (row[1] as Int)
        }
        return .int(sum)
    }
}

/// RssAnon of this process, in bytes (0 if /proc/self/status has none).
func rssAnon() -> Int {
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("RssAnon:") }) else { return 0 }
    return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) * 1024
}

/// Prints one cold measurement and checks `answer`.
func coldReport(_ side: String, _ query: String, open: Double, query queryTiming: ObjectWorkloads.Timing, count: Int, answer: ColdAnswer) {
    let rss = rssAnon()
    var extra = ""
    if query == "point" { extra = String(format: ", %.0f reads/s", Double(coldPointReads) / queryTiming.wall) }
    print(String(
        format: "cold %@ %@, %ld persons: open+query %.4f s, query %.4f s (CPU %.4f s)%@; RssAnon %ld bytes = %.1f B/person [%@]",
        side, query, count, open + queryTiming.wall, queryTiming.wall, queryTiming.cpu, extra, rss,
        Double(rss) / Double(max(count, 1)), loadAverage()))
    guard coldMatches(answer, coldExpected(query, count: count)) else { fatalError("cold \(side) \(query): wrong answer \(answer)") }
}

let coldQueries = ["scan", "sum", "maxavg", "link", "indexed", "point"]

/// The persons in the databases: `cold-strata PATH QUERY [COUNT]` (1,000,000 by default); the
/// point query draws its keys from 0..<COUNT and every answer is checked for COUNT persons.
let coldCount = CommandLine.arguments.count > 4 ? Int(CommandLine.arguments[4]) ?? 0 : ObjectWorkloads.objectCount

/// `cold-strata PATH QUERY [COUNT]`.
func coldStrata(_ path: String, _ query: String) throws {
    guard coldQueries.contains(query) else { throw ColdUsage() }
    if query == "indexed" { return print("cold Strata indexed: skipped (no property of the cold model is indexed)") }
    var db: Strata.Database?
    let open = try ObjectWorkloads.timed { db = try openColdStrata(path) }
    var answer = ColdAnswer.int(0)
    let timing = ObjectWorkloads.timed { answer = strataColdQuery(query, db!, count: coldCount) }
    coldReport("Strata", query, open: open.wall, query: timing, count: coldCount, answer: answer)
}

/// `cold-grdb PATH QUERY [COUNT]`.
func coldGRDB(_ path: String, _ query: String) throws {
    guard coldQueries.contains(query) else { throw ColdUsage() }
    if query == "indexed" { return print("cold GRDB indexed: skipped (no property of the cold model is indexed)") }
    var pool: DatabasePool?
    let open = try ObjectWorkloads.timed { pool = try DatabasePool(path: coldGRDBPath(path)) }
    var answer = ColdAnswer.int(0)
    let timing = try ObjectWorkloads.timed { answer = try pool!.read { try grdbColdQuery(query, $0, count: coldCount) } }
    coldReport("GRDB", query, open: open.wall, query: timing, count: coldCount, answer: answer)
}

/// Runs `load`, `cold-strata` or `cold-grdb` with `arguments` (the command line after the mode).
func runCold(_ mode: String, _ arguments: [String]) throws {
    guard arguments.count >= 2 else { throw ColdUsage() }
    switch mode {
    case "load":
        guard let count = Int(arguments[1]), count > 0 else { throw ColdUsage() }
        try coldLoad(arguments[0], count: count)
    case "cold-strata": try coldStrata(arguments[0], arguments[1])
    default: try coldGRDB(arguments[0], arguments[1])
    }
}

struct ColdUsage: Error, CustomStringConvertible {
    var description: String { "usage: load PATH COUNT | cold-strata PATH QUERY [COUNT] | cold-grdb PATH QUERY [COUNT]; QUERY is one of: \(coldQueries.joined(separator: " "))" }
}
