import Foundation
import StrataStorage
import XCTest

@testable import Strata

/// The pattern docs/objects.md documents for Swift 6 code: an actor owns its `Database`, reads
/// and writes it from its methods, and hands out only `Sendable` values. It compiles in strict
/// concurrency (the package builds in Swift 6 mode) with no `@unchecked Sendable`.
actor DogKeeper {
    /// Opened on the actor (an `async` initializer runs on it once every stored property is
    /// set; a synchronous one runs off it), so it autorefreshes between the actor's jobs.
    private var db: Database!

    init(configuration: Database.Configuration) async throws {
        db = try Database(configuration: configuration)
    }

    /// Adds a dog, waiting for the writer lock without holding a thread.
    func add(name: String, age: Int) async throws {
        try await db.asyncWrite {
            let dog = Dog()
            (dog.name, dog.age) = (name, age)
            try db.add(dog)
        }
    }

    /// Adds a dog with a synchronous write: blocks the actor while another writer works.
    func addBlocking(name: String) throws {
        try db.write {
            let dog = Dog()
            dog.name = name
            try db.add(dog)
        }
    }

    /// Makes every dog a year older.
    func birthday() async throws {
        let dogs = db.objects(Dog.self)
        try await db.asyncWrite {
            for dog in dogs { dog.age += 1 }
        }
    }

    func names() -> [String] { db.objects(Dog.self).map(\.name).sorted() }

    /// A reference another task or actor resolves in its own database.
    func reference(toDogNamed name: String) -> ThreadSafeReference<Dog>? {
        db.objects(Dog.self).where { $0.name == name }.first.map { ThreadSafeReference(to: $0) }
    }

    /// Resolves a reference made elsewhere and renames the dog.
    func rename(_ reference: ThreadSafeReference<Dog>, to name: String) async throws {
        guard let dog = db.resolve(reference) else { return }
        try await db.asyncWrite { dog.name = name }
    }

    /// The dogs as of now, for any task to read.
    func frozenDogs() -> sending Results<Dog> { db.objects(Dog.self).freeze() }
}

final class ActorDatabaseTests: DatabaseTestCase {
    func testAnActorOwningItsDatabaseReadsAndWritesIt() throws {
        let configuration = try open().configuration
        let ages = try waitForDetachedTask {
            let keeper = try await DogKeeper(configuration: configuration)
            try await keeper.add(name: "Rex", age: 3)
            try await keeper.birthday()
            let frozen = await keeper.frozenDogs()
            return frozen.map { "\($0.name) \($0.age)" }
        }
        XCTAssertEqual(ages, ["Rex 4"])
    }

    func testAReferenceCrossesFromOneActorToAnother() throws {
        let configuration = try open().configuration
        let names = try waitForDetachedTask {
            let (first, second) = (try await DogKeeper(configuration: configuration), try await DogKeeper(configuration: configuration))
            try await first.add(name: "Rex", age: 3)
            let found = await first.reference(toDogNamed: "Rex")
            let reference = try XCTUnwrap(found)
            try await second.rename(reference, to: "Max")
            // The first actor's database reads the rename once an autorefresh has run between
            // its jobs (queued when the commit landed; no sooner than that).
            for _ in 0..<500 where await first.names() != ["Max"] { try await Task.sleep(nanoseconds: 2_000_000) }
            return await first.names()
        }
        XCTAssertEqual(names, ["Max"])
    }

    func testActorsOnTheSameFilesWriteConcurrently() throws {
        let configuration = try open().configuration
        try waitForDetachedTask(timeout: 60) {
            let keepers = [
                try await DogKeeper(configuration: configuration), try await DogKeeper(configuration: configuration),
                try await DogKeeper(configuration: configuration),
            ]
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<30 {
                    group.addTask { try await keepers[index % 3].add(name: "dog\(index)", age: index) }
                }
                try await group.waitForAll()
            }
        }
        XCTAssertEqual(try open().objects(Dog.self).count, 30)
    }

    func testASynchronousWriteOnAnActorWhileItsAsyncWriteWaitsDoesNotDeadlock() throws {
        let configuration = try open().configuration
        let keeper = try waitForDetachedTask { try await DogKeeper(configuration: configuration) }
        for round in 0..<5 {
            let holder = WriterLockHolder(configuration: configuration)
            let ended = DispatchSemaphore(value: 0)
            Task.detached {
                try? await keeper.add(name: "async\(round)", age: 1)
                ended.signal()
            }
            usleep(20_000)
            // Blocks the actor's thread on the lock while the task above waits for it too.
            Task.detached {
                try? await keeper.addBlocking(name: "sync\(round)")
                ended.signal()
            }
            usleep(20_000)
            holder.release()
            // A deadlock leaves the lock held for ever: fail at once rather than wait for it.
            for _ in 0..<2 where ended.wait(timeout: .now() + 10) == .timedOut {
                return XCTFail("round \(round) deadlocked")
            }
        }
        let names = try waitForDetachedTask { await keeper.names() }
        XCTAssertEqual(names.count, 10)
    }
}
