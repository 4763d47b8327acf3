import Foundation
@_spi(Testing) import Strata
import StrataStorage

/// A person of the object crash suite: an indexed name, a link and an embedded address.
final class CrashPerson: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted(indexed: true) var name: String
    @Persisted var friend: Pet?
    @Persisted var address: Place?
}

/// The seeded object workload of the crash suite: each step is one `write` of one to three
/// random operations — adds, link and list edits, set and map edits, mixed values, embedded
/// replacements, deletes (with their cascades) and upserts (`.modified` and `.all`). Keys are
/// chosen from small ranges, so that links, deletes and upserts meet existing objects; the same
/// seed makes the same operations.
struct ObjectCrashWorkload {
    static let types: [ObjectBase.Type] = [Owner.self, Pet.self, Place.self, CrashPerson.self]
    static let names = ["Ann", "Bob", "Cy"]

    private var random: SplitMix64

    init(seed: UInt64) { random = SplitMix64(seed: seed) }

    /// Runs one write of the workload on `db`.
    mutating func step(_ db: Database) throws {
        let count = Int.random(in: 1...3, using: &random)
        try db.write {
            for _ in 0..<count { try apply(Int.random(in: 0..<14, using: &random), db) }
        }
    }

    private mutating func pet(_ db: Database) -> Pet? {
        let pets = db.objects(Pet.self).sorted { $0.name < $1.name }
        return pets.isEmpty ? nil : pets[Int.random(in: 0..<pets.count, using: &random)]
    }

    private mutating func owner(_ db: Database) -> Owner? {
        let owners = db.objects(Owner.self).sorted { $0.id < $1.id }
        return owners.isEmpty ? nil : owners[Int.random(in: 0..<owners.count, using: &random)]
    }

    private mutating func place(_ db: Database) -> Place {
        Place(value: ["city": "c\(Int.random(in: 0..<100, using: &random))", "landlord": pet(db) as Any])
    }

    private mutating func apply(_ operation: Int, _ db: Database) throws {
        switch operation {
        case 0:
            let name = "p\(Int.random(in: 0..<30, using: &random))"
            if db.object(ofType: Pet.self, forPrimaryKey: name) == nil { try db.add(Pet(value: ["name": name])) }
        case 1:
            let id = Int.random(in: 0..<15, using: &random)
            guard db.object(ofType: Owner.self, forPrimaryKey: id) == nil else { return }
            let owner = Owner(value: ["id": id, "name": "o\(id)"])
            owner.pet = pet(db)
            if let first = pet(db) { owner.pets.append(first) }
            owner.home = place(db)
            try db.add(owner)
        case 2: owner(db)?.pet = pet(db)
        case 3: if let owner = owner(db), let pet = pet(db) { owner.pets.append(pet) }
        case 4: try editList(db)
        case 5: if let owner = owner(db), let pet = pet(db) { owner.favorites.contains(pet) ? owner.favorites.remove(pet) : owner.favorites.insert(pet) }
        case 6: if let owner = owner(db) { owner.byName["k\(Int.random(in: 0..<3, using: &random))"] = pet(db) }
        case 7: if let owner = owner(db) { owner.extra = Bool.random(using: &random) ? pet(db).map(AnyValue.object) ?? .none : .int(7) }
        case 8: if let owner = owner(db) { owner.home = Bool.random(using: &random) ? place(db) : nil }
        case 9: try editEmbeddedList(db)
        case 10: if let pet = pet(db) { try db.delete(pet) }
        case 11: if let owner = owner(db) { try db.delete(owner) }
        case 12: try upsertOwner(db)
        default: try editPerson(db)
        }
    }

    private mutating func editList(_ db: Database) throws {
        guard let owner = owner(db), !owner.pets.isEmpty else { return }
        if Bool.random(using: &random) {
            owner.pets.remove(at: Int.random(in: 0..<owner.pets.count, using: &random))
        } else {
            owner.pets.move(from: 0, to: owner.pets.count - 1)
        }
    }

    private mutating func editEmbeddedList(_ db: Database) throws {
        guard let owner = owner(db) else { return }
        if owner.pastHomes.isEmpty || Bool.random(using: &random) {
            owner.pastHomes.append(place(db))
        } else {
            // A reference held across the removal follows its object (embedded identity).
            let held = owner.pastHomes.count > 1 ? owner.pastHomes[1] : nil
            owner.pastHomes.remove(at: 0)
            held?.city = "held \(Int.random(in: 0..<9, using: &random))"
        }
    }

    private mutating func upsertOwner(_ db: Database) throws {
        let id = Int.random(in: 0..<15, using: &random)
        let owner = Owner(value: ["id": id, "name": "u\(Int.random(in: 0..<3, using: &random))"])
        owner.pet = pet(db)
        owner.home = place(db)
        try db.add(owner, update: Bool.random(using: &random) ? .modified : .all)
    }

    private mutating func editPerson(_ db: Database) throws {
        let id = Int.random(in: 0..<8, using: &random)
        let name = Self.names[Int.random(in: 0..<Self.names.count, using: &random)]
        switch Int.random(in: 0..<4, using: &random) {
        case 0:
            let person = CrashPerson(value: ["id": id, "name": name])
            person.friend = pet(db)
            person.address = place(db)
            try db.add(person, update: .modified)
        case 1: db.object(ofType: CrashPerson.self, forPrimaryKey: id)?.name = name
        case 2: if let person = db.object(ofType: CrashPerson.self, forPrimaryKey: id) { try db.delete(person) }
        default: try db.add(CrashPerson(value: ["id": id, "name": name]), update: .all)
        }
    }
}

/// Every record of a store version, by keyspace and key.
typealias StoredRecords = [Keyspace: [StorageKey: [UInt8]]]

extension Snapshot {
    /// Every record of this version.
    func storedRecords() throws -> StoredRecords {
        var result: StoredRecords = [:]
        for keyspace in keyspaces where count(in: keyspace) > 0 {
            var values: [StorageKey: [UInt8]] = [:]
            try forEach(in: keyspace) { key, value in
                values[key] = Array(value)
                return true
            }
            result[keyspace] = values
        }
        return result
    }
}

extension Database {
    /// The objects of the crash workload as lines of text, read through the model classes:
    /// every property, the backlinks (`LinkingObjects`) and an indexed query per name.
    func crashWorkloadDump() -> [String] {
        var lines: [String] = []
        func place(_ place: Place?) -> String { place.map { "\($0.city ?? "-")/\($0.landlord?.name ?? "-")" } ?? "nil" }
        for owner in objects(Owner.self) {
            let map = owner.byName.map { "\($0.key)=\($0.value?.name ?? "nil")" }.sorted()
            let extra: String
            switch owner.extra {
            case .object(let object): extra = "object \((object as? Pet)?.name ?? "?")"
            default: extra = "\(owner.extra)"
            }
            lines.append("Owner \(owner.id) \(owner.name) pet=\(owner.pet?.name ?? "nil") pets=\(owner.pets.map(\.name)) "
                + "favorites=\(owner.favorites.map(\.name).sorted()) byName=\(map) extra=\(extra) "
                + "home=\(place(owner.home)) pastHomes=\(owner.pastHomes.map { place($0) })")
        }
        for pet in objects(Pet.self) {
            lines.append("Pet \(pet.name) owners=\(pet.owners.map(\.id).sorted()) mainOwners=\(pet.mainOwners.map(\.id).sorted())")
        }
        for person in objects(CrashPerson.self) {
            lines.append("CrashPerson \(person.id) \(person.name) friend=\(person.friend?.name ?? "nil") address=\(place(person.address))")
        }
        for name in ObjectCrashWorkload.names {
            let ids = objects(CrashPerson.self).where { $0.name == name }.map(\.id).sorted()
            lines.append("name == \(name): \(ids)")
        }
        return lines
    }
}
