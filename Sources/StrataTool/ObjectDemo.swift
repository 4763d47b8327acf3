// `strata demo PATH` (without --storage): the object database in a few steps, each printing one
// line: write objects with links, a list, embedded objects and backlinks; query them; freeze a
// view; change and compact while the frozen view is held; reopen and verify.

import Foundation
@_spi(Tooling) import Strata
import StrataStorage

struct ObjectDemo {
    let path: String
    let key: [UInt8]?

    var configuration: Database.Configuration {
        var configuration = Database.Configuration(directory: URL(fileURLWithPath: path), objectTypes: [Person.self, Dog.self, Address.self])
        configuration.encryptionKey = key.map { Data($0) }
        configuration.storageOptions.segmentSize = 4096   // small segments, so that there is something to compact
        return configuration
    }

    func run() throws {
        do {
            let frozen = try writeQueryAndFreeze()
            try changeAndCompact(holding: frozen)
        }   // the last views go: the store closes, and the segments compaction replaced are removed
        let db = try Database(configuration: configuration)
        let report = db.checkIntegrity()
        guard report.isClean else {
            for problem in report.problems { Output.error("problem: \(problem)") }
            throw StrataError(.corruption, "the demo database has \(Format.counted(report.problems.count, "object-level problem"))")
        }
        print("reopen:  \(Format.counted(db.objects(Person.self).count, "person", plural: "people")) and \(Format.counted(db.objects(Dog.self).count, "dog")); verified \(Format.counted(report.objectsChecked, "object")), \(Format.counted(report.linksChecked, "link")), \(Format.counted(report.backlinksChecked, "backlink")), \(Format.counted(report.indexEntriesChecked, "index entry", plural: "index entries")): OK")
    }

    /// Steps 1–3. Returns the frozen view.
    private func writeQueryAndFreeze() throws -> Database {
        let db = try Database(configuration: configuration)
        try db.write {
            let dogs = [("Rex", 5, 31.5), ("Fido", 2, 12.0), ("Bella", 7, 24.2), ("Max", 1, 8.3)].map { name, age, weight in
                Dog(value: ["name": name, "age": age, "weight": weight])
            }
            try db.add([
                Person(value: ["id": 1, "name": "Ann", "address": Address(value: ["street": "1 Main St", "city": "Oslo"]), "dogs": [dogs[0], dogs[1]]]),
                Person(value: ["id": 2, "name": "Bob", "address": Address(value: ["street": "2 Elm Rd", "city": "Bergen"]), "dogs": [dogs[0], dogs[2]]]),
                Person(value: ["id": 3, "name": "Cid", "dogs": [dogs[3]]]),
            ])
        }
        print("write:   3 people (each with an embedded address and a list of dogs) and 4 dogs, in one transaction")
        let older = db.objects(Dog.self).filter("age > 3").sorted(byKeyPath: "name")
        print("query:   dogs older than 3: \(older.map { "\($0.name) (\($0.age))" }.joined(separator: ", "))")
        let rex = db.object(ofType: Dog.self, forPrimaryKey: "Rex")
        print("links:   Rex is owned by \(rex?.owners.map(\.name).sorted().joined(separator: " and ") ?? "nobody") (a backlink: LinkingObjects of Person.dogs)")
        return db.freeze()
    }

    /// Steps 4–5: changes many times (dead records), compacts while `frozen` is held.
    private func changeAndCompact(holding frozen: Database) throws {
        let db = try Database(configuration: configuration)
        for _ in 1...200 {
            try db.write { for dog in db.objects(Dog.self) { dog.walks += 1 } }
        }
        try db.write {
            if let max = db.object(ofType: Dog.self, forPrimaryKey: "Max") { try db.delete(max) }
        }
        print("change:  200 transactions, each counting a walk of every dog, then Max deleted: \(Format.counted(db.objects(Dog.self).count, "dog")) live, \(frozen.objects(Dog.self).count) in the frozen view")
        let report = try db.compact()
        let frozenRex = frozen.object(ofType: Dog.self, forPrimaryKey: "Rex")
        print("compact: \(report.segmentsBefore) → \(Format.counted(report.segmentsAfter, "segment")), \(Format.bytes(report.bytesBefore)) → \(Format.bytes(report.bytesAfter)) while the frozen view was held; it still reads Rex with \(frozenRex.map { Format.counted($0.walks, "walk") } ?? "? walks") (live: \(db.object(ofType: Dog.self, forPrimaryKey: "Rex")?.walks ?? 0)) and \(Format.counted(frozen.objects(Dog.self).count, "dog"))")
    }
}
