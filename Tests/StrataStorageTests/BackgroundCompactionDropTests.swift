#if canImport(Glibc)
import Glibc
#endif
import XCTest
@_spi(Testing) @testable import StrataStorage

/// Dropping the last reference to a store while its background compaction runs stops the run
/// at its next batch and releases `LOCK` before the drop returns: the directory opens at once.
final class BackgroundCompactionDropTests: XCTestCase {
    /// Forwards to another file system; while `slow` is set, every read of a segment sleeps
    /// 50 µs first, so a compaction of many records takes long enough to be dropped in.
    final class SlowReadsFileSystem: ForwardingFileSystem, @unchecked Sendable {
        let forwardedTo: any FileSystem
        let slow = Locked(false)

        init(_ base: any FileSystem) { forwardedTo = base }

        func open(_ path: String, mode: FileOpenMode) throws -> any StorageFile {
            SlowFile(base: try forwardedTo.open(path, mode: mode), slow: slow)
        }
    }

    final class SlowFile: StorageFile, @unchecked Sendable {
        let base: any StorageFile
        let slow: Locked<Bool>
        init(base: any StorageFile, slow: Locked<Bool>) {
            self.base = base
            self.slow = slow
        }
        var path: String { base.path }
        func size() throws -> Int { try base.size() }
        func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int) throws -> Int {
            try base.read(into: buffer, at: offset)
        }
        func visitBytes(at offset: Int, count: Int, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
            if path.hasSuffix(".seg"), slow.withLock({ $0 }) { usleep(50) }
            try base.visitBytes(at: offset, count: count, body)
        }
        func write(_ bytes: UnsafeRawBufferPointer, at offset: Int) throws { try base.write(bytes, at: offset) }
        func sync() throws { try base.sync() }
        func truncate(to size: Int) throws { try base.truncate(to: size) }
        func close() throws { try base.close() }
    }

    private func open(_ fileSystem: any FileSystem, policy: CompactionPolicy) throws -> Store {
        var options = Store.Options()
        options.fileSystem = fileSystem
        options.segmentSize = 64 * 1024
        options.compaction = policy
        return try Store(directory: "/db", options: options)
    }

    /// Sealed segments holding 6,000 live records and as many dead ones.
    private func storeWithDeadRecords(_ memory: MemoryFileSystem) throws -> Contents {
        let setup = try open(memory, policy: .manual)
        var model: Contents = [:]
        for round in 0..<2 {
            for first in stride(from: 0, to: 6000, by: 500) {
                var batch = WriteBatch()
                for key in first..<(first + 500) {
                    batch.put(Array("value \(key) of round \(round)".utf8), forKey: StorageKey(UInt64(key)), in: Keyspace(1))
                }
                try setup.commit(batch)
                apply(batch, to: &model)
            }
        }
        try sealActiveSegment(of: setup)
        try setup.close()
        return model
    }

    func testDroppingAStoreDuringABackgroundCompactionLetsItOpenAtOnce() throws {
        let memory = MemoryFileSystem()
        let model = try storeWithDeadRecords(memory)
        let slow = SlowReadsFileSystem(memory)
        var store: Store? = try open(slow, policy: .automatic(minimumDeadRatio: 0.3, minimumBytes: 1))
        slow.slow.withLock { $0 = true }
        store?.scheduleBackgroundCompaction()
        let deadline = ContinuousClock.now + .seconds(20)
        while store?.backgroundCompaction.bytesDone ?? 0 == 0, ContinuousClock.now < deadline { usleep(100) }
        XCTAssertEqual(store?.backgroundCompaction.isRunning, true, "the run is under way")
        XCTAssertLessThan(store?.backgroundCompaction.bytesDone ?? .max, store?.backgroundCompaction.bytesTotal ?? 0)
        store = nil
        let reopened: Store
        do {
            reopened = try open(memory, policy: .manual)
        } catch {
            slow.slow.withLock { $0 = false }
            throw error
        }
        slow.slow.withLock { $0 = false }
        XCTAssertEqual(try contents(of: reopened.snapshot()), model)
        try reopened.close()
    }
}
