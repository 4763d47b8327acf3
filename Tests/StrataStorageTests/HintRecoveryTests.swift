import XCTest
@_spi(Testing) @testable import StrataStorage

/// Open from hint files (Engine/Recovery/Recovery+Hint.swift): the same index as a scan, and a scan with
/// a `.hintIgnored` event whenever a hint is missing, damaged or does not match its segment.
final class HintRecoveryTests: XCTestCase {
    // MARK: - Helpers

    typealias IndexImage = [Keyspace: [StorageKey: RecordLocation]]

    /// What a read-only recovery of `fileSystem` gives: the index with every location, the last
    /// sequence, the tallies and the events.
    func recover(_ fileSystem: any FileSystem) throws -> (
        index: IndexImage, last: UInt64, tallies: [UInt32: SegmentTally], events: [RecoveryEvent], keys: Int, liveBytes: Int
    ) {
        var options = Store.Options()
        options.fileSystem = fileSystem
        options.readOnly = true
        options.openWithHints = true
        let result = try Recovery(directory: "/db", options: options, key: nil, remover: nil).run()
        var image: IndexImage = [:]
        for (keyspace, keys) in result.index.keyspaces {
            for (key, location) in keys { image[keyspace, default: [:]][key] = location }
        }
        XCTAssertNoThrow(try result.index.keyspaces.values.forEach { try $0.checkInvariants() })
        return (image, result.lastSequence, result.tallies, result.events, result.index.count, result.index.liveBytes)
    }

    func hintPaths(_ fileSystem: MemoryFileSystem) throws -> [String] {
        try fileSystem.contentsOfDirectory("/db").filter { $0.hasSuffix(".hint") }.sorted().map { "/db/" + $0 }
    }

    /// A copy of `fileSystem` with no hint files.
    func withoutHints(_ fileSystem: MemoryFileSystem) throws -> MemoryFileSystem {
        let copy = fileSystem.crashImage(.keepAll)
        for path in try hintPaths(copy) { try copy.removeFile(path) }
        return copy
    }

    /// A closed store after `commits` commits of a workload with deletes and overwrites over
    /// several rolls, compacted after `compactAt` commits when given.
    func closedStore(commits: Int, seed: UInt64, compactAt: Int? = nil) throws -> (MemoryFileSystem, Contents) {
        let fileSystem = MemoryFileSystem()
        let store = try openStore(fileSystem, openWithHints: true)
        var model: Contents = [:]
        for (i, batch) in makeWorkload(commits: commits, seed: seed).enumerated() {
            try store.commit(batch)
            apply(batch, to: &model)
            if i == compactAt { _ = try store.compact() }
        }
        try store.close()
        return (fileSystem, model)
    }

    func assertHintedEqualsScanned(_ fileSystem: MemoryFileSystem, file: StaticString = #filePath, line: UInt = #line) throws {
        let hinted = try recover(fileSystem)
        let scanned = try recover(try withoutHints(fileSystem))
        XCTAssertEqual(hinted.index, scanned.index, file: file, line: line)
        XCTAssertEqual(hinted.last, scanned.last, file: file, line: line)
        XCTAssertEqual(hinted.tallies, scanned.tallies, file: file, line: line)
        XCTAssertEqual(hinted.keys, scanned.keys, file: file, line: line)
        XCTAssertEqual(hinted.liveBytes, scanned.liveBytes, file: file, line: line)
        XCTAssertEqual(hinted.events.filter { $0.kind == .hintIgnored }, [], file: file, line: line)
        XCTAssertGreaterThan(scanned.events.filter { $0.kind == .hintIgnored }.count, 0, file: file, line: line)
    }

    // MARK: - Writing

    func testAStoreThatDoesNotOpenWithHintsWritesNone() throws {
        let fileSystem = MemoryFileSystem()
        let store = try openStore(fileSystem)
        for batch in makeWorkload(commits: 200, seed: 3) { try store.commit(batch) }
        _ = try store.compact()
        try store.writeCopy(toDirectory: "/copy", encryptionKey: nil)
        try store.close()
        XCTAssertGreaterThan(try XCTUnwrap(Manifest.read(in: "/db", fileSystem: fileSystem)).segments.count, 2)
        XCTAssertEqual(try hintPaths(fileSystem), [])
        XCTAssertEqual(try fileSystem.contentsOfDirectory("/copy").filter { $0.hasSuffix(".hint") }, [])
    }

    func testARollWritesAHintForEverySealedSegmentAndNoneForTheActiveOne() throws {
        let (fileSystem, _) = try closedStore(commits: 200, seed: 1)
        let listed = try XCTUnwrap(Manifest.read(in: "/db", fileSystem: fileSystem)).segments
        XCTAssertGreaterThan(listed.count, 3)
        XCTAssertEqual(try hintPaths(fileSystem), listed.dropLast().map { "/db/" + HintFile.name(for: $0) })
    }

    func testCompactionWritesHintsForItsOutputAndRemovesThoseOfTheSegmentsItReplaced() throws {
        let (fileSystem, _) = try closedStore(commits: 200, seed: 2, compactAt: 150)
        let listed = try XCTUnwrap(Manifest.read(in: "/db", fileSystem: fileSystem)).segments
        XCTAssertEqual(try hintPaths(fileSystem), listed.dropLast().map { "/db/" + HintFile.name(for: $0) }.sorted())
        let hints = try hintPaths(fileSystem).map { path in
            try XCTUnwrap(fileSystem.contents(of: path)).withUnsafeBytes { try HintFile.decode($0, file: path) }
        }
        XCTAssertTrue(hints.contains { $0.kind == .compacted })
    }

    func testWriteCopyWritesAHintForEveryCompactedSegmentItWrites() throws {
        let (fileSystem, model) = try closedStore(commits: 300, seed: 9)
        let store = try openStore(fileSystem, openWithHints: true)
        try store.writeCopy(toDirectory: "/copy", encryptionKey: nil)
        try store.close()
        let listed = try XCTUnwrap(Manifest.read(in: "/copy", fileSystem: fileSystem)).segments
        let hints = try fileSystem.contentsOfDirectory("/copy").filter { $0.hasSuffix(".hint") }.sorted()
        XCTAssertGreaterThan(listed.count, 2)
        XCTAssertEqual(hints, listed.dropLast().map(HintFile.name(for:)).sorted())
        let copy = try openStore(fileSystem, directory: "/copy", readOnly: true, openWithHints: true)
        XCTAssertEqual(copy.recoveryEvents, [])
        XCTAssertEqual(try contents(of: copy.snapshot()), model)
    }

    // MARK: - Open with hints equals open by scan

    func testOpenWithHintsEqualsOpenByScanOverRandomWorkloads() throws {
        for seed in UInt64(1)...8 {
            let compactAt: Int? = seed % 2 == 0 ? Int(seed) * 20 : nil
            let (fileSystem, model) = try closedStore(commits: 300, seed: seed, compactAt: compactAt)
            try assertHintedEqualsScanned(fileSystem)
            let store = try openStore(fileSystem, readOnly: true, openWithHints: true)
            XCTAssertEqual(try contents(of: store.snapshot()), model, "seed \(seed)")
        }
    }

    func testKeysOfEveryLengthOverManySegmentsOpenFromHintsAsByScan() throws {
        var random = SplitMix64(seed: 0x4117_0001)
        let pool = KeyTreeTests.keyPool(size: 600, &random)
        let fileSystem = MemoryFileSystem()
        let store = try openStore(fileSystem, openWithHints: true)
        var model: Contents = [:]
        for round in 0..<40 {
            var batch = WriteBatch()
            // Early rounds write many keys; later ones few, so that later hints are merged into
            // large keyspaces and also applied key by key.
            for _ in 0..<(round < 8 ? 60 : 4) {
                let key = pool.randomElement(using: &random)!, keyspace = Keyspace(UInt32(round % 3 + 1))
                if random.next() % 4 == 0 {
                    batch.delete(key, in: keyspace)
                    model[keyspace]?[key] = nil
                } else {
                    let value = Array(repeating: UInt8(round), count: Int(random.next() % 90) + 1)
                    batch.put(value, forKey: key, in: keyspace)
                    model[keyspace, default: [:]][key] = value
                }
            }
            try store.commit(batch)
        }
        try store.close()
        XCTAssertGreaterThan(try hintPaths(fileSystem).count, 5)
        try assertHintedEqualsScanned(fileSystem)
        let reopened = try openStore(fileSystem, readOnly: true, openWithHints: true)
        XCTAssertEqual(try contents(of: reopened.snapshot()), model.filter { !$0.value.isEmpty })
    }

    func testKeysThatGrowFromSegmentToSegmentOpenFromHintsAsByScan() throws {
        let fileSystem = MemoryFileSystem()
        let store = try openStore(fileSystem, openWithHints: true)
        var model: Contents = [:]
        for i in 0..<400 {
            var batch = WriteBatch()
            // Ascending keys (appended to the keyspace's tree), an overwrite and a delete of an
            // early key now and then (merged), in two keyspaces.
            let keyspace = Keyspace(UInt32(i % 2 + 1))
            batch.put(Array(repeating: UInt8(i % 251), count: 40), forKey: StorageKey(UInt64(1_000 + i)), in: keyspace)
            model[keyspace, default: [:]][StorageKey(UInt64(1_000 + i))] = Array(repeating: UInt8(i % 251), count: 40)
            if i % 150 == 0 {
                batch.delete(StorageKey(UInt64(1_000 + i / 2)), in: keyspace)
                model[keyspace]?[StorageKey(UInt64(1_000 + i / 2))] = nil
            }
            try store.commit(batch)
        }
        try store.close()
        XCTAssertGreaterThan(try hintPaths(fileSystem).count, 3)
        try assertHintedEqualsScanned(fileSystem)
        let reopened = try openStore(fileSystem, readOnly: true, openWithHints: true)
        XCTAssertEqual(try contents(of: reopened.snapshot()), model)
    }

    func testACloseWithHintsSealsALargeActiveSegmentSoTheNextOpenScansNothing() throws {
        let fileSystem = MemoryFileSystem()
        var store = try openStore(fileSystem, segmentSize: 64 << 10, openWithHints: true)
        var batch = WriteBatch()
        for i in 0..<100 { batch.put(Array(repeating: 1, count: 100), forKey: StorageKey(UInt64(i)), in: Keyspace(1)) }
        try store.commit(batch)  // 10 KiB: more than an eighth of the segment size
        try store.close()
        XCTAssertEqual(try hintPaths(fileSystem), ["/db/000001.hint"])
        store = try openStore(fileSystem, segmentSize: 64 << 10, openWithHints: true)
        XCTAssertEqual(store.recoveryEvents, [])
        XCTAssertEqual(store.statistics().keys, 100)
        try store.commit(batch)  // overwrites: the new active segment holds 10 KiB again
        try store.close()
        XCTAssertEqual(try hintPaths(fileSystem), ["/db/000001.hint", "/db/000002.hint"])
        try assertHintedEqualsScanned(fileSystem)
    }

    func testACloseSealsNothingWithoutHintsOrForASmallActiveSegment() throws {
        let fileSystem = MemoryFileSystem()
        var batch = WriteBatch()
        batch.put(Array(repeating: 1, count: 100), forKey: StorageKey(UInt64(1)), in: Keyspace(1))
        var store = try openStore(fileSystem, segmentSize: 64 << 10, openWithHints: true)
        try store.commit(batch)  // far less than an eighth of the segment size
        try store.close()
        store = try openStore(fileSystem, segmentSize: 4096)
        for _ in 0..<6 { try store.commit(batch) }  // more than an eighth, but no hints
        try store.close()
        XCTAssertEqual(try hintPaths(fileSystem), [])
        XCTAssertEqual(try XCTUnwrap(Manifest.read(in: "/db", fileSystem: fileSystem)).segments, [1])
    }

    func testADeleteInALaterSegmentHidesAPutWhoseSegmentHasAHint() throws {
        let fileSystem = MemoryFileSystem()
        let store = try openStore(fileSystem, openWithHints: true)
        var batch = WriteBatch()
        batch.put([1, 2, 3], forKey: StorageKey(UInt64(999)), in: Keyspace(9))
        try store.commit(batch)
        for i in 0..<60 {
            var filler = WriteBatch()
            filler.put(Array(repeating: 7, count: 200), forKey: StorageKey(UInt64(i)), in: Keyspace(1))
            try store.commit(filler)
        }
        var delete = WriteBatch()
        delete.delete(StorageKey(UInt64(999)), in: Keyspace(9))
        try store.commit(delete)
        for i in 0..<60 {
            var filler = WriteBatch()
            filler.put(Array(repeating: 8, count: 200), forKey: StorageKey(UInt64(i)), in: Keyspace(1))
            try store.commit(filler)
        }
        try store.close()
        try assertHintedEqualsScanned(fileSystem)
        XCTAssertNil(try recover(fileSystem).index[Keyspace(9)]?[StorageKey(UInt64(999))])
    }

    // MARK: - Crashes

    /// A crash at every sync point of a workload that rolls (so every roll's hint write and
    /// hint sync is a crash point): each crash image opens from its hints exactly as by scan.
    func testCrashAtEverySyncPointOpensFromHintsAsByScan() throws {
        let batches = makeWorkload(commits: 80, seed: 7)
        func run(_ fileSystem: MemoryFileSystem) {
            guard let store = try? openStore(fileSystem, openWithHints: true) else { return }
            for batch in batches where (try? store.commit(batch)) != nil {}
            try? store.close()
        }
        let (clean, _) = crashingFileSystem(at: nil)
        run(clean)
        let syncs = clean.syncCount
        XCTAssertGreaterThan(try hintPaths(clean).count, 3)
        var hinted = 0
        for point in 1...syncs {
            let (fileSystem, images) = crashingFileSystem(at: point)
            run(fileSystem)
            for (policy, image) in images.withLock({ $0 }) {
                let scanned = Result { try recover(try withoutHints(image)) }
                let withHints = Result { try recover(image) }
                switch (scanned, withHints) {
                case (.success(let scanned), .success(let withHints)):
                    XCTAssertEqual(withHints.index, scanned.index, "sync point \(point)/\(syncs), \(policy)")
                    XCTAssertEqual(withHints.last, scanned.last, "sync point \(point)/\(syncs), \(policy)")
                    if withHints.events.filter({ $0.kind == .hintIgnored }).count
                        < scanned.events.filter({ $0.kind == .hintIgnored }).count { hinted += 1 }
                case (.failure(let scanned), .failure(let withHints)):
                    XCTAssertEqual((scanned as? StrataError)?.code, (withHints as? StrataError)?.code)
                default:
                    XCTFail("sync point \(point)/\(syncs), \(policy): by scan \(scanned), with hints \(withHints)")
                }
            }
        }
        XCTAssertGreaterThan(hinted, syncs, "crash images should mostly open from hints")
    }

    // MARK: - Fallbacks

    func assertFallsBack(
        _ damage: (MemoryFileSystem, String) throws -> Void, _ fragment: String,
        file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let (fileSystem, _) = try closedStore(commits: 200, seed: 3)
        let scanned = try recover(try withoutHints(fileSystem))
        let target = try hintPaths(fileSystem)[1]
        try damage(fileSystem, target)
        let recovered = try recover(fileSystem)
        XCTAssertEqual(recovered.index, scanned.index, file: file, line: line)
        XCTAssertEqual(recovered.last, scanned.last, file: file, line: line)
        let ignored = recovered.events.filter { $0.kind == .hintIgnored }
        XCTAssertEqual(ignored.map(\.file), [target], file: file, line: line)
        XCTAssertTrue(ignored.first?.message.contains(fragment) == true, "\(ignored)", file: file, line: line)
    }

    func rewrite(_ fileSystem: MemoryFileSystem, _ path: String, _ edit: (inout [UInt8]) -> Void) throws {
        var bytes = try XCTUnwrap(fileSystem.contents(of: path))
        edit(&bytes)
        try fileSystem.removeFile(path)
        let handle = try fileSystem.open(path, mode: .createNew)
        try handle.write(bytes, at: 0)
        try handle.sync()
        try handle.close()
    }

    func testAMissingHintIsScanned() throws {
        try assertFallsBack({ fileSystem, path in try fileSystem.removeFile(path) }, "missing")
    }

    func testADamagedHintIsScanned() throws {
        try assertFallsBack({ try self.rewrite($0, $1) { $0[70] ^= 0x01 } }, "checksum mismatch")
    }

    func testATruncatedHintIsScanned() throws {
        try assertFallsBack({ try self.rewrite($0, $1) { $0.removeLast(9) } }, "checksum mismatch")
    }

    func testAHintOfAnotherSegmentIsScanned() throws {
        try assertFallsBack({ fileSystem, path in
            let other = try self.hintPaths(fileSystem)[0]
            let bytes = try XCTUnwrap(fileSystem.contents(of: other))
            try self.rewrite(fileSystem, path) { $0 = bytes }
        }, "another segment")
    }

    func testAHintWithAStaleSaltIsScanned() throws {
        try assertFallsBack({ try self.rewrite($0, $1) { bytes in
            bytes[16] ^= 0xFF
            var body = Array(bytes.dropLast(4))
            let crc = body.withUnsafeBytes { CRC32C.mask(CRC32C.checksum($0)) }
            body.appendLittleEndian(crc)
            bytes = body
        } }, "another segment")
    }

    func testWithHintsDamageInASealedSegmentIsCorruptionWhenTheRecordIsRead() throws {
        let (fileSystem, _) = try closedStore(commits: 200, seed: 6)
        let store = try openStore(fileSystem, readOnly: true, openWithHints: true)
        let snapshot = store.snapshot()
        let newest = try XCTUnwrap(Manifest.read(in: "/db", fileSystem: fileSystem)).segments.last
        let sealed = snapshot.keyspaces.flatMap { keyspace in snapshot.keys(in: keyspace).map { (keyspace, $0) } }
            .first { snapshot.index.location(of: $0.1, in: $0.0)?.segment != newest }
        let (keyspace, key) = try XCTUnwrap(sealed, "no key lives in a sealed segment")
        let location = try XCTUnwrap(snapshot.index.location(of: key, in: keyspace))
        let path = "/db/" + SegmentFile.name(for: location.segment)
        fileSystem.corrupt(path: path, at: Int(location.offset) + 20, with: [0xA5 ^ (fileSystem.contents(of: path)![Int(location.offset) + 20])])
        let reopened = try openStore(fileSystem, readOnly: true, openWithHints: true)
        XCTAssertFalse(reopened.recoveryEvents.contains { $0.kind == .hintIgnored })
        XCTAssertThrowsError(try reopened.snapshot().value(for: key, in: keyspace)) { error in
            XCTAssertEqual((error as? StrataError)?.code, .corruption)
            XCTAssertEqual((error as? StrataError)?.file, path)
            XCTAssertEqual((error as? StrataError)?.offset, Int(location.offset))
        }
        // Without hints the same damage is corruption at open, as before.
        XCTAssertThrowsError(try openStore(fileSystem, readOnly: true)) { error in
            XCTAssertEqual((error as? StrataError)?.code, .corruption)
        }
    }

    // MARK: - Leftovers, encryption

    func testAHintOfTheNewestSegmentIsRemovedAtAWritableOpen() throws {
        let (fileSystem, _) = try closedStore(commits: 200, seed: 4)
        let listed = try XCTUnwrap(Manifest.read(in: "/db", fileSystem: fileSystem)).segments
        let stale = "/db/" + HintFile.name(for: try XCTUnwrap(listed.last))
        let handle = try fileSystem.open(stale, mode: .createNew)
        try handle.write([1, 2, 3], at: 0)
        try handle.close()
        let store = try openStore(fileSystem, openWithHints: true)
        XCTAssertTrue(store.recoveryEvents.contains { $0.kind == .leftoverFileRemoved && $0.file == stale })
        XCTAssertFalse(fileSystem.exists(stale))
        try store.close()
    }

    func testAnEncryptedStoreWritesNoHints() throws {
        let fileSystem = MemoryFileSystem()
        let store = try openStore(fileSystem, encryptionKey: testKey(), openWithHints: true)
        for batch in makeWorkload(commits: 200, seed: 5) { try store.commit(batch) }
        _ = try store.compact()
        try store.close()
        XCTAssertGreaterThan(try XCTUnwrap(Manifest.read(in: "/db", fileSystem: fileSystem)).segments.count, 2)
        XCTAssertEqual(try hintPaths(fileSystem), [])
        let reopened = try openStore(fileSystem, encryptionKey: testKey(), openWithHints: true)
        XCTAssertFalse(reopened.recoveryEvents.contains { $0.kind == .hintIgnored })
        try reopened.close()
    }
}
