// Decimal128 from strings: the BSON decimal128 grammar, rounding half-to-even unless exact.

extension Decimal128 {
    /// Parses a decimal string, rounding half-to-even to 34 significant digits if needed.
    ///
    /// Accepted (ASCII, no whitespace): an optional `+`/`-`, then digits with an optional `.`
    /// (`"1"`, `"1."`, `".5"`, `"-0.00001"`, `"0001"`), then an optional exponent `e`/`E` with an
    /// optional sign and at least one digit (`"1.234E+5"`, `"1e-6176"`); or, ignoring case,
    /// `Infinity`, `Inf` or `NaN` with an optional sign. Trailing zeros are kept (`"1.50"` stays
    /// `1.50`), and any string of at most 34 significant digits with an exponent in range
    /// converts exactly. Longer strings round half-to-even; values below 1E-6176 round to a
    /// multiple of it (possibly zero); exponents too large for the coefficient are absorbed by
    /// padding it with zeros (`"1E6112"` becomes `1.0E+6112`), as the BSON specification requires.
    ///
    /// - Parameter string: The string to parse.
    /// - Throws: ``Decimal128ParseError`` with reason `.invalidSyntax` if `string` is not a
    ///   number, or `.overflow` if its magnitude exceeds ``max`` after rounding.
    public init(string: String) throws {
        try self.init(string: string, exact: false)
    }

    /// Parses a decimal string, optionally refusing any rounding.
    ///
    /// With `exact: false` this is ``init(string:)``. With `exact: true` a string whose value is
    /// not exactly representable (more than 34 significant digits other than trailing zeros, or
    /// non-zero digits below 1E-6176) throws instead of rounding, as the BSON specification's
    /// parse-error cases and Realm's parser do.
    ///
    /// - Parameters:
    ///   - string: The string to parse; see ``init(string:)`` for the grammar.
    ///   - exact: Whether to throw rather than round.
    /// - Throws: ``Decimal128ParseError`` with reason `.invalidSyntax`, `.overflow`, or (only
    ///   when `exact` is `true`) `.inexact`.
    public init(string: String, exact: Bool) throws {
        var utf8 = string
        let outcome = utf8.withUTF8 { Decimal128.parse($0) }
        switch outcome {
        case .special(let value):
            self = value
        case .syntaxError:
            throw Decimal128ParseError(input: string, reason: .invalidSyntax)
        case .number(let rounded):
            if rounded.overflow { throw Decimal128ParseError(input: string, reason: .overflow) }
            if exact && rounded.inexact { throw Decimal128ParseError(input: string, reason: .inexact) }
            self = rounded.value
        }
    }

    /// Parses a decimal string as ``init(string:)`` does, or returns `nil` if it cannot.
    ///
    /// - Parameter description: The string to parse, for example a ``stringValue``.
    public init?(_ description: String) {
        guard let value = try? Decimal128(string: description) else { return nil }
        self = value
    }

    private enum ParseOutcome {
        case special(Decimal128)
        case number(Rounded)
        case syntaxError
    }

    /// Significant digits kept while scanning; the rest only set the sticky flag. More than 34,
    /// so the rounding digit is always kept.
    private static let scanDigits = 36

    private static func parse(_ text: UnsafeBufferPointer<UInt8>) -> ParseOutcome {
        var index = 0
        var negative = false
        if index < text.count, text[index] == UInt8(ascii: "+") || text[index] == UInt8(ascii: "-") {
            negative = text[index] == UInt8(ascii: "-")
            index += 1
        }
        if let special = parseSpecial(text, from: index, negative: negative) { return .special(special) }

        var coefficient: UInt128 = 0
        var significant = 0, dropped = 0, fractionDigits = 0
        var sticky = false, sawDigit = false, sawPoint = false
        while index < text.count {
            let char = text[index]
            if char >= UInt8(ascii: "0") && char <= UInt8(ascii: "9") {
                let digit = UInt128(char &- UInt8(ascii: "0"))
                sawDigit = true
                if sawPoint { fractionDigits += 1 }
                if significant == 0 && digit == 0 {
                    // A leading zero: no significance, only position.
                } else if significant < scanDigits {
                    coefficient = coefficient * 10 + digit
                    significant += 1
                } else {
                    dropped += 1
                    if digit != 0 { sticky = true }
                }
            } else if char == UInt8(ascii: ".") {
                if sawPoint { return .syntaxError }
                sawPoint = true
            } else {
                break
            }
            index += 1
        }
        guard sawDigit else { return .syntaxError }

        var exponent = 0
        if index < text.count {
            guard text[index] == UInt8(ascii: "e") || text[index] == UInt8(ascii: "E") else { return .syntaxError }
            index += 1
            var exponentNegative = false
            if index < text.count, text[index] == UInt8(ascii: "+") || text[index] == UInt8(ascii: "-") {
                exponentNegative = text[index] == UInt8(ascii: "-")
                index += 1
            }
            guard index < text.count else { return .syntaxError }
            while index < text.count {
                let char = text[index]
                guard char >= UInt8(ascii: "0") && char <= UInt8(ascii: "9") else { return .syntaxError }
                // Saturate: anything this large is out of range whatever the digits say.
                if exponent < 100_000_000 { exponent = exponent * 10 + Int(char &- UInt8(ascii: "0")) }
                index += 1
            }
            if exponentNegative { exponent = -exponent }
        }
        return .number(round(
            negative: negative, coefficient: coefficient,
            exponent: exponent - fractionDigits + dropped, sticky: sticky))
    }

    /// `inf`, `infinity` or `nan` (any case) from `start` to the end, else `nil`.
    private static func parseSpecial(_ text: UnsafeBufferPointer<UInt8>, from start: Int, negative: Bool) -> Decimal128? {
        let count = text.count - start
        guard count == 3 || count == 8 else { return nil }
        var word = ""
        for offset in 0..<count { word.unicodeScalars.append(Unicode.Scalar(text[start + offset] | 0x20)) }
        switch word {
        case "inf", "infinity": return infinity(negative: negative)
        case "nan": return negative ? Decimal128(highBits: nan.highBits | signBit, lowBits: 0) : nan
        default: return nil
        }
    }
}
