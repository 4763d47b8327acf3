import Foundation
import StrataStorage
import XCTest

@testable import Strata

final class PinnedDog: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var name: String
    @Persisted var age: Int
}

final class PinnedOwner: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var dogs: List<PinnedDog>
}

/// Realm's read consistency: a live database reads one version until it advances (a write,
/// `refresh()`, the first read after `invalidate()`, or an autorefresh between the jobs of the
/// actor it was opened on), so nothing another thread commits changes what it reads meanwhile.
final class VersionPinningTests: DatabaseTestCase {
    private var configuration: Database.Configuration {
        .init(directory: directory, objectTypes: [PinnedDog.self, PinnedOwner.self], durability: .none)
    }

    /// Opens a database from another thread (off any actor), runs `body` in it there, and waits.
    private func onAnotherThread(_ body: @escaping @Sendable (Database) throws -> Void) {
        let configuration = configuration
        let done = DispatchSemaphore(value: 0)
        let failure = Locked<String?>(nil)
        Thread {
            do {
                try body(Database(configuration: configuration))
            } catch {
                failure.withLock { $0 = "\(error)" }
            }
            done.signal()
        }.start()
        done.wait()
        XCTAssertNil(failure.withLock { $0 })
    }

    private func addDogs(_ ids: Range<Int>) {
        onAnotherThread { db in
            try db.write {
                for id in ids { try db.create(PinnedDog.self, value: ["id": id, "name": "d\(id)", "age": id % 10]) }
            }
        }
    }

    func testAnotherThreadsCommitIsReadOnlyAfterRefresh() throws {
        let db = try Database(configuration: configuration)
        let dogs = db.objects(PinnedDog.self)
        XCTAssertEqual(dogs.count, 0)
        addDogs(0..<3)
        XCTAssertEqual(dogs.count, 0, "a live database stays at its version")
        XCTAssertNil(db.object(ofType: PinnedDog.self, forPrimaryKey: 1))
        XCTAssertTrue(db.refresh())
        XCTAssertEqual(dogs.count, 3)
        XCTAssertEqual(db.object(ofType: PinnedDog.self, forPrimaryKey: 1)?.name, "d1")
        XCTAssertFalse(db.refresh(), "nothing newer")
    }

    func testAnObjectDeletedElsewhereStaysReadableUntilRefresh() throws {
        addDogs(0..<2)
        let db = try Database(configuration: configuration)
        let rex = try XCTUnwrap(db.object(ofType: PinnedDog.self, forPrimaryKey: 0))
        onAnotherThread { other in
            try other.write { try other.delete(other.objects(PinnedDog.self)) }
        }
        XCTAssertFalse(rex.isInvalidated)
        XCTAssertEqual(rex.name, "d0")
        db.refresh()
        XCTAssertTrue(rex.isInvalidated)
    }

    func testAWriteBeginsAtTheNewestCommit() throws {
        let db = try Database(configuration: configuration)
        XCTAssertEqual(db.objects(PinnedDog.self).count, 0)
        addDogs(0..<2)
        XCTAssertEqual(db.objects(PinnedDog.self).count, 0)
        try db.write {
            XCTAssertEqual(db.objects(PinnedDog.self).count, 2, "a write reads the newest commit")
            try db.create(PinnedDog.self, value: ["id": 9, "name": "n", "age": 1])
        }
        XCTAssertEqual(db.objects(PinnedDog.self).count, 3, "and the database stays at its own commit")
    }

    func testFreezeFreezesTheVersionRead() throws {
        let db = try Database(configuration: configuration)
        XCTAssertEqual(db.objects(PinnedDog.self).count, 0)
        addDogs(0..<2)
        XCTAssertEqual(db.freeze().objects(PinnedDog.self).count, 0)
        db.refresh()
        XCTAssertEqual(db.freeze().objects(PinnedDog.self).count, 2)
    }

    /// Realm's `testInvalidate`.
    func testInvalidateInvalidatesWhatWasReadAndReadsTheNewestCommitNext() throws {
        let db = try Database(configuration: configuration)
        let dog = PinnedDog()
        try db.write { try db.add(dog) }
        db.invalidate()
        XCTAssertTrue(dog.isInvalidated)
        try db.write { try db.create(PinnedDog.self, value: ["id": 1]) }
        XCTAssertEqual(db.objects(PinnedDog.self).count, 2)
        XCTAssertTrue(dog.isInvalidated)

        let results = db.objects(PinnedDog.self)
        XCTAssertEqual(results.count, 2)
        addDogs(5..<8)
        XCTAssertEqual(results.count, 2)
        db.invalidate()
        XCTAssertEqual(results.count, 5, "the first read after invalidate() starts at the newest commit")
        XCTAssertFalse(results[0].isInvalidated)
    }

    func testInvalidateCancelsAnOpenWrite() throws {
        let db = try Database(configuration: configuration)
        try db.beginWrite()
        try db.create(PinnedDog.self, value: ["id": 1])
        db.invalidate()
        XCTAssertFalse(db.isInWriteTransaction)
        XCTAssertEqual(db.objects(PinnedDog.self).count, 0)
        try db.write { try db.create(PinnedDog.self, value: ["id": 2]) }
        XCTAssertEqual(db.objects(PinnedDog.self).count, 1)
    }

    func testInvalidateBeforeAnyReadIsHarmless() throws {
        let db = try Database(configuration: configuration)
        db.invalidate()
        db.invalidate()
        XCTAssertEqual(db.objects(PinnedDog.self).count, 0)
        XCTAssertFalse(db.isFrozen)
    }

    func testAReferenceMadeAtANewerCommitAdvancesTheResolvingDatabase() throws {
        let db = try Database(configuration: configuration)
        XCTAssertEqual(db.objects(PinnedDog.self).count, 0)
        let reference = Locked<ThreadSafeReference<PinnedDog>?>(nil)
        onAnotherThread { other in
            let dog = try other.write { try other.create(PinnedDog.self, value: ["id": 4, "name": "four"]) }
            reference.withLock { $0 = ThreadSafeReference(to: dog) }
        }
        let resolved = try XCTUnwrap(reference.withLock { $0 }.flatMap { db.resolve($0) })
        XCTAssertEqual(resolved.name, "four")
    }

    /// The reads that crashed while another thread wrote: count then subscript, iteration,
    /// `map`, `Array(results)`, `first`, a list's count then subscript and `last`, and a read
    /// after checking `isInvalidated`. A writer thread adds and deletes objects and list
    /// elements all the while; each round of reads must see one version.
    func testReadsSeeOneVersionWhileAnotherThreadWrites() throws {
        let db = try Database(configuration: configuration)
        try db.write {
            let owner = try db.create(PinnedOwner.self, value: ["id": 1])
            for id in 0..<50 { owner.dogs.append(try db.create(PinnedDog.self, value: ["id": id, "name": "d\(id)"])) }
        }
        let stop = Locked(false)
        let writerDone = DispatchSemaphore(value: 0)
        let configuration = configuration
        Thread {
            defer { writerDone.signal() }
            guard let writer = try? Database(configuration: configuration) else { return }
            var next = 1_000
            while !stop.withLock({ $0 }) {
                try? writer.write {
                    let owner = writer.object(ofType: PinnedOwner.self, forPrimaryKey: 1)!
                    if owner.dogs.count > 20, next % 3 == 0 {
                        let doomed = Array(writer.objects(PinnedDog.self).prefix(10))
                        try writer.delete(doomed)
                    } else {
                        owner.dogs.append(try writer.create(PinnedDog.self, value: ["id": next, "name": "d\(next)"]))
                    }
                }
                next += 1
            }
        }.start()
        defer {
            stop.withLock { $0 = true }
            writerDone.wait()
        }
        let dogs = db.objects(PinnedDog.self)
        let owner = try XCTUnwrap(db.object(ofType: PinnedOwner.self, forPrimaryKey: 1))
        for round in 0..<300 {
            let count = dogs.count
            for index in 0..<count { _ = dogs[index].name }
            for dog in dogs where !dog.isInvalidated { _ = dog.name }
            XCTAssertEqual(dogs.map(\.id).count, count)
            XCTAssertEqual(Array(dogs).count, count)
            _ = dogs.first?.id
            let listCount = owner.dogs.count
            for index in 0..<listCount { _ = owner.dogs[index].name }
            _ = owner.dogs.last?.name
            XCTAssertEqual(dogs.count, count, "round \(round): one version until the database advances")
            if round % 10 == 9 { db.refresh() }
        }
    }

    func testObserversHearRefreshRequiredThenDidChangeWhenTheDatabaseAdvances() throws {
        let db = try Database(configuration: configuration)
        XCTAssertFalse(db.autorefresh, "a database opened off any actor never autorefreshes")
        let log = DeliveryLog<Database.Notification>()
        let token = db.observe { notification, _ in log.append(notification) }
        defer { token.invalidate() }
        addDogs(0..<1)
        log.wait { $0.contains(.refreshRequired) }
        XCTAssertEqual(db.objects(PinnedDog.self).count, 0)
        db.refresh()
        log.wait { $0.last == .didChange }
        try db.write { try db.create(PinnedDog.self, value: ["id": 7]) }
        log.wait { $0.count(where: { $0 == .didChange }) == 2 }
    }

    /// An observation keeps the files it reads open: a `Database` released before the first
    /// delivery must not leave its observers with a store no one commits through.
    func testAnObservationOutlivesTheDatabaseItCameFrom() throws {
        let log = DeliveryLog<Int>()
        let token = try Database(configuration: configuration).objects(PinnedDog.self).observe { change in
            switch change {
            case .initial(let dogs): log.append(dogs.count)
            case .update(let dogs, _, _, _): log.append(dogs.count)
            case .error: log.append(-1)
            }
        }
        defer { token.invalidate() }
        log.wait { $0 == [0] }
        addDogs(0..<2)
        log.wait { $0.last == 2 }
        XCTAssertEqual(log.all, [0, 2])
    }

    func testAChangeSequenceOutlivesTheDatabaseItCameFrom() throws {
        let configuration = configuration
        let counts = try waitForDetachedTask { () async throws -> [Int] in
            let changes = try Database(configuration: configuration).objects(PinnedDog.self).changes
            var counts: [Int] = []
            for await change in changes {
                switch change {
                case .initial(let dogs):
                    counts.append(dogs.count)
                    let writer = try Database(configuration: configuration)
                    try writer.write { try writer.create(PinnedDog.self, value: ["id": 1]) }
                case .update(let dogs, _, _, _):
                    counts.append(dogs.count)
                case .error: counts.append(-1)
                }
                if counts.count == 2 { break }
            }
            return counts
        }
        XCTAssertEqual(counts, [0, 1])
    }

    /// A concurrent queue gets one delivery of an observer at a time, in order.
    func testObservingOnAConcurrentQueueDeliversOneAtATime() throws {
        let db = try Database(configuration: configuration)
        let inFlight = Locked(0)
        let overlapped = Locked(false)
        let log = DeliveryLog<Int>()
        let queue = DispatchQueue(label: "concurrent", attributes: .concurrent)
        let token = db.objects(PinnedDog.self).observe(on: queue) { change in
            let running = inFlight.withLock { value -> Int in
                value += 1
                return value
            }
            if running > 1 { overlapped.withLock { $0 = true } }
            if case .update(let dogs, _, _, _) = change { log.append(dogs.count) } else { log.append(0) }
            usleep(2_000)
            inFlight.withLock { $0 -= 1 }
        }
        defer { token.invalidate() }
        for id in 0..<40 {
            try db.write { try db.create(PinnedDog.self, value: ["id": id]) }
            // Commits land while deliveries run.
            usleep(500)
        }
        log.wait { $0.last == 40 }
        XCTAssertFalse(overlapped.withLock { $0 })
        XCTAssertEqual(log.all, log.all.sorted())
    }
}

/// An actor that opens a database on itself: the database autorefreshes between its jobs.
actor PinnedReader {
    private var db: Database?

    func open(_ configuration: Database.Configuration) throws {
        db = try Database(configuration: configuration)
    }

    func count() -> Int { db?.objects(PinnedDog.self).count ?? -1 }

    var autorefresh: Bool {
        get { db?.autorefresh ?? false }
    }

    func setAutorefresh(_ on: Bool) { db?.autorefresh = on }

    /// Reads the count, lets `commit` run on another thread and waits for it, then reads again:
    /// both reads are in one job.
    func countAroundACommit(_ commit: @escaping @Sendable () -> Void) -> (before: Int, after: Int) {
        let before = count()
        let done = DispatchSemaphore(value: 0)
        Thread {
            commit()
            done.signal()
        }.start()
        done.wait()
        // Give an autorefresh every chance to run, were it allowed inside a job.
        Thread.sleep(forTimeInterval: 0.05)
        return (before, count())
    }
}

final class AutorefreshTests: DatabaseTestCase {
    private var configuration: Database.Configuration {
        .init(directory: directory, objectTypes: [PinnedDog.self, PinnedOwner.self], durability: .none)
    }

    private func addDog(_ id: Int) -> @Sendable () -> Void {
        let configuration = configuration
        return {
            let db = try! Database(configuration: configuration)
            try! db.write { try db.create(PinnedDog.self, value: ["id": id]) }
        }
    }

    func testADatabaseOpenedOnAnActorAdvancesBetweenItsJobsNeverInsideOne() throws {
        let configuration = configuration
        let addDog = addDog(1)
        let (inJob, later, autorefresh) = try waitForDetachedTask { () async throws -> ((Int, Int), Int, Bool) in
            let reader = PinnedReader()
            try await reader.open(configuration)
            let inJob = await reader.countAroundACommit(addDog)
            let later = try await waitForCount(1, in: reader)
            return ((inJob.before, inJob.after), later, await reader.autorefresh)
        }
        XCTAssertTrue(autorefresh)
        XCTAssertEqual(inJob.0, 0)
        XCTAssertEqual(inJob.1, 0, "no autorefresh inside a job")
        XCTAssertEqual(later, 1, "an autorefresh between jobs")
    }

    func testAutorefreshOffLeavesTheDatabaseAtItsVersion() throws {
        let configuration = configuration
        let addDog = addDog(1)
        let counts = try waitForDetachedTask { () async throws -> (Int, Int) in
            let reader = PinnedReader()
            try await reader.open(configuration)
            await reader.setAutorefresh(false)
            _ = await reader.countAroundACommit(addDog)
            try await Task.sleep(nanoseconds: 100_000_000)
            let stale = await reader.count()
            await reader.setAutorefresh(true)
            // Turning it back on reads the next commit that lands.
            addDog2(configuration)
            return (stale, try await waitForCount(2, in: reader))
        }
        XCTAssertEqual(counts.0, 0)
        XCTAssertEqual(counts.1, 2)
    }

    func testADatabaseOpenedOffAnyActorDoesNotMoveByItself() throws {
        let configuration = configuration
        let addDog = addDog(1)
        let counts = try waitForDetachedTask { () async throws -> (Int, Int, Bool) in
            let db = try Database(configuration: configuration)
            let before = db.objects(PinnedDog.self).count
            addDog()
            try await Task.sleep(nanoseconds: 50_000_000)
            return (before, db.objects(PinnedDog.self).count, db.autorefresh)
        }
        XCTAssertEqual(counts.0, 0)
        XCTAssertEqual(counts.1, 0)
        XCTAssertFalse(counts.2)
    }
}

private func addDog2(_ configuration: Database.Configuration) {
    let db = try! Database(configuration: configuration)
    try! db.write { try db.create(PinnedDog.self, value: ["id": 2]) }
}

/// Polls `reader` between its jobs until `count` objects are read, or gives up.
private func waitForCount(_ count: Int, in reader: PinnedReader) async throws -> Int {
    for _ in 0..<500 {
        if await reader.count() == count { return count }
        try await Task.sleep(nanoseconds: 2_000_000)
    }
    return await reader.count()
}

/// An actor that observes: `observe(on: actor)` delivers as the actor's jobs.
actor PinnedObserver {
    private(set) var counts: [Int] = []
    private(set) var notifications: [Database.Notification] = []
    private var token: NotificationToken?
    private var databaseToken: NotificationToken?

    func observe(_ configuration: Database.Configuration) async throws {
        let db = try Database(configuration: configuration)
        token = await db.objects(PinnedDog.self).observe(on: self) { observer, change in
            observer.assertIsolated()
            switch change {
            case .initial(let dogs), .update(let dogs, _, _, _): observer.counts.append(dogs.count)
            case .error: observer.counts.append(-1)
            }
        }
        databaseToken = db.observe(on: self) { observer, notification in observer.notifications.append(notification) }
    }

    func stop() {
        token?.invalidate()
        databaseToken?.invalidate()
    }
}

final class ActorObserveTests: DatabaseTestCase {
    func testObservingOnAnActorDeliversAsItsJobsInOrder() throws {
        let configuration = Database.Configuration(directory: directory, objectTypes: [PinnedDog.self, PinnedOwner.self])
        let (counts, notifications) = try waitForDetachedTask { () async throws -> ([Int], [Database.Notification]) in
            let observer = PinnedObserver()
            try await observer.observe(configuration)
            let initial = await observer.counts
            XCTAssertEqual(initial, [0], "the initial delivery has run when observe returns")
            let writer = try Database(configuration: configuration)
            for id in 0..<3 { try writer.write { try writer.create(PinnedDog.self, value: ["id": id]) } }
            for _ in 0..<500 where await observer.counts.last != 3 { try await Task.sleep(nanoseconds: 2_000_000) }
            await observer.stop()
            return (await observer.counts, await observer.notifications)
        }
        XCTAssertEqual(counts.first, 0)
        XCTAssertEqual(counts.last, 3)
        XCTAssertEqual(counts, counts.sorted(), "in commit order")
        XCTAssertEqual(Set(notifications), [.refreshRequired])
    }
}
