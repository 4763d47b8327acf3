import Foundation
@_spi(Testing) import StrataStorage
import XCTest

@testable import Strata

/// Damaged object records — bytes changed behind a valid checksum, as a bug, a crafted file or
/// an undetected disk error leaves them — never kill the reading process: a read returns the
/// stored value or a default, and the damage is kept in `Database.readFailure`.
final class ReadDamageTests: DatabaseTestCase {
    private func openPets() throws -> Database { try open([Owner.self, Pet.self, Place.self]) }

    /// An owner with every kind of property set, and two pets.
    private func addRichOwner(to db: Database) throws {
        try db.write {
            let owner = Owner()
            owner.id = 7
            owner.name = "Ann"
            let rex = Pet()
            rex.name = "Rex"
            let tom = Pet()
            tom.name = "Tom"
            owner.pet = rex
            owner.pets.append(objectsIn: [rex, tom, rex])
            owner.favorites.insert(tom)
            owner.byName["r"] = rex
            let home = Place()
            home.street = "Main"
            home.city = "Oslo"
            home.landlord = tom
            owner.home = home
            let past = Place()
            past.city = "Bergen"
            owner.pastHomes.append(past)
            owner.tags.append(objectsIn: ["a", "bé"])
            owner.nicknames.insert("annie")
            owner.scores["x"] = 3
            owner.extra = .map(["k": .list([.int(1), .string("s"), .double(-0.5)])])
            owner.size = .large
            owner.level = .high
            try db.add(owner)
        }
    }

    /// Reads every property of every object, through every kind of accessor.
    private func readEverything(_ db: Database) -> String {
        var text = ""
        for owner in db.objects(Owner.self) {
            text += "\(owner.id) \(owner.name) \(owner.pet?.name ?? "-") \(owner.pets.map(\.name))"
            text += " \(owner.favorites.map(\.name).sorted()) \(owner.byName.keys.sorted())"
            text += " \(owner.home?.street ?? "-") \(owner.home?.city ?? "-") \(owner.home?.landlord?.name ?? "-")"
            text += " \(owner.pastHomes.map { $0.city ?? "-" }) \(Array(owner.tags)) \(Array(owner.nicknames))"
            text += " \(owner.scores["x"] ?? -1) \(owner.extra) \(String(describing: owner.size)) \(owner.level)\n"
        }
        for pet in db.objects(Pet.self) {
            text += "\(pet.name) \(pet.owners.map(\.id)) \(pet.mainOwners.count)\n"
        }
        _ = db.object(ofType: Owner.self, forPrimaryKey: 7)?.name
        // Queries: over the class's columns, through links and collections, sorted, aggregated.
        let owners = db.objects(Owner.self)
        text += "\(owners.where { $0.id > 3 }.count) \(owners.filter("name BEGINSWITH[c] 'o'").count)"
        text += " \(owners.sorted(byKeyPath: "name").map(\.id)) \(owners.sum(of: \.id)) \(owners.max(of: \.id) ?? -1)"
        text += " \(owners.filter("pet.name != nil OR ANY pets.name == 'x' OR scores['x'] > 1").count)"
        text += " \(db.objects(Pet.self).filter("owners.@count > 0").count)\n"
        return text
    }

    /// The object records of the store: (keyspace, key, value).
    private func objectRecords(_ store: Store) throws -> [(Keyspace, StorageKey, [UInt8])] {
        let snapshot = store.snapshot()
        var records: [(Keyspace, StorageKey, [UInt8])] = []
        for keyspace in snapshot.keyspaces.sorted() {
            try snapshot.forEach(in: keyspace) { key, value in
                records.append((keyspace, key, Array(value)))
                return true
            }
        }
        return records
    }

    private func put(_ value: [UInt8], _ key: StorageKey, _ keyspace: Keyspace, in store: Store) throws {
        var batch = WriteBatch()
        batch.put(value, forKey: key, in: keyspace)
        try store.commit(batch)
    }

    func testChangedBytesBehindValidChecksumsNeverTrap() throws {
        do { try addRichOwner(to: try openPets()) }
        let expected = try readEverything(openPets())
        // Every record of the object layer: objects, catalog, backlinks, index entries.
        let records = try objectRecords(Store(directory: directory.path))
        // STRATA_DAMAGE_ROUNDS and STRATA_DAMAGE_SEED run a longer or another sweep by hand.
        let environment = ProcessInfo.processInfo.environment
        let rounds = environment["STRATA_DAMAGE_ROUNDS"].flatMap(Int.init) ?? 300
        let seed = environment["STRATA_DAMAGE_SEED"].flatMap(UInt64.init) ?? 0x5EED_0009
        var generator = SplitMix64(seed: seed)
        var changed = 0, reportedDamage = 0
        for round in 0..<rounds {
            let (keyspace, key, original) = records[Int(generator.next() % UInt64(records.count))]
            guard !original.isEmpty else { continue }
            var damaged = original
            let position = Int(generator.next() % UInt64(damaged.count))
            damaged[position] ^= UInt8(truncatingIfNeeded: generator.next() % 255 + 1)
            try put(damaged, key, keyspace, in: Store(directory: directory.path))
            do {
                let db = try openPets()
                let read = readEverything(db)
                if read != expected { changed += 1 }
                if db.readFailure != nil { reportedDamage += 1 }
                // Every read either finds the stored value or reports damage: a write that read
                // nothing damaged commits.
                if db.readFailure == nil {
                    try db.write { db.objects(Owner.self).first?.name = "Ann" }
                }
            } catch let error as StrataError {
                // The catalog is read at open: damage there refuses the open, typed (a damaged
                // type name reads as a schema that differs from the declared one).
                XCTAssertTrue([.corruption, .schemaMismatch].contains(error.code), "seed \(seed) round \(round): \(error)")
                XCTAssertEqual(keyspace, ObjectFormat.catalogKeyspace, "seed \(seed) round \(round): \(error)")
            }
            try put(original, key, keyspace, in: Store(directory: directory.path))
        }
        XCTAssertGreaterThan(reportedDamage, 0)
        XCTAssertEqual(try readEverything(openPets()), expected)
        print("ReadDamageTests: seed \(seed), \(rounds) changed bytes, \(changed) changed what was read, \(reportedDamage) reported damage")
    }

    func testDamagedRecordReadsDefaultsAndFailsTheWriteThatReadIt() throws {
        do { try addRichOwner(to: try openPets()) }
        let records = try objectRecords(Store(directory: directory.path))
        let owners = records.filter { $0.0.rawValue >= ObjectFormat.firstClassID }
        let (keyspace, key, original) = try XCTUnwrap(owners.first { String(decoding: $0.2, as: UTF8.self).contains("Ann") })
        // A trailing byte: the record no longer decodes.
        let damaged = original + [0xFF]
        try put(damaged, key, keyspace, in: Store(directory: directory.path))
        let db = try openPets()
        let owner = try XCTUnwrap(db.object(ofType: Owner.self, forPrimaryKey: 7))
        XCTAssertEqual(owner.name, "")
        XCTAssertEqual(db.readFailure?.code, .corruption)
        XCTAssertThrowsError(try db.write { owner.tags.append("c") }) { error in
            XCTAssertEqual((error as? StrataError)?.code, .corruption)
        }
        // Nothing was written over the damaged record.
        XCTAssertEqual(try db.shared.store.snapshot().value(for: key, in: keyspace), damaged)
    }
}
