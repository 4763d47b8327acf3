import Foundation
import StrataStorage
import XCTest

@testable import Strata

/// References to `Results` and to collection properties, modelled on Realm's
/// testPassThreadSafeReferenceToResults, …ToList, …ToMutableSet and …ToLinkingObjects: the
/// resolved value is live in the resolving database, and changes made through it are seen
/// where the reference came from.
final class ThreadSafeCollectionReferenceTests: DatabaseTestCase {
    private func addOwner(_ id: Int, pets names: [String], to db: Database) throws -> Owner {
        let owner = Owner()
        owner.id = id
        try db.write {
            try db.add(owner, update: .modified)
            for name in names {
                let pet = db.object(ofType: Pet.self, forPrimaryKey: name) ?? Pet(value: ["name": name])
                owner.pets.append(pet)
                owner.favorites.insert(pet)
                owner.byName[name] = pet
            }
        }
        return owner
    }

    func testAReferenceToResultsRunsTheSameQueryThere() throws {
        let db = try open()
        let results = db.objects(Dog.self).where { $0.name != "C" }.sorted(by: \.name, ascending: false)
        let ref = ThreadSafeReference(to: results)
        try db.write {
            for name in ["A", "B", "C", "D"] { try db.add(Dog(value: ["name": name])) }
        }
        let configuration = db.configuration
        try waitForDetachedTask {
            let other = try Database(configuration: configuration)
            let resolved = try XCTUnwrap(other.resolve(ref))
            XCTAssertEqual(resolved.map(\.name), ["D", "B", "A"])
            try other.write {
                try other.delete(resolved[2])
                try other.delete(resolved[0])
                try other.add(Dog(value: ["name": "E"]))
            }
            XCTAssertEqual(resolved.map(\.name), ["E", "B"])
        }
        db.refresh()
        XCTAssertEqual(results.map(\.name), ["E", "B"])
    }

    func testAReferenceToResultsKeepsDistinctsAndStringPredicates() throws {
        let db = try open()
        try db.write {
            for (name, age) in [("Rex", 3), ("Rex", 5), ("Fido", 5), ("Spot", 1)] {
                try db.add(Dog(value: ["name": name, "age": age]))
            }
        }
        let results = db.objects(Dog.self).filter("age > %@", 2).sorted(by: \.age).distinct(by: [\Dog.name])
        let expected = results.map { "\($0.name) \($0.age)" }
        let resolved = try XCTUnwrap(try open().resolve(ThreadSafeReference(to: results)))
        XCTAssertEqual(resolved.map { "\($0.name) \($0.age)" }, expected)
    }

    func testAReferenceToResultsOfACollectionFollowsItsOwner() throws {
        let db = try openOwnerDatabase()
        let owner = try addOwner(1, pets: ["Rex", "Fido", "Spot"], to: db)
        let ref = ThreadSafeReference(to: owner.pets.where { $0.name != "Fido" }.sorted(by: \.name))
        let other = try openOwnerDatabase()
        let resolved = try XCTUnwrap(other.resolve(ref))
        XCTAssertEqual(resolved.map(\.name), ["Rex", "Spot"])
        try db.write { owner.pets.removeLast() }
        other.refresh()
        XCTAssertEqual(resolved.map(\.name), ["Rex"])
        try db.write { try db.delete(owner) }
        other.refresh()
        XCTAssertEqual(resolved.count, 0)
    }

    func testAReferenceToAListResolvesToTheLiveList() throws {
        let db = try openOwnerDatabase()
        let owner = try addOwner(1, pets: ["jg"], to: db)
        let ref = ThreadSafeReference(to: owner.pets)
        let configuration = db.configuration
        try waitForDetachedTask {
            let other = try Database(configuration: configuration)
            let pets = try XCTUnwrap(other.resolve(ref))
            XCTAssertEqual(pets.map(\.name), ["jg"])
            try other.write {
                pets.removeAll()
                pets.append(Pet(value: ["name": "jp"]))
                pets.append(Pet(value: ["name": "az"]))
            }
        }
        db.refresh()
        XCTAssertEqual(owner.pets.map(\.name), ["jp", "az"])
    }

    func testReferencesToASetAndAMapResolveToTheLiveCollections() throws {
        let db = try openOwnerDatabase()
        let owner = try addOwner(1, pets: ["Rex"], to: db)
        let (setRef, mapRef) = (ThreadSafeReference(to: owner.favorites), ThreadSafeReference(to: owner.byName))
        let configuration = db.configuration
        try waitForDetachedTask {
            let other = try Database(configuration: configuration)
            let (favorites, byName) = (try XCTUnwrap(other.resolve(setRef)), try XCTUnwrap(other.resolve(mapRef)))
            XCTAssertEqual(favorites.map(\.name), ["Rex"])
            XCTAssertEqual(byName.keys, ["Rex"])
            try other.write {
                let spot = Pet(value: ["name": "Spot"])
                favorites.insert(spot)
                byName["Spot"] = spot
            }
        }
        db.refresh()
        XCTAssertEqual(Set(owner.favorites.map(\.name)), ["Rex", "Spot"])
        XCTAssertEqual(owner.byName.keys, ["Rex", "Spot"])
    }

    func testAReferenceToLinkingObjectsFollowsTheLinks() throws {
        let db = try openOwnerDatabase()
        let ann = try addOwner(1, pets: ["Cookie"], to: db)
        _ = try addOwner(2, pets: ["Skipper"], to: db)
        let cookie = ann.pets[0]
        let ref = ThreadSafeReference(to: cookie.owners)
        let configuration = db.configuration
        try waitForDetachedTask {
            let other = try Database(configuration: configuration)
            let owners = try XCTUnwrap(other.resolve(ref))
            XCTAssertEqual(owners.map(\.id), [1])
            let mike = try XCTUnwrap(other.object(ofType: Owner.self, forPrimaryKey: 2))
            try other.write { mike.pets.append(owners[0].pets[0]) }
            XCTAssertEqual(owners.map(\.id), [1, 2])
        }
        db.refresh()
        XCTAssertEqual(cookie.owners.map(\.id), [1, 2])
    }

    func testAReferenceToACollectionOfADeletedOwnerResolvesToNil() throws {
        let db = try openOwnerDatabase()
        let owner = try addOwner(1, pets: ["Rex"], to: db)
        let (listRef, backlinksRef) = (ThreadSafeReference(to: owner.pets), ThreadSafeReference(to: owner.pets[0].owners))
        try db.write {
            try db.delete(owner.pets[0])
            try db.delete(owner)
        }
        let other = try openOwnerDatabase()
        XCTAssertNil(other.resolve(listRef))
        XCTAssertNil(other.resolve(backlinksRef))
    }
}
