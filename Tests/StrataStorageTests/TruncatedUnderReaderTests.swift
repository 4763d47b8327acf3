import Foundation
import XCTest
@_spi(Testing) @testable import StrataStorage

/// A segment cut short under a reader (by another process) gives the reader a typed error,
/// never a SIGBUS. The reads run in a forked child, so that a fault fails the test instead of
/// ending the test run.
final class TruncatedUnderReaderTests: XCTestCase {
    private var directory = ""

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "strata-truncated-\(UUID().uuidString)"
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Thirty 2,000-byte values in one segment (about 15 pages), written and closed.
    func writeStore() throws {
        let store = try openStore(PosixFileSystem(), directory: directory, segmentSize: 1 << 20, compressionThreshold: .max)
        var random = SplitMix64(seed: 5)
        for i in 0..<30 {
            var batch = WriteBatch()
            batch.put((0..<2000).map { _ in UInt8.random(in: 0...255, using: &random) }, forKey: StorageKey(UInt64(i)), in: Keyspace(1))
            try store.commit(batch)
        }
        try store.close()
    }

    /// How a forked child that runs `body` ends: its exit code, or the signal that killed it.
    enum ChildEnd: Equatable {
        case exited(Int32)
        case signaled(Int32)
    }

    func runInChild(_ body: () -> Int32) -> ChildEnd {
        let pid = fork()
        if pid == 0 { _exit(body()) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return status & 0x7F == 0 ? .exited((status >> 8) & 0xFF) : .signaled(status & 0x7F)
    }

    /// Reads every key; 0 when each read threw a StrataError, 1 when one returned, 2 for
    /// another error.
    func readEveryKeyExpectingErrors(_ store: Store) -> Int32 {
        let snapshot = store.snapshot()
        for i in 0..<30 {
            do {
                _ = try snapshot.value(for: StorageKey(UInt64(i)), in: Keyspace(1))
                return 1
            } catch is StrataError {
                continue
            } catch {
                return 2
            }
        }
        return 0
    }

    func testReadOnlyStoreGetsATypedErrorWhenItsSegmentIsTruncatedUnderIt() throws {
        try writeStore()
        let reader = try openStore(PosixFileSystem(), directory: directory, segmentSize: 1 << 20, readOnly: true)
        XCTAssertEqual(try reader.snapshot().value(for: StorageKey(UInt64(29)), in: Keyspace(1))?.count, 2000)
        XCTAssertEqual(truncate(directory + "/000001.seg", off_t(SegmentHeader.size)), 0)
        XCTAssertEqual(runInChild { readEveryKeyExpectingErrors(reader) }, .exited(0))
    }

    func testUnmappedReadsOfATruncatedFileThrowInsteadOfFaulting() throws {
        try writeStore()
        let file = try PosixFileSystem(mappedReads: false).open(directory + "/000001.seg", mode: .readOnly)
        let size = try file.size()
        XCTAssertEqual(try file.withBytes(at: size - 10, count: 10) { Array($0) }.count, 10)
        XCTAssertEqual(truncate(directory + "/000001.seg", off_t(SegmentHeader.size)), 0)
        XCTAssertThrowsError(try file.withBytes(at: size - 10, count: 10) { Array($0) }) { error in
            XCTAssertEqual((error as? StrataError)?.code, .io)
            XCTAssertEqual((error as? StrataError)?.offset, size - 10)
        }
    }

    func testStoreOnUnmappedReadsRoundTrips() throws {
        let store = try openStore(PosixFileSystem(mappedReads: false), directory: directory, segmentSize: 4096)
        try commitNumbered(store, 0..<40)
        try assertNumbered(store.snapshot(), 0..<40)
        try store.close()
        try assertNumbered(openStore(PosixFileSystem(mappedReads: false), directory: directory, segmentSize: 4096).snapshot(), 0..<40)
    }
}
