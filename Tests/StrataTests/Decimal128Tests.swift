import Foundation
import XCTest

@testable import Strata
@_spi(Testing) import StrataStorage

// Hand-written Decimal128 tests. Expected strings and bits were computed independently with
// Python's `decimal` module in the decimal128 context (precision 34, Emax 6144, Emin -6143,
// clamp 1, ROUND_HALF_EVEN). The BSON corpus vectors are in Decimal128CorpusTests.swift.


final class Decimal128Tests: XCTestCase {
    private func d(_ string: String) -> Decimal128 {
        do { return try Decimal128(string: string) } catch { XCTFail("\(error)"); return .nan }
    }

    func testVectorsBothWays() throws {
        let vectors: [(input: String, high: UInt64, low: UInt64, canonical: String)] = [
            ("0", 0x3040_0000_0000_0000, 0x0000_0000_0000_0000, "0"),
            ("-0", 0xB040_0000_0000_0000, 0x0000_0000_0000_0000, "-0"),
            ("0E-6176", 0x0000_0000_0000_0000, 0x0000_0000_0000_0000, "0E-6176"),
            ("1E+6144", 0x5FFE_314D_C644_8D93, 0x38C1_5B0A_0000_0000, "1.000000000000000000000000000000000E+6144"),
            ("9999999999999999999999999999999999", 0x3041_ED09_BEAD_87C0, 0x378D_8E63_FFFF_FFFF, "9999999999999999999999999999999999"),
            ("1.000000000000000000000000000000000E+6144", 0x5FFE_314D_C644_8D93, 0x38C1_5B0A_0000_0000, "1.000000000000000000000000000000000E+6144"),
            ("NaN", 0x7C00_0000_0000_0000, 0x0000_0000_0000_0000, "NaN"),
            ("Infinity", 0x7800_0000_0000_0000, 0x0000_0000_0000_0000, "Infinity"),
            ("-Inf", 0xF800_0000_0000_0000, 0x0000_0000_0000_0000, "-Infinity"),
            ("0.000001", 0x3034_0000_0000_0000, 0x0000_0000_0000_0001, "0.000001"),
            ("1E-7", 0x3032_0000_0000_0000, 0x0000_0000_0000_0001, "1E-7"),
            ("123456789012345678901234567890.1234", 0x3038_3CDE_6FFF_9732, 0xDE82_5CD0_7E96_AFF2, "123456789012345678901234567890.1234"),
            ("1.0", 0x303E_0000_0000_0000, 0x0000_0000_0000_000A, "1.0"),
            ("+1", 0x3040_0000_0000_0000, 0x0000_0000_0000_0001, "1"),
            ("1e3", 0x3046_0000_0000_0000, 0x0000_0000_0000_0001, "1E+3"),
            ("0001", 0x3040_0000_0000_0000, 0x0000_0000_0000_0001, "1"),
            ("123.456", 0x303A_0000_0000_0000, 0x0000_0000_0001_E240, "123.456"),
            ("-0.00001", 0xB036_0000_0000_0000, 0x0000_0000_0000_0001, "-0.00001"),
            ("1.234E+5", 0x3044_0000_0000_0000, 0x0000_0000_0000_04D2, "1.234E+5"),
            ("1e-6176", 0x0000_0000_0000_0000, 0x0000_0000_0000_0001, "1E-6176"),
            ("-1.5E-10", 0xB02A_0000_0000_0000, 0x0000_0000_0000_000F, "-1.5E-10"),
            ("0.0000001234", 0x302C_0000_0000_0000, 0x0000_0000_0000_04D2, "1.234E-7"),
        ]
        for vector in vectors {
            let parsed = try Decimal128(string: vector.input)
            XCTAssertEqual(parsed.highBits, vector.high, vector.input)
            XCTAssertEqual(parsed.lowBits, vector.low, vector.input)
            XCTAssertEqual(parsed.stringValue, vector.canonical, vector.input)
            let fromBits = Decimal128(highBits: vector.high, lowBits: vector.low)
            XCTAssertEqual(fromBits.stringValue, vector.canonical)
            XCTAssertEqual(Decimal128(fromBits.description)?.highBits, vector.high)
        }
    }

    func testRandom34DigitRoundTripIsExact() throws {
        var rng = SplitMix64(seed: 0x5EED_DEC1_28)
        let limit = Decimal128.powerOf10(34)
        for iteration in 0..<10_000 {
            // Mostly full 34-digit coefficients, sometimes shorter ones.
            var coefficient = UInt128(rng.next()) << 64 | UInt128(rng.next())
            coefficient = iteration % 4 == 0
                ? coefficient % limit
                : Decimal128.powerOf10(33) + coefficient % (limit - Decimal128.powerOf10(33))
            let exponent = Int.random(in: -6176...6111, using: &rng)
            let negative = Bool.random(using: &rng)
            let string = (negative ? "-" : "") + "\(coefficient)E\(exponent)"
            let value = try Decimal128(string: string, exact: true)
            XCTAssertEqual(value.finiteParts.coefficient, coefficient, string)
            XCTAssertEqual(value.finiteParts.exponent, exponent, string)
            XCTAssertEqual(value.sign, negative ? FloatingPointSign.minus : FloatingPointSign.plus)
            let reparsed = try Decimal128(string: value.stringValue, exact: true)
            XCTAssertEqual(reparsed.highBits, value.highBits, string)
            XCTAssertEqual(reparsed.lowBits, value.lowBits, string)
            XCTAssertEqual(Decimal128(highBits: value.highBits, lowBits: value.lowBits).stringValue, value.stringValue)
        }
    }

    func testRoundingOfLongInputs() throws {
        let cases: [(String, String)] = [
            ("12345678901234567890123456789012345", "1.234567890123456789012345678901234E+34"),
            ("12345678901234567890123456789012355", "1.234567890123456789012345678901236E+34"),
            ("0.99999999999999999999999999999999995", "1.000000000000000000000000000000000"),
            ("9999999999999999999999999999999999.5", "1.000000000000000000000000000000000E+34"),
            ("5E-6177", "0E-6176"),
            ("15E-6177", "2E-6176"),
            ("25E-6177", "2E-6176"),
            ("1.11111111111111111111111111111234549", "1.111111111111111111111111111112345"),
            ("1.11111111111111111111111111111234550", "1.111111111111111111111111111112346"),
            ("-1.11111111111111111111111111111234550", "-1.111111111111111111111111111112346"),
            ("123456789012345678901234567890123450000000", "1.234567890123456789012345678901234E+41"),
        ]
        for (input, expected) in cases {
            XCTAssertEqual(try Decimal128(string: input).stringValue, expected, input)
            XCTAssertThrowsError(try Decimal128(string: input, exact: true), input)
        }
        // Trailing zeros beyond 34 digits are exact.
        XCTAssertEqual(try Decimal128(string: "1234567890123456789012345678901234000", exact: true).stringValue,
                       "1.234567890123456789012345678901234E+36")
        XCTAssertThrowsError(try Decimal128(string: "9.9999999999999999999999999999999995E+6144")) { error in
            XCTAssertEqual((error as? Decimal128ParseError)?.reason, .overflow)
        }
    }

    func testInvalidStringsThrow() {
        for string in ["", "1.2.3", "abc", "1e", "--1", "1e+", "+", "-", ".", "e5", "1_000", "0x10", "１", "1,5", "∞"] {
            XCTAssertThrowsError(try Decimal128(string: string), string.debugDescription) { error in
                XCTAssertEqual((error as? Decimal128ParseError)?.reason, .invalidSyntax)
                XCTAssertEqual((error as? Decimal128ParseError)?.input, string)
            }
            XCTAssertNil(Decimal128(string))
        }
        XCTAssertTrue("\(Decimal128ParseError(input: "1.2.3", reason: .invalidSyntax))".contains("1.2.3"))
    }

    func testArithmetic() {
        let cases: [(String, String, String, String)] = [
            ("1.1", "+", "2.2", "3.3"),
            ("1.00", "+", "1", "2.00"),
            ("0.1", "+", "0.2", "0.3"),
            ("1E+2", "+", "1", "101"),
            ("1", "-", "1", "0"),
            ("-0", "+", "-0", "-0"),
            ("0", "-", "0", "0"),
            ("-0", "-", "0", "-0"),
            ("-1", "+", "1", "0"),
            ("1E-6176", "-", "1E-6176", "0E-6176"),
            ("9999999999999999999999999999999999", "+", "1", "1.000000000000000000000000000000000E+34"),
            ("9999999999999999999999999999999999", "+", "0.5", "1.000000000000000000000000000000000E+34"),
            ("1234567890123456789012345678901234", "+", "0.5", "1234567890123456789012345678901234"),
            ("1234567890123456789012345678901235", "+", "0.5", "1234567890123456789012345678901236"),
            ("1E+40", "+", "1", "1.000000000000000000000000000000000E+40"),
            ("1E+40", "-", "1", "1.000000000000000000000000000000000E+40"),
            ("1", "-", "1E-40", "1.000000000000000000000000000000000"),
            ("1", "-", "1E-33", "0.999999999999999999999999999999999"),
            ("123.456", "-", "123.456000", "0.000000"),
            ("1E+10", "+", "0E-5", "10000000000.00000"),
            ("0E+100", "+", "1E-5", "0.00001"),
            ("-5", "+", "3", "-2"),
            ("3", "-", "5", "-2"),
            ("Infinity", "+", "-Infinity", "NaN"),
            ("Infinity", "+", "1", "Infinity"),
            ("-Infinity", "-", "1", "-Infinity"),
            ("NaN", "+", "1", "NaN"),
            ("9.999999999999999999999999999999999E+6144", "+", "1E+6111", "Infinity"),
            ("1.5", "*", "2", "3.0"),
            ("0.1", "*", "0.1", "0.01"),
            ("1.23", "*", "4.56", "5.6088"),
            ("9999999999999999999999999999999999", "*", "9999999999999999999999999999999999", "9.999999999999999999999999999999998E+67"),
            ("-2", "*", "0", "-0"),
            ("0", "*", "Infinity", "NaN"),
            ("1E+6144", "*", "10", "Infinity"),
            ("1E-6176", "*", "0.1", "0E-6176"),
            ("1E-6176", "*", "0.5", "0E-6176"),
            ("3E-6176", "*", "0.5", "2E-6176"),
            ("-1.5", "*", "-1.5", "2.25"),
            ("123456789012345678", "*", "987654321098765432", "1.219326311370217943225118122210029E+35"),
            ("1", "/", "3", "0.3333333333333333333333333333333333"),
            ("2", "/", "3", "0.6666666666666666666666666666666667"),
            ("1", "/", "8", "0.125"),
            ("10", "/", "5", "2"),
            ("1.00", "/", "2", "0.50"),
            ("100", "/", "1E+2", "1.00"),
            ("1", "/", "0", "Infinity"),
            ("-1", "/", "0", "-Infinity"),
            ("0", "/", "0", "NaN"),
            ("0", "/", "5", "0"),
            ("1E+6144", "/", "1E-6176", "Infinity"),
            ("1", "/", "Infinity", "0E-6176"),
            ("22", "/", "7", "3.142857142857142857142857142857143"),
            ("1", "/", "7", "0.1428571428571428571428571428571429"),
            ("9999999999999999999999999999999999", "/", "3", "3333333333333333333333333333333333"),
            ("-7.5", "/", "2.5", "-3"),
            ("1E-6176", "/", "3", "0E-6176"),
            ("1", "/", "9999999999999999999999999999999999", "1.000000000000000000000000000000000E-34"),
            ("6", "/", "-0.02", "-3E+2"),
            ("Infinity", "/", "Infinity", "NaN"),
            ("0.000", "/", "1E+5", "0E-8"),
        ]
        for (lhs, op, rhs, expected) in cases {
            let a = d(lhs), b = d(rhs)
            let result: Decimal128
            switch op {
            case "+": result = a + b
            case "-": result = a - b
            case "*": result = a * b
            default: result = a / b
            }
            XCTAssertEqual(result.stringValue, expected, "\(lhs) \(op) \(rhs)")
        }
        var total: Decimal128 = 0
        for _ in 0..<10 { total += 0.1 }
        XCTAssertEqual(total.stringValue, "1.0")
        total -= 0.5
        total *= 3
        total /= 2
        XCTAssertEqual(total.stringValue, "0.75")
        XCTAssertEqual([Decimal128](["1.5", "2.25", "-0.75"]).reduce(0, +).stringValue, "3.00")
    }

    func testEqualityOrderingAndHashing() {
        XCTAssertEqual(d("1.0"), d("1.00"))
        XCTAssertEqual(d("1.0").hashValue, d("1.00").hashValue)
        XCTAssertEqual(d("-0"), d("0"))
        XCTAssertEqual(d("0E-6176"), d("-0E+6111"))
        XCTAssertEqual(d("0E-6176").hashValue, d("-0E+6111").hashValue)
        XCTAssertEqual(d("1E+2"), d("100"))
        XCTAssertEqual(d("1E+33"), d("1000000000000000000000000000000000"))
        XCTAssertEqual(d("1E+33").hashValue, d("1000000000000000000000000000000000").hashValue)
        XCTAssertNotEqual(d("1.0"), d("1.01"))
        XCTAssertNotEqual(d("1"), d("-1"))
        XCTAssertEqual(Decimal128.nan, Decimal128.nan, "NaN equals NaN: == is an equivalence relation")
        XCTAssertEqual(Decimal128.nan, -Decimal128.signalingNaN)
        XCTAssertEqual(Decimal128.nan.hashValue, (-Decimal128.signalingNaN).hashValue)
        XCTAssertEqual(Set([d("1"), d("1.0"), d("1.000"), d("1E0"), d("2"), d("0"), d("-0.00")]).count, 3)
        XCTAssertEqual(d("1.0").stringValue, "1.0", "equal values keep their own representation")

        let ordered = [
            "NaN", "-Infinity", "-9.999999999999999999999999999999999E+6144", "-1E+10", "-2", "-1.5",
            "-1E-6176", "0", "1E-6176", "9.999999999999999999999999999999999E-6143", "0.1", "0.99", "1",
            "1.000000000000000000000000000000001", "2", "1E+2", "101", "9.999999999999999999999999999999999E+6144",
            "Infinity",
        ].map(d)
        for (i, a) in ordered.enumerated() {
            for (j, b) in ordered.enumerated() {
                XCTAssertEqual(a < b, i < j, "\(a) < \(b)")
                XCTAssertEqual(a == b, i == j, "\(a) == \(b)")
            }
        }
        var random = SplitMix64(seed: 0xDEC_5047)
        XCTAssertEqual(ordered.shuffled(using: &random).sorted().map(\.stringValue), ordered.map(\.stringValue),
                       "shuffled with seed 0xDEC_5047")
        XCTAssertTrue(d("-0") <= d("0") && d("-0") >= d("0"))
        XCTAssertLessThan(Decimal128.min, Decimal128.max)
        XCTAssertEqual(Decimal128.max.stringValue, "9.999999999999999999999999999999999E+6144")
        XCTAssertEqual(Decimal128.min.stringValue, "-9.999999999999999999999999999999999E+6144")
        XCTAssertEqual(Decimal128.leastNonzeroMagnitude.stringValue, "1E-6176")
    }

    func testClassificationAndSign() {
        XCTAssertTrue(Decimal128.nan.isNaN && !Decimal128.nan.isSignaling)
        XCTAssertTrue(Decimal128.signalingNaN.isNaN && Decimal128.signalingNaN.isSignaling)
        XCTAssertTrue(Decimal128.signalingNaN.isSignalingNaN)
        XCTAssertEqual(Decimal128.signalingNaN.stringValue, "NaN")
        XCTAssertTrue(Decimal128.infinity.isInfinite && !Decimal128.infinity.isFinite)
        XCTAssertTrue(d("-0").isZero && d("-0").sign == .minus && d("0").sign == .plus)
        XCTAssertFalse(d("1E-6176").isZero)
        XCTAssertEqual((-d("1.50")).stringValue, "-1.50")
        XCTAssertEqual(d("-1.50").magnitude.stringValue, "1.50")
        XCTAssertEqual((-d("0")).stringValue, "-0")
        var value = d("2.5")
        value.negate()
        XCTAssertEqual(value.stringValue, "-2.5")
        XCTAssertEqual(MemoryLayout<Decimal128>.size, 16)
    }

    func testNumberConversions() {
        XCTAssertEqual(Decimal128(0).stringValue, "0")
        XCTAssertEqual(Decimal128(Int.max).stringValue, "9223372036854775807")
        XCTAssertEqual(Decimal128(Int.min).stringValue, "-9223372036854775808")
        XCTAssertEqual(Decimal128(UInt64.max).stringValue, "18446744073709551615")
        XCTAssertEqual(Decimal128(UInt128.max).stringValue, "3.402823669209384634633746074317682E+38")
        XCTAssertNil(Decimal128(exactly: UInt128.max))
        XCTAssertEqual(Decimal128(exactly: Decimal128.powerOf10(37))?.stringValue, "1.000000000000000000000000000000000E+37")
        XCTAssertEqual(Decimal128(exactly: Int8(-7))?.stringValue, "-7")

        let doubles: [(Double, String)] = [
            (0.1, "0.1"), (2.0, "2"), (-0.0, "-0"), (1e-7, "1E-7"), (123.456, "123.456"), (1e16, "1E+16"),
            (1.7976931348623157e308, "1.7976931348623157E+308"), (.leastNonzeroMagnitude, "5E-324"), (.infinity, "Infinity"),
            (-.infinity, "-Infinity"), (.nan, "NaN"), (0.30000000000000004, "0.30000000000000004"),
        ]
        for (double, expected) in doubles {
            XCTAssertEqual(Decimal128(double).stringValue, expected, "\(double)")
        }
        XCTAssertEqual(d("0.1").doubleValue, 0.1)
        XCTAssertEqual(d("-1.5E+300").doubleValue, -1.5e300)
        XCTAssertEqual(d("1234567890123456789012345678901234").doubleValue, Double("1234567890123456789012345678901234"))
        XCTAssertEqual(d("1E+6144").doubleValue, .infinity)
        XCTAssertEqual(d("-1E-6176").doubleValue, 0)
        XCTAssertEqual(d("-1E-6176").doubleValue.sign, .minus)
        XCTAssertEqual(d("4.9E-324").doubleValue, .leastNonzeroMagnitude)
        XCTAssertTrue(Decimal128.nan.doubleValue.isNaN)
        XCTAssertEqual(Decimal128.infinity.doubleValue, .infinity)

        XCTAssertEqual(Decimal128(number: NSNumber(value: 1.5)).stringValue, "1.5")
        XCTAssertEqual(Decimal128(number: NSNumber(value: 42)).stringValue, "42")
        XCTAssertEqual(Decimal128(number: NSNumber(value: -42 as Int64)).stringValue, "-42")
        XCTAssertEqual(Decimal128(number: NSNumber(value: UInt64.max)).stringValue, "18446744073709551615")
        XCTAssertEqual(Decimal128(number: NSNumber(value: 0.1 as Float)).stringValue, "0.1")
        XCTAssertEqual(Decimal128(number: NSNumber(value: Float.infinity)).stringValue, "Infinity")
        XCTAssertEqual(Decimal128(number: NSNumber(value: true)).stringValue, "1")
    }

    func testLiterals() {
        let integer: Decimal128 = 42
        let float: Decimal128 = 0.1
        let string: Decimal128 = "1.2345678901234567890123456789"
        XCTAssertEqual(integer.stringValue, "42")
        XCTAssertEqual(float.stringValue, "0.1")
        XCTAssertEqual(string.stringValue, "1.2345678901234567890123456789")
        XCTAssertEqual(Decimal128.zero.stringValue, "0")
    }

    func testCodable() throws {
        struct Row: Codable, Equatable {
            var price: Decimal128
            var values: [Decimal128]
        }
        let row = Row(price: d("19.99"), values: [d("1.000"), d("-0"), .nan, .infinity, d("1E-6176"), .max])
        let data = try JSONEncoder().encode(row)
        let decoded = try JSONDecoder().decode(Row.self, from: data)
        XCTAssertEqual(decoded, row)
        XCTAssertEqual(decoded.values.map(\.stringValue), row.values.map(\.stringValue), "representation kept")
        XCTAssertEqual(decoded.values.map(\.highBits), row.values.map(\.highBits))
        XCTAssertEqual(String(decoding: try JSONEncoder().encode([d("1.50E+3")]), as: UTF8.self), #"["1.50E+3"]"#)
        XCTAssertEqual(try JSONDecoder().decode([Decimal128].self, from: Data("[12, 1.5, \"7E-3\"]".utf8)).map(\.stringValue),
                       ["12", "1.5", "0.007"])
        XCTAssertThrowsError(try JSONDecoder().decode([Decimal128].self, from: Data(#"["1.2.3"]"#.utf8)))
        XCTAssertThrowsError(try JSONDecoder().decode([Decimal128].self, from: Data("[true]".utf8)))
    }
}
