import XCTest
@_spi(Testing) @testable import StrataStorage

/// The segment header checks, each on a header that differs from a good one in one field
/// (with a correct checksum), so that exactly that check decides.
final class SegmentHeaderEdgeTests: XCTestCase {
    func decode(_ header: SegmentHeader) throws -> SegmentHeader {
        try header.encoded().withUnsafeBytes { try SegmentHeader.decode($0, file: "s") }
    }

    func assertRefused(
        _ header: SegmentHeader, code: StrataError.Code, offset: Int,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertThrowsError(try decode(header), file: file, line: line) { error in
            XCTAssertEqual((error as? StrataError)?.code, code, "\(error)", file: file, line: line)
            XCTAssertEqual((error as? StrataError)?.offset, offset, "\(error)", file: file, line: line)
        }
    }

    func testGoodHeaderDecodesToItself() throws {
        let header = SegmentHeader(segmentNumber: 7, kind: .compacted)
        XCTAssertEqual(try decode(header), header)
    }

    func testDictionaryIdInALogSegmentIsCorruption() {
        assertRefused(SegmentHeader(segmentNumber: 1, dictionaryID: 1), code: .corruption, offset: 16)
    }

    func testDictionaryIdInAnEncryptedCompactedSegmentIsCorruption() {
        assertRefused(
            SegmentHeader(segmentNumber: 1, dictionaryID: 1, cipherID: SegmentCipher.id, kind: .compacted),
            code: .corruption, offset: 16)
    }

    func testDictionaryIdInAPlainCompactedSegmentDecodes() throws {
        let header = SegmentHeader(segmentNumber: 7, dictionaryID: 0x1234_5678, kind: .compacted)
        XCTAssertEqual(try decode(header), header)
    }

    func testAnUnknownCipherIdIsUnsupported() {
        assertRefused(SegmentHeader(segmentNumber: 1, cipherID: SegmentCipher.id + 1), code: .unsupportedFormat, offset: 20)
    }

    func testTheCipherInAVersionOneHeaderIsUnsupported() {
        assertRefused(
            SegmentHeader(version: SegmentHeader.unsaltedVersion, segmentNumber: 1, cipherID: SegmentCipher.id),
            code: .unsupportedFormat, offset: 20)
    }

    func testAnEncryptedHeaderKeepsItsKeySaltAndCheck() throws {
        var header = SegmentHeader(segmentNumber: 3, cipherID: SegmentCipher.id)
        header.keySalt = Array(1...12)
        header.keyCheck = Array(21...28)
        header.sealedLength = 999
        XCTAssertEqual(try decode(header), header)
        XCTAssertEqual(Array(header.encoded()[SegmentHeader.keySaltOffset..<SegmentHeader.checksumOffset]), Array(1...12) + Array(21...28))
    }

    func testVersionZeroIsCorruptionAndANewerVersionIsUnsupported() {
        assertRefused(SegmentHeader(version: 0, segmentNumber: 1), code: .corruption, offset: 8)
        assertRefused(SegmentHeader(version: SegmentHeader.currentVersion + 1, segmentNumber: 1),
                      code: .unsupportedFormat, offset: 8)
    }

    func testSixtyThreeBytesAreCutShort() {
        let bytes = SegmentHeader(segmentNumber: 1).encoded().dropLast()
        XCTAssertThrowsError(try Array(bytes).withUnsafeBytes { try SegmentHeader.decode($0, file: "s") }) { error in
            XCTAssertEqual((error as? StrataError)?.code, .corruption)
            XCTAssertEqual((error as? StrataError)?.offset, 0)
        }
    }
}
