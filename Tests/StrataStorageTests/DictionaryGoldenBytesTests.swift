import XCTest
@_spi(Testing) @testable import StrataStorage

/// The bytes of the dictionary pieces of the format (docs/format.md §3, §4): a compacted
/// segment's header naming dictionary 0x12345678, the frame of its dictionary record at offset
/// 64, and a put flagged 0x03. The payloads are fixed stand-ins (the frame layout does not
/// depend on what zstd writes); the salt is 0xA1B2C3D4.
final class DictionaryGoldenBytesTests: XCTestCase {
    static let seal = RecordSeal(salt: 0xA1B2_C3D4)

    func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined(separator: " ") }

    func testHeaderNamingADictionary() throws {
        var header = SegmentHeader(segmentNumber: 5, kind: .compacted, seal: Self.seal)
        header.dictionaryID = 0x1234_5678
        let bytes = header.encoded()
        XCTAssertEqual(hex(Array(bytes[0..<32])),
            "53 54 52 41 54 41 53 47 02 00 40 00 05 00 00 00 78 56 34 12 00 00 00 00 01 d4 c3 b2 a1 00 00 00")
        XCTAssertEqual(hex(Array(bytes[60..<64])), "d0 18 a6 26")  // CRC checked with an independent CRC-32C
        XCTAssertEqual(try bytes.withUnsafeBytes { try SegmentHeader.decode($0, file: "golden") }, header)
    }

    func testDictionaryRecordFrame() {
        let payload: [UInt8] = [0x37, 0xA4, 0x30, 0xEC, 0x78, 0x56, 0x34, 0x12]  // magic, id: a stand-in
        var buffer: [UInt8] = []
        _ = payload.withUnsafeBytes {
            RecordEncoder.appendRecord(to: &buffer, kind: .dictionary, flags: 0, sequence: 0, payload: $0, seal: Self.seal, bufferOffset: 64)
        }
        XCTAssertEqual(hex(buffer), "fe 19 cb b9 08 00 00 00 04 00 00 00 00 00 00 00 00 00 37 a4 30 ec 78 56 34 12")
        let decoded = buffer.withUnsafeBytes { RecordDecoder.decode($0, seal: Self.seal, at: 64) }
        guard case .success(let record) = decoded else { return XCTFail("\(decoded)") }
        XCTAssertEqual(record.kind, .dictionary)
    }

    func testPutCompressedWithTheDictionary() {
        // keyspace 1, key "k", raw length 5, a 3-byte stand-in frame.
        let payload: [UInt8] = [1, 0, 0, 0, 1, 0, 0x6B, 5, 0, 0, 0, 0xAA, 0xBB, 0xCC]
        var buffer: [UInt8] = []
        _ = payload.withUnsafeBytes {
            RecordEncoder.appendRecord(to: &buffer, kind: .put, flags: 0x03, sequence: 7, payload: $0, seal: Self.seal, bufferOffset: 90)
        }
        XCTAssertEqual(hex(buffer), "f1 85 88 2c 0e 00 00 00 01 03 07 00 00 00 00 00 00 00 01 00 00 00 01 00 6b 05 00 00 00 aa bb cc")
    }
}
