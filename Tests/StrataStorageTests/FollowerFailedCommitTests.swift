import Foundation
import XCTest
@_spi(Testing) @testable import StrataStorage

/// A read-only follower that reads the log while the writer's group is written but its outcome
/// not yet known (its fsync is running) must not apply it: the writer cuts a group whose sync
/// failed, and writes its next commit at the same offset.
final class FollowerFailedCommitTests: XCTestCase {
    private struct Seen: Sendable {
        var refreshFoundLost = false
        var openFoundLost = false
        var hookRan = false
    }

    private func lostBatch() -> WriteBatch {
        var batch = WriteBatch()
        batch.put(Array(repeating: 7, count: 300), forKey: StorageKey("lost"), in: Keyspace(1))
        return batch
    }

    /// Commits five numbered keys, then a batch whose segment fsync fails; while that fsync
    /// runs, `follower` refreshes and a new read-only store opens. Returns what they saw.
    private func failSyncWhileFollowing(_ memory: MemoryFileSystem, writer: Store, follower: Store) throws -> Seen {
        let seen = Locked(Seen())
        let armed = Locked(true)
        memory.setSyncHook { event in
            guard event.path.hasSuffix(".seg"), armed.withLock({ $0 }) else { return }
            armed.withLock { $0 = false }
            _ = try? follower.refresh()
            let lostKey = StorageKey("lost")
            let refreshed = follower.snapshot().contains(lostKey, in: Keyspace(1))
            let opened = try openStore(memory, segmentSize: 1 << 20, readOnly: true)
            let openSaw = opened.snapshot().contains(lostKey, in: Keyspace(1))
            seen.withLock { $0 = Seen(refreshFoundLost: refreshed, openFoundLost: openSaw, hookRan: true) }
            throw StrataError(.io, "fsync failed (injected by the test)", errno: EIO)
        }
        XCTAssertThrowsError(try writer.commit(lostBatch(), durability: .full)) { error in
            XCTAssertTrue((error as? StrataError)?.message.contains("not applied") == true, "\(error)")
        }
        memory.setSyncHook(nil)
        return seen.withLock { $0 }
    }

    func testFollowerNeverAppliesAGroupWhoseSyncFails() throws {
        let memory = MemoryFileSystem()
        let writer = try openStore(memory, segmentSize: 1 << 20)
        try commitNumbered(writer, 0..<5)
        let follower = try openStore(memory, segmentSize: 1 << 20, readOnly: true)
        let seen = try failSyncWhileFollowing(memory, writer: writer, follower: follower)
        XCTAssertTrue(seen.hookRan)
        XCTAssertFalse(seen.refreshFoundLost, "a refresh applied a group whose fsync then failed")
        XCTAssertFalse(seen.openFoundLost, "a read-only open applied a group whose fsync then failed")

        // The writer refuses writes after a failed fsync; reopened, it writes its next commit
        // where the cut group was.
        try writer.close()
        let reopened = try openStore(memory, segmentSize: 1 << 20)
        try commitNumbered(reopened, 5..<6)
        XCTAssertTrue(try follower.refresh(), "the follower must see the acknowledged commit")
        XCTAssertEqual(try contents(of: follower.snapshot()), try contents(of: reopened.snapshot()))
        XCTAssertEqual(try follower.snapshot().value(for: StorageKey("lost"), in: Keyspace(1)), nil)
        try assertNumbered(follower.snapshot(), 0..<6)
    }

    func testFollowerReadsEverythingWhenNoWriterRuns() throws {
        let memory = MemoryFileSystem()
        let writer = try openStore(memory, segmentSize: 1 << 20, durability: .none)
        try commitNumbered(writer, 0..<5)
        let follower = try openStore(memory, segmentSize: 1 << 20, readOnly: true)
        try commitNumbered(writer, 5..<8)
        XCTAssertTrue(try follower.refresh())
        try assertNumbered(follower.snapshot(), 0..<8)
        try writer.close()
        try assertNumbered(try openStore(memory.crashImage(.keepAll), segmentSize: 1 << 20, readOnly: true).snapshot(), 0..<8)
    }

    func testAPosixWritersLockIsSeenWithoutBeingTaken() throws {
        let directory = NSTemporaryDirectory() + "strata-follow-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var options = Store.Options()
        options.fileSystem = PosixFileSystem()
        let lock = directory + "/LOCK"
        XCTAssertFalse(PosixFileSystem().isLockHeld(lock), "no file yet")
        let writer = try Store(directory: directory, options: options)
        XCTAssertTrue(PosixFileSystem().isLockHeld(lock))
        XCTAssertTrue(PosixFileSystem().isLockHeld(lock), "asking twice in the writer's process keeps the lock")
        XCTAssertThrowsError(try Store(directory: directory, options: options)) { error in
            XCTAssertEqual((error as? StrataError)?.code, .locked)
        }
        try commitNumbered(writer, 0..<3)
        var readOnly = options
        readOnly.readOnly = true
        let follower = try Store(directory: directory, options: readOnly)
        try assertNumbered(follower.snapshot(), 0..<3)
        try commitNumbered(writer, 3..<6)
        XCTAssertTrue(try follower.refresh())
        try assertNumbered(follower.snapshot(), 0..<6)
        try writer.close()
        XCTAssertFalse(PosixFileSystem().isLockHeld(lock))
        let reopened = try Store(directory: directory, options: options)
        try assertNumbered(reopened.snapshot(), 0..<6)
        try reopened.close()
    }
}
