import XCTest
@_spi(Testing) @testable import StrataStorage

/// The hint file's byte layout (Log/HintFile.swift, docs/format.md) and its decoder's refusals.
final class HintFileFormatTests: XCTestCase {
    func sample() -> HintFile {
        HintFile(
            kind: .log, segmentNumber: 7, salt: 0xA1B2_C3D4, sealedLength: 0x1000, lastSequence: 0x22,
            floorSequence: 0x11, records: 5, uncommittedRecords: 0, committedEnd: 0x0F00,
            entries: [
                HintEntry(isPut: true, keyspace: Keyspace(3), key: StorageKey([0xAA, 0xBB]), offset: 0x40, length: 0x30),
                HintEntry(isPut: false, keyspace: Keyspace(4), key: StorageKey([0xCC]), offset: 0x70, length: 0x20),
            ])
    }

    func decode(_ bytes: [UInt8]) throws -> HintFile {
        try bytes.withUnsafeBytes { try HintFile.decode($0, file: "/db/000007.hint") }
    }

    /// Re-seals `bytes` (a hint whose body was edited) with a correct checksum.
    func resealed(_ bytes: [UInt8]) -> [UInt8] {
        var body = Array(bytes.dropLast(4))
        let crc = body.withUnsafeBytes { CRC32C.mask(CRC32C.checksum($0)) }
        body.appendLittleEndian(crc)
        return body
    }

    func testGoldenBytes() throws {
        let expectedBody: [UInt8] =
            Array("STRATAHT".utf8) + [1, 0] + [0, 0] + [7, 0, 0, 0] + [0xD4, 0xC3, 0xB2, 0xA1] + [0, 0, 0, 0]
            + [0x00, 0x10, 0, 0, 0, 0, 0, 0] + [0x22, 0, 0, 0, 0, 0, 0, 0] + [0x11, 0, 0, 0, 0, 0, 0, 0]
            + [5, 0, 0, 0] + [0, 0, 0, 0] + [0x00, 0x0F, 0, 0] + [2, 0, 0, 0]
            + [1] + [3, 0, 0, 0] + [2, 0] + [0x40, 0, 0, 0] + [0x30, 0, 0, 0] + [0xAA, 0xBB]
            + [2] + [4, 0, 0, 0] + [1, 0] + [0x70, 0, 0, 0] + [0x20, 0, 0, 0] + [0xCC]
        let bytes = sample().encoded()
        XCTAssertEqual(Array(bytes.dropLast(4)), expectedBody)
        XCTAssertEqual(Array(bytes.suffix(4)), [7, 186, 204, 61])
        XCTAssertEqual(try decode(bytes), sample())
    }

    func testNamesPairWithSegments() {
        XCTAssertEqual(HintFile.name(for: 7), "000007.hint")
        XCTAssertEqual(HintFile.number(fromName: "000007.hint"), 7)
        XCTAssertNil(HintFile.number(fromName: "000007.seg"))
        XCTAssertNil(HintFile.number(fromName: ".hint"))
    }

    func assertRefused(_ bytes: [UInt8], _ fragment: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try decode(bytes), file: file, line: line) { error in
            guard let error = error as? StrataError else { return XCTFail("\(error)", file: file, line: line) }
            XCTAssertEqual(error.code, .corruption, file: file, line: line)
            XCTAssertEqual(error.file, "/db/000007.hint", file: file, line: line)
            XCTAssertNotNil(error.offset, file: file, line: line)
            XCTAssertTrue(error.message.contains(fragment), "\(error.message)", file: file, line: line)
        }
    }

    func testEveryFlippedBitIsRefused() {
        let bytes = sample().encoded()
        for index in bytes.indices {
            var flipped = bytes
            flipped[index] ^= 0x10
            XCTAssertThrowsError(try decode(flipped), "byte \(index)")
        }
    }

    func testEveryTruncationIsRefused() {
        let bytes = sample().encoded()
        for count in 0..<bytes.count {
            XCTAssertThrowsError(try decode(Array(bytes.prefix(count))), "\(count) bytes")
        }
    }

    func testChecksumMismatchIsRefused() {
        var bytes = sample().encoded()
        bytes[bytes.count - 1] ^= 1
        assertRefused(bytes, "checksum mismatch")
    }

    func testEntryCountLargerThanTheBytesIsRefusedBeforeAllocating() {
        var bytes = sample().encoded()
        bytes.replaceSubrange(60..<64, with: [0xFF, 0xFF, 0xFF, 0x7F])
        assertRefused(resealed(bytes), "entries cannot fit")
    }

    func testEntryOutsideTheSealedLengthIsRefused() {
        var bytes = sample().encoded()
        bytes.replaceSubrange(71..<75, with: [0xF0, 0x0F, 0, 0])  // first entry's offset 0xFF0 + 0x30
        assertRefused(resealed(bytes), "outside the segment")
    }

    func testDeleteInACompactedHintIsRefused() {
        var bytes = sample().encoded()
        bytes[10] = SegmentKind.compacted.rawValue
        assertRefused(resealed(bytes), "unknown entry operation")
    }

    func testUnknownVersionIsRefused() {
        var bytes = sample().encoded()
        bytes[8] = 2
        assertRefused(resealed(bytes), "unsupported version")
    }

    func testTrailingBytesAreRefused() {
        var bytes = sample().encoded()
        bytes.insert(0, at: bytes.count - 4)
        assertRefused(resealed(bytes), "follow the last entry")
    }

    func testKeysOutOfOrderInAKeyspaceAreRefused() {
        var hint = sample()
        hint.entries = [
            HintEntry(isPut: true, keyspace: Keyspace(3), key: StorageKey([0xAA, 0xBB]), offset: 0x40, length: 0x30),
            HintEntry(isPut: true, keyspace: Keyspace(3), key: StorageKey([0xAA]), offset: 0x70, length: 0x20),
        ]
        assertRefused(hint.encoded(), "does not follow the one before it")
        hint.entries[1].key = StorageKey([0xAA, 0xBB])
        assertRefused(hint.encoded(), "does not follow the one before it")
        hint.entries[1].key = StorageKey([0xAA, 0xBB, 0x00])
        XCTAssertEqual(try decode(hint.encoded()), hint, "a longer key after its prefix is in order")
    }

    func testKeyspacesOutOfOrderAreRefused() {
        var hint = sample()
        hint.entries.reverse()
        assertRefused(hint.encoded(), "keyspace 3 does not follow")
    }
}
