import XCTest
@_spi(Testing) @testable import StrataStorage

/// Crash at every sync point of a 200-commit workload, on the in-memory file system, and check
/// the oracle: every acknowledged commit is there, what is recovered is exactly the state after
/// some prefix of the commits (no holes, no deleted key back), and the store goes on working.
final class CrashRecoveryTests: XCTestCase {
    static let commits = 200

    /// Runs the workload until the file system's `crashAt`-th sync, capturing the crash images
    /// there. Returns the images and, for each commit, whether it was acknowledged.
    func runUntilCrash(
        _ batches: [WriteBatch], durabilities: [Durability], crashAt: Int?, key: [UInt8]? = nil
    ) -> (images: [(String, MemoryFileSystem)], acknowledged: Int, syncs: Int) {
        let (fileSystem, images) = crashingFileSystem(at: crashAt)
        var acknowledged = 0
        do {
            let store = try openStore(fileSystem, encryptionKey: key)
            for (batch, durability) in zip(batches, durabilities) {
                try store.commit(batch, durability: durability)
                acknowledged += 1
            }
            try store.close()
        } catch {
            // The crash: whatever the store was doing stops here.
        }
        return (images.withLock { $0 }, acknowledged, fileSystem.syncCount)
    }

    func check(
        durabilities: [Durability], seed: UInt64, key: [UInt8]? = nil, commits: Int = CrashRecoveryTests.commits,
        file: StaticString = #filePath, line: UInt = #line
    ) throws {
        noteSeed(seed)
        let batches = makeWorkload(commits: commits, seed: seed)
        let states = prefixStates(of: batches)
        let total = runUntilCrash(batches, durabilities: durabilities, crashAt: nil, key: key).syncs
        XCTAssertGreaterThan(total, commits / 2, "the workload should sync often", file: file, line: line)

        var imagesChecked = 0
        for point in 1...total {
            let run = runUntilCrash(batches, durabilities: durabilities, crashAt: point, key: key)
            XCTAssertEqual(run.images.count, 4, "no crash image at sync \(point)", file: file, line: line)
            // Commits that must survive: every one acknowledged with `.full`, and everything before it.
            let mustHave = (0..<run.acknowledged).last { durabilities[$0] == .full }.map { $0 + 1 } ?? 0
            for (policy, image) in run.images {
                let context = "sync point \(point)/\(total), policy \(policy), \(run.acknowledged) acknowledged"
                let store: Store
                do {
                    store = try openStore(image, encryptionKey: key)
                } catch {
                    XCTFail("reopen failed at \(context): \(error)", file: file, line: line)
                    continue
                }
                let recovered = try contents(of: store.snapshot())
                // What is recovered must be the state after some prefix of the commits: the
                // acknowledged ones at least, and at most the one in flight.
                // Sequence numbers count commits, so the recovered sequence names the prefix.
                let candidates = mustHave...min(run.acknowledged + 1, commits)
                let recoveredPrefix = Int(store.sequence)
                XCTAssertTrue(candidates.contains(recoveredPrefix),
                              "recovered sequence \(recoveredPrefix) is outside \(candidates) at \(context)", file: file, line: line)
                if candidates.contains(recoveredPrefix) {
                    XCTAssertTrue(states[recoveredPrefix] == recovered,
                                  "recovered state is not the state after \(recoveredPrefix) commits at \(context)", file: file, line: line)
                }

                // The recovered store goes on: one more commit, then a clean reopen sees it.
                var extra = WriteBatch()
                extra.put([1, 2, 3], forKey: StorageKey("after-crash"), in: Keyspace(9))
                try store.commit(extra)
                try store.close()
                let again = try openStore(image, encryptionKey: key)
                XCTAssertEqual(try again.snapshot().value(for: StorageKey("after-crash"), in: Keyspace(9)), [1, 2, 3],
                               "commit after recovery lost at \(context)", file: file, line: line)
                var expected = recovered
                expected[Keyspace(9), default: [:]][StorageKey("after-crash")] = [1, 2, 3]
                XCTAssertEqual(try contents(of: again.snapshot()), expected, "state changed across a clean reopen at \(context)", file: file, line: line)
                try again.close()
                imagesChecked += 1
            }
        }
        XCTAssertEqual(imagesChecked, total * 4)
    }

    func testCrashAtEverySyncPointWithFullDurability() throws {
        try check(durabilities: Array(repeating: .full, count: Self.commits), seed: 42)
    }

    func testCrashAtEverySyncPointWithMixedDurability() throws {
        var random = seededGenerator(7)
        let durabilities: [Durability] = (0..<Self.commits).map { _ in
            Int.random(in: 0..<3, using: &random) == 0 ? .full : .none
        }
        try check(durabilities: durabilities, seed: 43)
    }

    func testCrashAtEverySyncPointOfAnEncryptedStore() throws {
        var random = seededGenerator(11)
        let durabilities: [Durability] = (0..<80).map { _ in Int.random(in: 0..<3, using: &random) == 0 ? .none : .full }
        try check(durabilities: durabilities, seed: 44, key: testKey(), commits: 80)
    }
}
