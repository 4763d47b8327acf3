import Foundation
import StrataStorage
import XCTest

@testable import Strata

/// Runs `body` in a detached task and blocks this (non-pool) thread until it ends, or fails the
/// test after `timeout` seconds: tests of the cooperative pool must not wait on the pool.
func waitForDetachedTask<T: Sendable>(
    timeout: Double = 30, file: StaticString = #filePath, line: UInt = #line,
    _ body: sending @escaping () async throws -> T
) throws -> T {
    let outcome = Locked<Result<T, any Error>?>(nil)
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        do {
            let value = try await body()
            outcome.withLock { $0 = .success(value) }
        } catch {
            outcome.withLock { $0 = .failure(error) }
        }
        done.signal()
    }
    guard done.wait(timeout: .now() + timeout) == .success else {
        XCTFail("the task did not end within \(timeout) s", file: file, line: line)
        throw CancellationError()
    }
    return try outcome.withLock { $0! }.get()
}

/// A thread that holds a `Database`'s writer lock (an open write) until told to let go.
final class WriterLockHolder: Sendable {
    private let ready = DispatchSemaphore(value: 0)
    private let letGo = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)

    /// Starts the thread and returns once it holds the lock.
    init(configuration: Database.Configuration) {
        let (ready, letGo, finished) = (ready, letGo, finished)
        Thread {
            let db = try? Database(configuration: configuration)
            try? db?.beginWrite()
            ready.signal()
            letGo.wait()
            db?.cancelWrite()
            finished.signal()
        }.start()
        ready.wait()
    }

    /// Ends the write and waits until the lock is free again.
    func release() {
        letGo.signal()
        finished.wait()
    }
}
