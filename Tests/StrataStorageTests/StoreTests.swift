import Foundation
import XCTest
@_spi(Testing) @testable import StrataStorage

final class StoreTests: XCTestCase {
    func testPutGetDeleteAndReopen() throws {
        let fileSystem = MemoryFileSystem()
        let store = try openStore(fileSystem)
        var batch = WriteBatch()
        batch.put(Array("a".utf8), forKey: StorageKey("k1"), in: Keyspace(1))
        batch.put(Array("b".utf8), forKey: StorageKey("k2"), in: Keyspace(1))
        batch.put(Array("c".utf8), forKey: StorageKey("k1"), in: Keyspace(2))
        XCTAssertEqual(try store.commit(batch), 1)
        var second = WriteBatch()
        second.delete(StorageKey("k2"), in: Keyspace(1))
        second.put(Array("a2".utf8), forKey: StorageKey("k1"), in: Keyspace(1))
        XCTAssertEqual(try store.commit(second), 2)
        let expected: Contents = [
            Keyspace(1): [StorageKey("k1"): Array("a2".utf8)],
            Keyspace(2): [StorageKey("k1"): Array("c".utf8)],
        ]
        XCTAssertEqual(try contents(of: store.snapshot()), expected)
        XCTAssertNil(try store.snapshot().value(for: StorageKey("k2"), in: Keyspace(1)))
        try store.close()

        let reopened = try openStore(fileSystem)
        XCTAssertEqual(try contents(of: reopened.snapshot()), expected)
        XCTAssertEqual(reopened.sequence, 2)
        XCTAssertEqual(reopened.recoveryEvents, [])
        XCTAssertEqual(try reopened.commit(batch), 3, "sequence numbering continues after reopen")
    }

    func testKeyspaceScansAndPrefixes() throws {
        let store = try openStore(MemoryFileSystem())
        var batch = WriteBatch()
        for i in 0..<30 { batch.put([UInt8(i)], forKey: StorageKey("user/\(i)"), in: Keyspace(5)) }
        for i in 0..<7 { batch.put([UInt8(i)], forKey: StorageKey("order/\(i)"), in: Keyspace(5)) }
        batch.put([1], forKey: StorageKey("user/x"), in: Keyspace(6))
        try store.commit(batch)
        let snapshot = store.snapshot()
        XCTAssertEqual(snapshot.count(in: Keyspace(5)), 37)
        XCTAssertEqual(snapshot.count(in: Keyspace(6)), 1)
        XCTAssertEqual(snapshot.count(in: Keyspace(7)), 0)
        XCTAssertEqual(Set(snapshot.keys(in: Keyspace(5), withPrefix: Array("order/".utf8))),
                       Set((0..<7).map { StorageKey("order/\($0)") }))
        XCTAssertEqual(Set(snapshot.keyspaces), [Keyspace(5), Keyspace(6)])
        var seen = 0
        try snapshot.forEach(in: Keyspace(5)) { _, _ in
            seen += 1
            return seen < 10
        }
        XCTAssertEqual(seen, 10, "forEach stops when the body returns false")
    }

    func testLongAndShortKeys() throws {
        let fileSystem = MemoryFileSystem()
        let store = try openStore(fileSystem)
        let keys = [0, 1, 14, 15, 16, 17, 100, 65_535].map { StorageKey(Array(repeating: UInt8(ascii: "k"), count: $0)) }
        var batch = WriteBatch()
        for (i, key) in keys.enumerated() { batch.put([UInt8(i)], forKey: key, in: Keyspace(1)) }
        try store.commit(batch)
        try store.close()
        let reopened = try openStore(fileSystem)
        for (i, key) in keys.enumerated() {
            XCTAssertEqual(try reopened.snapshot().value(for: key, in: Keyspace(1)), [UInt8(i)], "key of \(key.count) bytes")
        }
        var tooLong = WriteBatch()
        tooLong.put([1], forKey: StorageKey(Array(repeating: 1, count: 65_536)), in: Keyspace(1))
        XCTAssertThrowsError(try reopened.commit(tooLong)) { error in
            XCTAssertEqual((error as? StrataError)?.code, .invalidArgument)
        }
        XCTAssertEqual(reopened.sequence, 1)
    }

    func testSegmentsRollAndSealedSegmentsStayUnchanged() throws {
        let fileSystem = MemoryFileSystem()
        let store = try openStore(fileSystem, segmentSize: 4096)
        var model: Contents = [:]
        var sealed: [String: [UInt8]] = [:]
        for i in 0..<200 {
            var batch = WriteBatch()
            batch.put(Array(repeating: UInt8(i % 251), count: 100), forKey: StorageKey(UInt64(i % 37)), in: Keyspace(1))
            if i % 5 == 0 { batch.delete(StorageKey(UInt64((i + 3) % 37)), in: Keyspace(1)) }
            try store.commit(batch)
            apply(batch, to: &model)
            // Every segment but the newest is sealed: its bytes never change again.
            let names = try fileSystem.contentsOfDirectory("/db").filter { $0.hasSuffix(".seg") }.sorted()
            for name in names.dropLast() {
                let bytes = fileSystem.contents(of: "/db/" + name)!
                if let earlier = sealed[name] { XCTAssertEqual(earlier, bytes, "sealed \(name) changed") }
                sealed[name] = bytes
                XCTAssertLessThanOrEqual(bytes.count, 4096)
            }
        }
        XCTAssertGreaterThan(store.statistics().segments, 5)
        XCTAssertEqual(try contents(of: store.snapshot()), model)
        try store.close()
        XCTAssertEqual(try contents(of: openStore(fileSystem, segmentSize: 4096).snapshot()), model)
    }

    func testCompressedValuesRoundTripAndShrink() throws {
        let fileSystem = MemoryFileSystem()
        let store = try openStore(fileSystem, segmentSize: 1 << 20, compressionThreshold: 512)
        let compressible = Array(String(repeating: "strata ", count: 2000).utf8)
        var random = seededGenerator(3)
        let incompressible = (0..<5000).map { _ in UInt8.random(in: 0...255, using: &random) }
        var batch = WriteBatch()
        batch.put(compressible, forKey: StorageKey("text"), in: Keyspace(1))
        batch.put(incompressible, forKey: StorageKey("noise"), in: Keyspace(1))
        try store.commit(batch)
        let snapshot = store.snapshot()
        let textRecord = snapshot.index.location(of: StorageKey("text"), in: Keyspace(1))!
        XCTAssertLessThan(Int(textRecord.length), compressible.count / 10, "compressible value was not compressed")
        let noiseRecord = snapshot.index.location(of: StorageKey("noise"), in: Keyspace(1))!
        XCTAssertGreaterThan(Int(noiseRecord.length), incompressible.count, "incompressible value is stored raw")
        XCTAssertEqual(try snapshot.value(for: StorageKey("text"), in: Keyspace(1)), compressible)
        XCTAssertEqual(try snapshot.withValue(for: StorageKey("text"), in: Keyspace(1)) { Array($0) }, compressible)
        try store.close()
        XCTAssertEqual(try openStore(fileSystem).snapshot().value(for: StorageKey("text"), in: Keyspace(1)), compressible)
    }

    func testSnapshotKeepsItsVersion() throws {
        let store = try openStore(MemoryFileSystem())
        var batch = WriteBatch()
        batch.put([1], forKey: StorageKey("k"), in: Keyspace(1))
        try store.commit(batch)
        let first = store.snapshot()
        var change = WriteBatch()
        change.put([2], forKey: StorageKey("k"), in: Keyspace(1))
        change.put([3], forKey: StorageKey("new"), in: Keyspace(1))
        try store.commit(change)
        var removal = WriteBatch()
        removal.delete(StorageKey("k"), in: Keyspace(1))
        try store.commit(removal)
        XCTAssertEqual(first.sequence, 1)
        XCTAssertEqual(try first.value(for: StorageKey("k"), in: Keyspace(1)), [1])
        XCTAssertFalse(first.contains(StorageKey("new"), in: Keyspace(1)))
        let latest = store.snapshot()
        XCTAssertEqual(latest.sequence, 3)
        XCTAssertNil(try latest.value(for: StorageKey("k"), in: Keyspace(1)))
        XCTAssertEqual(try latest.value(for: StorageKey("new"), in: Keyspace(1)), [3])
    }

    func testStatisticsCountLiveAndDeadBytes() throws {
        let store = try openStore(MemoryFileSystem(), segmentSize: 1 << 20)
        var batch = WriteBatch()
        batch.put(Array(repeating: 1, count: 100), forKey: StorageKey("a"), in: Keyspace(1))
        try store.commit(batch)
        let one = store.statistics()
        XCTAssertEqual(one.keys, 1)
        XCTAssertEqual(one.records, 2, "a put and a commit")
        XCTAssertEqual(one.liveBytes, RecordFormat.headerSize + RecordFormat.keyPrefixSize + 1 + 100)
        XCTAssertEqual(one.totalBytes, SegmentHeader.size + one.liveBytes + RecordFormat.commitRecordSize)
        try store.commit(batch)  // overwrite: the first put becomes dead
        let two = store.statistics()
        XCTAssertEqual(two.keys, 1)
        XCTAssertEqual(two.liveBytes, one.liveBytes)
        XCTAssertEqual(two.deadBytes, one.deadBytes + one.liveBytes + RecordFormat.commitRecordSize)
    }

    func testReadOnlyOpenRefusesWritesAndChangesNothing() throws {
        let fileSystem = MemoryFileSystem()
        let store = try openStore(fileSystem)
        var batch = WriteBatch()
        batch.put([1], forKey: StorageKey("k"), in: Keyspace(1))
        try store.commit(batch)
        // A read-only open needs no lock: it works while the writer holds it.
        let reader = try openStore(fileSystem, readOnly: true)
        XCTAssertEqual(try reader.snapshot().value(for: StorageKey("k"), in: Keyspace(1)), [1])
        XCTAssertThrowsError(try reader.commit(batch)) { error in
            XCTAssertEqual((error as? StrataError)?.code, .readOnly)
        }
        XCTAssertThrowsError(try openStore(MemoryFileSystem(), readOnly: true)) { error in
            XCTAssertEqual((error as? StrataError)?.code, .notFound)
        }
    }

    func testInvalidOptionsAreRefused() {
        var options = Store.Options()
        options.fileSystem = MemoryFileSystem()
        options.segmentSize = 100
        XCTAssertThrowsError(try Store(directory: "/db", options: options)) { error in
            XCTAssertEqual((error as? StrataError)?.code, .invalidArgument)
            XCTAssertTrue((error as? StrataError)?.message.contains("segmentSize") ?? false)
        }
        options.segmentSize = 1 << 20
        options.salvage = true
        XCTAssertThrowsError(try Store(directory: "/db", options: options)) { error in
            XCTAssertEqual((error as? StrataError)?.code, .invalidArgument)
        }
    }

    func testClosedStoreRefusesCommits() throws {
        let store = try openStore(MemoryFileSystem())
        try store.close()
        var batch = WriteBatch()
        batch.put([1], forKey: StorageKey("k"), in: Keyspace(1))
        XCTAssertThrowsError(try store.commit(batch)) { error in
            XCTAssertEqual((error as? StrataError)?.code, .closed)
        }
        try store.close()  // twice is harmless
    }

    func testMissingManifestWithDataIsCorruptionNotAWipe() throws {
        let fileSystem = MemoryFileSystem()
        let store = try openStore(fileSystem)
        var batch = WriteBatch()
        batch.put([1], forKey: StorageKey("k"), in: Keyspace(1))
        try store.commit(batch)
        try store.close()
        try fileSystem.removeFile("/db/MANIFEST")
        XCTAssertThrowsError(try openStore(fileSystem)) { error in
            XCTAssertEqual((error as? StrataError)?.code, .corruption)
        }
        XCTAssertNotNil(fileSystem.contents(of: "/db/000001.seg"), "data was deleted")
    }

    func testLeftoverFilesAreRemoved() throws {
        let fileSystem = MemoryFileSystem()
        try openStore(fileSystem).close()
        fileSystem.setContents([1, 2, 3], of: "/db/MANIFEST.tmp")
        fileSystem.setContents(SegmentHeader(segmentNumber: 7, seal: .random()).encoded(), of: "/db/000007.seg")
        let store = try openStore(fileSystem)
        XCTAssertEqual(Set(store.recoveryEvents.map(\.file)), ["/db/MANIFEST.tmp", "/db/000007.seg"])
        XCTAssertEqual(Set(store.recoveryEvents.map(\.kind)), [.leftoverFileRemoved])
        XCTAssertNil(fileSystem.contents(of: "/db/000007.seg"))
        XCTAssertNil(fileSystem.contents(of: "/db/MANIFEST.tmp"))
    }

    func testMissingSegmentIsCorruption() throws {
        let fileSystem = MemoryFileSystem()
        let store = try openStore(fileSystem, segmentSize: 4096)
        for i in 0..<50 {
            var batch = WriteBatch()
            batch.put(Array(repeating: 1, count: 200), forKey: StorageKey(UInt64(i)), in: Keyspace(1))
            try store.commit(batch)
        }
        try store.close()
        try fileSystem.removeFile("/db/000002.seg")
        XCTAssertThrowsError(try openStore(fileSystem, segmentSize: 4096)) { error in
            XCTAssertEqual((error as? StrataError)?.code, .corruption)
            XCTAssertEqual((error as? StrataError)?.file, "/db/000002.seg")
        }
    }

    func testErrorsMatchByPattern() throws {
        let fileSystem = MemoryFileSystem()
        let store = try openStore(fileSystem)
        do {
            _ = try openStore(fileSystem)
            XCTFail("a second writer opened the store")
        } catch StrataError.locked {
            // expected
        }
        try store.close()
        XCTAssertNoThrow(try openStore(fileSystem), "closing released the lock")
    }
}

/// The fuzzers' regression inputs (Fuzz/Regressions) as unit tests: each must open, read or
/// fail as a `StrataError`, losing no committed data.
final class FuzzRegressionTests: XCTestCase {
    func testEmptyManifestIsCorruptionAndDeletesNothing() throws {
        let fileSystem = MemoryFileSystem()
        let store = try openStore(fileSystem)
        var batch = WriteBatch()
        batch.put([1], forKey: StorageKey("k"), in: Keyspace(1))
        try store.commit(batch)
        try store.close()
        fileSystem.setContents(Manifest(segments: [], lastSequence: 0).encoded(), of: "/db/MANIFEST")
        XCTAssertThrowsError(try openStore(fileSystem)) { error in
            XCTAssertEqual((error as? StrataError)?.code, .corruption)
            XCTAssertEqual((error as? StrataError)?.file, "/db/MANIFEST")
        }
        XCTAssertNotNil(fileSystem.contents(of: "/db/000001.seg"), "the segment was deleted")
    }

    func testSequenceFloorNearTheLimitIsCorruptionNotATrap() throws {
        let fileSystem = MemoryFileSystem()
        try openStore(fileSystem).close()
        fileSystem.setContents(Manifest(segments: [1], lastSequence: UInt64.max).encoded(), of: "/db/MANIFEST")
        XCTAssertThrowsError(try openStore(fileSystem, readOnly: true)) { error in
            XCTAssertEqual((error as? StrataError)?.code, .corruption)
        }
    }

    func testRecordSequenceNearTheLimitIsCorruptionNotATrap() throws {
        let fileSystem = MemoryFileSystem()
        try openStore(fileSystem).close()
        let (seal, size) = try sealAndSize(of: "/db/000001.seg", in: fileSystem)
        var records = [UInt8]()
        _ = RecordEncoder.appendDelete(
            to: &records, sequence: UInt64.max - 1, keyspace: Keyspace(1), key: StorageKey("k"), seal: seal, bufferOffset: size)
        _ = RecordEncoder.appendCommit(
            to: &records, sequence: UInt64.max - 1, recordCount: 1, syncedThrough: 64, seal: seal, bufferOffset: size)
        fileSystem.setContents(fileSystem.contents(of: "/db/000001.seg")! + records, of: "/db/000001.seg")
        XCTAssertThrowsError(try openStore(fileSystem)) { error in
            XCTAssertEqual((error as? StrataError)?.code, .corruption)
            XCTAssertTrue((error as? StrataError)?.message.contains("sequence") ?? false)
        }
    }
}

final class SegmentMapTests: XCTestCase {
    func segment(_ number: UInt32) -> SegmentFile {
        let fileSystem = MemoryFileSystem()
        fileSystem.setContents([], of: "/s")
        return SegmentFile(number: number, seal: .unsalted, path: "/s", file: try! fileSystem.open("/s", mode: .readOnly), remover: nil)
    }

    func testDenseAndSparseNumbersBothResolve() {
        var map = SegmentMap()
        for number: UInt32 in [3, 4, 5, 9] { map[number] = segment(number) }
        XCTAssertEqual(map.keys, [3, 4, 5, 9])
        XCTAssertEqual(map[4]?.number, 4)
        XCTAssertNil(map[6])
        XCTAssertNil(map[2])
        // Numbers far apart (a hostile MANIFEST) must not make the map allocate for the gap.
        map[4_000_000_000] = segment(4_000_000_000)
        XCTAssertEqual(map[4_000_000_000]?.number, 4_000_000_000)
        XCTAssertEqual(map[9]?.number, 9)
        XCTAssertEqual(map.removeValue(forKey: 4_000_000_000)?.number, 4_000_000_000)
        XCTAssertEqual(map[5]?.number, 5)
        XCTAssertEqual(map.count, 4)
    }
}
