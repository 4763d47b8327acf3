import Foundation
import StrataStorage
import XCTest

@testable import Strata

/// A write left open does not hold the writer lock past the life of its `Database`, and limits
/// that derived records impose are checked where the user's value comes in.
final class WriteLifecycleTests: DatabaseTestCase {
    func testReleasingADatabaseWithAnOpenWriteLetsOtherWritersIn() throws {
        // Open first, so that both databases share one store and its writer lock.
        let db = try open()
        do {
            let abandoned = try open()
            try abandoned.beginWrite()
            let dog = Dog()
            dog.name = "never committed"
            try abandoned.add(dog)
        }
        let finished = DispatchSemaphore(value: 0)
        let writer = Thread {
            try? db.write {
                let dog = Dog()
                dog.name = "Rex"
                try db.add(dog)
            }
            finished.signal()
        }
        writer.start()
        XCTAssertEqual(finished.wait(timeout: .now() + 10), .success, "the writer lock was never released")
        XCTAssertEqual(db.objects(Dog.self).map(\.name), ["Rex"])
    }

    func testAnObjectWithTheLongestPrimaryKeyCanBeLinkedTo() throws {
        let db = try open([Owner.self, Pet.self, Place.self])
        let longest = String(repeating: "k", count: PrimaryKeyEncoding.maxKeyLength)
        try db.write {
            let pet = Pet()
            pet.name = longest
            let owner = Owner()
            owner.id = 1
            owner.pet = pet
            owner.pets.append(pet)
            try db.add(owner)
        }
        let pet = try XCTUnwrap(db.object(ofType: Pet.self, forPrimaryKey: longest))
        XCTAssertEqual(pet.owners.map(\.id), [1])
        try db.write { try db.delete(pet) }
        XCTAssertNil(try XCTUnwrap(db.object(ofType: Owner.self, forPrimaryKey: 1)).pet)
    }

    func testAPrimaryKeyTooLongToLinkToIsRefusedWhenAdded() throws {
        let db = try open([Owner.self, Pet.self, Place.self])
        let pet = Pet()
        pet.name = String(repeating: "k", count: PrimaryKeyEncoding.maxKeyLength + 1)
        XCTAssertThrowsError(try db.write { try db.add(pet) }) { error in
            XCTAssertEqual((error as? StrataError)?.code, .invalidValue)
        }
        XCTAssertEqual(db.objects(Pet.self).count, 0)
    }
}
