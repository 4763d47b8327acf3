import Foundation
import StrataStorage
import XCTest

@testable import Strata

/// `asyncWrite`: Realm's semantics (RealmTests' async-write tests), and its wait for the writer
/// lock suspends the task instead of holding a thread of the cooperative pool.
/// Fails unless `asyncWrite` on `db` throws a `StrataError` with `code`.
private func assertAsyncWriteThrows(_ code: StrataError.Code, on db: Database) async {
    do {
        try await db.asyncWrite {}
        XCTFail("the write began")
    } catch {
        XCTAssertEqual((error as? StrataError)?.code, code)
    }
}

final class AsyncWriteTests: DatabaseTestCase {
    private func counters(_ db: Database) -> [String] { db.objects(Counter.self).map(\.label).sorted() }

    func testAsyncWriteCommitsAndReturnsWhatTheBlockReturns() throws {
        let configuration = try open().configuration
        let label = try waitForDetachedTask {
            let db = try Database(configuration: configuration)
            let counter = try await db.asyncWrite {
                XCTAssertTrue(db.isInWriteTransaction)
                let counter = Counter()
                counter.label = "one"
                try db.add(counter)
                return counter
            }
            XCTAssertFalse(db.isInWriteTransaction)
            try await db.asyncWrite { counter.label = "two" }
            return counter.label
        }
        XCTAssertEqual(label, "two")
        XCTAssertEqual(counters(try open()), ["two"])
    }

    func testAThrowingBlockRollsEverythingBack() throws {
        let configuration = try open().configuration
        struct Refused: Error {}
        try waitForDetachedTask {
            let db = try Database(configuration: configuration)
            do {
                try await db.asyncWrite {
                    try db.add(Counter())
                    throw Refused()
                }
                XCTFail("the block's error was not rethrown")
            } catch is Refused {}
            XCTAssertFalse(db.isInWriteTransaction)
        }
        XCTAssertEqual(counters(try open()), [])
    }

    func testABlockThatCancelsCommitsNothingAndMayBeginAnother() throws {
        let configuration = try open().configuration
        try waitForDetachedTask {
            let db = try Database(configuration: configuration)
            try await db.asyncWrite {
                try db.add(Counter())
                db.cancelWrite()
            }
            try await db.asyncWrite {
                try db.add(Counter())
                db.cancelWrite()
                try db.beginWrite()
                let counter = Counter()
                counter.label = "bar"
                try db.add(counter)
            }
        }
        XCTAssertEqual(counters(try open()), ["bar"])
    }

    func testAsyncWriteInsideAWriteOfTheSameDatabaseThrowsAtOnce() throws {
        let configuration = try open().configuration
        try waitForDetachedTask {
            let db = try Database(configuration: configuration)
            try db.beginWrite()
            await assertAsyncWriteThrows(.notInWriteTransaction, on: db)
            db.cancelWrite()
        }
    }

    func testAsyncWriteOnAFrozenDatabaseThrowsReadOnly() throws {
        let configuration = try open().configuration
        try waitForDetachedTask {
            await assertAsyncWriteThrows(.readOnly, on: try Database(configuration: configuration).freeze())
        }
    }

    func testManyAsyncWritesFromTasksOnSeveralDatabasesAllLand() throws {
        let configuration = try open().configuration
        let (tasks, writesPerTask) = (24, 5)
        try waitForDetachedTask(timeout: 120) {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for task in 0..<tasks {
                    group.addTask {
                        let db = try Database(configuration: configuration)
                        for write in 0..<writesPerTask {
                            try await db.asyncWrite {
                                let counter = Counter()
                                counter.label = "\(task)-\(write)"
                                try db.add(counter)
                            }
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
        let expected = (0..<tasks).flatMap { task in (0..<writesPerTask).map { "\(task)-\($0)" } }.sorted()
        XCTAssertEqual(counters(try open()), expected)
    }

    func testTasksWaitingForTheWriterLockLeaveThePoolFree() throws {
        let configuration = try open().configuration
        let holder = WriterLockHolder(configuration: configuration)
        // More waiting writers than the pool has threads: blocking waits would take them all.
        let writers = ProcessInfo.processInfo.activeProcessorCount * 4 + 4
        let started = Locked(0)
        let landed = DispatchSemaphore(value: 0)
        for index in 0..<writers {
            Task.detached {
                let db = try Database(configuration: configuration)
                started.withLock { $0 += 1 }
                try await db.asyncWrite {
                    let counter = Counter()
                    counter.label = "\(index)"
                    try db.add(counter)
                }
                landed.signal()
            }
        }
        let deadline = Date().addingTimeInterval(10)
        while started.withLock({ $0 }) < writers, Date() < deadline { usleep(1_000) }
        XCTAssertEqual(started.withLock { $0 }, writers, "opening databases waited for the writer lock")
        usleep(100_000)
        // With the lock still held, another task runs.
        let probe = DispatchSemaphore(value: 0)
        Task.detached { probe.signal() }
        XCTAssertEqual(probe.wait(timeout: .now() + 10), .success, "tasks waiting for the writer lock starved the pool")
        XCTAssertEqual(counters(try open()), [])
        holder.release()
        for _ in 0..<writers {
            XCTAssertEqual(landed.wait(timeout: .now() + 30), .success)
        }
        XCTAssertEqual(counters(try open()).count, writers)
    }
}
