import XCTest
@_spi(Testing) @testable import StrataStorage

/// The MANIFEST decoder at the edges of its rules: each limit's last accepted value and first
/// refused one, and which check refuses what (the error's offset says which).
final class ManifestEdgeTests: XCTestCase {
    func assertCorruption(
        _ body: @autoclosure () throws -> Manifest?, atOffset offset: Int,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertThrowsError(try body(), file: file, line: line) { error in
            XCTAssertEqual((error as? StrataError)?.code, .corruption, "\(error)", file: file, line: line)
            XCTAssertEqual((error as? StrataError)?.offset, offset, "\(error)", file: file, line: line)
        }
    }

    /// 28 bytes is a whole manifest with an empty list: refused for its count (offset 12),
    /// while 27 bytes is cut short (offset 0).
    func testEmptyListIsRefusedAtItsCountAndOneByteLessIsCutShort() {
        let empty = Manifest(segments: [], lastSequence: 0).encoded()
        XCTAssertEqual(empty.count, 28)
        assertCorruption(try Manifest.decode(empty, file: "m"), atOffset: 12)
        assertCorruption(try Manifest.decode(Array(empty.dropLast()), file: "m"), atOffset: 0)
    }

    func testSequenceFloorJustBelowTheLimitIsReadAndTheLimitIsCorruption() throws {
        let below = Manifest(segments: [1], lastSequence: RecordFormat.maxSequence - 1)
        XCTAssertEqual(try Manifest.decode(below.encoded(), file: "m"), below)
        let atLimit = Manifest(segments: [1], lastSequence: RecordFormat.maxSequence).encoded()
        assertCorruption(try Manifest.decode(atLimit, file: "m"), atOffset: 16)
    }

    /// Version 1 lists log segments in strictly increasing order: a number twice is corruption.
    func testVersionOneRefusesTheSameSegmentTwice() {
        let repeated = Manifest(segments: [1, 2, 2], lastSequence: 0, version: Manifest.logOnlyVersion).encoded()
        assertCorruption(try Manifest.decode(repeated, file: "m"), atOffset: 24)
    }

    /// A manifest of `Manifest.maxSegments` segments is read; one more segment is refused as too
    /// large before it is read (offset 0).
    func testTheLargestSegmentCountIsReadAndOneMoreIsRefused() throws {
        let fileSystem = MemoryFileSystem()
        let largest = Manifest(segments: (1...UInt32(Manifest.maxSegments)).map { $0 }, lastSequence: 0)
        fileSystem.setContents(largest.encoded(), of: "/db/MANIFEST")
        XCTAssertEqual(try Manifest.read(in: "/db", fileSystem: fileSystem)?.segments.count, Manifest.maxSegments)
        let tooMany = Manifest(segments: (1...UInt32(Manifest.maxSegments + 1)).map { $0 }, lastSequence: 0)
        fileSystem.setContents(tooMany.encoded(), of: "/db/MANIFEST")
        assertCorruption(try Manifest.read(in: "/db", fileSystem: fileSystem), atOffset: 0)
        // Decoded without the size check, the count check refuses it (offset 12).
        assertCorruption(try Manifest.decode(tooMany.encoded(), file: "m"), atOffset: 12)
    }
}
