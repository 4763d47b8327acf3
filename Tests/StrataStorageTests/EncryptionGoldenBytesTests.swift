import Crypto
import Foundation
import XCTest
@_spi(Testing) @testable import StrataStorage

/// The worked example of docs/format.md §11 is the bytes the code writes and reads: a fixed
/// key, salts and nonce give exactly the header and record printed there.
final class EncryptionGoldenBytesTests: XCTestCase {
    static let key: [UInt8] = Array(0..<64)
    static let keySalt: [UInt8] = Array(0xA0...0xAB)
    static let nonce: [UInt8] = Array(0xC0...0xCB)
    static let crcSalt: UInt32 = 0x0403_0201

    /// The hex bytes of the first line of the fenced block after the line containing `marker`
    /// in docs/format.md.
    private func goldenBytes(after marker: String) throws -> [UInt8] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../docs/format.md").standardized
        let lines = try String(contentsOf: url, encoding: .utf8).components(separatedBy: "\n")
        let start = try XCTUnwrap(lines.firstIndex { $0.contains(marker) }, "format.md: no '\(marker)'")
        let fence = try XCTUnwrap(lines[start...].firstIndex { $0.hasPrefix("```") })
        return try lines[fence + 1].split(separator: " ").map { try XCTUnwrap(UInt8($0, radix: 16), "format.md: \($0)") }
    }

    private var seal: RecordSeal {
        get throws {
            let cipher = try StoreKey(Self.key).segmentCipher(number: 1, salt: Self.keySalt)
            return RecordSeal(salt: Self.crcSalt, cipher: cipher)
        }
    }

    /// The put of "k" = "v" in keyspace 1, sequence 1, at offset 64, sealed with the fixed nonce.
    private func putRecord() throws -> [UInt8] {
        let seal = try seal
        let cipher = try XCTUnwrap(seal.cipher)
        let plain: [UInt8] = [1, 0, 0, 0, 1, 0, 0x6B, 0x76]
        let nonce = try AES.GCM.Nonce(data: Self.nonce)
        var record = [UInt8](repeating: 0, count: RecordFormat.headerSize + plain.count + SegmentCipher.overhead)
        record.withUnsafeMutableBytes { raw in
            raw.storeLittleEndian(UInt32(plain.count + SegmentCipher.overhead), at: 4)
            raw[8] = RecordKind.put.rawValue
            raw.storeLittleEndian(UInt64(1), at: 10)
            plain.withUnsafeBytes { plain in
                cipher.seal(
                    plain, frameHeader: UnsafeRawBufferPointer(rebasing: raw[4..<18]), at: 64,
                    into: UnsafeMutableRawBufferPointer(rebasing: raw[18...]), nonce: nonce)
            }
            RecordEncoder.reseal(raw, seal: seal, at: 64)
        }
        return record
    }

    func testTheEncryptedHeaderOfFormatMdIsWhatTheWriterWrites() throws {
        let header = SegmentHeader(segmentNumber: 1, seal: try seal)
        XCTAssertEqual(header.encoded(), try goldenBytes(after: "golden: encrypted segment header"))
    }

    func testTheEncryptedPutOfFormatMdIsWhatTheEncoderWritesAndTheDecoderReads() throws {
        let golden = try goldenBytes(after: "golden: encrypted put record")
        XCTAssertEqual(try putRecord(), golden)
        let decoded = try golden.withUnsafeBytes { raw in
            try RecordDecoder.withDecoded(raw, seal: try seal, at: 64) { result in
                let record = try result.get()
                return (record.keyspace, Array(record.keyBytes), try record.value(), record.sequence)
            }
        }
        XCTAssertEqual(decoded.0, Keyspace(1))
        XCTAssertEqual(decoded.1, Array("k".utf8))
        XCTAssertEqual(decoded.2, Array("v".utf8))
        XCTAssertEqual(decoded.3, 1)
    }

    func testTheEncoderSealsWhatTheGoldenExampleDescribes() throws {
        // The encoder's own path (random nonce) gives a record of the same shape that opens.
        var records: [UInt8] = []
        let value: [UInt8] = Array("v".utf8)
        _ = try value.withUnsafeBytes { value in
            RecordEncoder.appendPut(
                to: &records, sequence: 1, keyspace: Keyspace(1), key: StorageKey("k"), value: value,
                compression: .init(threshold: .max, level: 3), seal: try seal, bufferOffset: 64)
        }
        XCTAssertEqual(records.count, try putRecord().count)
        XCTAssertEqual(Array(records[4..<18]), Array(try putRecord()[4..<18]))
        let opened = try records.withUnsafeBytes { raw in
            try RecordDecoder.withDecoded(raw, seal: try seal, at: 64) { try $0.get().value() }
        }
        XCTAssertEqual(opened, value)
    }
}
