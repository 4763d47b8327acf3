import Foundation

// Decimal128: IEEE 754-2008 decimal128 in the BID (binary integer decimal) encoding, the format
// of BSON's decimal128 and of Realm's Decimal128. The value is the two 64-bit halves of the
// 128-bit pattern; everything else is computed from them.
//
// Bit layout of `highBits` (bit 63 first):
//   63      sign
//   62-61   != 11: first form:  62...49 biased exponent (14 bits), 48...0 coefficient bits 112...64
//   62-61   == 11, 60-59 != 11: second form: 60...47 biased exponent, coefficient 0b100 << 111 | ...
//                               which always exceeds 10^34 - 1, so it reads as zero (non-canonical)
//   62-58   11110: ±Infinity;  11111: NaN (bit 57 set: signaling)
// `lowBits` holds coefficient bits 63...0. Exponent bias 6176: exponents -6176...6111 apply to
// the integer coefficient (0...10^34 - 1), so values reach ±9.999…E+6144 and down to 1E-6176.
//
// Files: Decimal128+Rounding (the one rounding/clamping routine every operation ends in),
// +Parsing (from strings), +Conversions (from numbers and literals; Codable), +Formatting (to
// strings and Double), +Comparison (==, <, hashing), +Arithmetic (+ - * /).

/// A 128-bit IEEE 754-2008 decimal floating-point number in the BID encoding used by BSON,
/// MongoDB and Realm.
///
/// A `Decimal128` holds a sign, an integer coefficient of up to 34 decimal digits and a
/// power-of-ten exponent from -6176 to 6111 (so values of magnitude up to 9.999…E+6144 and down
/// to 1E-6176), or ±Infinity, or NaN. Decimal fractions such as `0.1` are exact, and the
/// coefficient keeps trailing zeros: `1.0` and `1.00` are different representations (printed
/// differently) of the same number.
///
/// Equality and ordering are numeric: `1.0 == 1.00` and `-0 == 0`. Unlike IEEE comparison, the
/// order is total so that the type can be sorted, hashed and indexed: every NaN equals every
/// other NaN and sorts before all other values (as in Realm's core), then `-Infinity`, the finite
/// numbers and `+Infinity`. Hashing is consistent with this equality.
///
/// Conversions from strings follow the BSON decimal128 specification and print in its
/// "to-scientific-string" form (`1.23E+3`, `0.001`, `-0`); arithmetic rounds half-to-even to 34
/// digits. `Decimal128` is an immutable value and is `Sendable`; it encodes (with `Codable`) as
/// its string.
public struct Decimal128: Sendable {
    /// The high 64 bits of the IEEE 754 BID encoding: sign, combination field, exponent and the
    /// top 49 bits of the coefficient.
    public let highBits: UInt64
    /// The low 64 bits of the IEEE 754 BID encoding: the bottom 64 bits of the coefficient.
    public let lowBits: UInt64

    /// Creates a value from the two halves of its 128-bit IEEE 754 BID encoding, for example as
    /// read from BSON (where `lowBits` comes first, little-endian).
    ///
    /// Every bit pattern is accepted. Non-canonical patterns (a coefficient above 10^34 - 1, or
    /// the second combination-field form) read as zero with their sign and exponent, as the
    /// standard requires.
    ///
    /// - Parameters:
    ///   - highBits: The high 64 bits.
    ///   - lowBits: The low 64 bits.
    public init(highBits: UInt64, lowBits: UInt64) {
        self.highBits = highBits
        self.lowBits = lowBits
    }

    // MARK: Constants of the format

    static let exponentBias = 6176
    /// The smallest exponent of the coefficient (Etiny).
    static let minExponent = -6176
    /// The largest exponent of the coefficient (Emax - 33).
    static let maxExponent = 6111
    /// Significant digits of the coefficient.
    static let precision = 34
    static let signBit: UInt64 = 1 << 63
    static let maxCoefficient: UInt128 = powerOf10(34) - 1

    /// A quiet NaN ("not a number").
    public static let nan = Decimal128(highBits: 0x7C00_0000_0000_0000, lowBits: 0)
    /// A signaling NaN. Arithmetic never produces one; it reads and prints as `NaN`.
    public static let signalingNaN = Decimal128(highBits: 0x7E00_0000_0000_0000, lowBits: 0)
    /// Positive infinity.
    public static let infinity = Decimal128(highBits: 0x7800_0000_0000_0000, lowBits: 0)
    /// The largest finite value, `9.999999999999999999999999999999999E+6144`.
    public static let max = encode(negative: false, coefficient: maxCoefficient, exponent: maxExponent)
    /// The smallest (most negative) finite value, `-9.999999999999999999999999999999999E+6144`.
    public static let min = encode(negative: true, coefficient: maxCoefficient, exponent: maxExponent)
    /// The smallest positive value, `1E-6176`.
    public static let leastNonzeroMagnitude = encode(negative: false, coefficient: 1, exponent: minExponent)

    // MARK: Classification

    /// Whether this value is a NaN (quiet or signaling).
    public var isNaN: Bool { (highBits >> 58) & 0x1F == 0x1F }

    /// Whether this value is a signaling NaN.
    ///
    /// Unlike Realm's property of the same name (which reports any NaN), this is `true` only for
    /// signaling NaNs; see ``isNaN``.
    public var isSignaling: Bool { (highBits >> 57) & 0x3F == 0x3F }

    /// Whether this value is a signaling NaN. The same as ``isSignaling``.
    public var isSignalingNaN: Bool { isSignaling }

    /// Whether this value is `+Infinity` or `-Infinity`.
    public var isInfinite: Bool { (highBits >> 58) & 0x1F == 0x1E }

    /// Whether this value is neither infinite nor NaN.
    public var isFinite: Bool { (highBits >> 59) & 0xF != 0xF }

    /// Whether this value is a zero of either sign and any exponent.
    public var isZero: Bool { isFinite && finiteParts.coefficient == 0 }

    /// The sign bit: `.minus` for negative values, including `-0`, `-Infinity` and NaNs with the
    /// sign bit set.
    public var sign: FloatingPointSign { highBits & Decimal128.signBit != 0 ? .minus : .plus }

    /// Whether the sign bit is set (see ``sign``).
    var isNegative: Bool { highBits & Decimal128.signBit != 0 }

    /// The coefficient and exponent of a finite value (value = ±coefficient × 10^exponent).
    /// Non-canonical encodings give a zero coefficient. Meaningless for infinities and NaNs.
    var finiteParts: (coefficient: UInt128, exponent: Int) {
        if (highBits >> 61) & 0b11 == 0b11 {
            return (0, Int((highBits >> 47) & 0x3FFF) - Decimal128.exponentBias)
        }
        let exponent = Int((highBits >> 49) & 0x3FFF) - Decimal128.exponentBias
        let coefficient = UInt128(highBits & 0x1_FFFF_FFFF_FFFF) << 64 | UInt128(lowBits)
        return (coefficient > Decimal128.maxCoefficient ? 0 : coefficient, exponent)
    }

    /// Encodes a finite value. The caller guarantees `coefficient <= maxCoefficient` and
    /// `minExponent...maxExponent ~= exponent`.
    static func encode(negative: Bool, coefficient: UInt128, exponent: Int) -> Decimal128 {
        let biased = UInt64(exponent + exponentBias)
        let high = (negative ? signBit : 0) | biased << 49 | UInt64(truncatingIfNeeded: coefficient >> 64)
        return Decimal128(highBits: high, lowBits: UInt64(truncatingIfNeeded: coefficient))
    }

    /// A signed infinity.
    static func infinity(negative: Bool) -> Decimal128 {
        negative ? Decimal128(highBits: infinity.highBits | signBit, lowBits: 0) : infinity
    }

    // MARK: Powers of ten

    /// 10^0 ... 10^38 (10^38 is the largest power of ten below 2^128).
    static let powersOf10: [UInt128] = {
        var table: [UInt128] = []
        var value: UInt128 = 1
        for _ in 0...38 {
            table.append(value)
            value = value &* 10
        }
        return table
    }()

    /// 10^exponent for exponent in 0...38.
    static func powerOf10(_ exponent: Int) -> UInt128 {
        var value: UInt128 = 1
        for _ in 0..<exponent { value *= 10 }
        return value
    }

    /// The number of decimal digits of `value`; 0 for 0.
    static func digitCount(_ value: UInt128) -> Int {
        if value == 0 { return 0 }
        let bits = 128 - value.leadingZeroBitCount
        let estimate = (bits * 1233) >> 12  // ⌊bits × log10(2)⌋, at most one too small
        return value >= powersOf10[estimate] ? estimate + 1 : estimate
    }
}

/// The error thrown when a string cannot be converted to a ``Decimal128``.
/// An immutable value; `Sendable`.
public struct Decimal128ParseError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Why a string was rejected.
    public enum Reason: Hashable, Sendable {
        /// The string is not a decimal number, `Infinity`/`Inf` or `NaN` (with an optional sign).
        case invalidSyntax
        /// The number's magnitude is too large for decimal128 (above 9.999…E+6144 even after
        /// using the exponent's full range).
        case overflow
        /// Exact parsing was requested and the number needs rounding (more than 34 significant
        /// digits, or smaller than 1E-6176 allows).
        case inexact
    }

    /// The string that could not be converted.
    public let input: String
    /// Why it could not be converted.
    public let reason: Reason

    /// Creates an error for the given input and reason.
    ///
    /// - Parameters:
    ///   - input: The string that could not be converted.
    ///   - reason: Why it could not be converted.
    public init(input: String, reason: Reason) {
        self.input = input
        self.reason = reason
    }

    /// A readable explanation naming the input.
    public var description: String {
        let why: String
        switch reason {
        case .invalidSyntax: why = "not a decimal number"
        case .overflow: why = "out of the range of Decimal128"
        case .inexact: why = "not exactly representable in 34 digits"
        }
        return "Cannot convert \(input.debugDescription) to Decimal128: \(why)"
    }
}
