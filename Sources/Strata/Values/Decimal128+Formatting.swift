import Foundation

// Conversions out of Decimal128: the BSON/IEEE "to-scientific-string" form and Double.

extension Decimal128: CustomStringConvertible, LosslessStringConvertible {
    /// The value in the IEEE 754 / General Decimal Arithmetic "to-scientific-string" form that
    /// the BSON specification, MongoDB and Realm use.
    ///
    /// With the coefficient's digits and the adjusted exponent (exponent + digits - 1): when the
    /// exponent is at most 0 and the adjusted exponent at least -6, plain notation
    /// (`"123.456"`, `"0.001"`, `"-0.0"`, `"2.000"`); otherwise one digit, the other digits
    /// after a point, and `E` with a sign (`"1.23E+3"`, `"1E-7"`, `"0E+3"`). NaNs print as
    /// `"NaN"` and the infinities as `"Infinity"` and `"-Infinity"`. ``init(string:)`` reads
    /// every such string back to the identical bits (except NaN payloads and signs).
    public var stringValue: String {
        if isNaN { return "NaN" }
        if isInfinite { return isNegative ? "-Infinity" : "Infinity" }
        let (coefficient, exponent) = finiteParts
        let digits = Array(String(coefficient).utf8)
        let adjusted = exponent + digits.count - 1
        var out: [UInt8] = isNegative ? [UInt8(ascii: "-")] : []
        out.reserveCapacity(digits.count + 12)
        if exponent <= 0 && adjusted >= -6 {
            let integerDigits = digits.count + exponent
            if exponent == 0 {
                out += digits
            } else if integerDigits > 0 {
                out += digits[..<integerDigits]
                out.append(UInt8(ascii: "."))
                out += digits[integerDigits...]
            } else {
                out += Array("0.".utf8)
                out += [UInt8](repeating: UInt8(ascii: "0"), count: -integerDigits)
                out += digits
            }
        } else {
            out.append(digits[0])
            if digits.count > 1 {
                out.append(UInt8(ascii: "."))
                out += digits[1...]
            }
            out += Array((adjusted >= 0 ? "E+\(adjusted)" : "E\(adjusted)").utf8)
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The same as ``stringValue``.
    public var description: String { stringValue }

    /// The `Double` nearest to this value (a lossy conversion): correctly rounded, ±0 or
    /// ±infinity outside `Double`'s range, and NaN for NaN.
    public var doubleValue: Double {
        if isNaN { return .nan }
        if isInfinite { return isNegative ? -.infinity : .infinity }
        let (coefficient, exponent) = finiteParts
        let magnitude: Double
        if coefficient == 0 {
            magnitude = 0
        } else if exponent + Decimal128.digitCount(coefficient) > 310 {
            magnitude = .infinity
        } else if exponent + Decimal128.digitCount(coefficient) < -330 {
            magnitude = 0
        } else {
            magnitude = Double("\(coefficient)e\(exponent)") ?? .nan
        }
        return isNegative ? -magnitude : magnitude
    }
}
