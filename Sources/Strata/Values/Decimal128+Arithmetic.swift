// IEEE 754-2008 arithmetic, rounding half-to-even to 34 digits. Results are exact whenever the
// exact result fits in 34 digits, with the standard's preferred exponents (the smaller operand
// exponent for + and -, their sum for *, their difference for / when exact). NaN operands give
// NaN, Infinity - Infinity, 0 × Infinity, 0 / 0 and Infinity / Infinity give NaN, x / 0 gives a
// signed infinity, and overflow gives a signed infinity.

extension Decimal128: SignedNumeric {
    /// The magnitude type: `Decimal128` itself.
    public typealias Magnitude = Decimal128

    /// The absolute value: this value with the sign bit cleared.
    public var magnitude: Decimal128 {
        Decimal128(highBits: highBits & ~Decimal128.signBit, lowBits: lowBits)
    }

    /// Flips the sign bit of this value (so `-(0)` is `-0`).
    public mutating func negate() {
        self = -self
    }

    /// Returns `operand` with its sign bit flipped.
    ///
    /// - Parameter operand: The value to negate.
    public static prefix func - (operand: Decimal128) -> Decimal128 {
        Decimal128(highBits: operand.highBits ^ signBit, lowBits: operand.lowBits)
    }

    /// Returns the sum, rounded half-to-even to 34 digits (exact when it fits).
    ///
    /// - Parameters:
    ///   - lhs: The first addend.
    ///   - rhs: The second addend.
    public static func + (lhs: Decimal128, rhs: Decimal128) -> Decimal128 {
        add(lhs, rhs, negatingRight: false)
    }

    /// Returns the difference, rounded half-to-even to 34 digits (exact when it fits).
    ///
    /// - Parameters:
    ///   - lhs: The minuend.
    ///   - rhs: The subtrahend.
    public static func - (lhs: Decimal128, rhs: Decimal128) -> Decimal128 {
        add(lhs, rhs, negatingRight: true)
    }

    /// Returns the product, rounded half-to-even to 34 digits (exact when it fits).
    ///
    /// - Parameters:
    ///   - lhs: The first factor.
    ///   - rhs: The second factor.
    public static func * (lhs: Decimal128, rhs: Decimal128) -> Decimal128 {
        if lhs.isNaN || rhs.isNaN { return .nan }
        let negative = lhs.isNegative != rhs.isNegative
        if lhs.isInfinite || rhs.isInfinite {
            return lhs.isZero || rhs.isZero ? .nan : infinity(negative: negative)
        }
        let (a, aExponent) = lhs.finiteParts
        let (b, bExponent) = rhs.finiteParts
        var (high, low) = a.multipliedFullWidth(by: b)
        var exponent = aExponent + bExponent
        var sticky = false
        // Shorten the (up to 68-digit) product to 38 digits, remembering whether anything non-zero
        // was dropped; the rounding digit stays in the 38.
        while high != 0 || low >= powersOf10[38] {
            let (highQuotient, highRemainder) = high.quotientAndRemainder(dividingBy: 10)
            let (lowQuotient, lowRemainder) = (10 as UInt128).dividingFullWidth((highRemainder, low))
            high = highQuotient
            low = lowQuotient
            sticky = sticky || lowRemainder != 0
            exponent += 1
        }
        return round(negative: negative, coefficient: low, exponent: exponent, sticky: sticky).value
    }

    /// Returns the quotient, rounded half-to-even to 34 digits (exact when it fits).
    ///
    /// Dividing a non-zero number by zero gives a signed infinity; `0 / 0` gives NaN.
    ///
    /// - Parameters:
    ///   - lhs: The dividend.
    ///   - rhs: The divisor.
    public static func / (lhs: Decimal128, rhs: Decimal128) -> Decimal128 {
        if lhs.isNaN || rhs.isNaN { return .nan }
        let negative = lhs.isNegative != rhs.isNegative
        if lhs.isInfinite { return rhs.isInfinite ? .nan : infinity(negative: negative) }
        if rhs.isInfinite { return encode(negative: negative, coefficient: 0, exponent: minExponent) }
        let (a, aExponent) = lhs.finiteParts
        let (b, bExponent) = rhs.finiteParts
        if b == 0 { return a == 0 ? .nan : infinity(negative: negative) }
        // Long division: the integer part, then one digit at a time until the quotient has 35
        // significant digits (34 and the rounding digit) or the remainder is zero.
        var (quotient, remainder) = a.quotientAndRemainder(dividingBy: b)
        var exponent = aExponent - bExponent
        var digits = digitCount(quotient)
        while remainder != 0 && digits < precision + 1 {
            remainder *= 10
            let digit: UInt128
            (digit, remainder) = remainder.quotientAndRemainder(dividingBy: b)
            quotient = quotient * 10 + digit
            exponent -= 1
            if quotient != 0 { digits += 1 }
        }
        return round(negative: negative, coefficient: quotient, exponent: exponent, sticky: remainder != 0).value
    }

    /// Adds `rhs` to `lhs` in place, rounding as ``+(_:_:)`` does.
    ///
    /// - Parameters:
    ///   - lhs: The value to update.
    ///   - rhs: The value to add.
    public static func += (lhs: inout Decimal128, rhs: Decimal128) { lhs = lhs + rhs }

    /// Subtracts `rhs` from `lhs` in place, rounding as ``-(_:_:)`` does.
    ///
    /// - Parameters:
    ///   - lhs: The value to update.
    ///   - rhs: The value to subtract.
    public static func -= (lhs: inout Decimal128, rhs: Decimal128) { lhs = lhs - rhs }

    /// Multiplies `lhs` by `rhs` in place, rounding as ``*(_:_:)`` does.
    ///
    /// - Parameters:
    ///   - lhs: The value to update.
    ///   - rhs: The factor.
    public static func *= (lhs: inout Decimal128, rhs: Decimal128) { lhs = lhs * rhs }

    /// Divides `lhs` by `rhs` in place, rounding as ``/(_:_:)`` does.
    ///
    /// - Parameters:
    ///   - lhs: The value to update.
    ///   - rhs: The divisor.
    public static func /= (lhs: inout Decimal128, rhs: Decimal128) { lhs = lhs / rhs }

    /// `lhs + rhs`, or `lhs - rhs` when `negatingRight`.
    private static func add(_ lhs: Decimal128, _ rhs: Decimal128, negatingRight: Bool) -> Decimal128 {
        if lhs.isNaN || rhs.isNaN { return .nan }
        let lhsNegative = lhs.isNegative
        let rhsNegative = rhs.isNegative != negatingRight
        if lhs.isInfinite || rhs.isInfinite {
            if lhs.isInfinite && rhs.isInfinite && lhsNegative != rhsNegative { return .nan }
            return infinity(negative: lhs.isInfinite ? lhsNegative : rhsNegative)
        }
        let (lhsCoefficient, lhsExponent) = lhs.finiteParts
        let (rhsCoefficient, rhsExponent) = rhs.finiteParts
        // (big, bigExponent) is the operand with the larger exponent.
        let swap = rhsExponent > lhsExponent
        let (big, bigExponent, bigNegative) =
            swap ? (rhsCoefficient, rhsExponent, rhsNegative) : (lhsCoefficient, lhsExponent, lhsNegative)
        let (small, smallExponent, smallNegative) =
            swap ? (lhsCoefficient, lhsExponent, lhsNegative) : (rhsCoefficient, rhsExponent, rhsNegative)
        if big == 0 && small == 0 {
            // x + (-x) is +0 when rounding to nearest; -0 + -0 is -0.
            let negative = bigNegative && smallNegative
            return encode(negative: negative, coefficient: 0, exponent: smallExponent)
        }
        if big == 0 { return encode(negative: smallNegative, coefficient: small, exponent: smallExponent) }
        let shift = bigExponent - smallExponent
        let bigDigits = digitCount(big)
        if bigDigits + shift <= 37 {
            // Exact in 128 bits at the smaller exponent.
            let scaled = big * powersOf10[shift]
            return signedSum(scaled, bigNegative, small, smallNegative, exponent: smallExponent, sticky: false)
        }
        // Far apart: scale `big` up to 37 digits, shift `small` right to match, and keep only
        // whether its dropped digits were non-zero. The result has at least 36 digits, so the
        // rounding digit is never among those dropped.
        let scale = 37 - bigDigits
        let scaled = big * powersOf10[scale]
        let drop = shift - scale
        var shifted: UInt128 = 0
        var sticky = small != 0
        if drop <= 38 {
            let (quotient, remainder) = small.quotientAndRemainder(dividingBy: powersOf10[drop])
            shifted = quotient
            sticky = remainder != 0
        }
        return signedSum(scaled, bigNegative, shifted, smallNegative, exponent: bigExponent - scale, sticky: sticky)
    }

    /// Rounds ±`a` ± (`b` + δ) at `exponent`, where δ is a fraction of a unit, non-zero exactly
    /// when `sticky`, and `a` > `b` whenever `sticky`.
    private static func signedSum(
        _ a: UInt128, _ aNegative: Bool, _ b: UInt128, _ bNegative: Bool, exponent: Int, sticky: Bool
    ) -> Decimal128 {
        if aNegative == bNegative {
            return round(negative: aNegative, coefficient: a + b, exponent: exponent, sticky: sticky).value
        }
        if a == b && !sticky { return encode(negative: false, coefficient: 0, exponent: exponent) }
        if a > b {
            // a - (b + δ) = (a - b - 1) + (1 - δ).
            let difference = sticky ? a - b - 1 : a - b
            return round(negative: aNegative, coefficient: difference, exponent: exponent, sticky: sticky).value
        }
        return round(negative: bNegative, coefficient: b - a, exponent: exponent, sticky: false).value
    }
}
