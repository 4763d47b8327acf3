import Foundation
import XCTest
@_spi(Testing) @testable import StrataStorage

/// Opening and closing a store: the new directory is durable, a failed close stays failed,
/// and a compaction never creates files once the store is closed.
final class StoreLifecycleTests: XCTestCase {
    func testNewStoreDirectoryIsSyncedIntoEveryParentItCreated() throws {
        let fileSystem = MemoryFileSystem()
        try fileSystem.createDirectory("/data")
        let synced = Locked<[String]>([])
        fileSystem.setSyncHook { event in
            if event.isDirectory { synced.withLock { $0.append(event.path) } }
        }
        _ = try openStore(fileSystem, directory: "/data/stores/db")
        let directories = synced.withLock { $0 }
        XCTAssertTrue(directories.contains("/data"), "the entry of /data/stores is not durable: \(directories)")
        XCTAssertTrue(directories.contains("/data/stores"), "the entry of /data/stores/db is not durable: \(directories)")
    }

    func testExistingStoreDirectoryIsNotSyncedIntoItsParentAgain() throws {
        let fileSystem = MemoryFileSystem()
        try openStore(fileSystem, directory: "/data/db").close()
        let synced = Locked<[String]>([])
        fileSystem.setSyncHook { event in
            if event.isDirectory { synced.withLock { $0.append(event.path) } }
        }
        try openStore(fileSystem, directory: "/data/db").close()
        XCTAssertFalse(synced.withLock { $0 }.contains("/data"))
    }

    func testFailedCloseIsStickyAndReleasesTheLock() throws {
        let memory = MemoryFileSystem()
        let faulty = FaultInjectingFileSystem(wrapping: memory)
        let store = try openStore(faulty, durability: .none)
        try commitNumbered(store, 0..<3)
        faulty.inject(.failSync(errno: EIO, pathContains: ".seg", times: 1))
        XCTAssertThrowsError(try store.close()) { error in
            XCTAssertEqual((error as? StrataError)?.code, .io)
        }
        XCTAssertThrowsError(try store.close(), "a second close hid the failed sync") { error in
            XCTAssertEqual((error as? StrataError)?.errno, EIO)
        }
        XCTAssertEqual(store.writeFailure?.errno, EIO)
        let reopened = try openStore(memory)
        try assertNumbered(reopened.snapshot(), 0..<3)
    }

    func testCompactionCreatesNoFileAfterTheStoreIsClosed() throws {
        let fileSystem = MemoryFileSystem()
        let store = try openStore(fileSystem, segmentSize: 4096)
        for i in 0..<60 {
            var batch = WriteBatch()
            batch.put(Array(repeating: UInt8(i), count: 300), forKey: StorageKey(UInt64(i)), in: Keyspace(1))
            try store.commit(batch)
        }
        // Sealed first, so that the first new segment file synced is a compaction output.
        try sealActiveSegment(of: store)
        let before = Set(try fileSystem.contentsOfDirectory("/db"))
        let atClose = Locked<Set<String>?>(nil)
        // Close the store when the first compacted output file is synced (it is full).
        fileSystem.setSyncHook { [unowned fileSystem] event in
            let name = String(event.path.split(separator: "/").last ?? "")
            guard !event.isDirectory, name.hasSuffix(".seg"), !before.contains(name),
                  atClose.withLock({ $0 == nil }) else { return }
            try store.close()
            atClose.withLock { $0 = Set((try? fileSystem.contentsOfDirectory("/db")) ?? []) }
        }
        XCTAssertThrowsError(try store.compact()) { error in
            XCTAssertEqual((error as? StrataError)?.code, .closed)
        }
        let namesAtClose = try XCTUnwrap(atClose.withLock { $0 }, "the compaction wrote no output file")
        let created = Set(try fileSystem.contentsOfDirectory("/db")).subtracting(namesAtClose)
        XCTAssertEqual(created, [], "files created after close released the LOCK")
        fileSystem.setSyncHook(nil)
        XCTAssertEqual(try openStore(fileSystem, segmentSize: 4096).snapshot().count, 60)
    }

    func testCompressedValueOverTheReaderMaxValueSizeIsReadNotCorruption() throws {
        let fileSystem = MemoryFileSystem()
        let store = try openStore(fileSystem, compressionThreshold: 512)
        var batch = WriteBatch()
        batch.put(Array(repeating: 42, count: 3000), forKey: StorageKey("big"), in: Keyspace(1))
        batch.put(Array(repeating: 43, count: 2000), forKey: StorageKey("plain"), in: Keyspace(1))
        try store.commit(batch)
        try store.close()
        var options = Store.Options()
        options.fileSystem = fileSystem
        options.segmentSize = 4096
        options.maxValueSize = 1000
        options.compressionThreshold = Int.max
        let small = try Store(directory: "/db", options: options)
        XCTAssertEqual(try small.snapshot().value(for: StorageKey("plain"), in: Keyspace(1))?.count, 2000)
        XCTAssertEqual(try small.snapshot().value(for: StorageKey("big"), in: Keyspace(1)), Array(repeating: 42, count: 3000))
    }
}
