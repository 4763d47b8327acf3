import Foundation
import XCTest

@testable import Strata

extension DatabaseTestCase {
    /// A database of `Owner`, `Pet` and `Place` (RelationshipTests' models).
    func openOwnerDatabase() throws -> Database { try open([Owner.self, Pet.self, Place.self]) }

    /// Adds owner 1 with pets Rex and Fido in `pets`, `favorites` and `byName`, Rex as `pet`,
    /// and one past home, in Lyon.
    func addOwnerWithPets(to db: Database) throws -> Owner {
        let owner = Owner()
        owner.id = 1
        try db.write {
            try db.add(owner)
            for name in ["Rex", "Fido"] {
                let pet = Pet()
                pet.name = name
                owner.pets.append(pet)
                owner.favorites.insert(pet)
                owner.byName[name] = pet
            }
            owner.pet = owner.pets.first
            let home = Place()
            home.city = "Lyon"
            owner.pastHomes.append(home)
        }
        return owner
    }
}
