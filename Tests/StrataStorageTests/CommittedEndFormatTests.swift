import XCTest
@_spi(Testing) @testable import StrataStorage

/// The bytes of `COMMITTED` (format.md §13), with a checksum computed by an independent CRC-32C.
final class CommittedEndFormatTests: XCTestCase {
    /// Session 0x0123456789ABCDEF, segment 7, end 0x1040.
    private let golden: [UInt8] = [
        0x53, 0x54, 0x52, 0x41, 0x54, 0x41, 0x43, 0x45, 0xef, 0xcd, 0xab, 0x89, 0x67, 0x45, 0x23, 0x01,
        0x07, 0x00, 0x00, 0x00, 0x40, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x25, 0x4c, 0x9e, 0xd6,
    ]
    private let record = CommittedEnd(session: 0x0123_4567_89AB_CDEF, segment: 7, end: 0x1040)

    func testGoldenBytes() {
        XCTAssertEqual(record.encoded(), golden)
        XCTAssertEqual(CommittedEnd.decode(golden), record)
    }

    func testEveryChangedByteOrLengthIsRefused() {
        for index in golden.indices {
            var damaged = golden
            damaged[index] ^= 0x01
            XCTAssertNil(CommittedEnd.decode(damaged), "byte \(index)")
        }
        XCTAssertNil(CommittedEnd.decode(Array(golden.dropLast())))
        XCTAssertNil(CommittedEnd.decode(golden + [0]))
    }

    func testAMissingOrDamagedFileReadsAsNone() throws {
        let memory = MemoryFileSystem()
        XCTAssertNil(CommittedEnd.read(in: "/db", fileSystem: memory))
        memory.setContents(golden, of: "/db/COMMITTED")
        XCTAssertEqual(CommittedEnd.read(in: "/db", fileSystem: memory), record)
        memory.corrupt(path: "/db/COMMITTED", at: 20, with: [0xFF])
        XCTAssertNil(CommittedEnd.read(in: "/db", fileSystem: memory))
    }
}
