import Foundation
import XCTest
@testable import StrataStorage

/// Out-of-range arguments to a POSIX file are typed errors, never a trap.
final class FileInputTests: XCTestCase {
    private var path = ""

    override func setUpWithError() throws {
        path = NSTemporaryDirectory() + "strata-input-\(UUID().uuidString)"
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: path)
    }

    func testNegativeReadCountIsAnErrorNotATrap() throws {
        let file = try PosixFileSystem().open(path, mode: .createNew)
        XCTAssertThrowsError(try file.readExactly(-1, at: 0)) { error in
            XCTAssertEqual((error as? StrataError)?.errno, EINVAL)
        }
    }

    func testWriteAtAnOffsetPastTheLargestIntegerIsAnErrorNotATrap() throws {
        let file = try PosixFileSystem().open(path, mode: .createNew)
        XCTAssertThrowsError(try file.write([1, 2, 3], at: Int.max - 1)) { error in
            XCTAssertEqual((error as? StrataError)?.errno, EINVAL)
        }
        XCTAssertThrowsError(try file.write([1], at: -5)) { error in
            XCTAssertEqual((error as? StrataError)?.errno, EINVAL)
        }
        XCTAssertEqual(try file.size(), 0)
    }
}
