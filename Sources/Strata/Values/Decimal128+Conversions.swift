import Foundation

// Conversions into Decimal128 from numbers and literals, and Codable.

extension Decimal128 {
    /// Creates the decimal equal to `value` (exact: every `Int` has at most 19 digits).
    ///
    /// - Parameter value: The integer to convert.
    public init(_ value: Int) {
        self = Decimal128.encode(negative: value < 0, coefficient: UInt128(value.magnitude), exponent: 0)
    }

    /// Creates the decimal nearest to `value`: exact up to 34 digits, rounded half-to-even beyond
    /// (only 128-bit integers can have more).
    ///
    /// - Parameter value: The integer to convert.
    public init<T: BinaryInteger>(_ value: T) {
        if let magnitude = UInt128(exactly: value.magnitude) {
            self = Decimal128.round(negative: value < 0, coefficient: magnitude, exponent: 0, sticky: false).value
        } else {
            self = Decimal128(string: String(value), orNaN: ())
        }
    }

    /// Creates the decimal equal to `source`, or returns `nil` if it needs more than 34
    /// significant digits.
    ///
    /// - Parameter source: The integer to convert.
    public init?<T: BinaryInteger>(exactly source: T) {
        guard let value = try? Decimal128(string: String(source), exact: true) else { return nil }
        self = value
    }

    /// Creates a decimal from the shortest decimal string that round-trips `value` (Swift's
    /// `description` of the `Double`), so `Decimal128(0.1)` is exactly `0.1` and
    /// `Decimal128(2.0)` is `2`. NaN and the infinities map to their decimal counterparts.
    ///
    /// - Parameter value: The double to convert.
    public init(_ value: Double) {
        if value.isNaN { self = .nan; return }
        if value.isInfinite { self = Decimal128.infinity(negative: value < 0); return }
        self = Decimal128(shortest: value.description)
    }

    /// Creates a decimal from an `NSNumber`: a `Double` as the `Double` initializer converts it,
    /// a `Float` from its own shortest round-tripping string (so `0.1 as Float` is `0.1`), and
    /// integers (and Booleans, as 0 or 1) exactly.
    ///
    /// - Parameter number: The number to convert.
    public init(number: NSNumber) {
        switch String(cString: number.objCType) {
        case "d": self.init(number.doubleValue)
        case "f":
            let float = number.floatValue
            self = float.isFinite ? Decimal128(shortest: float.description) : Decimal128(Double(float))
        case "Q", "L", "I", "S", "C": self.init(number.uint64Value)
        default: self.init(number.int64Value)
        }
    }

    /// Parses a finite float's shortest round-tripping `description`, dropping a `.0` suffix.
    private init(shortest text: String) {
        var text = text
        if text.hasSuffix(".0") { text.removeLast(2) }
        self = Decimal128(string: text, orNaN: ())
    }

    /// Parses text produced by this file's own conversions (integer strings and shortest
    /// floating-point strings), which cannot fail.
    private init(string: String, orNaN: Void) {
        self = (try? Decimal128(string: string)) ?? .nan
    }
}

extension Decimal128: ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, ExpressibleByStringLiteral {
    /// Creates the decimal equal to an integer literal.
    ///
    /// - Parameter value: The literal's value.
    public init(integerLiteral value: Int) {
        self.init(value)
    }

    /// Creates a decimal from a floating-point literal, through the shortest round-tripping
    /// `Double` string: `0.1` is exactly `0.1`. Write a string literal for more than 17 digits.
    ///
    /// - Parameter value: The literal's value as a `Double`.
    public init(floatLiteral value: Double) {
        self.init(value)
    }

    /// Parses a string literal as ``init(string:)`` does.
    ///
    /// - Precondition: The literal is a valid decimal string; an invalid one stops the program.
    /// - Parameter value: The literal.
    public init(stringLiteral value: String) {
        do {
            try self.init(string: value)
        } catch {
            preconditionFailure("Invalid Decimal128 literal \(value.debugDescription): \(error)")
        }
    }
}

extension Decimal128: Codable {
    /// Decodes a decimal from a string (as ``init(string:)`` parses it) or, like Realm, from an
    /// integer or floating-point number.
    ///
    /// - Parameter decoder: The decoder to read from.
    /// - Throws: `DecodingError` if the value is none of these or the string is invalid.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let string = try? container.decode(String.self) {
            do {
                try self.init(string: string)
            } catch {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "\(error)")
            }
        } else if let integer = try? container.decode(Int64.self) {
            self.init(integer)
        } else if let double = try? container.decode(Double.self) {
            self.init(double)
        } else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "Expected a Decimal128 string or a number")
        }
    }

    /// Encodes this decimal as a single string: its ``stringValue``.
    ///
    /// - Parameter encoder: The encoder to write to.
    /// - Throws: Any error the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(stringValue)
    }
}
