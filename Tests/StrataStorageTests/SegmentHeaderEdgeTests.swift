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

    func testDictionaryIdIsUnsupported() {
        assertRefused(SegmentHeader(segmentNumber: 1, dictionaryID: 1), code: .unsupportedFormat, offset: 16)
    }

    func testCipherIdIsUnsupported() {
        assertRefused(SegmentHeader(segmentNumber: 1, cipherID: 1), code: .unsupportedFormat, offset: 16)
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
