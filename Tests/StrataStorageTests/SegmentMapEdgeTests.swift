import XCTest
@_spi(Testing) @testable import StrataStorage

/// The segment map's table at its ends: the first and last numbers resolve, and the numbers
/// just outside them are absent (not read past the table).
final class SegmentMapEdgeTests: XCTestCase {
    func testNumbersJustOutsideTheTableAreAbsent() throws {
        let fileSystem = MemoryFileSystem()
        fileSystem.setContents([], of: "/s")
        var map = SegmentMap()
        for number: UInt32 in [3, 4, 5, 9] {
            map[number] = SegmentFile(number: number, seal: .unsalted, path: "/s", file: try fileSystem.open("/s", mode: .readOnly), remover: nil)
        }
        XCTAssertEqual(map[3]?.number, 3)
        XCTAssertEqual(map[9]?.number, 9)
        XCTAssertNil(map[2])
        XCTAssertNil(map[10])
    }
}
