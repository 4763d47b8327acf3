import Foundation
import XCTest
@_spi(Testing) @testable import StrataStorage

/// Faults from the file system: what the store reports, and that nothing acknowledged is lost.
final class FaultInjectionTests: XCTestCase {
    func testFsyncFailureIsStickyAndKeepsAcknowledgedCommits() throws {
        let memory = MemoryFileSystem()
        let faulty = FaultInjectingFileSystem(wrapping: memory)
        let store = try openStore(faulty, segmentSize: 1 << 20)
        try commitNumbered(store, 0..<10)
        faulty.inject(.failSync(errno: EIO, pathContains: ".seg", times: 1))
        var batch = WriteBatch()
        batch.put([1], forKey: StorageKey("lost"), in: Keyspace(1))
        XCTAssertThrowsError(try store.commit(batch)) { error in
            XCTAssertEqual((error as? StrataError)?.code, .io)
            XCTAssertEqual((error as? StrataError)?.errno, EIO)
        }
        // The fault was transient, but the store must not trust the file again.
        XCTAssertNotNil(store.writeFailure)
        XCTAssertThrowsError(try commitNumbered(store, 10..<11)) { error in
            let error = error as! StrataError
            XCTAssertEqual(error.code, .closed)
            XCTAssertTrue(error.message.contains("reopen"), error.message)
        }
        // Readers still work, and see exactly the acknowledged commits.
        try assertNumbered(store.snapshot(), 0..<10)
        XCTAssertFalse(store.snapshot().contains(StorageKey("lost"), in: Keyspace(1)))

        // What survives a power loss now: every acknowledged commit.
        let image = memory.crashImage(.dropAll)
        let recovered = try openStore(image, segmentSize: 1 << 20)
        let snapshot = recovered.snapshot()
        for i in 0..<10 {
            XCTAssertEqual(try snapshot.value(for: StorageKey(UInt64(i)), in: Keyspace(1)), Array("v\(i)".utf8))
        }
        try recovered.close()
        // Reopening the original clears the sticky state.
        try store.close()
        let reopened = try openStore(memory, segmentSize: 1 << 20)
        try commitNumbered(reopened, 10..<12)
        XCTAssertEqual(try reopened.snapshot().value(for: StorageKey(UInt64(11)), in: Keyspace(1)), Array("v11".utf8))
    }

    func testNoSpaceReturnsAnErrorAndLosesNothing() throws {
        let memory = MemoryFileSystem()
        let faulty = FaultInjectingFileSystem(wrapping: memory)
        let store = try openStore(faulty, segmentSize: 1 << 20)
        try commitNumbered(store, 0..<5)
        faulty.inject(.failWrite(errno: ENOSPC, pathContains: ".seg", times: 1))
        var batch = WriteBatch()
        batch.put([1], forKey: StorageKey("nospace"), in: Keyspace(1))
        XCTAssertThrowsError(try store.commit(batch)) { error in
            XCTAssertEqual((error as? StrataError)?.code, .io)
            XCTAssertEqual((error as? StrataError)?.errno, ENOSPC)
        }
        XCTAssertNil(store.writeFailure, "a failed write that was rolled back is not sticky")
        try commitNumbered(store, 5..<8)
        try assertNumbered(store.snapshot(), 0..<8)
        try store.close()
        try assertNumbered(try openStore(memory, segmentSize: 1 << 20).snapshot(), 0..<8)
    }

    func testShortWriteIsRolledBack() throws {
        let memory = MemoryFileSystem()
        let faulty = FaultInjectingFileSystem(wrapping: memory)
        let store = try openStore(faulty, segmentSize: 1 << 20)
        try commitNumbered(store, 0..<3)
        let size = memory.contents(of: "/db/000001.seg")!.count
        faulty.inject(.shortWrite(keepingBytes: 7, errno: ENOSPC, pathContains: ".seg"))
        var batch = WriteBatch()
        batch.put(Array(repeating: 9, count: 50), forKey: StorageKey("half"), in: Keyspace(1))
        XCTAssertThrowsError(try store.commit(batch))
        XCTAssertEqual(memory.contents(of: "/db/000001.seg")!.count, size, "the partial write was not cut off")
        try commitNumbered(store, 3..<4)
        try store.close()
        let reopened = try openStore(memory, segmentSize: 1 << 20)
        try assertNumbered(reopened.snapshot(), 0..<4)
        XCTAssertEqual(reopened.recoveryEvents, [])
    }

    func testPersistentNoSpaceDuringRollLosesNothing() throws {
        let memory = MemoryFileSystem()
        let faulty = FaultInjectingFileSystem(wrapping: memory)
        let store = try openStore(faulty, segmentSize: 4096)
        try commitNumbered(store, 0..<10)
        faulty.inject(.failWrite(errno: ENOSPC))
        XCTAssertThrowsError(try commitNumbered(store, 10..<400))
        try assertNumbered(store.snapshot(), 0..<10)
        faulty.clearFaults()
        try store.close()
        let reopened = try openStore(memory, segmentSize: 4096)
        try assertNumbered(reopened.snapshot(), 0..<10)
    }

    func testFailedReadIsAnIOErrorNotACrash() throws {
        let memory = MemoryFileSystem()
        let store = try openStore(memory, segmentSize: 1 << 20)
        try commitNumbered(store, 0..<3)
        try store.close()
        // A segment cut inside its header.
        memory.setContents(Array(memory.contents(of: "/db/000001.seg")!.prefix(30)), of: "/db/000001.seg")
        XCTAssertThrowsError(try openStore(memory, segmentSize: 1 << 20)) { error in
            XCTAssertEqual((error as? StrataError)?.code, .corruption)
            XCTAssertEqual((error as? StrataError)?.offset, 0)
        }
    }
}
