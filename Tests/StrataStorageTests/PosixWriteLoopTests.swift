import Foundation
import XCTest
@testable import StrataStorage

/// The loop behind `PosixFile.write`: short writes go on, a write of zero bytes is an error.
final class PosixWriteLoopTests: XCTestCase {
    func testWriteOfZeroBytesIsAnIOErrorNotAnEndlessLoop() {
        var calls = 0
        var written = 0
        XCTAssertThrowsError(try PosixFile.writeAll(count: 10, at: 0, path: "f", written: &written) { _ in
            calls += 1
            return calls > 1000 ? -1 : 0
        }) { error in
            XCTAssertEqual((error as? StrataError)?.code, .io)
        }
        XCTAssertEqual(calls, 1)
        XCTAssertEqual(written, 0)
    }

    func testShortWritesAreContinued() throws {
        var offsets: [Int] = []
        var written = 0
        try PosixFile.writeAll(count: 10, at: 0, path: "f", written: &written) { done in
            offsets.append(done)
            return min(3, 10 - done)
        }
        XCTAssertEqual(written, 10)
        XCTAssertEqual(offsets, [0, 3, 6, 9])
    }
}
