import Foundation
import XCTest
@_spi(Testing) @testable import StrataStorage

/// The background compactor: it runs by itself when the policy says so, keeps every value,
/// stops with its store, reports failures without harming the store, and crashes while it
/// runs lose nothing acknowledged.
final class BackgroundCompactionTests: XCTestCase {
    /// An eager policy for small test stores.
    static let eager = CompactionPolicy.automatic(minimumDeadRatio: 0.3, minimumBytes: 8192)

    func openStore(
        _ fileSystem: any FileSystem, policy: CompactionPolicy = eager,
        onFailure: (@Sendable (StrataError) -> Void)? = nil
    ) throws -> Store {
        var options = Store.Options()
        options.fileSystem = fileSystem
        options.segmentSize = 4096
        options.compressionThreshold = 1024
        options.compaction = policy
        options.onBackgroundCompactionFailure = onFailure
        return try Store(directory: "/db", options: options)
    }

    /// Threads of this process now.
    /// ``threadCount()`` once it is `expected` (a new thread names itself as it starts), or
    /// after 10 s.
    func threadCount(reaching expected: Int) throws -> Int {
        let deadline = ContinuousClock.now + .seconds(10)
        while try threadCount() != expected, ContinuousClock.now < deadline { usleep(1000) }
        return try threadCount()
    }

    /// The number of background compactor threads in this process (by their name).
    func threadCount() throws -> Int {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").filter { task in
            let comm = try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)
            return comm?.trimmingCharacters(in: .whitespacesAndNewlines) == BackgroundCompactor.threadName
        }.count
    }

    func testPolicyDecidesOnDeadRatioAndSize() {
        let policy = CompactionPolicy.automatic(minimumDeadRatio: 0.5, minimumBytes: 1000)
        XCTAssertTrue(policy.shouldCompact(sealedBytes: 1000, liveBytes: 500))
        XCTAssertFalse(policy.shouldCompact(sealedBytes: 1000, liveBytes: 501))
        XCTAssertFalse(policy.shouldCompact(sealedBytes: 999, liveBytes: 0))
        XCTAssertFalse(CompactionPolicy.manual.shouldCompact(sealedBytes: 1 << 30, liveBytes: 0))
    }

    func testPolicyOutOfRangeIsRefusedAtOpen() {
        for policy in [CompactionPolicy.automatic(minimumDeadRatio: 1.5, minimumBytes: 0),
                       .automatic(minimumDeadRatio: 0.5, minimumBytes: -1)] {
            XCTAssertThrowsError(try openStore(MemoryFileSystem(), policy: policy)) { error in
                XCTAssertEqual((error as? StrataError)?.code, .invalidArgument)
            }
        }
    }

    func testCompactsByItselfAndKeepsEveryValue() throws {
        let fileSystem = MemoryFileSystem()
        let store = try openStore(fileSystem)
        var model: Contents = [:]
        for batch in makeWorkload(commits: 300, seed: 61) {
            try store.commit(batch)
            apply(batch, to: &model)
        }
        store.waitForBackgroundCompaction()
        let status = store.backgroundCompaction
        XCTAssertGreaterThan(status.completedRuns, 0)
        XCTAssertEqual(status.failedRuns, 0)
        XCTAssertFalse(status.isRunning)
        XCTAssertEqual(status.bytesDone, status.bytesTotal)
        XCTAssertTrue(status.lastReport?.didCompact == true)
        XCTAssertEqual(try contents(of: store.snapshot()), model)
        XCTAssertEqual(try Manifest.read(in: "/db", fileSystem: fileSystem)?.version, 2, "compacted segments are listed")
        let statistics = store.statistics()
        XCTAssertLessThan(statistics.deadBytes, statistics.totalBytes, "dead data was reclaimed")
        try store.close()
        let reopened = try openStore(fileSystem, policy: .manual)
        XCTAssertEqual(try contents(of: reopened.snapshot()), model)
    }

    func testManualPolicyNeverCompacts() throws {
        let fileSystem = MemoryFileSystem()
        let store = try openStore(fileSystem, policy: .manual)
        for batch in makeWorkload(commits: 300, seed: 61) { try store.commit(batch) }
        store.waitForBackgroundCompaction()
        XCTAssertEqual(store.backgroundCompaction.completedRuns, 0)
        XCTAssertNotEqual(try Manifest.read(in: "/db", fileSystem: fileSystem)?.version, 2)
    }

    func testScheduleChecksThePolicyWithoutASeal() throws {
        let memory = MemoryFileSystem()
        let setup = try openStore(memory, policy: .manual)
        for batch in makeWorkload(commits: 200, seed: 66) { try setup.commit(batch) }
        let model = try contents(of: setup.snapshot())
        try setup.close()
        let store = try openStore(memory)
        store.waitForBackgroundCompaction()
        XCTAssertEqual(store.backgroundCompaction.completedRuns, 0, "nothing runs at open")
        store.scheduleBackgroundCompaction()
        store.waitForBackgroundCompaction()
        XCTAssertEqual(store.backgroundCompaction.completedRuns, 1)
        XCTAssertEqual(try contents(of: store.snapshot()), model)
    }

    func testCloseAndDeinitLeaveNoThreadBehind() throws {
        let before = try threadCount()
        let store = try openStore(MemoryFileSystem())
        XCTAssertEqual(try threadCount(reaching: before + 1), before + 1, "one compactor thread per store")
        for batch in makeWorkload(commits: 100, seed: 62) { try store.commit(batch) }
        try store.close()
        // At most: a thread of the test runner may also have ended meanwhile.
        XCTAssertLessThanOrEqual(try threadCount(), before, "close() ends the thread")

        var dropped: Store? = try openStore(MemoryFileSystem())
        for batch in makeWorkload(commits: 100, seed: 63) { try dropped?.commit(batch) }
        XCTAssertEqual(try threadCount(reaching: before + 1), before + 1)
        dropped = nil
        // Dropped while idle or mid-run: `deinit` joins the thread, or (when a run's own
        // retains were the last) runs on it and the thread ends as that run returns.
        let deadline = ContinuousClock.now + .seconds(10)
        while try threadCount() > before, ContinuousClock.now < deadline { usleep(1000) }
        XCTAssertLessThanOrEqual(try threadCount(), before, "deinit ends the thread")
    }

    func testFailureIsReportedAndTheNextRunRetries() throws {
        let memory = MemoryFileSystem()
        // Sealed segments with dead data, made without a compactor.
        let setup = try openStore(memory, policy: .manual)
        var model: Contents = [:]
        for batch in makeWorkload(commits: 200, seed: 64) {
            try setup.commit(batch)
            apply(batch, to: &model)
        }
        try setup.close()
        // The next seal takes the number above every file for the new log segment, and the
        // compaction it asks for the one after: that compacted segment fails its sync once.
        let highest = try memory.contentsOfDirectory("/db").compactMap(SegmentFile.number(fromName:)).max() ?? 0
        let faulty = FaultInjectingFileSystem(wrapping: memory)
        faulty.inject(.failSync(pathContains: SegmentFile.name(for: highest + 2), times: 1))
        let failures = Locked<[StrataError]>([])
        let store = try openStore(faulty) { error in failures.withLock { $0.append(error) } }
        store.waitForBackgroundCompaction()
        XCTAssertEqual(store.backgroundCompaction.completedRuns + store.backgroundCompaction.failedRuns, 0,
                       "nothing runs before a seal")
        var big = WriteBatch()
        big.put([UInt8](repeating: 7, count: 3000), forKey: StorageKey("seal"), in: Keyspace(3))
        try store.commit(big)
        apply(big, to: &model)
        store.waitForBackgroundCompaction()
        XCTAssertEqual(failures.withLock { $0.count }, 1, "the failure is reported once")
        XCTAssertEqual(failures.withLock { $0.first?.code }, .io)
        XCTAssertEqual(store.backgroundCompaction.failedRuns, 1)
        XCTAssertEqual(store.backgroundCompaction.lastFailure?.code, .io)
        XCTAssertNil(store.writeFailure, "a failed copy is not fatal to the store")
        XCTAssertEqual(try contents(of: store.snapshot()), model)
        // The store goes on, and the next seal retries.
        for batch in makeWorkload(commits: 60, seed: 65) {
            try store.commit(batch)
            apply(batch, to: &model)
        }
        store.waitForBackgroundCompaction()
        XCTAssertGreaterThan(store.backgroundCompaction.completedRuns, 0)
        XCTAssertEqual(try contents(of: store.snapshot()), model)
        try store.close()
        XCTAssertEqual(try contents(of: openStore(memory, policy: .manual).snapshot()), model)
    }
}
