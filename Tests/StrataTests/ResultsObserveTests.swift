import Dispatch
import Foundation
import StrataStorage
import XCTest

@testable import Strata

/// `Results.observe`: what is delivered, where, and when it stops — after Realm's
/// NotificationTests and RealmCollectionTypeTests `testObserve*`.
final class ResultsObserveTests: DatabaseTestCase {
    /// A delivery, summarized on the queue: the kind, the results' dog names, the indexes.
    struct Delivery: Sendable {
        var initial: Bool
        var names: [String]
        var deletions: [Int] = []
        var insertions: [Int] = []
        var modifications: [Int] = []
    }

    private func observe(_ results: Results<Dog>, keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                         into log: DeliveryLog<Delivery>) -> NotificationToken {
        results.observe(keyPaths: keyPaths, on: queue) { change in
            switch change {
            case .initial(let dogs):
                log.append(Delivery(initial: true, names: dogs.map(\.name)))
            case .update(let dogs, let deletions, let insertions, let modifications):
                log.append(Delivery(initial: false, names: dogs.map(\.name), deletions: deletions,
                                    insertions: insertions, modifications: modifications))
            case .error(let error):
                XCTFail("unexpected error \(error)")
            }
        }
    }

    private func addDog(_ name: String, age: Int, to db: Database) throws {
        try db.write {
            let dog = Dog()
            dog.name = name
            dog.age = age
            try db.add(dog)
        }
    }

    func testTheFirstDeliveryIsInitialThenAnUpdateIndexesTheChange() throws {
        let db = try open()
        try addFourDogs(to: db)
        let log = DeliveryLog<Delivery>()
        let token = observe(db.objects(Dog.self).where { $0.age > 2 }.sorted(by: \.name), into: log)
        log.wait { $0.count == 1 }
        XCTAssertEqual(log.all[0].initial, true)
        XCTAssertEqual(log.all[0].names, ["Fido", "Rex", "Rusty"])
        try addDog("Max", age: 4, to: db)
        log.wait { $0.count == 2 }
        XCTAssertEqual(log.all[1].names, ["Fido", "Max", "Rex", "Rusty"])
        XCTAssertEqual(log.all[1].insertions, [1])
        XCTAssertEqual(log.all[1].deletions, [])
        try db.write { db.objects(Dog.self).where { $0.name == "Rex" }.first!.age = 1 }
        log.wait { $0.count == 3 }
        XCTAssertEqual(log.all[2].deletions, [2])
        try db.write { db.objects(Dog.self).where { $0.name == "Fido" }.first!.age = 6 }
        log.wait { $0.count == 4 }
        XCTAssertEqual(log.all[3].modifications, [0])
        token.invalidate()
    }

    func testACommitThatChangesNothingObservedDeliversNothing() throws {
        let db = try open()
        try addFourDogs(to: db)
        let log = DeliveryLog<Delivery>()
        let token = observe(db.objects(Dog.self).where { $0.age > 2 }, keyPaths: ["age"], into: log)
        log.wait { $0.count == 1 }
        try db.write { db.objects(Dog.self).where { $0.name == "Rex" }.first!.breed = "lab" }  // not observed
        try addDog("Pup", age: 1, to: db)                                                         // not a match
        ChangeObserver.defaultQueue.sync {}  // every delivery those commits queued has run
        XCTAssertEqual(log.all.count, 1)
        token.invalidate()
    }

    func testInvalidatingTheTokenStopsDeliveries() throws {
        let db = try open()
        let (stopped, control) = (DeliveryLog<Delivery>(), DeliveryLog<Delivery>())
        let token = observe(db.objects(Dog.self), into: stopped)
        let controlToken = observe(db.objects(Dog.self), into: control)
        stopped.wait { $0.count == 1 }
        control.wait { $0.count == 1 }
        token.invalidate()
        token.invalidate()
        try addDog("Rex", age: 3, to: db)
        control.wait { $0.count == 2 }
        ChangeObserver.defaultQueue.sync {}
        XCTAssertEqual(stopped.all.count, 1)
        XCTAssertEqual(db.shared.notifier.count, 1)
        controlToken.invalidate()
        XCTAssertEqual(db.shared.notifier.count, 0)
    }

    func testReleasingTheTokenStopsDeliveries() throws {
        let db = try open()
        let log = DeliveryLog<Delivery>()
        var token: NotificationToken? = observe(db.objects(Dog.self), into: log)
        log.wait { $0.count == 1 }
        XCTAssertNotNil(token)
        token = nil
        try addDog("Rex", age: 3, to: db)
        ChangeObserver.defaultQueue.sync {}
        XCTAssertEqual(log.all.count, 1)
        XCTAssertEqual(db.shared.notifier.count, 0)
    }

    func testChangesFromAnotherDatabaseOfTheSameFilesAreDelivered() throws {
        let db = try open()
        let log = DeliveryLog<Delivery>()
        let token = observe(db.objects(Dog.self), into: log)
        log.wait { $0.count == 1 }
        let configuration = db.configuration
        try waitForDetachedTask {
            let other = try Database(configuration: configuration)
            try other.write { try other.add(Dog()) }
        }
        log.wait { $0.count == 2 }
        XCTAssertEqual(log.all[1].insertions, [0])
        token.invalidate()
    }

    func testABurstOfCommitsIsOneDeliveryOnTheGivenQueue() throws {
        let db = try open()
        let queue = DispatchQueue(label: "burst")
        let log = DeliveryLog<Delivery>()
        let token = db.objects(Dog.self).sorted(by: \.name).observe(on: queue) { change in
            dispatchPrecondition(condition: .onQueue(queue))
            switch change {
            case .initial(let dogs): log.append(Delivery(initial: true, names: dogs.map(\.name)))
            case .update(let dogs, let deletions, let insertions, _):
                log.append(Delivery(initial: false, names: dogs.map(\.name), deletions: deletions, insertions: insertions))
            case .error(let error): XCTFail("\(error)")
            }
        }
        log.wait { $0.count == 1 }
        queue.sync {}  // the initial delivery's run has ended: a commit now queues a new run behind `held`
        let held = DispatchSemaphore(value: 0)
        queue.async { held.wait() }
        for name in ["e", "d", "c", "b", "a"] { try addDog(name, age: 1, to: db) }
        held.signal()
        queue.sync {}
        XCTAssertEqual(log.all.count, 2)
        XCTAssertEqual(log.all[1].names, ["a", "b", "c", "d", "e"])
        XCTAssertEqual(log.all[1].insertions, [0, 1, 2, 3, 4])
        token.invalidate()
    }

    func testAnUnknownKeyPathOrFrozenResultsDeliverAnError() throws {
        let db = try open()
        let errors = DeliveryLog<String>()
        let unknown = db.objects(Dog.self).observe(keyPaths: ["weight"]) { change in
            if case .error(let error) = change { errors.append("\(error)") }
        }
        let frozen = db.objects(Dog.self).freeze().observe { change in
            if case .error(let error) = change { errors.append("\(error)") }
        }
        errors.wait { $0.count == 2 }
        XCTAssertTrue(errors.all.contains { $0.contains("weight") })
        _ = (unknown, frozen)
    }
}
