import Dispatch
import Foundation
import Synchronization
import XCTest
@_spi(Testing) @testable import StrataStorage

/// The background compactor beside readers and a writer, run under the thread sanitizer by
/// `make tsan` (its filter's `ConcurrencyTests` picks this class): readers take snapshots,
/// hold some of them across a compaction and read them, a writer commits and seals segments
/// all the time, the compactor replaces them again and again (4 KiB segments, an eager
/// policy), an async `compact()` is started and cancelled, and an update stream is consumed.
/// Bounded by a number of commits, not by time.
final class BackgroundCompactionConcurrencyTests: XCTestCase {
    static let groups = 8
    static let keysPerGroup = 8
    static let commits = 400

    /// Commit `round` writes `round` into every key of group `round % groups`, so a snapshot
    /// is consistent when each group's keys all hold the same round.
    static func batch(round: Int) -> WriteBatch {
        var batch = WriteBatch()
        let group = round % groups
        for k in 0..<keysPerGroup {
            let value = withUnsafeBytes(of: UInt64(round)) { Array($0) } + [UInt8](repeating: UInt8(k), count: 120)
            batch.put(value, forKey: StorageKey(UInt64(group * keysPerGroup + k)), in: Keyspace(1))
        }
        return batch
    }

    /// Checks that every group in `snapshot` is whole; returns a failure message or nil.
    static func check(_ snapshot: Snapshot) -> String? {
        do {
            for group in 0..<groups {
                var rounds: Set<[UInt8]> = []
                for k in 0..<keysPerGroup {
                    let value = try snapshot.value(for: StorageKey(UInt64(group * keysPerGroup + k)), in: Keyspace(1))
                    rounds.insert(value.map { Array($0.prefix(8)) } ?? [])
                }
                if rounds.count != 1 { return "group \(group) torn at sequence \(snapshot.sequence): \(rounds)" }
            }
            return nil
        } catch {
            return "read at sequence \(snapshot.sequence): \(error)"
        }
    }

    func testReadersAWriterAndTheCompactorTogether() throws {
        let memory = MemoryFileSystem()
        var options = Store.Options()
        options.fileSystem = memory
        options.segmentSize = 4096
        options.durability = .none
        options.compaction = .automatic(minimumDeadRatio: 0.2, minimumBytes: 4096)
        let failures = Locked<[String]>([])
        options.onBackgroundCompactionFailure = { error in failures.withLock { $0.append("background: \(error)") } }
        let store = try Store(directory: "/db", options: options)
        let done = Atomic<Bool>(false)
        let group = DispatchGroup()

        func spawn(_ body: @escaping @Sendable () -> Void) {
            group.enter()
            Thread {
                defer { group.leave() }
                body()
            }.start()
        }

        spawn {  // the writer
            for round in 0..<Self.commits {
                do { try store.commit(Self.batch(round: round)) } catch {
                    failures.withLock { $0.append("commit \(round): \(error)") }
                    break
                }
                if round % 50 == 0 { store.scheduleBackgroundCompaction() }
            }
            done.store(true, ordering: .releasing)
        }
        for reader in 0..<3 {
            spawn {
                // Keeps one snapshot across several rounds, so compactions replace segments it
                // reads; it lets them go (and unlinks files) on this thread.
                var held: Snapshot?
                var iteration = 0
                while !done.load(ordering: .acquiring) || iteration < 3 {
                    let snapshot = store.snapshot()
                    if let failure = Self.check(snapshot) ?? held.flatMap(Self.check) {
                        failures.withLock { $0.append("reader \(reader): \(failure)") }
                        return
                    }
                    if iteration % 16 == reader { held = snapshot } else if iteration % 16 == reader + 8 { held = nil }
                    iteration += 1
                }
            }
        }
        let statuses = Locked<[BackgroundCompactionStatus]>([])
        let streamEnded = expectation(description: "the update stream ended")
        let updates = store.backgroundCompactionUpdates
        Task {
            for await status in updates { statuses.withLock { $0.append(status) } }
            streamEnded.fulfill()
        }
        spawn {  // an async compaction, cancelled at once or along the way
            let finished = DispatchSemaphore(value: 0)
            let task = Task {
                defer { finished.signal() }
                _ = try? await store.compact()
            }
            task.cancel()
            finished.wait()
        }

        group.wait()
        store.waitForBackgroundCompaction()
        XCTAssertEqual(failures.withLock { $0 }, [])
        let status = store.backgroundCompaction
        XCTAssertGreaterThan(status.completedRuns, 0, "the compactor ran")
        XCTAssertNil(Self.check(store.snapshot()))
        let model = try contents(of: store.snapshot())
        try store.close()
        wait(for: [streamEnded], timeout: 60)
        XCTAssertTrue(statuses.withLock { $0 }.contains { $0.isRunning }, "the stream saw a run")
        let reopened = try Store(directory: "/db", options: {
            var reopen = options
            reopen.compaction = .manual
            return reopen
        }())
        XCTAssertEqual(try contents(of: reopened.snapshot()), model)
        XCTAssertEqual(reopened.recoveryEvents.filter { $0.kind != .leftoverFileRemoved }, [])
    }
}
