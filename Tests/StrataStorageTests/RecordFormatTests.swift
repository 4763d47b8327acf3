import XCTest
@_spi(Testing) @testable import StrataStorage

/// One test per corner case of the record frame and segment format, named for it.
final class RecordFormatTests: XCTestCase {
    let segment1 = "/db/000001.seg"

    func assertThreeValues(_ store: Store, file: StaticString = #filePath, line: UInt = #line) throws {
        let snapshot = store.snapshot()
        XCTAssertEqual(snapshot.count, 3, file: file, line: line)
        for i in 0..<3 {
            XCTAssertEqual(try snapshot.value(for: StorageKey(UInt64(i)), in: Keyspace(1)),
                           Array("value-\(i)".utf8), file: file, line: line)
        }
    }

    // MARK: - Corner cases

    func testEmptyPayload() throws {
        // A put of an empty value under an empty key round-trips.
        let store = try openStore(MemoryFileSystem())
        var batch = WriteBatch()
        batch.put([], forKey: StorageKey([UInt8]()), in: Keyspace(0))
        try store.commit(batch)
        XCTAssertEqual(try store.snapshot().value(for: StorageKey([UInt8]()), in: Keyspace(0)), [])
        // A frame whose payload is empty is a put without a key: malformed, not a crash.
        XCTAssertEqual(damage(frame(kind: RecordKind.put.rawValue, sequence: 1, payload: [])),
                       .malformedPayload("no room for a key"))
    }

    func testLargestPayload() throws {
        var options = Store.Options()
        options.fileSystem = MemoryFileSystem()
        options.maxValueSize = 1 << 20
        options.compressionThreshold = Int.max
        let store = try Store(directory: "/db", options: options)
        var random = seededGenerator(1)
        let largest = (0..<(1 << 20)).map { _ in UInt8.random(in: 0...255, using: &random) }
        var batch = WriteBatch()
        batch.put(largest, forKey: StorageKey("big"), in: Keyspace(1))
        try store.commit(batch)
        XCTAssertEqual(try store.snapshot().value(for: StorageKey("big"), in: Keyspace(1)), largest)

        let before = store.statistics()
        var tooLarge = WriteBatch()
        tooLarge.put(largest + [0], forKey: StorageKey("bigger"), in: Keyspace(1))
        XCTAssertThrowsError(try store.commit(tooLarge)) { error in
            XCTAssertEqual((error as? StrataError)?.code, .invalidArgument)
        }
        XCTAssertEqual(store.statistics(), before, "a refused batch wrote something")
        // A frame that declares more than the format's largest payload is refused before any read.
        var header = [UInt8](repeating: 0, count: RecordFormat.headerSize)
        header.withUnsafeMutableBytes { $0.storeLittleEndian(UInt32(RecordFormat.maxPayloadLength + 1), at: 4) }
        XCTAssertEqual(damage(header), .impossibleLength)
    }

    func testShortHeader() throws {
        XCTAssertEqual(damage(Array(repeating: 7, count: RecordFormat.headerSize - 1)), .shortHeader)
        let fileSystem = try storeWithThreeCommits()
        let sizeBefore = fileSystem.contents(of: segment1)!.count
        append(Array(repeating: 0xAB, count: 10), to: segment1, in: fileSystem)
        let store = try openStore(fileSystem, segmentSize: 1 << 20)
        try assertThreeValues(store)
        XCTAssertEqual(store.recoveryEvents.map(\.kind), [.tornTail])
        XCTAssertEqual(store.recoveryEvents.first?.offset, sizeBefore)
        XCTAssertEqual(fileSystem.contents(of: segment1)!.count, sizeBefore, "the torn tail was not cut")
    }

    func testBadChecksum() throws {
        // In a sealed segment, a flipped byte is corruption, reported with file and offset.
        let fileSystem = MemoryFileSystem()
        let store = try openStore(fileSystem, segmentSize: 4096)
        for i in 0..<40 {
            var batch = WriteBatch()
            batch.put(Array(repeating: UInt8(i), count: 150), forKey: StorageKey(UInt64(i)), in: Keyspace(1))
            try store.commit(batch)
        }
        let location = store.snapshot().index.location(of: StorageKey(UInt64(2)), in: Keyspace(1))!
        XCTAssertEqual(location.segment, 1)
        try store.close()
        fileSystem.corrupt(path: segment1, at: Int(location.offset) + 30, with: [0xFF])
        XCTAssertThrowsError(try openStore(fileSystem, segmentSize: 4096)) { error in
            let error = error as! StrataError
            XCTAssertEqual(error.code, .corruption)
            XCTAssertEqual(error.file, self.segment1)
            XCTAssertEqual(error.offset, Int(location.offset))
            XCTAssertTrue(error.message.contains("checksum"), error.message)
        }
        var flipped = frame(kind: 1, sequence: 1, payload: [1, 0, 0, 0, 0, 0])
        flipped[20] ^= 1
        XCTAssertEqual(damage(flipped), .checksumMismatch)
    }

    func testTornTail() throws {
        let fileSystem = try storeWithThreeCommits()
        let (seal, sizeBefore) = try sealAndSize(of: segment1, in: fileSystem)
        var whole = [UInt8]()
        _ = RecordEncoder.appendPut(
            to: &whole, sequence: 99, keyspace: Keyspace(1), key: StorageKey("torn"),
            value: UnsafeRawBufferPointer(start: nil, count: 0), compression: CompressionPolicy(threshold: .max, level: 3),
            seal: seal, bufferOffset: sizeBefore)
        append(Array(whole.prefix(whole.count - 3)), to: segment1, in: fileSystem)
        let store = try openStore(fileSystem, segmentSize: 1 << 20)
        try assertThreeValues(store)
        XCTAssertEqual(store.recoveryEvents.map(\.kind), [.tornTail])
        XCTAssertEqual(fileSystem.contents(of: segment1)!.count, sizeBefore)
    }

    func testZeroFilledTail() throws {
        let fileSystem = try storeWithThreeCommits()
        let sizeBefore = fileSystem.contents(of: segment1)!.count
        append(Array(repeating: 0, count: 4096), to: segment1, in: fileSystem)
        let store = try openStore(fileSystem, segmentSize: 1 << 20)
        try assertThreeValues(store)
        XCTAssertEqual(store.recoveryEvents.map(\.kind), [.zeroFilledTail])
        XCTAssertEqual(store.recoveryEvents.first?.byteCount, 4096)
        XCTAssertEqual(fileSystem.contents(of: segment1)!.count, sizeBefore)
    }

    func testUncommittedRecordsAreIgnored() throws {
        let fileSystem = try storeWithThreeCommits()
        let (seal, size) = try sealAndSize(of: segment1, in: fileSystem)
        var records = [UInt8]()
        _ = RecordEncoder.appendDelete(
            to: &records, sequence: 4, keyspace: Keyspace(1), key: StorageKey(UInt64(0)), seal: seal, bufferOffset: size)
        append(records, to: segment1, in: fileSystem)
        let store = try openStore(fileSystem, segmentSize: 1 << 20)
        try assertThreeValues(store)
        XCTAssertEqual(store.recoveryEvents.map(\.kind), [.uncommittedTransaction])
        XCTAssertEqual(store.sequence, 3)
    }

    func testUnknownKind() throws {
        XCTAssertEqual(damage(frame(kind: 9, sequence: 1, payload: [1, 2, 3])), .unknownKind(9))
        // Even at the tail of the newest segment a well-checksummed unknown kind is not a tear.
        let fileSystem = try storeWithThreeCommits()
        let (seal, offset) = try sealAndSize(of: segment1, in: fileSystem)
        append(frame(kind: 9, sequence: 4, payload: [1, 2, 3], seal: seal, at: offset), to: segment1, in: fileSystem)
        XCTAssertThrowsError(try openStore(fileSystem, segmentSize: 1 << 20)) { error in
            let error = error as! StrataError
            XCTAssertEqual(error.code, .corruption)
            XCTAssertEqual(error.offset, offset)
            XCTAssertTrue(error.message.contains("unknown record kind 9"), error.message)
        }
        XCTAssertEqual(damage(frame(kind: 1, flags: 0x80, sequence: 1, payload: [1, 0, 0, 0, 0, 0])), .unknownFlags(0x80))
    }

    func testFutureFormatVersion() throws {
        let fileSystem = try storeWithThreeCommits()
        var bytes = fileSystem.contents(of: segment1)!
        bytes.withUnsafeMutableBytes { raw in
            raw.storeLittleEndian(UInt16(3), at: 8)
            raw.storeLittleEndian(CRC32C.mask(CRC32C.checksum(UnsafeRawBufferPointer(rebasing: raw[0..<60]))), at: 60)
        }
        fileSystem.setContents(bytes, of: segment1)
        XCTAssertThrowsError(try openStore(fileSystem, segmentSize: 1 << 20)) { error in
            let error = error as! StrataError
            XCTAssertEqual(error.code, .unsupportedFormat)
            XCTAssertEqual(error.file, self.segment1)
            XCTAssertTrue(error.message.contains("version 3"), error.message)
        }
        // A newer manifest is refused the same way.
        var manifest = Manifest(segments: [1], lastSequence: 0).encoded()
        manifest.withUnsafeMutableBytes { raw in
            raw.storeLittleEndian(UInt16(7), at: 8)
            raw.storeLittleEndian(CRC32C.mask(CRC32C.checksum(UnsafeRawBufferPointer(rebasing: raw[0..<(raw.count - 4)]))), at: raw.count - 4)
        }
        XCTAssertThrowsError(try Manifest.decode(manifest, file: "/db/MANIFEST")) { error in
            XCTAssertEqual((error as? StrataError)?.code, .unsupportedFormat)
        }
    }

    func testLengthPastEOF() throws {
        var bytes = frame(kind: 1, sequence: 1, payload: [1, 0, 0, 0, 0, 0, 9, 9])
        bytes.removeLast(2)
        XCTAssertEqual(damage(bytes), .lengthPastEnd)
        // In a sealed segment it is corruption: cut a record in the middle of segment 1.
        let fileSystem = MemoryFileSystem()
        let store = try openStore(fileSystem, segmentSize: 4096)
        for i in 0..<40 {
            var batch = WriteBatch()
            batch.put(Array(repeating: UInt8(i), count: 150), forKey: StorageKey(UInt64(i)), in: Keyspace(1))
            try store.commit(batch)
        }
        try store.close()
        var sealed = fileSystem.contents(of: segment1)!
        sealed.removeLast(10)
        fileSystem.setContents(sealed, of: segment1)
        XCTAssertThrowsError(try openStore(fileSystem, segmentSize: 4096)) { error in
            let error = error as! StrataError
            XCTAssertEqual(error.code, .corruption)
            XCTAssertEqual(error.file, self.segment1)
            XCTAssertTrue(error.message.contains("past the end"), error.message)
        }
    }

    func testDamageBeforeTheSyncedPointOfTheNewestSegmentIsCorruption() throws {
        // Three `.full` commits: the third commit record says the first two were synced, so
        // damage inside the first cannot be a torn write.
        let fileSystem = try storeWithThreeCommits()
        fileSystem.corrupt(path: segment1, at: SegmentHeader.size + 20, with: [0xEE])
        XCTAssertThrowsError(try openStore(fileSystem, segmentSize: 1 << 20)) { error in
            let error = error as! StrataError
            XCTAssertEqual(error.code, .corruption)
            XCTAssertEqual(error.offset, SegmentHeader.size)
        }
    }

    func testSalvageKeepsEverythingBeforeTheDamage() throws {
        let fileSystem = try storeWithThreeCommits()
        // Damage the second commit's put record.
        let store = try openStore(fileSystem, segmentSize: 1 << 20)
        let second = store.snapshot().index.location(of: StorageKey(UInt64(1)), in: Keyspace(1))!
        try store.close()
        fileSystem.corrupt(path: segment1, at: Int(second.offset) + 19, with: [0x00, 0x01])
        let salvaged = try openStore(fileSystem, segmentSize: 1 << 20, readOnly: true, salvage: true)
        XCTAssertEqual(try contents(of: salvaged.snapshot()),
                       [Keyspace(1): [StorageKey(UInt64(0)): Array("value-0".utf8)]])
        XCTAssertEqual(salvaged.recoveryEvents.map(\.kind), [.salvagedCorruption])
        XCTAssertEqual(salvaged.recoveryEvents.first?.offset, Int(second.offset))
        XCTAssertThrowsError(try salvaged.commit(WriteBatch())) { error in
            XCTAssertEqual((error as? StrataError)?.code, .readOnly)
        }
    }
}
