import Foundation
import XCTest

@testable import Strata

// Queries on List, MutableSet and LinkingObjects of objects: live Results in the collection's
// order (a list's duplicates kept), following the collection's and its objects' changes.
// Data: `ResultsOperationTests.pack()`.

final class CollectionQueryTests: DatabaseTestCase {
    private func pack() throws -> Database {
        try ResultsOperationTests.pack(try open([ODog.self, OOwner.self]))
    }

    private func owner(_ db: Database, _ name: String) throws -> OOwner {
        try XCTUnwrap(db.object(ofType: OOwner.self, forPrimaryKey: name))
    }

    func testListResultsKeepListOrderAndDuplicates() throws {
        let db = try pack()
        let ann = try owner(db, "Ann")
        XCTAssertEqual(ann.dogs.where { $0.age > 0 }.map(\.name), ["Rex", "Fido", "Rex"])
        XCTAssertEqual(ann.dogs.filter("age > 3").map(\.name), ["Rex", "Rex"])
        XCTAssertEqual(ann.dogs.filter("age > 0").sorted(byKeyPath: "name").map(\.name), ["Fido", "Rex", "Rex"])
        XCTAssertEqual(ann.dogs.sorted(by: \.age, ascending: false).map(\.name), ["Rex", "Rex", "Fido"])
        XCTAssertEqual(ann.dogs.distinct(by: ["name"]).map(\.name), ["Rex", "Fido"])
        XCTAssertEqual(ann.dogs.sum(of: \.age), 12)
        XCTAssertEqual(ann.dogs.max(ofProperty: "age") as Int?, 5)
        XCTAssertEqual(ann.dogs.average(of: \.age), 4)
    }

    func testSetAndBacklinkResults() throws {
        let db = try pack()
        let ann = try owner(db, "Ann")
        XCTAssertEqual(ann.pets.where { $0.age > 3 }.map(\.name), ["Rover"])
        let rex = try XCTUnwrap(db.object(ofType: ODog.self, forPrimaryKey: "Rex"))
        XCTAssertEqual(rex.owners.where { $0.name == "Ann" }.count, 1)
        XCTAssertEqual(rex.owners.where { $0.name == "Bob" }.count, 0)
        XCTAssertThrowsError(try rex.owners.filter(checking: "nope == 1"))
    }

    func testEmptyCollections() throws {
        let db = try pack()
        let cy = try owner(db, "Cy")
        XCTAssertEqual(cy.dogs.where { $0.age > 0 }.count, 0)
        XCTAssertEqual(cy.dogs.sum(of: \.age), 0)
        XCTAssertNil(cy.pets.min(of: \.age))
        XCTAssertNil(cy.dogs.average(of: \.age))
    }

    func testCollectionResultsAreLive() throws {
        let db = try pack()
        let ann = try owner(db, "Ann")
        let big = ann.dogs.where { $0.age > 3 }
        XCTAssertEqual(big.count, 2)
        try db.write {
            db.object(ofType: ODog.self, forPrimaryKey: "Fido")!.age = 4          // an element changes
            ann.dogs.append(db.object(ofType: ODog.self, forPrimaryKey: "Spot")!)  // the list changes
        }
        XCTAssertEqual(big.map(\.name), ["Rex", "Fido", "Rex", "Spot"])
        try db.write { try db.delete(db.object(ofType: ODog.self, forPrimaryKey: "Rex")!) }  // links go away
        XCTAssertEqual(big.map(\.name), ["Fido", "Spot"])
        try db.write { try db.delete(ann) }  // the owner goes away
        XCTAssertEqual(big.count, 0)
    }

    func testFrozenCollectionResultsKeepTheirVersion() throws {
        let db = try pack()
        let ann = try owner(db, "Ann")
        let frozen = ann.dogs.where { $0.age > 3 }.freeze()
        try db.write { ann.dogs.removeAll() }
        XCTAssertEqual(frozen.count, 2)
        XCTAssertEqual(frozen.thaw().count, 0)
    }

    func testThawedCollectionResultsOfADeletedOwnerHoldNothing() throws {
        let db = try pack()
        let frozen = try owner(db, "Ann").dogs.where { $0.age > 3 }.freeze()
        try db.write { try db.delete(try owner(db, "Ann")) }
        let thawed = frozen.thaw()
        XCTAssertEqual(thawed.count, 0, "the owner does not exist in the live version")
        XCTAssertEqual(Array(thawed).count, 0)
        XCTAssertEqual(thawed.sum(of: \.age), 0)
    }
}
