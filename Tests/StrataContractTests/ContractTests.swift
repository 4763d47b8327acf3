import Foundation
import Strata
import XCTest

/// The query contract (`ContractSnippet.swift`, verbatim) run on a small database, and its
/// queries' answers checked against what Realm answers for the same data.
final class ContractTests: ContractTestCase {
    /// Dogs Rex 5, Fido 2, Rover 9, Spot 4. Ann: dog Rex, dogs [Rex, Fido], lives in Lyon, math
    /// 9, nickname Annie. Bob: dog Rover, dogs [Rover], lives in Paris, math 3. Cy: nothing.
    private func tour() throws -> (db: Database, ann: Person, rex: Dog) {
        let db = try openTourDatabase()
        let dogs = [("Rex", 5), ("Fido", 2), ("Rover", 9), ("Spot", 4)].map { name, age in
            let dog = Dog()
            (dog.name, dog.age) = (name, age)
            return dog
        }
        let ann = Person(), bob = Person(), cy = Person()
        (ann.name, bob.name, cy.name) = ("Ann", "Bob", "Cy")
        try db.write {
            for dog in dogs { try db.add(dog) }
            for person in [ann, bob, cy] { try db.add(person) }
            ann.dog = dogs[0]
            ann.dogs.append(objectsIn: [dogs[0], dogs[1]])
            ann.address = Address()
            ann.address?.city = "Lyon"
            ann.scores["math"] = 9
            ann.nicknames.insert("Annie")
            bob.dog = dogs[2]
            bob.dogs.append(dogs[2])
            bob.address = Address()
            bob.address?.city = "Paris"
            bob.scores["math"] = 3
        }
        return (db, ann, dogs[0])
    }

    func testTheContractRuns() throws {
        let (db, ann, rex) = try tour()
        try queries(db, ann: ann, rex: rex)
    }

    func testTypedQueriesAnswerAsRealm() throws {
        let (db, _, _) = try tour()
        let people = db.objects(Person.self), dogs = db.objects(Dog.self)
        XCTAssertEqual(names(people.where { $0.dog.age > 3 }), ["Ann", "Bob"])
        XCTAssertEqual(names(people.where { $0.dogs.age > 3 }), ["Ann", "Bob"])
        XCTAssertEqual(names(people.where { $0.dogs.count > 1 }), ["Ann"])
        XCTAssertEqual(names(people.where { $0.address.city == "Lyon" }), ["Ann"])
        XCTAssertEqual(names(people.where { $0.scores["math"] > 5 }), ["Ann"])
        XCTAssertEqual(names(people.where { $0.nicknames.contains("Annie") }), ["Ann"])
        XCTAssertEqual(names(dogs.where { $0.owners.count == 0 }), ["Spot"])
        XCTAssertEqual(names(dogs.where { $0.name.in(["Rex", "Fido"]) }), ["Fido", "Rex"])
        XCTAssertEqual(names(dogs.where { $0.age.contains(1...5) }), ["Fido", "Rex", "Spot"])
        XCTAssertEqual(names(dogs.where { $0.name.like("R*") }), ["Rex", "Rover"])
        XCTAssertEqual(names(dogs.where { $0.name.starts(with: "r", options: [.caseInsensitive, .diacriticInsensitive]) }), ["Rex", "Rover"])
    }

    func testStringPredicatesAnswerAsRealm() throws {
        let (db, ann, _) = try tour()
        let people = db.objects(Person.self), dogs = db.objects(Dog.self)
        XCTAssertEqual(names(people.filter("ANY dogs.age > %@ AND name BEGINSWITH[cd] %@", 3, "a")), ["Ann"])
        // ALL and NONE hold for Cy, who has no dogs.
        XCTAssertEqual(names(people.filter("ALL dogs.age > 1 AND NONE dogs.name == 'Fido'")), ["Bob", "Cy"])
        XCTAssertEqual(names(people.filter("dogs.@count > 1 AND dogs.@avg.age >= 2.5")), ["Ann"])
        XCTAssertEqual(names(people.filter("SUBQUERY(dogs, $d, $d.age > 3 AND $d.name BEGINSWITH 'R').@count > 0")), ["Ann", "Bob"])
        XCTAssertEqual(names(dogs.filter("%@ IN owners", ann)), ["Fido", "Rex"])
        XCTAssertEqual(names(dogs.filter("age BETWEEN {2, 5} AND name LIKE[c] 'r*'")), ["Rex"])
        XCTAssertEqual(names(dogs.filter("@links.Person.dogs.@count > 0")), ["Fido", "Rex", "Rover"])
        XCTAssertThrowsError(try dogs.filter(checking: "age >> 3")) { error in
            XCTAssertEqual((error as? StrataError)?.code, .invalidQuery)
        }
    }

    func testAggregatesSortsAndPositionsAnswerAsRealm() throws {
        let (db, ann, rex) = try tour()
        let dogs = db.objects(Dog.self)
        XCTAssertEqual(dogs.sum(of: \.age), 20)
        XCTAssertEqual(dogs.max(of: \.age), 9)
        XCTAssertEqual(dogs.min(of: \.age), 2)
        XCTAssertEqual(dogs.average(of: \.age), 5)
        XCTAssertEqual(dogs.sum(ofProperty: "age") as Int, 20)
        // Cy has no dog: first when dog.age sorts descending (Realm's QueryTests.m testSortByKeyPath).
        let byDogAge = db.objects(Person.self).sorted(by: [SortDescriptor(keyPath: "dog.age", ascending: false), SortDescriptor(keyPath: "name")])
        XCTAssertEqual(byDogAge.map(\.name), ["Cy", "Bob", "Ann"])
        XCTAssertEqual(dogs.sorted(by: \.age, ascending: false).map(\.name), ["Rover", "Rex", "Spot", "Fido"])
        XCTAssertEqual(dogs.distinct(by: ["name"]).count, 4)
        XCTAssertEqual(dogs.distinct(by: [\Dog.name, \Dog.age]).count, 4)
        XCTAssertEqual(dogs.index(of: rex).map { dogs[$0].name }, "Rex")
        XCTAssertEqual(dogs.index(matching: { $0.age > 3 }).map { dogs[$0].age > 3 }, true)
        XCTAssertEqual(ann.dogs.where { $0.age > 3 }.map(\.name), ["Rex"])
        XCTAssertEqual(ann.dogs.filter("age > 3").sorted(byKeyPath: "name").map(\.name), ["Rex"])
        XCTAssertEqual(ann.dogs.sum(of: \.age), 7)
        XCTAssertEqual(rex.owners.where { $0.name == "Ann" }.count, 1)
    }

    private func names(_ people: Results<Person>) -> [String] { people.map(\.name).sorted() }
    private func names(_ dogs: Results<Dog>) -> [String] { dogs.map(\.name).sorted() }
}
