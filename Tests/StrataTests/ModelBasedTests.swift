import Foundation
import XCTest
@testable import Strata
@_spi(Testing) import StrataStorage

/// Random adds, link changes, list edits, deletes and reopens against a plain in-memory model;
/// after every step the database must equal the model, every backlink must match its links,
/// and no embedded object may exist outside its parent.
final class ModelBasedTests: DatabaseTestCase {
    struct OwnerModel: Equatable {
        var pet: String?
        var pets: [String] = []
        var homeCity: String?
        var landlord: String?
    }

    var owners: [Int: OwnerModel] = [:]
    var pets: Set<String> = []
    var root: URL?

    override func tearDownWithError() throws {
        if let root { try? FileManager.default.removeItem(at: root) }
        try super.tearDownWithError()
    }

    func types() -> [ObjectBase.Type] { [Owner.self, Pet.self, Place.self] }

    func testRandomOperationsKeepLinksBacklinksAndEmbeddedObjectsConsistent() throws {
        try run(seed: 11, steps: 300, reopenEvery: 25)
        try run(seed: 12, steps: 300, reopenEvery: 40)
    }

    func testReopenAfterEveryStep() throws {
        try run(seed: 21, steps: 60, reopenEvery: 1)
    }

    func run(seed: UInt64, steps: Int, reopenEvery: Int) throws {
        // A directory of its own per run.
        if root == nil { root = directory }
        directory = root!.appendingPathComponent("run-\(seed)")
        owners = [:]
        pets = []
        var random = SplitMix64(seed: seed)
        var db: Database? = try open(types())
        for step in 0..<steps {
            let operation = Int.random(in: 0..<10, using: &random)
            try db!.write { try apply(operation, db: db!, random: &random) }
            if (step + 1) % reopenEvery == 0 {
                db = nil
                db = try open(types())
            }
            try check(db!, context: "seed \(seed) step \(step) op \(operation)")
        }
    }

    func anyPet(_ random: inout SplitMix64) -> String? { pets.sorted().randomElement(using: &random) }
    func anyOwner(_ random: inout SplitMix64) -> Int? { owners.keys.sorted().randomElement(using: &random) }

    func apply(_ operation: Int, db: Database, random: inout SplitMix64) throws {
        func owner(_ id: Int) -> Owner { db.object(ofType: Owner.self, forPrimaryKey: id)! }
        func pet(_ name: String) -> Pet { db.object(ofType: Pet.self, forPrimaryKey: name)! }
        switch operation {
        case 0: // add a pet
            let name = "pet\(Int.random(in: 0..<40, using: &random))"
            guard !pets.contains(name) else { return }
            try db.add(Pet(value: ["name": name]))
            pets.insert(name)
        case 1: // add an owner, maybe with a new pet and a home
            let id = Int.random(in: 0..<25, using: &random)
            guard owners[id] == nil else { return }
            let owner = Owner(value: ["id": id])
            var model = OwnerModel()
            if let name = anyPet(&random) {
                owner.pet = pet(name)
                model.pet = name
            }
            if Bool.random(using: &random) {
                owner.home = Place(value: ["city": "c\(id)"])
                model.homeCity = "c\(id)"
            }
            try db.add(owner)
            owners[id] = model
        case 2: // set or clear the to-one link
            guard let id = anyOwner(&random) else { return }
            let name = Bool.random(using: &random) ? anyPet(&random) : nil
            owner(id).pet = name.map(pet)
            owners[id]!.pet = name
        case 3, 4: // append to the list (duplicates allowed)
            guard let id = anyOwner(&random), let name = anyPet(&random) else { return }
            owner(id).pets.append(pet(name))
            owners[id]!.pets.append(name)
        case 5: // remove a list entry
            guard let id = anyOwner(&random), !owners[id]!.pets.isEmpty else { return }
            let index = Int.random(in: 0..<owners[id]!.pets.count, using: &random)
            owner(id).pets.remove(at: index)
            owners[id]!.pets.remove(at: index)
        case 6: // delete a pet: every link to it goes
            guard let name = anyPet(&random) else { return }
            try db.delete(pet(name))
            pets.remove(name)
            for id in owners.keys {
                if owners[id]!.pet == name { owners[id]!.pet = nil }
                owners[id]!.pets.removeAll { $0 == name }
                if owners[id]!.landlord == name { owners[id]!.landlord = nil }
            }
        case 7: // delete an owner (its embedded home goes with it)
            guard let id = anyOwner(&random) else { return }
            try db.delete(owner(id))
            owners[id] = nil
        case 8: // replace or clear the embedded home
            guard let id = anyOwner(&random) else { return }
            if Bool.random(using: &random) {
                owner(id).home = Place(value: ["city": "n\(id)"])
                owners[id]!.homeCity = "n\(id)"
            } else {
                owner(id).home = nil
                owners[id]!.homeCity = nil
            }
            owners[id]!.landlord = nil
        default: // link from inside the embedded object
            guard let id = anyOwner(&random), owners[id]!.homeCity != nil, let name = anyPet(&random) else { return }
            owner(id).home!.landlord = pet(name)
            owners[id]!.landlord = name
        }
    }

    func check(_ db: Database, context: String) throws {
        XCTAssertEqual(Set(db.objects(Pet.self).map(\.name)), pets, context)
        XCTAssertEqual(Set(db.objects(Owner.self).map(\.id)), Set(owners.keys), context)
        for (id, model) in owners {
            let owner = try XCTUnwrap(db.object(ofType: Owner.self, forPrimaryKey: id), context)
            let actual = OwnerModel(pet: owner.pet?.name, pets: owner.pets.map(\.name),
                                    homeCity: owner.home?.city, landlord: owner.home?.landlord?.name)
            XCTAssertEqual(actual, model, "owner \(id) at \(context)")
        }
        // Every backlink matches its links, both ways.
        for pet in db.objects(Pet.self) {
            let listing = Set(owners.filter { $0.value.pets.contains(pet.name) }.keys)
            XCTAssertEqual(Set(pet.owners.map(\.id)), listing, "owners of \(pet.name) at \(context)")
            let main = Set(owners.filter { $0.value.pet == pet.name }.keys)
            XCTAssertEqual(Set(pet.mainOwners.map(\.id)), main, "main owners of \(pet.name) at \(context)")
            let petKey = pet._strataState!.key
            let landlordOf = Set(owners.filter { $0.value.landlord == pet.name }.keys)
            let homeProperty = db.schemas.schema(for: Owner.self)!["home"]!.propertyID
            let stored = db.backlinks(of: petKey).filter { $0.propertyID == homeProperty }
            XCTAssertEqual(stored.count, landlordOf.count, "landlord backlinks of \(pet.name) at \(context)")
        }
        // No backlink record points from or to an object that does not exist.
        let snapshot = db.shared.store.snapshot()
        XCTAssertEqual(snapshot.count(in: ObjectFormat.backlinkKeyspace), Set(owners.values.flatMap { m in [m.pet, m.landlord].compactMap { $0 } + m.pets }).count, "backlink records at \(context)")
        // Embedded objects live only inside their parents: their class's keyspace is empty.
        let placeClass = db.schemas.schema(for: Place.self)!.classID
        XCTAssertEqual(snapshot.count(in: Keyspace(placeClass)), 0, context)
    }
}

