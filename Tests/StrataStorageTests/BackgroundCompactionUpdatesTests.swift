import Foundation
import XCTest
@_spi(Testing) @testable import StrataStorage

/// `Store.backgroundCompactionUpdates`: a run's start, its growing progress and its end reach
/// every stream in order, and the streams end when the store closes.
final class BackgroundCompactionUpdatesTests: XCTestCase {
    typealias Status = BackgroundCompactionStatus

    /// Sealed segments holding 2,000 live records of ~100 bytes and as many dead ones, made
    /// with no compactor; then the store reopened with an eager policy (nothing runs until
    /// asked: no run at open).
    func storeWithDeadData(_ memory: MemoryFileSystem) throws -> Store {
        var options = Store.Options()
        options.fileSystem = memory
        options.segmentSize = 4096
        options.compaction = .manual
        let setup = try Store(directory: "/db", options: options)
        for round in 0..<2 {
            for first in stride(from: 0, to: 2000, by: 50) {
                var batch = WriteBatch()
                for i in first..<(first + 50) {
                    batch.put([UInt8](repeating: UInt8(round), count: 100), forKey: StorageKey(UInt64(i)), in: Keyspace(1))
                }
                try setup.commit(batch)
            }
        }
        try setup.close()
        options.compaction = BackgroundCompactionTests.eager
        return try Store(directory: "/db", options: options)
    }

    /// Iterates `stream` on a task until it ends or `until` holds for a status; returns the
    /// statuses seen.
    func collect(
        _ stream: AsyncStream<Status>, until: @escaping @Sendable (Status) -> Bool = { _ in false }
    ) -> (XCTestExpectation, Locked<[Status]>) {
        let seen = Locked<[Status]>([])
        let done = expectation(description: "stream consumed")
        Task {
            for await status in stream {
                seen.withLock { $0.append(status) }
                if until(status) { break }
            }
            done.fulfill()
        }
        return (done, seen)
    }

    func testAStreamSeesTheStartGrowingProgressAndTheEndOfARun() throws {
        let store = try storeWithDeadData(MemoryFileSystem())
        let (done, seen) = collect(store.backgroundCompactionUpdates) { $0.completedRuns == 1 }
        store.scheduleBackgroundCompaction()
        wait(for: [done], timeout: 60)
        let statuses = seen.withLock { $0 }

        XCTAssertEqual(statuses.first?.isRunning, false, "the current status comes first")
        XCTAssertEqual(statuses.first?.completedRuns, 0)
        let running = statuses.filter(\.isRunning)
        XCTAssertEqual(running.first?.bytesDone, 0, "the start")
        XCTAssertGreaterThan(running.first?.bytesTotal ?? 0, 0)
        let progress = running.map(\.bytesDone)
        XCTAssertEqual(progress, progress.sorted(), "bytesDone only grows")
        XCTAssertEqual(Set(progress).count, progress.count, "a status is sent only when progress advances")
        XCTAssertTrue(progress.contains { $0 > 0 && $0 < (running.first?.bytesTotal ?? 0) }, "progress in between: \(progress)")
        XCTAssertLessThanOrEqual(running.count, 102, "at most one status per 1 %, plus the start")
        let last = try XCTUnwrap(statuses.last)
        XCTAssertFalse(last.isRunning)
        XCTAssertEqual(last.completedRuns, 1)
        XCTAssertEqual(last.bytesDone, last.bytesTotal)
        XCTAssertEqual(last.lastReport?.didCompact, true)
        XCTAssertEqual(last.lastReport, store.backgroundCompaction.lastReport, "the polled status agrees")
        try store.close()
    }

    func testStreamsEndWhenTheStoreClosesAndANewOneEndsAtOnce() throws {
        let store = try storeWithDeadData(MemoryFileSystem())
        let (first, _) = collect(store.backgroundCompactionUpdates)
        let (second, _) = collect(store.backgroundCompactionUpdates)
        try store.close()
        wait(for: [first, second], timeout: 60)
        let (after, seen) = collect(store.backgroundCompactionUpdates)
        wait(for: [after], timeout: 60)
        XCTAssertEqual(seen.withLock { $0.count }, 1, "the current status, then the end")
    }

    func testStreamEndsWhenTheStoreIsDropped() throws {
        var store: Store? = try storeWithDeadData(MemoryFileSystem())
        let (done, _) = collect(try XCTUnwrap(store).backgroundCompactionUpdates)
        store = nil
        wait(for: [done], timeout: 60)
    }

    func testAStreamOfAStoreWithoutACompactorEndsAtOnce() throws {
        let store = try openStore(MemoryFileSystem())  // the default policy's compactor
        var options = Store.Options()
        options.fileSystem = MemoryFileSystem()
        options.compaction = .manual
        let manual = try Store(directory: "/db", options: options)
        let (done, seen) = collect(manual.backgroundCompactionUpdates)
        wait(for: [done], timeout: 60)
        XCTAssertEqual(seen.withLock { $0 }.map(\.completedRuns), [0])
        try store.close()
    }

    func testAConsumerThatStopsUnregistersItsStream() throws {
        let store = try storeWithDeadData(MemoryFileSystem())
        // Stops after the first status; its stream must not keep receiving (or block) runs.
        let (done, _) = collect(store.backgroundCompactionUpdates) { _ in true }
        wait(for: [done], timeout: 60)
        let (finished, seen) = collect(store.backgroundCompactionUpdates) { $0.completedRuns == 1 }
        store.scheduleBackgroundCompaction()
        wait(for: [finished], timeout: 60)
        XCTAssertEqual(seen.withLock { $0 }.last?.completedRuns, 1)
        // Each stream unregisters once its consumer's task lets it go.
        let deadline = ContinuousClock.now + .seconds(30)
        while store.backgroundCompactor?.subscriberCount != 0, ContinuousClock.now < deadline { usleep(1000) }
        XCTAssertEqual(store.backgroundCompactor?.subscriberCount, 0, "both consumers went and unregistered")
        try store.close()
    }
}
