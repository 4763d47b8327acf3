import Dispatch
import Foundation
import Synchronization
import XCTest
@_spi(Testing) @testable import StrataStorage

/// Readers on several threads hold snapshots while writers commit concurrently, and committers
/// that wait together share a sync. Run under `swift test --sanitize=thread` in CI.
final class ConcurrencyTests: XCTestCase {
    static let writers = 3
    static let commitsPerWriter = 600

    /// Writer w's i-th commit (i from 1) puts key (w, i) and sets writer w's counter to i.
    static func batch(writer: Int, commit: Int) -> WriteBatch {
        var batch = WriteBatch()
        batch.put(withUnsafeBytes(of: UInt64(commit)) { Array($0) }, forKey: counterKey(writer), in: Keyspace(1))
        batch.put([UInt8(commit % 256)], forKey: StorageKey(UInt64(writer << 32 | commit)), in: Keyspace(1))
        return batch
    }

    static func counterKey(_ writer: Int) -> StorageKey { StorageKey("counter-\(writer)") }

    /// Checks that `snapshot` holds a prefix of each writer's commits and, since sequences are
    /// handed out one per commit, exactly `snapshot.sequence` commits in all.
    static func check(_ snapshot: Snapshot, using random: inout SplitMix64) throws {
        var seen = 0
        var counters = 0
        for writer in 0..<writers {
            guard let bytes = try snapshot.value(for: counterKey(writer), in: Keyspace(1)) else { continue }
            counters += 1
            let count = Int(bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) })
            seen += count
            let held = StorageKey(UInt64(writer << 32 | Int.random(in: 1...count, using: &random)))
            let next = StorageKey(UInt64(writer << 32 | (count + 1)))
            guard try snapshot.value(for: held, in: Keyspace(1)) != nil,
                  try snapshot.value(for: next, in: Keyspace(1)) == nil else {
                throw StrataError(.corruption, "writer \(writer)'s commits are not a prefix of \(count) at \(snapshot.sequence)")
            }
        }
        guard seen == Int(snapshot.sequence), snapshot.count(in: Keyspace(1)) == seen + counters else {
            throw StrataError(.corruption, "\(seen) commits and \(snapshot.count(in: Keyspace(1))) keys at sequence \(snapshot.sequence)")
        }
    }

    /// Writers commit at the same time (no lock between them, so the commit queue groups them)
    /// while readers take snapshots and check each one against `check`, once when taken and
    /// again after the writers have gone on.
    func testSnapshotsSeeExactlyTheirVersionWhileWritersCommitConcurrently() throws {
        let directory = NSTemporaryDirectory() + "strata-concurrency-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try openStore(PosixFileSystem(), directory: directory, segmentSize: 64 << 10, durability: .none)
        let failures = Locked<[String]>([])
        let done = Atomic<Bool>(false)
        let readers = DispatchGroup()
        for reader in 0..<3 {
            let generator = seededGenerator(UInt64(100 + reader))
            readers.enter()
            // Dedicated threads, not the GCD pool: spinning readers would starve queued writers.
            Thread {
                defer { readers.leave() }
                var random = generator
                var held: [Snapshot] = []
                while !done.load(ordering: .acquiring) || held.count < 5 {
                    do {
                        let snapshot = store.snapshot()
                        try Self.check(snapshot, using: &random)
                        held.append(snapshot)
                        if held.count == 8 { try Self.check(held.removeFirst(), using: &random) }
                    } catch {
                        return failures.withLock { $0.append("reader \(reader): \(error)") }
                    }
                }
            }.start()
        }
        let sequences = Locked<[[UInt64]]>(Array(repeating: [], count: Self.writers))
        let writers = DispatchGroup()
        for writer in 0..<Self.writers {
            writers.enter()
            Thread {
                defer { writers.leave() }
                for commit in 1...Self.commitsPerWriter {
                    do {
                        let sequence = try store.commit(Self.batch(writer: writer, commit: commit))
                        sequences.withLock { $0[writer].append(sequence) }
                    } catch {
                        return failures.withLock { $0.append("writer \(writer): \(error)") }
                    }
                }
            }.start()
        }
        writers.wait()
        done.store(true, ordering: .releasing)
        readers.wait()
        XCTAssertEqual(failures.withLock { $0 }, [])
        let total = Self.writers * Self.commitsPerWriter
        XCTAssertEqual(store.sequence, UInt64(total))
        // Each writer's commits got increasing sequences, and together every sequence once.
        let all = sequences.withLock { $0 }
        for (writer, own) in all.enumerated() { XCTAssertEqual(own, own.sorted(), "writer \(writer)") }
        XCTAssertEqual(all.joined().sorted(), Array(1...UInt64(total)))
    }

    /// One committer's sync is held until every other committer has queued behind it; when it is
    /// let go, the waiting committers are written as one group with one sync between them, so
    /// their commits cost fewer syncs than commits.
    func testCommittersWaitingBehindASyncShareTheNextSync() throws {
        let memory = MemoryFileSystem()
        let store = try openStore(memory, segmentSize: 8 << 20, durability: .full)
        let holding = Atomic<Bool>(false)
        let held = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        memory.setSyncHook { _ in
            guard holding.compareExchange(expected: true, desired: false, ordering: .acquiringAndReleasing).exchanged
            else { return }
            held.signal()
            release.wait()
        }
        let followers = 6
        let failures = Locked<[String]>([])
        let started = DispatchSemaphore(value: 0)
        let finished = DispatchGroup()
        func commit(_ key: Int, signal: DispatchSemaphore?) {
            finished.enter()
            Thread {
                defer { finished.leave() }
                var batch = WriteBatch()
                batch.put([UInt8(key)], forKey: StorageKey(UInt64(key)), in: Keyspace(1))
                signal?.signal()
                do { try store.commit(batch) } catch { failures.withLock { $0.append("commit \(key): \(error)") } }
            }.start()
        }
        holding.store(true, ordering: .releasing)
        commit(0, signal: nil)
        held.wait()
        let syncsBefore = memory.syncCount
        for key in 1...followers { commit(key, signal: started) }
        for _ in 1...followers { started.wait() }
        // Each follower is about to queue; give the last of them time to reach the queue.
        Thread.sleep(forTimeInterval: 0.2)
        release.signal()
        finished.wait()
        XCTAssertEqual(failures.withLock { $0 }, [])
        XCTAssertEqual(store.snapshot().count, followers + 1)
        let followerSyncs = memory.syncCount - syncsBefore
        XCTAssertGreaterThan(followerSyncs, 0, "acknowledged .full commits were never synced")
        XCTAssertLessThan(followerSyncs, followers, "\(followers) waiting committers made \(followerSyncs) syncs")
    }
}
