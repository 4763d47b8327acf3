import Foundation
@_spi(Testing) import StrataStorage
import XCTest

@testable import Strata

/// The ordered values of index entry keys (IndexKeyEncoding.swift): byte order is
/// `FieldOrder.compare`'s order for every indexable type, values delimit themselves, and
/// malformed bytes never trap.
final class IndexKeyEncodingTests: XCTestCase {
    private func ordered(_ value: FieldValue) -> [UInt8] {
        var bytes: [UInt8] = []
        IndexKeyEncoding.appendValue(value, to: &bytes)
        return bytes
    }

    private func sign(_ number: Int) -> Int { number < 0 ? -1 : (number > 0 ? 1 : 0) }

    private func byteOrder(_ lhs: [UInt8], _ rhs: [UInt8]) -> Int {
        lhs == rhs ? 0 : (lhs.lexicographicallyPrecedes(rhs) ? -1 : 1)
    }

    /// Values of one indexable kind, drawn so that ties, neighbours and extremes are common.
    static func randomValue(_ kind: Int, _ random: inout SplitMix64) -> FieldValue {
        switch kind {
        case 0: return .int([Int64.min, .max, -1, 0, 1, Int64.random(in: -3...3, using: &random), Int64.random(in: .min ... .max, using: &random)].randomElement(using: &random)!)
        case 1: return .bool(Bool.random(using: &random))
        case 2: return .string(randomString(&random))
        case 3: return .date(randomSeconds(&random))
        case 4:
            var bytes = (0..<16).map { _ in UInt8.random(in: 0...2, using: &random) * 127 }
            if Bool.random(using: &random) { bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &random) } }
            return .uuid(UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                                     bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15])))
        default:
            return .objectId(ObjectId(bytes: (0..<12).map { _ in [0, 1, 0x7F, 0x80, 0xFF, UInt8.random(in: 0...255, using: &random)].randomElement(using: &random)! }))
        }
    }

    /// Strings over an alphabet with NUL, 0xFF-adjacent UTF-8 and multi-byte scalars, some
    /// longer than `maxStringBytes` with a shared start.
    static func randomString(_ random: inout SplitMix64) -> String {
        let alphabet: [String] = ["", "\0", "a", "b", "é", "e\u{301}", "\u{7F}", "\u{FFFF}", "😀", "z"]
        var text = (0..<Int.random(in: 0...6, using: &random)).map { _ in alphabet.randomElement(using: &random)! }.joined()
        if Int.random(in: 0..<5, using: &random) == 0 {
            text = String(repeating: "x", count: IndexKeyEncoding.maxStringBytes - Int.random(in: 0...2, using: &random)) + text
        }
        return text
    }

    static func randomSeconds(_ random: inout SplitMix64) -> Double {
        [0.0, -0.0, 1, -1, .infinity, -.infinity, .leastNonzeroMagnitude, -.leastNonzeroMagnitude, .greatestFiniteMagnitude,
         Double(Int.random(in: -3...3, using: &random)) / 2, Double.random(in: -1e9...1e9, using: &random)].randomElement(using: &random)!
    }

    func testByteOrderIsFieldOrderForEveryIndexableKind() throws {
        var random = SplitMix64(seed: 0x1DE5_0001)
        for round in 0..<40_000 {
            let kind = round % 6
            let lhs = Bool.random(using: &random) && round % 50 == 0 ? FieldValue.null : Self.randomValue(kind, &random)
            let rhs = Self.randomValue(kind, &random)
            let order = try XCTUnwrap(FieldOrder.compare(lhs, rhs))
            let bytes = byteOrder(ordered(lhs), ordered(rhs))
            if IndexKeyEncoding.isExact(lhs) && IndexKeyEncoding.isExact(rhs) {
                XCTAssertEqual(sign(order), bytes, "\(lhs) vs \(rhs)")
            } else {
                // Cut strings: monotone, ties allowed.
                XCTAssertTrue(order == 0 || bytes == 0 || sign(order) == bytes, "\(lhs) vs \(rhs)")
            }
        }
    }

    func testEqualOrderedValuesMeanEqualStoredValuesUnlessNotExact() {
        var random = SplitMix64(seed: 0x1DE5_0002)
        for round in 0..<20_000 {
            let kind = round % 6
            let lhs = Self.randomValue(kind, &random), rhs = Self.randomValue(kind, &random)
            guard ordered(lhs) == ordered(rhs), IndexKeyEncoding.isExact(lhs) else { continue }
            if case .date(let a) = lhs, case .date(let b) = rhs, a == 0, b == 0 { continue }   // -0 and +0 share
            XCTAssertEqual(lhs, rhs)
        }
    }

    func testNaNDatesSortAfterInfinityAndShareOneEncoding() {
        let nan = ordered(.date(.nan)), negativeNaN = ordered(.date(-Double.nan))
        XCTAssertEqual(nan, negativeNaN)
        XCTAssertTrue(ordered(.date(.infinity)).lexicographicallyPrecedes(nan))
        XCTAssertFalse(IndexKeyEncoding.isExact(.date(.nan)))
        XCTAssertEqual(ordered(.date(-0.0)), ordered(.date(0.0)))
    }

    func testNullSortsFirst() {
        var random = SplitMix64(seed: 0x1DE5_0003)
        for round in 0..<600 {
            XCTAssertTrue(ordered(.null).lexicographicallyPrecedes(ordered(Self.randomValue(round % 6, &random))))
        }
    }

    func testOrderedValuesDelimitThemselvesAndDecode() throws {
        var random = SplitMix64(seed: 0x1DE5_0004)
        for round in 0..<6_000 {
            let value = Self.randomValue(round % 6, &random)
            let bytes = ordered(value)
            let tail = (0..<Int.random(in: 0...5, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
            let whole = bytes + tail
            try whole.withUnsafeBytes { raw in
                XCTAssertEqual(IndexKeyEncoding.valueLength(raw), bytes.count, "\(value)")
                let decoded = try XCTUnwrap(IndexKeyEncoding.decodeValue(raw))
                XCTAssertEqual(decoded.isCut, !IndexKeyEncoding.isExact(value))
                if case .date(let seconds) = value, seconds == 0 {
                    XCTAssertEqual(decoded.value, .date(0))
                } else if !decoded.isCut {
                    XCTAssertEqual(decoded.value, value)
                }
            }
        }
    }

    func testMalformedOrderedValuesDoNotParse() {
        let cases: [[UInt8]] = [
            [], [0x03, 1, 2], [0x06, 0x61], [0x06, 0x61, 0x00], [0x06, 0x00, 0x02], [0x0A] + Array(repeating: 0, count: 15),
            [0x0B, 1], [0x08], [0x04], [0x07, 0, 0], [0x20],
        ]
        for bytes in cases {
            bytes.withUnsafeBytes { raw in
                XCTAssertNil(IndexKeyEncoding.valueLength(raw), "\(bytes)")
                XCTAssertNil(IndexKeyEncoding.decodeValue(raw), "\(bytes)")
            }
        }
        var random = SplitMix64(seed: 0x1DE5_0005)
        for _ in 0..<20_000 {
            let bytes = (0..<Int.random(in: 0...24, using: &random)).map { _ in [0, 1, 3, 6, 8, 0xFF, UInt8.random(in: 0...255, using: &random)].randomElement(using: &random)! }
            bytes.withUnsafeBytes { raw in
                if let length = IndexKeyEncoding.valueLength(raw) { XCTAssertLessThanOrEqual(length, bytes.count) }
                _ = IndexKeyEncoding.decodeValue(raw)
            }
        }
    }

    func testLongStringsAreCutAndMarked() {
        let long = String(repeating: "a", count: IndexKeyEncoding.maxStringBytes + 5)
        let bytes = ordered(.string(long))
        XCTAssertEqual(bytes.count, 1 + IndexKeyEncoding.maxStringBytes + 2)
        XCTAssertEqual(Array(bytes.suffix(2)), [0x00, 0x01])
        XCTAssertEqual(bytes, ordered(.string(long + "zzz")), "strings sharing their first 1,024 bytes share an ordered value")
        XCTAssertTrue(ordered(.string(String(long.prefix(IndexKeyEncoding.maxStringBytes)))).lexicographicallyPrecedes(bytes))
    }

    func testPrefixSuccessor() {
        XCTAssertEqual(IndexKeyEncoding.prefixSuccessor([1, 2, 3]), [1, 2, 4])
        XCTAssertEqual(IndexKeyEncoding.prefixSuccessor([1, 0xFF, 0xFF]), [2])
        XCTAssertNil(IndexKeyEncoding.prefixSuccessor([0xFF, 0xFF]))
        XCTAssertNil(IndexKeyEncoding.prefixSuccessor([]))
    }

    func testEntryKeysLongerThanTheEngineAllowsAreCut() {
        let prefix = IndexKeyEncoding.valuePrefix(classID: 16, propertyID: 2, value: .int(7))
        let object = StorageKey(Array(repeating: UInt8(0x41), count: ObjectFormat.maxObjectKeyLength))
        let key = IndexKeyEncoding.entryKey(valuePrefix: prefix, object: object)
        XCTAssertEqual(key.count, ObjectFormat.maxStorageKeyLength)
        XCTAssertTrue(IndexKeyEncoding.mayBeShared(key))
        XCTAssertFalse(IndexKeyEncoding.mayBeShared(IndexKeyEncoding.entryKey(valuePrefix: prefix, object: StorageKey("short"))))
    }
}
