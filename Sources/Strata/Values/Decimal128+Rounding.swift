// The one routine that turns an exact-or-nearly-exact intermediate result into a Decimal128:
// round half-to-even to 34 digits, handle underflow (gradual, down to 1E-6176) and overflow,
// and clamp exponents the way IEEE 754 and the BSON specification do.

extension Decimal128 {
    /// The outcome of ``round(negative:coefficient:exponent:sticky:)``.
    struct Rounded {
        /// The encoded result (±Infinity on overflow).
        var value: Decimal128
        /// Whether `value` differs from the exact input (rounded, underflowed or overflowed).
        var inexact: Bool
        /// Whether the magnitude was too large and `value` is an infinity.
        var overflow: Bool
    }

    /// Rounds ±(`coefficient` + δ) × 10^`exponent` to the nearest decimal128, ties to even.
    ///
    /// `sticky` says whether δ, a fraction strictly between 0 and 1 unit of the coefficient's last
    /// digit, is non-zero (the exact value had more non-zero digits than `coefficient` holds).
    /// Callers that set `sticky` pass at least 35 digits, so the digit that decides the rounding
    /// is always in `coefficient`.
    ///
    /// Rules (IEEE 754-2008 §3.5, and the BSON corpus's "clamped" cases):
    /// - More than 34 digits, or an exponent below -6176: drop digits, rounding half-to-even;
    ///   a carry to 10^34 becomes 10^33 with the exponent one higher.
    /// - An exponent above 6111: a zero takes exponent 6111; otherwise the coefficient is
    ///   padded with zeros if it has room (fold-down), else the result overflows to ±Infinity.
    static func round(negative: Bool, coefficient: UInt128, exponent: Int, sticky: Bool) -> Rounded {
        var coefficient = coefficient
        var exponent = exponent
        var inexact = false
        let digits = digitCount(coefficient)
        let drop = Swift.max(digits - precision, minExponent - exponent, 0)
        if drop > 0 {
            var roundDigit: UInt128 = 0
            var rest = sticky
            if drop > 39 {
                // Every digit is below the rounding digit's position.
                rest = rest || coefficient != 0
                coefficient = 0
            } else {
                let divisor = powersOf10[drop - 1]
                let (kept, remainder) = coefficient.quotientAndRemainder(dividingBy: divisor)
                rest = rest || remainder != 0
                roundDigit = kept % 10
                coefficient = kept / 10
            }
            exponent += drop
            inexact = roundDigit != 0 || rest
            if roundDigit > 5 || (roundDigit == 5 && (rest || coefficient & 1 == 1)) {
                coefficient += 1
                if coefficient > maxCoefficient {
                    coefficient /= 10
                    exponent += 1
                }
            }
        } else if sticky {
            // Not reached by the callers (they pass enough digits); truncate conservatively.
            inexact = true
        }
        if exponent > maxExponent {
            if coefficient == 0 {
                exponent = maxExponent
            } else {
                let pad = exponent - maxExponent
                guard digitCount(coefficient) + pad <= precision else {
                    return Rounded(value: infinity(negative: negative), inexact: true, overflow: true)
                }
                coefficient *= powersOf10[pad]
                exponent = maxExponent
            }
        }
        let value = encode(negative: negative, coefficient: coefficient, exponent: exponent)
        return Rounded(value: value, inexact: inexact, overflow: false)
    }
}
