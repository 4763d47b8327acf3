import Dispatch
import Foundation
import XCTest

@testable import Strata

/// The observer machinery lets go of what it holds: once a token is invalidated or released,
/// the store's `CommitNotifier` no longer holds its `ChangeObserver`, and once the delivery
/// queue has run the release, the worker's `Database` (opened on the queue) is gone; with the
/// caller's database dropped too, so is the shared store. A cycle among the notifier, the
/// observer, its worker and the worker's database (which holds the shared store, which holds
/// the notifier) would keep all of them, and the store's files, open for good.
final class ObserverLifetimeTests: DatabaseTestCase {
    /// A weak reference set on the delivery queue and read after draining it.
    private final class WeakDatabase: @unchecked Sendable {
        weak var value: Database?
    }

    /// A queue per test (XCTest keeps test-case instances until exit: a stored one would show
    /// as a leak under `make asan`).
    private var queue: DispatchQueue!

    override func setUpWithError() throws {
        try super.setUpWithError()
        queue = DispatchQueue(label: "strata.tests.observer-lifetime")
    }

    override func tearDownWithError() throws {
        queue = nil
        try super.tearDownWithError()
    }

    private func waitFor(_ signal: DispatchSemaphore, file: StaticString = #filePath, line: UInt = #line) {
        if signal.wait(timeout: .now() + 10) == .timedOut { XCTFail("no delivery within 10 s", file: file, line: line) }
    }

    /// Observes every dog on `queue`; the worker's database goes into `seen` at the initial
    /// delivery.
    private func observeDogs(in db: Database, into seen: WeakDatabase) -> NotificationToken {
        let delivered = DispatchSemaphore(value: 0)
        let token = db.objects(Dog.self).observe(on: queue) { change in
            if case .initial(let dogs) = change {
                seen.value = dogs.database
                delivered.signal()
            }
        }
        waitFor(delivered)
        return token
    }

    func testInvalidatingAResultsTokenReleasesTheObserverAndTheWorkersDatabase() throws {
        let db = try open()
        try addFourDogs(to: db)
        let seen = WeakDatabase()
        let token = observeDogs(in: db, into: seen)
        queue.sync {}
        XCTAssertEqual(db.shared.notifier.count, 1)
        XCTAssertNotNil(seen.value, "the worker keeps its database while the observation goes on")
        XCTAssertFalse(seen.value === db)

        token.invalidate()
        XCTAssertEqual(db.shared.notifier.count, 0)
        queue.sync {}
        XCTAssertNil(seen.value, "the worker's database outlived the invalidated observation")
    }

    func testDroppingAResultsTokenReleasesEverythingDownToTheSharedStore() throws {
        let seen = WeakDatabase()
        weak var shared: SharedStore?
        weak var callersDatabase: Database?
        do {
            let db = try open()
            try addFourDogs(to: db)
            (shared, callersDatabase) = (db.shared, db)
            do {
                let token = observeDogs(in: db, into: seen)
                XCTAssertEqual(db.shared.notifier.count, 1)
                _ = token
            }
            XCTAssertEqual(db.shared.notifier.count, 0, "a released token must unregister its observer")
            try db.write { db.objects(Dog.self).first!.age += 1 }  // nobody is told of this one
        }
        queue.sync {}
        XCTAssertNil(seen.value, "the worker's database outlived its released token")
        XCTAssertNil(callersDatabase)
        XCTAssertNil(shared, "the shared store (and its files) outlived every database and token")
    }

    func testDroppingAnObjectTokenReleasesTheObserverAndTheWorkersDatabase() throws {
        let db = try open()
        try addFourDogs(to: db)
        let rex = db.objects(Dog.self).where { $0.name == "Rex" }.first!
        let seen = WeakDatabase()
        do {
            let changed = DispatchSemaphore(value: 0)
            let token = rex.observe(on: queue) { (change: ObjectChange<Dog>) in
                if case .change(let dog, _) = change {
                    seen.value = dog._strataState?.database
                    changed.signal()
                }
            }
            try db.write { rex.age = 4 }
            waitFor(changed)
            queue.sync {}
            XCTAssertEqual(db.shared.notifier.count, 1)
            XCTAssertNotNil(seen.value)
            _ = token
        }
        XCTAssertEqual(db.shared.notifier.count, 0)
        queue.sync {}
        XCTAssertNil(seen.value, "the object worker's database outlived its released token")
    }

    func testInvalidatingAListTokenReleasesTheObserverAndTheWorkersDatabase() throws {
        let db = try open([NDog.self, NPerson.self])
        let ann = NPerson()
        ann.name = "Ann"
        try db.write { try db.add(ann) }
        let seen = WeakDatabase()
        let delivered = DispatchSemaphore(value: 0)
        let token = ann.dogs.observe(on: queue) { (change: CollectionChange<List<NDog>>) in
            if case .initial(let dogs) = change {
                seen.value = dogs.binding?.database
                delivered.signal()
            }
        }
        waitFor(delivered)
        queue.sync {}
        XCTAssertEqual(db.shared.notifier.count, 1)
        XCTAssertNotNil(seen.value)

        token.invalidate()
        XCTAssertEqual(db.shared.notifier.count, 0)
        queue.sync {}
        XCTAssertNil(seen.value, "the list worker's database outlived the invalidated observation")
    }
}
