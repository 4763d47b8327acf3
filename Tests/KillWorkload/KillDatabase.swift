import Strata

/// The kill workload against a `Database`: applying a commit's operations, and reading back the
/// state and the backlinks to check them.
public enum KillDatabase {
    /// Applies `operations` as workload commit `commit` in one write (which also records the
    /// commit number in `KillProgress`).
    /// - Throws: what the database throws.
    public static func commit(_ operations: [KillOperation], number commit: Int, to db: Database) throws {
        try db.write {
            for operation in operations { try apply(operation, to: db) }
            if let progress = db.object(ofType: KillProgress.self, forPrimaryKey: 0) {
                progress.commit = commit
            } else {
                let progress = KillProgress()
                progress.commit = commit
                try db.add(progress)
            }
        }
    }

    private static func person(_ id: Int, _ db: Database) throws -> KillPerson {
        guard let found = db.object(ofType: KillPerson.self, forPrimaryKey: id) else { throw missing("person", id) }
        return found
    }

    private static func pet(_ id: Int, _ db: Database) throws -> KillPet {
        guard let found = db.object(ofType: KillPet.self, forPrimaryKey: id) else { throw missing("pet", id) }
        return found
    }

    private static func missing(_ kind: String, _ id: Int) -> StrataError {
        StrataError(.notFound, "the workload expects \(kind) \(id), which the database does not hold")
    }

    private static func apply(_ operation: KillOperation, to db: Database) throws {
        switch operation {
        case .addPerson(let id, let name, let age, let city):
            let person = KillPerson()
            person.id = id
            person.name = name
            person.age = age
            person.home = city.map(address)
            try db.add(person)
        case .addPet(let id, let name):
            let pet = KillPet()
            pet.id = id
            pet.name = name
            try db.add(pet)
        case .setBest(let person, let pet): try self.person(person, db).best = try pet.map { try self.pet($0, db) }
        case .appendPet(let person, let pet): try self.person(person, db).pets.append(try self.pet(pet, db))
        case .removePet(let person, let index): try self.person(person, db).pets.remove(at: index)
        case .setCity(let person, let city): try self.person(person, db).home = city.map(address)
        case .editCity(let person, let city): try self.person(person, db).home?.city = city
        case .deletePet(let pet): try db.delete(self.pet(pet, db))
        case .deletePerson(let person): try db.delete(self.person(person, db))
        case .upsertPerson(let id, let name, let age):
            let stored = try person(id, db)
            let copy = KillPerson()
            copy.id = id
            copy.name = name
            copy.age = age
            copy.best = stored.best
            copy.pets.append(objectsIn: Array(stored.pets))
            copy.home = stored.home.map { address($0.city) }
            try db.add(copy, update: .modified)
        }
    }

    private static func address(_ city: String) -> KillAddress {
        let address = KillAddress()
        address.city = city
        return address
    }
}
