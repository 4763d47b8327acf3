import Dispatch
import Foundation
import XCTest
@_spi(Testing) @testable import StrataStorage

/// `compact() async`: it compacts off the caller's thread, and a cancelled task stops it at
/// the next batch of records with the store exactly as it was and no file left behind.
final class AsyncCompactionTests: XCTestCase {
    /// Calls `hook` (once) when a segment file numbered `number` is created.
    final class CreationHookFileSystem: ForwardingFileSystem, @unchecked Sendable {
        let forwardedTo: any FileSystem
        private let armed = Locked<(number: UInt32, hook: @Sendable () -> Void)?>(nil)

        init(_ base: any FileSystem) { forwardedTo = base }

        func arm(number: UInt32, _ hook: @escaping @Sendable () -> Void) {
            armed.withLock { $0 = (number, hook) }
        }

        func open(_ path: String, mode: FileOpenMode) throws -> any StorageFile {
            let file = try forwardedTo.open(path, mode: mode)
            if mode == .createNew || mode == .createOrOpen {
                let number = SegmentFile.number(fromName: (path as NSString).lastPathComponent)
                let hook = armed.withLock { armed -> (@Sendable () -> Void)? in
                    guard let current = armed, current.number == number else { return nil }
                    armed = nil
                    return current.hook
                }
                hook?()
            }
            return file
        }
    }

    /// A store of 2,000 live keys of ~100 bytes (and as many dead records) over ~100 sealed
    /// 4 KiB segments, with the background compactor off.
    func filledStore(_ fileSystem: any FileSystem) throws -> (Store, Contents) {
        var options = Store.Options()
        options.fileSystem = fileSystem
        options.segmentSize = 4096
        options.compaction = .manual
        let store = try Store(directory: "/db", options: options)
        var model: Contents = [:]
        for round in 0..<2 {
            for first in stride(from: 0, to: 2000, by: 50) {
                var batch = WriteBatch()
                for i in first..<(first + 50) {
                    batch.put(Array("value \(i) of round \(round) ".utf8) + [UInt8](repeating: UInt8(i % 251), count: 80),
                              forKey: StorageKey(UInt64(i)), in: Keyspace(1))
                }
                try store.commit(batch)
                apply(batch, to: &model)
            }
        }
        return (store, model)
    }

    func files(_ fileSystem: MemoryFileSystem) throws -> Set<String> {
        Set(try fileSystem.contentsOfDirectory("/db"))
    }

    /// The outcome of `task`, waited for from a synchronous test.
    func outcome<T: Sendable>(of task: Task<T, any Error>) -> Result<T, any Error> {
        let result = Locked<Result<T, any Error>?>(nil)
        let done = expectation(description: "task ended")
        Task {
            let value = await task.result
            result.withLock { $0 = value }
            done.fulfill()
        }
        wait(for: [done], timeout: 60)
        return result.withLock { $0 } ?? .failure(StrataError(.io, "the task did not end"))
    }

    func testAsyncCompactionCompactsAndKeepsEveryValue() throws {
        let memory = MemoryFileSystem()
        let (store, model) = try filledStore(memory)
        let report = try outcome(of: Task { try await store.compact() }).get()
        XCTAssertTrue(report.didCompact)
        XCTAssertGreaterThan(report.recordsCopied, 1500, "all but the active segment's records")
        XCTAssertEqual(try contents(of: store.snapshot()), model)
        try store.close()
        XCTAssertEqual(try contents(of: openStore(memory).snapshot()), model)
    }

    func testCancelledMidwayRemovesItsOutputAndLeavesTheStoreAsItWas() throws {
        let memory = MemoryFileSystem()
        let hooked = CreationHookFileSystem(memory)
        let (store, model) = try filledStore(hooked)
        // Sealed first, so that the compaction has nothing to seal and may change nothing.
        try sealActiveSegment(of: store)
        let filesBefore = try files(memory)
        let manifestBefore = try Manifest.read(in: "/db", fileSystem: memory)
        let statisticsBefore = store.statistics()
        // The compaction's second output segment: by then it has copied a segment's worth and
        // has most of the 2,000 records still to copy.
        let highest = filesBefore.compactMap(SegmentFile.number(fromName:)).max() ?? 0
        let reached = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        hooked.arm(number: highest + 2) {
            reached.signal()
            proceed.wait()
        }

        let task = Task { try await store.compact() }
        reached.wait()
        task.cancel()
        proceed.signal()
        let result = outcome(of: task)

        XCTAssertThrowsError(try result.get()) { error in
            XCTAssertTrue(error is CancellationError, "\(error)")
        }
        XCTAssertEqual(try files(memory), filesBefore, "no output segment or hint is left")
        XCTAssertEqual(try Manifest.read(in: "/db", fileSystem: memory), manifestBefore)
        XCTAssertEqual(store.statistics(), statisticsBefore, "the old segments are still the ones in use")
        XCTAssertEqual(try contents(of: store.snapshot()), model)
        XCTAssertNil(store.writeFailure, "a cancellation is not a failure")

        // A later compaction starts from scratch and succeeds.
        let report = try store.compact()
        XCTAssertTrue(report.didCompact)
        XCTAssertGreaterThan(report.recordsCopied, 1500, "all but the active segment's records")
        XCTAssertEqual(try contents(of: store.snapshot()), model)
        try store.close()
        let reopened = try openStore(memory)
        XCTAssertEqual(reopened.recoveryEvents, [], "nothing was left for the open to clean up")
        XCTAssertEqual(try contents(of: reopened.snapshot()), model)
    }

    func testTaskCancelledBeforeTheCallThrowsAtOnce() throws {
        let memory = MemoryFileSystem()
        let hooked = CreationHookFileSystem(memory)
        let (store, model) = try filledStore(hooked)
        let filesBefore = try files(memory)
        let highest = filesBefore.compactMap(SegmentFile.number(fromName:)).max() ?? 0
        let created = Locked(false)
        hooked.arm(number: highest + 1) { created.withLock { $0 = true } }

        let task = Task { () async throws -> CompactionReport in
            withUnsafeCurrentTask { $0?.cancel() }
            return try await store.compact()
        }
        XCTAssertThrowsError(try outcome(of: task).get()) { error in
            XCTAssertTrue(error is CancellationError, "\(error)")
        }
        XCTAssertFalse(created.withLock { $0 }, "no output file was even created")
        XCTAssertEqual(try files(memory), filesBefore)
        XCTAssertEqual(try contents(of: store.snapshot()), model)
    }

    func testAsyncCompactionOfAReadOnlyStoreThrowsReadOnly() throws {
        let memory = MemoryFileSystem()
        let (store, _) = try filledStore(memory)
        try store.close()
        let readOnly = try openStore(memory, readOnly: true)
        XCTAssertThrowsError(try outcome(of: Task { try await readOnly.compact() }).get()) { error in
            XCTAssertEqual((error as? StrataError)?.code, .readOnly)
        }
    }
}
