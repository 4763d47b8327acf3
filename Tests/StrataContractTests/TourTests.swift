import Foundation
import Strata
import XCTest

/// The tour from the object-layer issue, as one test, over the tour's models.
final class TourTests: ContractTestCase {
    func testTour() throws {
        let db = try Database(configuration: Database.Configuration(
            directory: directory,
            objectTypes: [Dog.self, Person.self, Address.self],
            schemaVersion: 1))

        let rex = Dog(); rex.name = "Rex"; rex.age = 3
        let ann = Person(); ann.name = "Ann"
        ann.address = Address(); ann.address?.city = "Lyon"
        try db.write {
            try db.add(ann)
            ann.dogs.append(rex)
            ann.dog = rex
            ann.scores["math"] = 9
            ann.nicknames.insert("A")
        }
        XCTAssertTrue(rex.isManaged && rex.owners.count == 1 && rex.owners.first?.name == "Ann")

        let again = db.object(ofType: Person.self, forPrimaryKey: ann._id)
        let old: Results<Dog> = db.objects(Dog.self).where { $0.age > 2 && $0.name.starts(with: "R") }
        let same = db.objects(Dog.self).filter("age > %@ AND name BEGINSWITH %@", 2, "R")
        let byName = db.objects(Person.self).sorted(by: \.name, ascending: true)
        XCTAssertEqual(same.first?.name, "Rex")
        XCTAssertEqual(again?.name, "Ann")
        XCTAssertEqual(old.count, 1)
        XCTAssertEqual(byName[0].name, "Ann")
        XCTAssertEqual(again?.address?.city, "Lyon")

        let frozen = db.freeze()
        try db.write { try db.delete(rex) }
        XCTAssertEqual(frozen.objects(Dog.self).count, 1)
        XCTAssertTrue(ann.dog == nil && ann.dogs.isEmpty)

        try db.write {
            try db.add(Person(value: ["_id": ann._id, "name": "Anne"]), update: .modified)
        }
        XCTAssertEqual(ann.name, "Anne")
        var refused = false
        do { try db.write { try db.add(Person(value: ["_id": ann._id])) } }
        catch let error as StrataError where error.code == .primaryKeyExists { refused = true }
        XCTAssertTrue(refused)
        XCTAssertEqual(db.objects(Person.self).count, 1)

        try db.compact()                                       // online; readers keep working
        XCTAssertEqual(frozen.objects(Dog.self).count, 1, "the frozen view still reads after compaction")
        XCTAssertEqual(db.object(ofType: Person.self, forPrimaryKey: ann._id)?.name, "Anne")
    }
}
