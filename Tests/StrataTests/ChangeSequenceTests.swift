import Dispatch
import Foundation
import StrataStorage
import XCTest

@testable import Strata

/// The `AsyncSequence` forms of change notifications (`changes`): the same deliveries as the
/// callbacks, frozen; one change held for a slow consumer, later commits coalesced; the
/// observation ends with the task or the sequence.
final class ChangeSequenceTests: DatabaseTestCase {
    private func dogsDatabase() throws -> Database { try open([NDog.self, NPerson.self]) }

    private static func addDog(_ name: String, age: Int, to db: Database) throws {
        try db.write {
            let dog = NDog()
            (dog.name, dog.age) = (name, age)
            try db.add(dog)
        }
        ChangeObserver.defaultQueue.sync {}   // its delivery has been computed
    }

    /// Waits until the notifier has `count` observers (invalidation is asynchronous).
    private static func waitForObservers(_ count: Int, in db: Database, file: StaticString = #filePath, line: UInt = #line) {
        let deadline = Date().addingTimeInterval(10)
        while db.shared.notifier.count != count, Date() < deadline {
            ChangeObserver.defaultQueue.sync {}
            Thread.sleep(forTimeInterval: 0.005)
        }
        XCTAssertEqual(db.shared.notifier.count, count, file: file, line: line)
    }

    /// Runs `body` in a task cancelled after `seconds`: a change that never comes ends the
    /// test's wait (`next()` returns nil when its task is cancelled) instead of hanging it.
    private func bounded(_ seconds: Double = 20, _ body: @escaping @Sendable () async throws -> Void) async throws {
        let task = Task { try await body() }
        let watchdog = Task.detached {
            try? await Task.sleep(for: .seconds(seconds))
            task.cancel()
        }
        defer { watchdog.cancel() }
        try await task.value
    }

    func testResultsChangesDeliverFrozenResultsWithTheCallbacksIndexes() async throws {
        let configuration = try dogsDatabase().configuration
        try await bounded {
            let db = try Database(configuration: configuration)
            try Self.addDog("Rex", age: 5, to: db)
            var changes = db.objects(NDog.self).where { $0.age > 2 }.sorted(by: \.name).changes.makeAsyncIterator()
            guard case .initial(let first)? = await changes.next() else { return XCTFail("no initial delivery") }
            XCTAssertTrue(first.isFrozen)
            XCTAssertEqual(first.map(\.name), ["Rex"])
            try Self.addDog("Ace", age: 3, to: db)
            guard case .update(let dogs, let deletions, let insertions, let modifications)? = await changes.next() else {
                return XCTFail("no update")
            }
            XCTAssertTrue(dogs.isFrozen)
            XCTAssertEqual(dogs.map(\.name), ["Ace", "Rex"])
            XCTAssertEqual([deletions, insertions, modifications], [[], [0], []])
            XCTAssertEqual(first.map(\.name), ["Rex"], "an earlier delivery's frozen results do not move")
        }
    }

    func testAnObjectsChangesCarryFrozenValuesAndEndAfterItsDeletion() async throws {
        let configuration = try dogsDatabase().configuration
        try await bounded {
            let db = try Database(configuration: configuration)
            try Self.addDog("Rex", age: 5, to: db)
            let rex = try XCTUnwrap(db.object(ofType: NDog.self, forPrimaryKey: "Rex"))
            var changes = rex.changes(keyPaths: ["age"]).makeAsyncIterator()
            try db.write { rex.breed = "collie" }    // not observed
            try db.write { rex.age = 6 }
            guard case .change(let dog, let properties)? = await changes.next() else { return XCTFail("no change") }
            XCTAssertTrue(dog.isFrozen)
            XCTAssertEqual(dog.age, 6)
            XCTAssertEqual(properties.map(\.name), ["age"])
            XCTAssertEqual(properties.first?.oldValue as? Int, 5)
            XCTAssertEqual(properties.first?.newValue as? Int, 6)
            try db.write { try db.delete(rex) }
            guard case .deleted? = await changes.next() else { return XCTFail("no deletion") }
            let end = await changes.next()
            XCTAssertNil(end)
            Self.waitForObservers(0, in: db)
        }
    }

    /// A consumer that has not taken a change holds it alone: the commits after it are
    /// computed when it asks again, as one change against the one it took.
    func testASlowConsumerGetsOneChangeCoveringTheCommitsSinceTheLastItTook() async throws {
        let configuration = try dogsDatabase().configuration
        try await bounded {
            let db = try Database(configuration: configuration)
            let sequence = db.objects(NDog.self).sorted(by: \.name).changes
            var changes = sequence.makeAsyncIterator()
            guard case .initial? = await changes.next() else { return XCTFail("no initial delivery") }
            for name in ["b", "d", "a", "c", "e"] { try Self.addDog(name, age: 1, to: db) }
            guard case .update(let first, _, let firstInsertions, _)? = await changes.next(),
                  case .update(let second, let deletions, let insertions, _)? = await changes.next()
            else { return XCTFail("expected two updates") }
            XCTAssertEqual(first.map(\.name), ["b"])
            XCTAssertEqual(firstInsertions, [0])
            XCTAssertEqual(second.map(\.name), ["a", "b", "c", "d", "e"])
            XCTAssertEqual(deletions, [])
            XCTAssertEqual(insertions, [0, 2, 3, 4])
        }
    }

    func testCancellingTheIteratingTaskEndsTheObservation() async throws {
        let db = try dogsDatabase()
        let sequence = db.objects(NDog.self).changes
        let started = DispatchSemaphore(value: 0)
        let task = Task.detached {
            var count = 0
            for await _ in sequence {
                count += 1
                started.signal()
            }
            return count
        }
        await Task.detached { started.wait() }.value
        XCTAssertEqual(db.shared.notifier.count, 1)
        task.cancel()
        let delivered = await task.value
        XCTAssertEqual(delivered, 1)
        Self.waitForObservers(0, in: db)
    }

    func testReleasingTheSequenceEndsTheObservation() async throws {
        let configuration = try dogsDatabase().configuration
        try await bounded {
            let db = try Database(configuration: configuration)
            do {
                var changes = db.objects(NDog.self).changes.makeAsyncIterator()
                _ = await changes.next()
                XCTAssertEqual(db.shared.notifier.count, 1)
            }
            Self.waitForObservers(0, in: db)
        }
    }

    func testListAndMapChangesAreFrozen() async throws {
        let configuration = try open([VHolder.self, VTag.self, NDog.self, NPerson.self]).configuration
        try await bounded {
            let db = try Database(configuration: configuration)
            let holder = VHolder()
            holder.name = "h"
            try db.write { try db.add(holder) }
            var scores = holder.scores.changes.makeAsyncIterator()
            var counts = holder.counts.changes.makeAsyncIterator()
            _ = await scores.next()
            _ = await counts.next()
            try db.write {
                holder.scores.append(7)
                holder.counts["a"] = 1
            }
            guard case .update(let list, _, let insertions, _)? = await scores.next(),
                  case .update(let map, _, let added, _)? = await counts.next()
            else { return XCTFail("expected updates") }
            XCTAssertTrue(list.isFrozen && map.isFrozen)
            XCTAssertEqual(Array(list), [7])
            XCTAssertEqual(insertions, [0])
            XCTAssertEqual(map.keys, ["a"])
            XCTAssertEqual(added, ["a"])
            try db.write { try db.delete(holder) }
            guard case .update(let emptied, let deletions, _, _)? = await scores.next() else { return XCTFail("no last update") }
            XCTAssertFalse(emptied.isManaged)
            XCTAssertEqual(emptied.count, 0)
            XCTAssertEqual(deletions, [0])
            let end = await scores.next()
            XCTAssertNil(end)
        }
    }

    /// Another database's commit is `.refreshRequired` for a database that does not autorefresh
    /// (opened off any actor); its own commit, and its `refresh()`, are `.didChange`.
    func testTheDatabasesChangesAndObserverSeeEveryDatabasesCommits() async throws {
        let configuration = try dogsDatabase().configuration
        try await bounded {
            let db = try Database(configuration: configuration)
            let log = DeliveryLog<String>()
            let token = db.observe { notification, database in
                log.append("\(notification) \(database.objects(NDog.self).count)")
            }
            var changes = db.changes.makeAsyncIterator()
            let other = try Database(configuration: db.configuration)
            try Self.addDog("Rex", age: 1, to: other)
            log.wait { $0.count == 1 }
            let notification = await changes.next()
            XCTAssertEqual(notification, .refreshRequired)
            // The write advances the database first (a `.didChange` of its own, which may come
            // together with the commit's).
            try Self.addDog("Ace", age: 1, to: db)
            log.wait { $0.last == "didChange 2" }
            let next = await changes.next()
            XCTAssertEqual(next, .didChange)
            token.invalidate()
            let delivered = log.all
            try Self.addDog("Max", age: 1, to: db)
            XCTAssertEqual(delivered.first, "refreshRequired 1")
            XCTAssertEqual(Set(delivered.dropFirst()).subtracting(["didChange 1", "didChange 2"]), [])
            XCTAssertEqual(log.all, delivered, "nothing after invalidate()")
        }
    }

    func testAFrozenDatabasesObserverNeverCalls() throws {
        let db = try dogsDatabase()
        let log = DeliveryLog<Int>()
        let token = db.freeze().observe { _, _ in log.append(1) }
        try Self.addDog("Rex", age: 1, to: db)
        ChangeObserver.defaultQueue.sync {}
        XCTAssertEqual(log.all, [])
        token.invalidate()
    }

    func testSectionedResultsChangesAreFrozenSections() async throws {
        let configuration = try dogsDatabase().configuration
        try await bounded {
            let db = try Database(configuration: configuration)
            try Self.addDog("Rex", age: 1, to: db)
            var changes = db.objects(NDog.self).sectioned(by: \.initial).changes.makeAsyncIterator()
            guard case .initial(let first)? = await changes.next() else { return XCTFail("no initial delivery") }
            XCTAssertEqual(first.allKeys, ["R"])
            try Self.addDog("Bo", age: 1, to: db)
            guard case .update(let sections, let deletions, let insertions, _, let sectionsToInsert, let sectionsToDelete)? =
                    await changes.next()
            else { return XCTFail("no update") }
            XCTAssertTrue(sections.isFrozen)
            XCTAssertEqual(sections.allKeys, ["B", "R"])
            XCTAssertEqual(deletions, [])
            XCTAssertEqual(insertions, [IndexPath(item: 0, section: 0)])
            XCTAssertEqual(Array(sectionsToInsert), [0])
            XCTAssertEqual(Array(sectionsToDelete), [])
        }
    }
}

extension NDog {
    /// The first letter of the name (sectioned results' key).
    var initial: String { String(name.prefix(1)) }
}
