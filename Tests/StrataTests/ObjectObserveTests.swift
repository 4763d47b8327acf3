import Dispatch
import Foundation
import StrataStorage
import XCTest

@testable import Strata

/// `Object.observe`: property old and new values, key-path filters, `.deleted` — after Realm's
/// ObjectTests `testObserve*`.
final class ObjectObserveTests: DatabaseTestCase {
    enum Event: Equatable, Sendable {
        case change(String, [String], [String], [String])   // the dog's name; names, old, new values
        case deleted
        case error(String)
    }

    private func observe(_ dog: Dog, keyPaths: [String]?, into log: DeliveryLog<Event>) -> NotificationToken {
        dog.observe(keyPaths: keyPaths) { (change: ObjectChange<Dog>) in
            switch change {
            case .change(let dog, let properties):
                log.append(.change(dog.name, properties.map(\.name), properties.map { "\($0.oldValue ?? "nil")" },
                                   properties.map { "\($0.newValue ?? "nil")" }))
            case .deleted: log.append(.deleted)
            case .error(let error): log.append(.error("\(error)"))
            }
        }
    }

    private func addRex(to db: Database) throws -> Dog {
        let rex = Dog()
        rex.name = "Rex"
        rex.age = 3
        try db.write { try db.add(rex) }
        return rex
    }

    func testAChangeDeliversTheObservedPropertiesOldAndNewValuesThenDeleted() throws {
        let db = try open()
        let rex = try addRex(to: db)
        let log = DeliveryLog<Event>()
        let token = observe(rex, keyPaths: ["name", "age"], into: log)
        try db.write {
            rex.age = 4
            rex.breed = "lab"    // not observed
        }
        log.wait { $0.count == 1 }
        XCTAssertEqual(log.all[0], .change("Rex", ["age"], ["3"], ["4"]))
        try db.write { rex.breed = "pug" }
        try db.write { rex.name = "Max" }
        log.wait { $0.count == 2 }
        XCTAssertEqual(log.all[1], .change("Max", ["name"], ["Rex"], ["Max"]))
        try db.write { try db.delete(rex) }
        log.wait { $0.count == 3 }
        XCTAssertEqual(log.all[2], .deleted)
        ChangeObserver.defaultQueue.sync {}  // the run that delivered it has ended the observation
        XCTAssertEqual(db.shared.notifier.count, 0, "a deleted object's observation ends")
        token.invalidate()
    }

    func testEveryStoredPropertyCountsWithoutKeyPaths() throws {
        let db = try open()
        let rex = try addRex(to: db)
        let log = DeliveryLog<Event>()
        let token = observe(rex, keyPaths: nil, into: log)
        try db.write { rex.breed = "lab" }
        log.wait { $0.count == 1 }
        XCTAssertEqual(log.all[0], .change("Rex", ["breed"], ["nil"], ["Optional(\"lab\")"]))
        token.invalidate()
    }

    func testAChangeCommittedBeforeTheObserverStartsIsDelivered() throws {
        let db = try open()
        let rex = try addRex(to: db)
        let log = DeliveryLog<Event>()
        let held = DispatchSemaphore(value: 0)
        ChangeObserver.defaultQueue.async { held.wait() }
        let token = observe(rex, keyPaths: ["age"], into: log)
        try db.write { rex.age = 7 }
        held.signal()
        log.wait { $0.count == 1 }
        XCTAssertEqual(log.all[0], .change("Rex", ["age"], ["3"], ["7"]))
        token.invalidate()
    }

    func testReleasingTheTokenStopsDeliveries() throws {
        let db = try open()
        let rex = try addRex(to: db)
        let log = DeliveryLog<Event>()
        var token: NotificationToken? = observe(rex, keyPaths: nil, into: log)
        XCTAssertNotNil(token)
        token = nil
        try db.write { rex.age = 5 }
        ChangeObserver.defaultQueue.sync {}
        XCTAssertEqual(log.all, [])
    }

    func testAnUnmanagedObjectOrAnUnknownKeyPathDeliversAnError() throws {
        let db = try open()
        let rex = try addRex(to: db)
        let log = DeliveryLog<Event>()
        let unmanaged = observe(Dog(), keyPaths: nil, into: log)
        let unknown = observe(rex, keyPaths: ["weight"], into: log)
        log.wait { $0.count == 2 }
        XCTAssertTrue(log.all.allSatisfy { if case .error = $0 { true } else { false } })
        _ = (unmanaged, unknown)
    }
}
