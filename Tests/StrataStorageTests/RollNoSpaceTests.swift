import XCTest
@_spi(Testing) @testable import StrataStorage

/// A full disk while a new segment starts fails the commit that needed the roll, and nothing
/// more: once space is freed, the next commit rolls and succeeds, and every acknowledged commit
/// is there after a reopen. A failed sync during a roll stays sticky.
final class RollNoSpaceTests: XCTestCase {
    /// The first numbered commit that rolls a store of 4 KiB segments.
    private func firstRollingCommit() throws -> Int {
        let store = try openStore(MemoryFileSystem(), segmentSize: 4096)
        for i in 0..<400 {
            try commitNumbered(store, i..<(i + 1))
            if store.statistics().segments > 1 { return i }
        }
        XCTFail("no commit rolled")
        return 0
    }

    private func assertRecoversOnceSpaceIsFreed(_ fault: FaultInjectingFileSystem.Fault, line: UInt = #line) throws {
        let rolling = try firstRollingCommit()
        let memory = MemoryFileSystem()
        let faulty = FaultInjectingFileSystem(wrapping: memory)
        let store = try openStore(faulty, segmentSize: 4096)
        try commitNumbered(store, 0..<rolling)
        faulty.inject(fault)
        for attempt in 0..<2 {
            XCTAssertThrowsError(try commitNumbered(store, rolling..<(rolling + 1)), "attempt \(attempt)", line: line) { error in
                let error = error as? StrataError
                XCTAssertEqual(error?.code, .io, "\(String(describing: error))", line: line)
                XCTAssertEqual(error?.errno, ENOSPC, line: line)
                XCTAssertTrue(error?.message.contains("not applied") == true, "\(String(describing: error))", line: line)
            }
            XCTAssertNil(store.writeFailure, "a roll that failed for want of space is not sticky", line: line)
        }
        faulty.clearFaults()
        try commitNumbered(store, rolling..<(rolling + 20))
        try assertNumbered(store.snapshot(), 0..<(rolling + 20), line: line)
        XCTAssertGreaterThan(store.statistics().segments, 1, "the roll happened", line: line)
        try store.close()
        let reopened = try openStore(memory, segmentSize: 4096)
        try assertNumbered(reopened.snapshot(), 0..<(rolling + 20), line: line)
        for (_, policy) in crashPolicies(at: 3) {
            try assertNumbered(try openStore(memory.crashImage(policy), segmentSize: 4096).snapshot(), 0..<(rolling + 20), line: line)
        }
    }

    func testNoSpaceToCreateTheNextSegmentIsNotSticky() throws {
        try assertRecoversOnceSpaceIsFreed(.fail(.open, errno: ENOSPC))
    }

    func testAFullDiskAtTheRollIsNotSticky() throws {
        try assertRecoversOnceSpaceIsFreed(.failWrite(errno: ENOSPC))
    }

    func testNoSpaceToWriteTheNextManifestIsNotSticky() throws {
        try assertRecoversOnceSpaceIsFreed(.failWrite(errno: ENOSPC, pathContains: "MANIFEST"))
    }

    func testAFailedSyncDuringARollStaysSticky() throws {
        let memory = MemoryFileSystem()
        let faulty = FaultInjectingFileSystem(wrapping: memory)
        let store = try openStore(faulty, segmentSize: 4096)
        try commitNumbered(store, 0..<10)
        faulty.inject(.failSync(errno: ENOSPC, pathContains: "000002.seg"))
        XCTAssertThrowsError(try commitNumbered(store, 10..<400))
        XCTAssertNotNil(store.writeFailure)
        faulty.clearFaults()
        XCTAssertThrowsError(try commitNumbered(store, 400..<401)) { error in
            XCTAssertEqual((error as? StrataError)?.code, .closed)
        }
        let acknowledged = store.snapshot().count
        try store.close()
        XCTAssertEqual(try openStore(memory, segmentSize: 4096).snapshot().count, acknowledged)
    }
}
