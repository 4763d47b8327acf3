import XCTest
@_spi(Testing) @testable import StrataStorage

/// Compaction with a trained zstd dictionary: round trips, the rule that decides, and what
/// damage to the dictionary or to the records compressed with it gives.
final class DictionaryCompactionTests: XCTestCase {
    // MARK: - Helpers

    /// A store of `count` small similar values over two keyspaces, compacted with `policy`.
    func compactedStore(
        _ fileSystem: MemoryFileSystem, count: Int = 3000, policy: Store.DictionaryCompression = .automatic
    ) throws -> (Store, Contents) {
        // With hints, so that the compacted segments get them and a reopen may use them.
        let store = try openStore(fileSystem, segmentSize: 64 << 10, openWithHints: true, dictionaryCompression: policy)
        var model: Contents = [:]
        for start in stride(from: 0, to: count, by: 10) {
            var batch = WriteBatch()
            for id in start..<min(count, start + 10) {
                batch.put(similarValue(id: UInt64(id), version: id * 7), forKey: StorageKey(UInt64(id)), in: Keyspace(UInt32(1 + id % 2)))
            }
            try store.commit(batch)
            apply(batch, to: &model)
        }
        XCTAssertTrue(try store.compact().didCompact)
        return (store, model)
    }

    /// The listed segments whose header names a dictionary, with their bytes and header.
    func dictionarySegments(_ fileSystem: MemoryFileSystem) throws -> [(path: String, bytes: [UInt8], header: SegmentHeader)] {
        let listed = try XCTUnwrap(Manifest.read(in: "/db", fileSystem: fileSystem)).segments
        return try listed.compactMap { number in
            let path = "/db/" + SegmentFile.name(for: number)
            let bytes = try XCTUnwrap(fileSystem.contents(of: path))
            let header = try bytes.withUnsafeBytes { try SegmentHeader.decode($0, file: path) }
            return header.dictionaryID == 0 ? nil : (path, bytes, header)
        }
    }

    /// The offsets of the puts flagged dictionary-compressed in a segment's bytes.
    func dictionaryRecordOffsets(_ bytes: [UInt8], header: SegmentHeader) -> [Int] {
        var offsets: [Int] = []
        var offset = SegmentDictionary.offset
        while offset + RecordFormat.headerSize <= bytes.count {
            let length = bytes.withUnsafeBytes { Int($0.loadLittleEndian(at: offset + 4, as: UInt32.self)) }
            if bytes[offset + 8] == RecordKind.put.rawValue, bytes[offset + 9] == 0x03 { offsets.append(offset) }
            offset += RecordFormat.headerSize + length
        }
        return offsets
    }

    /// Recomputes the CRC of the record at `offset` of a segment salted with `header`'s salt.
    func fixRecordChecksum(_ bytes: inout [UInt8], at offset: Int, header: SegmentHeader) {
        let length = bytes.withUnsafeBytes { Int($0.loadLittleEndian(at: offset + 4, as: UInt32.self)) }
        let end = offset + RecordFormat.headerSize + length
        let crc = bytes[(offset + 4)..<end].withUnsafeBytes {
            CRC32C.checksum($0, extending: header.recordSeal.seed(at: offset))
        }
        withUnsafeBytes(of: CRC32C.mask(crc).littleEndian) { bytes.replaceSubrange(offset..<(offset + 4), with: $0) }
    }

    /// Opening fails with `.corruption` naming `path` (and `offset`, when given), or succeeds and
    /// every read either gives a value or throws `.corruption`: never a trap.
    func assertCorruptionOrReadable(_ fileSystem: MemoryFileSystem, path: String, offset: Int?, file: StaticString = #filePath, line: UInt = #line) {
        do {
            let store = try openStore(fileSystem, segmentSize: 64 << 10)
            let snapshot = store.snapshot()
            for keyspace in snapshot.keyspaces {
                for key in snapshot.keys(in: keyspace) {
                    do { _ = try snapshot.value(for: key, in: keyspace) } catch let error as StrataError {
                        XCTAssertEqual(error.code, .corruption, file: file, line: line)
                        XCTAssertEqual(error.file, path, file: file, line: line)
                    }
                }
            }
            try store.close()
        } catch let error as StrataError {
            XCTAssertEqual(error.code, .corruption, "\(error)", file: file, line: line)
            XCTAssertEqual(error.file, path, file: file, line: line)
            if let offset { XCTAssertEqual(error.offset, offset, "\(error)", file: file, line: line) }
        } catch {
            XCTFail("unexpected \(error)", file: file, line: line)
        }
    }

    // MARK: - Round trips

    func testCompactionWritesDictionarySegmentsAndEveryValueReadsBack() throws {
        let fileSystem = MemoryFileSystem()
        let (store, model) = try compactedStore(fileSystem)
        XCTAssertEqual(try contents(of: store.snapshot()), model)
        let segments = try dictionarySegments(fileSystem)
        XCTAssertFalse(segments.isEmpty, "the small similar values should have paid for a dictionary")
        for segment in segments {
            XCTAssertGreaterThan(dictionaryRecordOffsets(segment.bytes, header: segment.header).count, 0)
            XCTAssertEqual(segment.bytes[SegmentDictionary.offset + 8], RecordKind.dictionary.rawValue)
        }
        try store.close()
        for hints in [false, true] {
            let reopened = try openStore(fileSystem, segmentSize: 64 << 10, openWithHints: hints)
            XCTAssertEqual(try contents(of: reopened.snapshot()), model, "openWithHints: \(hints)")
            if hints { XCTAssertFalse(reopened.recoveryEvents.contains { $0.kind == .hintIgnored }) }
            try reopened.close()
        }
    }

    func testDictionaryShrinksSmallValuesAgainstPlainCompaction() throws {
        let plain = MemoryFileSystem()
        let withDictionary = MemoryFileSystem()
        let (plainStore, _) = try compactedStore(plain, policy: .off)
        let (dictionaryStore, _) = try compactedStore(withDictionary)
        XCTAssertTrue(try dictionarySegments(plain).isEmpty)
        let ratio = Double(plainStore.statistics().liveBytes) / Double(dictionaryStore.statistics().liveBytes)
        XCTAssertGreaterThan(ratio, 1.5, "dictionary compaction should shrink the store well")
    }

    func testTooFewRecordsGetNoDictionaryUnderAutomatic() throws {
        let fileSystem = MemoryFileSystem()
        _ = try compactedStore(fileSystem, count: 600)
        XCTAssertTrue(try dictionarySegments(fileSystem).isEmpty)
    }

    func testCompactingDictionarySegmentsAgainKeepsEveryValue() throws {
        let fileSystem = MemoryFileSystem()
        let (store, model) = try compactedStore(fileSystem)
        var expected = model
        // Overwrite half the keys, so that the next compaction copies both dictionary-compressed
        // records (written again with a new dictionary) and new ones.
        for start in stride(from: 0, to: 1500, by: 10) {
            var batch = WriteBatch()
            for id in start..<(start + 10) {
                batch.put(similarValue(id: UInt64(id), version: id * 11 + 1), forKey: StorageKey(UInt64(id)), in: Keyspace(UInt32(1 + id % 2)))
            }
            try store.commit(batch)
            apply(batch, to: &expected)
        }
        XCTAssertTrue(try store.compact().didCompact)
        XCTAssertFalse(try dictionarySegments(fileSystem).isEmpty)
        XCTAssertEqual(try contents(of: store.snapshot()), expected)
        try store.close()
        XCTAssertEqual(try contents(of: openStore(fileSystem).snapshot()), expected)
        _ = model
    }

    func testWriteCopyWithDictionaryAndToAnEncryptedCopy() throws {
        let fileSystem = MemoryFileSystem()
        let (store, model) = try compactedStore(fileSystem)
        try store.writeCopy(toDirectory: "/copy", encryptionKey: nil)
        try store.writeCopy(toDirectory: "/secret", encryptionKey: Array(repeating: 7, count: 64))
        let copy = try openStore(fileSystem, directory: "/copy")
        XCTAssertEqual(try contents(of: copy.snapshot()), model)
        let secret = try openStore(fileSystem, directory: "/secret", encryptionKey: Array(repeating: 7, count: 64))
        XCTAssertEqual(try contents(of: secret.snapshot()), model)
        for name in try fileSystem.contentsOfDirectory("/secret") where name.hasSuffix(".seg") {
            let bytes = try XCTUnwrap(fileSystem.contents(of: "/secret/" + name))
            XCTAssertEqual(try bytes.withUnsafeBytes { try SegmentHeader.decode($0, file: name) }.dictionaryID, 0)
        }
    }

    // MARK: - Damage

    func testFlippedDictionaryByteIsCorruptionAtTheDictionaryRecord() throws {
        let fileSystem = MemoryFileSystem()
        let (store, _) = try compactedStore(fileSystem)
        try store.close()
        let segment = try XCTUnwrap(dictionarySegments(fileSystem).first)
        fileSystem.corrupt(path: segment.path, at: SegmentDictionary.offset + RecordFormat.headerSize + 40, with: [segment.bytes[SegmentDictionary.offset + RecordFormat.headerSize + 40] ^ 0x5A])
        XCTAssertThrowsError(try openStore(fileSystem)) { error in
            let error = error as? StrataError
            XCTAssertEqual(error?.code, .corruption)
            XCTAssertEqual(error?.file, segment.path)
            XCTAssertEqual(error?.offset, SegmentDictionary.offset)
        }
        let salvaged = try openStore(fileSystem, readOnly: true, salvage: true)
        XCTAssertTrue(salvaged.recoveryEvents.contains { $0.kind == .salvagedCorruption && $0.file == segment.path })
    }

    func testDamagedDictionaryWithItsChecksumFixedNeverTraps() throws {
        let fileSystem = MemoryFileSystem()
        let (store, _) = try compactedStore(fileSystem)
        try store.close()
        let original = try XCTUnwrap(dictionarySegments(fileSystem).first)
        let dictionaryLength = original.bytes.withUnsafeBytes { Int($0.loadLittleEndian(at: SegmentDictionary.offset + 4, as: UInt32.self)) }
        let start = SegmentDictionary.offset + RecordFormat.headerSize
        // The magic, the id, the entropy tables and the content.
        for position in [0, 5, 9, 30, 200, dictionaryLength / 2, dictionaryLength - 1] {
            var bytes = original.bytes
            bytes[start + position] ^= 0xFF
            fixRecordChecksum(&bytes, at: SegmentDictionary.offset, header: original.header)
            fileSystem.setContents(bytes, of: original.path)
            assertCorruptionOrReadable(fileSystem, path: original.path, offset: nil)
        }
    }

    func testHeaderNamingAnotherDictionaryIsCorruption() throws {
        let fileSystem = MemoryFileSystem()
        let (store, _) = try compactedStore(fileSystem)
        try store.close()
        let segment = try XCTUnwrap(dictionarySegments(fileSystem).first)
        var header = segment.header
        header.dictionaryID &+= 1
        fileSystem.corrupt(path: segment.path, at: 0, with: header.encoded())
        XCTAssertThrowsError(try openStore(fileSystem)) { error in
            XCTAssertEqual((error as? StrataError)?.code, .corruption)
            XCTAssertEqual((error as? StrataError)?.offset, SegmentDictionary.offset)
        }
    }

    func testDictionaryIdInALogSegmentIsCorruption() throws {
        var header = SegmentHeader(segmentNumber: 3, kind: .log, seal: RecordSeal(salt: 9))
        header.dictionaryID = 77
        XCTAssertThrowsError(try header.encoded().withUnsafeBytes { try SegmentHeader.decode($0, file: "x") }) { error in
            XCTAssertEqual((error as? StrataError)?.code, .corruption)
            XCTAssertEqual((error as? StrataError)?.offset, 16)
        }
    }

    func testDamagedDictionaryCompressedRecordsNeverTrap() throws {
        let fileSystem = MemoryFileSystem()
        let (store, _) = try compactedStore(fileSystem)
        try store.close()
        let original = try XCTUnwrap(dictionarySegments(fileSystem).first)
        let offsets = dictionaryRecordOffsets(original.bytes, header: original.header)
        let target = try XCTUnwrap(offsets.dropFirst(3).first)
        let length = original.bytes.withUnsafeBytes { Int($0.loadLittleEndian(at: target + 4, as: UInt32.self)) }
        let keyLength = original.bytes.withUnsafeBytes { Int($0.loadLittleEndian(at: target + RecordFormat.headerSize + 4, as: UInt16.self)) }
        let rawLength = target + RecordFormat.headerSize + RecordFormat.keyPrefixSize + keyLength
        for position in [rawLength, rawLength + 1, rawLength + 4, rawLength + 6, target + RecordFormat.headerSize + length - 1] {
            for fixChecksum in [false, true] {
                var bytes = original.bytes
                bytes[position] ^= 0x21
                if fixChecksum { fixRecordChecksum(&bytes, at: target, header: original.header) }
                fileSystem.setContents(bytes, of: original.path)
                assertCorruptionOrReadable(fileSystem, path: original.path, offset: fixChecksum ? nil : target)
            }
        }
        // A raw length one off always gives a size mismatch, reported at the record.
        var bytes = original.bytes
        bytes[rawLength] &+= 1
        fixRecordChecksum(&bytes, at: target, header: original.header)
        fileSystem.setContents(bytes, of: original.path)
        let reopened = try openStore(fileSystem)
        let snapshot = reopened.snapshot()
        var failures: [StrataError] = []
        for keyspace in snapshot.keyspaces {
            for key in snapshot.keys(in: keyspace) {
                do { _ = try snapshot.value(for: key, in: keyspace) } catch let error as StrataError { failures.append(error) }
            }
        }
        XCTAssertEqual(failures.map(\.code), [.corruption])
        XCTAssertEqual(failures.first?.offset, target)
    }

    func testDictionaryFlagInASegmentWithoutDictionaryIsMalformed() throws {
        var payload: [UInt8] = [1, 0, 0, 0, 1, 0, 0x6B, 5, 0, 0, 0, 0xAA, 0xBB]
        var buffer: [UInt8] = []
        _ = payload.withUnsafeBytes {
            RecordEncoder.appendRecord(to: &buffer, kind: .put, flags: 0x03, sequence: 1, payload: $0, seal: RecordSeal(salt: 5), bufferOffset: 64)
        }
        let result = buffer.withUnsafeBytes { RecordDecoder.decode($0, seal: RecordSeal(salt: 5), at: 64) }
        guard case .failure(.malformedPayload(let why)) = result else { return XCTFail("decoded \(result)") }
        XCTAssertTrue(why.contains("without one"), why)
        // Bit 1 alone is malformed too.
        buffer.removeAll()
        payload.removeLast(7)
        _ = payload.withUnsafeBytes {
            RecordEncoder.appendRecord(to: &buffer, kind: .put, flags: 0x02, sequence: 1, payload: $0, seal: RecordSeal(salt: 5), bufferOffset: 64)
        }
        let alone = buffer.withUnsafeBytes { RecordDecoder.decode($0, seal: RecordSeal(salt: 5), at: 64) }
        guard case .failure(.malformedPayload) = alone else { return XCTFail("decoded \(alone)") }
    }
}
