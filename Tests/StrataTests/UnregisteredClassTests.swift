import Foundation
import StrataStorage
import XCTest

@testable import Strata

final class Kid: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var toy: Toy?
    @Persisted var toys: List<Toy>
    @Persisted var spare: Shelf?
}

final class Toy: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var name: String
}

final class Shelf: EmbeddedObject {
    @Persisted var toy: Toy?
}

/// Deleting an object removes every link to it, also from objects of classes the deleting
/// `Database` did not register: the stored catalog knows every class, and records are
/// self-describing.
final class UnregisteredClassTests: DatabaseTestCase {
    private func toy(_ id: Int) -> Toy {
        let toy = Toy()
        toy.id = id
        toy.name = "toy \(id)"
        return toy
    }

    func testDeleteThroughADatabaseWithoutTheLinkingClassLeavesNoDanglingLink() throws {
        do {
            let db = try open([Kid.self, Toy.self, Shelf.self])
            let kid = Kid()
            kid.id = 1
            let zero = toy(0), one = toy(1)
            kid.toy = zero
            kid.toys.append(objectsIn: [zero, one, zero])
            let shelf = Shelf()
            shelf.toy = zero
            kid.spare = shelf
            try db.write { try db.add(kid) }
        }
        do {
            let db = try open([Toy.self])
            try db.write { try db.delete(try XCTUnwrap(db.object(ofType: Toy.self, forPrimaryKey: 0))) }
            // A new object under the deleted one's key.
            try db.write { try db.add(toy(0)) }
            XCTAssertNil(db.readFailure)
        }
        let db = try open([Kid.self, Toy.self, Shelf.self])
        let kid = try XCTUnwrap(db.object(ofType: Kid.self, forPrimaryKey: 1))
        XCTAssertNil(kid.toy)
        XCTAssertEqual(kid.toys.map(\.id), [1])
        XCTAssertNil(kid.spare?.toy)
        XCTAssertNotNil(kid.spare)
        XCTAssertEqual(db.object(ofType: Toy.self, forPrimaryKey: 0)?.name, "toy 0")
    }

    func testTwoDeletesInOneWriteUnlinkTheSameUnregisteredObject() throws {
        do {
            let db = try open([Kid.self, Toy.self, Shelf.self])
            let kid = Kid()
            kid.id = 1
            kid.toys.append(objectsIn: [toy(0), toy(1), toy(2)])
            try db.write { try db.add(kid) }
        }
        do {
            let db = try open([Toy.self])
            try db.write {
                try db.delete(try XCTUnwrap(db.object(ofType: Toy.self, forPrimaryKey: 0)))
                try db.delete(try XCTUnwrap(db.object(ofType: Toy.self, forPrimaryKey: 2)))
            }
        }
        let db = try open([Kid.self, Toy.self, Shelf.self])
        XCTAssertEqual(try XCTUnwrap(db.object(ofType: Kid.self, forPrimaryKey: 1)).toys.map(\.id), [1])
        // The deleted toys' backlink records went with them.
        let snapshot = db.shared.store.snapshot()
        XCTAssertEqual(snapshot.count(in: ObjectFormat.backlinkKeyspace), 1)
    }
}
