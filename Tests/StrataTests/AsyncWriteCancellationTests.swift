import Foundation
import StrataStorage
import XCTest

@testable import Strata

/// A task cancelled before its `asyncWrite` has the writer lock gets `CancellationError` and
/// writes nothing, as in Realm (`testAsyncWriteTaskCancellation`,
/// `testAsyncWriteTaskCancelledBeforeWriteCalled`); and cancellations never leave the lock free
/// while other tasks sleep waiting for it.
/// Adds a counter labelled `label` with `asyncWrite`.
private func addCounter(_ db: Database, _ label: String) async throws {
    try await db.asyncWrite {
        let counter = Counter()
        counter.label = label
        try db.add(counter)
    }
}

final class AsyncWriteCancellationTests: DatabaseTestCase {
    func testATaskCancelledWhileWaitingThrowsCancellationErrorAndWritesNothing() throws {
        let configuration = try open().configuration
        let holder = WriterLockHolder(configuration: configuration)
        let outcome = Locked<(any Error)?>(nil)
        let ended = DispatchSemaphore(value: 0)
        let task = Task.detached {
            let db = try Database(configuration: configuration)
            do { try await addCounter(db, "never") } catch { outcome.withLock { $0 = error } }
            ended.signal()
        }
        usleep(100_000)
        task.cancel()
        XCTAssertEqual(ended.wait(timeout: .now() + 10), .success, "a cancelled task kept waiting for the lock")
        XCTAssertTrue(outcome.withLock { $0 } is CancellationError)
        holder.release()
        let db = try open()
        try db.write { try db.add(Counter()) }
        XCTAssertEqual(db.objects(Counter.self).map(\.label), ["unnamed"])
    }

    func testATaskCancelledBeforeAsyncWriteThrowsWithoutRunningTheBlock() throws {
        let configuration = try open().configuration
        let ranBlock = try waitForDetachedTask {
            let db = try Database(configuration: configuration)
            withUnsafeCurrentTask { $0?.cancel() }
            var ran = false
            do {
                try await db.asyncWrite { ran = true }
                XCTFail("a cancelled task wrote")
            } catch is CancellationError {}
            return ran
        }
        XCTAssertFalse(ranBlock)
        XCTAssertFalse(try open().isInWriteTransaction)
    }

    func testCancelledWaitersNeverStallTheOthers() throws {
        let configuration = try open().configuration
        for round in 0..<8 {
            let holder = WriterLockHolder(configuration: configuration)
            let landed = Locked(0)
            let ended = DispatchSemaphore(value: 0)
            var tasks: [Task<Void, Never>] = []
            for index in 0..<16 {
                tasks.append(Task.detached {
                    if let db = try? Database(configuration: configuration),
                       (try? await addCounter(db, "\(round)-\(index)")) != nil {
                        landed.withLock { $0 += 1 }
                    }
                    ended.signal()
                })
            }
            usleep(20_000)
            // Cancel half of them as the lock comes free: some are being woken as they give up.
            holder.release()
            for task in tasks.indices where task % 2 == round % 2 { tasks[task].cancel() }
            let deadline = DispatchTime.now() + 10
            for _ in tasks where ended.wait(timeout: deadline) == .timedOut {
                return XCTFail("round \(round): a waiter was never woken")
            }
            let landedCount = landed.withLock { $0 }
            XCTAssertGreaterThanOrEqual(landedCount, 8)
            let stored = try open().objects(Counter.self).filter { $0.label.hasPrefix("\(round)-") }.count
            XCTAssertEqual(stored, landedCount)
        }
    }
}
