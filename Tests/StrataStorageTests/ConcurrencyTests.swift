import Dispatch
import Foundation
import Synchronization
import XCTest
@testable import StrataStorage

/// Readers on several threads hold snapshots while writers commit: each snapshot sees exactly
/// its version. Run under `swift test --sanitize=thread` in CI.
final class ConcurrencyTests: XCTestCase {
    /// Every commit i writes key "counter" = i and key "i" = i in keyspace 1, so a snapshot of
    /// sequence s must hold exactly keys 1…s plus the counter s.
    func testSnapshotsSeeExactlyTheirVersionWhileAWriterCommits() throws {
        let directory = NSTemporaryDirectory() + "strata-concurrency-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try openStore(PosixFileSystem(), directory: directory, segmentSize: 64 << 10, durability: .none)
        let commits = 2000
        let failures = Locked<[String]>([])
        let done = Atomic<Bool>(false)
        let readers = 3
        let group = DispatchGroup()
        for reader in 0..<readers {
            group.enter()
            // Dedicated threads, not the GCD pool: spinning readers would starve queued writers.
            Thread {
                defer { group.leave() }
                var checked = 0
                while !done.load(ordering: .acquiring) || checked < 5 {
                    let snapshot = store.snapshot()
                    let s = Int(snapshot.sequence)
                    do {
                        let counter = try snapshot.value(for: StorageKey("counter"), in: Keyspace(1))
                        let expectedCounter: [UInt8]? = s == 0 ? nil : withUnsafeBytes(of: UInt64(s)) { Array($0) }
                        if counter != expectedCounter { throw StrataError(.corruption, "counter \(String(describing: counter)) at \(s)") }
                        if snapshot.count(in: Keyspace(1)) != (s == 0 ? 0 : s + 1) {
                            throw StrataError(.corruption, "reader \(reader): \(snapshot.count(in: Keyspace(1))) keys at sequence \(s)")
                        }
                        // Hold the snapshot while the writer goes on, then read it again.
                        if s > 0 {
                            let key = StorageKey(UInt64(Int.random(in: 1...s)))
                            guard try snapshot.value(for: key, in: Keyspace(1)) != nil else {
                                throw StrataError(.corruption, "key missing at \(s)")
                            }
                        }
                        XCTAssertEqual(snapshot.sequence, UInt64(s))
                    } catch {
                        failures.withLock { $0.append("\(error)") }
                        return
                    }
                    checked += 1
                }
            }.start()
        }
        // Two writers, to exercise group commit as well.
        let writerGroup = DispatchGroup()
        let next = Locked(1)
        for _ in 0..<2 {
            writerGroup.enter()
            Thread {
                defer { writerGroup.leave() }
                while true {
                    // One commit at a time per number, so sequence == number of commits so far.
                    let ok: Bool = next.withLock { n in
                        guard n <= commits else { return false }
                        var batch = WriteBatch()
                        batch.put(withUnsafeBytes(of: UInt64(n)) { Array($0) }, forKey: StorageKey("counter"), in: Keyspace(1))
                        batch.put([UInt8(n % 256)], forKey: StorageKey(UInt64(n)), in: Keyspace(1))
                        do { try store.commit(batch) } catch { failures.withLock { $0.append("\(error)") } }
                        n += 1
                        return true
                    }
                    if !ok { return }
                }
            }.start()
        }
        writerGroup.wait()
        done.store(true, ordering: .releasing)
        group.wait()
        XCTAssertEqual(failures.withLock { $0 }, [])
        XCTAssertEqual(store.sequence, UInt64(commits))
    }

    func testConcurrentCommittersShareSyncs() throws {
        let memory = MemoryFileSystem()
        let store = try openStore(memory, segmentSize: 8 << 20, durability: .full)
        let syncsBefore = memory.syncCount
        let threads = 4
        let perThread = 100
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            for i in 0..<perThread {
                var batch = WriteBatch()
                batch.put([UInt8(thread)], forKey: StorageKey(UInt64(thread * perThread + i)), in: Keyspace(1))
                try! store.commit(batch)
            }
        }
        XCTAssertEqual(store.snapshot().count, threads * perThread)
        XCTAssertEqual(store.sequence, UInt64(threads * perThread))
        // Every commit was acknowledged as durable with at most one sync each; fewer when
        // committers waited together.
        XCTAssertLessThanOrEqual(memory.syncCount - syncsBefore, threads * perThread)
    }
}
