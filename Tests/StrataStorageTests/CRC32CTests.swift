import XCTest

@_spi(Testing) @testable import StrataStorage

final class CRC32CTests: XCTestCase {
    /// Bit-at-a-time CRC-32C, the reference the table-driven code must agree with.
    private func referenceCRC(_ bytes: some Sequence<UInt8>, extending crc: UInt32 = 0) -> UInt32 {
        var crc = ~crc
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 {
                crc = (crc & 1) != 0 ? (crc >> 1) ^ 0x82F6_3B78 : crc >> 1
            }
        }
        return ~crc
    }

    func testKnownVectors() {
        XCTAssertEqual(CRC32C.checksum(Array("123456789".utf8)), 0xE306_9283)
        XCTAssertEqual(CRC32C.checksum([UInt8](repeating: 0, count: 32)), 0x8A91_36AA)
        XCTAssertEqual(CRC32C.checksum([UInt8](repeating: 0xFF, count: 32)), 0x62A8_AB43)
        XCTAssertEqual(CRC32C.checksum((0..<32).map { UInt8($0) }), 0x46DD_794E)
        XCTAssertEqual(CRC32C.checksum((0..<32).map { UInt8(31 - $0) }), 0x113F_DB5C)
    }

    func testTheInstructionAndTheTablesAgreeAtEveryLengthAndAlignment() {
        #if arch(x86_64)
        XCTAssertTrue(CRC32C.hasInstruction, "every x86-64 processor since 2008 has SSE 4.2")
        #endif
        var generator = seededGenerator(0xC2C_0002)
        let data = (0..<4_200).map { _ in UInt8.random(in: 0...255, using: &generator) }
        data.withUnsafeBytes { raw in
            for start in 0..<9 {
                for length in [0, 1, 7, 8, 9, 15, 16, 17, 63, 64, 65, 1_000, 4_096] {
                    let piece = UnsafeRawBufferPointer(rebasing: raw[start..<(start + length)])
                    let seed = UInt32(truncatingIfNeeded: start &* 0x9E37_79B9)
                    XCTAssertEqual(
                        CRC32C.checksum(piece, extending: seed), CRC32C.portableChecksum(piece, extending: seed),
                        "start \(start), length \(length)")
                }
            }
            let piece = UnsafeRawBufferPointer(rebasing: raw[3..<300])
            XCTAssertEqual(CRC32C.portableChecksum(piece), referenceCRC(piece))
        }
    }

    func testEmptyInput() {
        XCTAssertEqual(CRC32C.checksum([]), 0)
        XCTAssertEqual(CRC32C.checksum(UnsafeRawBufferPointer(start: nil, count: 0)), 0)
        XCTAssertEqual(
            CRC32C.checksum(UnsafeRawBufferPointer(start: nil, count: 0), extending: 0x1234_5678),
            0x1234_5678)
    }

    func testExtendingEqualsWhole() {
        var generator = seededGenerator(0xC2C_0001)
        let data = (0..<777).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let whole = CRC32C.checksum(data)
        data.withUnsafeBytes { raw in
            for split in [0, 1, 7, 8, 9, 100, 776, 777] {
                let first = CRC32C.checksum(UnsafeRawBufferPointer(rebasing: raw[..<split]))
                let both = CRC32C.checksum(
                    UnsafeRawBufferPointer(rebasing: raw[split...]), extending: first)
                XCTAssertEqual(both, whole, "split at \(split)")
            }
            // Many small pieces.
            var crc: UInt32 = 0
            var start = 0
            while start < raw.count {
                let end = min(raw.count, start + Int.random(in: 0...13, using: &generator))
                crc = CRC32C.checksum(
                    UnsafeRawBufferPointer(rebasing: raw[start..<end]), extending: crc)
                start = end
            }
            XCTAssertEqual(crc, whole)
        }
        let prefix = CRC32C.checksum(Array("123".utf8))
        let suffix = Array("456789".utf8).withUnsafeBytes { CRC32C.checksum($0, extending: prefix) }
        XCTAssertEqual(suffix, 0xE306_9283)
    }

    func testMaskRoundTrip() {
        #if arch(x86_64)
        XCTAssertTrue(CRC32C.hasInstruction, "every x86-64 processor since 2008 has SSE 4.2")
        #endif
        var generator = seededGenerator(0xC2C_0002)
        var values: [UInt32] = [0, 1, 0xFFFF_FFFF, 0xE306_9283, 0xA282_EAD8, 0x8000_0000]
        for _ in 0..<1000 { values.append(UInt32.random(in: .min ... .max, using: &generator)) }
        for value in values {
            XCTAssertEqual(CRC32C.unmask(CRC32C.mask(value)), value)
            XCTAssertEqual(CRC32C.mask(CRC32C.unmask(value)), value)
            XCTAssertNotEqual(CRC32C.mask(value), value)
        }
        // LevelDB: mask(crc) == ((crc >> 15) | (crc << 17)) + 0xa282ead8.
        XCTAssertEqual(CRC32C.mask(0), 0xA282_EAD8)
        let crc: UInt32 = 0xE306_9283
        XCTAssertEqual(CRC32C.mask(crc), ((crc >> 15) | (crc << 17)) &+ 0xA282_EAD8)
        XCTAssertNotEqual(CRC32C.mask(CRC32C.mask(0x1234_5678)), CRC32C.mask(0x1234_5678))
    }

    func testSlicingMatchesReferenceAtRandomLengthsAndAlignments() {
        var generator = seededGenerator(0xC2C_0003)
        let backing = (0..<1100).map { _ in UInt8.random(in: 0...255, using: &generator) }
        backing.withUnsafeBytes { raw in
            for length in 0...1000 {
                let offset = Int.random(in: 0..<16, using: &generator)
                let slice = UnsafeRawBufferPointer(rebasing: raw[offset..<(offset + length)])
                let seed = length % 3 == 0 ? 0 : UInt32.random(in: .min ... .max, using: &generator)
                XCTAssertEqual(
                    CRC32C.checksum(slice, extending: seed), referenceCRC(slice, extending: seed),
                    "length \(length) offset \(offset)")
            }
        }
    }
}
