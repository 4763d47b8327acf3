import Dispatch
import Foundation
import StrataStorage
import XCTest

@testable import Strata

/// Key paths through links (`"dog.age"`): a change of the linked object's property is a
/// modification of the object that links to it, as Realm's key-path filtered notifications.
final class LinkKeyPathObserveTests: DatabaseTestCase {
    struct Delivery: Equatable, Sendable {
        var names: [String]
        var deletions: [Int] = [], insertions: [Int] = [], modifications: [Int] = []
    }

    private func annWithRex(_ db: Database) throws -> (Person, Dog) {
        let (ann, rex) = (Person(), Dog())
        (ann.name, rex.name, rex.age) = ("Ann", "Rex", 5)
        ann.dog = rex
        try db.write { try db.add(ann) }
        return (ann, rex)
    }

    func testALinkedObjectsObservedPropertyIsAModificationOfItsOwner() throws {
        let db = try open()
        let (ann, rex) = try annWithRex(db)
        let log = DeliveryLog<Delivery>()
        let token = db.objects(Person.self).where { $0.dog.age > 3 }.observe(keyPaths: ["name", "dog.age"]) { change in
            switch change {
            case .initial(let people): log.append(Delivery(names: people.map(\.name)))
            case .update(let people, let d, let i, let m):
                log.append(Delivery(names: people.map(\.name), deletions: d, insertions: i, modifications: m))
            case .error(let error): XCTFail("\(error)")
            }
        }
        log.wait { $0.count == 1 }
        try db.write { rex.age = 6 }
        log.wait { $0.count == 2 }
        try db.write { rex.name = "Max" }     // dog.name is not observed
        ChangeObserver.defaultQueue.sync {}
        XCTAssertEqual(log.all.count, 2)
        try db.write { rex.age = 2 }
        log.wait { $0.count == 3 }
        try db.write { ann.dog = nil }        // not a match before or after: nothing
        ChangeObserver.defaultQueue.sync {}
        XCTAssertEqual(log.all, [
            Delivery(names: ["Ann"]),
            Delivery(names: ["Ann"], modifications: [0]),
            Delivery(names: [], deletions: [0]),
        ])
        token.invalidate()
    }

    func testAnObjectObservingALinkedPropertyReportsTheLinkProperty() throws {
        let db = try open()
        let (ann, rex) = try annWithRex(db)
        let log = DeliveryLog<[String]>()
        let token = ann.observe(keyPaths: ["dog.age", "dog.name"]) { (change: ObjectChange<Person>) in
            if case .change(_, let properties) = change {
                log.append(properties.map { "\($0.name) \($0.oldValue == nil) \($0.newValue == nil)" })
            }
        }
        try db.write {
            rex.age = 7
            rex.name = "Max"
        }
        log.wait { $0.count == 1 }
        XCTAssertEqual(log.all, [["dog true true"]])
        token.invalidate()
    }
}
