import Foundation
import XCTest

@testable import Strata

// Results operations (aggregates, sorting by descriptors, distinct, positions) and queries on
// collections, against answers worked out by hand from `pack()`.

final class ODog: Object {
    @Persisted(primaryKey: true) var name: String
    @Persisted var age: Int
    @Persisted var small: Int8
    @Persisted var weight: Double?
    @Persisted var born: Date
    @Persisted var price: Decimal128
    @Persisted(originProperty: "dogs") var owners: LinkingObjects<OOwner>
}

final class OOwner: Object {
    @Persisted(primaryKey: true) var name: String
    @Persisted var dog: ODog?
    @Persisted var dogs: List<ODog>
    @Persisted var pets: MutableSet<ODog>
}

final class ResultsOperationTests: DatabaseTestCase {
    /// Rex 5 (weight 20, small 100), Fido 2 (nil), Rover 9 (30, small 100), Spot 5 (nil).
    /// Ann: dog Rex, dogs [Rex, Fido, Rex], pets {Rover}. Bob: dog Rover, no dogs. Cy: no dog.
    func pack() throws -> Database { try Self.pack(try open([ODog.self, OOwner.self])) }

    /// Fills `db` with the objects `pack()` describes.
    static func pack(_ db: Database) throws -> Database {
        try db.write {
            for (name, age, weight) in [("Rex", 5, 20.0), ("Fido", 2, nil), ("Rover", 9, 30.0), ("Spot", 5, nil)] as [(String, Int, Double?)] {
                let dog = ODog()
                (dog.name, dog.age, dog.weight, dog.born) = (name, age, weight, Date(timeIntervalSinceReferenceDate: Double(age)))
                dog.small = weight == nil ? 1 : 100
                dog.price = Decimal128(age)
                try db.add(dog)
            }
            let rex = db.object(ofType: ODog.self, forPrimaryKey: "Rex")!, fido = db.object(ofType: ODog.self, forPrimaryKey: "Fido")!
            let rover = db.object(ofType: ODog.self, forPrimaryKey: "Rover")!
            let ann = OOwner(), bob = OOwner(), cy = OOwner()
            (ann.name, bob.name, cy.name) = ("Ann", "Bob", "Cy")
            ann.dog = rex; ann.dogs.append(objectsIn: [rex, fido, rex]); ann.pets.insert(rover)
            bob.dog = rover
            for owner in [ann, bob, cy] { try db.add(owner) }
        }
        return db
    }

    private func names(_ dogs: Results<ODog>) -> [String] { dogs.map(\.name) }

    func testAggregatesOverAllObjects() throws {
        let dogs = try pack().objects(ODog.self)
        XCTAssertEqual(dogs.sum(of: \.age), 21)
        XCTAssertEqual(dogs.min(of: \.age), 2)
        XCTAssertEqual(dogs.max(of: \.age), 9)
        XCTAssertEqual(dogs.average(of: \.age), 5.25)
        XCTAssertEqual(dogs.max(of: \.born), Date(timeIntervalSinceReferenceDate: 9))
        XCTAssertEqual(dogs.average(of: \.price), Decimal128(21) / Decimal128(4))
        XCTAssertEqual(dogs.sum(ofProperty: "age") as Int, 21)
        XCTAssertEqual(dogs.average(ofProperty: "age") as Double?, 5.25)
        XCTAssertEqual(dogs.min(ofProperty: "born") as Date?, Date(timeIntervalSinceReferenceDate: 2))
    }

    func testAggregatesSkipNilValues() throws {
        let dogs = try pack().objects(ODog.self)
        XCTAssertEqual(dogs.sum(of: \.weight), 50)
        XCTAssertEqual(dogs.average(of: \.weight), 25)
        XCTAssertEqual(dogs.min(of: \.weight), 20)
        XCTAssertNil(dogs.where { $0.weight == nil }.max(of: \.weight) ?? nil)
    }

    func testAggregatesOfNothing() throws {
        let none = try pack().objects(ODog.self).where { $0.age > 100 }
        XCTAssertEqual(none.sum(of: \.age), 0)
        XCTAssertNil(none.min(of: \.age))
        XCTAssertNil(none.max(of: \.age))
        XCTAssertNil(none.average(of: \.age))
    }

    func testSmallIntegerSumWrapsBackToThePropertyType() throws {
        let dogs = try pack().objects(ODog.self)
        XCTAssertEqual(dogs.sum(of: \.small), Int8(truncatingIfNeeded: 202))
        XCTAssertEqual(dogs.sum(ofProperty: "small") as Int, 202)
    }

    func testAggregateThroughAToOneLink() throws {
        let owners = try pack().objects(OOwner.self)
        XCTAssertEqual(owners.sum(ofProperty: "dog.age") as Int, 14)
        XCTAssertEqual(owners.max(ofProperty: "dog.age") as Int?, 9)
    }

    func testCheckingAggregateRejectsUnknownAndNonNumericProperties() throws {
        let dogs = try pack().objects(ODog.self)
        for name in ["nope", "name", "owners", ""] {
            XCTAssertThrowsError(try dogs.sum(checkingProperty: name) as Int, name) { error in
                XCTAssertEqual((error as? StrataError)?.code, .invalidQuery)
            }
        }
        XCTAssertThrowsError(try dogs.average(checkingProperty: "born") as Double?)
        XCTAssertNoThrow(try dogs.max(checkingProperty: "born") as Date?)
    }

    func testAggregatesAreLive() throws {
        let db = try pack()
        let dogs = db.objects(ODog.self)
        XCTAssertEqual(dogs.sum(of: \.age), 21)
        try db.write { db.object(ofType: ODog.self, forPrimaryKey: "Rover")!.age = 1 }
        XCTAssertEqual(dogs.sum(of: \.age), 13)
        XCTAssertEqual(dogs.max(of: \.age), 5)
    }

    func testSortDescriptorsFirstIsPrimary() throws {
        let db = try pack()
        let owners = db.objects(OOwner.self).sorted(by: [SortDescriptor(keyPath: "dog.age", ascending: false), SortDescriptor(keyPath: "name")])
        // Cy's nil dog sorts first descending (last ascending), as Realm's testSortByKeyPath.
        XCTAssertEqual(owners.map(\.name), ["Cy", "Bob", "Ann"])
        let dogs = db.objects(ODog.self).sorted(by: [SortDescriptor(keyPath: "age"), SortDescriptor(keyPath: "name", ascending: false)])
        XCTAssertEqual(names(dogs), ["Fido", "Spot", "Rex", "Rover"])
        XCTAssertEqual(SortDescriptor(keyPath: "age").reversed(), SortDescriptor(keyPath: "age", ascending: false))
    }

    func testSortCheckingRejectsBadKeyPaths() throws {
        let db = try pack()
        for keyPath in ["nope", "dog", "dogs.age", "dog.nope"] {
            XCTAssertThrowsError(try db.objects(OOwner.self).sorted(checking: [SortDescriptor(keyPath: keyPath)]), keyPath)
        }
    }

    func testDistinctKeepsTheFirstOfEachCombinationInOrder() throws {
        let dogs = try pack().objects(ODog.self)
        XCTAssertEqual(names(dogs.sorted(by: \.name).distinct(by: ["age"])), ["Fido", "Rex", "Rover"])
        XCTAssertEqual(names(dogs.sorted(by: \.name, ascending: false).distinct(by: ["age"])), ["Spot", "Rover", "Fido"])
        XCTAssertEqual(names(dogs.sorted(by: \.name).distinct(by: [\ODog.age, \ODog.small])), ["Fido", "Rex", "Rover", "Spot"])
        XCTAssertEqual(names(dogs.sorted(by: \.name).distinct(by: [\ODog.weight])), ["Fido", "Rex", "Rover"])
        XCTAssertThrowsError(try dogs.distinct(checking: ["nope"]))
        XCTAssertEqual(dogs.distinct(by: ["age"]).count, 3)
    }

    func testDistinctIsLive() throws {
        let db = try pack()
        let ages = db.objects(ODog.self).distinct(by: ["age"])
        XCTAssertEqual(ages.count, 3)
        try db.write { db.object(ofType: ODog.self, forPrimaryKey: "Spot")!.age = 4 }
        XCTAssertEqual(ages.count, 4)
    }

    func testIndexOfAndIndexMatching() throws {
        let db = try pack()
        let dogs = db.objects(ODog.self).sorted(by: \.age)
        let rover = try XCTUnwrap(db.object(ofType: ODog.self, forPrimaryKey: "Rover"))
        XCTAssertEqual(dogs.index(of: rover), 3)
        XCTAssertNil(dogs.where { $0.age < 5 }.index(of: rover))
        XCTAssertNil(dogs.index(of: ODog()))
        XCTAssertEqual(dogs.index(matching: { $0.age > 3 }), 1)
        XCTAssertNil(dogs.index(matching: { $0.age > 30 }))
        XCTAssertEqual(dogs.objects(at: IndexSet([0, 3])).map(\.name), ["Fido", "Rover"])
    }
}
