import Dispatch
import Foundation
import StrataStorage
import XCTest

@testable import Strata

final class NDog: Object {
    @Persisted(primaryKey: true) var name: String
    @Persisted var age: Int
    @Persisted var breed: String
    @Persisted(originProperty: "dogs") var owners: LinkingObjects<NPerson>
}

final class NPerson: Object {
    @Persisted(primaryKey: true) var name: String
    @Persisted var dogs: List<NDog>
    @Persisted var pals: MutableSet<NDog>
}

/// `observe` on `List`, `MutableSet` and `LinkingObjects` — after Realm's
/// RealmCollectionTypeTests `testObserve*` for List and LinkingObjects.
final class CollectionObserveTests: DatabaseTestCase {
    enum Event: Equatable, Sendable {
        case initial([String])
        case update([String], deletions: [Int], insertions: [Int], modifications: [Int])
        case error
    }

    private func record<C: Sequence & SendableMetatype>(_ log: DeliveryLog<Event>) -> @Sendable (CollectionChange<C>) -> Void where C.Element == NDog {
        { change in
            switch change {
            case .initial(let dogs): log.append(.initial(dogs.map(\.name)))
            case .update(let dogs, let d, let i, let m): log.append(.update(dogs.map(\.name), deletions: d, insertions: i, modifications: m))
            case .error: log.append(.error)
            }
        }
    }

    private func annWithDogs() throws -> (Database, NPerson) {
        let db = try open([NDog.self, NPerson.self])
        let ann = NPerson()
        ann.name = "Ann"
        try db.write {
            try db.add(ann)
            for (name, age) in [("Rex", 3), ("Fido", 5)] {
                let dog = NDog()
                (dog.name, dog.age) = (name, age)
                ann.dogs.append(dog)
                ann.pals.insert(dog)
            }
        }
        return (db, ann)
    }

    func testAListDeliversItsChangesAndIsEmptiedOnceWhenItsOwnerIsDeleted() throws {
        let (db, ann) = try annWithDogs()
        let log = DeliveryLog<Event>()
        let token = ann.dogs.observe(keyPaths: ["age"], record(log))
        log.wait { $0.count == 1 }
        try db.write {
            let max = NDog()
            max.name = "Max"
            ann.dogs.append(max)
        }
        log.wait { $0.count == 2 }
        try db.write { ann.dogs[1].age = 6 }
        log.wait { $0.count == 3 }
        try db.write { ann.dogs.remove(at: 0) }
        log.wait { $0.count == 4 }
        try db.write { try db.delete(ann) }
        log.wait { $0.count == 5 }
        XCTAssertEqual(log.all, [
            .initial(["Rex", "Fido"]),
            .update(["Rex", "Fido", "Max"], deletions: [], insertions: [2], modifications: []),
            .update(["Rex", "Fido", "Max"], deletions: [], insertions: [], modifications: [1]),
            .update(["Fido", "Max"], deletions: [0], insertions: [], modifications: []),
            .update([], deletions: [0, 1], insertions: [], modifications: []),   // realm-core list.cpp: "deleting the list"
        ])
        ChangeObserver.defaultQueue.sync {}  // the run that delivered it has ended the observation
        XCTAssertEqual(db.shared.notifier.count, 0)
        token.invalidate()
    }

    func testASetIgnoresAnUnobservedChangeAndSeesADeletionByAnotherDatabase() throws {
        let (db, ann) = try annWithDogs()
        let log = DeliveryLog<Event>()
        let token = ann.pals.observe(keyPaths: ["age"], record(log))
        log.wait { $0.count == 1 }
        guard case .initial(let names) = log.all[0] else { return XCTFail("no initial delivery") }
        try db.write { ann.pals.first!.breed = "lab" }
        ChangeObserver.defaultQueue.sync {}
        XCTAssertEqual(log.all.count, 1, "breed is not observed")
        let configuration = db.configuration
        try waitForDetachedTask {
            let other = try Database(configuration: configuration)
            let rex = try XCTUnwrap(other.object(ofType: NDog.self, forPrimaryKey: "Rex"))
            try other.write { try other.delete(rex) }
        }
        log.wait { $0.count == 2 }
        XCTAssertEqual(log.all[1], .update(names.filter { $0 != "Rex" }, deletions: [names.firstIndex(of: "Rex")!], insertions: [], modifications: []))
        token.invalidate()
    }

    func testLinkingObjectsDeliverANewOwner() throws {
        let (db, ann) = try annWithDogs()
        let rex = ann.dogs[0]
        let log = DeliveryLog<[String]>()
        let token = rex.owners.observe { change in
            switch change {
            case .initial(let owners): log.append(owners.map(\.name))
            case .update(let owners, _, let insertions, _): log.append(owners.map(\.name) + insertions.map(String.init))
            case .error(let error): XCTFail("\(error)")
            }
        }
        log.wait { $0.count == 1 }
        try db.write {
            let bob = NPerson()
            bob.name = "Bob"
            bob.dogs.append(rex)
            try db.add(bob)
        }
        log.wait { $0.count == 2 }
        XCTAssertEqual(log.all, [["Ann"], ["Ann", "Bob", "1"]])
        token.invalidate()
    }
}
