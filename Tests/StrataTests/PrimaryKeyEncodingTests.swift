import XCTest
@testable import Strata
@_spi(Testing) import StrataStorage

/// The storage keys of primary keys: their bytes are the on-disk format, so they are pinned.
final class PrimaryKeyEncodingTests: XCTestCase {
    func testIntegerKeysAreTheirBigEndianBytesWithTheSignBitFlipped() {
        var generator = SplitMix64(seed: 7)
        let numbers: [Int64] = [0, 1, -1, 255, 256, .min, .max, .min + 1, .max - 1]
            + (0..<200).map { _ in Int64(bitPattern: generator.next()) }
        for number in numbers {
            let expected = withUnsafeBytes(of: (UInt64(bitPattern: number) ^ (1 << 63)).bigEndian) { Array($0) }
            XCTAssertEqual(PrimaryKeyEncoding.key(for: .int(number), optional: false)?.bytes, expected, "\(number)")
            XCTAssertEqual(PrimaryKeyEncoding.key(for: .int(number), optional: true)?.bytes, [1] + expected, "\(number)")
            XCTAssertEqual(PrimaryKeyEncoding.key(for: .int(number), optional: false), StorageKey(expected))
            XCTAssertEqual(
                PrimaryKeyEncoding.value(of: PrimaryKeyEncoding.key(for: .int(number), optional: false)!, optional: false, type: .int),
                .int(number))
        }
        // Keys sort as the integers do.
        let sorted = numbers.sorted()
        let keys = sorted.map { PrimaryKeyEncoding.key(for: .int($0), optional: false)! }
        XCTAssertEqual(keys, keys.sorted())
        XCTAssertEqual(PrimaryKeyEncoding.key(for: .null, optional: true)?.bytes, [0])
    }
}
