import XCTest
@_spi(Testing) @testable import StrataStorage

/// Segment format versions: version 2 salts record checksums, version 1 (unsalted) still reads.
final class SegmentVersionTests: XCTestCase {
    func testVersion2HeaderStoresItsSaltAtByte25() throws {
        let header = SegmentHeader(segmentNumber: 3, seal: RecordSeal(salt: 0xA1B2_C3D4))
        let bytes = header.encoded()
        XCTAssertEqual(bytes.count, 64)
        XCTAssertEqual(Array(bytes[8..<10]), [2, 0])
        XCTAssertEqual(Array(bytes[25..<29]), [0xD4, 0xC3, 0xB2, 0xA1])
        XCTAssertEqual(Array(bytes[29..<60]), Array(repeating: 0, count: 31))
        let decoded = try bytes.withUnsafeBytes { try SegmentHeader.decode($0, file: "x") }
        XCTAssertEqual(decoded, header)
        XCTAssertEqual(decoded.recordSeal, RecordSeal(salt: 0xA1B2_C3D4))
    }

    func testRecordChecksumIsSeededWithSaltThenOffset() {
        // The spec: the CRC-32C of salt (LE u32) and offset (LE u64), extended over the record.
        let seal = RecordSeal(salt: 0x0102_0304)
        XCTAssertEqual(seal.seed(at: 0x1122), CRC32C.checksum([4, 3, 2, 1, 0x22, 0x11, 0, 0, 0, 0, 0, 0]))
        XCTAssertEqual(RecordSeal.unsalted.seed(at: 0x1122), 0)
        var record = [UInt8]()
        _ = RecordEncoder.appendCommit(to: &record, sequence: 5, recordCount: 0, syncedThrough: 64, seal: seal, bufferOffset: 0x1122)
        let expected = CRC32C.mask(record.withUnsafeBytes {
            CRC32C.checksum(UnsafeRawBufferPointer(rebasing: $0[4...]), extending: seal.seed(at: 0x1122))
        })
        XCTAssertEqual(record.withUnsafeBytes { $0.loadLittleEndian(at: 0, as: UInt32.self) }, expected)
    }

    func testRecordCopiedToAnotherOffsetOrSegmentFailsItsChecksum() {
        let seal = RecordSeal(salt: 77)
        var record = [UInt8]()
        _ = RecordEncoder.appendDelete(to: &record, sequence: 1, keyspace: Keyspace(1), key: StorageKey("k"), seal: seal, bufferOffset: 64)
        record.withUnsafeBytes { raw in
            guard case .success = RecordDecoder.decode(raw, seal: seal, at: 64) else { return XCTFail("does not decode where written") }
            for (otherSeal, offset) in [(seal, 65), (RecordSeal(salt: 78), 64), (RecordSeal.unsalted, 64)] {
                guard case .failure(.checksumMismatch) = RecordDecoder.decode(raw, seal: otherSeal, at: offset) else {
                    return XCTFail("a record decodes under \(otherSeal) at \(offset)")
                }
            }
        }
    }

    func testVersion1StoreStillReadsAndRollsIntoVersion2Segments() throws {
        let fileSystem = MemoryFileSystem()
        var segment = SegmentHeader(version: SegmentHeader.unsaltedVersion, segmentNumber: 1).encoded()
        XCTAssertEqual(Array(segment[25..<29]), [0, 0, 0, 0], "version 1 has no salt")
        for sequence in UInt64(1)...3 {
            let offset = segment.count
            var records = [UInt8]()
            _ = RecordEncoder.appendPut(
                to: &records, sequence: sequence, keyspace: Keyspace(1), key: StorageKey(sequence),
                value: UnsafeRawBufferPointer(start: nil, count: 0), compression: CompressionPolicy(threshold: .max, level: 3),
                seal: .unsalted, bufferOffset: offset)
            _ = RecordEncoder.appendCommit(
                to: &records, sequence: sequence, recordCount: 1, syncedThrough: offset, seal: .unsalted, bufferOffset: offset)
            segment += records
        }
        fileSystem.setContents(segment, of: "/db/000001.seg")
        fileSystem.setContents(Manifest(segments: [1], lastSequence: 3).encoded(), of: "/db/MANIFEST")

        let store = try openStore(fileSystem, segmentSize: 4096)
        XCTAssertEqual(store.recoveryEvents, [])
        XCTAssertEqual(store.snapshot().count, 3)
        var value: UInt64 = 100
        while fileSystem.contents(of: "/db/000002.seg") == nil {
            var batch = WriteBatch()
            batch.put(Array(repeating: 1, count: 200), forKey: StorageKey(value), in: Keyspace(1))
            try store.commit(batch)
            value += 1
        }
        try store.close()
        let rolled = try XCTUnwrap(fileSystem.contents(of: "/db/000002.seg"))
        XCTAssertEqual(Array(rolled[8..<10]), [2, 0])
        XCTAssertEqual(try openStore(fileSystem, segmentSize: 4096).snapshot().count, 3 + Int(value - 100))
    }
}
