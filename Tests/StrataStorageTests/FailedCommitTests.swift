import Foundation
import XCTest
@_spi(Testing) @testable import StrataStorage

/// A commit that threw `.io` says it was not applied: it must not come back after a reopen or
/// a crash. When the store cannot make sure of that, the error says the outcome is unknown.
final class FailedCommitTests: XCTestCase {
    /// A store on a fault-injecting memory file system, with five acknowledged commits.
    func storeWithFiveCommits() throws -> (MemoryFileSystem, FaultInjectingFileSystem, Store) {
        let memory = MemoryFileSystem()
        let faulty = FaultInjectingFileSystem(wrapping: memory)
        let store = try openStore(faulty, segmentSize: 1 << 20)
        try commitNumbered(store, 0..<5)
        return (memory, faulty, store)
    }

    func lostBatch() -> WriteBatch {
        var batch = WriteBatch()
        batch.put(Array(repeating: 7, count: 300), forKey: StorageKey("lost"), in: Keyspace(1))
        return batch
    }

    func assertLostIsAbsent(_ fileSystem: any FileSystem, _ context: String, line: UInt = #line) throws {
        let store = try openStore(fileSystem, segmentSize: 1 << 20, readOnly: true)
        XCTAssertFalse(store.snapshot().contains(StorageKey("lost"), in: Keyspace(1)),
                       "a commit that threw came back (\(context))", line: line)
        XCTAssertEqual(store.snapshot().count, 5, context, line: line)
    }

    func testCommitWhoseFsyncFailedIsAbsentAfterReopenAndAfterACrash() throws {
        let (memory, faulty, store) = try storeWithFiveCommits()
        faulty.inject(.failSync(errno: EIO, pathContains: ".seg", times: 1))
        XCTAssertThrowsError(try store.commit(lostBatch())) { error in
            XCTAssertEqual((error as? StrataError)?.code, .io)
            XCTAssertTrue((error as? StrataError)?.message.contains("not applied") == true, "\(error)")
        }
        XCTAssertNotNil(store.writeFailure)
        for (name, policy) in crashPolicies(at: 1) {
            try assertLostIsAbsent(memory.crashImage(policy), "crash image \(name)")
        }
        try store.close()
        try assertLostIsAbsent(memory, "reopen")
    }

    func testCommitWhoseWriteFailedIsAbsentAfterACrash() throws {
        // The write reaches the file whole and then fails; the rollback cut must be durable
        // before the error returns, or a crash may keep the write and lose the cut.
        for seed in UInt64(0)..<24 {
            let (memory, faulty, store) = try storeWithFiveCommits()
            faulty.inject(.shortWrite(keepingBytes: 1 << 20, errno: EIO, pathContains: ".seg"))
            XCTAssertThrowsError(try store.commit(lostBatch()))
            XCTAssertNil(store.writeFailure, "a rolled-back write is not sticky")
            try assertLostIsAbsent(memory.crashImage(.random(seed: seed)), "crash image of seed \(seed)")
            try assertLostIsAbsent(memory.crashImage(.keepAll), "crash image keepAll, seed \(seed)")
        }
    }

    func testFailedCutAfterAFailedFsyncSaysTheOutcomeIsUnknown() throws {
        let (_, faulty, store) = try storeWithFiveCommits()
        faulty.inject(.failSync(errno: EIO, pathContains: ".seg"))
        XCTAssertThrowsError(try store.commit(lostBatch())) { error in
            XCTAssertEqual((error as? StrataError)?.code, .io)
            XCTAssertTrue((error as? StrataError)?.message.contains("outcome is unknown") == true, "\(error)")
        }
        XCTAssertThrowsError(try store.commit(lostBatch())) { error in
            XCTAssertEqual((error as? StrataError)?.code, .closed)
        }
    }

    func testFailedCutAfterAFailedWriteIsSticky() throws {
        let (_, faulty, store) = try storeWithFiveCommits()
        faulty.inject(.shortWrite(keepingBytes: 1 << 20, errno: EIO, pathContains: ".seg"))
        faulty.inject(.failSync(errno: EIO, pathContains: ".seg"))
        XCTAssertThrowsError(try store.commit(lostBatch())) { error in
            XCTAssertTrue((error as? StrataError)?.message.contains("outcome is unknown") == true, "\(error)")
        }
        XCTAssertNotNil(store.writeFailure)
    }
}
