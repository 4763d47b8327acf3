import Foundation
import XCTest
@_spi(Testing) @testable import StrataStorage

/// `Store.writeCopy`: a compacted copy of one snapshot, whatever happens meanwhile.
final class WriteCopyTests: XCTestCase {
    /// A store in `/db` with overwrites and deletes across several segments.
    func sourceStore(key: [UInt8]? = nil) throws -> (MemoryFileSystem, Store) {
        let fileSystem = MemoryFileSystem()
        let store = try openStore(fileSystem, encryptionKey: key)
        try commitSecrets(120, to: store)
        try commitSecrets(30, to: store)
        var delete = WriteBatch()
        for i in 100..<110 { delete.delete(secretKey(i), in: Keyspace(1)) }
        try store.commit(delete)
        return (fileSystem, store)
    }

    func testACopyIsTheSnapshotExactlyWhileCommitsGoOn() throws {
        let (fileSystem, store) = try sourceStore()
        let snapshot = store.snapshot()
        let expected = try contents(of: snapshot)
        let stop = Locked(false)
        let writer = Thread {
            var i = 1000
            while !stop.withLock({ $0 }) {
                try? commitSecrets(1, to: store, from: i)
                i += 1
            }
        }
        writer.start()
        // The copy starts once the store has moved past the snapshot, and runs beside more commits.
        while store.sequence < snapshot.sequence + 5 { usleep(100) }
        try store.writeCopy(of: snapshot, toDirectory: "/copy", encryptionKey: nil)
        let afterCopy = store.sequence
        while store.sequence < afterCopy + 2 { usleep(100) }
        stop.withLock { $0 = true }
        let copy = try openStore(fileSystem, directory: "/copy")
        XCTAssertEqual(try contents(of: copy.snapshot()), expected)
        XCTAssertEqual(copy.sequence, snapshot.sequence)
        XCTAssertEqual(copy.recoveryEvents, [])
    }

    func testACopyHoldsOnlyLiveRecordsInCompactedSegments() throws {
        let (fileSystem, store) = try sourceStore()
        try store.writeCopy(toDirectory: "/copy", encryptionKey: nil)
        let names = try fileSystem.contentsOfDirectory("/copy").filter { $0.hasSuffix(".seg") }.sorted()
        let kinds = try names.map { name in
            let bytes = try XCTUnwrap(fileSystem.contents(of: "/copy/\(name)"))
            return try bytes.withUnsafeBytes { try SegmentHeader.decode($0, file: name) }.kind
        }
        XCTAssertEqual(kinds.last, .log)
        XCTAssertEqual(Set(kinds.dropLast()), [.compacted])
        let copy = try openStore(fileSystem, directory: "/copy")
        XCTAssertEqual(copy.statistics().records, store.snapshot().count)
        try commitSecrets(1, to: copy, from: 9000)
        XCTAssertEqual(copy.sequence, store.sequence + 1, "the copy numbers on from the snapshot")
    }

    func testACopyCanEncryptDecryptOrChangeTheKey() throws {
        let plans: [(from: [UInt8]?, to: [UInt8]?)] = [(nil, testKey(1)), (testKey(1), nil), (testKey(1), testKey(2))]
        for (position, plan) in plans.enumerated() {
            let (fileSystem, store) = try sourceStore(key: plan.from)
            let expected = try contents(of: store.snapshot())
            let path = "/copy\(position)"
            try store.writeCopy(toDirectory: path, encryptionKey: plan.to)
            XCTAssertEqual(try contents(of: openStore(fileSystem, directory: path, readOnly: true, encryptionKey: plan.to).snapshot()), expected)
            let wrong: [UInt8]? = plan.to == nil ? testKey(5) : (plan.to == testKey(1) ? nil : testKey(1))
            assertThrows(.invalidKey, mentioning: "key") { try openStore(fileSystem, directory: path, readOnly: true, encryptionKey: wrong) }
            let files = try fileSystem.contentsOfDirectory(path).compactMap { fileSystem.contents(of: "\(path)/\($0)") }
            XCTAssertEqual(files.contains { occurs(Array("XYZZY".utf8), in: $0) }, plan.to == nil, "plaintext in \(plan)")
        }
    }

    func testCopyingOverAStoreFailsAndChangesNothing() throws {
        let (fileSystem, store) = try sourceStore()
        let other = try openStore(fileSystem, directory: "/other")
        try commitSecrets(3, to: other, from: 700)
        try other.close()
        let before = try fileSystem.contentsOfDirectory("/other").sorted().map { fileSystem.contents(of: "/other/\($0)") }
        let error = assertThrows(.invalidArgument, mentioning: "already holds a Strata store") {
            try store.writeCopy(toDirectory: "/other", encryptionKey: nil)
        }
        XCTAssertEqual(error?.file, "/other/000001.seg")
        assertThrows(.invalidArgument, mentioning: "already holds") { try store.writeCopy(toDirectory: "/db", encryptionKey: nil) }
        let after = try fileSystem.contentsOfDirectory("/other").sorted().map { fileSystem.contents(of: "/other/\($0)") }
        XCTAssertEqual(after, before)
        XCTAssertEqual(try contents(of: openStore(fileSystem, directory: "/other").snapshot()), secrets(3, from: 700))
    }

    func testABadKeyForTheCopyWritesNothing() throws {
        let (fileSystem, store) = try sourceStore()
        assertThrows(.invalidKey, mentioning: "must be 64 bytes") { try store.writeCopy(toDirectory: "/copy", encryptionKey: [1, 2, 3]) }
        XCTAssertFalse(fileSystem.exists("/copy"))
    }

    func testACrashAtAnySyncOfTheCopyLeavesTheWholeCopyOrNothingThatOpens() throws {
        let (fileSystem, store) = try sourceStore(key: testKey())
        let expected = try contents(of: store.snapshot())
        let first = fileSystem.syncCount + 1
        try store.writeCopy(toDirectory: "/probe", encryptionKey: testKey(2))
        let syncs = fileSystem.syncCount + 1 - first
        var whole = 0
        for point in 0..<syncs {
            let target = "/copy\(point)"
            let crashAt = fileSystem.syncCount + 1 + point
            let images = Locked<[MemoryFileSystem]>([])
            fileSystem.setSyncHook { [unowned fileSystem] event in
                guard event.number == crashAt else { return }
                images.withLock { images in for (_, policy) in crashPolicies(at: point) { images.append(fileSystem.crashImage(policy)) } }
                throw SimulatedCrash()
            }
            XCTAssertThrowsError(try store.writeCopy(toDirectory: target, encryptionKey: testKey(2)))
            fileSystem.setSyncHook(nil)
            for image in images.withLock({ $0 }) {
                do {
                    let copy = try openStore(image, directory: target, readOnly: true, encryptionKey: testKey(2))
                    XCTAssertEqual(try contents(of: copy.snapshot()), expected, "a partial copy opened at sync \(point)")
                    whole += 1
                } catch let error as StrataError {
                    XCTAssertTrue([.notFound, .corruption].contains(error.code), "sync \(point): \(error)")
                }
            }
        }
        XCTAssertGreaterThan(whole, 0, "a crash at the last sync keeps a whole copy in some image")
    }
}

/// A copy goes to the file system it is given.
final class WriteCopyFileSystemTests: XCTestCase {
    func testACopyOfAStoreInMemoryGoesToTheFileSystemItIsGiven() throws {
        let memory = MemoryFileSystem()
        let store = try openStore(memory)
        try commitSecrets(20, to: store)
        let disk = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("strata-copy-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: disk) }
        try store.writeCopy(toDirectory: disk.path, on: PosixFileSystem(), encryptionKey: nil)
        XCTAssertFalse(memory.exists(disk.path))
        XCTAssertEqual(try contents(of: openStore(PosixFileSystem(), directory: disk.path, readOnly: true).snapshot()), secrets(20))
    }
}

/// A copy that fails at any step leaves nothing it created, so it can be retried.
final class WriteCopyFailureTests: XCTestCase {
    private static let operations: [FaultInjectingFileSystem.Fault.Operation] = [.open, .write, .sync, .syncDirectory, .rename]

    func testAFailureAtAnyStepOfTheCopyRemovesWhatItCreatedAndARetrySucceeds() throws {
        let memory = MemoryFileSystem()
        let faults = FaultInjectingFileSystem(wrapping: memory)
        let store = try openStore(faults, openWithHints: true)
        try commitSecrets(120, to: store)
        try commitSecrets(30, to: store)
        let expected = try contents(of: store.snapshot())
        for persistent in [false, true] {
            for operation in Self.operations {
                var step = 0
                while step < 1000 {
                    let target = "/copy-\(operation)-\(persistent)-\(step)"
                    faults.inject(.fail(operation, pathContains: target, skip: step, times: persistent ? nil : 1))
                    let failed: Bool
                    do {
                        try store.writeCopy(toDirectory: target, encryptionKey: nil)
                        failed = false
                    } catch {
                        failed = true
                    }
                    faults.clearFaults()
                    // A copy that did not fail has fewer steps of this kind: all were tried.
                    guard failed else { break }
                    let what = "\(persistent ? "every" : "one") \(operation) from #\(step)"
                    XCTAssertEqual(try memory.contentsOfDirectory(target), [], "left behind after \(what) failed")
                    try store.writeCopy(toDirectory: target, encryptionKey: nil)
                    XCTAssertEqual(try contents(of: openStore(memory, directory: target, readOnly: true).snapshot()), expected, what)
                    step += 1
                }
                XCTAssertGreaterThan(step, 0, "a copy makes no \(operation)")
                XCTAssertLessThan(step, 1000)
            }
        }
    }
}
