import Foundation
import StrataStorage
import XCTest

@testable import Strata

/// Fails unless `error` is the refusal of a write nested in another of the same files.
private func assertRefusedNestedWrite(_ error: any Error, file: StaticString = #filePath, line: UInt = #line) {
    XCTAssertEqual((error as? StrataError)?.code, .notInWriteTransaction, "\(error)", file: file, line: line)
    XCTAssertNotNil((error as? StrataError)?.file, "the error names the directory", file: file, line: line)
}

/// A write begun while the same thread (or task) has a write open on another `Database` of the
/// same files throws instead of waiting for itself forever (Realm throws there too), while
/// other threads and tasks, even on the same thread, still wait their turn.
final class NestedWriteTests: DatabaseTestCase {
    /// Runs `body` on a thread of its own; fails if it has not returned within 30 s (it is
    /// waiting for itself).
    private func runOnThread(file: StaticString = #filePath, line: UInt = #line, _ body: @escaping @Sendable () throws -> Void) {
        let finished = DispatchSemaphore(value: 0)
        let failure = Locked<(any Error)?>(nil)
        Thread {
            do { try body() } catch { failure.withLock { $0 = error } }
            finished.signal()
        }.start()
        guard finished.wait(timeout: .now() + 30) == .success else {
            return XCTFail("the thread waits for itself", file: file, line: line)
        }
        if let error = failure.withLock({ $0 }) { XCTFail("\(error)", file: file, line: line) }
    }

    private func counters(_ db: Database) -> [String] { db.objects(Counter.self).map(\.label).sorted() }

    func testAWriteInsideAWriteOfAnotherDatabaseOfTheSameFilesThrows() throws {
        let configuration = try open().configuration
        runOnThread {
            let outer = try Database(configuration: configuration)
            // A helper that opens its own database, as code called inside a write may.
            func addCounter(_ label: String) throws {
                let db = try Database(configuration: configuration)
                try db.write {
                    let counter = Counter()
                    counter.label = label
                    try db.add(counter)
                }
            }
            try outer.write {
                XCTAssertThrowsError(try addCounter("inner")) { assertRefusedNestedWrite($0) }
                let counter = Counter()
                counter.label = "outer"
                try outer.add(counter)
            }
            // The refusal left the lock to the outer write, which committed and let it go.
            try addCounter("after")
        }
        XCTAssertEqual(counters(try open()), ["after", "outer"])
    }

    func testBeginWriteOnAnotherDatabaseWhileThisThreadHoldsAWriteThrows() throws {
        let configuration = try open().configuration
        runOnThread {
            let first = try Database(configuration: configuration)
            let second = try Database(configuration: configuration)
            try first.beginWrite()
            XCTAssertThrowsError(try second.beginWrite()) { assertRefusedNestedWrite($0) }
            XCTAssertFalse(second.isInWriteTransaction)
            first.cancelWrite()
            try second.write {}
        }
    }

    func testOpeningWithANewClassInsideAWriteOfAnotherDatabaseThrows() throws {
        let db = try open([Dog.self])
        let dogs = db.configuration
        var dogsAndCounters = dogs
        dogsAndCounters.objectTypes = [Dog.self, Counter.self]
        runOnThread { [dogsAndCounters] in
            let outer = try Database(configuration: dogs)
            try outer.write {
                // The same classes: nothing to store, so the open needs no lock.
                XCTAssertNoThrow(try Database(configuration: dogs))
                XCTAssertThrowsError(try Database(configuration: dogsAndCounters)) { assertRefusedNestedWrite($0) }
                try outer.add(Dog())
            }
            _ = try Database(configuration: dogsAndCounters)
        }
        db.refresh()
        XCTAssertEqual(db.objects(Dog.self).count, 1)
    }

    func testAWriteInsideAnAsyncWriteOfAnotherDatabaseThrows() throws {
        let configuration = try open().configuration
        try waitForDetachedTask {
            let outer = try Database(configuration: configuration)
            let inner = try Database(configuration: configuration)
            try await outer.asyncWrite {
                XCTAssertThrowsError(try inner.write {}) { assertRefusedNestedWrite($0) }
                try outer.add(Counter())
            }
            try inner.write { try inner.add(Counter()) }
        }
        XCTAssertEqual(counters(try open()).count, 2)
    }

    func testAnAsyncWriteWhileThisTaskHoldsAWriteOfAnotherDatabaseThrows() throws {
        let configuration = try open().configuration
        try waitForDetachedTask {
            let outer = try Database(configuration: configuration)
            let inner = try Database(configuration: configuration)
            try outer.beginWrite()
            do {
                try await inner.asyncWrite {}
                XCTFail("the asyncWrite began")
            } catch {
                assertRefusedNestedWrite(error)
            }
            try outer.commitWrite()
            try await inner.asyncWrite {}
        }
    }

    func testAWriteBegunByATaskMakesAnotherTaskOnTheSameThreadWait() throws {
        // The first task begins a write on the executor's only thread, then goes on on the
        // pool; the second task then runs on that same thread and must wait for the lock
        // (refusing it, as if that thread held it, would be wrong), until the first commits
        // from another thread.
        let configuration = try open().configuration
        let shared = try open().shared
        let executor = OneThreadExecutor()
        defer { executor.stop() }
        let (resume, resumeFirst) = AsyncStream<Void>.makeStream()
        let firstHolds = DispatchSemaphore(value: 0)
        let first = Task(executorPreference: executor) {
            let db = try Database(configuration: configuration)
            try db.beginWrite()
            let begunOn = pthread_self()
            let counter = Counter()
            counter.label = "first"
            try db.add(counter)
            firstHolds.signal()
            return try await withTaskExecutorPreference(globalConcurrentExecutor) {
                for await _ in resume { break }
                try db.commitWrite()
                return (begunOn, pthread_self())
            }
        }
        firstHolds.wait()
        let second = Task(executorPreference: executor) {
            let db = try Database(configuration: configuration)
            try db.write {
                let counter = Counter()
                counter.label = "second"
                try db.add(counter)
            }
            return pthread_self()
        }
        let deadline = Date().addingTimeInterval(30)
        while shared.writerLock.waitingThreadCount == 0, Date() < deadline { usleep(1_000) }
        XCTAssertEqual(shared.writerLock.waitingThreadCount, 1, "the second task is not waiting for the lock")
        resumeFirst.yield()
        let (threads, secondThread) = try waitForDetachedTask {
            (try await first.value, try await second.value)
        }
        XCTAssertNotEqual(pthread_equal(threads.0, secondThread), 0, "the tasks did not share a thread")
        XCTAssertEqual(pthread_equal(threads.0, threads.1), 0, "the first write was not committed on another thread")
        XCTAssertEqual(counters(try open()), ["first", "second"])
    }
}
